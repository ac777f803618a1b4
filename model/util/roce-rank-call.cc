/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-rank-call.h"

#include "roce-error.h"

#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

namespace
{

/** The services and how calls leave this rank. */
struct RoceRankCallState
{
    std::vector<RoceRankCall::Handler> services; //!< by number
    RoceRankCall::Transport transport;           //!< null: one rank
    Time lookahead;                              //!< this rank's lookahead
    uint32_t rank{0};                            //!< this rank
};

RoceRankCallState&
State()
{
    static RoceRankCallState s;
    return s;
}

/** \param node a node id \return its rank */
uint32_t
RankOf(uint32_t node)
{
    ROCE_ERROR_IF(node >= NodeList::GetNNodes(),
                  "RoceRankCall: node " << node << " does not exist (" << NodeList::GetNNodes()
                                        << " nodes)");
    return NodeList::GetNode(node)->GetSystemId();
}

} // namespace

uint32_t
RoceRankCall::Register(Handler handler)
{
    State().services.push_back(handler);
    return State().services.size() - 1;
}

void
RoceRankCall::Unregister(uint32_t service)
{
    if (service < State().services.size())
    {
        State().services[service] = Handler();
    }
}

void
RoceRankCall::Run(uint32_t service, const std::vector<uint64_t>& words)
{
    const RoceRankCallState& s = State();
    ROCE_ERROR_IF(service >= s.services.size() || s.services[service].IsNull(),
                  "RoceRankCall: service " << service << " is not registered on rank " << s.rank
                                           << " (register services in the same order on every "
                                              "rank)");
    s.services[service](words);
}

void
RoceRankCall::Schedule(uint32_t node,
                       Time delay,
                       uint32_t service,
                       const std::vector<uint64_t>& words)
{
    const uint32_t rank = RankOf(node);
    RoceRankCallState& s = State();
    if (rank == s.rank)
    {
        Simulator::ScheduleWithContext(node, delay, &RoceRankCall::Run, service, words);
        return;
    }
    ROCE_ERROR_IF(s.transport.IsNull(),
                  "RoceRankCall: node " << node << " is on rank " << rank
                                        << ", but this process has no MPI transport (rank "
                                        << s.rank << ")");
    ROCE_ERROR_IF(delay <= s.lookahead,
                  "RoceRankCall: a call to node "
                      << node << " on rank " << rank << " after " << delay.As(Time::US)
                      << " must come later than the lookahead " << s.lookahead.As(Time::US)
                      << " (the smallest delay of a cut link)");
    s.transport(node, rank, Simulator::Now() + delay, service, words);
}

void
RoceRankCall::Deliver(uint32_t node, uint32_t service, const std::vector<uint64_t>& words)
{
    const uint32_t rank = RankOf(node);
    RoceRankCallState& s = State();
    if (rank == s.rank)
    {
        Run(service, words);
        return;
    }
    ROCE_ERROR_IF(s.transport.IsNull(),
                  "RoceRankCall: node " << node << " is on rank " << rank
                                        << ", but this process has no MPI transport (rank "
                                        << s.rank << ")");
    s.transport(node, rank, Time(0), service, words);
}

void
RoceRankCall::Arrived(uint32_t node, Time at, uint32_t service, std::vector<uint64_t> words)
{
    if (at.IsZero())
    {
        Run(service, words);
        return;
    }
    Simulator::ScheduleWithContext(node,
                                   at - Simulator::Now(),
                                   &RoceRankCall::Run,
                                   service,
                                   std::move(words));
}

bool
RoceRankCall::IsLocal(uint32_t node)
{
    return RankOf(node) == State().rank;
}

uint32_t
RoceRankCall::GetRank()
{
    return State().rank;
}

bool
RoceRankCall::HasTransport()
{
    return !State().transport.IsNull();
}

Time
RoceRankCall::GetLookahead()
{
    return State().lookahead;
}

void
RoceRankCall::SetRank(uint32_t rank)
{
    State().rank = rank;
}

void
RoceRankCall::SetTransport(Transport transport, Time lookahead)
{
    State().transport = transport;
    State().lookahead = lookahead;
}

} // namespace ns3
