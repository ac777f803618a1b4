/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup rocev2
 * Frames built from header templates and patched in place (NIC header
 * blocks, switch CE marks and INT stamps) keep ns-3's packet metadata
 * consistent: a 4:1 incast through one switch runs to completion with
 * Packet::EnableChecking() on, which aborts the program on the first header
 * or trailer removed under the wrong type.
 */

#include "../rocev2-test-child.h"

#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/queue-size.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <iostream>
#include <string>

using namespace ns3;

namespace
{

/**
 * \brief Run a 4:1 incast of 1 MB per sender through one switch with a small
 * buffer (PFC pauses, ECN marks), under the given congestion control.
 * \param cc congestion-control name ("dcqcn" marks CE, "hpcc" stamps INT)
 * \return an empty string if every check passed, else what failed
 */
std::string
RunCheckedIncast(const std::string& cc)
{
    const uint32_t senders = 4;
    const uint64_t size = 1000000;
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    roce.SetCongestionControl(cc);
    NodeContainer sw(1);
    NodeContainer hosts(senders + 1);
    RoceSwitchHelper switches;
    switches.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("1MB")));
    switches.SetEcnStepMarking(QueueSize("20KB"), DataRate("100Gbps"));
    switches.Install(sw);
    NetDeviceContainer nics;
    for (uint32_t h = 0; h <= senders; ++h)
    {
        nics.Add(roce.Install(hosts.Get(h), sw.Get(0)).Get(0));
    }
    RoceSwitchHelper::PopulateRoutes();
    RoceSwitchHelper::AssignStreams(1000);
    uint32_t done = 0;
    for (uint32_t s = 0; s < senders; ++s)
    {
        roce.CreateQp(nics.Get(s + 1), nics.Get(0))
            .first->PostWrite(
                size,
                Callback<void, const RoceCompletion&>([&done](const RoceCompletion&) { ++done; }));
    }
    Simulator::Run();
    RoceFabricStats stats = RoceFabricStats::Collect();
    Simulator::Destroy();
    std::string failed;
    if (done != senders)
    {
        failed += " completed=" + std::to_string(done);
    }
    if (stats.bytesDelivered != senders * size)
    {
        failed += " bytesDelivered=" + std::to_string(stats.bytesDelivered);
    }
    if (stats.drops != 0)
    {
        failed += " drops=" + std::to_string(stats.drops);
    }
    if (cc == "dcqcn" && stats.ecnMarked == 0)
    {
        failed += " no CE mark";
    }
    return failed;
}

/**
 * \ingroup rocev2
 * A fabric run with packet metadata checking on, in a child process (the
 * checking mode cannot be turned off again).
 */
class PacketCheckingTestCase : public TestCase
{
  public:
    /** \param cc congestion control of the run */
    explicit PacketCheckingTestCase(const std::string& cc)
        : TestCase("4:1 incast with Packet::EnableChecking(), cc " + cc),
          m_cc(cc)
    {
    }

  private:
    void DoRun() override
    {
#ifdef ROCEV2_TEST_CAN_FORK
        const std::string cc = m_cc;
        std::string err;
        bool failed = rocev2test::RunInChild(
            [cc]() {
                Packet::EnableChecking();
                std::string what = RunCheckedIncast(cc);
                if (!what.empty())
                {
                    std::cerr << what;
                    std::cerr.flush();
                    _exit(1);
                }
            },
            err);
        NS_TEST_ASSERT_MSG_EQ(failed, false, "checked run failed (cc " << m_cc << "):" << err);
#endif
    }

    std::string m_cc; //!< congestion control
};

/**
 * \ingroup rocev2
 * rocev2-packet-checking suite.
 */
class RocePacketCheckingTestSuite : public TestSuite
{
  public:
    RocePacketCheckingTestSuite()
        : TestSuite("rocev2-packet-checking", Type::UNIT)
    {
        AddTestCase(new PacketCheckingTestCase("dcqcn"), RoceTestDuration::QUICK);
        AddTestCase(new PacketCheckingTestCase("hpcc"), RoceTestDuration::QUICK);
    }
};

static RocePacketCheckingTestSuite g_packetCheckingTestSuite; //!< the suite

} // namespace
