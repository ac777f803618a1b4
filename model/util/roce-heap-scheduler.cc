/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-heap-scheduler.h"

#include "roce-error.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceHeapScheduler);

namespace
{
constexpr std::align_val_t KEY_ALIGN{64};
} // namespace

TypeId
RoceHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceHeapScheduler>();
    return tid;
}

RoceHeapScheduler::RoceHeapScheduler() = default;

RoceHeapScheduler::~RoceHeapScheduler()
{
    ::operator delete(m_keys, KEY_ALIGN);
    delete[] m_impls;
}

void
RoceHeapScheduler::Grow()
{
    const std::size_t capacity = std::max<std::size_t>(1024, m_capacity * 2);
    auto* keys = static_cast<Key*>(::operator new((OFFSET + capacity) * sizeof(Key), KEY_ALIGN));
    auto* impls = new EventImpl*[OFFSET + capacity];
    if (m_size > 0)
    {
        std::memcpy(keys + OFFSET, m_keys + OFFSET, m_size * sizeof(Key));
        std::memcpy(impls + OFFSET, m_impls + OFFSET, m_size * sizeof(EventImpl*));
    }
    ::operator delete(m_keys, KEY_ALIGN);
    delete[] m_impls;
    m_keys = keys;
    m_impls = impls;
    m_capacity = capacity;
}

void
RoceHeapScheduler::Insert(const Event& ev)
{
    if (m_size == m_capacity)
    {
        Grow();
    }
    const Key key = KeyOf(ev);
    Key* keys = m_keys + OFFSET;
    EventImpl** impls = m_impls + OFFSET;
    std::size_t j = m_size++;
    while (j > 0)
    {
        const std::size_t parent = (j - 1) >> 2;
        if (key >= keys[parent])
        {
            break;
        }
        keys[j] = keys[parent];
        impls[j] = impls[parent];
        j = parent;
    }
    keys[j] = key;
    impls[j] = ev.impl;
}

void
RoceHeapScheduler::PopTop() const
{
    const std::size_t n = --m_size;
    if (n == 0)
    {
        return;
    }
    Key* keys = m_keys + OFFSET;
    EventImpl** impls = m_impls + OFFSET;
    const Key last = keys[n];
    EventImpl* const lastImpl = impls[n];
    std::size_t j = 0;
    for (;;)
    {
        const std::size_t first = 4 * j + 1;
        if (first >= n)
        {
            break;
        }
        std::size_t best = first;
        if (first + 3 < n)
        {
            // All four children, one cache line: the least of them by index
            // arithmetic, no data-dependent branch.
            const std::size_t a = first + (keys[first + 1] < keys[first]);
            const std::size_t b = first + 2 + (keys[first + 3] < keys[first + 2]);
            best = keys[b] < keys[a] ? b : a;
        }
        else
        {
            for (std::size_t c = first + 1; c < n; ++c)
            {
                best = keys[c] < keys[best] ? c : best;
            }
        }
        if (keys[best] >= last)
        {
            break;
        }
        keys[j] = keys[best];
        impls[j] = impls[best];
        j = best;
    }
    keys[j] = last;
    impls[j] = lastImpl;
}

void
RoceHeapScheduler::DropRemovedSlow() const
{
    // Every removed key is held, so the smallest one is at or below the top;
    // uids are unique, so an equal uid is the same event.
    while (!m_removed.empty() && m_size > 0 && UidOf(m_removed.front()) == UidOf(m_keys[OFFSET]))
    {
        std::pop_heap(m_removed.begin(), m_removed.end(), &RoceHeapScheduler::After);
        m_removed.pop_back();
        PopTop();
    }
}

bool
RoceHeapScheduler::IsEmpty() const
{
    DropRemoved();
    return m_size == 0;
}

Scheduler::Event
RoceHeapScheduler::PeekNext() const
{
    DropRemoved();
    ROCE_ERROR_IF(m_size == 0, "RoceHeapScheduler::PeekNext: no event is scheduled");
    const Key k = m_keys[OFFSET];
    Event ev;
    ev.impl = m_impls[OFFSET];
    ev.key.m_ts = static_cast<uint64_t>(k >> 64);
    ev.key.m_uid = UidOf(k);
    ev.key.m_context = static_cast<uint32_t>(k);
    return ev;
}

Scheduler::Event
RoceHeapScheduler::RemoveNext()
{
    Event ev = PeekNext();
    PopTop();
    return ev;
}

void
RoceHeapScheduler::Remove(const Event& ev)
{
    // The simulator removes only pending events, so the key is held.
    m_removed.push_back(KeyOf(ev));
    std::push_heap(m_removed.begin(), m_removed.end(), &RoceHeapScheduler::After);
}

std::size_t
RoceHeapScheduler::GetHeld() const
{
    return m_size;
}

} // namespace ns3
