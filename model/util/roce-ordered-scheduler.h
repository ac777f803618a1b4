/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_ORDERED_SCHEDULER_H
#define ROCE_ORDERED_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstdint>
#include <unordered_set>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief An event scheduler whose order of simultaneous events does not
 * depend on how the nodes are split over MPI ranks.
 *
 * ns-3's schedulers run events of equal time in the order they were
 * scheduled (by uid). In a distributed run a frame that crosses ranks is
 * scheduled at the receiver only when its MPI message is read, at a window
 * boundary, so it lands among the receiver's simultaneous events at
 * another place than in a one-process run, and the results (FCTs, PFC
 * counts) drift with the number of ranks.
 *
 * This scheduler orders events by a key that every partition computes
 * alike: (time, time it was scheduled at, context that scheduled it, that
 * context's count of events scheduled so far). A node's events are
 * scheduled by its own events in an order that, by induction over time,
 * is the same on any number of ranks; so is the key. A frame that crosses
 * ranks takes the key its sender would have given it (Reserve() on the
 * sending rank, SetNextKey() on the receiving one; RoceMpiLink), so it runs
 * exactly where a one-process run runs it.
 *
 * Events inserted outside any event (from main() before the run, and the
 * MPI layer's own receive events between events) take their own sequence
 * (INFRA_CONTEXT), so they never shift a node's count. "Outside" is known
 * from the calls: RemoveNext() precedes an event; IsEmpty() and PeekNext()
 * follow it (the simulator loops of ns-3.37 call them between events).
 *
 * Simulator::Remove() is lazy: the uid is recorded and the event dropped
 * when it reaches the top. The heap is a binary heap in a vector.
 *
 * Select it with `--SchedulerType=ns3::RoceOrderedScheduler` (or
 * RoceMpiHelper::Enable(), which does). One instance is active at a time.
 */
class RoceOrderedScheduler : public Scheduler
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceOrderedScheduler();
    ~RoceOrderedScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /** The context of events inserted outside any event. */
    static constexpr uint64_t INFRA_CONTEXT = uint64_t(1) << 32;

    /** The partition-independent part of an event's order. */
    struct Key
    {
        uint64_t scheduledAt{0}; //!< time step it was scheduled at
        uint64_t context{0};     //!< context that scheduled it (node id, 0xffffffff, INFRA)
        uint64_t seq{0};         //!< that context's count of events before it
    };

    /** \return true while a RoceOrderedScheduler is the simulator's scheduler */
    static bool IsActive();
    /**
     * \brief Take the key that an event scheduled now, from the running
     * event, would take, without scheduling one (a frame leaving by a link
     * that crosses ranks). Only while IsActive().
     * \return the key
     */
    static Key Reserve();
    /**
     * \brief Give the next inserted event this key instead of its own.
     * Only while IsActive().
     * \param key a key Reserve() returned (on any rank)
     */
    static void SetNextKey(const Key& key);
    /** \brief Insert the next event as if from outside any event. Only while IsActive(). */
    static void SetNextInfra();

  private:
    /** One scheduled event and its order. */
    struct Entry
    {
        uint64_t ts; //!< its time step
        Key key;     //!< the rest of its order
        Event ev;    //!< the event
    };

    /** \param a an entry \param b another \return true if a runs after b */
    static bool After(const Entry& a, const Entry& b);
    /** \return the key of an event inserted now */
    Key NextKey();
    /** \brief Pop removed events off the top. */
    void DropRemoved() const;
    /** \brief Remove the top entry of the heap. */
    void PopTop() const;

    mutable std::vector<Entry> m_heap;              //!< binary heap, top = next event
    mutable std::unordered_set<uint32_t> m_removed; //!< uids Remove() took, still in m_heap
    std::vector<uint64_t> m_seq;                    //!< events scheduled per node context
    uint64_t m_noContextSeq{0};                     //!< ... by context 0xffffffff
    uint64_t m_infraSeq{0};                         //!< ... outside any event
    mutable bool m_inEvent{false};                  //!< between RemoveNext and the next peek
    bool m_hasNextKey{false};                       //!< SetNextKey() or SetNextInfra() pending
    bool m_nextInfra{false};                        //!< SetNextInfra() pending
    Key m_nextKey;                                  //!< the key SetNextKey() gave

    static RoceOrderedScheduler* s_active; //!< the active instance
};

} // namespace ns3

#endif /* ROCE_ORDERED_SCHEDULER_H */
