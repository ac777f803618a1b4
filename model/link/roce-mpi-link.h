/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_MPI_LINK_H
#define ROCE_MPI_LINK_H

#include "ns3/ptr.h"

namespace ns3
{

class RoceChannel;
class RocePfcNetDevice;

/**
 * \ingroup rocev2
 * \brief The remote variant of RoceChannel: a link whose ends are on two
 * MPI ranks (MPI builds only, `./rocev2 build --mpi`).
 *
 * Connect() cuts the channel (RoceChannel::Cut) and aggregates ns-3's
 * MpiReceiver to the local device. A frame the local end transmits (data
 * and PFC frames alike) becomes one MPI message through ns-3's
 * MpiInterface::SendPacket, timed to arrive at the peer's rank when its
 * first bit reaches the peer (now + link delay, never less than the
 * lookahead, which ns-3's DistributedSimulatorImpl takes from the smallest
 * delay of the cut links). The message carries the frame's serialization
 * time and, when the RoceOrderedScheduler runs, the order key the sender
 * would have given a local receive event; the receiving rank schedules
 * RocePfcNetDevice::Receive at the frame's last bit (send time +
 * serialization + delay) with that key. The results therefore do not
 * depend on the number of ranks.
 *
 * The same MPI messages carry RoceRankCall's calls between ranks (a
 * flag in the order header tells them from frames): to the first device
 * noted on the cut for the target rank (AddCutEnd), one lookahead after
 * they are sent; a scheduled call keeps the order key its sender reserved.
 *
 * Events per frame on the cut: the sender's transmit (as on any link), the
 * MPI layer's receive event at the first bit and the device's receive at
 * the last bit on the peer's rank.
 */
class RoceMpiLink
{
  public:
    /**
     * \brief Make a link cross ranks.
     * \param channel the link, both ends attached
     * \param local its end on this rank
     * Refuses (RoceError) a link of zero delay: it gives no lookahead.
     */
    static void Connect(Ptr<RoceChannel> channel, Ptr<RocePfcNetDevice> local);

    /**
     * \brief Note a device on the cut (every rank, for every cut link): calls
     * (RoceRankCall) for its rank go to the first one noted.
     * \param device an end of a link between ranks
     */
    static void AddCutEnd(Ptr<RocePfcNetDevice> device);

    /** \return frames this rank sent to other ranks */
    static uint64_t GetFramesSent();
    /** \return PFC frames among them */
    static uint64_t GetPfcFramesSent();
    /** \return RoceRankCall calls this rank sent to other ranks */
    static uint64_t GetCallsSent();
};

} // namespace ns3

#endif /* ROCE_MPI_LINK_H */
