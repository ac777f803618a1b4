/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * AI Zones as fabrics: PFC hop by hop across three tiers, ECMP balance on 2- and 3-tier zones.
 */

// PFC across the three tiers of an AI Zone (RTSW, CTSW, ATSW): an incast that
// converges on an ATSW port backs up behind the CTSWs' ATSW-facing ports, and
// the pauses travel back hop by hop through the CTSWs and RTSWs to the
// senders' NICs; a victim flow that shares one paused link is held below its
// share of that link, one that shares none runs at line rate. No congestion
// control: PFC does the work.
//
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

constexpr uint8_t PRIO = 3;           //!< the lossless priority QPs use by default
constexpr uint32_t ZONE_MTU = 4096;   //!< RoceAiZoneHelper's payload MTU
constexpr double SIGNIFICANCE = 1e-4; //!< of every chi-square test here

/**
 * \param z a built zone
 * \return every switch node of the zone with the name of its tier
 */
std::map<Ptr<Node>, std::string>
TierOf(const RoceAiZone& z)
{
    std::map<Ptr<Node>, std::string> tierOf;
    for (auto [c, name] : {std::make_pair(&z.rtsw, "RTSW"),
                           std::make_pair(&z.ctsw, "CTSW"),
                           std::make_pair(&z.atsw, "ATSW")})
    {
        for (auto it = c->Begin(); it != c->End(); ++it)
        {
            tierOf[*it] = name;
        }
    }
    return tierOf;
}

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
// PFC across three tiers

/**
 * \param sw a switch node \param peer a node it links to
 * \return the switch's port facing that node
 */
Ptr<RoceSwitchPort>
PortTowards(Ptr<Node> sw, Ptr<Node> peer)
{
    Ptr<RoceSwitch> s = sw->GetObject<RoceSwitch>();
    for (uint32_t i = 0; i < s->GetNPorts(); ++i)
    {
        if (PeerNode(s->GetPort(i)) == peer)
        {
            return s->GetPort(i);
        }
    }
    return nullptr;
}

/**
 * The 3-tier zone of the PFC case: 5 zones of 3 racks, 2 one-NIC servers per
 * rack, one uplink per RTSW to the zone's one CTSW, and one CTSW-ATSW link
 * per zone (3:1) to the one ATSW; 100 Gb/s links. GPU (zone, rack, nic) is
 * index zone x 6 + rack x 2 + nic.
 */
constexpr uint32_t PFC_ZONES = 5;   //!< zones
constexpr uint32_t PFC_RACKS = 3;   //!< racks per zone
constexpr uint32_t PFC_NICS = 2;    //!< NICs per rack
const DataRate PFC_RATE("100Gbps"); //!< every link

/**
 * \param zone a zone \param rack a rack of it \param nic a NIC of the rack
 * \return the GPU index
 */
uint32_t
Gpu(uint32_t zone, uint32_t rack, uint32_t nic)
{
    return (zone * PFC_RACKS + rack) * PFC_NICS + nic;
}

/// One switch port's pauses: PFC frames sent and when the first XOFF left.
struct PausePort
{
    uint64_t pauseTx{0}; //!< PFC pause frames sent (XOFF and refreshes)
    Time firstXoff{-1};  //!< first XOFF, -1 if none
};

/// What the PFC run gives.
struct PfcRun
{
    std::map<const RocePfcNetDevice*, PausePort> ports; //!< every switch port
    std::map<std::string, uint64_t> tierPauses;         //!< pause frames sent per tier
    double v1Bps{0};                                    //!< V1 goodput in the window
    double v2Bps{0};                                    //!< V2 goodput in the window
    Time incastFirstDone;                               //!< first incast completion
    Time v2Done;                                        //!< V2's completion
    std::vector<uint64_t> senderPauseRx;                //!< pauses each incast NIC received
    uint64_t v2PauseRx{0};                              //!< pauses V2's NICs received
    RoceFabricStats stats;                              //!< fabric counters at the end
    uint64_t expectedBytes{0};                          //!< bytes every WRITE carries, summed
    bool pauseHeld{false};                              //!< some port still pauses at the end
};

/// Times of the PFC scenario.
const Time VICTIMS_START = MicroSeconds(200); //!< the victims post their WRITEs
const Time WINDOW_FROM = MicroSeconds(250);   //!< victim measurement window
const Time WINDOW_TO = MicroSeconds(550);     //!< its end

/**
 * \param checks called after the run, before Simulator::Destroy, with the zone
 * \return what happened
 */
PfcRun
RunThreeTierIncast(std::function<void(const RoceAiZone&, PfcRun&)> checks)
{
    RoceAiZoneHelper zh;
    zh.SetTiers(3);
    zh.SetZones(PFC_ZONES);
    zh.SetServersPerRack(PFC_NICS);
    zh.SetGpusPerServer(1);
    zh.SetGpus(PFC_ZONES * PFC_RACKS * PFC_NICS);
    zh.SetUplinks(1);
    zh.SetCtsws(1);
    zh.SetOversubscription(PFC_RACKS); // one ATSW link per CTSW
    zh.SetLinkRate(PFC_RATE);
    // Buffers shallow enough for the pause chain to form within a 3 MB
    // incast (the CTSW and ATSW defaults hold 2000 MB); the modes stay
    // (RTSW dynamic, CTSW and ATSW partitioned per port).
    for (auto tier : {RoceAiZoneHelper::RTSW, RoceAiZoneHelper::CTSW, RoceAiZoneHelper::ATSW})
    {
        zh.SetMmuAttribute(tier, "BufferSize", QueueSizeValue(QueueSize("4MB")));
    }
    RoceAiZone z = zh.Build();

    PfcRun r;
    std::map<Ptr<Node>, std::string> tierOf = TierOf(z);
    for (auto c : {&z.rtsw, &z.ctsw, &z.atsw})
    {
        for (auto it = c->Begin(); it != c->End(); ++it)
        {
            Ptr<RoceSwitch> sw = (*it)->GetObject<RoceSwitch>();
            for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
            {
                PausePort* rec = &r.ports[PeekPointer(sw->GetPort(i))];
                sw->GetPort(i)->TraceConnectWithoutContext(
                    "PfcTx",
                    Callback<void, uint8_t, uint16_t>([rec](uint8_t prio, uint16_t quanta) {
                        if (prio == PRIO && quanta > 0 && rec->firstXoff.IsNegative())
                        {
                            rec->firstXoff = Simulator::Now();
                        }
                    }));
            }
        }
    }

    // The incast: NIC 0 of rack 0 of zones 0..3 write to NIC 0 of rack 0 of
    // zone 4. The four flows meet at the ATSW's port to zone 4's CTSW.
    RoceHelper roce;
    const uint64_t incastBytes = 3000000;
    const uint32_t receiver = Gpu(4, 0, 0);
    std::vector<uint32_t> senders{Gpu(0, 0, 0), Gpu(1, 0, 0), Gpu(2, 0, 0), Gpu(3, 0, 0)};
    std::vector<Time> incastDone(senders.size());
    for (std::size_t i = 0; i < senders.size(); ++i)
    {
        Time* slot = &incastDone[i];
        roce.CreateQp(z.GetNic(senders[i]), z.GetNic(receiver))
            .first->PostWrite(incastBytes,
                              Callback<void, const RoceCompletion&>(
                                  [slot](const RoceCompletion& c) { *slot = c.completed; }));
        r.expectedBytes += incastBytes;
    }
    // V1, in zone 1: NIC 1 of rack 0 to NIC 1 of rack 1, through the zone's
    // CTSW. It shares one paused link, RTSW(1,0) -> CTSW(1), with zone 1's
    // incast flow. V2, in zone 0: NIC 0 of rack 1 to NIC 0 of rack 2, through
    // zone 0's CTSW (which pauses its rack-0 link) on links no incast frame,
    // and no incast ACK, crosses.
    static constexpr uint64_t v1Bytes = 4000000;
    static constexpr uint64_t v2Bytes = 8000000;
    auto [v1tx, v1rx] = roce.CreateQp(z.GetNic(Gpu(1, 0, 1)), z.GetNic(Gpu(1, 1, 1)));
    auto [v2tx, v2rx] = roce.CreateQp(z.GetNic(Gpu(0, 1, 0)), z.GetNic(Gpu(0, 2, 0)));
    Ptr<RoceQueuePair> v1s = v1tx;
    Ptr<RoceQueuePair> v2s = v2tx;
    Simulator::Schedule(VICTIMS_START, [v1s, v2s, &r]() {
        v1s->PostWrite(v1Bytes);
        v2s->PostWrite(v2Bytes,
                       Callback<void, const RoceCompletion&>(
                           [&r](const RoceCompletion& c) { r.v2Done = c.completed; }));
    });
    r.expectedBytes += v1Bytes + v2Bytes;
    uint64_t v1From = 0;
    uint64_t v2From = 0;
    Ptr<RoceQueuePair> v1r = v1rx;
    Ptr<RoceQueuePair> v2r = v2rx;
    Simulator::Schedule(WINDOW_FROM, [&]() {
        v1From = v1r->GetStats().bytesDelivered;
        v2From = v2r->GetStats().bytesDelivered;
    });
    Simulator::Schedule(WINDOW_TO, [&]() {
        double window = (WINDOW_TO - WINDOW_FROM).GetSeconds();
        r.v1Bps = (v1r->GetStats().bytesDelivered - v1From) * 8.0 / window;
        r.v2Bps = (v2r->GetStats().bytesDelivered - v2From) * 8.0 / window;
    });
    Simulator::Run();

    r.incastFirstDone = *std::min_element(incastDone.begin(), incastDone.end());
    for (auto& [node, tier] : tierOf)
    {
        Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
        for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
        {
            Ptr<RoceSwitchPort> port = sw->GetPort(i);
            uint64_t n = port->GetPfcStats().pauseTx[PRIO];
            r.ports[PeekPointer(port)].pauseTx = n;
            r.tierPauses[tier] += n;
            r.pauseHeld = r.pauseHeld || port->IsXoff(PRIO) || port->IsPaused(PRIO);
        }
    }
    for (uint32_t g : senders)
    {
        r.senderPauseRx.push_back(z.GetNic(g)->GetPfcStats().pauseRx[PRIO]);
    }
    r.v2PauseRx = z.GetNic(Gpu(0, 1, 0))->GetPfcStats().pauseRx[PRIO] +
                  z.GetNic(Gpu(0, 2, 0))->GetPfcStats().pauseRx[PRIO];
    r.stats = RoceFabricStats::Collect();
    checks(z, r);
    Simulator::Destroy();
    return r;
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
 * PFC across three tiers: the incast meets at the ATSW's port to zone 4.
 * The ATSW pauses the four CTSWs' ATSW-facing ports; each CTSW, its egress
 * blocked, pauses its rack-0 RTSW; each RTSW pauses its sender's NIC, in that
 * order. V1 shares one paused link and runs below half of it; V2 shares none
 * and runs at the line rate's payload share; nothing is dropped.
 */
class PfcThreeTierTestCase : public TestCase
{
  public:
    PfcThreeTierTestCase()
        : TestCase("PFC across three tiers: an incast at an ATSW pauses back through CTSW and "
                   "RTSW to the senders; a victim sharing a paused link slows, one sharing "
                   "none does not")
    {
    }

  private:
    void DoRun() override
    {
        PfcRun r = RunThreeTierIncast([this](const RoceAiZone& z, PfcRun& run) {
            Ptr<Node> atsw = z.atsw.Get(0);
            auto pauses = [&](Ptr<Node> sw, Ptr<Node> peer) -> const PausePort& {
                return run.ports[PeekPointer(PortTowards(sw, peer))];
            };
            auto rtsw = [&](uint32_t zone, uint32_t rack) {
                return z.rtsw.Get(zone * PFC_RACKS + rack);
            };
            for (uint32_t zone = 0; zone < 4; ++zone)
            {
                Ptr<Node> ctsw = z.ctsw.Get(zone);
                // Hop 1: the ATSW pauses the zone's CTSW.
                const PausePort& a = pauses(atsw, ctsw);
                NS_TEST_EXPECT_MSG_GT(a.pauseTx, 0u, "the ATSW never paused CTSW " << zone);
                // Hop 2: the CTSW pauses the senders' RTSW, after hop 1.
                const PausePort& c = pauses(ctsw, rtsw(zone, 0));
                NS_TEST_EXPECT_MSG_GT(c.pauseTx,
                                      0u,
                                      "CTSW " << zone << " never paused RTSW " << zone << ".0");
                if (c.pauseTx > 0 && a.pauseTx > 0)
                {
                    NS_TEST_EXPECT_MSG_GT(c.firstXoff,
                                          a.firstXoff,
                                          "CTSW " << zone << " paused its RTSW before the ATSW "
                                                  << "paused it");
                }
                // Hop 3: the RTSW pauses the sender's NIC, after hop 2.
                Ptr<Node> sender = z.GetNic(Gpu(zone, 0, 0))->GetNode();
                const PausePort& t = pauses(rtsw(zone, 0), sender);
                NS_TEST_EXPECT_MSG_GT(t.pauseTx,
                                      0u,
                                      "RTSW " << zone << ".0 never paused "
                                              << "its sender");
                if (t.pauseTx > 0 && c.pauseTx > 0)
                {
                    NS_TEST_EXPECT_MSG_GT(t.firstXoff,
                                          c.firstXoff,
                                          "RTSW " << zone << ".0 paused its sender before its "
                                                  << "CTSW paused it");
                }
                auto first = [](const PausePort& p) {
                    std::ostringstream os;
                    os << p.pauseTx << " (first XOFF ";
                    if (p.pauseTx > 0)
                    {
                        os << p.firstXoff.As(Time::US) << ")";
                    }
                    else
                    {
                        os << "none)";
                    }
                    return os.str();
                };
                std::cout << "rocev2-ai-zone-fabric PFC: zone " << zone
                          << " PAUSE frames: ATSW->CTSW " << first(a) << ", CTSW->RTSW " << first(c)
                          << ", RTSW->NIC " << first(t) << "\n";
                if (t.pauseTx > 0)
                {
                    NS_TEST_EXPECT_MSG_LT(t.firstXoff,
                                          VICTIMS_START,
                                          "the pause chain of zone "
                                              << zone << " formed after the victims started");
                }
                // Nothing downstream of the bottleneck pauses.
                NS_TEST_EXPECT_MSG_EQ(pauses(ctsw, atsw).pauseTx,
                                      0u,
                                      "CTSW " << zone << " paused the ATSW");
            }
            // Zone 4 receives at the ATSW's drain rate: no pause there.
            NS_TEST_EXPECT_MSG_EQ(pauses(atsw, z.ctsw.Get(4)).pauseTx,
                                  0u,
                                  "the ATSW paused the receiver's CTSW");
            // V2's links: never paused.
            NS_TEST_EXPECT_MSG_EQ(pauses(z.ctsw.Get(0), rtsw(0, 1)).pauseTx,
                                  0u,
                                  "CTSW 0 paused V2's RTSW");
            NS_TEST_EXPECT_MSG_EQ(pauses(rtsw(0, 2), z.ctsw.Get(0)).pauseTx,
                                  0u,
                                  "V2's receiving RTSW paused CTSW 0");
        });

        std::cout << "rocev2-ai-zone-fabric PFC: pauses sent per tier: ATSW "
                  << r.tierPauses["ATSW"] << ", CTSW " << r.tierPauses["CTSW"] << ", RTSW "
                  << r.tierPauses["RTSW"] << "; V1 " << r.v1Bps / 1e9 << " Gb/s, V2 "
                  << r.v2Bps / 1e9 << " Gb/s\n";
        for (const char* tier : {"ATSW", "CTSW", "RTSW"})
        {
            NS_TEST_EXPECT_MSG_GT(r.tierPauses[tier], 0u, tier << " tier sent no PAUSE");
        }
        for (std::size_t i = 0; i < r.senderPauseRx.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_GT(r.senderPauseRx[i], 0u, "incast sender " << i << " never paused");
        }
        NS_TEST_EXPECT_MSG_EQ(r.v2PauseRx, 0u, "V2's NICs were paused");

        // The window lies inside the incast and inside V2's transfer.
        NS_TEST_EXPECT_MSG_GT(r.incastFirstDone, WINDOW_TO, "incast over before the window ended");
        NS_TEST_EXPECT_MSG_GT(r.v2Done, WINDOW_TO, "V2 done before the window ended");
        // The oracles. Goodput at line rate: every packet carries ZONE_MTU
        // bytes in ZONE_MTU + 58 (Ethernet, IPv4, UDP, BTH, ICRC) + 24 (FCS,
        // preamble, SFD, gap) on the wire (the window holds no first packet,
        // whose RETH adds 16).
        const double line =
            PFC_RATE.GetBitRate() * double(ZONE_MTU) / (ZONE_MTU + FRAME_OVERHEAD + WIRE_EXTRA);
        // V1 shares its paused link with one incast flow: its line-rate
        // share is half the link. PFC holds it below that, at about the
        // incast flow's rate (the link's FIFO interleaves them).
        NS_TEST_EXPECT_MSG_LT(r.v1Bps, line / 2, "V1 not slowed below its share of the link");
        // V2 crosses no paused link and nothing else crosses its links: the
        // line rate less the wire overhead, up to one packet in the window
        // (4096 B in 300 us: 0.11 Gb/s).
        NS_TEST_EXPECT_MSG_EQ_TOL(r.v2Bps,
                                  line,
                                  0.002 * line,
                                  "V2, which shares no paused link, is not at line rate");

        NS_TEST_EXPECT_MSG_EQ(r.stats.drops, 0u, "a lossless class dropped");
        NS_TEST_EXPECT_MSG_EQ(r.stats.retransmits, 0u, "retransmissions");
        NS_TEST_EXPECT_MSG_EQ(r.stats.bytesDelivered, r.expectedBytes, "bytes missing");
        NS_TEST_EXPECT_MSG_EQ(r.stats.bufferedBytes, 0u, "a switch buffer did not drain");
        NS_TEST_EXPECT_MSG_EQ(r.pauseHeld, false, "a pause is still held at the end");
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
        std::cout << "rocev2-ai-zone-fabric ECMP, 2 tiers:\n" << Describe(r);
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
            std::cout << "rocev2-ai-zone-fabric ECMP, 3 tiers" << (eEcmp ? ", E-ECMP" : "") << ":\n"
                      << Describe(r);
            Check(r,
                  {"RTSW up", "CTSW up", "ATSW down", "CTSW down"},
                  eEcmp ? "3 tiers, E-ECMP" : "3 tiers");
        }
    }
};

/**
 * \ingroup rocev2
 * AI Zones as fabrics: PFC hop by hop across three tiers, ECMP balance on 2- and 3-tier zones.
 */
class RoceAiZoneFabricTestSuite : public TestSuite
{
  public:
    RoceAiZoneFabricTestSuite()
        : TestSuite("rocev2-ai-zone-fabric", SYSTEM)
    {
        AddTestCase(new ChiSquareQuantileTestCase, TestCase::QUICK);
        AddTestCase(new PfcThreeTierTestCase, TestCase::QUICK);
        AddTestCase(new EcmpTwoTierTestCase, TestCase::QUICK);
        AddTestCase(new EcmpThreeTierTestCase, TestCase::QUICK);
    }
};

static RoceAiZoneFabricTestSuite g_roceAiZoneFabricTestSuite; //!< static instance
