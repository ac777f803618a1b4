/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-nic-scheduler.h"

#include "roce-queue-pair.h"

#include "ns3/packet.h"

#include <algorithm>

namespace ns3
{

namespace
{

/** Heap order: the earliest time on top, first pushed first among equal times. */
struct Later
{
    template <typename E>
    bool operator()(const E& a, const E& b) const
    {
        return a.time != b.time ? a.time > b.time : a.order > b.order;
    }
};

} // namespace

void
RoceNicScheduler::Ring::Push(uint32_t slot)
{
    if (count == buf.size())
    {
        // Grow by doubling and lay the elements out from index 0 again. This
        // happens only while the number of ready QPs reaches a new maximum.
        std::vector<uint32_t> grown(buf.empty() ? 8 : 2 * buf.size());
        for (uint32_t i = 0; i < count; ++i)
        {
            grown[i] = buf[(head + i) & (buf.size() - 1)];
        }
        buf.swap(grown);
        head = 0;
    }
    buf[(head + count) & (buf.size() - 1)] = slot;
    ++count;
}

uint32_t
RoceNicScheduler::Ring::Pop()
{
    uint32_t slot = buf[head];
    head = (head + 1) & (buf.size() - 1);
    --count;
    return slot;
}

RoceNicScheduler::RoceNicScheduler() = default;

uint32_t
RoceNicScheduler::AddSlot(RoceQueuePair* qp)
{
    Slot s;
    s.qp = qp;
    m_slots.push_back(s);
    return static_cast<uint32_t>(m_slots.size() - 1);
}

uint32_t
RoceNicScheduler::GetNSlots() const
{
    return static_cast<uint32_t>(m_slots.size());
}

void
RoceNicScheduler::Wait(Queue& q, uint32_t slot, Time t)
{
    Slot& s = m_slots[slot];
    s.where = WAITING;
    s.key = t.GetTimeStep();
    ++s.generation;
    m_minWaitSince = std::min(m_minWaitSince, s.key);
    q.heap.push_back(HeapEntry{s.key, m_order++, slot, s.generation});
    std::push_heap(q.heap.begin(), q.heap.end(), Later());
}

void
RoceNicScheduler::PruneTop(Queue& q)
{
    while (!q.heap.empty())
    {
        const HeapEntry& e = q.heap.front();
        const Slot& s = m_slots[e.slot];
        if (s.where == WAITING && s.generation == e.generation)
        {
            return;
        }
        std::pop_heap(q.heap.begin(), q.heap.end(), Later());
        q.heap.pop_back();
    }
}

void
RoceNicScheduler::Notify(uint32_t slot, uint8_t priority, Time now)
{
    Slot& s = m_slots[slot];
    Queue& q = m_queues[priority];
    if (s.where == IDLE)
    {
        // Its turn comes at the tail of the ring; NextSendTime is read then.
        s.where = READY;
        q.ring.Push(slot);
        return;
    }
    if (s.where == WAITING)
    {
        // The QP may now send earlier than its heap key (a go-back, a rate
        // rise): re-key it. A later time is found out lazily when it is due.
        Time t = s.qp->NextSendTime(now);
        if (t.GetTimeStep() < s.key)
        {
            if (t <= now)
            {
                ++s.generation; // its heap entry is stale
                s.where = READY;
                q.ring.Push(slot);
            }
            else
            {
                Wait(q, slot, t);
            }
        }
    }
}

RoceFramePtr
RoceNicScheduler::Dequeue(uint8_t priority, Time now)
{
    Queue& q = m_queues[priority];
    const int64_t nowStep = now.GetTimeStep();
    while (!q.heap.empty() && q.heap.front().time <= nowStep)
    {
        HeapEntry e = q.heap.front();
        std::pop_heap(q.heap.begin(), q.heap.end(), Later());
        q.heap.pop_back();
        Slot& s = m_slots[e.slot];
        if (s.where == WAITING && s.generation == e.generation)
        {
            s.where = READY;
            q.ring.Push(e.slot);
        }
    }
    while (q.ring.count > 0)
    {
        uint32_t slot = q.ring.Pop();
        Slot& s = m_slots[slot];
        Time t = s.qp->NextSendTime(now);
        if (t == Time::Max())
        {
            // Nothing to send or window full: it comes back through Notify().
            s.where = IDLE;
            continue;
        }
        if (t > now)
        {
            Wait(q, slot, t);
            continue;
        }
        RoceFramePtr p = s.qp->BuildNextPacket();
        q.ring.Push(slot); // one packet per turn; checked again at its next turn
        return p;
    }
    return nullptr;
}

Time
RoceNicScheduler::NextWakeTime(uint8_t pausedMask)
{
    m_minWaitSince = INT64_MAX;
    int64_t earliest = Time::Max().GetTimeStep();
    for (uint32_t prio = 0; prio < ROCE_NUM_PRIORITIES; ++prio)
    {
        if (pausedMask & (1u << prio))
        {
            continue;
        }
        Queue& q = m_queues[prio];
        if (q.heap.empty())
        {
            continue;
        }
        PruneTop(q);
        if (!q.heap.empty())
        {
            earliest = std::min(earliest, q.heap.front().time);
        }
    }
    return TimeStep(earliest);
}

void
RoceNicScheduler::Clear()
{
    m_slots.clear();
    for (auto& q : m_queues)
    {
        q.ring = Ring();
        q.heap.clear();
    }
}

} // namespace ns3
