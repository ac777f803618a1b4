/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_COLLECTIVE_H
#define ROCE_COLLECTIVE_H

#include "roce-collective-schedule.h"
#include "roce-communicator.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/roce-fifo.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief One collective operation run over a RoceCommunicator, as NCCL runs
 * it: the data is split over Channels, each channel's share is cut into
 * chunks of at most ChunkSize, and the chunks are pipelined step by step.
 *
 * *Ring* (AllReduce, AllGather, ReduceScatter, Broadcast). Every channel
 * has its own ring over all ranks. Servers follow one another in the order
 * of their first rank; within a server the ring starts at the rank whose
 * local index is the channel number modulo the server's ranks, so a ring's
 * edges inside a server are scale-up copies and its edge between servers
 * leaves and enters through that rank's NIC: channel c's inter-server
 * traffic is on rail c (rail aligned), and C channels put C flows per server
 * on the fabric. With p ranks, a channel's share S_c is cut into p slices;
 * at step t, ring position q sends slice (q - t) mod p to position q + 1.
 * AllReduce takes 2(p-1) steps (reduce-scatter, then all-gather),
 * ReduceScatter and AllGather p - 1, and Broadcast forwards every chunk of
 * S_c from the root along the ring (p - 1 hops). A chunk's step t + 1 can
 * start once its step t has arrived (no compute time is modelled), and at
 * most Steps chunks of one channel edge are in flight, like NCCL's
 * NCCL_STEPS buffers.
 *
 * *Direct* (AllToAll): every rank sends S/p to every other rank at once,
 * each in chunks of at most ChunkSize, from its own NIC to the peer's (or in
 * the scale-up domain). SendRecv (point-to-point, for pipeline parallelism,
 * as nccl-tests' sendrecv): every rank sends S to the next rank and receives
 * S from the previous one, in chunks, at once. AllToAllv takes a size per
 * pair (StartAllToAllv) and reports S as the mean bytes a rank sends.
 *
 * *Tree*, *hd* and *hier* (RoceCollectiveSchedule): the builder of the
 * algorithm lists every chunk transfer of the operation and which arrivals
 * each waits for; a transfer is posted once those arrived, at most Steps per
 * channel and pair of ranks in flight. Tree is NCCL's double binary tree
 * (AllReduce: half the data per tree, reduced up and broadcast down, chunk
 * by chunk; Broadcast: down one tree from Root), see
 * RoceCollectiveBuildTree; hd is recursive halving-doubling AllReduce for a
 * power-of-two number of ranks, see RoceCollectiveBuildHalvingDoubling; hier
 * is the hierarchical AllReduce (reduce-scatter in each server, AllReduce
 * per rail across servers, all-gather in each server) for servers that hold
 * the same number of ranks, see RoceCollectiveBuildHierarchical. These use
 * each rank's own NIC between servers.
 *
 * Sizes follow nccl-tests: S is the buffer of one rank (AllReduce,
 * Broadcast, AllToAll) or the gathered/scattered buffer (AllGather,
 * ReduceScatter). A rank finishes when all it must receive has arrived and
 * all it sent has arrived; the operation finishes with its last rank.
 *
 * Events per chunk: one Send on the communicator (a WRITE, or a scale-up
 * copy) and its arrival callback; the packets are the NIC's.
 *
 * *Across MPI ranks* (the communicator is Distributed): Start() connects
 * every NIC pair the operation uses, in its order, then posts only the
 * sends of ranks whose node runs in this process. A chunk's arrival is
 * split at the communicator's sinks: the receiving rank forwards or
 * reduces at once (its part of RingArrived, DirectArrived or
 * ScheduleArrived), and the sending rank frees its step buffer when the
 * communicator's notice reaches it (NotifyDelay later across nodes). A
 * rank's finish time is its last arrival, received or sent, whenever the
 * notice comes. done and GetFinishTime() then cover this process's ranks;
 * RoceMpiHelper::Max gathers the operation's. Tree, hd and hier need every
 * transfer to wait only for arrivals at its own sender, which their
 * builders keep (checked).
 */
class RoceCollective : public Object
{
  public:
    /** Collective operations. */
    enum Op
    {
        ALL_REDUCE,
        ALL_GATHER,
        REDUCE_SCATTER,
        ALL_TO_ALL,
        BROADCAST,
        SEND_RECV, //!< point-to-point: rank r sends S to rank r + 1 (mod p), as pipeline stages do
        ALL_TO_ALLV, //!< AllToAll with a size per pair (StartAllToAllv)
    };

    /** Algorithms. */
    enum Algorithm
    {
        RING,             //!< rings over the channels
        DIRECT,           //!< every rank to every rank at once (AllToAll)
        TREE,             //!< NCCL's double binary tree (AllReduce; Broadcast: one tree)
        HALVING_DOUBLING, //!< recursive halving-doubling (AllReduce, p a power of two)
        HIERARCHICAL,     //!< in-server, per-rail across servers, in-server (AllReduce)
    };

    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceCollective();
    ~RoceCollective() override;

    /** \param comm the ranks and transport */
    void SetCommunicator(Ptr<RoceCommunicator> comm);
    /** \return the communicator */
    Ptr<RoceCommunicator> GetCommunicator() const;

    /**
     * \brief Start an operation now.
     * \param op the operation
     * \param algo the algorithm: RING (AllReduce, AllGather, ReduceScatter,
     *        Broadcast), DIRECT (AllToAll), TREE (AllReduce, Broadcast),
     *        HALVING_DOUBLING or HIERARCHICAL (AllReduce)
     * \param bytes the size S, as nccl-tests counts it
     * \param done called when the last rank has finished
     */
    void Start(Op op, Algorithm algo, uint64_t bytes, Callback<void> done = Callback<void>());

    /**
     * \brief Start an AllToAllv now: every rank sends bytes[r][j] to every
     * other rank j at once (direct, in chunks); the diagonal is ignored.
     * \param bytes p rows of p sizes (0 sends nothing)
     * \param done called when the last rank has finished
     */
    void StartAllToAllv(const std::vector<std::vector<uint64_t>>& bytes,
                        Callback<void> done = Callback<void>());

    /**
     * \brief Set a callback run with a rank's number when that rank has
     * finished its part of an operation (all it must receive and all it sent
     * have arrived), before the operation's own done callback.
     * \param rankDone the callback (a null callback removes it)
     */
    void SetRankDoneCallback(Callback<void, uint32_t> rankDone);

    /** \return true while an operation runs */
    bool IsRunning() const;
    /** \return when the last operation started */
    Time GetStartTime() const;
    /** \return when its last rank finished (Distributed: of this process's ranks) */
    Time GetFinishTime() const;
    /** \param r a rank \return when it finished the last operation (-1: not yet, or
     *  Distributed and on another process) */
    Time GetRankFinishTime(uint32_t r) const;

    /** \param name allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv \return the
     * op (aborts with the known names otherwise) */
    static Op OpByName(const std::string& name);
    /** \param op an op \return its name */
    static std::string GetOpName(Op op);
    /** \param name ring, direct, tree, hd or hier \return the algorithm (aborts with the known
     *  names otherwise) */
    static Algorithm AlgorithmByName(const std::string& name);
    /**
     * \param op an op \param algo an algorithm
     * \return true if the op has that algorithm (AllReduce: ring, tree, hd,
     *         hier; Broadcast: ring, tree; AllGather, ReduceScatter: ring;
     *         AllToAll, SendRecv: direct)
     */
    static bool HasAlgorithm(Op op, Algorithm algo);
    /** \return the default algorithm of an op (direct for AllToAll and SendRecv, else ring) */
    static Algorithm DefaultAlgorithm(Op op);
    /** \return which algorithms each op has, as the refusals print it */
    static std::string GetAlgorithmTable();
    /** \param algo an algorithm \return its name */
    static std::string GetAlgorithmName(Algorithm algo);
    /**
     * \param op an op \param ranks p
     * \return nccl-tests' bus bandwidth factor: 2(p-1)/p for AllReduce,
     *         (p-1)/p for AllGather, ReduceScatter and AllToAll, 1 for
     *         Broadcast and SendRecv
     */
    static double BusBandwidthFactor(Op op, uint32_t ranks);

  private:
    void DoDispose() override;

    /** One ring position of one channel. */
    struct RingNode
    {
        uint32_t rank;            //!< who is here
        uint32_t next;            //!< rank at position + 1
        Ptr<NetDevice> srcNic;    //!< NIC of the edge to next
        Ptr<NetDevice> dstNic;    //!< NIC next receives on
        RoceFifo<uint64_t> ready; //!< (step, chunk) pairs ready to send, as step << 32 | chunk
        uint32_t inFlight{0};     //!< sent, not arrived
    };

    /** One channel's ring. */
    struct Ring
    {
        std::vector<RingNode> nodes; //!< by position
        uint64_t bytes{0};           //!< S_c
        uint32_t chunks{0};          //!< K: chunks per slice (Broadcast: of S_c)
    };

    /** \brief Build every channel's ring order and edges. */
    void BuildRings(uint32_t channels);
    /** \brief Start the ring algorithm. */
    void StartRing();
    /** \brief Start the direct algorithm. */
    void StartDirect();
    /** \brief Post what position q of channel c may send. */
    void Pump(uint32_t c, uint32_t q);
    /** \return the bytes of chunk k of slice s of channel c */
    uint64_t ChunkBytes(uint32_t c, uint32_t s, uint32_t k) const;

    /** A ring chunk's tag, decoded. */
    struct RingChunk
    {
        uint32_t c;    //!< channel
        uint32_t q;    //!< position it arrived at
        uint32_t step; //!< its step
        uint32_t k;    //!< chunk of the slice
    };

    /** \param tag a ring chunk's tag \return its fields */
    static RingChunk DecodeRingTag(uint64_t tag);
    /** \param x a chunk that arrived \return true if its receiver forwards it */
    bool RingForwards(const RingChunk& x) const;
    /** \brief A ring chunk arrived (tag = channel, position, step, chunk). */
    void RingArrived(uint64_t tag);
    /** \brief A direct chunk arrived (tag = source, destination). */
    void DirectArrived(uint64_t tag);
    /** \brief Build the schedule of a tree, hd or hier operation and post what is ready. */
    void StartSchedule(uint32_t channels);
    /** \brief Schedule transfer i has arrived (or has 0 bytes): release what waits for it. */
    void Release(uint32_t i);
    /** \brief Post what lane l may send. */
    void PumpLane(uint32_t l);
    /** \brief A schedule transfer arrived (tag = its index). */
    void ScheduleArrived(uint64_t tag);
    /** \brief Account one arrival for its sender and its receiver. */
    void Account(uint32_t sender, uint32_t receiver);
    /** \brief A rank may have finished. \param r the rank */
    void CheckRank(uint32_t r);
    /** \brief Send a chunk: with the callback, or (Distributed) to the sink. */
    void Post(uint32_t src,
              uint32_t dst,
              const Ptr<NetDevice>& srcNic,
              const Ptr<NetDevice>& dstNic,
              uint64_t bytes,
              uint64_t tag,
              uint32_t sink,
              const RoceCommunicator::ArrivalCallback& arrived);

    // Distributed (roce-collective-distributed.cc).
    /** \brief Note which ranks run here and check the communicator. */
    void StartDistributed(uint32_t p);
    /** \brief Connect the NIC pairs of every channel's ring edges. */
    void ConnectRings();
    /** \brief Connect the NIC pairs of the schedule and check its waits. */
    void ConnectSchedule();
    /** \brief A ring chunk arrived at its receiver. \param tag RingTag */
    void RingReceived(uint64_t tag);
    /** \brief Its sender learnt of it. \param tag RingTag \param at arrival */
    void RingSent(uint64_t tag, Time at);
    /** \brief A direct chunk arrived at its receiver. \param tag source, destination */
    void DirectReceived(uint64_t tag);
    /** \brief Its sender learnt of it. \param tag source, destination \param at arrival */
    void DirectSent(uint64_t tag, Time at);
    /** \brief A schedule transfer arrived at its receiver. \param tag its index */
    void ScheduleReceived(uint64_t tag);
    /** \brief Its sender learnt of it. \param tag its index \param at arrival */
    void ScheduleSent(uint64_t tag, Time at);
    /** \brief One arrival at a receiver (Distributed). */
    void Received(uint32_t receiver);
    /** \brief One notice at a sender (Distributed). */
    void Sent(uint32_t sender, Time at);

    Ptr<RoceCommunicator> m_comm;
    uint32_t m_channels;
    uint64_t m_chunkSize;
    uint32_t m_steps;
    uint32_t m_root;

    Op m_op{ALL_REDUCE};
    Algorithm m_algo{RING};
    uint64_t m_bytes{0};
    std::vector<std::vector<uint64_t>> m_matrix; //!< AllToAllv sizes
    uint32_t m_ringSteps{0};                     //!< steps of a chunk around the ring
    std::vector<Ring> m_rings;
    RoceCollectiveSchedule m_schedule; //!< tree, hd, hier
    std::vector<uint32_t> m_released;  //!< Release's work list
    std::vector<uint64_t> m_sendsLeft; //!< per rank: messages not yet arrived
    std::vector<uint64_t> m_recvsLeft; //!< per rank: messages still to receive
    std::vector<Time> m_rankFinish;
    std::vector<Time> m_rankLast; //!< per rank: its latest arrival, received or sent
    bool m_distributed{false};    //!< the communicator is Distributed
    std::vector<uint8_t> m_local; //!< per rank: runs in this process
    uint32_t m_ringSink{0};       //!< the communicator's sinks (Distributed)
    uint32_t m_directSink{0};     //!< ...
    uint32_t m_scheduleSink{0};   //!< ...
    uint32_t m_ranksLeft{0};
    bool m_running{false};
    Time m_start;
    Time m_finish;
    Callback<void> m_done;
    Callback<void, uint32_t> m_rankDone; //!< SetRankDoneCallback
    // Made once: every chunk's Send passes a copy (a reference count), not a new callback.
    RoceCommunicator::ArrivalCallback m_ringArrived;     //!< RingArrived
    RoceCommunicator::ArrivalCallback m_directArrived;   //!< DirectArrived
    RoceCommunicator::ArrivalCallback m_scheduleArrived; //!< ScheduleArrived
};

} // namespace ns3

#endif /* ROCE_COLLECTIVE_H */
