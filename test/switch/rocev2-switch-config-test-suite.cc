/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Config paths on the switch side: RoceSwitch/PortList/*/EgressQueueDisc,
// DeviceList/*/$ns3::RoceSwitchPort/EgressQueueDisc and RoceSwitch/Mmu reach every
// switch's objects with wildcards, for Config::Connect (trace sources) and Config::Set
// (attributes).

#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/node-container.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <map>
#include <set>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

constexpr uint32_t PAYLOAD_MTU = 1000;   //!< RoCE payload per packet
constexpr uint64_t MESSAGE = 100000;     //!< bytes h0 writes to h2
constexpr uint32_t HOSTS_PER_SWITCH = 2; //!< hosts on each of the two switches

/**
 * Two switches joined by one link, two hosts on each:
 *
 *   h0, h1 -- sw0 ==== sw1 -- h2, h3
 *
 * Links are made in this order, so the port indices are known: sw0-sw1 is
 * port 0 on both switches; h0 and h1 are ports 1 and 2 of sw0, h2 and h3
 * ports 1 and 2 of sw1. Node ids: sw0 = 0, sw1 = 1, hosts 2..5.
 */
struct TwoSwitchFabric
{
    NodeContainer switches{2};                 //!< sw0, sw1
    NodeContainer hosts{2 * HOSTS_PER_SWITCH}; //!< h0..h3
    NetDeviceContainer nics;                   //!< the hosts' NICs, h0 first
    RoceHelper roce;                           //!< link and QP helper

    TwoSwitchFabric()
    {
        RoceSwitchHelper sw;
        sw.Install(switches);
        roce.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        roce.SetChannelAttribute("Delay", StringValue("1us"));
        roce.SetNicAttribute("PayloadMtu", UintegerValue(PAYLOAD_MTU));
        roce.Install(switches.Get(0), switches.Get(1));
        for (uint32_t h = 0; h < hosts.GetN(); ++h)
        {
            nics.Add(roce.Install(hosts.Get(h), switches.Get(h / HOSTS_PER_SWITCH)).Get(0));
        }
        RoceSwitchHelper::PopulateRoutes();
        RoceSwitchHelper::AssignStreams(1);
    }

    /** \brief Write MESSAGE bytes from h0 to h2 and run to the end. */
    void RunOneFlow()
    {
        roce.CreateQp(nics.Get(0), nics.Get(2)).first->PostWrite(MESSAGE);
        Simulator::Run();
    }

    /** \return number of switch ports: one per link end on a switch */
    static uint32_t NPorts()
    {
        return 2 + 2 * HOSTS_PER_SWITCH; // the sw0-sw1 link has an end on each
    }

    /** \param i 0 or 1 \return that switch */
    Ptr<RoceSwitch> Switch(uint32_t i) const
    {
        return switches.Get(i)->GetObject<RoceSwitch>();
    }
};

/** \return the text between "/NodeList/" and the trace source name of a context */
std::string
Where(const std::string& context)
{
    return context.substr(0, context.rfind('/'));
}

} // namespace

/**
 * \ingroup rocev2
 * Config::Connect with wildcards reaches the Enqueue trace of every egress
 * queue disc, by both paths, and the MMU's SharedUsed trace of every switch.
 *
 * One flow h0 -> h2 sends data out of sw0 port 0 (to sw1) and sw1 port 1 (to
 * h2); its ACKs go out of sw1 port 0 and sw0 port 1 (to h0). So exactly those
 * four queue discs fire, and sw0 port 2 and sw1 port 2 (h1, h3: idle) do not.
 * Each data-path queue disc enqueues every data packet once:
 * ceil(MESSAGE / PAYLOAD_MTU) = 100, as the fabric is lossless and nothing is
 * resent (checked). Both switches buffer packets, so both MMUs' SharedUsed
 * change.
 */
class ConfigConnectTestCase : public TestCase
{
  public:
    ConfigConnectTestCase()
        : TestCase("Config::Connect with wildcards reaches every port's queue disc and every MMU")
    {
    }

  private:
    void DoRun() override
    {
        TwoSwitchFabric f;
        std::map<std::string, uint64_t> byPortList; // context -> enqueues
        std::map<std::string, uint64_t> byDevice;
        std::set<std::string> mmus;
        auto countTo = [](std::map<std::string, uint64_t>* m) {
            return Callback<void, std::string, Ptr<const Packet>, uint8_t>(
                [m](std::string ctx, Ptr<const Packet>, uint8_t) { ++(*m)[Where(ctx)]; });
        };
        bool ok = Config::ConnectFailSafe(
            "/NodeList/*/$ns3::RoceSwitch/PortList/*/EgressQueueDisc/Enqueue",
            countTo(&byPortList));
        NS_TEST_ASSERT_MSG_EQ(ok, true, "PortList/*/EgressQueueDisc/Enqueue matched nothing");
        ok = Config::ConnectFailSafe(
            "/NodeList/*/DeviceList/*/$ns3::RoceSwitchPort/EgressQueueDisc/Enqueue",
            countTo(&byDevice));
        NS_TEST_ASSERT_MSG_EQ(ok, true, "DeviceList/*/...EgressQueueDisc/Enqueue matched nothing");
        ok = Config::ConnectFailSafe(
            "/NodeList/*/$ns3::RoceSwitch/Mmu/SharedUsed",
            Callback<void, std::string, uint64_t, uint64_t>(
                [&mmus](std::string ctx, uint64_t, uint64_t) { mmus.insert(Where(ctx)); }));
        NS_TEST_ASSERT_MSG_EQ(ok, true, "Mmu/SharedUsed matched nothing");

        f.RunOneFlow();
        RoceFabricStats stats = RoceFabricStats::Collect();
        NS_TEST_ASSERT_MSG_EQ(stats.bytesDelivered, MESSAGE, "the flow did not complete");
        NS_TEST_ASSERT_MSG_EQ(stats.drops, 0, "a lossless fabric dropped");
        NS_TEST_ASSERT_MSG_EQ(stats.retransmits, 0, "a packet was resent");

        const uint64_t dataPackets = (MESSAGE + PAYLOAD_MTU - 1) / PAYLOAD_MTU;
        auto portPath = [](uint32_t node, uint32_t port) {
            std::ostringstream os;
            os << "/NodeList/" << node << "/$ns3::RoceSwitch/PortList/" << port
               << "/EgressQueueDisc";
            return os.str();
        };
        auto devicePath = [](uint32_t node, uint32_t dev) {
            std::ostringstream os;
            os << "/NodeList/" << node << "/DeviceList/" << dev
               << "/$ns3::RoceSwitchPort/EgressQueueDisc";
            return os.str();
        };
        // (node, port) pairs that carry the flow; a switch's devices are its
        // ports in the same order.
        const std::pair<uint32_t, uint32_t> data[] = {{0, 0}, {1, 1}};
        const std::pair<uint32_t, uint32_t> acks[] = {{1, 0}, {0, 1}};
        NS_TEST_ASSERT_MSG_EQ(byPortList.size(), 4, "queue discs that fired (PortList path)");
        NS_TEST_ASSERT_MSG_EQ(byDevice.size(), 4, "queue discs that fired (DeviceList path)");
        for (const auto& [node, port] : data)
        {
            NS_TEST_EXPECT_MSG_EQ(byPortList[portPath(node, port)],
                                  dataPackets,
                                  "data enqueues at " << portPath(node, port));
            NS_TEST_EXPECT_MSG_EQ(byDevice[devicePath(node, port)],
                                  dataPackets,
                                  "data enqueues at " << devicePath(node, port));
        }
        for (const auto& [node, port] : acks)
        {
            NS_TEST_EXPECT_MSG_GT(byPortList[portPath(node, port)],
                                  0,
                                  "no ACK enqueued at " << portPath(node, port));
            NS_TEST_EXPECT_MSG_GT(byDevice[devicePath(node, port)],
                                  0,
                                  "no ACK enqueued at " << devicePath(node, port));
        }
        NS_TEST_EXPECT_MSG_EQ(mmus.size(), 2, "MMUs whose SharedUsed trace fired");
        NS_TEST_EXPECT_MSG_EQ(mmus.count("/NodeList/0/$ns3::RoceSwitch/Mmu"), 1, "sw0 MMU");
        NS_TEST_EXPECT_MSG_EQ(mmus.count("/NodeList/1/$ns3::RoceSwitch/Mmu"), 1, "sw1 MMU");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * Config::Set with wildcards changes every port's queue disc and every
 * switch's MMU; the values are read back from the objects themselves.
 *
 * - DwrrWeights "1,...,8" through the PortList path reaches all 6 ports (2 + 2 x 2 link ends).
 * - EcnKmin 50 KB / EcnKmax 60 KB at EcnThresholdRate 25 Gb/s, set through the
 *   DeviceList path, become 50,000 x 100/25 = 200,000 B and 240,000 B at the
 *   100 Gb/s ports (the defaults, 100 KB / 400 KB, would give 400,000 and
 *   1,600,000).
 * - Mmu/Alpha 0.5 and Mmu/BufferSize 3,000,000 B reach both MMUs. The shared
 *   pool is then BufferSize minus one headroom per port for the one lossless
 *   PG: headroom = 2 x rate x delay + 2 x MaxFrameSize + rate x
 *   PfcResponseTime = 2 x 12,500 + 2 x 4200 + 12,500 = 45,900 B at 100 Gb/s,
 *   1 us; each switch has 3 ports: 3,000,000 - 3 x 45,900 = 2,862,300 B. The
 *   threshold of an idle PG is Alpha x pool = 1,431,150 B.
 */
class ConfigSetTestCase : public TestCase
{
  public:
    ConfigSetTestCase()
        : TestCase("Config::Set with wildcards changes every queue disc and every MMU")
    {
    }

  private:
    void DoRun() override
    {
        TwoSwitchFabric f;
        const std::string qdiscs = "/NodeList/*/$ns3::RoceSwitch/PortList/*/EgressQueueDisc";
        const std::string devices = "/NodeList/*/DeviceList/*/$ns3::RoceSwitchPort/EgressQueueDisc";
        const std::string mmus = "/NodeList/*/$ns3::RoceSwitch/Mmu";
        NS_TEST_ASSERT_MSG_EQ(Config::LookupMatches(qdiscs).GetN(),
                              TwoSwitchFabric::NPorts(),
                              "queue discs on the PortList path");
        NS_TEST_ASSERT_MSG_EQ(Config::LookupMatches(devices).GetN(),
                              TwoSwitchFabric::NPorts(),
                              "queue discs on the DeviceList path");
        NS_TEST_ASSERT_MSG_EQ(Config::LookupMatches(mmus).GetN(), 2, "MMUs");

        bool ok = Config::SetFailSafe(qdiscs + "/DwrrWeights", StringValue("1,2,3,4,5,6,7,8"));
        NS_TEST_ASSERT_MSG_EQ(ok, true, "Set DwrrWeights");
        ok = Config::SetFailSafe(devices + "/EcnKmin", StringValue("50KB")) &&
             Config::SetFailSafe(devices + "/EcnKmax", StringValue("60KB")) &&
             Config::SetFailSafe(devices + "/EcnThresholdRate", StringValue("25Gbps"));
        NS_TEST_ASSERT_MSG_EQ(ok, true, "Set EcnKmin/EcnKmax/EcnThresholdRate");
        ok = Config::SetFailSafe(mmus + "/Alpha", DoubleValue(0.5)) &&
             Config::SetFailSafe(mmus + "/BufferSize", StringValue("3000000B"));
        NS_TEST_ASSERT_MSG_EQ(ok, true, "Set Mmu/Alpha and Mmu/BufferSize");

        f.RunOneFlow(); // initializes the switches: pools and ECN bytes follow the attributes

        constexpr uint64_t HEADROOM = 2 * 12500 + 2 * 4200 + 12500;
        constexpr uint64_t POOL = 3000000 - 3 * HEADROOM;
        uint32_t ports = 0;
        for (uint32_t s = 0; s < 2; ++s)
        {
            Ptr<RoceSwitch> sw = f.Switch(s);
            for (uint32_t p = 0; p < sw->GetNPorts(); ++p, ++ports)
            {
                Ptr<RoceEgressQueueDisc> q = sw->GetPort(p)->GetQueueDisc();
                for (uint8_t prio = 0; prio < ROCE_NUM_PRIORITIES; ++prio)
                {
                    NS_TEST_EXPECT_MSG_EQ(q->GetDwrrWeight(prio),
                                          prio + 1u,
                                          "switch " << s << " port " << p << " weight " << +prio);
                }
                NS_TEST_EXPECT_MSG_EQ(q->GetKmin(), 200000, "switch " << s << " port " << p);
                NS_TEST_EXPECT_MSG_EQ(q->GetKmax(), 240000, "switch " << s << " port " << p);
            }
            Ptr<RoceSharedBufferMmu> mmu = sw->GetMmu();
            NS_TEST_EXPECT_MSG_EQ(mmu->GetAlpha(), 0.5, "switch " << s << " Alpha");
            NS_TEST_EXPECT_MSG_EQ(mmu->GetBufferSize(), 3000000, "switch " << s << " buffer");
            NS_TEST_EXPECT_MSG_EQ(mmu->GetSharedPoolSize(), POOL, "switch " << s << " pool");
            NS_TEST_EXPECT_MSG_EQ(mmu->GetThreshold(0, 3), POOL / 2, "switch " << s << " T");
        }
        NS_TEST_EXPECT_MSG_EQ(ports, TwoSwitchFabric::NPorts(), "ports read back");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * The switch-side Config paths.
 */
class RoceSwitchConfigTestSuite : public TestSuite
{
  public:
    RoceSwitchConfigTestSuite()
        : TestSuite("rocev2-switch-config", Type::UNIT)
    {
        AddTestCase(new ConfigConnectTestCase, RoceTestDuration::QUICK);
        AddTestCase(new ConfigSetTestCase, RoceTestDuration::QUICK);
    }
};

static RoceSwitchConfigTestSuite g_roceSwitchConfigTestSuite; //!< static instance
