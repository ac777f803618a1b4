/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_REPLAY_APP_H
#define ROCE_REPLAY_APP_H

#include "roce-replay-graph.h"

#include "ns3/application.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief One rank of a replayed training iteration: runs the rank's
 * RoceReplayGraph from the application's start.
 *
 * A node runs once every node it depends on has completed. What it does:
 * - GPU_COMPUTE: waits for a free GPU stream (GpuStreams; ready kernels run
 *   lowest index first, as the trace launched them), then takes its
 *   duration times ComputeScale;
 * - CPU: completes at once, or after its duration with CpuOps = duration
 *   (CPU threads are not limited);
 * - NOOP: completes at once;
 * - SEND, RECV, COLLECTIVE: handed to the job (RoceReplayJob), which matches
 *   them across ranks, moves the bytes over the fabric and calls CommDone.
 * Any number of nodes may be in flight at once, so communication overlaps
 * compute as far as the graph allows.
 *
 * *Time accounting.* The rank's compute time is the time at least one GPU
 * kernel runs; its communication time the time at least one SEND, RECV or
 * COLLECTIVE node is in flight (from when it is ready, waiting for its
 * peers included, as a profiler sees a communication kernel); its exposed
 * communication time the part of that with no kernel running. The makespan
 * runs from the start to the completion of its last node.
 *
 * Events per node: one Schedule for a timed node; none otherwise.
 */
class RoceReplayApp : public Application
{
  public:
    /** How CPU-side nodes take time (CpuOps). */
    enum CpuOps
    {
        CPU_ZERO,     //!< complete at once
        CPU_DURATION, //!< take their profiled duration
    };

    /**
     * Takes a SEND, RECV or COLLECTIVE node (its index) once it is ready,
     * matches it across ranks and calls CommDone when it has completed.
     */
    using CommPost = std::function<void(uint32_t node)>;

    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceReplayApp();
    ~RoceReplayApp() override;

    /**
     * \brief Called by RoceReplayJob::AddRank.
     * \param post what takes this rank's communication nodes (the job that
     *        matches them across ranks)
     * \param rank this rank's number in the job
     * \param graph the graph to run (finalized; may be shared with other ranks)
     */
    void Setup(CommPost post, uint32_t rank, Ptr<const RoceReplayGraph> graph);

    /** \return the graph */
    Ptr<const RoceReplayGraph> GetGraph() const;
    /** \return the rank */
    uint32_t GetRank() const;

    /**
     * \brief A SEND, RECV or COLLECTIVE node handed to the job has completed
     * (called by the job).
     * \param node its index
     */
    void CommDone(uint32_t node);

    /** \return true once every node has completed */
    bool IsFinished() const;
    /** \return when the rank started */
    Time GetStartTime() const;
    /** \return when its last node completed (or the last completion so far) */
    Time GetFinishTime() const;
    /** \return the time at least one GPU kernel ran */
    Time GetComputeTime() const;
    /** \return the time at least one communication node was in flight */
    Time GetCommTime() const;
    /** \return the communication time with no GPU kernel running */
    Time GetExposedCommTime() const;
    /** \param type a node type value \return the nodes of that type completed */
    uint64_t GetNodesExecuted(uint32_t type) const;
    /** \return the nodes completed */
    uint64_t GetNodesExecuted() const;
    /** \param node a node index \return whether it has completed */
    bool IsDone(uint32_t node) const;
    /** \param node a node index \return whether it is in flight (ready, not completed) */
    bool IsStarted(uint32_t node) const;

  private:
    void DoDispose() override;
    void StartApplication() override;
    void StopApplication() override;

    /** \brief Node i has no dependency left: run it. */
    void Run(uint32_t i);
    /** \brief Start ready kernels on free GPU streams. */
    void StartKernels();
    /** \brief Kernel i has run its time. */
    void KernelDone(uint32_t i);
    /** \brief Node i has completed: release its dependants. */
    void Complete(uint32_t i);
    /** \brief Run the nodes released, until none is left (no recursion). */
    void Drain();
    /** \brief Add the time since the last change to the busy counters. */
    void Account();

    CommPost m_post; //!< takes the communication nodes (the job)
    uint32_t m_rank{0};
    Ptr<const RoceReplayGraph> m_graph;
    double m_computeScale;
    CpuOps m_cpuOps;
    uint32_t m_gpuStreams;

    std::vector<uint32_t> m_depsLeft; //!< per node: dependencies not yet completed
    std::vector<uint8_t> m_state;     //!< per node: 0 waiting, 1 in flight, 2 done
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> m_kernels;
    std::vector<uint32_t> m_released; //!< nodes to run (Drain)
    bool m_draining{false};
    uint32_t m_kernelsRunning{0};
    uint32_t m_commInFlight{0};
    uint64_t m_left{0};
    std::vector<uint64_t> m_executed; //!< per type
    uint64_t m_executedAll{0};
    bool m_started{false};
    Time m_start;
    Time m_finish;
    Time m_last;
    Time m_compute;
    Time m_comm;
    Time m_exposed;
};

} // namespace ns3

#endif /* ROCE_REPLAY_APP_H */
