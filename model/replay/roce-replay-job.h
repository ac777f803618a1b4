/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_REPLAY_JOB_H
#define ROCE_REPLAY_JOB_H

#include "roce-replay-app.h"
#include "roce-replay-graph.h"

#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/roce-collective.h"
#include "ns3/roce-communicator.h"

#include <cstdint>
#include <deque>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The ranks of one replayed training iteration and what they share:
 * their process groups, the matching of their communication, and the
 * results.
 *
 * *Groups.* A group is a named list of ranks with its RoceCommunicator
 * (AddGroup); a rank's graph names groups by name, and the job maps them.
 *
 * *Collectives.* The k-th COLLECTIVE node of group g in a rank's graph (in
 * graph order) is the rank's part of the group's k-th collective, as NCCL
 * requires every rank of a communicator to issue its collectives in one
 * order. Check() verifies that the ranks of every group agree on the number
 * of collectives and on each one's operation and size. A collective starts
 * when the last of its ranks has it ready, runs as a RoceCollective (made
 * with the collective attributes: Channels, ChunkSize, Steps; the algorithm
 * from Algorithm) and completes each rank's node when that rank's part is
 * done.
 *
 * *Point to point.* A SEND node of rank s to rank d with tag t matches the
 * first unmatched RECV node of rank d from rank s with tag t, in the order
 * they became ready. The transfer starts when both are ready (a rendezvous,
 * as NCCL's send/receive) and moves the send's bytes as RDMA WRITEs over the
 * send node's group; both nodes complete when the last byte has arrived.
 * What is never matched is reported after the run (GetProblems), never
 * waited for: the simulation ends when nothing is left to do.
 */
class RoceReplayJob : public Object
{
  public:
    /** One collective of the run. */
    struct CollectiveResult
    {
        std::string group;     //!< its group's name
        uint32_t seq{0};       //!< its number in the group
        std::string name;      //!< the node's name in the first rank's graph
        uint64_t id{0};        //!< the node's id there
        int64_t commType{-1};  //!< the trace's collective type
        RoceCollective::Op op; //!< the operation run
        uint64_t bytes{0};     //!< the size in the trace
        uint64_t runBytes{0};  //!< the size run (rounded up to what the operation takes)
        uint32_t ranks{0};     //!< group size
        Time ready;            //!< when its first rank had it ready
        Time start;            //!< when its last rank had it ready (it started)
        Time finish;           //!< when its last rank finished (-1: never)
    };

    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceReplayJob();
    ~RoceReplayJob() override;

    /**
     * \brief Add a group.
     * \param name its name ("" for the group of all ranks)
     * \param ranks its ranks, in the communicator's order
     * \param comm the communicator of those ranks (rank i of comm is ranks[i])
     */
    void AddGroup(const std::string& name,
                  const std::vector<uint32_t>& ranks,
                  Ptr<RoceCommunicator> comm);
    /**
     * \brief Add the next rank.
     * \param app its application (Setup is called here)
     * \param graph the graph it runs (finalized)
     * \return the rank number
     */
    uint32_t AddRank(Ptr<RoceReplayApp> app, Ptr<const RoceReplayGraph> graph);
    /** \return the number of ranks */
    uint32_t GetNRanks() const;
    /**
     * \param name a group's name
     * \return its communicator (byte counters per rank), or nullptr
     */
    Ptr<RoceCommunicator> GetGroupCommunicator(const std::string& name) const;
    /** \param r a rank \return its application */
    Ptr<RoceReplayApp> GetApp(uint32_t r) const;
    /**
     * \brief Set an attribute of the collectives (RoceCollective: Channels,
     * ChunkSize, Steps).
     * \param name attribute \param value value
     */
    void SetCollectiveAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Check the job before it runs: every group a graph names exists
     * and holds the rank, point-to-point peers are ranks of the node's
     * group, and the ranks of a group agree on their collectives.
     * \param error set to what is wrong, naming the rank, node and group
     * \return false if something is wrong
     */
    bool Check(std::string* error);

    /** \brief Rank r's COLLECTIVE node i is ready (its application posts it, AddRank). */
    void PostCollective(uint32_t r, uint32_t i);
    /** \brief Rank r's SEND node i is ready. */
    void PostSend(uint32_t r, uint32_t i);
    /** \brief Rank r's RECV node i is ready. */
    void PostRecv(uint32_t r, uint32_t i);

    /** \return true if every rank has completed every node */
    bool IsFinished() const;
    /**
     * \return what kept the run from finishing, one line each: sends and
     * receives never matched, collectives some ranks never reached, and per
     * rank the nodes that never ran; empty if it finished
     */
    std::vector<std::string> GetProblems() const;
    /** \return the collectives, in the order they started */
    std::vector<CollectiveResult> GetCollectives() const;
    /** \return point-to-point transfers completed */
    uint64_t GetNTransfers() const;
    /** \return their bytes */
    uint64_t GetTransferBytes() const;
    /** \return from the first rank's start to the last completion */
    Time GetMakespan() const;

    /**
     * \brief Print the overall figures, per rank (all ranks up to 16, else
     * the slowest and fastest) and per collective.
     * \param os where
     */
    void PrintTable(std::ostream& os) const;
    /**
     * \brief Write the results as one JSON object: ranks, makespan_us,
     * compute_us, comm_us, exposed_comm_us (means over the ranks),
     * exposed_comm_share, nodes_executed (by node type, all ranks),
     * nodes_total, finished, collectives [{group, seq, name, id, comm_type,
     * op, bytes, run_bytes, ranks, start_us, time_us, algbw_gbps,
     * busbw_gbps}], transfers {count, bytes}, per_rank [{rank, makespan_us,
     * compute_us, comm_us, exposed_comm_us, nodes_executed}], problems.
     * \param os where
     */
    void WriteJson(std::ostream& os) const;

  private:
    void DoDispose() override;

    /** A group. */
    struct Group
    {
        std::string name;
        std::vector<uint32_t> ranks; //!< by index in the communicator
        std::vector<int32_t> index;  //!< by job rank: index in ranks, or -1
        Ptr<RoceCommunicator> comm;
    };

    /** One collective: its ranks' nodes as they become ready, then its run. */
    struct Instance
    {
        std::vector<uint32_t> node; //!< by group index: the rank's node, or UINT32_MAX
        uint32_t ready{0};          //!< ranks that had it ready
        Ptr<RoceCollective> coll;
        CollectiveResult result;
        bool started{false};
    };

    /** A matched send and receive. */
    struct Transfer
    {
        uint32_t src;      //!< sending rank
        uint32_t sendNode; //!< its node
        uint32_t dst;      //!< receiving rank
        uint32_t recvNode; //!< its node
    };

    /** (source rank, destination rank, tag) */
    typedef std::tuple<uint32_t, uint32_t, int32_t> P2pKey;

    /** \return the job group of rank r's graph group g */
    uint32_t GroupOf(uint32_t r, uint32_t g) const;
    void StartInstance(uint32_t g, uint32_t seq);
    void CollectiveRankDone(uint32_t g, uint32_t seq, uint32_t member);
    void CollectiveDone(uint32_t g, uint32_t seq);
    void StartTransfer(uint32_t src, uint32_t sendNode, uint32_t dst, uint32_t recvNode);
    void TransferArrived(uint64_t tag);
    std::string Describe(uint32_t r, uint32_t i) const;

    std::vector<Group> m_groups;
    std::map<std::string, uint32_t> m_groupByName;
    std::vector<Ptr<RoceReplayApp>> m_apps;
    std::vector<Ptr<const RoceReplayGraph>> m_graphs;
    std::vector<std::vector<uint32_t>> m_groupMap;           //!< per rank: graph group -> job group
    std::vector<std::vector<Instance>> m_instances;          //!< per group, by seq
    std::vector<std::pair<uint32_t, uint32_t>> m_startOrder; //!< (group, seq) as they started
    std::map<P2pKey, std::deque<uint32_t>> m_sends;          //!< unmatched ready sends (node)
    std::map<P2pKey, std::deque<uint32_t>> m_recvs;          //!< unmatched ready receives (node)
    std::vector<Transfer> m_transfers;
    uint64_t m_transfersDone{0};
    uint64_t m_transferBytes{0};
    std::string m_algorithm;
    ObjectFactory m_collectiveFactory;
    bool m_checked{false};
};

} // namespace ns3

#endif /* ROCE_REPLAY_JOB_H */
