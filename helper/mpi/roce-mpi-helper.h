/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_MPI_HELPER_H
#define ROCE_MPI_HELPER_H

#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class Node;
class RoceChannel;
class RoceFctStats;
class RoceMonitor;
class RocePfcNetDevice;

/**
 * \ingroup rocev2
 * \brief Running one fabric over MPI ranks (ns-3's distributed simulator),
 * with the same calls in the plain build (one rank).
 *
 * A program calls Enable() first, builds its fabric with every node given
 * a rank (its ns-3 system id; RoceAiZoneHelper::SetPartition does it), and
 * starts applications only on nodes where IsLocal(). Every rank creates
 * every node; RoceHelper::Install() builds the links of this rank's nodes,
 * cuts each link whose ends are on two ranks (ConnectCut, RoceMpiLink), and
 * stands in for a link between two other ranks (a RoceAbsentDevice at each
 * end, which at a host keeps the NIC's address and QP numbers), so a
 * rank's copy of a remote node never sends or receives. After the run,
 * Gather() and Sum() bring each rank's results to rank 0, which writes
 * them.
 *
 * Enable() also makes RoceCommunicator's Distributed the default: a
 * collective's ranks then post only on their own process, and arrivals
 * reach senders on other ranks as RoceRankCall calls (over the cut links'
 * MPI messages). It makes RoceFctStats' Distributed the default too: a
 * workload's all-done callback (which stops monitors) then runs on every
 * rank at one time.
 *
 * Enable() selects RoceOrderedScheduler, also in the plain build, so that
 * one process and any number of ranks run simultaneous events in one order
 * and give identical results. In the MPI build (`./rocev2 build --mpi`) it
 * also selects ns3::DistributedSimulatorImpl (conservative, granted time
 * windows; the lookahead is the smallest delay of a cut link) and starts
 * MPI; without it every call is the one-rank answer.
 */
class RoceMpiHelper
{
  public:
    /**
     * \brief Select the scheduler (and, with MPI, the distributed
     * simulator) and start MPI. Call before anything creates the simulator.
     * \param argc the program's argc \param argv its argv
     */
    static void Enable(int* argc, char*** argv);
    /** \brief End MPI (after Simulator::Destroy). */
    static void Disable();
    /** \return true if the module was built with ns-3's MPI module */
    static bool IsBuiltWithMpi();
    /** \return this process's rank (0 without MPI) */
    static uint32_t GetRank();
    /** \return the number of ranks (1 without MPI) */
    static uint32_t GetSize();
    /** \param node a node \return true if it runs on this rank */
    static bool IsLocal(Ptr<const Node> node);

    /**
     * \brief Called by RoceHelper::Install() for a link whose ends have
     * different system ids: checks the partition (ranks that exist, a
     * positive delay) and, when one end is on this rank, makes the link
     * cross ranks (RoceMpiLink::Connect). A RoceError names the nodes,
     * their ranks and the rule.
     * \param channel the link (both ends attached)
     * \param a one end \param b the other
     */
    static void ConnectCut(Ptr<RoceChannel> channel,
                           Ptr<RocePfcNetDevice> a,
                           Ptr<RocePfcNetDevice> b);

    /**
     * \param text this rank's part
     * \return on rank 0 every rank's part, by rank; elsewhere nothing
     */
    static std::vector<std::string> Gather(const std::string& text);
    /**
     * \brief Bring every rank's flow records to rank 0 (RoceFctStats::Pack,
     * Merge): there the records of the whole run, in an order that does
     * not depend on the split; elsewhere this rank's. Call it on every rank
     * after Simulator::Run, also in one process, whose records then take
     * that order too.
     * \param stats the statistics of the workload (the same object's role on every rank)
     */
    static void Gather(Ptr<RoceFctStats> stats);
    /**
     * \brief Bring every rank's monitor rows to rank 0 (RoceMonitor::Pack,
     * Merge), as Gather(stats) does for flows. Defined in
     * roce-monitor-merge.cc: the monitor depends on this helper, not the
     * other way round.
     * \param monitor the monitor
     */
    static void Gather(Ptr<RoceMonitor> monitor);
    /**
     * \param values this rank's counters
     * \return on rank 0 their sums over the ranks; elsewhere these values
     */
    static std::vector<uint64_t> Sum(const std::vector<uint64_t>& values);
    /**
     * \param values this rank's values
     * \return on rank 0 their maxima over the ranks; elsewhere these values
     */
    static std::vector<uint64_t> Max(const std::vector<uint64_t>& values);
    /** \return frames this rank sent over the cut (0 without MPI) */
    static uint64_t GetCutFramesSent();
    /** \return PFC frames among them */
    static uint64_t GetCutPfcFramesSent();
    /** \return calls (RoceRankCall: message descriptions, senders' notices) this rank sent to
     *  other ranks (0 without MPI) */
    static uint64_t GetCutCallsSent();
};

} // namespace ns3

#endif /* ROCE_MPI_HELPER_H */
