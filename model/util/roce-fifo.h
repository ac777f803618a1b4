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
 * full and keeps its size when emptied.
 */
template <typename T>
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
        if (m_count == m_capacity)
        {
            Grow();
        }
        m_slots[(m_head + m_count) & m_mask] = std::move(v);
        ++m_count;
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
    /** \brief Double the ring (4 slots at first), oldest entry first. */
    void Grow()
    {
        const uint32_t n = m_capacity == 0 ? 4 : 2 * m_capacity;
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
