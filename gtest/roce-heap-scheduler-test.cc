/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceHeapScheduler, the examples' event scheduler: it pops events in ns-3's
 * order (time step, then uid) whatever the insertions, ties and removals,
 * across its growth, and under the Simulator it runs, cancels and removes
 * events as ns-3's own schedulers do. The oracle is an ordered set of
 * (time, uid) pairs, not the heap's own code.
 */

#include "roce-gtest-error.h"

#include "ns3/event-impl.h"
#include "ns3/global-value.h"
#include "ns3/nstime.h"
#include "ns3/roce-command-line.h"
#include "ns3/roce-heap-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// An event that does nothing: the scheduler only stores its pointer.
class NoopEvent : public EventImpl
{
  protected:
    void Notify() override
    {
    }
};

/// Events of the tests, freed with the test.
class EventPool
{
  public:
    EventImpl* Make()
    {
        m_events.push_back(Create<NoopEvent>());
        return PeekPointer(m_events.back());
    }

  private:
    std::vector<Ptr<EventImpl>> m_events;
};

Scheduler::Event
MakeEntry(EventImpl* impl, uint64_t ts, uint32_t uid)
{
    Scheduler::Event ev;
    ev.impl = impl;
    ev.key.m_ts = ts;
    ev.key.m_uid = uid;
    ev.key.m_context = uid * 7 + 1; // carried along, not ordered by
    return ev;
}

/// Pop every event the oracle holds: each must be the oracle's least.
void
PopAllInOrder(RoceHeapScheduler& s, std::set<std::pair<uint64_t, uint32_t>>& oracle)
{
    while (!oracle.empty())
    {
        ASSERT_FALSE(s.IsEmpty());
        const Scheduler::Event ev = s.RemoveNext();
        ASSERT_EQ(ev.key.m_ts, oracle.begin()->first);
        ASSERT_EQ(ev.key.m_uid, oracle.begin()->second);
        oracle.erase(oracle.begin());
    }
}

} // namespace

TEST(RoceHeapScheduler, PopsInTimeThenUidOrderThroughGrowthTiesAndRemovals)
{
    // 3 rounds of bursts on one scheduler: up to 20,000 entries pending
    // (several doublings past the first 1,024 slots), times drawn from 50
    // values so that most pops break a tie by uid, and one in five
    // insertions later removed, some of them right at the top.
    Ptr<RoceHeapScheduler> s = CreateObject<RoceHeapScheduler>();
    EventPool pool;
    std::set<std::pair<uint64_t, uint32_t>> oracle;
    std::map<uint32_t, Scheduler::Event> removable; // by uid
    std::mt19937 rng(12345);
    uint32_t uid = 0;
    uint64_t now = 0;
    for (int round = 0; round < 3; ++round)
    {
        const int inserts = 20000 / (round + 1);
        for (int i = 0; i < inserts; ++i)
        {
            // ns-3 never schedules in the past: times start at the last pop.
            const Scheduler::Event ev = MakeEntry(pool.Make(), now + rng() % 50, uid++);
            s->Insert(ev);
            oracle.emplace(ev.key.m_ts, ev.key.m_uid);
            if (rng() % 5 == 0)
            {
                removable.emplace(ev.key.m_uid, ev);
            }
        }
        // Remove half of the chosen ones, the smallest (ts, uid) first: these
        // sit at the top and must be dropped before the next pop.
        std::vector<Scheduler::Event> chosen;
        for (const auto& [u, ev] : removable)
        {
            chosen.push_back(ev);
        }
        std::sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) {
            return a.key < b.key;
        });
        for (std::size_t i = 0; i < chosen.size() / 2; ++i)
        {
            s->Remove(chosen[i]);
            oracle.erase({chosen[i].key.m_ts, chosen[i].key.m_uid});
            removable.erase(chosen[i].key.m_uid);
        }
        // Pop all but a third of what is left.
        const std::size_t keep = oracle.size() / 3;
        while (oracle.size() > keep)
        {
            ASSERT_FALSE(s->IsEmpty());
            const auto expected = *oracle.begin();
            const Scheduler::Event peek = s->PeekNext();
            const Scheduler::Event ev = s->RemoveNext();
            ASSERT_EQ(peek.key.m_uid, ev.key.m_uid);
            ASSERT_EQ(ev.key.m_ts, expected.first);
            ASSERT_EQ(ev.key.m_uid, expected.second);
            ASSERT_EQ(ev.key.m_context, ev.key.m_uid * 7 + 1);
            oracle.erase(oracle.begin());
            now = ev.key.m_ts;
            removable.erase(ev.key.m_uid);
        }
    }
    // Remove every chosen event still pending, then pop the rest.
    for (const auto& [u, r] : removable)
    {
        s->Remove(r);
        oracle.erase({r.key.m_ts, r.key.m_uid});
    }
    PopAllInOrder(*s, oracle);
    EXPECT_TRUE(s->IsEmpty());
    EXPECT_EQ(s->GetHeld(), 0u);
    EXPECT_ROCE_ERROR(s->PeekNext(), "RoceHeapScheduler::PeekNext: no event is scheduled");
    EXPECT_ROCE_ERROR(s->RemoveNext(), "RoceHeapScheduler::RemoveNext|PeekNext: no event");
}

TEST(RoceHeapScheduler, RemovedEntriesNeverOutnumberTheLiveOnes)
{
    // Far-future timers removed one after another (a retransmission timer
    // removed at every completed message): the heap holds at most twice the
    // live events (and a few dozen removed ones before the first clean-up),
    // and pops stay in order.
    Ptr<RoceHeapScheduler> s = CreateObject<RoceHeapScheduler>();
    EventPool pool;
    std::set<std::pair<uint64_t, uint32_t>> oracle;
    std::vector<Scheduler::Event> timers;
    std::mt19937 rng(7);
    for (uint32_t uid = 0; uid < 3000; ++uid)
    {
        const Scheduler::Event ev = MakeEntry(pool.Make(), 1000 + rng() % 100000, uid);
        s->Insert(ev);
        oracle.emplace(ev.key.m_ts, ev.key.m_uid);
        if (uid % 3 != 0)
        {
            timers.push_back(ev);
        }
    }
    for (const auto& t : timers)
    {
        s->Remove(t);
        oracle.erase({t.key.m_ts, t.key.m_uid});
        EXPECT_LE(s->GetHeld(), std::max<std::size_t>(2 * oracle.size(), oracle.size() + 64));
    }
    EXPECT_EQ(oracle.size(), 1000u);
    PopAllInOrder(*s, oracle);
    EXPECT_TRUE(s->IsEmpty());
}

TEST(RoceHeapScheduler, RemovingTheOnlyEventLeavesItEmpty)
{
    Ptr<RoceHeapScheduler> s = CreateObject<RoceHeapScheduler>();
    EventPool pool;
    const Scheduler::Event ev = MakeEntry(pool.Make(), 10, 0);
    s->Insert(ev);
    EXPECT_FALSE(s->IsEmpty());
    s->Remove(ev);
    EXPECT_TRUE(s->IsEmpty());
    EXPECT_EQ(s->GetHeld(), 0u);
}

namespace
{
std::vector<int> g_ran; //!< what the simulator test's events ran, in order

void
Record(int what)
{
    g_ran.push_back(what);
}
} // namespace

TEST(RoceHeapScheduler, RunsRemovesAndCancelsUnderTheSimulator)
{
    // Under the Simulator: events of equal time run in scheduling order, a
    // removed event and a cancelled one never run, removal from inside an
    // event works, and Destroy frees what is still pending (the sanitizer
    // build checks the reference counts).
    Simulator::Destroy();
    ObjectFactory factory;
    factory.SetTypeId("ns3::RoceHeapScheduler");
    Simulator::SetScheduler(factory);
    g_ran.clear();
    Simulator::Schedule(NanoSeconds(5), &Record, 3);
    EventId removed = Simulator::Schedule(NanoSeconds(2), &Record, 99);
    Simulator::Schedule(NanoSeconds(2), &Record, 1);
    Simulator::Schedule(NanoSeconds(2), &Record, 2);
    EventId cancelled = Simulator::Schedule(NanoSeconds(4), &Record, 98);
    EventId removedLater = Simulator::Schedule(NanoSeconds(7), &Record, 97);
    Simulator::Schedule(NanoSeconds(1), [&]() {
        Simulator::Remove(removed);
        cancelled.Cancel();
    });
    Simulator::Schedule(NanoSeconds(6), [&]() { Simulator::Remove(removedLater); });
    Simulator::Schedule(NanoSeconds(6), &Record, 4);
    Simulator::Schedule(Seconds(1), &Record, 100); // pending at Destroy
    Simulator::Stop(NanoSeconds(10));
    Simulator::Run();
    EXPECT_EQ(g_ran, (std::vector<int>{1, 2, 3, 4}));
    EXPECT_TRUE(removed.IsExpired());
    EXPECT_TRUE(removedLater.IsExpired());
    Simulator::Destroy();
    ObjectFactory byDefault;
    byDefault.SetTypeId("ns3::MapScheduler");
    Simulator::SetScheduler(byDefault);
    Simulator::Destroy();
}

TEST(RoceHeapScheduler, IsTheExamplesSchedulerUnlessTheUserNamesOne)
{
    StringValue before;
    StringValue implBefore;
    GlobalValue::GetValueByName("SchedulerType", before);
    GlobalValue::GetValueByName("SimulatorImplementationType", implBefore);
    RoceCli::UseFastScheduler();
    StringValue chosen;
    GlobalValue::GetValueByName("SchedulerType", chosen);
    EXPECT_EQ(chosen.Get(), "ns3::RoceHeapScheduler");
    GlobalValue::Bind("SchedulerType", before);
    GlobalValue::Bind("SimulatorImplementationType", implBefore);
}
