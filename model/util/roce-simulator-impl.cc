/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-simulator-impl.h"

#include "ns3/assert.h"

#include <type_traits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceSimulatorImpl);

RoceSimulatorImpl* RoceSimulatorImpl::s_running = nullptr;

TypeId
RoceSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceSimulatorImpl>();
    return tid;
}

RoceSimulatorImpl::RoceSimulatorImpl()
    : m_uid(EventId::UID::VALID),
      m_currentUid(EventId::UID::INVALID),
      m_currentContext(Simulator::NO_CONTEXT),
      m_mainThreadId(std::this_thread::get_id())
{
}

RoceSimulatorImpl::~RoceSimulatorImpl()
{
    if (s_running == this)
    {
        s_running = nullptr;
    }
}

void
RoceSimulatorImpl::DoDispose()
{
    if (s_running == this)
    {
        s_running = nullptr;
    }
    ProcessEventsWithContext();
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            m_events->RemoveNext().impl->Unref();
        }
    }
    m_heap = nullptr;
    m_events = nullptr;
    SimulatorImpl::DoDispose();
}

void
RoceSimulatorImpl::Destroy()
{
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
RoceSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            scheduler->Insert(m_events->RemoveNext());
        }
    }
    m_events = scheduler;
    // RoceHeapScheduler is final: through this pointer its methods are
    // called directly.
    m_heap = dynamic_cast<RoceHeapScheduler*>(PeekPointer(m_events));
}

uint32_t
RoceSimulatorImpl::GetSystemId() const
{
    return 0;
}

bool
RoceSimulatorImpl::IsFinished() const
{
    return Empty() || m_stop;
}

void
RoceSimulatorImpl::ProcessEventsWithContext()
{
    if (m_eventsWithContextEmpty)
    {
        return;
    }
    std::vector<EventWithContext> events;
    {
        std::unique_lock lock{m_eventsWithContextMutex};
        m_eventsWithContext.swap(events);
        m_eventsWithContextEmpty = true;
    }
    for (const EventWithContext& e : events)
    {
        Insert(m_currentTs + e.timestamp, e.context, e.event);
    }
}

void
RoceSimulatorImpl::Run()
{
    m_mainThreadId = std::this_thread::get_id();
    ProcessEventsWithContext();
    m_stop = false;

    // The module's direct calls reach this simulator while it runs; the
    // guard restores the pointer however Run() is left (an event may throw
    // through it, as RoceError does from Python).
    struct RunningGuard
    {
        RoceSimulatorImpl* outer;

        ~RunningGuard()
        {
            s_running = outer;
        }
    } guard{s_running};

    s_running = this;

    while (!Empty() && !m_stop)
    {
        // DefaultSimulatorImpl::ProcessOneEvent without PreEventHook, which
        // the base class leaves empty and this final class cannot override.
        const Scheduler::Event next =
            m_heap != nullptr ? m_heap->RemoveNext() : m_events->RemoveNext();
        NS_ASSERT(next.key.m_ts >= m_currentTs);
        --m_unscheduledEvents;
        ++m_eventCount;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        try
        {
            next.impl->Invoke();
        }
        catch (...)
        {
            // An event that throws (RoceError from Python) is still freed.
            next.impl->Unref();
            throw;
        }
        next.impl->Unref();
        ProcessEventsWithContext();
    }
    NS_ASSERT(!Empty() || m_unscheduledEvents == 0);
}

void
RoceSimulatorImpl::Stop()
{
    m_stop = true;
}

rocecompat::StopResult
RoceSimulatorImpl::Stop(const Time& delay)
{
    // ns-3.44 and later return the event, so that the stop can be cancelled;
    // earlier releases return nothing (static_cast<void> discards it).
    EventId id = Simulator::Schedule(delay, static_cast<void (*)()>(&Simulator::Stop));
    return static_cast<rocecompat::StopResult>(id);
}

EventId
RoceSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    NS_ASSERT_MSG(m_mainThreadId == std::this_thread::get_id(),
                  "Simulator::Schedule Thread-unsafe invocation!");
    NS_ASSERT_MSG(delay.IsPositive(), "RoceSimulatorImpl::Schedule(): Negative delay");
    return ScheduleOwned(delay, event);
}

void
RoceSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    if (m_mainThreadId == std::this_thread::get_id())
    {
        ScheduleWithContextOwned(context, delay, event);
        return;
    }
    std::unique_lock lock{m_eventsWithContextMutex};
    m_eventsWithContext.push_back({context, static_cast<uint64_t>(delay.GetTimeStep()), event});
    m_eventsWithContextEmpty = false;
}

EventId
RoceSimulatorImpl::ScheduleNow(EventImpl* event)
{
    return Schedule(Time(0), event);
}

EventId
RoceSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    NS_ASSERT_MSG(m_mainThreadId == std::this_thread::get_id(),
                  "Simulator::ScheduleDestroy Thread-unsafe invocation!");
    // As DefaultSimulatorImpl: the destroy uid, and the counter still moves.
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_uid;
    return id;
}

Time
RoceSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
RoceSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    if (IsExpired(id))
    {
        return TimeStep(0);
    }
    return TimeStep(id.GetTs() - m_currentTs);
}

void
RoceSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event event;
    event.impl = id.PeekEventImpl();
    event.key.m_ts = id.GetTs();
    event.key.m_context = id.GetContext();
    event.key.m_uid = id.GetUid();
    m_events->Remove(event);
    event.impl->Cancel();
    // The queue's reference.
    event.impl->Unref();
    --m_unscheduledEvents;
}

void
RoceSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
RoceSimulatorImpl::IsExpired(const EventId& id) const
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        if (id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled())
        {
            return true;
        }
        for (const EventId& e : m_destroyEvents)
        {
            if (e == id)
            {
                return false;
            }
        }
        return true;
    }
    return id.PeekEventImpl() == nullptr || id.GetTs() < m_currentTs ||
           (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid) ||
           id.PeekEventImpl()->IsCancelled();
}

Time
RoceSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(0x7fffffffffffffffLL);
}

uint32_t
RoceSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
RoceSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

} // namespace ns3
