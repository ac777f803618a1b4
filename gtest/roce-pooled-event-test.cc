/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RocePooledEvent and RoceEventFreeList: events whose memory is reused
 * last-freed-first. Blocks held at once are distinct and aligned, the block
 * freed last is the next one handed out (outside AddressSanitizer, which
 * gets fresh blocks so that a use after free is still reported), and under
 * the Simulator such events run, are cancelled and are freed by ns-3's
 * reference counts.
 */

#include "ns3/nstime.h"
#include "ns3/roce-pooled-event.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

int g_alive = 0;        //!< test events constructed and not destroyed
std::vector<int> g_ran; //!< what the test events ran, in order

/// A pooled event that records its value when it runs.
class RecordEvent final : public RocePooledEvent<RecordEvent>
{
  public:
    explicit RecordEvent(int value)
        : m_value(value)
    {
        ++g_alive;
    }

    ~RecordEvent() override
    {
        --g_alive;
    }

  protected:
    void Notify() override
    {
        g_ran.push_back(m_value);
    }

  private:
    int m_value;
    [[maybe_unused]] char m_pad[40]; //!< a size that is not a multiple of 16 in all
};

} // namespace

TEST(RoceEventFreeList, HandsOutDistinctAlignedBlocksAndReusesTheLastFreed)
{
    RoceEventFreeList list(40); // rounded up to 48
    std::set<void*> held;
    std::vector<void*> order;
    // Three slabs' worth: every block held at once is distinct and aligned
    // to max_align_t, and blocks of one slab do not overlap (48 bytes apart
    // at least).
    for (int i = 0; i < 200; ++i)
    {
        void* b = list.Take();
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % alignof(std::max_align_t), 0u);
        EXPECT_TRUE(held.insert(b).second) << "block " << i << " handed out twice";
        order.push_back(b);
    }
    for (auto it = held.begin(); std::next(it) != held.end(); ++it)
    {
        const auto gap = reinterpret_cast<std::uintptr_t>(*std::next(it)) -
                         reinterpret_cast<std::uintptr_t>(*it);
        EXPECT_GE(gap, 48u);
    }
    list.Give(order[17]);
    list.Give(order[3]);
#ifndef ROCE_ASAN
    EXPECT_EQ(list.Take(), order[3]);
    EXPECT_EQ(list.Take(), order[17]);
#else
    // Fresh blocks: a freed one is never handed out again while ASan
    // watches it.
    void* a = list.Take();
    void* b = list.Take();
    list.Give(a);
    list.Give(b);
    order.erase(order.begin() + 17);
    order.erase(order.begin() + 3);
#endif
    for (void* b : order)
    {
        list.Give(b);
    }
}

TEST(RocePooledEvent, RunsIsCancelledAndIsFreedUnderTheSimulator)
{
    Simulator::Destroy();
    g_ran.clear();
    g_alive = 0;
    // Through both of ns-3's ownerships: a raw event the simulator owns
    // (ScheduleWithContext) and one held by an EventId (Schedule; its
    // Ptr<EventImpl> argument takes no reference of its own, since
    // Simulator::Schedule adds the simulator's with GetPointer).
    Simulator::ScheduleWithContext(0, NanoSeconds(2), new RecordEvent(2));
    EventId first = Simulator::Schedule(NanoSeconds(1), Ptr<EventImpl>(new RecordEvent(1), false));
    EventId cancelled =
        Simulator::Schedule(NanoSeconds(3), Ptr<EventImpl>(new RecordEvent(99), false));
    EventId pending = Simulator::Schedule(Seconds(1), Ptr<EventImpl>(new RecordEvent(98), false));
    cancelled.Cancel();
    EXPECT_EQ(g_alive, 4);
    Simulator::Stop(NanoSeconds(10));
    Simulator::Run();
    EXPECT_EQ(g_ran, (std::vector<int>{1, 2}));
    EXPECT_TRUE(first.IsExpired());
    // Alive: the ones whose EventId still holds them (first, cancelled,
    // pending); the one the simulator owned alone is gone.
    EXPECT_EQ(g_alive, 3);
    first = EventId();
    cancelled = EventId();
    EXPECT_EQ(g_alive, 1);
    Simulator::Destroy();
    pending = EventId();
    EXPECT_EQ(g_alive, 0);
    // The memory comes back: a new event takes the block freed last.
    void* last = nullptr;
    {
        Ptr<EventImpl> e(new RecordEvent(5), false);
        last = PeekPointer(e);
    }
    Ptr<EventImpl> again(new RecordEvent(6), false);
#ifndef ROCE_ASAN
    EXPECT_EQ(PeekPointer(again), last);
#else
    EXPECT_NE(PeekPointer(again), nullptr);
    (void)last;
#endif
}

namespace
{
/// An object whose member functions the pooled member events call.
struct Target
{
    std::vector<std::pair<int, uint64_t>> calls; //!< (a, b) per call

    void Call(int a, uint64_t b)
    {
        calls.emplace_back(a, b);
    }
};
} // namespace

TEST(RocePooledEvent, MemberEventsRunWithTheirArgumentsAndRoceCancelStopsThem)
{
    // RoceSchedule and RoceScheduleWithContext call the member function with
    // the arguments given at scheduling time; RoceCancel stops a pending one
    // as EventId::Cancel does, and leaves a default or finished EventId
    // alone.
    Simulator::Destroy();
    Target t;
    int a = 1;
    EventId first = RoceSchedule<&Target::Call>(NanoSeconds(1), &t, a, uint64_t(10));
    a = 7; // the event keeps the value it was given
    EventId stopped = RoceSchedule<&Target::Call>(NanoSeconds(2), &t, 2, uint64_t(20));
    RoceScheduleWithContext<&Target::Call>(3, NanoSeconds(3), &t, 3, uint64_t(30));
    RoceCancel(stopped);
    RoceCancel(EventId());
    EXPECT_TRUE(stopped.IsExpired());
    EXPECT_FALSE(first.IsExpired());
    Simulator::Run();
    EXPECT_EQ(t.calls, (std::vector<std::pair<int, uint64_t>>{{1, 10}, {3, 30}}));
    RoceCancel(first);
    EXPECT_TRUE(first.IsExpired());
    Simulator::Destroy();
}
