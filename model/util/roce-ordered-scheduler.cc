/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-ordered-scheduler.h"

#include "roce-error.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceOrderedScheduler);

RoceOrderedScheduler* RoceOrderedScheduler::s_active = nullptr;

TypeId
RoceOrderedScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceOrderedScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceOrderedScheduler>();
    return tid;
}

RoceOrderedScheduler::RoceOrderedScheduler()
{
    s_active = this;
}

RoceOrderedScheduler::~RoceOrderedScheduler()
{
    if (s_active == this)
    {
        s_active = nullptr;
    }
}

bool
RoceOrderedScheduler::After(const Entry& a, const Entry& b)
{
    if (a.ts != b.ts)
    {
        return a.ts > b.ts;
    }
    if (a.key.scheduledAt != b.key.scheduledAt)
    {
        return a.key.scheduledAt > b.key.scheduledAt;
    }
    if (a.key.context != b.key.context)
    {
        return a.key.context > b.key.context;
    }
    return a.key.seq > b.key.seq;
}

RoceOrderedScheduler::Key
RoceOrderedScheduler::NextKey()
{
    Key k;
    k.scheduledAt = Simulator::Now().GetTimeStep();
    if (!m_inEvent)
    {
        k.context = INFRA_CONTEXT;
        k.seq = m_infraSeq++;
        return k;
    }
    const uint32_t ctx = Simulator::GetContext();
    k.context = ctx;
    if (ctx == Simulator::NO_CONTEXT)
    {
        k.seq = m_noContextSeq++;
        return k;
    }
    if (ctx >= m_seq.size())
    {
        m_seq.resize(std::max<std::size_t>(ctx + 1, m_seq.size() * 2), 0);
    }
    k.seq = m_seq[ctx]++;
    return k;
}

void
RoceOrderedScheduler::Insert(const Event& ev)
{
    Entry e;
    e.ts = ev.key.m_ts;
    e.ev = ev;
    if (m_hasNextKey)
    {
        m_hasNextKey = false;
        if (m_nextInfra)
        {
            m_nextInfra = false;
            e.key.scheduledAt = Simulator::Now().GetTimeStep();
            e.key.context = INFRA_CONTEXT;
            e.key.seq = m_infraSeq++;
        }
        else
        {
            e.key = m_nextKey;
        }
    }
    else
    {
        e.key = NextKey();
    }
    m_heap.push_back(e);
    std::push_heap(m_heap.begin(), m_heap.end(), &RoceOrderedScheduler::After);
}

void
RoceOrderedScheduler::PopTop() const
{
    std::pop_heap(m_heap.begin(), m_heap.end(), &RoceOrderedScheduler::After);
    m_heap.pop_back();
}

void
RoceOrderedScheduler::DropRemoved() const
{
    while (!m_removed.empty() && !m_heap.empty())
    {
        auto it = m_removed.find(m_heap.front().ev.key.m_uid);
        if (it == m_removed.end())
        {
            return;
        }
        m_removed.erase(it);
        PopTop();
    }
}

bool
RoceOrderedScheduler::IsEmpty() const
{
    m_inEvent = false;
    DropRemoved();
    return m_heap.empty();
}

Scheduler::Event
RoceOrderedScheduler::PeekNext() const
{
    m_inEvent = false;
    DropRemoved();
    ROCE_ERROR_IF(m_heap.empty(), "RoceOrderedScheduler::PeekNext: no event is scheduled");
    return m_heap.front().ev;
}

Scheduler::Event
RoceOrderedScheduler::RemoveNext()
{
    DropRemoved();
    ROCE_ERROR_IF(m_heap.empty(), "RoceOrderedScheduler::RemoveNext: no event is scheduled");
    Event ev = m_heap.front().ev;
    PopTop();
    m_inEvent = true;
    return ev;
}

void
RoceOrderedScheduler::Remove(const Event& ev)
{
    m_removed.insert(ev.key.m_uid);
}

bool
RoceOrderedScheduler::IsActive()
{
    return s_active != nullptr;
}

RoceOrderedScheduler::Key
RoceOrderedScheduler::Reserve()
{
    ROCE_ERROR_IF(!s_active, "RoceOrderedScheduler::Reserve: the scheduler is not in use");
    return s_active->NextKey();
}

void
RoceOrderedScheduler::SetNextKey(const Key& key)
{
    ROCE_ERROR_IF(!s_active, "RoceOrderedScheduler::SetNextKey: the scheduler is not in use");
    s_active->m_hasNextKey = true;
    s_active->m_nextInfra = false;
    s_active->m_nextKey = key;
}

void
RoceOrderedScheduler::SetNextInfra()
{
    ROCE_ERROR_IF(!s_active, "RoceOrderedScheduler::SetNextInfra: the scheduler is not in use");
    s_active->m_hasNextKey = true;
    s_active->m_nextInfra = true;
}

} // namespace ns3
