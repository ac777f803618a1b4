/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Object lifetime: after Simulator::Destroy no NIC and no queue pair of the
 * scenario is alive (RoceNetDevice::GetLiveCount,
 * RoceQueuePair::GetLiveCount), so that a process that builds and runs many
 * scenarios (a notebook, a sweep in one process) does not grow.
 * - A scenario whose trace callbacks hold the objects they are connected to
 *   (a lambda capturing its NIC on the NIC's MacTx, its QP on the QP's
 *   MessageComplete): disposal drops trace callbacks, which breaks the cycle.
 * - An AI Zone with a collective: every NIC and QP goes.
 */

#include "../app/rocev2-collective-test-helpers.h"

#include "ns3/node-container.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

using namespace ns3;

/**
 * Two hosts on a switch, a 1 MB WRITE, and trace callbacks that capture the
 * objects they are connected to.
 */
class SelfReferencingTracesTestCase : public TestCase
{
  public:
    SelfReferencingTracesTestCase()
        : TestCase("Trace callbacks holding their own NIC or QP do not outlive Simulator::Destroy")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t nics = RoceNetDevice::GetLiveCount();
        const uint64_t qps = RoceQueuePair::GetLiveCount();
        uint64_t frames = 0;
        bool done = false;
        {
            NodeContainer sw(1);
            NodeContainer hosts(2);
            RoceSwitchHelper switches;
            switches.Install(sw);
            RoceHelper roce;
            Ptr<RoceNetDevice> a =
                DynamicCast<RoceNetDevice>(roce.Install(hosts.Get(0), sw.Get(0)).Get(0));
            Ptr<RoceNetDevice> b =
                DynamicCast<RoceNetDevice>(roce.Install(hosts.Get(1), sw.Get(0)).Get(0));
            RoceSwitchHelper::PopulateRoutes();
            NS_TEST_ASSERT_MSG_EQ(RoceNetDevice::GetLiveCount(), nics + 2, "two NICs made");
            a->TraceConnectWithoutContext(
                "MacTx",
                Callback<void, Ptr<const Packet>>([a, &frames](Ptr<const Packet>) { ++frames; }));
            auto qp = roce.CreateQp(a, b);
            Ptr<RoceQueuePair> sender = qp.first;
            sender->TraceConnectWithoutContext(
                "MessageComplete",
                Callback<void, const RoceCompletion&>(
                    [sender, &done](const RoceCompletion&) { done = true; }));
            sender->PostWrite(1000000);
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(done, true, "the WRITE completed");
            NS_TEST_EXPECT_MSG_GT(frames, 200, "MacTx fired");
            NS_TEST_EXPECT_MSG_EQ(RoceQueuePair::GetLiveCount(), qps + 2, "two QPs made");
            Simulator::Destroy();
        }
        NS_TEST_EXPECT_MSG_EQ(RoceNetDevice::GetLiveCount(), nics, "no NIC left alive");
        NS_TEST_EXPECT_MSG_EQ(RoceQueuePair::GetLiveCount(), qps, "no QP left alive");
    }
};

/** A 32-GPU AI Zone with an AllToAll over 2 QPs per connection, then Destroy. */
class AiZoneLifetimeTestCase : public TestCase
{
  public:
    AiZoneLifetimeTestCase()
        : TestCase("An AI Zone's NICs and a collective's QPs are all freed by Simulator::Destroy")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t nics = RoceNetDevice::GetLiveCount();
        const uint64_t qps = RoceQueuePair::GetLiveCount();
        {
            RoceAiZone z = rocev2test::SmallZone(4, 8);
            RoceCollectiveHelper h;
            h.SetCommunicatorAttribute("QpsPerConnection", UintegerValue(2));
            h.SetAppAttribute("Operation", StringValue("alltoall"));
            Ptr<RoceCommunicator> comm = h.CreateCommunicator(z, rocev2test::AllGpus(z));
            h.Install(comm, {1 << 20});
            Simulator::Run();
            NS_TEST_EXPECT_MSG_GT(RoceQueuePair::GetLiveCount(), qps, "QPs were made");
            NS_TEST_EXPECT_MSG_EQ(RoceNetDevice::GetLiveCount(), nics + 32, "32 NICs");
            Simulator::Destroy();
        }
        NS_TEST_EXPECT_MSG_EQ(RoceNetDevice::GetLiveCount(), nics, "no NIC left alive");
        NS_TEST_EXPECT_MSG_EQ(RoceQueuePair::GetLiveCount(), qps, "no QP left alive");
    }
};

/** The object-lifetime suite. */
class RoceLifetimeTestSuite : public TestSuite
{
  public:
    RoceLifetimeTestSuite()
        : TestSuite("rocev2-lifetime", Type::UNIT)
    {
        AddTestCase(new SelfReferencingTracesTestCase, RoceTestDuration::QUICK);
        AddTestCase(new AiZoneLifetimeTestCase, RoceTestDuration::QUICK);
    }
};

static RoceLifetimeTestSuite g_lifetimeTestSuite;
