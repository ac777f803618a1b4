/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// End-of-run invariants (RoceInvariants): a clean run passes; a counter the
// MMU leaks, a lossless drop and a drop no fault explains are each reported
// with where they happened; a queue pair that gave up lists its failed
// messages while the drops its link failure caused stay explained.

#include "rocev2-fault-test-helpers.h"

#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-invariants.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-shared-buffer-mmu.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

using namespace ns3;
using namespace rocev2test;

namespace
{

/// True if one of the report's violations contains every piece of text.
bool
HasViolation(const RoceInvariantReport& r, const std::vector<std::string>& pieces)
{
    for (const std::string& v : r.violations)
    {
        bool all = true;
        for (const std::string& p : pieces)
        {
            all = all && v.find(p) != std::string::npos;
        }
        if (all)
        {
            return true;
        }
    }
    return false;
}

/// Three hosts write 2 MB each to a fourth across a 2x2 leaf-spine.
void
RunIncast(LeafSpine& net, std::vector<Done>& done)
{
    done.resize(3);
    for (uint32_t s = 1; s <= 3; ++s)
    {
        auto qps = net.roce.CreateQp(net.nics[s], net.nics[0]);
        qps.first->PostWrite(2000000, MakeBoundCallback(&OnComplete, &done[s - 1]));
    }
    Simulator::Stop(Seconds(1));
    Simulator::Run();
}

class InvariantsCleanTestCase : public TestCase
{
  public:
    InvariantsCleanTestCase()
        : TestCase("A finished incast: every message completed, every MMU counter zero, no drop")
    {
    }

  private:
    void DoRun() override
    {
        LeafSpine net(2, 2, 2, MicroSeconds(250));
        std::vector<Done> done;
        RunIncast(net, done);
        RoceInvariantReport r = RoceInvariants::Check(false);
        NS_TEST_ASSERT_MSG_EQ(r.Ok(), true, (r.violations.empty() ? "" : r.violations[0]));
        NS_TEST_ASSERT_MSG_EQ(r.drained, true, "drained");
        NS_TEST_ASSERT_MSG_EQ(r.messagesPosted, 3, "posted");
        NS_TEST_ASSERT_MSG_EQ(r.messagesCompleted, 3, "completed");
        NS_TEST_ASSERT_MSG_EQ(r.messagesFailed + r.messagesPending, 0, "failed or pending");
        NS_TEST_ASSERT_MSG_EQ(r.faultDrops + r.lossyDrops + r.losslessViolations, 0, "drops");
        NS_TEST_ASSERT_MSG_EQ(r.bufferLeftoverBytes, 0, "leftover");
        Simulator::Destroy();
    }
};

class InvariantsLeakTestCase : public TestCase
{
  public:
    InvariantsLeakTestCase()
        : TestCase("A byte count the MMU never releases is reported with its switch, port and "
                   "priority group")
    {
    }

  private:
    void DoRun() override
    {
        LeafSpine net(2, 2, 2, MicroSeconds(250));
        std::vector<Done> done;
        RunIncast(net, done);
        Ptr<Node> leaf = net.leaves.Get(1);
        Ptr<RoceSharedBufferMmu> mmu = leaf->GetObject<RoceSwitch>()->GetMmu();
        // A packet admitted and never queued nor released: an accounting leak.
        NS_TEST_ASSERT_MSG_EQ(mmu->Admit(2, 3, 1500).admitted, true, "admitted");
        RoceInvariantReport r = RoceInvariants::Check(false);
        NS_TEST_ASSERT_MSG_EQ(r.Ok(), false, "the leak went unnoticed");
        const std::string sw = "switch node " + std::to_string(leaf->GetId());
        NS_TEST_ASSERT_MSG_EQ(HasViolation(r, {sw + " port 2 PG 3", "MMU counts 1500 B"}),
                              true,
                              "no violation names port 2 PG 3");
        NS_TEST_ASSERT_MSG_EQ(
            HasViolation(r, {sw + ": the MMU counts 1500 B", "egress queues hold 0 B"}),
            true,
            "no violation compares the MMU with the queues");
        NS_TEST_ASSERT_MSG_EQ(r.bufferLeftoverBytes, 1500, "leftover bytes");
        mmu->Release(2, 3, 1500);
        NS_TEST_ASSERT_MSG_EQ(RoceInvariants::Check(false).Ok(), true, "released: clean again");
        Simulator::Destroy();
    }
};

class InvariantsDropTestCase : public TestCase
{
  public:
    InvariantsDropTestCase()
        : TestCase("A lossless drop is a violation; a PFC watchdog drop is a fault's; a lossy "
                   "drop is allowed")
    {
    }

  private:
    void DoRun() override
    {
        LeafSpine net(2, 2, 2, MicroSeconds(250));
        std::vector<Done> done;
        RunIncast(net, done);
        Ptr<Node> leaf = net.leaves.Get(0);
        Ptr<RoceEgressQueueDisc> q = leaf->GetObject<RoceSwitch>()->GetPort(1)->GetQueueDisc();
        RoceFramePtr p = RoceWireFrame::FromPacket(Create<Packet>(1000));
        q->DropArrival(*p, 3, RoceSwitchPort::DROP_PFC_WATCHDOG);
        q->DropArrival(*p, 0, RoceSharedBufferMmu::DROP_THRESHOLD);
        RoceInvariantReport r = RoceInvariants::Check(false);
        NS_TEST_ASSERT_MSG_EQ(r.Ok(), true, "watchdog and lossy drops are allowed");
        NS_TEST_ASSERT_MSG_EQ(r.faultDrops, 1, "the watchdog drop");
        NS_TEST_ASSERT_MSG_EQ(r.lossyDrops, 1, "the lossy drop");
        q->DropArrival(*p, 3, RoceSharedBufferMmu::DROP_HEADROOM);
        r = RoceInvariants::Check(true);
        NS_TEST_ASSERT_MSG_EQ(r.Ok(), false, "a headroom overflow went unnoticed");
        NS_TEST_ASSERT_MSG_EQ(r.losslessViolations, 1, "one lossless drop");
        NS_TEST_ASSERT_MSG_EQ(
            HasViolation(
                r,
                {"switch node " + std::to_string(leaf->GetId()) + " port 1 egress queue",
                 "1 frame(s) dropped, reason " + std::string(RoceSharedBufferMmu::DROP_HEADROOM)}),
            true,
            "the violation names the queue and the reason");
        Simulator::Destroy();
    }
};

class InvariantsFailureTestCase : public TestCase
{
  public:
    InvariantsFailureTestCase()
        : TestCase("Every uplink of a leaf down for good: the message fails and is listed; its "
                   "no-route drops are a fault's only when faults were injected")
    {
    }

  private:
    void DoRun() override
    {
        LeafSpine net(2, 2, 1, MicroSeconds(50));
        RoceFaultHelper faults;
        faults.SetDetectionDelay(MicroSeconds(10));
        faults.LinkDown(MicroSeconds(5), net.up[0][0]);
        faults.LinkDown(MicroSeconds(5), net.up[0][1]);
        Done done;
        auto qps = net.roce.CreateQp(net.nics[0], net.nics[1]);
        qps.first->PostWrite(1000000, MakeBoundCallback(&OnComplete, &done));
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(done.success, false, "the message cannot arrive");
        RoceInvariantReport r = RoceInvariants::Check(true);
        NS_TEST_ASSERT_MSG_EQ(r.Ok(), true, (r.violations.empty() ? "" : r.violations[0]));
        NS_TEST_ASSERT_MSG_EQ(r.messagesFailed, 1, "one failed message");
        NS_TEST_ASSERT_MSG_EQ(r.messagesPending, 0, "nothing pending");
        NS_TEST_ASSERT_MSG_EQ(r.failures.size(), 1, "one failure line");
        NS_TEST_ASSERT_MSG_NE(r.failures[0].find("retries exhausted"),
                              std::string::npos,
                              "the reason");
        NS_TEST_ASSERT_MSG_GT(r.faultDrops, 0, "link-down and no-route drops");
        RoceInvariantReport strict = RoceInvariants::Check(false);
        NS_TEST_ASSERT_MSG_EQ(HasViolation(strict, {"reason no-route"}),
                              true,
                              "no-route drops without a fault must be reported");
        Simulator::Destroy();
    }
};

class Rocev2InvariantsTestSuite : public TestSuite
{
  public:
    Rocev2InvariantsTestSuite()
        : TestSuite("rocev2-invariants", Type::UNIT)
    {
        AddTestCase(new InvariantsCleanTestCase, RoceTestDuration::QUICK);
        AddTestCase(new InvariantsLeakTestCase, RoceTestDuration::QUICK);
        AddTestCase(new InvariantsDropTestCase, RoceTestDuration::QUICK);
        AddTestCase(new InvariantsFailureTestCase, RoceTestDuration::QUICK);
    }
};

Rocev2InvariantsTestSuite g_rocev2InvariantsTestSuite;

} // namespace
