/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

#include "ns3/callback.h"
#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/roce-wire-frame.h"

#include <array>

namespace ns3
{

class RocePfcNetDevice;
class Packet;

/**
 * \ingroup rocev2
 * \brief A full-duplex point-to-point Ethernet link between two PfcNetDevices.
 *
 * The sending device computes the serialization time (frame + FCS + preamble,
 * SFD and IFG); the channel adds the propagation delay and schedules one
 * receive event at the peer. A hop therefore costs one receive event here,
 * plus one transmit-complete event at the sender only when another frame
 * waits there to follow it.
 *
 * A link on the cut of a distributed run (its ends on two MPI ranks) is
 * Cut(): both devices stay attached, so the routing helpers and GetPeer()
 * see the peer as in one process, but only the local end transmits, into
 * a callback that carries the frame to the peer's rank (RoceMpiLink); the
 * peer's copy on this rank never receives. Transmit() keeps its one test
 * on the forwarding path: a cut link counts one device for it.
 */
class RoceChannel : public Channel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceChannel();

    /**
     * \brief Attach a device to one end of the link.
     * \param device the device; at most two may be attached
     */
    void Attach(Ptr<RocePfcNetDevice> device);

    /**
     * \brief Put a frame on the wire.
     * \param p the frame (Ethernet header included, FCS excluded)
     * \param src the sending device
     * \param txTime the serialization time of the frame
     */
    void Transmit(RoceFramePtr p, const RocePfcNetDevice* src, Time txTime);

    /** \return the propagation delay */
    Time GetDelay() const;

    /**
     * Carries a frame of a cut link to the peer's rank: (frame, serialization
     * time, sending device).
     */
    typedef Callback<void, Ptr<Packet>, Time, const RocePfcNetDevice*> RemoteSendCallback;

    /**
     * \brief Make this link one that crosses ranks: frames that the local
     * end transmits go to send, and the other end's device on this rank
     * (the peer's copy) sends nothing.
     * \param local the end on this rank (attached)
     * \param send where its frames go
     */
    void Cut(const RocePfcNetDevice* local, RemoteSendCallback send);

    /**
     * \brief Cut the link with both ends on this rank: frames of either end
     * go to send, which delivers them (tests of the delivery order that a
     * link between ranks keeps, in one process).
     * \param send where the frames go
     */
    void CutBothEnds(RemoteSendCallback send);

    /**
     * \brief Take the link down or bring it up: both ends at once (see
     * RocePfcNetDevice::SetLinkUp).
     * \param up the new state
     */
    void SetLinkUp(bool up);

    /** \return true unless the link is down */
    bool IsLinkUp() const;

    /**
     * \param device one end of the link
     * \return the device at the other end, or nullptr
     */
    Ptr<RocePfcNetDevice> GetPeer(const RocePfcNetDevice* device) const;

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Transmit() of an end without a peer on this rank: nothing, or
     * the cut link's callback. Out of line, off the forwarding path.
     * \param p the frame \param src the sending device \param txTime its serialization time
     */
    [[gnu::noinline]] void TransmitElsewhere(RoceWireFrame& p,
                                             const RocePfcNetDevice* src,
                                             const Time& txTime);

    Time m_delay;                                   //!< propagation delay
    std::array<Ptr<RocePfcNetDevice>, 2> m_devices; //!< the two ends
    std::size_t m_nDevices{0};                      //!< ends that receive (1 on a cut link)
    bool m_up{true};                                //!< the link is up
    bool m_cut{false};                              //!< the ends are on two ranks
    bool m_bothEnds{false};                         //!< CutBothEnds(): both ends send
    RemoteSendCallback m_remoteSend;                //!< a cut link's way to the peer's rank
};

} // namespace ns3

#endif /* ROCE_CHANNEL_H */
