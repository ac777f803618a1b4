/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceAiZoneHelper variants: the rail-optimised fabric (NIC i of every server
 * of a group on rail switch i, rail-aware paths), the k-ary fat-tree (cores
 * in planes, all (k/2)^2 shortest paths between pods), Meta's presets and the
 * DOT picture. Expected values come from closed forms written here.
 */

#include "rocev2-zone-test-helpers.h"

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <random>
#include <regex>
#include <set>
#include <sstream>

using namespace ns3;
using ns3::rocev2test::PeerNode;

namespace
{

/** A rail-optimised fabric's parameters. */
struct RailParams
{
    uint32_t tiers;
    uint32_t zones;
    uint32_t groups; //!< per zone (racks)
    uint32_t servers;
    uint32_t gpus; //!< per server = rails per group
    uint32_t uplinks;
    uint32_t ctsws;
    double oversub;

    uint32_t TotalGpus() const
    {
        return zones * groups * servers * gpus;
    }

    /** rail switches per zone */
    uint32_t Leaves() const
    {
        return groups * gpus;
    }

    /** CTSW-ATSW links per CTSW: Leaves * (U / C) / O */
    uint32_t CtswUp() const
    {
        return tiers == 3 ? uint32_t(Leaves() * (uplinks / ctsws) / oversub + 0.5) : 0;
    }

    RoceAiZone Build() const
    {
        RoceAiZoneHelper h;
        h.SetRailOptimized(true);
        h.SetTiers(tiers);
        h.SetZones(zones);
        h.SetServersPerRack(servers);
        h.SetGpusPerServer(gpus);
        h.SetGpus(TotalGpus());
        h.SetUplinks(uplinks);
        h.SetCtsws(ctsws);
        h.SetOversubscription(oversub);
        return h.Build();
    }
};

const std::vector<RailParams> RAIL = {
    {2, 1, 3, 2, 4, 2, 2, 7}, // 12 rail switches of 2 servers
    {3, 2, 2, 4, 4, 4, 2, 4}, // 2 zones, 8 rail switches each, CTSW 16 down : 4 up
};

/** \return the k-ary fat-tree */
RoceAiZone
BuildFatTree(uint32_t k)
{
    RoceAiZoneHelper h;
    h.SetFatTree(k);
    return h.Build();
}

} // namespace

/**
 * Rail wiring and forwarding: GPU g of server s in group r of zone z is on
 * rail switch z*(R*G) + r*G + g%G (its link and RoceAiZone::GetLeafSwitch), port s, with
 * address 10.z.(r*G + g%G).s; a rail switch has S + U ports and S + 1 entries, a CTSW R*G (+1)
 * entries; links = NICs + Z*R*G*U + Z*C*L.
 */
class RailWiringTestCase : public TestCase
{
  public:
    RailWiringTestCase()
        : TestCase("Rail-optimised: NIC i of every server of a group is on rail switch i")
    {
    }

  private:
    void DoRun() override
    {
        for (const auto& p : RAIL)
        {
            RoceAiZone z = p.Build();
            const uint32_t G = p.gpus;
            const uint32_t S = p.servers;
            NS_TEST_EXPECT_MSG_EQ(z.rtsw.GetN(), p.zones * p.Leaves(), "rail switches = Z R G");
            NS_TEST_EXPECT_MSG_EQ(z.links,
                                  uint64_t(p.TotalGpus()) + p.zones * p.Leaves() * p.uplinks +
                                      p.zones * p.ctsws * p.CtswUp(),
                                  "links");
            for (uint32_t g = 0; g < z.GetNGpus(); ++g)
            {
                const uint32_t server = g / G;
                const uint32_t s = server % S;
                const uint32_t r = (server / S) % p.groups;
                const uint32_t zone = server / (S * p.groups);
                const uint32_t rail = r * G + g % G;
                Ptr<Node> leaf = z.rtsw.Get(zone * p.Leaves() + rail);
                NS_TEST_EXPECT_MSG_EQ(PeerNode(z.GetNic(g)), leaf, "GPU " << g << "'s rail switch");
                NS_TEST_EXPECT_MSG_EQ(z.GetLeafSwitch(g), leaf, "GetLeafSwitch of GPU " << g);
                NS_TEST_EXPECT_MSG_EQ(z.GetNic(g)->GetIpv4Address(),
                                      Ipv4Address((10u << 24) | (zone << 16) | (rail << 8) | s),
                                      "address of GPU " << g);
                Ptr<RoceSwitch> sw = leaf->GetObject<RoceSwitch>();
                auto ports = sw->Lookup(z.GetNic(g)->GetIpv4Address());
                NS_TEST_ASSERT_MSG_EQ(ports.size(), 1u, "one port to a NIC");
                NS_TEST_EXPECT_MSG_EQ(ports[0], s, "port = server within the group");
                NS_TEST_EXPECT_MSG_EQ(PeerNode(sw->GetPort(s)),
                                      z.servers.Get(server),
                                      "its server");
            }
            for (uint32_t l = 0; l < z.rtsw.GetN(); ++l)
            {
                Ptr<RoceSwitch> sw = z.rtsw.Get(l)->GetObject<RoceSwitch>();
                NS_TEST_EXPECT_MSG_EQ(sw->GetNPorts(), S + p.uplinks, "rail switch ports S + U");
                NS_TEST_EXPECT_MSG_EQ(sw->GetNRoutes(), S + 1, "rail switch entries S + 1");
            }
            for (uint32_t c = 0; c < z.ctsw.GetN(); ++c)
            {
                NS_TEST_EXPECT_MSG_EQ(z.ctsw.Get(c)->GetObject<RoceSwitch>()->GetNRoutes(),
                                      p.Leaves() + (p.tiers == 3 ? 1 : 0),
                                      "CTSW entries = rail switches per zone (+1)");
            }
            Simulator::Destroy();
        }
    }
};

/**
 * Rail-aware paths on real packets: between NICs of one rail and group the
 * data frame crosses only the rail switch (1); between rails or groups of a
 * zone it goes up (3); across zones 5. Also the same next hops as
 * PopulateRoutes().
 */
class RailPathsTestCase : public TestCase
{
  public:
    RailPathsTestCase()
        : TestCase("Rail-optimised: same-rail traffic stays on the rail switch, other goes up")
    {
    }

  private:
    void DoRun() override
    {
        const RailParams& p = RAIL[1];
        const uint32_t G = p.gpus;
        const uint32_t group = p.servers * G; // GPUs per group
        {
            RoceAiZone z = p.Build();
            rocev2test::HopCounter counter(z);
            // Same rail and group; other rail, same server; same rail, other
            // group; other zone; then seeded random pairs.
            std::set<std::pair<uint32_t, uint32_t>> unique = {{0, G},
                                                              {0, 1},
                                                              {0, group},
                                                              {0, z.GetNGpus() - 1}};
            std::mt19937 rng(7);
            std::uniform_int_distribution<uint32_t> pick(0, z.GetNGpus() - 1);
            while (unique.size() < 48)
            {
                uint32_t a = pick(rng);
                uint32_t b = pick(rng);
                if (a != b)
                {
                    unique.emplace(a, b);
                }
            }
            std::vector<std::pair<uint32_t, uint32_t>> pairs(unique.begin(), unique.end());
            NS_TEST_EXPECT_MSG_EQ(counter.Run(pairs), pairs.size(), "every message acknowledged");
            std::set<uint32_t> kinds;
            for (auto [a, b] : pairs)
            {
                const uint32_t zoneA = a / (group * p.groups);
                const uint32_t zoneB = b / (group * p.groups);
                const bool sameRail = a / group == b / group && a % G == b % G;
                const uint32_t expect = zoneA != zoneB ? 5 : (sameRail ? 1 : 3);
                kinds.insert(expect);
                NS_TEST_EXPECT_MSG_EQ(counter.Hops(a, b), expect, "hops " << a << " -> " << b);
            }
            NS_TEST_EXPECT_MSG_EQ(kinds.size(), 3u, "1, 3 and 5 switches all seen");
            Simulator::Destroy();
        }
        for (const auto& q : RAIL)
        {
            RoceAiZone z = q.Build();
            NS_TEST_EXPECT_MSG_EQ(rocev2test::CountRoutesUnlikePopulate(z),
                                  0u,
                                  "rail fabric routes unlike PopulateRoutes, tiers=" << q.tiers);
            Simulator::Destroy();
        }
    }
};

/**
 * The k-ary fat-tree (Al-Fares et al.): k^3/4 hosts, k^2/2 edge and k^2/2
 * aggregation switches, (k/2)^2 cores, 3k^3/4 links; every switch has k
 * ports; aggregation switch i of every pod links to the same k/2 cores
 * (plane i), and each core to exactly one aggregation switch per pod.
 * Entries: edge k/2 + 1, aggregation k/2 + 1, core k.
 */
class FatTreeCountsTestCase : public TestCase
{
  public:
    FatTreeCountsTestCase()
        : TestCase("k-ary fat-tree: counts, ports, planes and entries equal the closed forms")
    {
    }

  private:
    void DoRun() override
    {
        for (uint32_t k : {2u, 4u, 6u, 8u})
        {
            RoceAiZone z = BuildFatTree(k);
            const uint32_t h = k / 2;
            NS_TEST_EXPECT_MSG_EQ(z.GetNGpus(), k * k * k / 4, "hosts, k=" << k);
            NS_TEST_EXPECT_MSG_EQ(z.servers.GetN(), k * k * k / 4, "one NIC per host");
            NS_TEST_EXPECT_MSG_EQ(z.rtsw.GetN(), k * h, "edge switches");
            NS_TEST_EXPECT_MSG_EQ(z.ctsw.GetN(), k * h, "aggregation switches");
            NS_TEST_EXPECT_MSG_EQ(z.atsw.GetN(), h * h, "cores");
            NS_TEST_EXPECT_MSG_EQ(z.links, uint64_t(3) * k * k * k / 4, "links");
            NS_TEST_EXPECT_MSG_EQ(z.oversubscription, 1.0, "non-blocking");
            NS_TEST_EXPECT_MSG_EQ(z.fatTreeK, k, "reported as the k-ary fat-tree");
            for (auto& sw : rocev2test::AllSwitches(z))
            {
                NS_TEST_EXPECT_MSG_EQ(sw->GetNPorts(), k, "every switch has k ports");
            }
            std::set<Ptr<Node>> cores(z.atsw.Begin(), z.atsw.End());
            for (uint32_t pod = 0; pod < k; ++pod)
            {
                for (uint32_t i = 0; i < h; ++i)
                {
                    Ptr<RoceSwitch> agg = z.ctsw.Get(pod * h + i)->GetObject<RoceSwitch>();
                    std::set<Ptr<Node>> up;
                    for (uint32_t port = 0; port < k; ++port)
                    {
                        Ptr<Node> peer = PeerNode(agg->GetPort(port));
                        if (cores.count(peer))
                        {
                            up.insert(peer);
                        }
                    }
                    std::set<Ptr<Node>> plane;
                    for (uint32_t j = 0; j < h; ++j)
                    {
                        plane.insert(z.atsw.Get(i * h + j));
                    }
                    NS_TEST_EXPECT_MSG_EQ((up == plane), true, "agg " << i << " of pod " << pod);
                    NS_TEST_EXPECT_MSG_EQ(agg->GetNRoutes(), h + 1, "aggregation entries");
                }
                for (uint32_t e = 0; e < h; ++e)
                {
                    NS_TEST_EXPECT_MSG_EQ(
                        z.rtsw.Get(pod * h + e)->GetObject<RoceSwitch>()->GetNRoutes(),
                        h + 1,
                        "edge entries");
                }
            }
            for (uint32_t c = 0; c < z.atsw.GetN(); ++c)
            {
                Ptr<RoceSwitch> core = z.atsw.Get(c)->GetObject<RoceSwitch>();
                std::set<uint32_t> pods;
                for (uint32_t port = 0; port < core->GetNPorts(); ++port)
                {
                    Ptr<Node> peer = PeerNode(core->GetPort(port));
                    for (uint32_t a = 0; a < z.ctsw.GetN(); ++a)
                    {
                        pods.insert(z.ctsw.Get(a) == peer ? a / h : k);
                    }
                }
                pods.erase(k);
                NS_TEST_EXPECT_MSG_EQ(pods.size(), k, "a core reaches every pod once");
                NS_TEST_EXPECT_MSG_EQ(core->GetNRoutes(), k, "core entries = pods");
            }
            Simulator::Destroy();
        }
        // A shape setter after SetFatTree() makes another fabric, not reported as one.
        RoceAiZoneHelper h;
        h.SetFatTree(4);
        h.SetAtswPlanes(1); // one plane of 2 cores: every aggregation switch on both
        h.SetAtsws(0);
        NS_TEST_EXPECT_MSG_EQ(h.Build().fatTreeK, 0u, "changed shape is no fat-tree");
        Simulator::Destroy();
    }
};

/**
 * Between hosts in different pods of a k-ary fat-tree there are (k/2)^2
 * shortest paths, one per core: following the ECMP groups up from the
 * source edge reaches every core over a distinct (aggregation, core) pair,
 * and every core's group towards the destination holds one port. Packets
 * cross 1, 3 and 5 switches, and the routes equal PopulateRoutes().
 */
class FatTreePathsTestCase : public TestCase
{
  public:
    FatTreePathsTestCase()
        : TestCase("k-ary fat-tree: every core gives an ECMP path between pods")
    {
    }

  private:
    void DoRun() override
    {
        for (uint32_t k : {4u, 6u})
        {
            RoceAiZone z = BuildFatTree(k);
            const uint32_t h = k / 2;
            const uint32_t src = 0;
            const uint32_t dst = z.GetNGpus() - 1; // last pod
            const Ipv4Address to = z.GetNic(dst)->GetIpv4Address();
            Ptr<RoceSwitch> edge = PeerNode(z.GetNic(src))->GetObject<RoceSwitch>();
            std::set<std::pair<Ptr<Node>, Ptr<Node>>> paths;
            for (uint32_t port : edge->Lookup(to))
            {
                Ptr<Node> agg = PeerNode(edge->GetPort(port));
                Ptr<RoceSwitch> aggSw = agg->GetObject<RoceSwitch>();
                for (uint32_t up : aggSw->Lookup(to))
                {
                    Ptr<Node> core = PeerNode(aggSw->GetPort(up));
                    paths.emplace(agg, core);
                    NS_TEST_EXPECT_MSG_EQ(core->GetObject<RoceSwitch>()->Lookup(to).size(),
                                          1u,
                                          "one way down from a core");
                }
            }
            std::set<Ptr<Node>> coresUsed;
            for (auto& pc : paths)
            {
                coresUsed.insert(pc.second);
            }
            NS_TEST_EXPECT_MSG_EQ(paths.size(), h * h, "(k/2)^2 paths, k=" << k);
            NS_TEST_EXPECT_MSG_EQ(coresUsed.size(), h * h, "every core on a path, k=" << k);
            NS_TEST_EXPECT_MSG_EQ(rocev2test::CountRoutesUnlikePopulate(z),
                                  0u,
                                  "fat-tree routes unlike PopulateRoutes, k=" << k);
            Simulator::Destroy();
        }
        RoceAiZone z = BuildFatTree(4);
        rocev2test::HopCounter counter(z);
        // Same edge (hosts 0, 1), same pod (0, 2), other pods (0, 4..15).
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        for (uint32_t b = 1; b < 16; ++b)
        {
            pairs.emplace_back(0, b);
        }
        NS_TEST_EXPECT_MSG_EQ(counter.Run(pairs), pairs.size(), "every message acknowledged");
        for (auto [a, b] : pairs)
        {
            const uint32_t expect = b / 4 != a / 4 ? 5 : (b / 2 != a / 2 ? 3 : 1);
            NS_TEST_EXPECT_MSG_EQ(counter.Hops(a, b), expect, "hops 0 -> " << b);
        }
        Simulator::Destroy();
    }
};

/**
 * Meta's presets [Meta24]: the 3,072-GPU zone is 192 RTSWs of 16 GPUs under
 * 16 CTSWs (384 servers, 3072 + 192 x 16 links, bisection 1,536 x 400 Gb/s);
 * the 24k cluster is 8 such zones whose CTSWs each have round(192 / 7) = 27
 * ATSW links (EXTENSIVE: about 4 s and 0.6 GB to build).
 */
class PresetTestCase : public TestCase
{
  public:
    /** \param cluster build the 24k cluster too */
    PresetTestCase(bool cluster)
        : TestCase(cluster ? "Preset meta-cluster-24k has Meta's counts"
                           : "Preset meta-zone-3072 has Meta's counts"),
          m_cluster(cluster)
    {
    }

  private:
    bool m_cluster;

    void DoRun() override
    {
        RoceAiZoneHelper h;
        h.SetPreset(m_cluster ? "meta-cluster-24k" : "meta-zone-3072");
        RoceAiZone z = h.Build();
        const uint32_t zones = m_cluster ? 8 : 1;
        NS_TEST_EXPECT_MSG_EQ(z.GetNGpus(), zones * 3072, "GPUs");
        NS_TEST_EXPECT_MSG_EQ(z.servers.GetN(), zones * 384, "8-GPU servers");
        NS_TEST_EXPECT_MSG_EQ(z.rtsw.GetN(), zones * 192, "RTSWs");
        NS_TEST_EXPECT_MSG_EQ(z.ctsw.GetN(), zones * 16, "CTSWs");
        const uint32_t atsws = m_cluster ? 27 : 0;
        NS_TEST_EXPECT_MSG_EQ(z.atsw.GetN(), atsws, "ATSWs");
        NS_TEST_EXPECT_MSG_EQ(z.links,
                              zones * (3072 + 192 * 16) + (m_cluster ? 8 * 16 * 27 : 0),
                              "links");
        const uint32_t maxHops = m_cluster ? 5 : 3;
        NS_TEST_EXPECT_MSG_EQ(z.GetMaxSwitchHops(), maxHops, "max switch hops");
        if (m_cluster)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(z.oversubscription, 192.0 / 27, 1e-12, "1:7 built");
            // Half the zones send over their 16 x 27 ATSW links each.
            NS_TEST_EXPECT_MSG_EQ_TOL(z.GetBisectionBps(), 4 * 16 * 27 * 400e9, 1, "bisection");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(z.GetBisectionBps(), 1536 * 400e9, 1, "bisection");
        }
        Simulator::Destroy();
    }
};

/**
 * The DOT picture has one node per server and switch and one edge per
 * linked node pair whose label is the number of parallel links: summed they
 * give the link count, and each pair's count is the closed form (G host
 * links per server and U / C links per RTSW-CTSW pair).
 */
class DotTestCase : public TestCase
{
  public:
    DotTestCase()
        : TestCase("The DOT picture has every node and every link")
    {
    }

  private:
    void DoRun() override
    {
        RoceAiZoneHelper h;
        h.SetGpus(8);
        h.SetServersPerRack(1);
        h.SetGpusPerServer(4);
        h.SetUplinks(4);
        h.SetCtsws(2);
        RoceAiZone z = h.Build(); // 2 servers, 2 RTSWs, 2 CTSWs
        std::ostringstream os;
        z.WriteDot(os);
        const std::string dot = os.str();
        std::regex node(R"(^\s+(\w+) \[shape=)");
        std::regex edge(R"re(^\s+(\w+) -- (\w+)(?: \[label="x(\d+)")?)re");
        uint32_t nodes = 0;
        uint64_t links = 0;
        std::map<std::string, uint32_t> counts;
        std::istringstream in(dot);
        for (std::string line; std::getline(in, line);)
        {
            std::smatch m;
            if (std::regex_search(line, m, node))
            {
                ++nodes;
            }
            else if (line.find("style=invis") == std::string::npos && // row order only
                     std::regex_search(line, m, edge))
            {
                const uint32_t n = m[3].matched ? std::stoul(m[3].str()) : 1;
                counts[m[1].str() + "-" + m[2].str()] = n;
                links += n;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(nodes, 6u, "2 servers + 2 RTSWs + 2 CTSWs");
        NS_TEST_EXPECT_MSG_EQ(links, 8u + 2 * 4, "8 NIC links + 2 RTSWs x 4 uplinks");
        NS_TEST_EXPECT_MSG_EQ(counts.size(), 2u + 4, "2 server-RTSW + 4 RTSW-CTSW pairs");
        NS_TEST_EXPECT_MSG_EQ(counts["srv0-rtsw0"], 4u, "G links server-RTSW");
        NS_TEST_EXPECT_MSG_EQ(counts["rtsw1-ctsw0"], 2u, "U / C links RTSW-CTSW");
        Simulator::Destroy();
    }
};

/**
 * Every server has a scale-up domain of its G GPUs, with the attributes set
 * through the helper: a copy of B bytes between two GPUs of one server
 * arrives at Latency + 8 B / DataRate (rounded up to the 1 ns tick), two
 * copies out of one GPU share its egress (Latency + 2 x 8 B / DataRate).
 */
class NvlinkInZoneTestCase : public TestCase
{
  public:
    NvlinkInZoneTestCase()
        : TestCase("Every server has an NVLink domain of its GPUs with the helper's attributes")
    {
    }

  private:
    Time m_single;            //!< delivery of the copy on server 1
    std::vector<Time> m_pair; //!< deliveries of the two copies on server 2, by id

    void DoneSingle(uint64_t)
    {
        m_single = Simulator::Now();
    }

    void DonePair(uint64_t id)
    {
        m_pair.at(id) = Simulator::Now();
    }

    void DoRun() override
    {
        RoceAiZoneHelper h;
        h.SetGpus(64);
        h.SetGpusPerServer(4);
        h.SetServersPerRack(4);
        h.SetUplinks(4);
        h.SetCtsws(4);
        h.SetNvlinkAttribute("DataRate", DataRateValue(DataRate("1600Gbps")));
        h.SetNvlinkAttribute("Latency", TimeValue(MicroSeconds(2)));
        RoceAiZone z = h.Build();
        std::set<Ptr<RoceNvlinkDomain>> domains;
        for (uint32_t g = 0; g < z.GetNGpus(); ++g)
        {
            Ptr<RoceNvlinkDomain> d = z.GetNvlink(g);
            NS_TEST_ASSERT_MSG_NE(d, nullptr, "GPU " << g << " has a scale-up domain");
            NS_TEST_EXPECT_MSG_EQ(d, z.servers.Get(g / 4)->GetObject<RoceNvlinkDomain>(), "server");
            NS_TEST_EXPECT_MSG_EQ(z.GetLocalGpu(g), g % 4, "index in the server");
            UintegerValue n;
            d->GetAttribute("NGpus", n);
            NS_TEST_EXPECT_MSG_EQ(n.Get(), 4u, "NGpus = G");
            domains.insert(d);
        }
        NS_TEST_EXPECT_MSG_EQ(domains.size(), 16u, "one domain per server");
        const uint64_t bytes = 1000000;
        m_pair.assign(2, Time());
        z.GetNvlink(5)->Send(z.GetLocalGpu(5),
                             z.GetLocalGpu(6),
                             bytes,
                             MakeCallback(&NvlinkInZoneTestCase::DoneSingle, this));
        Ptr<RoceNvlinkDomain> e = z.GetNvlink(8); // server 2: two copies out of its GPU 0
        e->Send(0, 1, bytes, MakeCallback(&NvlinkInZoneTestCase::DonePair, this));
        e->Send(0, 2, bytes, MakeCallback(&NvlinkInZoneTestCase::DonePair, this));
        Simulator::Run();
        // 1 ns: deliveries are rounded up to the next tick.
        const double one = 2e-6 + 8.0 * bytes / 1600e9; // 7 us
        NS_TEST_EXPECT_MSG_EQ_TOL(m_single.GetSeconds(), one, 1e-9, "one copy");
        const double shared = 2e-6 + 2 * 8.0 * bytes / 1600e9; // 12 us
        NS_TEST_EXPECT_MSG_EQ_TOL(m_pair[0].GetSeconds(), shared, 1e-9, "egress shared by two");
        NS_TEST_EXPECT_MSG_EQ_TOL(m_pair[1].GetSeconds(), shared, 1e-9, "egress shared by two");
        Simulator::Destroy();
    }
};

class RoceAiZoneVariantsTestSuite : public TestSuite
{
  public:
    RoceAiZoneVariantsTestSuite()
        : TestSuite("rocev2-ai-zone-variants", Type::UNIT)
    {
        AddTestCase(new RailWiringTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RailPathsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FatTreeCountsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FatTreePathsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new DotTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NvlinkInZoneTestCase, RoceTestDuration::QUICK);
        AddTestCase(new PresetTestCase(false), RoceTestDuration::QUICK);
        AddTestCase(new PresetTestCase(true), RoceTestDuration::EXTENSIVE);
    }
};

static RoceAiZoneVariantsTestSuite g_aiZoneVariantsTestSuite;
