/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HEAP_SCHEDULER_H
#define ROCE_HEAP_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief ns-3's event order (time, then uid) in a 4-ary heap whose sibling
 * keys share one cache line, with a lazy Simulator::Remove in O(log r).
 *
 * The examples' scheduler (RoceCli::UseFastScheduler). It runs the same
 * events in the same order as ns3::PriorityQueueScheduler and
 * ns3::MapScheduler: the order (ts, uid) is total, so any correct priority
 * queue over it pops the same sequence, and every output is byte-identical
 * to theirs. What differs is the cost:
 *
 * - The keys (time step, uid, context: 16 bytes) live in one array aligned
 *   to 64 bytes, the event pointers in another. Node j's four children are
 *   at 4j+1..4j+4, stored from index 4(j+1) on, so the four keys a pop
 *   compares at one level are one cache line. A pop touches about
 *   log4(n) key lines and as many pointer slots; ns-3's binary heap of
 *   24-byte events touches log2(n) levels of one or two lines.
 * - Simulator::Remove() is lazy: the event's key goes into a second, small
 *   heap of removed keys (O(log r)), and an entry is dropped when it reaches
 *   the top and equals the smallest removed key, one comparison per pop.
 *   When the removed entries are half of the heap they are dropped at once
 *   and the heap rebuilt (O(n), amortised O(1) per Remove), so that removed
 *   far-future timers never make it deeper than twice the live events.
 * ns3::PriorityQueueScheduler finds the event by a linear scan and rebuilds its heap, O(n) per
 * call, which the module's timers (DCQCN's rate increase at every CNP, a queue pair's
 *   retransmission timer, the monitors) pay with tens of thousands of
 *   events pending.
 *
 * Select it with `--SchedulerType=ns3::RoceHeapScheduler`; the examples
 * and the Python package do unless the user names another.
 */
class RoceHeapScheduler final : public Scheduler
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceHeapScheduler();
    ~RoceHeapScheduler() override;

    RoceHeapScheduler(const RoceHeapScheduler&) = delete;
    RoceHeapScheduler& operator=(const RoceHeapScheduler&) = delete;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /** \return the entries held, removed ones not yet dropped included */
    std::size_t GetHeld() const;

  private:
    /**
     * The order of an event in one unsigned 128-bit integer: the time step
     * in the high half, then the uid, then the context (uids are unique, so
     * the context never decides). One integer comparison orders two events,
     * and the heap picks the least of four children without branching.
     * (__extension__: 128-bit integers are a GCC and Clang extension that
     * -Wpedantic reports.)
     */
    __extension__ typedef unsigned __int128 Key;

    static_assert(sizeof(Key) == 16, "four keys fill one 64-byte line");

    /** Storage index of the heap's node j (see the class comment). */
    static constexpr std::size_t OFFSET = 3;

    /** \param ev an event \return its key */
    static Key KeyOf(const Event& ev)
    {
        return (static_cast<Key>(ev.key.m_ts) << 64) | (static_cast<uint64_t>(ev.key.m_uid) << 32) |
               ev.key.m_context;
    }

    /** \param k a key \return its uid */
    static uint32_t UidOf(Key k)
    {
        return static_cast<uint32_t>(static_cast<uint64_t>(k) >> 32);
    }

    /** \param a a key \param b another \return true if a runs after b (std heaps' order) */
    static bool After(const Key& a, const Key& b)
    {
        return a > b;
    }

    /** \brief Pop removed entries off the top (the slow part of DropRemoved). */
    void DropRemovedSlow() const;

    /** \brief Pop removed entries off the top. */
    void DropRemoved() const
    {
        // Every removed entry is held (m_size > 0), and the top is the
        // least of them all: only an equal uid needs the slow path.
        if (!m_removed.empty() && UidOf(m_removed.front()) == UidOf(m_keys[OFFSET]))
        {
            DropRemovedSlow();
        }
    }

    /** \brief Make room for at least one more entry. */
    void Grow();
    /** \brief Remove the top entry (the heap holds at least one). */
    void PopTop() const;
    /**
     * \brief Place an entry at node j or below it (its children's subtrees
     * are heaps). \param j a node \param key its key \param impl its event
     */
    void SiftDown(std::size_t j, Key key, EventImpl* impl) const;
    /** \brief Drop every removed entry and rebuild the heap. */
    void Compact();

    /** Removed entries at least, before they are compacted away. */
    static constexpr std::size_t COMPACT_MIN = 64;

    mutable Key* m_keys{nullptr};         //!< 64-byte aligned, OFFSET + capacity
    mutable EventImpl** m_impls{nullptr}; //!< OFFSET + capacity
    mutable std::size_t m_size{0};        //!< entries in the heap
    std::size_t m_capacity{0};            //!< entries the arrays hold
    mutable std::vector<Key> m_removed;   //!< binary min-heap: keys Remove() took, still held
};

} // namespace ns3

#endif /* ROCE_HEAP_SCHEDULER_H */
