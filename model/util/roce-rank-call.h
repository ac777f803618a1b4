/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_RANK_CALL_H
#define ROCE_RANK_CALL_H

#include "ns3/callback.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Calls from a node to another node's rank: how an application's
 * own bookkeeping (a collective's "this chunk has arrived") reaches a node
 * that may run on another MPI rank, with the same results on any number of
 * ranks.
 *
 * A *service* is a handler of a few 64-bit words, registered with
 * Register(). Every rank builds the same objects in the same order, so the
 * same service gets the same number everywhere (RoceCommunicator registers
 * one per communicator).
 *
 * - Schedule(node, delay, service, words) runs the handler at now + delay
 *   in the node's context. On the node's own rank it is an ordinary
 *   ScheduleWithContext. On another rank (MPI builds) the transport sends
 *   the words with the order key the local event would have had
 *   (RoceOrderedScheduler::Reserve), and the receiving rank schedules the
 *   handler with it: one process and N ranks run it at the same place.
 *   The delay must exceed the rank's lookahead (GetLookahead()).
 * - Deliver(node, service, words) hands the words to the handler on the
 *   node's rank, outside the event order: at once on the same rank, one
 *   lookahead later on another. The handler must not schedule events; it
 *   is for state the receiver reads later than that (a message's
 *   description, read when its last byte arrives, which is at least a cut
 *   link's delay later).
 *
 * In the plain build every node is local and the transport is absent.
 * RoceMpiHelper::Enable sets this rank and, with MPI, the transport
 * (RoceMpiLink), which also reports the lookahead.
 */
class RoceRankCall
{
  public:
    /** A service: called with the words of one call. */
    typedef Callback<void, const std::vector<uint64_t>&> Handler;

    /** What an MPI transport does with a call for another rank. */
    typedef Callback<void,
                     uint32_t,                    // target node
                     uint32_t,                    // target rank
                     Time,                        // when to run (Deliver: 0)
                     uint32_t,                    // service
                     const std::vector<uint64_t>& // words
                     >
        Transport;

    /**
     * \brief Register a service. Register in the same order on every rank.
     * \param handler the handler
     * \return its number
     */
    static uint32_t Register(Handler handler);
    /** \brief Forget a service (its number is not reused). \param service its number */
    static void Unregister(uint32_t service);

    /**
     * \brief Run a service at a node after a delay.
     * \param node the node's id \param delay the delay (> lookahead if the node is remote)
     * \param service a number from Register \param words its words
     */
    static void Schedule(uint32_t node,
                         Time delay,
                         uint32_t service,
                         const std::vector<uint64_t>& words);
    /**
     * \brief Hand words to a service on a node's rank, outside the event order.
     * \param node the node's id \param service a number from Register \param words its words
     */
    static void Deliver(uint32_t node, uint32_t service, const std::vector<uint64_t>& words);

    /** \param node a node id \return true if it runs on this rank */
    static bool IsLocal(uint32_t node);
    /** \return this rank (0 unless RoceMpiHelper set it) */
    static uint32_t GetRank();
    /** \return true if calls can reach other ranks (an MPI run with links between ranks) */
    static bool HasTransport();
    /** \return the smallest delay a Schedule to another rank may have (0: one rank) */
    static Time GetLookahead();

    /** \brief Set this rank (RoceMpiHelper::Enable). \param rank the rank */
    static void SetRank(uint32_t rank);
    /**
     * \brief Set how calls reach other ranks (MPI builds).
     * \param transport the sender \param lookahead this rank's lookahead
     */
    static void SetTransport(Transport transport, Time lookahead);
    /**
     * \brief Run a call that came from another rank (the transport's receiver).
     * \param node target node \param at when (0: a Deliver) \param service service
     * \param words its words
     */
    static void Arrived(uint32_t node, Time at, uint32_t service, std::vector<uint64_t> words);

  private:
    /** \brief Run a service now. \param service number \param words words */
    static void Run(uint32_t service, const std::vector<uint64_t>& words);
};

} // namespace ns3

#endif /* ROCE_RANK_CALL_H */
