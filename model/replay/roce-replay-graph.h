/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_REPLAY_GRAPH_H
#define ROCE_REPLAY_GRAPH_H

#include "ns3/nstime.h"
#include "ns3/roce-collective.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The execution graph of one rank, as RoceReplayApp runs it: compute,
 * CPU, point-to-point and collective steps and the steps each waits for.
 *
 * It is the replay's own compact form, independent of any trace format:
 * RoceChakraReplayHelper converts a Chakra execution trace into it, and a
 * test or a user's program may build one directly. Nodes are added with
 * AddNode and their dependencies with AddDependency (by index); Finalize
 * removes duplicate edges, builds each node's list of dependants and refuses
 * a cycle, naming its nodes. A finalized graph is read-only, so one graph
 * serves every rank of a data-parallel job (the ranks keep their own state).
 */
class RoceReplayGraph : public SimpleRefCount<RoceReplayGraph>
{
  public:
    /** What a node does when it runs. */
    enum Kind : uint8_t
    {
        NOOP,        //!< completes at once (metadata, memory nodes)
        GPU_COMPUTE, //!< a GPU kernel: takes its duration on one of the rank's GPU streams
        CPU,         //!< a CPU-side operator: zero time, or its duration (RoceReplayApp::CpuOps)
        SEND,        //!< sends bytes to rank peer (matched with a RECV by source, destination, tag)
        RECV,        //!< receives bytes from rank peer
        COLLECTIVE,  //!< runs a collective over the ranks of its group
    };

    /** One node. */
    struct Node
    {
        Kind kind{NOOP};                                   //!< what it does
        uint8_t type{0};                                   //!< the trace's node type (counted)
        RoceCollective::Op op{RoceCollective::ALL_REDUCE}; //!< COLLECTIVE: the operation
        uint32_t group{0};    //!< SEND, RECV, COLLECTIVE: index into GetGroupNames()
        uint32_t seq{0};      //!< COLLECTIVE: its number among its group's collectives
        int32_t peer{-1};     //!< SEND: destination rank; RECV: source rank
        int32_t tag{0};       //!< SEND, RECV: the matching tag
        uint64_t bytes{0};    //!< SEND, RECV, COLLECTIVE: size (collectives: as nccl-tests' S)
        int64_t commType{-1}; //!< COLLECTIVE: the trace's collective type, for the output
        Time duration;        //!< GPU_COMPUTE, CPU: the profiled duration
        uint64_t id{0};       //!< the node's id in its trace
    };

    /**
     * \param typeNames the names of the trace's node types, by type value
     *        (for counts per type: "COMP_NODE", ...)
     */
    explicit RoceReplayGraph(std::vector<std::string> typeNames = {});

    /**
     * \brief Append a node.
     * \param node the node (its seq is set here for a COLLECTIVE)
     * \param name its name, for reports
     * \return its index
     */
    uint32_t AddNode(const Node& node, const std::string& name);
    /**
     * \brief Make node `after` wait for node `before` (indexes; duplicates are
     * merged by Finalize).
     * \param before the node waited for \param after the waiting node
     */
    void AddDependency(uint32_t before, uint32_t after);
    /**
     * \param name a process-group name ("" for the group of all ranks)
     * \return its index, added if new
     */
    uint32_t AddGroup(const std::string& name);
    /**
     * \brief Build the dependants lists and check that the graph is acyclic.
     * \param error set to the cycle's nodes ("id 3688 -> id 3689 -> id 3688")
     *        if there is one
     * \return false on a cycle (the graph is then not usable)
     */
    bool Finalize(std::string* error);

    /** \return the number of nodes */
    uint32_t GetNNodes() const;
    /** \param i a node index \return it */
    const Node& GetNode(uint32_t i) const;
    /** \param i a node index \return its name */
    const std::string& GetName(uint32_t i) const;
    /** \param i a node index \return the number of distinct nodes it waits for */
    uint32_t GetNDeps(uint32_t i) const;
    /** \param i a node index \return the first of its dependants in GetDependants() order */
    const uint32_t* DependantsBegin(uint32_t i) const;
    /** \param i a node index \return past the last of its dependants */
    const uint32_t* DependantsEnd(uint32_t i) const;
    /** \return the process-group names, by index */
    const std::vector<std::string>& GetGroupNames() const;
    /** \param g a group index \return the number of collectives on it */
    uint32_t GetNCollectives(uint32_t g) const;
    /** \return the number of node types named (at least every type used) */
    uint32_t GetNTypes() const;
    /** \param t a type value \return its name, or "TYPE<t>" */
    std::string GetTypeName(uint32_t t) const;
    /** \param k a kind \return its name ("GPU_COMPUTE", ...) */
    static std::string KindName(Kind k);

    /**
     * \brief The longest path through the graph when every node takes the
     * time `weight` gives it and nothing else waits: a lower bound of any
     * replay's makespan when the weights are lower bounds of the node times.
     * \param weight the time of node i (by index)
     * \return the length of the longest path
     */
    template <typename W>
    Time LongestPath(W weight) const
    {
        std::vector<Time> finish(m_nodes.size());
        Time longest;
        for (uint32_t i : m_order)
        {
            finish[i] += weight(i);
            longest = std::max(longest, finish[i]);
            for (const uint32_t* d = DependantsBegin(i); d != DependantsEnd(i); ++d)
            {
                finish[*d] = std::max(finish[*d], finish[i]);
            }
        }
        return longest;
    }

  private:
    std::vector<Node> m_nodes;
    std::vector<std::string> m_names;
    std::vector<std::pair<uint32_t, uint32_t>> m_edges; //!< (before, after), until Finalize
    std::vector<uint32_t> m_nDeps;                      //!< per node
    std::vector<uint32_t> m_firstDependant;             //!< per node + 1: CSR offsets
    std::vector<uint32_t> m_dependants;                 //!< CSR
    std::vector<uint32_t> m_order;                      //!< a topological order
    std::vector<std::string> m_groups;
    std::vector<uint32_t> m_nCollectives; //!< per group
    std::vector<std::string> m_typeNames;
    bool m_final{false};
};

} // namespace ns3

#endif /* ROCE_REPLAY_GRAPH_H */
