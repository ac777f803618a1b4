/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CHAKRA_REPLAY_HELPER_H
#define ROCE_CHAKRA_REPLAY_HELPER_H

#include "ns3/object-factory.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-chakra-trace.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-replay-graph.h"
#include "ns3/roce-replay-job.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Replays Chakra execution traces on the GPUs of an AI Zone: reads
 * one trace per rank (or one for all), converts each into a
 * RoceReplayGraph, makes a communicator per process group and installs a
 * RoceReplayApp per rank on its GPU's server, all joined by a RoceReplayJob.
 *
 * \code
 *   RoceChakraReplayHelper replay;
 *   replay.GetCollectiveHelper().SetCommunicatorAttribute("QpsPerConnection", UintegerValue(4));
 *   replay.SetAppAttribute("ComputeScale", DoubleValue(0.5));
 *   Ptr<RoceReplayJob> job =
 *       replay.Install(zone, place.Contiguous(16), {"data/chakra/pytorch-ddp/chakra.0.et"});
 *   Simulator::Run();
 *   job->PrintTable(std::cout);
 * \endcode
 *
 * *How each node maps* (the trace's node type, is_cpu_op, comm_type):
 * - COMP_NODE: a GPU kernel (RoceReplayGraph::GPU_COMPUTE) of
 *   duration_micros; with is_cpu_op a CPU operator (CPU);
 * - COMM_COLL_NODE: a collective of comm_size bytes over the communicator
 *   of pg_name (COLLECTIVE); with is_cpu_op the CPU side of a collective
 *   (the launch), which moves nothing (CPU). comm_type maps to the module's
 *   operations: ALL_REDUCE, ALL_GATHER, BROADCAST, ALL_TO_ALL and
 *   REDUCE_SCATTER (and REDUCE_SCATTER_BLOCK) to their own; REDUCE runs as a
 *   Broadcast, GATHER as an AllGather and SCATTER as a ReduceScatter of
 *   the same size (on a non-blocking fabric the same time, bounded by the
 *   root's link, but not the same traffic pattern); BARRIER as an AllReduce
 *   of one byte per rank;
 * - COMM_SEND_NODE, COMM_RECV_NODE: a point-to-point transfer of comm_size
 *   bytes from comm_src to comm_dst, matched by comm_tag (SEND, RECV); a
 *   rank's trace must name itself as the sender of its sends and the
 *   receiver of its receives; with is_cpu_op a CPU operator;
 * - METADATA_NODE, MEM_LOAD_NODE, MEM_STORE_NODE: complete at once (NOOP).
 *
 * *Dependencies.* Data dependencies always count. Control dependencies
 * (SetControlDependencies) count with "use"; are left out with "ignore";
 * with "auto" (the default) they count unless they make a cycle, as in
 * traces converted from PyTorch, whose control dependencies name each
 * operator's enclosing operator: then the trace's control dependencies are
 * all left out and GetNotes() says so, naming the cycle.
 *
 * *Stream order.* A GPU runs its kernels one at a time in the order the
 * trace lists them (RoceReplayApp::GpuStreams = 1), and a GPU-side
 * collective, send or receive waits for the last kernel listed before it:
 * PyTorch's NCCL process group makes its communication stream wait for the
 * compute stream when it launches a collective, so a gradient's AllReduce
 * starts once the kernels that produced it have run, and overlaps the
 * kernels after it. Converted traces do not carry that wait as a
 * dependency (their communication kernels depend on the CPU operators that
 * launched them); SetStreamOrder(false) leaves it out.
 *
 * *Process groups.* SetGroupsFile names a JSON file that maps each group
 * name to its ranks, {"dp": [0, 1, 2, 3], "tp0": [0, 1]}; a pg_name
 * missing from it is an error. Without a file, and for nodes without
 * pg_name, a group holds all ranks. Each group gets its own communicator,
 * with the communicator, QP and collective attributes of
 * GetCollectiveHelper() and SetCollectiveAttribute.
 */
class RoceChakraReplayHelper
{
  public:
    /** How control dependencies count (SetControlDependencies). */
    enum CtrlDeps
    {
        CTRL_AUTO,   //!< counted unless they make a cycle
        CTRL_USE,    //!< counted; a cycle is an error
        CTRL_IGNORE, //!< not counted
    };

    RoceChakraReplayHelper();

    /** \param name RoceReplayApp attribute (ComputeScale, CpuOps, GpuStreams) \param value value */
    void SetAppAttribute(std::string name, const AttributeValue& value);
    /** \param name RoceReplayJob attribute (Algorithm) \param value value */
    void SetJobAttribute(std::string name, const AttributeValue& value);
    /** \param name RoceCollective attribute (Channels, ChunkSize, Steps) \param value value */
    void SetCollectiveAttribute(std::string name, const AttributeValue& value);
    /** \return the helper that makes the communicators (their and their QPs' attributes) */
    RoceCollectiveHelper& GetCollectiveHelper();
    /** \param mode auto, use or ignore (aborts on another name) */
    void SetControlDependencies(const std::string& mode);
    /**
     * \param streamOrder whether a GPU-side communication node waits for the
     *        last GPU kernel before it in the trace (default true; see Stream order)
     */
    void SetStreamOrder(bool streamOrder);
    /** \param path the process-group JSON file, or "" for none */
    void SetGroupsFile(const std::string& path);

    /**
     * \brief The trace files of a job.
     * \param et a trace file (DIR/NAME.0.et, or any file with --replicate)
     *        or a folder holding chakra.<rank>.et
     * \param ranks the number of ranks
     * \param replicate one trace for every rank
     * \return the file of each rank, or the one file with replicate; aborts
     *         naming the first rank whose file is missing
     */
    static std::vector<std::string> TracePaths(const std::string& et,
                                               uint32_t ranks,
                                               bool replicate);

    /**
     * \param et a trace set as TracePaths takes it (NAME.0.et or a folder)
     * \return the number of its files, rank 0, 1, ... without a gap (0 if
     *         there is no rank-0 file)
     */
    static uint32_t CountTraces(const std::string& et);

    /**
     * \brief Convert a trace into a replay graph; a node that cannot be
     * replayed is a fatal error naming the file and the node.
     * \param trace the trace \param path its file, for errors
     * \param rank the rank it is for (-1: every rank, a replicated trace)
     * \param mode how control dependencies count
     * \param streamOrder whether GPU-side communication waits for the kernel before it
     * \param note set to what was left out, if anything
     * \return the finalized graph
     */
    static Ptr<RoceReplayGraph> MakeGraph(const RoceChakraTrace& trace,
                                          const std::string& path,
                                          int32_t rank,
                                          CtrlDeps mode,
                                          bool streamOrder,
                                          std::string* note);

    /**
     * \brief Read the traces and install the replay.
     * \param zone the fabric
     * \param gpus the job's GPUs, in rank order (e.g. from RoceGpuPlacement)
     * \param paths one trace per rank, or one for every rank (TracePaths)
     * \return the job (its applications start at time 0 unless their
     *         StartTime is set)
     */
    Ptr<RoceReplayJob> Install(const RoceAiZone& zone,
                               const std::vector<uint32_t>& gpus,
                               const std::vector<std::string>& paths);

    /** \return what the conversion left out, one line each (control dependencies) */
    const std::vector<std::string>& GetNotes() const;

  private:
    /** \return the groups of the groups file, by name (aborts on a bad file) */
    std::map<std::string, std::vector<uint32_t>> ReadGroups(uint32_t ranks) const;

    ObjectFactory m_app;
    ObjectFactory m_job;
    RoceCollectiveHelper m_coll;
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_collective;
    CtrlDeps m_ctrlDeps{CTRL_AUTO};
    bool m_streamOrder{true};
    std::string m_groupsFile;
    std::vector<std::string> m_notes;
};

} // namespace ns3

#endif /* ROCE_CHAKRA_REPLAY_HELPER_H */
