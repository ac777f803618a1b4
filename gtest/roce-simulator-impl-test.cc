/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceSimulatorImpl against ns-3's own DefaultSimulatorImpl, the oracle: one
 * scenario that uses every SimulatorImpl call (Schedule, ScheduleWithContext,
 * ScheduleNow, ScheduleDestroy, Remove, Cancel, IsExpired, GetDelayLeft,
 * Stop with and without a delay, a second Run, GetEventCount) and the
 * module's direct path (RoceSchedule, RoceScheduleWithContext, RoceNow)
 * must log the same lines under both: the same events at the same times, in
 * the same order, with the same contexts, uids and event counts. Also: the
 * direct path is taken only while the module's simulator runs, an event
 * that throws leaves no running simulator behind (and is freed), and an event another
 * thread schedules is queued as ns-3 queues it.
 */

#include "ns3/global-value.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/roce-command-line.h"
#include "ns3/roce-pooled-event.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace ns3;

namespace
{

std::vector<std::string> g_log; //!< what the scenario's events saw, in order

/** \brief Log one line: what ran, when, in which context, after how many events. */
void
Log(const std::string& what)
{
    std::ostringstream line;
    line << what << " t=" << Simulator::Now().GetTimeStep() << " now=" << RoceNow().GetTimeStep()
         << " ctx=" << Simulator::GetContext() << " n=" << Simulator::GetEventCount();
    g_log.push_back(line.str());
}

/** \brief Log an event id's fields. */
void
LogId(const std::string& what, const EventId& id)
{
    std::ostringstream line;
    line << what << " ts=" << id.GetTs() << " uid=" << id.GetUid() << " ctx=" << id.GetContext()
         << " expired=" << id.IsExpired() << " left=" << Simulator::GetDelayLeft(id).GetTimeStep();
    g_log.push_back(line.str());
}

/// The object whose member functions the module's direct path schedules.
class Hopper
{
  public:
    /** \brief A pooled event: log, and schedule a few more while depth lasts. */
    void Hop(int depth, uint32_t seed)
    {
        Log("hop " + std::to_string(depth) + " " + std::to_string(seed));
        if (depth == 0)
        {
            return;
        }
        std::mt19937 rng(seed);
        // Delays of 0-3 ns: many events share a time step, so the order of
        // equal times (the uids) decides.
        const Time d1 = NanoSeconds(rng() % 4);
        const Time d2 = NanoSeconds(rng() % 4);
        EventId id = RoceSchedule<&Hopper::Hop>(d1, this, depth - 1, static_cast<uint32_t>(rng()));
        LogId("scheduled", id);
        RoceScheduleWithContext<&Hopper::Hop>(static_cast<uint32_t>(rng() % 5),
                                              d2,
                                              this,
                                              depth - 1,
                                              static_cast<uint32_t>(rng()));
        if (rng() % 3 == 0)
        {
            // Schedule and cancel one, schedule and remove another.
            EventId cancelled = RoceSchedule<&Hopper::Hop>(d2, this, 0, 1u);
            RoceCancel(cancelled);
            LogId("cancelled", cancelled);
            EventId removed = Simulator::Schedule(d1, &Log, std::string("never"));
            Simulator::Remove(removed);
            LogId("removed", removed);
        }
    }
};

/** \brief The scenario: returns the log it wrote. */
std::vector<std::string>
Scenario(const std::string& impl, const std::string& scheduler)
{
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
    ObjectFactory factory;
    factory.SetTypeId(scheduler);
    Simulator::SetScheduler(factory);
    g_log.clear();

    Hopper node;
    // Before Run: the Simulator's path, under either implementation.
    EventId first = RoceSchedule<&Hopper::Hop>(NanoSeconds(1), &node, 6, 11u);
    LogId("first", first);
    Simulator::ScheduleWithContext(3, NanoSeconds(1), &Hopper::Hop, &node, 5, 12u);
    Simulator::ScheduleNow(&Log, std::string("now"));
    EventId destroyed = Simulator::ScheduleDestroy(&Log, std::string("destroy-kept"));
    EventId destroyCancelled = Simulator::ScheduleDestroy(&Log, std::string("destroy-cancelled"));
    EventId destroyRemoved = Simulator::ScheduleDestroy(&Log, std::string("destroy-removed"));
    LogId("destroy", destroyed);
    destroyCancelled.Cancel();
    Simulator::Remove(destroyRemoved);
    EventId late = Simulator::Schedule(NanoSeconds(40), &Log, std::string("late"));
    Simulator::Schedule(NanoSeconds(2), [&]() {
        LogId("late from inside", late);
        Simulator::Stop(); // Run returns after this event
    });
    Simulator::Run();
    Log("after first run");
    LogId("late between runs", late);
    Simulator::Stop(NanoSeconds(20));
    Simulator::Run();
    Log("after second run");
    Simulator::Run();
    Log("after last run");
    EXPECT_TRUE(Simulator::IsFinished());
    EXPECT_EQ(Simulator::GetMaximumSimulationTime().GetTimeStep(), 0x7fffffffffffffffLL);
    Simulator::Destroy();
    g_log.push_back("events " + std::to_string(g_log.size()));
    return g_log;
}

/** \brief Restores the simulator's global values when a test ends. */
struct KeepGlobals
{
    StringValue impl;      //!< SimulatorImplementationType on entry
    StringValue scheduler; //!< SchedulerType on entry

    KeepGlobals()
    {
        GlobalValue::GetValueByName("SimulatorImplementationType", impl);
        GlobalValue::GetValueByName("SchedulerType", scheduler);
    }

    ~KeepGlobals()
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", impl);
        GlobalValue::Bind("SchedulerType", scheduler);
    }
};

} // namespace

TEST(RoceSimulatorImpl, LogsWhatDefaultSimulatorImplLogs)
{
    KeepGlobals keep;
    for (const char* scheduler : {"ns3::RoceHeapScheduler", "ns3::MapScheduler"})
    {
        SCOPED_TRACE(scheduler);
        const std::vector<std::string> oracle = Scenario("ns3::DefaultSimulatorImpl", scheduler);
        const std::vector<std::string> got = Scenario("ns3::RoceSimulatorImpl", scheduler);
        // The scenario is not trivial: hundreds of events, some removed and
        // cancelled, destroy events run, a stop and three runs.
        EXPECT_GT(oracle.size(), 300u);
        std::size_t cancelled = 0;
        for (const std::string& line : oracle)
        {
            cancelled += line.rfind("cancelled", 0) == 0;
            EXPECT_EQ(line.find("never"), std::string::npos);
            EXPECT_EQ(line.find("destroy-cancelled t"), std::string::npos);
            EXPECT_EQ(line.find("destroy-removed t"), std::string::npos);
        }
        EXPECT_GT(cancelled, 10u);
        // The kept destroy event ran, at Destroy, after the late event (40 ns).
        EXPECT_EQ(oracle[oracle.size() - 2].rfind("destroy-kept t=40 ", 0), 0u);
        ASSERT_EQ(got.size(), oracle.size());
        for (std::size_t i = 0; i < oracle.size(); ++i)
        {
            ASSERT_EQ(got[i], oracle[i]) << "line " << i;
        }
    }
}

TEST(RoceSimulatorImpl, TheDirectPathIsTakenOnlyWhileItRuns)
{
    KeepGlobals keep;
    for (const char* impl : {"ns3::RoceSimulatorImpl", "ns3::DefaultSimulatorImpl"})
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
        bool inside = false;
        Simulator::Schedule(NanoSeconds(1),
                            [&]() { inside = RoceSimulatorImpl::Running() != nullptr; });
        EXPECT_EQ(RoceSimulatorImpl::Running(), nullptr);
        Simulator::Run();
        EXPECT_EQ(RoceSimulatorImpl::Running(), nullptr);
        EXPECT_EQ(inside, std::string(impl) == "ns3::RoceSimulatorImpl") << impl;
        Simulator::Destroy();
    }
}

TEST(RoceSimulatorImpl, AnEventThatThrowsLeavesNoRunningSimulator)
{
    KeepGlobals keep;
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RoceSimulatorImpl"));
    Simulator::Schedule(NanoSeconds(1), []() { throw std::runtime_error("from an event"); });
    Simulator::Schedule(NanoSeconds(2), []() {});
    // The event that threw is freed too (the sanitizer build reports a leak
    // otherwise).
    EXPECT_THROW(Simulator::Run(), std::runtime_error);
    EXPECT_EQ(RoceSimulatorImpl::Running(), nullptr);
    // The rest still runs.
    Simulator::Run();
    EXPECT_EQ(Simulator::Now(), NanoSeconds(2));
    Simulator::Destroy();
}

TEST(RoceSimulatorImpl, QueuesAnotherThreadsEventAsDefaultSimulatorImplDoes)
{
    KeepGlobals keep;
    std::vector<std::string> logs[2];
    int i = 0;
    for (const char* impl : {"ns3::DefaultSimulatorImpl", "ns3::RoceSimulatorImpl"})
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
        g_log.clear();
        Simulator::Schedule(NanoSeconds(3), []() {
            // Scheduled from another thread: queued, then inserted after
            // this event, 5 ns after its time, in context 7.
            std::thread t([]() {
                Simulator::ScheduleWithContext(7,
                                               NanoSeconds(5),
                                               &Log,
                                               std::string("other thread"));
            });
            t.join();
            Simulator::Schedule(NanoSeconds(5), &Log, std::string("this thread"));
        });
        Simulator::Run();
        Simulator::Destroy();
        logs[i++] = g_log;
    }
    ASSERT_EQ(logs[0].size(), 2u);
    EXPECT_EQ(logs[0][0], "this thread t=8 now=8 ctx=4294967295 n=2");
    EXPECT_EQ(logs[0][1], "other thread t=8 now=8 ctx=7 n=3");
    EXPECT_EQ(logs[1], logs[0]);
}

TEST(RoceSimulatorImpl, IsTheExamplesSimulatorUnlessTheUserNamesOne)
{
    KeepGlobals keep;
    RoceCli::UseFastScheduler();
    StringValue chosen;
    GlobalValue::GetValueByName("SimulatorImplementationType", chosen);
    EXPECT_EQ(chosen.Get(), "ns3::RoceSimulatorImpl");
}
