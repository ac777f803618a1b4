/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-mpi-helper.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-error.h"
#include "ns3/roce-fct-stats.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-rank-call.h"
#include "ns3/string.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/roce-mpi-link.h"

#include <mpi.h>
#endif

namespace ns3
{

void
RoceMpiHelper::Enable(int* argc, char*** argv)
{
    GlobalValue::Bind("SchedulerType", StringValue("ns3::RoceOrderedScheduler"));
#ifdef NS3_MPI
    // ns-3's MPI layer picks its protocol from SimulatorImplementationType
    // when enabled, before the program's CommandLine runs: check the flag here.
    // The null-message engine peeks at the event queue from inside events and
    // inserts received frames between events without peeking, which the
    // RoceOrderedScheduler's rule for "outside an event" cannot follow.
    const std::string flag = "--SimulatorImplementationType=";
    for (int i = 1; argc && argv && i < *argc; ++i)
    {
        const std::string arg = (*argv)[i];
        ROCE_ERROR_IF(arg.rfind(flag, 0) == 0 && arg != flag + "ns3::DistributedSimulatorImpl",
                      arg << ": an MPI run of this module uses ns3::DistributedSimulatorImpl "
                             "(granted time windows); ns3::NullMessageSimulatorImpl and "
                             "others are not supported");
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(argc, argv);
#else
    (void)argc;
    (void)argv;
#endif
    RoceRankCall::SetRank(GetRank());
    // Communicators made from now on behave alike on any number of ranks.
    Config::SetDefault("ns3::RoceCommunicator::Distributed", BooleanValue(true));
    Config::SetDefault("ns3::RoceFctStats::Distributed", BooleanValue(true));
}

void
RoceMpiHelper::Disable()
{
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        MpiInterface::Disable();
    }
#endif
}

bool
RoceMpiHelper::IsBuiltWithMpi()
{
#ifdef NS3_MPI
    return true;
#else
    return false;
#endif
}

uint32_t
RoceMpiHelper::GetRank()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled() ? MpiInterface::GetSystemId() : 0;
#else
    return 0;
#endif
}

uint32_t
RoceMpiHelper::GetSize()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled() ? MpiInterface::GetSize() : 1;
#else
    return 1;
#endif
}

bool
RoceMpiHelper::IsLocal(Ptr<const Node> node)
{
    return node && node->GetSystemId() == GetRank();
}

void
RoceMpiHelper::ConnectCut(Ptr<RoceChannel> channel,
                          Ptr<RocePfcNetDevice> a,
                          Ptr<RocePfcNetDevice> b)
{
    const uint32_t ra = a->GetNode()->GetSystemId();
    const uint32_t rb = b->GetNode()->GetSystemId();
    const uint32_t size = GetSize();
    ROCE_ERROR_IF(channel->GetDelay().IsZero(),
                  "partition: the link between node "
                      << a->GetNode()->GetId() << " (rank " << ra << ") and node "
                      << b->GetNode()->GetId() << " (rank " << rb
                      << ") is on the cut with a delay of 0; a link between ranks needs a "
                         "positive delay (it is the lookahead of the distributed simulator)");
    for (const auto& end : {std::pair{a->GetNode(), ra}, std::pair{b->GetNode(), rb}})
    {
        const Ptr<Node> node = end.first;
        const uint32_t rank = end.second;
        ROCE_ERROR_IF(rank >= size,
                      "partition: node "
                          << node->GetId() << " is on rank " << rank << " but the run has " << size
                          << " rank" << (size == 1 ? "" : "s")
                          << (IsBuiltWithMpi() ? ""
                                               : " (this build has no MPI: ./rocev2 build "
                                                 "--mpi, ./rocev2 run --mpi=N)"));
    }
#ifdef NS3_MPI
    RoceMpiLink::AddCutEnd(a);
    RoceMpiLink::AddCutEnd(b);
#endif
    const uint32_t me = GetRank();
    if (ra != me && rb != me)
    {
        return; // both ends elsewhere: this rank's copies never run
    }
#ifdef NS3_MPI
    RoceMpiLink::Connect(channel, ra == me ? a : b);
#endif
}

std::vector<std::string>
RoceMpiHelper::Gather(const std::string& text)
{
#ifdef NS3_MPI
    if (GetSize() > 1)
    {
        MPI_Comm comm = MpiInterface::GetCommunicator();
        const int size = static_cast<int>(GetSize());
        int mine = static_cast<int>(text.size());
        std::vector<int> lengths(size, 0);
        MPI_Gather(&mine, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
        std::vector<int> offsets(size, 0);
        int total = 0;
        for (int r = 0; r < size; ++r)
        {
            offsets[r] = total;
            total += lengths[r];
        }
        std::string all(GetRank() == 0 ? static_cast<std::size_t>(total) : 0, '\0');
        MPI_Gatherv(text.data(),
                    mine,
                    MPI_CHAR,
                    all.data(),
                    lengths.data(),
                    offsets.data(),
                    MPI_CHAR,
                    0,
                    comm);
        std::vector<std::string> parts;
        if (GetRank() == 0)
        {
            for (int r = 0; r < size; ++r)
            {
                parts.push_back(all.substr(offsets[r], lengths[r]));
            }
        }
        return parts;
    }
#endif
    return {text};
}

void
RoceMpiHelper::Gather(Ptr<RoceFctStats> stats)
{
    ROCE_ERROR_IF(!stats, "RoceMpiHelper::Gather: no RoceFctStats");
    const std::vector<std::string> parts = Gather(stats->Pack());
    if (GetRank() == 0)
    {
        stats->Merge(parts);
    }
}

namespace
{

/**
 * \param values this rank's values \param sum true: sums, false: maxima
 * \return on rank 0 the reduction over the ranks; elsewhere the values
 */
std::vector<uint64_t>
Reduce(const std::vector<uint64_t>& values, bool sum)
{
#ifdef NS3_MPI
    if (RoceMpiHelper::GetSize() > 1)
    {
        std::vector<uint64_t> all(values.size(), 0);
        MPI_Reduce(values.data(),
                   all.data(),
                   static_cast<int>(values.size()),
                   MPI_UINT64_T,
                   sum ? MPI_SUM : MPI_MAX,
                   0,
                   MpiInterface::GetCommunicator());
        return RoceMpiHelper::GetRank() == 0 ? all : values;
    }
#else
    (void)sum;
#endif
    return values;
}

} // namespace

std::vector<uint64_t>
RoceMpiHelper::Sum(const std::vector<uint64_t>& values)
{
    return Reduce(values, true);
}

std::vector<uint64_t>
RoceMpiHelper::Max(const std::vector<uint64_t>& values)
{
    return Reduce(values, false);
}

uint64_t
RoceMpiHelper::GetCutFramesSent()
{
#ifdef NS3_MPI
    return RoceMpiLink::GetFramesSent();
#else
    return 0;
#endif
}

uint64_t
RoceMpiHelper::GetCutCallsSent()
{
#ifdef NS3_MPI
    return RoceMpiLink::GetCallsSent();
#else
    return 0;
#endif
}

uint64_t
RoceMpiHelper::GetCutPfcFramesSent()
{
#ifdef NS3_MPI
    return RoceMpiLink::GetPfcFramesSent();
#else
    return 0;
#endif
}

} // namespace ns3
