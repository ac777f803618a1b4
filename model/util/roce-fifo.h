/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FIFO_H
#define ROCE_FIFO_H

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A first-in first-out queue in a ring of power-of-two size that
 * allocates nothing until the first push.
 *
 * The queues a device holds from its construction (a NIC's control frames
 * per priority and its receive buffer, a port's PFC frames) are empty most
 * of the time, and most devices of a large fabric never use some of them:
 * a std::deque allocates about 600 bytes as it is constructed, which made
 * them a quarter of a fabric's memory, on every MPI rank for every remote
 * device too. Push and pop are an index and a mask; the ring doubles when
 * full (from FIRST slots) and keeps its size when emptied. A switch port's
 * egress queues are RoceFifos too (RoceEgressQueueDisc), filled in place
 * through push_slot().
 */
template <typename T, uint32_t FIRST = 4>
class RoceFifo
{
  public:
    /** \return true if nothing is queued */
    bool empty() const
    {
        return m_count == 0;
    }

    /** \return entries queued */
    std::size_t size() const
    {
        return m_count;
    }

    /** \return the oldest entry (the queue must not be empty) */
    T& front()
    {
        return m_slots[m_head];
    }

    /** \return the oldest entry (the queue must not be empty) */
    const T& front() const
    {
        return m_slots[m_head];
    }

    /** \param v an entry to queue last */
    void push_back(T v)
    {
        push_slot() = std::move(v);
    }

    /** \param i an index below size() \return the i-th oldest entry */
    const T& at(uint32_t i) const
    {
        return m_slots[(m_head + i) & m_mask];
    }

    /**
     * \brief Queue an entry filled in place.
     * \return the new last slot (as pop_front left it: T()), counted as queued
     */
    T& push_slot()
    {
        if (m_count == m_capacity)
        {
            Grow();
        }
        T& slot = m_slots[(m_head + m_count) & m_mask];
        ++m_count;
        return slot;
    }

    /** \brief Forget the oldest entry (the queue must not be empty). */
    void pop_front()
    {
        m_slots[m_head] = T();
        m_head = (m_head + 1) & m_mask;
        --m_count;
    }

    /** \return the oldest entry, taken out of the queue (which must not be empty) */
    T take_front()
    {
        T v = std::move(m_slots[m_head]);
        m_slots[m_head] = T(); // ns-3's Ptr has no move: the slot still holds a reference
        m_head = (m_head + 1) & m_mask;
        --m_count;
        return v;
    }

    /** \brief Forget every entry and release the storage. */
    void clear()
    {
        std::vector<T>().swap(m_slots);
        m_head = 0;
        m_count = 0;
        m_mask = 0;
        m_capacity = 0;
    }

  private:
    /** \brief Double the ring (FIRST slots at first), oldest entry first. */
    void Grow()
    {
        static_assert(FIRST > 0 && (FIRST & (FIRST - 1)) == 0, "FIRST is a power of two");
        const uint32_t n = m_capacity == 0 ? FIRST : 2 * m_capacity;
        std::vector<T> slots(n);
        for (uint32_t i = 0; i < m_count; ++i)
        {
            slots[i] = std::move(m_slots[(m_head + i) & m_mask]);
        }
        m_slots.swap(slots);
        m_head = 0;
        m_mask = n - 1;
        m_capacity = n;
    }

    std::vector<T> m_slots; //!< the ring
    uint32_t m_head{0};     //!< index of the oldest entry
    uint32_t m_count{0};    //!< entries queued
    uint32_t m_mask{0};     //!< ring size - 1
    uint32_t m_capacity{0}; //!< ring size (0 until the first push)
};

} // namespace ns3

#endif /* ROCE_FIFO_H */
