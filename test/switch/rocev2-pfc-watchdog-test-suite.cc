/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The PFC watchdog of RoceSwitchPort under a PFC storm: a receiver NIC that
// holds XOFF on the lossless priority while two senders write to it through
// one switch.

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/enum.h"
#include "ns3/node-container.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-watchdog.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstring>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint8_t PRIO = 3; //!< the lossless priority

/**
 * \param v recorded times
 * \param i an index
 * \return v[i], or -1 ns if v has no such element (asserts go on after a failure)
 */
Time
At(const std::vector<Time>& v, std::size_t i)
{
    return i < v.size() ? v[i] : NanoSeconds(-1);
}

/// The storm scenario's settings.
struct StormConfig
{
    bool enabled{true};                                    //!< watchdog on the switch ports
    RocePfcWatchdog::Action action{RocePfcWatchdog::DROP}; //!< its action
    Time timeout{MilliSeconds(2)};                         //!< the watchdogs' Timeout
    Time interval{MicroSeconds(100)};                      //!< their Interval
    Time recovery{MilliSeconds(2)};                        //!< their RecoveryTime
    Time stormStart{MicroSeconds(50)};                     //!< receiver holds XOFF from
    Time stormEnd{Time::Max()};                            //!< and releases it at
    Time stop{MilliSeconds(7)};                            //!< end of the run
    uint64_t size{100000000};                              //!< bytes per sender
    bool viaConfig{false}; //!< configure the watchdogs through Config paths
};

/// What the storm scenario observed.
struct StormResult
{
    Time pauseRx{-1};                    //!< the switch's receiver port first paused
    std::vector<Time> triggers;          //!< watchdog triggers on that port
    std::vector<Time> stalls;            //!< the stall each trigger reported
    std::vector<Time> restores;          //!< its restores
    std::vector<uint8_t> triggerPrios;   //!< priorities of the triggers
    uint64_t wdDropTraces{0};            //!< Drop traces with reason pfc-watchdog
    uint64_t otherDropTraces{0};         //!< Drop traces with any other reason
    uint64_t flushedAtFirstTrigger{0};   //!< frames dropped by the first flush
    std::vector<Time> xonToSenders;      //!< XON frames the switch sent to the senders
    bool senderPausedMidRecovery{true};  //!< a sender was paused half-way through recovery 1
    uint64_t rxBytesAfterPause{0};       //!< RoCE frame bytes the receiver got 2 us after pauseRx
    uint64_t rxBytesInRecovery{0};       //!< ... during the first recovery
    Time firstRxAfterPause{-1};          //!< the first of them
    uint64_t queueBytesAtEnd{0};         //!< bytes queued towards the receiver at the end
    bool receiverPortPausedAtEnd{false}; //!< the switch's receiver port paused at the end
    uint32_t completed{0};               //!< messages completed successfully
    RocePfcWatchdog::Stats stats;        //!< the receiver port's watchdog counters
    RoceFabricStats fabric;              //!< fabric counters
};

/**
 * Two senders write to a receiver through one switch; the receiver's NIC
 * holds XOFF on priority 3 from stormStart to stormEnd.
 * \param c the settings
 * \return what happened
 */
StormResult
RunStorm(const StormConfig& c)
{
    StormResult r;
    NodeContainer sw(1);
    NodeContainer hosts(3);
    RoceSwitchHelper switches;
    switches.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("2MB")));
    switches.Install(sw);
    RoceHelper roce;
    NetDeviceContainer receiverLink = roce.Install(hosts.Get(0), sw.Get(0));
    NetDeviceContainer s1Link = roce.Install(hosts.Get(1), sw.Get(0));
    NetDeviceContainer s2Link = roce.Install(hosts.Get(2), sw.Get(0));
    RoceSwitchHelper::PopulateRoutes();
    RoceSwitchHelper::AssignStreams(1);
    Ptr<RoceNetDevice> receiver = DynamicCast<RoceNetDevice>(receiverLink.Get(0));
    Ptr<RoceSwitchPort> toReceiver = DynamicCast<RoceSwitchPort>(receiverLink.Get(1));
    std::vector<Ptr<RoceSwitchPort>> toSenders = {DynamicCast<RoceSwitchPort>(s1Link.Get(1)),
                                                  DynamicCast<RoceSwitchPort>(s2Link.Get(1))};
    Ptr<RoceNetDevice> sender1 = DynamicCast<RoceNetDevice>(s1Link.Get(0));
    Ptr<RoceSwitch> rs = sw.Get(0)->GetObject<RoceSwitch>();
    if (c.viaConfig)
    {
        // The port makes its watchdog when the path reaches it.
        const std::string path = "/NodeList/*/DeviceList/*/$ns3::RoceSwitchPort/PfcWatchdog/";
        Config::Set(path + "Enabled", BooleanValue(c.enabled));
        Config::Set(path + "Timeout", TimeValue(c.timeout));
        Config::Set(path + "Interval", TimeValue(c.interval));
        Config::Set(path + "RecoveryTime", TimeValue(c.recovery));
        Config::Set(path + "Action", EnumValue(c.action));
    }
    for (uint32_t i = 0; i < rs->GetNPorts() && !c.viaConfig; ++i)
    {
        Ptr<RocePfcWatchdog> wd = rs->GetPort(i)->GetPfcWatchdog();
        wd->SetAttribute("Enabled", BooleanValue(c.enabled));
        wd->SetAttribute("Timeout", TimeValue(c.timeout));
        wd->SetAttribute("Interval", TimeValue(c.interval));
        wd->SetAttribute("RecoveryTime", TimeValue(c.recovery));
        wd->SetAttribute("Action", EnumValue(c.action));
    }

    StormResult* res = &r;
    toReceiver->TraceConnectWithoutContext(
        "PfcRx",
        Callback<void, uint8_t, uint16_t>([res](uint8_t prio, uint16_t quanta) {
            if (prio == PRIO && quanta > 0 && res->pauseRx.IsNegative())
            {
                res->pauseRx = Simulator::Now();
            }
        }));
    Time recovery = c.recovery;
    toReceiver->TraceConnectWithoutContext(
        "PfcWatchdogTrigger",
        Callback<void, uint8_t, Time>([res, sender1, recovery](uint8_t prio, Time stall) {
            res->triggers.push_back(Simulator::Now());
            res->stalls.push_back(stall);
            res->triggerPrios.push_back(prio);
            if (res->triggers.size() == 1)
            {
                res->flushedAtFirstTrigger = res->wdDropTraces;
                // Half-way through the recovery: is a sender still paused?
                Simulator::Schedule(recovery / 2, [res, sender1]() {
                    res->senderPausedMidRecovery = sender1->IsPaused(PRIO);
                });
            }
        }));
    toReceiver->TraceConnectWithoutContext(
        "PfcWatchdogRestore",
        Callback<void, uint8_t>([res](uint8_t) { res->restores.push_back(Simulator::Now()); }));
    toReceiver->GetQueueDisc()->TraceConnectWithoutContext(
        "Drop",
        Callback<void, Ptr<const Packet>, uint8_t, const char*>(
            [res](Ptr<const Packet>, uint8_t, const char* reason) {
                if (std::strcmp(reason, RoceSwitchPort::DROP_PFC_WATCHDOG) == 0)
                {
                    ++res->wdDropTraces;
                }
                else
                {
                    ++res->otherDropTraces;
                }
            }));
    for (auto& port : toSenders)
    {
        port->TraceConnectWithoutContext(
            "PfcTx",
            Callback<void, uint8_t, uint16_t>([res](uint8_t prio, uint16_t quanta) {
                if (prio == PRIO && quanta == 0)
                {
                    res->xonToSenders.push_back(Simulator::Now());
                }
            }));
    }
    receiver->TraceConnectWithoutContext(
        "MacRx",
        Callback<void, Ptr<const Packet>>([res](Ptr<const Packet> p) {
            // Frames already on the wire at the pause land within a
            // propagation delay (1 us) and a frame time.
            if (res->pauseRx.IsNegative() || Simulator::Now() <= res->pauseRx + MicroSeconds(2))
            {
                return;
            }
            RoceFrame f = RoceFrame::Parse(*p);
            if (!f.isRoce)
            {
                return;
            }
            res->rxBytesAfterPause += p->GetSize();
            if (res->firstRxAfterPause.IsNegative())
            {
                res->firstRxAfterPause = Simulator::Now();
            }
            if (res->triggers.size() == 1 && res->restores.empty())
            {
                res->rxBytesInRecovery += p->GetSize();
            }
        }));

    for (uint32_t s = 1; s <= 2; ++s)
    {
        roce.CreateQp(RoceHelper::GetNic(hosts.Get(s)), receiver)
            .first->PostWrite(
                c.size,
                Callback<void, const RoceCompletion&>(
                    [&r](const RoceCompletion& done) { r.completed += done.success ? 1 : 0; }));
    }
    Simulator::Schedule(c.stormStart, &RocePfcNetDevice::SetXoff, receiver, PRIO, true);
    if (c.stormEnd < c.stop)
    {
        Simulator::Schedule(c.stormEnd, &RocePfcNetDevice::SetXoff, receiver, PRIO, false);
    }
    Simulator::Stop(c.stop);
    Simulator::Run();
    r.queueBytesAtEnd = toReceiver->GetQueueDisc()->GetQueueBytes(PRIO);
    r.receiverPortPausedAtEnd = toReceiver->IsPaused(PRIO);
    r.stats = toReceiver->GetPfcWatchdogStats();
    r.fabric = RoceFabricStats::Collect();
    Simulator::Destroy();
    return r;
}

} // namespace

/**
 * \ingroup rocev2
 * Drop action under a storm that persists: the watchdog fires one timeout
 * after the pause (within one check interval), flushes the queue and drops
 * its arrivals with reason pfc-watchdog, the switch resumes the senders as
 * its buffer drains, the queue is restored after the recovery time, and the
 * storm fires the watchdog again one timeout later.
 */
class WatchdogDropTestCase : public TestCase
{
  public:
    WatchdogDropTestCase()
        : TestCase("PFC storm, Drop: fires after the timeout, flushes, resumes the senders, "
                   "restores after the recovery time and fires again")
    {
    }

  private:
    void DoRun() override
    {
        StormConfig c;
        StormResult r = RunStorm(c);
        NS_TEST_ASSERT_MSG_EQ(r.pauseRx.IsPositive(), true, "the storm never reached the switch");
        NS_TEST_ASSERT_MSG_EQ(r.triggers.size(), 2, "two triggers by 7 ms");
        NS_TEST_ASSERT_MSG_EQ((r.triggerPrios == std::vector<uint8_t>{PRIO, PRIO}),
                              true,
                              "fired on the stormed priority");
        // First trigger: one timeout after the pause, within one interval.
        NS_TEST_ASSERT_MSG_GT_OR_EQ(At(r.triggers, 0), r.pauseRx + c.timeout, "fired early");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(At(r.triggers, 0),
                                    r.pauseRx + c.timeout + c.interval,
                                    "fired late");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(At(r.stalls, 0), c.timeout, "reported stall below the timeout");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(At(r.stalls, 0),
                                    At(r.triggers, 0) - r.pauseRx,
                                    "stall longer than the pause");
        // The flush dropped what the queue held, and arrivals were dropped too.
        NS_TEST_ASSERT_MSG_GT(r.flushedAtFirstTrigger, 0, "the flush dropped nothing");
        NS_TEST_ASSERT_MSG_GT(r.stats.droppedFrames[PRIO],
                              r.flushedAtFirstTrigger,
                              "no arrival dropped during recovery");
        NS_TEST_ASSERT_MSG_EQ(r.wdDropTraces,
                              r.stats.droppedFrames[PRIO],
                              "Drop traces with reason pfc-watchdog != watchdog count");
        NS_TEST_ASSERT_MSG_EQ(r.otherDropTraces, 0, "drops for another reason");
        // The switch's XOFF towards the senders is released by the flush.
        bool xonAfterTrigger = false;
        for (Time t : r.xonToSenders)
        {
            xonAfterTrigger = xonAfterTrigger ||
                              (t >= At(r.triggers, 0) && t <= At(r.triggers, 0) + MicroSeconds(10));
        }
        NS_TEST_ASSERT_MSG_EQ(xonAfterTrigger, true, "no XON to the senders at the flush");
        NS_TEST_ASSERT_MSG_EQ(r.senderPausedMidRecovery,
                              false,
                              "a sender is still paused during recovery");
        // Restore after exactly the recovery time; the storm fires it again.
        NS_TEST_ASSERT_MSG_EQ(At(r.restores, 0), At(r.triggers, 0) + c.recovery, "restore time");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(At(r.triggers, 1),
                                    At(r.restores, 0) + c.timeout,
                                    "refired early");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(At(r.triggers, 1),
                                    At(r.restores, 0) + c.timeout + c.interval,
                                    "refired late");
        NS_TEST_ASSERT_MSG_EQ(r.stats.triggers[PRIO], 2, "trigger counter");
        NS_TEST_ASSERT_MSG_EQ(r.stats.restores[PRIO], 1, "restore counter");
        // The stormed receiver got nothing after its pause.
        NS_TEST_ASSERT_MSG_EQ(r.rxBytesAfterPause, 0, "frames reached the stormed receiver");
    }
};

/**
 * \ingroup rocev2
 * Forward action, set through Config paths: the frames of the stalled queue
 * reach the stormed NIC at line rate during recovery, nothing is dropped,
 * and the queue honours the pause again once restored.
 */
class WatchdogForwardTestCase : public TestCase
{
  public:
    WatchdogForwardTestCase()
        : TestCase("PFC storm, Forward: the stalled queue's frames reach the stormed NIC")
    {
    }

  private:
    void DoRun() override
    {
        StormConfig c;
        c.action = RocePfcWatchdog::FORWARD;
        c.stop = MilliSeconds(5);
        c.viaConfig = true;
        StormResult r = RunStorm(c);
        NS_TEST_ASSERT_MSG_EQ(r.triggers.size(), 1, "one trigger by 5 ms");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(At(r.triggers, 0), r.pauseRx + c.timeout, "fired early");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(At(r.triggers, 0),
                                    r.pauseRx + c.timeout + c.interval,
                                    "fired late");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(r.firstRxAfterPause,
                                    At(r.triggers, 0),
                                    "frames reached the receiver before the watchdog fired");
        NS_TEST_ASSERT_MSG_EQ(r.stats.droppedFrames[PRIO], 0, "Forward dropped frames");
        NS_TEST_ASSERT_MSG_EQ(r.fabric.drops, 0, "drops in the fabric");
        // During the recovery the port sends at line rate: 100 Gb/s for 2 ms,
        // of which 1082 of every 1106 wire bytes are frame bytes.
        double expected = 100e9 / 8 * c.recovery.GetSeconds() * 1082.0 / 1106.0;
        NS_TEST_ASSERT_MSG_EQ_TOL(double(r.rxBytesInRecovery),
                                  expected,
                                  expected * 0.02,
                                  "the stalled queue did not forward at line rate");
        NS_TEST_ASSERT_MSG_EQ(r.restores.size(), 1, "restored once");
        NS_TEST_ASSERT_MSG_EQ(At(r.restores, 0), At(r.triggers, 0) + c.recovery, "restore time");
        NS_TEST_ASSERT_MSG_EQ(r.receiverPortPausedAtEnd, true, "the storm ended");
        NS_TEST_ASSERT_MSG_GT(r.queueBytesAtEnd, 0, "the queue did not stall again");
    }
};

/**
 * \ingroup rocev2
 * Without the watchdog the same storm blocks the queue for good, and a pause
 * shorter than the timeout never fires it (while a timeout shorter than the
 * pause does).
 */
class WatchdogQuietTestCase : public TestCase
{
  public:
    WatchdogQuietTestCase()
        : TestCase("disabled watchdog never fires; a pause shorter than the timeout never fires")
    {
    }

  private:
    void DoRun() override
    {
        StormConfig off;
        off.enabled = false;
        off.stop = MilliSeconds(5);
        StormResult r = RunStorm(off);
        NS_TEST_ASSERT_MSG_EQ(r.triggers.size(), 0, "a disabled watchdog fired");
        NS_TEST_ASSERT_MSG_EQ(r.stats.triggers[PRIO], 0, "a disabled watchdog counted");
        NS_TEST_ASSERT_MSG_EQ(r.receiverPortPausedAtEnd, true, "the storm ended");
        NS_TEST_ASSERT_MSG_GT(r.queueBytesAtEnd, 0, "the stormed queue drained");
        NS_TEST_ASSERT_MSG_EQ(r.rxBytesAfterPause, 0, "frames reached the stormed receiver");
        NS_TEST_ASSERT_MSG_EQ(r.fabric.drops, 0, "drops without a watchdog");

        // A 1 ms pause against a 2 ms timeout: never fires, every byte arrives.
        StormConfig shortPause;
        shortPause.stormEnd = shortPause.stormStart + MilliSeconds(1);
        shortPause.size = 2000000;
        shortPause.stop = MilliSeconds(10);
        r = RunStorm(shortPause);
        NS_TEST_ASSERT_MSG_EQ(r.pauseRx.IsPositive(), true, "the pause never reached the switch");
        NS_TEST_ASSERT_MSG_EQ(r.triggers.size(), 0, "a short pause fired the watchdog");
        NS_TEST_ASSERT_MSG_EQ(r.completed, 2, "the writes did not complete");
        NS_TEST_ASSERT_MSG_EQ(r.fabric.drops, 0, "drops after a short pause");
        NS_TEST_ASSERT_MSG_EQ(r.fabric.bufferedBytes, 0, "MMU counters did not return to zero");

        // The same pause against a 500 us timeout fires.
        shortPause.timeout = MicroSeconds(500);
        r = RunStorm(shortPause);
        NS_TEST_ASSERT_MSG_EQ(r.triggers.size(), 1, "a 1 ms pause did not fire a 500 us timeout");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(At(r.triggers, 0),
                                    r.pauseRx + shortPause.timeout,
                                    "fired early");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(At(r.triggers, 0),
                                    r.pauseRx + shortPause.timeout + shortPause.interval,
                                    "fired late");
    }
};

/**
 * \ingroup rocev2
 * The defaults operators run (Meta: 200 ms): the watchdog fires 200 ms after
 * the pause, within the 10 ms check interval, and restores 200 ms later.
 */
class WatchdogDefaultsTestCase : public TestCase
{
  public:
    WatchdogDefaultsTestCase()
        : TestCase("PFC storm with the default 200 ms timeout, 10 ms interval, 200 ms recovery")
    {
    }

  private:
    void DoRun() override
    {
        StormConfig c;
        c.timeout = MilliSeconds(200);
        c.interval = MilliSeconds(10);
        c.recovery = MilliSeconds(200);
        c.size = 1000000;
        c.stop = MilliSeconds(415);
        StormResult r = RunStorm(c);
        NS_TEST_ASSERT_MSG_EQ(r.triggers.size(), 1, "one trigger by 415 ms");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(At(r.triggers, 0), r.pauseRx + c.timeout, "fired early");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(At(r.triggers, 0),
                                    r.pauseRx + c.timeout + c.interval,
                                    "fired late");
        NS_TEST_ASSERT_MSG_EQ(r.restores.size(), 1, "restored once");
        NS_TEST_ASSERT_MSG_EQ(At(r.restores, 0), At(r.triggers, 0) + c.recovery, "restore time");
        NS_TEST_ASSERT_MSG_GT(r.stats.droppedFrames[PRIO], 0, "nothing dropped");
    }
};

/**
 * \ingroup rocev2
 * The PFC watchdog test suite.
 */
class RocePfcWatchdogTestSuite : public TestSuite
{
  public:
    RocePfcWatchdogTestSuite()
        : TestSuite("rocev2-pfc-watchdog", Type::UNIT)
    {
        AddTestCase(new WatchdogDropTestCase, RoceTestDuration::QUICK);
        AddTestCase(new WatchdogForwardTestCase, RoceTestDuration::QUICK);
        AddTestCase(new WatchdogQuietTestCase, RoceTestDuration::QUICK);
        AddTestCase(new WatchdogDefaultsTestCase, RoceTestDuration::EXTENSIVE);
    }
};

static RocePfcWatchdogTestSuite g_rocePfcWatchdogTestSuite; //!< static instance
