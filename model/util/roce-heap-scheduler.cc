/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-heap-scheduler.h"

#include "roce-error.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <unordered_set>

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
RoceHeapScheduler::SiftDown(std::size_t j, Key key, EventImpl* impl) const
{
    Key* keys = m_keys + OFFSET;
    EventImpl** impls = m_impls + OFFSET;
    const std::size_t n = m_size;
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
        if (keys[best] >= key)
        {
            break;
        }
        keys[j] = keys[best];
        impls[j] = impls[best];
        j = best;
    }
    keys[j] = key;
    impls[j] = impl;
}

void
RoceHeapScheduler::PopTop() const
{
    const std::size_t n = --m_size;
    if (n > 0)
    {
        SiftDown(0, m_keys[OFFSET + n], m_impls[OFFSET + n]);
    }
}

void
RoceHeapScheduler::Compact()
{
    // Drop every removed entry in one pass, then rebuild the heap bottom-up
    // (Floyd): O(n + r), paid once per r >= n/2 removals.
    std::unordered_set<uint32_t> removed;
    removed.reserve(m_removed.size());
    for (const Key& k : m_removed)
    {
        removed.insert(UidOf(k));
    }
    Key* keys = m_keys + OFFSET;
    EventImpl** impls = m_impls + OFFSET;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_size; ++i)
    {
        if (removed.count(UidOf(keys[i])) == 0)
        {
            keys[kept] = keys[i];
            impls[kept] = impls[i];
            ++kept;
        }
    }
    m_size = kept;
    m_removed.clear();
    if (kept > 1)
    {
        for (std::size_t j = (kept - 2) / 4 + 1; j-- > 0;)
        {
            SiftDown(j, keys[j], impls[j]);
        }
    }
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
    // Removed timers can sit far in the future (a retransmission timeout
    // removed at every completed message): once they are half of the heap,
    // drop them all, so that they never make the heap deeper than twice
    // the live events.
    if (m_removed.size() >= COMPACT_MIN && 2 * m_removed.size() >= m_size)
    {
        Compact();
    }
}

std::size_t
RoceHeapScheduler::GetHeld() const
{
    return m_size;
}

} // namespace ns3
