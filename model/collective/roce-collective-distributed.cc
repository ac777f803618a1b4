/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RoceCollective across MPI ranks: a chunk's arrival split into the
// receiver's part and the sender's (see RoceCollective, "Across MPI ranks").

#include "roce-collective.h"

#include "ns3/node.h"
#include "ns3/roce-error.h"
#include "ns3/roce-rank-call.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
RoceCollective::StartDistributed(uint32_t p)
{
    m_distributed = m_comm->IsDistributed();
    if (!m_distributed)
    {
        return;
    }
    m_comm->CheckDistributed();
    ROCE_ERROR_IF(RoceRankCall::HasTransport() && (!m_done.IsNull() || !m_rankDone.IsNull()),
                  "RoceCollective: across MPI ranks an operation's done callbacks would run on "
                  "each process when its own ranks finish, so what they start would start at "
                  "other times than in one process; start each operation at a fixed time "
                  "(nccl-tests iterations, jobs and Chakra replay run in one process)");
    m_local.assign(p, 0);
    m_ranksLeft = 0;
    for (uint32_t r = 0; r < p; ++r)
    {
        m_local[r] = m_comm->IsLocal(r) ? 1 : 0;
        m_ranksLeft += m_local[r];
    }
}

void
RoceCollective::ConnectRings()
{
    for (uint32_t c = 0; m_distributed && c < m_rings.size(); ++c)
    {
        for (const RingNode& n : m_rings[c].nodes)
        {
            if (n.srcNic)
            {
                m_comm->Connect(n.srcNic, n.dstNic);
            }
        }
    }
}

void
RoceCollective::ConnectSchedule()
{
    if (!m_distributed)
    {
        return;
    }
    auto node = [this](uint32_t r) { return m_comm->GetRank(r).node; };
    for (uint32_t i = 0; i < m_schedule.GetN(); ++i)
    {
        const RoceCollectiveSchedule::Transfer& x = m_schedule.Get(i);
        if (x.bytes > 0 && !m_comm->SameDomain(x.src, x.dst))
        {
            m_comm->Connect(m_comm->GetRank(x.src).nic, m_comm->GetRank(x.dst).nic);
        }
        // The arrival of x is handled where x.dst runs: what waits for it
        // must be sent from there (an empty transfer's successors from
        // where it became ready).
        const auto succ = m_schedule.Successors(i);
        for (const uint32_t* it = succ.first; it != succ.second; ++it)
        {
            const RoceCollectiveSchedule::Transfer& y = m_schedule.Get(*it);
            const bool ok = x.bytes > 0 ? node(x.dst) == node(y.src)
                                        : node(x.src) == node(x.dst) && node(x.dst) == node(y.src);
            ROCE_ERROR_IF(!ok,
                          "RoceCollective: " << GetAlgorithmName(m_algo) << " transfer " << *it
                                             << " (rank " << y.src << " to " << y.dst
                                             << ") waits for transfer " << i << " (rank " << x.src
                                             << " to " << x.dst
                                             << ") on another node, which a Distributed "
                                                "communicator cannot run");
        }
    }
}

void
RoceCollective::Received(uint32_t receiver)
{
    NS_ASSERT(m_recvsLeft[receiver] > 0);
    --m_recvsLeft[receiver];
    m_rankLast[receiver] = std::max(m_rankLast[receiver], RoceNow());
    CheckRank(receiver);
}

void
RoceCollective::Sent(uint32_t sender, Time at)
{
    NS_ASSERT(m_sendsLeft[sender] > 0);
    --m_sendsLeft[sender];
    m_rankLast[sender] = std::max(m_rankLast[sender], at);
    CheckRank(sender);
}

void
RoceCollective::RingReceived(uint64_t tag)
{
    const RingChunk x = DecodeRingTag(tag);
    Ring& ring = m_rings[x.c];
    if (RingForwards(x))
    {
        ring.nodes[x.q].ready.push_back((uint64_t(x.step + 1) << 32) | x.k);
        Pump(x.c, x.q);
    }
    // Last, as the operation's done callback may start the next one.
    Received(ring.nodes[x.q].rank);
}

void
RoceCollective::RingSent(uint64_t tag, Time at)
{
    const RingChunk x = DecodeRingTag(tag);
    Ring& ring = m_rings[x.c];
    const uint32_t p = ring.nodes.size();
    const uint32_t from = (x.q + p - 1) % p;
    --ring.nodes[from].inFlight;
    Pump(x.c, from);
    Sent(ring.nodes[from].rank, at);
}

void
RoceCollective::DirectReceived(uint64_t tag)
{
    Received(tag & 0xFFFFFFFF);
}

void
RoceCollective::DirectSent(uint64_t tag, Time at)
{
    Sent(tag >> 32, at);
}

void
RoceCollective::ScheduleReceived(uint64_t tag)
{
    const uint32_t i = tag;
    const uint32_t dst = m_schedule.Get(i).dst;
    Release(i);
    Received(dst);
}

void
RoceCollective::ScheduleSent(uint64_t tag, Time at)
{
    const uint32_t i = tag;
    const RoceCollectiveSchedule::Transfer x = m_schedule.Get(i);
    --m_schedule.GetLane(x.lane).inFlight;
    PumpLane(x.lane);
    Sent(x.src, at);
}

} // namespace ns3
