/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_MESSAGE_OFFLOAD_H
#define ROCE_MESSAGE_OFFLOAD_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

class RoceQueuePair;
struct RoceCompletion;

/**
 * \ingroup rocev2
 * \brief What carries a queue pair's messages instead of its packets: the
 * flow-level engine (RoceFlowEngine) implements it.
 *
 * A NIC with an offload (RoceNetDevice::SetMessageOffload) hands every
 * message its queue pairs are given (PostWrite, PostSend) to it; no frame is
 * built. The offload later calls RoceQueuePair::DeliverOffloaded on the
 * receiving queue pair (its counters and MessageReceived trace, as the last
 * packet would) and RoceQueuePair::CompleteOffloaded on the sending one (its
 * counters, MessageComplete trace and the completion callback, as the last
 * ACK would), so that everything above the queue pair (collectives, jobs,
 * replay, flow applications) runs unchanged.
 */
class RoceMessageOffload : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief Carry one message.
     * \param qp the sending queue pair (connected, not in error)
     * \param id the message id Post returned
     * \param bytes its size
     * \param write RDMA WRITE (else SEND)
     * \param posted when it was posted
     * \param cb the completion callback (may be null)
     */
    virtual void Carry(RoceQueuePair* qp,
                       uint64_t id,
                       uint64_t bytes,
                       bool write,
                       Time posted,
                       Callback<void, const RoceCompletion&> cb) = 0;
};

} // namespace ns3

#endif /* ROCE_MESSAGE_OFFLOAD_H */
