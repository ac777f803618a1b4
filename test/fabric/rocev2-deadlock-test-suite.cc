/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// PFC deadlock: a routing loop that closes a cyclic buffer dependency, the
// RoceDeadlockDetector that reports it, the PFC watchdog that breaks it, and
// a healthy fabric under PFC where the detector must stay silent.

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/node-container.h"
#include "ns3/roce-deadlock-detector.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-watchdog.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint8_t PRIO = 3; //!< the lossless priority

/// What a ring run observed.
struct RingResult
{
    std::vector<RoceQueueId> expectedCycle;  //!< the clockwise queues, from the first switch
    std::vector<RoceDeadlockReport> reports; //!< the detector's reports
    std::vector<RoceDeadlockReport> active;  //!< those still active at the end
    uint64_t checks{0};                      //!< detector checks run
    std::vector<bool> success;               //!< per flow: completed successfully
    std::vector<Time> fct;                   //!< per flow: completion time
    uint64_t deliveredAtHalf{0};             //!< payload delivered at half the run
    uint64_t deliveredAtEnd{0};              //!< payload delivered at the end
    uint64_t watchdogTriggers{0};            //!< watchdog triggers, all ports
    uint64_t watchdogDrops{0};               //!< watchdog drops, all ports
    RoceFabricStats stats;                   //!< fabric counters at the end
};

/**
 * Four switches in a ring, one host each; static routes send all traffic
 * clockwise and every host writes `size` bytes to the host two switches on.
 * \param watchdog PFC watchdog on every switch port (1 ms timeout, 100 us
 *        interval, 1 ms recovery)
 * \param size bytes per flow
 * \param stop end of the run
 * \param action the watchdog's action
 * \return what happened
 */
RingResult
RunRing(bool watchdog,
        uint64_t size,
        Time stop,
        RocePfcWatchdog::Action action = RocePfcWatchdog::DROP)
{
    const uint32_t n = 4;
    RingResult r;
    NodeContainer hosts(n);
    NodeContainer sws(n);
    RoceSwitchHelper switchHelper;
    switchHelper.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("300KB")));
    switchHelper.Install(sws);
    RoceHelper roce;
    roce.SetQpAttribute("RetransmitTimeout", TimeValue(MilliSeconds(1)));
    roce.SetQpAttribute("RetryCount", UintegerValue(1000));
    std::vector<Ptr<RoceNetDevice>> nics;
    std::vector<uint32_t> hostPort;
    for (uint32_t i = 0; i < n; ++i)
    {
        NetDeviceContainer d = roce.Install(hosts.Get(i), sws.Get(i));
        nics.push_back(DynamicCast<RoceNetDevice>(d.Get(0)));
        hostPort.push_back(DynamicCast<RoceSwitchPort>(d.Get(1))->GetPortIndex());
    }
    std::vector<uint32_t> clockwise(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        NetDeviceContainer d = roce.Install(sws.Get(i), sws.Get((i + 1) % n));
        clockwise[i] = DynamicCast<RoceSwitchPort>(d.Get(0))->GetPortIndex();
        r.expectedCycle.push_back({sws.Get(i)->GetId(), clockwise[i], PRIO});
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<RoceSwitch> sw = sws.Get(i)->GetObject<RoceSwitch>();
        for (uint32_t h = 0; h < n; ++h)
        {
            sw->AddRoute(nics[h]->GetIpv4Address(),
                         Ipv4Mask("255.255.255.255"),
                         {h == i ? hostPort[i] : clockwise[i]});
        }
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<RocePfcWatchdog> wd = sw->GetPort(p)->GetPfcWatchdog();
            wd->SetAttribute("Enabled", BooleanValue(watchdog));
            wd->SetAttribute("Timeout", TimeValue(MilliSeconds(1)));
            wd->SetAttribute("Interval", TimeValue(MicroSeconds(100)));
            wd->SetAttribute("RecoveryTime", TimeValue(MilliSeconds(1)));
            wd->SetAttribute("Action", EnumValue(action));
        }
    }
    RoceSwitchHelper::AssignStreams(1);

    Ptr<RoceDeadlockDetector> detector = CreateObject<RoceDeadlockDetector>();
    detector->SetAttribute("Interval", TimeValue(MicroSeconds(100)));
    r.success.assign(n, false);
    r.fct.assign(n, Time(0));
    std::vector<Ptr<RoceQueuePair>> receivers;
    for (uint32_t i = 0; i < n; ++i)
    {
        auto qps = roce.CreateQp(nics[i], nics[(i + 2) % n]);
        receivers.push_back(qps.second);
        RingResult* res = &r;
        qps.first->PostWrite(
            size,
            Callback<void, const RoceCompletion&>([res, i](const RoceCompletion& c) {
                res->success[i] = c.success;
                res->fct[i] = c.completed - c.posted;
            }));
    }
    auto delivered = [receivers]() {
        uint64_t sum = 0;
        for (const auto& qp : receivers)
        {
            sum += qp->GetStats().bytesDelivered;
        }
        return sum;
    };
    Simulator::Schedule(stop / 2, [&r, delivered]() { r.deliveredAtHalf = delivered(); });
    detector->Start();
    Simulator::Stop(stop);
    Simulator::Run();
    detector->Check();
    r.deliveredAtEnd = delivered();
    r.reports = detector->GetReports();
    r.active = detector->GetActiveReports();
    r.checks = detector->GetNChecks();
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<RoceSwitch> sw = sws.Get(i)->GetObject<RoceSwitch>();
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            RocePfcWatchdog::Stats s = sw->GetPort(p)->GetPfcWatchdogStats();
            r.watchdogTriggers += s.triggers[PRIO];
            r.watchdogDrops += s.droppedFrames[PRIO];
        }
    }
    r.stats = RoceFabricStats::Collect();
    Simulator::Destroy();
    return r;
}

} // namespace

/**
 * \ingroup rocev2
 * Without a watchdog the ring deadlocks: the detector reports exactly the
 * four clockwise queues, once, at its first check after the cycle closes;
 * delivery stops for good, bytes stay in the buffers and no flow completes.
 */
class RingDeadlockTestCase : public TestCase
{
  public:
    RingDeadlockTestCase()
        : TestCase("a routing loop in a 4-switch ring deadlocks; the detector reports the "
                   "4-queue cycle once")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t size = 1000000;
        RingResult r = RunRing(false, size, MilliSeconds(10));
        NS_TEST_ASSERT_MSG_EQ(r.reports.size(), 1, "one deadlock reported, once");
        if (r.reports.empty())
        {
            return;
        }
        const RoceDeadlockReport& d = r.reports.front();
        NS_TEST_ASSERT_MSG_EQ((d.cycle == r.expectedCycle), true, "not the clockwise cycle");
        // Hosts are nodes 0-3 and switches 4-7; switch 0's clockwise link is
        // its second port, the others' their third.
        NS_TEST_ASSERT_MSG_EQ(d.ToString().substr(d.ToString().find("deadlock:")),
                              "deadlock: sw4/p1/pri3 -> sw5/p2/pri3 -> sw6/p2/pri3 -> "
                              "sw7/p2/pri3 -> sw4/p1/pri3",
                              "printed form");
        // The cycle closes within tens of microseconds; the first check is at 100 us.
        NS_TEST_ASSERT_MSG_EQ(d.detected, MicroSeconds(100), "detection time");
        NS_TEST_ASSERT_MSG_EQ(d.IsActive(), true, "the deadlock ended by itself");
        NS_TEST_ASSERT_MSG_EQ(r.active.size(), 1, "not active at the end");
        // Checks at 0.1 .. 9.9 ms (the stop at 10 ms comes first), plus the last.
        NS_TEST_ASSERT_MSG_EQ(r.checks, 100, "not a check every 100 us");
        // Throughput zero: nothing delivered in the second half of the run.
        NS_TEST_ASSERT_MSG_GT(r.deliveredAtHalf, 0, "nothing delivered before the deadlock");
        NS_TEST_ASSERT_MSG_LT(r.deliveredAtHalf, 4 * size / 10, "the deadlock formed late");
        NS_TEST_ASSERT_MSG_EQ(r.deliveredAtEnd, r.deliveredAtHalf, "bytes moved in a deadlock");
        for (uint32_t i = 0; i < 4; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(r.success[i], false, "a flow completed in a deadlock");
        }
        NS_TEST_ASSERT_MSG_GT(r.stats.bufferedBytes, 0, "no bytes stuck in the switches");
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, 0, "a lossless deadlock dropped frames");
        NS_TEST_ASSERT_MSG_EQ(r.watchdogTriggers, 0, "a disabled watchdog fired");
    }
};

/**
 * \ingroup rocev2
 * The same ring with the PFC watchdog on every port: the watchdog fires one
 * timeout (within an interval) after the cycle closed, drops what the
 * stalled queue held, the cycle ends, the queue pairs resend what was
 * dropped, every flow completes and every buffer drains.
 */
class RingWatchdogTestCase : public TestCase
{
  public:
    RingWatchdogTestCase()
        : TestCase("the PFC watchdog breaks the ring's deadlock; every flow completes")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t size = 1000000;
        RingResult r = RunRing(true, size, MilliSeconds(20));
        NS_TEST_ASSERT_MSG_GT_OR_EQ(r.reports.size(), 1, "no deadlock reported");
        NS_TEST_ASSERT_MSG_EQ(r.active.size(), 0, "a deadlock persists with the watchdog on");
        if (r.reports.empty())
        {
            return;
        }
        const RoceDeadlockReport& d = r.reports.front();
        NS_TEST_ASSERT_MSG_EQ((d.cycle == r.expectedCycle), true, "not the clockwise cycle");
        NS_TEST_ASSERT_MSG_EQ(d.IsActive(), false, "the cycle never ended");
        // The pauses start within the first 10 us: the watchdog fires between
        // 1 ms and 1.11 ms, and the next check (every 100 us) sees the cycle gone.
        NS_TEST_ASSERT_MSG_GT(d.ended, MilliSeconds(1), "the cycle ended before the timeout");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(d.ended, MicroSeconds(1300), "the cycle ended late");
        NS_TEST_ASSERT_MSG_GT(r.watchdogTriggers, 0, "the watchdog never fired");
        NS_TEST_ASSERT_MSG_GT(r.watchdogDrops, 0, "the watchdog dropped nothing");
        for (uint32_t i = 0; i < 4; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(r.success[i], true, "flow " << i << " did not complete");
        }
        NS_TEST_ASSERT_MSG_EQ(r.deliveredAtEnd, 4 * size, "bytes missing");
        NS_TEST_ASSERT_MSG_GT(r.stats.retransmits, 0, "the dropped frames were never resent");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bufferedBytes, 0, "buffers did not drain");
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, r.watchdogDrops, "drops other than the watchdog's");
    }
};

/**
 * \ingroup rocev2
 * The ring with the Forward action: the stalled queue sends despite the
 * pause, which opens the cycle; while it does, the detector does not count
 * it (it is not waiting), so the deadlock is reported once and ends at the
 * first check after the trigger. Forwarding into a peer that paused the
 * queue overruns the peer's headroom, so some frames are lost there, and
 * the queue pairs resend them.
 */
class RingForwardTestCase : public TestCase
{
  public:
    RingForwardTestCase()
        : TestCase("the Forward watchdog breaks the ring's deadlock; reported once")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t size = 1000000;
        RingResult r = RunRing(true, size, MilliSeconds(20), RocePfcWatchdog::FORWARD);
        NS_TEST_ASSERT_MSG_EQ(r.reports.size(), 1, "the deadlock was reported more than once");
        NS_TEST_ASSERT_MSG_EQ(r.active.size(), 0, "a deadlock persists with the watchdog on");
        if (r.reports.empty())
        {
            return;
        }
        NS_TEST_ASSERT_MSG_EQ((r.reports.front().cycle == r.expectedCycle),
                              true,
                              "not the clockwise cycle");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.reports.front().ended,
                                    MicroSeconds(1300),
                                    "the cycle ended late");
        NS_TEST_ASSERT_MSG_EQ(r.watchdogDrops, 0, "Forward dropped frames");
        for (uint32_t i = 0; i < 4; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(r.success[i], true, "flow " << i << " did not complete");
        }
        NS_TEST_ASSERT_MSG_EQ(r.deliveredAtEnd, 4 * size, "bytes missing");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bufferedBytes, 0, "buffers did not drain");
    }
};

/**
 * \ingroup rocev2
 * A healthy two-tier fabric under a heavy incast: PFC pauses the spines'
 * downlinks and the leaf uplinks (the detector sees paused queues waiting on
 * each other), but the dependency has no cycle, so nothing is reported and
 * every flow completes without loss.
 */
class HealthyIncastTestCase : public TestCase
{
  public:
    HealthyIncastTestCase()
        : TestCase("no deadlock reported on a leaf-spine fabric under incast PFC")
    {
    }

  private:
    void DoRun() override
    {
        // Leaves 0 and 1, spines 0 and 1; 16 senders on leaf 0 write to one
        // receiver on leaf 1.
        const uint32_t senders = 16;
        const uint64_t size = 500000;
        NodeContainer leaves(2);
        NodeContainer spines(2);
        NodeContainer hosts(senders + 1);
        RoceSwitchHelper switchHelper;
        switchHelper.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("1MB")));
        switchHelper.Install(leaves);
        switchHelper.Install(spines);
        RoceHelper roce;
        for (uint32_t l = 0; l < 2; ++l)
        {
            for (uint32_t s = 0; s < 2; ++s)
            {
                roce.Install(leaves.Get(l), spines.Get(s));
            }
        }
        NetDeviceContainer receiver = roce.Install(hosts.Get(0), leaves.Get(1));
        for (uint32_t h = 1; h <= senders; ++h)
        {
            roce.Install(hosts.Get(h), leaves.Get(0));
        }
        RoceSwitchHelper::PopulateRoutes();
        RoceSwitchHelper::AssignStreams(1);
        uint32_t completed = 0;
        for (uint32_t h = 1; h <= senders; ++h)
        {
            roce.CreateQp(RoceHelper::GetNic(hosts.Get(h)), receiver.Get(0))
                .first->PostWrite(
                    size,
                    Callback<void, const RoceCompletion&>(
                        [&completed](const RoceCompletion& c) { completed += c.success ? 1 : 0; }));
        }
        Ptr<RoceDeadlockDetector> detector = CreateObject<RoceDeadlockDetector>();
        detector->SetAttribute("Interval", TimeValue(MicroSeconds(10)));
        detector->Start();
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        RoceFabricStats stats = RoceFabricStats::Collect();
        NS_TEST_ASSERT_MSG_EQ(completed, senders, "the incast did not complete");
        NS_TEST_ASSERT_MSG_EQ(stats.drops, 0, "a lossless incast dropped frames");
        NS_TEST_ASSERT_MSG_GT(stats.pfcPauseTx, 0, "the incast never paused");
        NS_TEST_ASSERT_MSG_GT(detector->GetNChecks(), 50, "the detector barely ran");
        // Paused switch queues that wait on each other, but no cycle.
        NS_TEST_ASSERT_MSG_GT_OR_EQ(detector->GetMaxPausedQueues(),
                                    3,
                                    "the spines' downlinks and a leaf uplink were never paused");
        NS_TEST_ASSERT_MSG_GT(detector->GetMaxEdges(), 0, "no wait-for edge between switches");
        NS_TEST_ASSERT_MSG_EQ(detector->GetReports().size(), 0, "a deadlock on a healthy fabric");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * The PFC deadlock test suite.
 */
class RoceDeadlockTestSuite : public TestSuite
{
  public:
    RoceDeadlockTestSuite()
        : TestSuite("rocev2-deadlock", Type::SYSTEM)
    {
        AddTestCase(new RingDeadlockTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RingWatchdogTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RingForwardTestCase, RoceTestDuration::QUICK);
        AddTestCase(new HealthyIncastTestCase, RoceTestDuration::QUICK);
    }
};

static RoceDeadlockTestSuite g_roceDeadlockTestSuite; //!< static instance
