/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SIMULATOR_IMPL_H
#define ROCE_SIMULATOR_IMPL_H

#include "roce-heap-scheduler.h"

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"

#include <atomic>
#include <cstdint>
#include <list>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace ns3
{

namespace rocecompat
{
/** SimulatorImpl::Stop(delay)'s result: EventId from ns-3.44 on, void before. */
using StopResult = decltype(std::declval<SimulatorImpl&>().Stop(std::declval<const Time&>()));
} // namespace rocecompat

/**
 * \ingroup rocev2
 * \brief ns-3's sequential simulator (ns3::DefaultSimulatorImpl's rules)
 * with the per-event bookkeeping cut to what the rules need, and a direct
 * path for the module's own events.
 *
 * It runs the same events in the same order with the same uids, times,
 * contexts and event count as ns3::DefaultSimulatorImpl: uids are handed
 * out by the same counter at the same calls (Schedule, ScheduleWithContext,
 * ScheduleNow, ScheduleDestroy), events run in (time, uid) order, and
 * Simulator::IsExpired, Remove, Cancel, GetDelayLeft, Stop and Destroy
 * follow DefaultSimulatorImpl line for line. Every output of a run is
 * byte-identical under either; check/determinism compares them.
 *
 * What it leaves out is cost ns-3's Debian build pays per event: the
 * EventId made for PreEventHook (a reference taken and dropped, a logging
 * check) and the logging checks of every call. And while it runs
 * (Simulator::Run), the module's hot paths reach it without the static
 * Simulator wrappers (each a logging check and a lookup of the
 * implementation): RoceSchedule, RoceScheduleWithContext (roce-pooled-event.h)
 * and RoceNow call it directly. When its scheduler is a RoceHeapScheduler
 * (the examples' choice) it calls that class's methods without a virtual
 * call.
 *
 * The examples select it with the scheduler (RoceCli::UseFastScheduler);
 * `--SimulatorImplementationType` chooses another, and an MPI run uses
 * ns3::DistributedSimulatorImpl as before.
 */
class RoceSimulatorImpl final : public SimulatorImpl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceSimulatorImpl();
    ~RoceSimulatorImpl() override;

    RoceSimulatorImpl(const RoceSimulatorImpl&) = delete;
    RoceSimulatorImpl& operator=(const RoceSimulatorImpl&) = delete;

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    rocecompat::StopResult Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

    /**
     * \return the simulator whose Run() is executing, if it is a
     * RoceSimulatorImpl; else nullptr (before Run, after it, under another
     * implementation). For calls from the simulation thread.
     */
    static RoceSimulatorImpl* Running()
    {
        return s_running;
    }

    /** \return the current time step (Now() without the Time's checks) */
    uint64_t NowStep() const
    {
        return m_currentTs;
    }

    /**
     * \brief Schedule(delay, event) for a caller on the simulation thread
     * that hands over its reference to the event (a fresh event's first).
     * \param delay from now \param event the event \return its id
     */
    EventId ScheduleOwned(const Time& delay, EventImpl* event)
    {
        const uint64_t ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
        const uint32_t uid = Insert(ts, m_currentContext, event);
        return EventId(Ptr<EventImpl>(event), ts, m_currentContext, uid);
    }

    /**
     * \brief ScheduleWithContext for a caller on the simulation thread.
     * \param context the event's context \param delay from now \param event
     * the event (the simulator takes the caller's reference)
     */
    void ScheduleWithContextOwned(uint32_t context, const Time& delay, EventImpl* event)
    {
        Insert(m_currentTs + static_cast<uint64_t>(delay.GetTimeStep()), context, event);
    }

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Queue an event with the next uid (the simulator holds the
     * reference the caller passed). \param ts its time step \param context
     * its context \param event the event \return its uid
     */
    uint32_t Insert(uint64_t ts, uint32_t context, EventImpl* event)
    {
        Scheduler::Event ev;
        ev.impl = event;
        ev.key.m_ts = ts;
        ev.key.m_context = context;
        ev.key.m_uid = m_uid++;
        ++m_unscheduledEvents;
        if (m_heap != nullptr)
        {
            m_heap->Insert(ev);
        }
        else
        {
            m_events->Insert(ev);
        }
        return ev.key.m_uid;
    }

    /** \return true if no event is queued */
    bool Empty() const
    {
        return m_heap != nullptr ? m_heap->IsEmpty() : m_events->IsEmpty();
    }

    /** \brief Queue the events other threads scheduled (ScheduleWithContext). */
    void ProcessEventsWithContext();

    /** An event another thread scheduled, queued at the next event. */
    struct EventWithContext
    {
        uint32_t context;   //!< its context
        uint64_t timestamp; //!< its delay, in time steps
        EventImpl* event;   //!< the event
    };

    /**
     * See Running(). A plain pointer, not thread_local: the module schedules
     * its events from the simulation thread only, as ns-3's Schedule
     * requires, and a thread_local in a shared library costs a call per
     * read.
     */
    static RoceSimulatorImpl* s_running;

    Ptr<Scheduler> m_events;                           //!< the event queue
    RoceHeapScheduler* m_heap{nullptr};                //!< m_events, when it is a RoceHeapScheduler
    std::list<EventId> m_destroyEvents;                //!< ScheduleDestroy's events, in order
    bool m_stop{false};                                //!< Stop() was called
    uint32_t m_uid;                                    //!< the next event's uid
    uint32_t m_currentUid;                             //!< the running (last run) event's uid
    uint64_t m_currentTs{0};                           //!< the current time step
    uint32_t m_currentContext;                         //!< the running event's context
    uint64_t m_eventCount{0};                          //!< events run, cancelled ones included
    int m_unscheduledEvents{0};                        //!< events queued and not yet run or removed
    std::vector<EventWithContext> m_eventsWithContext; //!< from other threads
    std::atomic<bool> m_eventsWithContextEmpty{true};  //!< m_eventsWithContext is empty
    std::mutex m_eventsWithContextMutex;               //!< guards m_eventsWithContext
    std::thread::id m_mainThreadId;                    //!< the simulation thread
};

/**
 * \ingroup rocev2
 * \brief Simulator::Now(), read straight from a running RoceSimulatorImpl
 * (the static Simulator::Now() makes a logging check and a lookup of the
 * implementation at every call). The same value under any implementation.
 * \return the current simulation time
 */
inline Time
RoceNow()
{
    if (const RoceSimulatorImpl* s = RoceSimulatorImpl::Running())
    {
        return TimeStep(s->NowStep());
    }
    return Simulator::Now();
}

} // namespace ns3

#endif /* ROCE_SIMULATOR_IMPL_H */
