/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * AI Zones as fabrics: ECMP balance on 2- and 3-tier zones, chi-square per tier.
 */

// ECMP on 2- and 3-tier AI Zones: the QPs a switch spreads over an ECMP
// group fall into its ports as balls into bins. Pearson's chi-square against
// the uniform null, per tier, is compared with the chi-square quantile for its
// degrees of freedom at significance 1e-4, computed here (ChiSquareCritical)
// and checked against the published table. The ECMP cases test ten tiers in
// all, so at 1e-4 each the suite rejects a uniform hash with probability at
// most 0.001 (Bonferroni). The null holds for the model's hash: over RngRun
// 1..300 (each run seeds the switches' hashes anew) every tier's p-values
// were uniform (Kolmogorov-Smirnov at 0.05), 1 of 3,000 fell below 0.001
// and none below 1e-4.

#include "../rocev2-frame-bytes.h"
#include "rocev2-zone-test-helpers.h"

#include "ns3/boolean.h"
#include "ns3/queue-size.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-flow-pin-table.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;
using namespace ns3::rocev2test;

namespace
{

constexpr double SIGNIFICANCE = 1e-4; //!< of every chi-square test here

// ---------------------------------------------------------------------------
// Chi-square quantiles

/**
 * \param a shape (> 0) \param x argument (>= 0)
 * \return the regularised upper incomplete gamma function Q(a, x), by its
 *         series below a + 1 and its continued fraction above (Numerical
 *         Recipes, 6.2), to about 1e-14
 */
double
GammaQ(double a, double x)
{
    if (x <= 0)
    {
        return 1;
    }
    const double lead = std::exp(-x + a * std::log(x) - std::lgamma(a));
    if (x < a + 1)
    {
        double term = 1 / a;
        double sum = term;
        for (int n = 1; n < 100000 && term > sum * 1e-16; ++n)
        {
            term *= x / (a + n);
            sum += term;
        }
        return 1 - sum * lead;
    }
    const double tiny = 1e-300;
    double b = x + 1 - a;
    double c = 1 / tiny;
    double d = 1 / b;
    double h = d;
    for (int i = 1; i < 100000; ++i)
    {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        d = std::fabs(d) < tiny ? tiny : d;
        c = b + an / c;
        c = std::fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (std::fabs(del - 1) < 1e-16)
        {
            break;
        }
    }
    return lead * h;
}

/**
 * \param df degrees of freedom (> 0)
 * \param alpha upper-tail probability
 * \return x with P(chi2_df > x) = alpha: Q(df / 2, x / 2) = alpha, by
 *         bisection (Q falls monotonically in x)
 */
double
ChiSquareCritical(uint32_t df, double alpha)
{
    double lo = 0;
    double hi = df + 40 * std::sqrt(2.0 * df) + 100;
    for (int i = 0; i < 200; ++i)
    {
        double mid = (lo + hi) / 2;
        (GammaQ(df / 2.0, mid / 2) > alpha ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

// ---------------------------------------------------------------------------
// ECMP balance

/// Per-flow forwarding seen on the wire: for every switch and data flow, the
/// egress ports its frames left by.
class PathRecorder
{
  public:
    /** \param z the fabric whose switches to watch */
    explicit PathRecorder(const RoceAiZone& z)
    {
        for (auto& sw : AllSwitches(z))
        {
            for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
            {
                std::map<RoceFlowKey, std::set<uint32_t>>* ports = &m_ports[sw];
                sw->GetPort(i)->TraceConnectWithoutContext(
                    "MacTx",
                    Callback<void, Ptr<const Packet>>([ports, i](Ptr<const Packet> p) {
                        RoceFrame f = RoceFrame::Parse(*p);
                        if (f.isRoce && IsDataOpcode(f.opcode))
                        {
                            (*ports)[{f.srcIp, f.dstIp, f.sport, f.dport, f.destQp}].insert(i);
                        }
                    }));
            }
        }
    }

    /** \return switch -> flow -> egress ports */
    const std::map<Ptr<RoceSwitch>, std::map<RoceFlowKey, std::set<uint32_t>>>& Ports() const
    {
        return m_ports;
    }

  private:
    std::map<Ptr<RoceSwitch>, std::map<RoceFlowKey, std::set<uint32_t>>> m_ports;
};

/// Pearson's chi-square of one tier: the ECMP groups of its switches.
struct TierChi2
{
    double chi2{0};           //!< summed over the groups tested
    uint32_t df{0};           //!< summed degrees of freedom, sum of (k - 1)
    uint32_t groups{0};       //!< (switch, group) pairs tested
    uint32_t skipped{0};      //!< pairs with fewer than 5 expected per port, left out
    uint64_t flows{0};        //!< flow choices counted
    uint64_t skippedFlows{0}; //!< flow choices in the pairs left out

    /** \return the critical value at SIGNIFICANCE for df */
    double Critical() const
    {
        return ChiSquareCritical(df, SIGNIFICANCE);
    }
};

/// What an ECMP run gives.
struct EcmpRun
{
    std::map<std::string, TierChi2> tiers; //!< "RTSW up", "CTSW up", "ATSW down", "CTSW down"
    uint32_t multiPath{0};                 //!< (switch, flow) pairs seen on more than one port
    uint32_t flows{0};                     //!< QPs
    RoceFabricStats stats;                 //!< fabric counters
    uint64_t expectedBytes{0};             //!< bytes written
};

/**
 * Build the zone, have every GPU write `qps` small messages to `peer(g)` on
 * as many QPs, and test every ECMP group each tier's switches spread them
 * over.
 * \param zh the configured helper
 * \param qps QPs per GPU pair
 * \param peer the destination of GPU g
 * \return the chi-square per tier
 */
EcmpRun
RunEcmp(RoceAiZoneHelper& zh,
        uint32_t qps,
        std::function<uint32_t(const RoceAiZone&, uint32_t)> peer)
{
    RoceAiZone z = zh.Build();
    PathRecorder rec(z);
    RoceHelper& roce = zh.GetRoceHelper();
    const uint64_t msg = 4 * ZONE_MTU;
    EcmpRun r;
    for (uint32_t g = 0; g < z.GetNGpus(); ++g)
    {
        for (uint32_t q = 0; q < qps; ++q)
        {
            roce.CreateQp(z.GetNic(g), z.GetNic(peer(z, g))).first->PostWrite(msg);
            ++r.flows;
            r.expectedBytes += msg;
        }
    }
    Simulator::Run();
    r.stats = RoceFabricStats::Collect();

    std::map<Ptr<Node>, std::string> tierOf = TierOf(z);
    const Ipv4Address outside("255.255.255.255"); // only 0/0 matches it
    for (const auto& [sw, flows] : rec.Ports())
    {
        // (group, port index in it) -> flows
        std::map<std::vector<uint32_t>, std::vector<uint32_t>> bins;
        for (const auto& [key, ports] : flows)
        {
            if (ports.size() != 1)
            {
                ++r.multiPath;
                continue;
            }
            std::vector<uint32_t> group = sw->Lookup(Ipv4Address(key.dstIp));
            if (group.size() < 2)
            {
                continue;
            }
            auto it = std::find(group.begin(), group.end(), *ports.begin());
            auto& b = bins[group];
            b.resize(group.size(), 0);
            if (it != group.end())
            {
                ++b[it - group.begin()];
            }
        }
        std::vector<uint32_t> up = sw->Lookup(outside);
        for (const auto& [group, counts] : bins)
        {
            std::string name = tierOf[sw->GetObject<Node>()] + (group == up ? " up" : " down");
            TierChi2& t = r.tiers[name];
            double n = 0;
            for (uint32_t c : counts)
            {
                n += c;
            }
            const double expected = n / counts.size();
            if (expected < 5)
            {
                // Pearson's chi-square approximation wants >= 5 expected per bin.
                ++t.skipped;
                t.skippedFlows += static_cast<uint64_t>(n);
                continue;
            }
            for (uint32_t c : counts)
            {
                t.chi2 += (c - expected) * (c - expected) / expected;
            }
            t.df += static_cast<uint32_t>(counts.size()) - 1;
            ++t.groups;
            t.flows += static_cast<uint64_t>(n);
        }
    }
    Simulator::Destroy();
    return r;
}

/**
 * \param r a run
 * \return its tiers, one line each
 */
std::string
Describe(const EcmpRun& r)
{
    std::ostringstream os;
    for (const auto& [name, t] : r.tiers)
    {
        os << "  " << name << ": chi2 " << t.chi2 << " on " << t.df << " df (critical "
           << t.Critical() << " at " << SIGNIFICANCE << "), " << t.groups << " groups, " << t.flows
           << " flow choices, " << t.skipped << " small groups left out\n";
    }
    return os.str();
}

} // namespace

/**
 * \ingroup rocev2
 * The chi-square quantiles the ECMP cases compare with, against the
 * published table (Abramowitz and Stegun, table 26.8; NIST/SEMATECH
 * e-Handbook, 1.3.6.7.4), upper tail 0.001 and 0.05, and at 1e-4 for one
 * degree of freedom, the square of the normal quantile z(5e-5) = 3.8906.
 */
class ChiSquareQuantileTestCase : public TestCase
{
  public:
    ChiSquareQuantileTestCase()
        : TestCase("chi-square critical values: computed = the published table")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<std::tuple<uint32_t, double, double>> table{
            {1, 0.001, 10.828},
            {7, 0.001, 24.322},
            {15, 0.001, 37.697},
            {28, 0.001, 56.892},
            {60, 0.001, 99.607},
            {100, 0.001, 149.449},
            {1, 1e-4, 15.137},
            {1, 0.05, 3.841},
            {10, 0.05, 18.307},
            {100, 0.05, 124.342},
        };
        for (auto [df, alpha, x] : table)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(ChiSquareCritical(df, alpha),
                                      x,
                                      0.001,
                                      "chi-square quantile, " << df << " df, alpha " << alpha);
        }
    }
};

/**
 * \ingroup rocev2
 * What the ECMP cases check of a run.
 */
class EcmpZoneTestCase : public TestCase
{
  protected:
    /** \param name the case's name */
    explicit EcmpZoneTestCase(const std::string& name)
        : TestCase(name)
    {
    }

    /**
     * \brief Every byte arrived, nothing was dropped, every flow took one
     * port at every switch, and every tier's chi-square is below its
     * critical value.
     * \param r the run \param tiers the tiers that must have been tested
     * \param label names the run in messages
     */
    void Check(const EcmpRun& r, const std::vector<std::string>& tiers, const std::string& label)
    {
        NS_TEST_EXPECT_MSG_EQ(r.stats.drops, 0u, label << ": frames dropped");
        NS_TEST_EXPECT_MSG_EQ(r.stats.bytesDelivered, r.expectedBytes, label << ": bytes missing");
        NS_TEST_EXPECT_MSG_EQ(r.multiPath, 0u, label << ": a flow left a switch by several ports");
        for (const auto& name : tiers)
        {
            auto it = r.tiers.find(name);
            NS_TEST_EXPECT_MSG_EQ((it != r.tiers.end()),
                                  true,
                                  label << ": no ECMP group tested at " << name);
            if (it == r.tiers.end())
            {
                continue;
            }
            const TierChi2& t = it->second;
            NS_TEST_EXPECT_MSG_GT(t.df, 0u, label << ", " << name << ": nothing tested");
            // The groups are as large as the flows that happen to reach them
            // (binomial): a few may expect fewer than 5 per port and be left
            // out, but they must not hold more than a tenth of the tier's
            // choices, or leaving them out could hide the tier.
            NS_TEST_EXPECT_MSG_LT_OR_EQ(
                t.skippedFlows * 10,
                t.flows + t.skippedFlows,
                label << ", " << name << ": " << t.skipped << " groups too small to test hold "
                      << t.skippedFlows << " of " << t.flows + t.skippedFlows << " flow choices");
            NS_TEST_EXPECT_MSG_LT(t.chi2,
                                  t.Critical(),
                                  label << ", " << name
                                        << ": QPs not uniform over the equal-cost ports (chi2 "
                                        << t.chi2 << " on " << t.df << " df)\n"
                                        << Describe(r));
        }
    }
};

/**
 * \ingroup rocev2
 * ECMP balance on a 2-tier zone: 4 racks of 16 NICs, 16 uplinks per RTSW
 * over 8 CTSWs (2 parallel links per pair); every NIC writes to its twin in
 * the next rack on 16 QPs with their own source ports (256 per RTSW, 16
 * expected per uplink; about 32 per CTSW and destination rack, 16 per link). Per tier (RTSW
 * uplinks, CTSW downlinks) the QP counts per port pass chi-square at 1e-4.
 */
class EcmpTwoTierTestCase : public EcmpZoneTestCase
{
  public:
    EcmpTwoTierTestCase()
        : EcmpZoneTestCase("ECMP on a 2-tier AI Zone: 1024 QPs over RTSW uplinks and parallel CTSW "
                           "downlinks, chi-square per tier at 1e-4")
    {
    }

  private:
    void DoRun() override
    {
        RoceAiZoneHelper zh;
        zh.SetTiers(2);
        zh.SetGpus(64);
        zh.SetServersPerRack(2);
        zh.SetGpusPerServer(8);
        zh.SetUplinks(16);
        zh.SetCtsws(8);
        EcmpRun r = RunEcmp(zh, 16, [](const RoceAiZone& z, uint32_t g) {
            return (g + z.GetNicsPerRack()) % z.GetNGpus();
        });
        std::cout << "rocev2-ai-zone-ecmp, 2 tiers:\n" << Describe(r);
        Check(r, {"RTSW up", "CTSW down"}, "2 tiers");
    }
};

/**
 * \ingroup rocev2
 * ECMP balance on a 3-tier zone: 2 zones of 2 racks of 16 NICs, 8 uplinks
 * per RTSW over 4 CTSWs, each CTSW linked once to each of 4 ATSWs; every NIC
 * writes to its twin in the other zone on 8 QPs (16 expected per port at
 * every tier, 8 on the parallel CTSW-RTSW links). Four tiers of choices (RTSW
 * up, CTSW up, ATSW down, CTSW down) each pass chi-square at 1e-4, with
 * per-QP source ports and with one source port and E-ECMP.
 */
class EcmpThreeTierTestCase : public EcmpZoneTestCase
{
  public:
    EcmpThreeTierTestCase()
        : EcmpZoneTestCase("ECMP on a 3-tier AI Zone: 512 cross-zone QPs at RTSW, CTSW, ATSW and "
                           "CTSW, chi-square per tier at 1e-4; plain and E-ECMP")
    {
    }

  private:
    void DoRun() override
    {
        for (bool eEcmp : {false, true})
        {
            RoceAiZoneHelper zh;
            zh.SetTiers(3);
            zh.SetZones(2);
            zh.SetGpus(64);
            zh.SetServersPerRack(2);
            zh.SetGpusPerServer(8);
            zh.SetUplinks(8);
            zh.SetCtsws(4);
            zh.SetOversubscription(1);
            if (eEcmp)
            {
                // One source port for every QP: only the destination QP
                // tells them apart.
                zh.SetSwitchAttribute("EcmpUseQp", BooleanValue(true));
                zh.GetRoceHelper().SetQpAttribute("SourcePort", UintegerValue(0xC0DE));
            }
            EcmpRun r = RunEcmp(zh, 8, [](const RoceAiZone& z, uint32_t g) {
                return (g + z.GetNGpus() / 2) % z.GetNGpus();
            });
            std::cout << "rocev2-ai-zone-ecmp, 3 tiers" << (eEcmp ? ", E-ECMP" : "") << ":\n"
                      << Describe(r);
            Check(r,
                  {"RTSW up", "CTSW up", "ATSW down", "CTSW down"},
                  eEcmp ? "3 tiers, E-ECMP" : "3 tiers");
        }
    }
};

/**
 * \ingroup rocev2
 * AI Zones as fabrics: ECMP balance on 2- and 3-tier zones.
 */
class RoceAiZoneEcmpTestSuite : public TestSuite
{
  public:
    RoceAiZoneEcmpTestSuite()
        : TestSuite("rocev2-ai-zone-ecmp", Type::SYSTEM)
    {
        AddTestCase(new ChiSquareQuantileTestCase, RoceTestDuration::QUICK);
        AddTestCase(new EcmpTwoTierTestCase, RoceTestDuration::QUICK);
        AddTestCase(new EcmpThreeTierTestCase, RoceTestDuration::QUICK);
    }
};

static RoceAiZoneEcmpTestSuite g_roceAiZoneEcmpTestSuite; //!< static instance
