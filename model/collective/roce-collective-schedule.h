/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_COLLECTIVE_SCHEDULE_H
#define ROCE_COLLECTIVE_SCHEDULE_H

#include "ns3/roce-fifo.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

class RoceCommunicator;

/**
 * \ingroup rocev2
 * \brief The chunk transfers of one collective and the order they wait for
 * each other: the plan RoceCollective runs for its tree, halving-doubling and
 * hierarchical algorithms.
 *
 * A transfer moves one chunk from one rank to another, from the sender's own
 * NIC to the receiver's (or within their scale-up domain). It may start when
 * every transfer it waits for (After()) has arrived at its destination: a
 * rank forwards or reduces data only once it has it. Transfers of one
 * channel between the same two ranks share a *lane*: at most Steps of them
 * are in flight at once (NCCL_STEPS), in the order they became ready.
 * Transfers of 0 bytes (an uneven split of a small size) are never sent:
 * they count as arrived the moment they are ready.
 *
 * The builders (BuildTree, BuildHalvingDoubling, BuildHierarchical) fill a
 * schedule; RoceCollective posts each ready transfer with one
 * RoceCommunicator::Send whose tag is the transfer's index, so the work is
 * per chunk, never per packet.
 */
class RoceCollectiveSchedule
{
  public:
    /** One chunk from one rank to another. */
    struct Transfer
    {
        uint32_t src;     //!< sending rank
        uint32_t dst;     //!< receiving rank
        uint64_t bytes;   //!< size (0: arrives when ready, never sent)
        uint32_t lane;    //!< its lane
        uint32_t waiting; //!< transfers it still waits for
    };

    /** Transfers of one channel between two ranks, in flight and ready. */
    struct Lane
    {
        RoceFifo<uint32_t> ready; //!< ready, not yet posted, in order
        uint32_t inFlight{0};     //!< posted, not arrived
    };

    /** What a builder needs. */
    struct Params
    {
        uint64_t bytes{0};     //!< S: each rank's buffer
        uint32_t channels{1};  //!< channels the data is split over
        uint64_t chunkSize{1}; //!< largest message of a step
        bool broadcast{false}; //!< tree: Broadcast from root instead of AllReduce
        uint32_t root{0};      //!< Broadcast root
    };

    /**
     * \param total bytes \param n parts \param i a part
     * \return the size of part i when total is cut into n parts, the remainder spread over
     *         the first ones
     */
    static uint64_t Part(uint64_t total, uint64_t n, uint64_t i)
    {
        return total / n + (i < total % n ? 1 : 0);
    }

    /** \param total bytes \param n parts \param a first \param b last + 1 \return the size of
     * parts [a, b) */
    static uint64_t Parts(uint64_t total, uint64_t n, uint64_t a, uint64_t b)
    {
        const uint64_t rem = total % n;
        return (b - a) * (total / n) + std::min(b, rem) - std::min(a, rem);
    }

    /** \brief Forget everything. */
    void Clear();
    /**
     * \brief Add a transfer.
     * \param channel its channel \param src sender \param dst receiver \param bytes size
     * \return its index
     */
    uint32_t Add(uint32_t channel, uint32_t src, uint32_t dst, uint64_t bytes);
    /**
     * \brief Make a transfer wait for another's arrival.
     * \param before the one waited for \param after the one that waits
     */
    void After(uint32_t before, uint32_t after);
    /** \brief Index the waits; call once, after the last Add/After. */
    void Finalize();

    /** \return the number of transfers */
    uint32_t GetN() const
    {
        return m_transfers.size();
    }

    /** \param i an index \return that transfer */
    Transfer& Get(uint32_t i)
    {
        return m_transfers[i];
    }

    /** \param l a lane index \return the lane */
    Lane& GetLane(uint32_t l)
    {
        return m_lanes[l];
    }

    /** \param i a transfer \return [first, last) of the transfers that wait for it */
    std::pair<const uint32_t*, const uint32_t*> Successors(uint32_t i) const
    {
        return {m_succ.data() + m_succStart[i], m_succ.data() + m_succStart[i + 1]};
    }

  private:
    std::vector<Transfer> m_transfers;
    std::vector<Lane> m_lanes;
    std::unordered_map<uint64_t, uint32_t> m_laneIndex; //!< (channel, src, dst) -> lane
    std::vector<std::pair<uint32_t, uint32_t>> m_wait;  //!< (before, after) until Finalize
    std::vector<uint32_t> m_succStart;                  //!< per transfer, into m_succ
    std::vector<uint32_t> m_succ;                       //!< successors, grouped by transfer
};

/**
 * \ingroup rocev2
 * \brief NCCL's double binary tree, over servers, with a chain inside each.
 *
 * Tree 1 over n members numbers them in order: member v's parent is
 * (v ^ b) | (b << 1), or v ^ b when that is >= n, where b is v's lowest set
 * bit; member 0 is the root, with the single child 2^floor(log2(n-1)).
 * Tree 2 mirrors tree 1 (v -> n-1-v) when n is even and shifts it by one
 * (v -> v+1 mod n) when n is odd, so a member that is an inner node of one
 * tree is a leaf of the other (NCCL's ncclGetDtree).
 *
 * Members are the servers in order of their first rank. Inside a server the
 * ranks form a chain, starting at local index channel mod m as a ring
 * does: its first rank is the server's member of the tree (joined to the
 * other servers' first ranks over their NICs, so channel c is on rail c),
 * the others hang below it one after another over the scale-up domain. With
 * one GPU per server the trees are over the ranks, 0..p-1.
 *
 * AllReduce: each channel's share is halved, half per tree; a half is cut
 * into chunks, and every chunk is reduced up its tree (a rank sends to its
 * parent once all its children's chunks arrived) and broadcast down (a rank
 * forwards to its children once the chunk arrived from its parent; the root
 * once it has all its children's). Broadcast: tree 1 with the root's server
 * first and the root first in its chain, each chunk forwarded down.
 *
 * \param comm the ranks \param params size, channels, chunk size, op, root
 * \param s filled with the transfers
 */
void RoceCollectiveBuildTree(const RoceCommunicator& comm,
                             const RoceCollectiveSchedule::Params& params,
                             RoceCollectiveSchedule& s);

/**
 * \brief Parent of each member in tree 1 or tree 2 of NCCL's double binary tree.
 * \param n members \param second false: tree 1, true: tree 2
 * \return parent per member, -1 for the root
 */
std::vector<int32_t> RoceCollectiveTreeParents(uint32_t n, bool second);

/**
 * \ingroup rocev2
 * \brief Recursive halving-doubling AllReduce (Rabenseifner), p a power of two.
 *
 * Each channel's share is cut into columns (chunks), each column into p
 * blocks. Reduce-scatter: at step i = 0..log2(p)-1 rank r exchanges with
 * r ^ (p >> (i + 1)) the half of its current blocks that the partner keeps
 * (the lower half stays with the rank whose bit is 0), so it ends with block
 * r. All-gather: at step j, with r ^ (1 << j), it sends all the blocks it
 * holds. A step of a column waits for the rank's previous arrival of that
 * column; the largest message (half a column) is at most ChunkSize.
 *
 * \param comm the ranks \param params size, channels, chunk size
 * \param s filled with the transfers
 */
void RoceCollectiveBuildHalvingDoubling(const RoceCommunicator& comm,
                                        const RoceCollectiveSchedule::Params& params,
                                        RoceCollectiveSchedule& s);

/**
 * \ingroup rocev2
 * \brief Hierarchical AllReduce over n servers of m ranks each.
 *
 * Per channel and column (chunk): (1) a ring reduce-scatter over the m ranks
 * of each server in the scale-up domain (starting at local index channel
 * mod m, as the ring algorithm), after which ring position q holds slice
 * q + 1 mod m reduced over its server; (2) for each position q a ring
 * AllReduce of that slice over the n ranks at position q, one per server,
 * from NIC to NIC: the same local index on every server, so each rail
 * carries 1/m of the data; (3) a ring all-gather in each server. A step
 * waits for the arrival it forwards; phase 2 starts when phase 1 has
 * delivered the slice, phase 3 when every phase-2 arrival of it is in.
 *
 * \param comm the ranks \param params size, channels, chunk size
 * \param s filled with the transfers
 */
void RoceCollectiveBuildHierarchical(const RoceCommunicator& comm,
                                     const RoceCollectiveSchedule::Params& params,
                                     RoceCollectiveSchedule& s);

} // namespace ns3

#endif /* ROCE_COLLECTIVE_SCHEDULE_H */
