/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceAiZoneHelper: the fabric it builds has the closed-form counts, forwarding
 * entries and ECMP groups of the design (doc/rocev2.rst, "AI Zone
 * topologies"), delivers packets on paths of 1/3/5 switches, gives the same
 * next hops as RoceSwitchHelper::PopulateRoutes(), and has the idle RTT of
 * its link delays.
 */

#include "rocev2-zone-test-helpers.h"

#include "ns3/data-rate.h"
#include "ns3/node-list.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

using namespace ns3;
using ns3::rocev2test::PeerNode;

namespace
{

/** The parameters of one fabric, and what a test expects of it. */
struct ZoneParams
{
    uint32_t tiers;
    uint32_t zones;
    uint32_t racks; //!< per zone
    uint32_t servers;
    uint32_t gpus; //!< per server
    uint32_t uplinks;
    uint32_t ctsws;
    double oversub; //!< 3 tiers
    uint32_t atsws; //!< 0: one per CTSW uplink

    uint32_t NicsPerRack() const
    {
        return servers * gpus;
    }

    uint32_t TotalGpus() const
    {
        return zones * racks * NicsPerRack();
    }

    /** CTSW-to-ATSW links per CTSW: (racks * U / C) / O */
    uint32_t CtswUp() const
    {
        return tiers == 3 ? static_cast<uint32_t>(racks * (uplinks / ctsws) / oversub + 0.5) : 0;
    }

    uint32_t Atsws() const
    {
        return tiers == 3 ? (atsws ? atsws : CtswUp()) : 0;
    }
};

RoceAiZone
BuildZone(const ZoneParams& p)
{
    RoceAiZoneHelper h;
    h.SetTiers(p.tiers);
    h.SetZones(p.zones);
    h.SetServersPerRack(p.servers);
    h.SetGpusPerServer(p.gpus);
    h.SetGpus(p.TotalGpus());
    h.SetUplinks(p.uplinks);
    h.SetCtsws(p.ctsws);
    h.SetOversubscription(p.oversub);
    h.SetAtsws(p.atsws);
    return h.Build();
}

/** Parameter sets: Meta's defaults at small size, and non-default ones. */
const std::vector<ZoneParams> PARAMS = {
    {2, 1, 4, 2, 8, 16, 16, 7, 0}, // defaults, 64 GPUs
    {2, 1, 6, 1, 4, 2, 1, 7, 0},   // 2:1 oversubscribed racks, one CTSW
    {2, 1, 3, 3, 2, 6, 3, 7, 0},   // 2 links per (rack, CTSW)
    {3, 2, 4, 2, 4, 4, 2, 2, 0},   // 2 zones, CTSW 8 down : 4 up
    {3, 3, 8, 1, 2, 2, 2, 4, 2},   // 3 zones, 8 down : 2 up, 2 ATSWs
};

} // namespace

/**
 * Node and link counts equal the closed forms: servers = Z R S, RTSWs = Z R,
 * CTSWs = Z C, ATSWs = A, links = Z R S G (NICs) + Z R U + Z C L, where L =
 * R (U/C) / O; links are counted as devices / 2 over the whole NodeList.
 */
class ZoneCountsTestCase : public TestCase
{
  public:
    ZoneCountsTestCase()
        : TestCase("Node and link counts equal the closed forms")
    {
    }

  private:
    void DoRun() override
    {
        for (const auto& p : PARAMS)
        {
            RoceAiZone z = BuildZone(p);
            const uint32_t Z = p.zones;
            const uint32_t R = p.racks;
            NS_TEST_EXPECT_MSG_EQ(z.servers.GetN(), Z * R * p.servers, "servers");
            NS_TEST_EXPECT_MSG_EQ(z.rtsw.GetN(), Z * R, "RTSWs");
            NS_TEST_EXPECT_MSG_EQ(z.ctsw.GetN(), Z * p.ctsws, "CTSWs");
            NS_TEST_EXPECT_MSG_EQ(z.atsw.GetN(), p.Atsws(), "ATSWs");
            NS_TEST_EXPECT_MSG_EQ(z.GetNGpus(), p.TotalGpus(), "GPUs");
            NS_TEST_EXPECT_MSG_EQ(NodeList::GetNNodes(),
                                  Z * R * p.servers + Z * R + Z * p.ctsws + p.Atsws(),
                                  "nodes");
            uint64_t devices = 0;
            uint64_t nics = 0;
            for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
            {
                Ptr<Node> n = NodeList::GetNode(i);
                devices += n->GetNDevices();
                for (uint32_t d = 0; d < n->GetNDevices(); ++d)
                {
                    nics += DynamicCast<RoceNetDevice>(n->GetDevice(d)) ? 1 : 0;
                }
            }
            const uint64_t links =
                uint64_t(p.TotalGpus()) + Z * R * p.uplinks + Z * p.ctsws * p.CtswUp();
            NS_TEST_EXPECT_MSG_EQ(devices, 2 * links, "every link has two ends");
            NS_TEST_EXPECT_MSG_EQ(z.links, links, "links reported");
            NS_TEST_EXPECT_MSG_EQ(nics, p.TotalGpus(), "one NIC per GPU");
            // Every server node holds G NICs; GPU g is NIC g % G of server g / G.
            for (uint32_t g = 0; g < z.GetNGpus(); ++g)
            {
                NS_TEST_EXPECT_MSG_EQ(z.GetNic(g),
                                      RoceHelper::GetNic(z.servers.Get(g / p.gpus), g % p.gpus),
                                      "GPU " << g << " is on its server");
                // 10.zone.rack.nic, computed here from the GPU index.
                const uint32_t nic = g % p.NicsPerRack();
                const uint32_t rack = (g / p.NicsPerRack()) % R;
                const uint32_t zone = g / (p.NicsPerRack() * R);
                NS_TEST_EXPECT_MSG_EQ(z.GetNic(g)->GetIpv4Address(),
                                      Ipv4Address((10u << 24) | (zone << 16) | (rack << 8) | nic),
                                      "address of GPU " << g);
            }
            Simulator::Destroy();
        }
    }
};

/**
 * Forwarding entries and ECMP groups per tier. GPU t N + i (N NICs per rack)
 * hangs off RTSW t (RoceAiZone::GetLeafSwitch and the NIC's link agree). An
 * RTSW has NICs-per-rack /32 entries plus one default route over its U
 * uplinks, each /32 a single port whose peer is that NIC's server. A CTSW has one /24 per rack (+1
 * default in 3 tiers) whose U/C ports all lead to that rack's RTSW, and a default of L ports to
 * ATSWs. An ATSW has one /16 per zone whose C L / A ports all lead to that zone's CTSWs. Nothing
 * grows with hosts: two fabrics with the same racks and different NICs per rack give CTSWs the same
 * entries.
 */
class ZoneRoutesTestCase : public TestCase
{
  public:
    ZoneRoutesTestCase()
        : TestCase("Forwarding entries and ECMP groups per tier equal the closed forms")
    {
    }

  private:
    void DoRun() override
    {
        for (const auto& p : PARAMS)
        {
            RoceAiZone z = BuildZone(p);
            const uint32_t R = p.racks;
            const uint32_t N = p.NicsPerRack();
            const uint32_t up = p.tiers == 3 ? 1 : 0;
            for (uint32_t t = 0; t < z.rtsw.GetN(); ++t)
            {
                Ptr<RoceSwitch> sw = z.rtsw.Get(t)->GetObject<RoceSwitch>();
                NS_TEST_EXPECT_MSG_EQ(sw->GetNRoutes(), N + 1, "RTSW entries = NICs per rack + 1");
                for (uint32_t i = 0; i < N; ++i)
                {
                    const uint32_t gpu = t * N + i;
                    NS_TEST_EXPECT_MSG_EQ(z.GetLeafSwitch(gpu),
                                          z.rtsw.Get(t),
                                          "GPU " << gpu << " is under RTSW " << t);
                    NS_TEST_EXPECT_MSG_EQ(PeerNode(z.GetNic(gpu)),
                                          z.rtsw.Get(t),
                                          "GPU " << gpu << "'s NIC is linked to RTSW " << t);
                    auto ports = sw->Lookup(z.GetNic(gpu)->GetIpv4Address());
                    NS_TEST_ASSERT_MSG_EQ(ports.size(), 1u, "RTSW /32 is one port");
                    NS_TEST_EXPECT_MSG_EQ(PeerNode(sw->GetPort(ports[0])),
                                          z.GetNic(gpu)->GetNode(),
                                          "RTSW /32 leads to the NIC's server");
                }
                // Any address outside the rack goes up all U uplinks.
                const uint32_t other = ((t + 1) % z.rtsw.GetN()) * N;
                if (z.rtsw.GetN() > 1)
                {
                    auto ports = sw->Lookup(z.GetNic(other)->GetIpv4Address());
                    NS_TEST_EXPECT_MSG_EQ(ports.size(), p.uplinks, "RTSW up group has U ports");
                    for (uint32_t port : ports)
                    {
                        NS_TEST_EXPECT_MSG_EQ(
                            bool(PeerNode(sw->GetPort(port))->GetObject<RoceSwitch>()),
                            true,
                            "uplinks lead to switches");
                    }
                }
            }
            for (uint32_t c = 0; c < z.ctsw.GetN(); ++c)
            {
                const uint32_t zone = c / p.ctsws;
                Ptr<RoceSwitch> sw = z.ctsw.Get(c)->GetObject<RoceSwitch>();
                NS_TEST_EXPECT_MSG_EQ(sw->GetNRoutes(), R + up, "CTSW entries = racks (+1)");
                for (uint32_t r = 0; r < R; ++r)
                {
                    const uint32_t gpu = (zone * R + r) * N + (r % N);
                    auto ports = sw->Lookup(z.GetNic(gpu)->GetIpv4Address());
                    NS_TEST_EXPECT_MSG_EQ(ports.size(), p.uplinks / p.ctsws, "CTSW rack group U/C");
                    for (uint32_t port : ports)
                    {
                        NS_TEST_EXPECT_MSG_EQ(PeerNode(sw->GetPort(port)),
                                              z.rtsw.Get(zone * R + r),
                                              "CTSW rack entry leads to the rack's RTSW");
                    }
                }
                if (p.tiers == 3)
                {
                    const uint32_t away = ((zone + 1) % p.zones) * R * N;
                    auto ports = sw->Lookup(z.GetNic(away)->GetIpv4Address());
                    NS_TEST_EXPECT_MSG_EQ(ports.size(), p.CtswUp(), "CTSW up group has L ports");
                }
            }
            for (uint32_t a = 0; a < z.atsw.GetN(); ++a)
            {
                Ptr<RoceSwitch> sw = z.atsw.Get(a)->GetObject<RoceSwitch>();
                NS_TEST_EXPECT_MSG_EQ(sw->GetNRoutes(), p.zones, "ATSW entries = zones");
                for (uint32_t zone = 0; zone < p.zones; ++zone)
                {
                    auto ports = sw->Lookup(z.GetNic(zone * R * N + N * (R - 1))->GetIpv4Address());
                    NS_TEST_EXPECT_MSG_EQ(ports.size(),
                                          p.ctsws * p.CtswUp() / p.Atsws(),
                                          "ATSW zone group has C L / A ports");
                    std::set<Ptr<Node>> zoneCtsws;
                    for (uint32_t c = 0; c < p.ctsws; ++c)
                    {
                        zoneCtsws.insert(z.ctsw.Get(zone * p.ctsws + c));
                    }
                    for (uint32_t port : ports)
                    {
                        NS_TEST_EXPECT_MSG_EQ(zoneCtsws.count(PeerNode(sw->GetPort(port))),
                                              1u,
                                              "ATSW zone entry leads to that zone's CTSWs");
                    }
                }
            }
            Simulator::Destroy();
        }
        // Same racks, 4x the NICs per rack: the CTSW tables do not grow.
        ZoneParams small{2, 1, 4, 1, 4, 4, 2, 7, 0};
        ZoneParams big{2, 1, 4, 2, 8, 4, 2, 7, 0};
        uint32_t smallRoutes = BuildZone(small).ctsw.Get(0)->GetObject<RoceSwitch>()->GetNRoutes();
        Simulator::Destroy();
        uint32_t bigRoutes = BuildZone(big).ctsw.Get(0)->GetObject<RoceSwitch>()->GetNRoutes();
        Simulator::Destroy();
        NS_TEST_EXPECT_MSG_EQ(smallRoutes, bigRoutes, "CTSW state grows with racks, not hosts");
    }
};

/**
 * The 3-tier CTSW uplink:downlink capacity ratio, counted over its ports by
 * what their peers are (RTSW or ATSW) and the port rates, equals the
 * requested oversubscription O, rounded to whole CTSW-ATSW links, and the
 * zone reports the ratio built.
 */
class ZoneOversubscriptionTestCase : public TestCase
{
  public:
    ZoneOversubscriptionTestCase()
        : TestCase("3-tier CTSW down:up capacity equals the oversubscription")
    {
    }

  private:
    void DoRun() override
    {
        // 16 downlinks per CTSW (8 racks x 4 uplinks / 2 CTSWs). O = 3 and 7 do
        // not divide them: the links are rounded, 16 / 3 -> 5 (ratio 3.2) and
        // 16 / 7 -> 2 (ratio 8), and the zone reports the ratio built.
        const std::vector<std::pair<double, double>> cases{{1.0, 1.0},
                                                           {2.0, 2.0},
                                                           {4.0, 4.0},
                                                           {8.0, 8.0},
                                                           {3.0, 16.0 / 5},
                                                           {7.0, 16.0 / 2}};
        for (auto [o, built] : cases)
        {
            ZoneParams p{3, 2, 8, 2, 4, 4, 2, o, 0};
            RoceAiZone z = BuildZone(p);
            std::set<Ptr<Node>> rtsws(z.rtsw.Begin(), z.rtsw.End());
            std::set<Ptr<Node>> atsws(z.atsw.Begin(), z.atsw.End());
            for (uint32_t c = 0; c < z.ctsw.GetN(); ++c)
            {
                Ptr<RoceSwitch> sw = z.ctsw.Get(c)->GetObject<RoceSwitch>();
                double down = 0;
                double up = 0;
                for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
                {
                    Ptr<RoceSwitchPort> port = sw->GetPort(i);
                    double rate = port->GetDataRate().GetBitRate();
                    Ptr<Node> peer = PeerNode(port);
                    down += rtsws.count(peer) ? rate : 0;
                    up += atsws.count(peer) ? rate : 0;
                }
                NS_TEST_EXPECT_MSG_EQ_TOL(down / up, built, 1e-12, "CTSW " << c << " with O=" << o);
            }
            NS_TEST_EXPECT_MSG_EQ_TOL(z.oversubscription, built, 1e-12, "reported ratio, O=" << o);
            Simulator::Destroy();
        }
    }
};

/**
 * Packets between seeded random NIC pairs (plus one pair of each kind) all
 * arrive, and the data frame is received by 1 switch in a rack, 3 within a
 * zone and 5 across zones (counted by the MacRx of every switch port).
 */
class ZoneHopsTestCase : public TestCase
{
  public:
    ZoneHopsTestCase()
        : TestCase("Packets between random NIC pairs arrive over 1, 3 or 5 switches")
    {
    }

  private:
    void DoRun() override
    {
        ZoneParams p{3, 3, 4, 2, 4, 4, 2, 2, 0};
        RoceAiZone z = BuildZone(p);
        rocev2test::HopCounter counter(z);
        const uint32_t n = z.GetNGpus();
        const uint32_t N = p.NicsPerRack();
        std::set<std::pair<uint32_t, uint32_t>> unique = {{0, 1}, {0, N}, {0, n - 1}};
        std::mt19937 rng(12);
        std::uniform_int_distribution<uint32_t> pick(0, n - 1);
        while (unique.size() < 40)
        {
            uint32_t a = pick(rng);
            uint32_t b = pick(rng);
            if (a != b)
            {
                unique.emplace(a, b);
            }
        }
        std::vector<std::pair<uint32_t, uint32_t>> pairs(unique.begin(), unique.end());
        // Every message is acknowledged within one cross-zone RTT (< 50 us).
        NS_TEST_EXPECT_MSG_EQ(counter.Run(pairs), pairs.size(), "every message is acknowledged");
        std::map<uint32_t, uint32_t> kinds;
        for (auto [a, b] : pairs)
        {
            // Expected switches from the GPU indices alone.
            const uint32_t za = a / (N * p.racks);
            const uint32_t zb = b / (N * p.racks);
            const uint32_t expect = za != zb ? 5 : (a / N == b / N ? 1 : 3);
            ++kinds[expect];
            NS_TEST_EXPECT_MSG_EQ(counter.Hops(a, b),
                                  expect,
                                  "switch hops from " << a << " to " << b);
        }
        NS_TEST_EXPECT_MSG_EQ(kinds.size(), 3u, "pairs in a rack, in a zone and across zones");
        Simulator::Destroy();
    }
};

/**
 * On fabrics that both can build, the hierarchical routes and
 * RoceSwitchHelper::PopulateRoutes() (shortest-path search) give every switch
 * the same set of next hops towards every NIC.
 */
class ZoneSameAsPopulateTestCase : public TestCase
{
  public:
    ZoneSameAsPopulateTestCase()
        : TestCase("Hierarchical routes give the same next hops as PopulateRoutes")
    {
    }

  private:
    void DoRun() override
    {
        for (const auto& p : PARAMS)
        {
            RoceAiZone z = BuildZone(p);
            NS_TEST_EXPECT_MSG_EQ(rocev2test::CountRoutesUnlikePopulate(z),
                                  0u,
                                  "(switch, NIC) pairs with other next hops, tiers=" << p.tiers);
            Simulator::Destroy();
        }
    }
};

/**
 * The idle RTT through a CTSW: one 64-byte WRITE from rack 0 to rack 1 and
 * its ACK. Each crosses 4 links (NIC-RTSW-CTSW-RTSW-NIC), store and forward:
 * RTT = 2 (2 dHost + 2 dCtsw) + 4 ser(data) + 4 ser(ACK), with
 * data = 64 + 58 + RETH 16 + 24 wire bytes and ACK = 58 + AETH 4 + 24.
 * With the defaults (1.5 us, 4 us, 400 Gb/s) this is Meta's ~22 us.
 */
class ZoneRttTestCase : public TestCase
{
  public:
    ZoneRttTestCase()
        : TestCase("Idle RTT through a CTSW equals the closed form of the delays")
    {
    }

  private:
    Time m_rtt; //!< completion time - post time

    void Done(const RoceCompletion& c)
    {
        m_rtt = c.completed - c.posted;
    }

    void DoRun() override
    {
        RoceAiZoneHelper h;
        h.SetGpus(32);
        RoceAiZone z = h.Build();
        RoceHelper roce;
        auto qp = roce.CreateQp(z.GetNic(0), z.GetNic(16));
        qp.first->PostWrite(64, MakeCallback(&ZoneRttTestCase::Done, this));
        Simulator::Run();
        const Time rtt = m_rtt;
        const double rate = 400e9;
        const double ser = 4 * ((64 + 58 + 16 + 24) + (58 + 4 + 24)) * 8 / rate;
        const double prop = 2 * (2 * h.GetLinkDelay(RoceAiZoneHelper::RTSW).GetSeconds() +
                                 2 * h.GetLinkDelay(RoceAiZoneHelper::CTSW).GetSeconds());
        // 8 ns: the 8 serialization times are each truncated to the default
        // 1 ns time resolution (e.g. 3.24 ns -> 3 ns), so the measured RTT is
        // up to 8 ns below the exact sum.
        NS_TEST_EXPECT_MSG_EQ_TOL(rtt.GetSeconds(), prop + ser, 8e-9, "RTT through a CTSW");
        NS_TEST_EXPECT_MSG_EQ_TOL(rtt.GetSeconds(), 22e-6, 0.1e-6, "Meta's ~22 us");
        Simulator::Destroy();
    }
};

class RoceAiZoneTestSuite : public TestSuite
{
  public:
    RoceAiZoneTestSuite()
        : TestSuite("rocev2-ai-zone", Type::UNIT)
    {
        AddTestCase(new ZoneCountsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new ZoneRoutesTestCase, RoceTestDuration::QUICK);
        AddTestCase(new ZoneOversubscriptionTestCase, RoceTestDuration::QUICK);
        AddTestCase(new ZoneHopsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new ZoneSameAsPopulateTestCase, RoceTestDuration::QUICK);
        AddTestCase(new ZoneRttTestCase, RoceTestDuration::QUICK);
    }
};

static RoceAiZoneTestSuite g_aiZoneTestSuite;
