/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Faults meeting the mechanisms that contain them: the PFC watchdog against a
// storm (RoceFaultHelper::PfcStorm), and pinned TE paths against a failed
// link.

#include "rocev2-fault-test-helpers.h"

#include "ns3/enum.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-watchdog.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-te-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <iostream>

using namespace ns3;
using namespace rocev2test;

/**
 * \ingroup rocev2
 * A PFC storm from one receiver, contained by the switch's watchdog.
 *
 * A sender writes to the storming host A and to a victim host B through one
 * switch, both on the lossless priority. The storm fills the switch queue to
 * A, the sender's ingress crosses XOFF, and the pause spreads to the sender:
 * its write to B stops too. Without the watchdog B's write waits for the end
 * of the storm; with it (timeout 1 ms) the queue to A is flushed, the pause on
 * the sender is lifted and B's write completes within the timeout, one check
 * interval and its own transfer time. A's write completes once the storm is
 * over, its dropped frames resent.
 */
class FaultStormWatchdogTestCase : public TestCase
{
  public:
    FaultStormWatchdogTestCase()
        : TestCase("PFC storm contained by the watchdog: the victim flow completes within the "
                   "timeout, not after the storm")
    {
    }

  private:
    static constexpr uint64_t SIZE = 4000000;

    /// What one run saw.
    struct Run
    {
        Done toStormer;           //!< the write to the storming host
        Done toVictim;            //!< the write to the victim
        uint64_t triggers{0};     //!< watchdog triggers
        uint64_t delivered{0};    //!< bytes both receivers accepted
        uint64_t senderPauses{0}; //!< pauses the sender received
    };

    Run RunOnce(bool watchdog, Time storm, Time timeout, Time interval)
    {
        Run r;
        LeafSpine net(1, 0, 3, MilliSeconds(1));
        Ptr<RocePfcNetDevice> portToA =
            DynamicCast<RoceChannel>(net.nics[1]->GetChannel())->GetPeer(PeekPointer(net.Nic(1)));
        Ptr<RoceSwitchPort> port = DynamicCast<RoceSwitchPort>(portToA);
        if (watchdog)
        {
            Ptr<RocePfcWatchdog> wd = port->GetPfcWatchdog();
            wd->SetAttribute("Enabled", BooleanValue(true));
            wd->SetAttribute("Timeout", TimeValue(timeout));
            wd->SetAttribute("Interval", TimeValue(interval));
            wd->SetAttribute("RecoveryTime", TimeValue(timeout));
        }
        RoceFaultHelper faults;
        faults.PfcStorm(MicroSeconds(10), net.Nic(1), 3, storm);
        auto [qa, qaRx] = net.roce.CreateQp(net.nics[0], net.nics[1]);
        auto [qb, qbRx] = net.roce.CreateQp(net.nics[0], net.nics[2]);
        qa->PostWrite(SIZE, MakeBoundCallback(&OnComplete, &r.toStormer));
        qb->PostWrite(SIZE, MakeBoundCallback(&OnComplete, &r.toVictim));
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        r.triggers = watchdog ? port->GetPfcWatchdogStats().triggers[3] : 0;
        r.delivered = qaRx->GetStats().bytesDelivered + qbRx->GetStats().bytesDelivered;
        r.senderPauses = net.Nic(0)->GetPfcStats().pauseRx[3];
        Simulator::Destroy();
        return r;
    }

    void DoRun() override
    {
        const Time storm = MilliSeconds(10);
        const Time timeout = MilliSeconds(1);
        const Time interval = MicroSeconds(100);
        // Two 4 MB writes share the sender's 100 Gb/s link.
        const Time transfer = MicroSeconds(2 * 350);

        Run off = RunOnce(false, storm, timeout, interval);
        NS_TEST_ASSERT_MSG_GT(off.senderPauses, 0, "the storm spread to the sender");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(off.toVictim.fct,
                                    storm,
                                    "without the watchdog the victim waits out the storm");
        NS_TEST_ASSERT_MSG_EQ(off.delivered, 2 * SIZE, "every byte after the storm");

        Run on = RunOnce(true, storm, timeout, interval);
        NS_TEST_ASSERT_MSG_GT(on.triggers, 0, "the watchdog fired");
        NS_TEST_ASSERT_MSG_EQ(on.toVictim.success, true, "the victim's write completed");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(on.toVictim.fct,
                                    timeout + interval + transfer + MicroSeconds(100),
                                    "with the watchdog the victim waits at most the timeout");
        NS_TEST_ASSERT_MSG_EQ(on.toStormer.success, true, "the stormed host's write completed");
        NS_TEST_ASSERT_MSG_GT(on.toStormer.fct, storm, "after the storm");
        NS_TEST_ASSERT_MSG_EQ(on.delivered, 2 * SIZE, "every byte exactly once");
        std::cout << "storm 10 ms: victim FCT " << off.toVictim.fct.As(Time::US)
                  << " without the watchdog, " << on.toVictim.fct.As(Time::US)
                  << " with it (timeout 1 ms, " << on.triggers << " triggers)" << std::endl;
    }
};

/**
 * \ingroup rocev2
 * A flow pinned by RoceTeHelper whose pinned uplink fails: the pin is
 * bypassed while its port is down, the flow follows the recomputed routes,
 * and every byte arrives once.
 */
class FaultPinnedFailoverTestCase : public TestCase
{
  public:
    FaultPinnedFailoverTestCase()
        : TestCase("Pinned path down: the pin is bypassed, the flow completes over the routes")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t size = 2000000;
        LeafSpine net(2, 2, 1, MicroSeconds(300));
        auto [qa, qb] = net.roce.CreateQp(net.nics[0], net.nics[1]);
        RoceTeHelper te;
        te.AddFlow(qa, 1.0);
        te.Compute();
        te.Install();
        Ptr<RoceSwitch> leaf0 = net.leaves.Get(0)->GetObject<RoceSwitch>();
        NS_TEST_ASSERT_MSG_GT(leaf0->GetNPinnedRoutes(), 0, "the flow is pinned at leaf 0");
        Done done;
        qa->PostWrite(size, MakeBoundCallback(&OnComplete, &done));
        // Fail leaf 0's uplink that carries the pin, 50 us in.
        int32_t pinnedUplink = -1;
        Simulator::Schedule(MicroSeconds(40), [&]() {
            for (uint32_t s = 0; s < 2; ++s)
            {
                if (net.upPort[0][s]->GetTxBytes() > 0)
                {
                    pinnedUplink = static_cast<int32_t>(s);
                }
            }
        });
        RoceFaultHelper faults;
        faults.SetDetectionDelay(MicroSeconds(200));
        Simulator::Schedule(MicroSeconds(50), [&]() {
            if (pinnedUplink >= 0)
            {
                faults.LinkDown(Simulator::Now(), net.up[0][pinnedUplink]);
            }
        });
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT_OR_EQ(pinnedUplink, 0, "the pinned flow used one uplink");
        NS_TEST_ASSERT_MSG_EQ(done.success, true, "the pinned flow completed");
        NS_TEST_ASSERT_MSG_EQ(qb->GetStats().bytesDelivered, size, "every byte once");
        uint32_t other = 1 - static_cast<uint32_t>(pinnedUplink);
        NS_TEST_ASSERT_MSG_GT(net.upPort[0][other]->GetTxBytes(),
                              0,
                              "the rest went over the other uplink");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * Faults against the mechanisms that contain them.
 */
class Rocev2FaultRecoveryTestSuite : public TestSuite
{
  public:
    Rocev2FaultRecoveryTestSuite()
        : TestSuite("rocev2-fault-recovery", Type::UNIT)
    {
        AddTestCase(new FaultStormWatchdogTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FaultPinnedFailoverTestCase, RoceTestDuration::QUICK);
    }
};

/// Registers the suite.
static Rocev2FaultRecoveryTestSuite g_rocev2FaultRecoveryTestSuite;
