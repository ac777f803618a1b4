/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ECMP on real packets (leaf-spine, E-ECMP, polarisation across two tiers),
// measured on the frames the switch ports put on the wire. Egress
// scheduling is in rocev2-scheduler-test-suite.cc.

#include "../rocev2-frame-bytes.h"

#include "ns3/boolean.h"
#include "ns3/node-container.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// Chi-square quantiles at p = 0.001 (upper tail), from the standard table.
constexpr double CHI2_7DOF_P001 = 24.322;
constexpr double CHI2_28DOF_P001 = 56.892;

/// What identifies a flow to ECMP: the 5-tuple, plus the destination QP.
struct FlowKey
{
    uint32_t srcIp;  //!< source address
    uint32_t dstIp;  //!< destination address
    uint16_t sport;  //!< UDP source port
    uint16_t dport;  //!< UDP destination port
    uint8_t proto;   //!< IP protocol
    uint32_t destQp; //!< BTH destination QP (0 in a plain 5-tuple key)

    /// \param o another key \return ordering for std::map
    bool operator<(const FlowKey& o) const
    {
        return std::tie(srcIp, dstIp, sport, dport, proto, destQp) <
               std::tie(o.srcIp, o.dstIp, o.sport, o.dport, o.proto, o.destQp);
    }
};

/// Frames of one flow seen on the traced ports.
struct FlowRecord
{
    uint64_t dataFrames{0}; //!< data frames
    uint64_t dataBytes{0};  //!< their bytes (MacTx size)
};

/**
 * Records which traced port (uplink) each flow's frames leave by.
 */
struct UplinkTrace
{
    /// 5-tuple -> uplinks its frames (data and ACK) left by
    std::map<FlowKey, std::set<uint32_t>> pathsBy5Tuple;
    /// 5-tuple + destination QP -> uplinks its frames left by
    std::map<FlowKey, std::set<uint32_t>> pathsByQp;
    /// data flow (5-tuple + QP) -> frames and bytes
    std::map<FlowKey, FlowRecord> dataFlows;
};

/**
 * MacTx sink of a traced uplink.
 * \param trace where to record
 * \param uplink the uplink's index in the test
 * \param p the frame
 */
void
OnUplinkTx(UplinkTrace* trace, uint32_t uplink, Ptr<const Packet> p)
{
    RoceFrame f = RoceFrame::Parse(*p);
    if (!f.isRoce)
    {
        return; // PFC frames
    }
    FlowKey k{f.srcIp, f.dstIp, f.sport, f.dport, f.ipProto, 0};
    trace->pathsBy5Tuple[k].insert(uplink);
    k.destQp = f.destQp;
    trace->pathsByQp[k].insert(uplink);
    if (IsDataOpcode(f.opcode))
    {
        FlowRecord& r = trace->dataFlows[k];
        ++r.dataFrames;
        r.dataBytes += p->GetSize();
    }
}

/**
 * \param counts observed count per bin
 * \return Pearson's chi-square statistic against equal expected counts
 */
double
ChiSquare(const std::vector<uint32_t>& counts)
{
    double total = 0;
    for (uint32_t c : counts)
    {
        total += c;
    }
    double mean = total / counts.size();
    double chi2 = 0;
    for (uint32_t c : counts)
    {
        chi2 += (c - mean) * (c - mean) / mean;
    }
    return chi2;
}

/**
 * \param msg message bytes
 * \return frames of one RDMA WRITE of msg bytes
 */
uint64_t
WriteFrames(uint64_t msg)
{
    return (msg + MTU - 1) / MTU;
}

/**
 * \param msg message bytes
 * \return bytes (MacTx sizes) of the frames of one RDMA WRITE of msg bytes
 */
uint64_t
WriteFrameBytes(uint64_t msg)
{
    return msg + WriteFrames(msg) * FRAME_OVERHEAD + RETH_BYTES;
}

/**
 * \param qps queue pairs that received
 * \return packets they received beyond a PSN gap, summed
 */
uint64_t
OutOfOrder(const std::vector<Ptr<RoceQueuePair>>& qps)
{
    uint64_t n = 0;
    for (const auto& qp : qps)
    {
        n += qp->GetStats().outOfOrderReceived;
    }
    return n;
}

} // namespace

/**
 * \ingroup rocev2
 * ECMP on real packets in a leaf-spine: each flow's frames leave its leaf by
 * exactly one uplink, flows spread over the uplinks as balls into bins,
 * every byte arrives, nothing is dropped.
 */
class EcmpLeafSpineTestCase : public TestCase
{
  public:
    EcmpLeafSpineTestCase()
        : TestCase("ECMP on packets: 4 leaves x 8 spines, 384 QPs, one path per flow, "
                   "balls into bins")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t nLeaves = 4;
        const uint32_t nSpines = 8;
        const uint32_t hostsPerLeaf = 4;
        const uint32_t qpsPerPair = 8;
        const uint64_t msg = 16 * MTU;

        NodeContainer leaves(nLeaves);
        NodeContainer spines(nSpines);
        NodeContainer hosts(nLeaves * hostsPerLeaf);
        RoceSwitchHelper sh;
        sh.Install(leaves);
        sh.Install(spines);
        RoceHelper roce;
        std::vector<Ptr<NetDevice>> nics;
        for (uint32_t h = 0; h < hosts.GetN(); ++h)
        {
            nics.push_back(roce.Install(hosts.Get(h), leaves.Get(h / hostsPerLeaf)).Get(0));
        }
        // uplink index u = leaf * nSpines + spine
        UplinkTrace trace;
        std::vector<Ptr<RocePfcNetDevice>> uplinks;
        for (uint32_t l = 0; l < nLeaves; ++l)
        {
            for (uint32_t s = 0; s < nSpines; ++s)
            {
                Ptr<RocePfcNetDevice> port = DynamicCast<RocePfcNetDevice>(
                    roce.Install(leaves.Get(l), spines.Get(s)).Get(0));
                uint32_t u = static_cast<uint32_t>(uplinks.size());
                port->TraceConnectWithoutContext("MacTx",
                                                 MakeBoundCallback(&OnUplinkTx, &trace, u));
                uplinks.push_back(port);
            }
        }
        RoceSwitchHelper::PopulateRoutes();

        // Every host writes to the same-numbered host of every other leaf.
        std::vector<Ptr<RoceQueuePair>> receivers;
        uint32_t flows = 0;
        for (uint32_t l = 0; l < nLeaves; ++l)
        {
            for (uint32_t h = 0; h < hostsPerLeaf; ++h)
            {
                for (uint32_t d = 1; d < nLeaves; ++d)
                {
                    uint32_t src = l * hostsPerLeaf + h;
                    uint32_t dst = ((l + d) % nLeaves) * hostsPerLeaf + h;
                    for (uint32_t q = 0; q < qpsPerPair; ++q)
                    {
                        auto [qa, qb] = roce.CreateQp(nics[src], nics[dst]);
                        qa->PostWrite(msg);
                        receivers.push_back(qb);
                        ++flows;
                    }
                }
            }
        }
        Simulator::Run();
        RoceFabricStats stats = RoceFabricStats::Collect();

        NS_TEST_ASSERT_MSG_EQ(stats.drops, 0, "frames dropped in a lossless fabric");
        NS_TEST_ASSERT_MSG_EQ(stats.retransmits, 0, "retransmissions");
        NS_TEST_ASSERT_MSG_EQ(stats.bytesDelivered, flows * msg, "bytes missing");
        NS_TEST_ASSERT_MSG_EQ(stats.bufferedBytes, 0, "switch buffers did not drain");
        NS_TEST_ASSERT_MSG_EQ(OutOfOrder(receivers), 0, "packets arrived out of order");

        // One path per flow: every 5-tuple (data and ACK directions) leaves
        // its leaf by exactly one uplink.
        NS_TEST_ASSERT_MSG_GT(trace.pathsBy5Tuple.size(), 0, "nothing crossed an uplink");
        for (const auto& [key, paths] : trace.pathsBy5Tuple)
        {
            NS_TEST_ASSERT_MSG_EQ(paths.size(),
                                  1,
                                  "5-tuple with sport " << key.sport << " left by " << paths.size()
                                                        << " uplinks");
        }
        // Every data flow crossed exactly once: its frames and bytes are
        // those of one 16-packet WRITE, all on its one uplink.
        NS_TEST_ASSERT_MSG_EQ(trace.dataFlows.size(), flows, "data flows seen on the uplinks");
        std::vector<std::vector<uint32_t>> flowsPerUplink(nLeaves,
                                                          std::vector<uint32_t>(nSpines, 0));
        for (const auto& [key, rec] : trace.dataFlows)
        {
            NS_TEST_ASSERT_MSG_EQ(rec.dataFrames, WriteFrames(msg), "data frames of a flow");
            NS_TEST_ASSERT_MSG_EQ(rec.dataBytes, WriteFrameBytes(msg), "data bytes of a flow");
            uint32_t u = *trace.pathsByQp.at(key).begin();
            ++flowsPerUplink[u / nSpines][u % nSpines];
        }

        // Balls into bins, counted per flow: each leaf puts 96 flows into 8
        // uplinks (expected 12 each). Under a uniform hash the sum of the
        // four leaves' Pearson statistics is chi-square with 4 x 7 = 28
        // degrees of freedom; it exceeds 56.89 with probability 0.001.
        double chi2 = 0;
        for (uint32_t l = 0; l < nLeaves; ++l)
        {
            chi2 += ChiSquare(flowsPerUplink[l]);
        }
        NS_TEST_ASSERT_MSG_LT(chi2,
                              CHI2_28DOF_P001,
                              "flows not spread over uplinks like balls into bins");
        Simulator::Destroy();
    }
};

namespace
{

/// What one run of the E-ECMP scenario saw.
struct EEcmpResult
{
    std::vector<uint32_t> qpsPerUplink; //!< data QPs per uplink of the sender's leaf
    bool onePathPer5Tuple{true};        //!< every 5-tuple left by one uplink
    bool onePathPerQp{true};            //!< every (5-tuple, QP) left by one uplink
    uint32_t distinctDataSports{0};     //!< UDP source ports among the data flows
    uint32_t dataFlows{0};              //!< data flows seen
    RoceFabricStats stats;              //!< fabric counters
    uint64_t outOfOrder{0};             //!< out-of-order arrivals
};

/**
 * One host pair across a 2-leaf, 8-spine fabric with many QPs.
 * \param qps number of QPs
 * \param sourcePort RoceQueuePair SourcePort (0 = derived per QP)
 * \param useQp RoceSwitch EcmpUseQp (E-ECMP)
 * \param msg bytes each QP writes
 * \return what the leaf's uplinks saw
 */
EEcmpResult
RunHostPair(uint32_t qps, uint16_t sourcePort, bool useQp, uint64_t msg)
{
    const uint32_t nSpines = 8;
    NodeContainer leaves(2);
    NodeContainer spines(nSpines);
    NodeContainer hosts(2);
    RoceSwitchHelper sh;
    sh.SetSwitchAttribute("EcmpUseQp", BooleanValue(useQp));
    sh.Install(leaves);
    sh.Install(spines);
    RoceHelper roce;
    roce.SetQpAttribute("SourcePort", UintegerValue(sourcePort));
    Ptr<NetDevice> a = roce.Install(hosts.Get(0), leaves.Get(0)).Get(0);
    Ptr<NetDevice> b = roce.Install(hosts.Get(1), leaves.Get(1)).Get(0);
    UplinkTrace trace;
    for (uint32_t s = 0; s < nSpines; ++s)
    {
        Ptr<NetDevice> up = roce.Install(leaves.Get(0), spines.Get(s)).Get(0);
        up->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&OnUplinkTx, &trace, s));
        roce.Install(leaves.Get(1), spines.Get(s));
    }
    RoceSwitchHelper::PopulateRoutes();
    std::vector<Ptr<RoceQueuePair>> receivers;
    for (uint32_t q = 0; q < qps; ++q)
    {
        auto [qa, qb] = roce.CreateQp(a, b);
        qa->PostWrite(msg);
        receivers.push_back(qb);
    }
    Simulator::Run();
    EEcmpResult r;
    r.stats = RoceFabricStats::Collect();
    r.outOfOrder = OutOfOrder(receivers);
    r.qpsPerUplink.assign(nSpines, 0);
    std::set<uint16_t> sports;
    for (const auto& [key, rec] : trace.dataFlows)
    {
        ++r.qpsPerUplink[*trace.pathsByQp.at(key).begin()];
        sports.insert(key.sport);
    }
    r.dataFlows = static_cast<uint32_t>(trace.dataFlows.size());
    r.distinctDataSports = static_cast<uint32_t>(sports.size());
    for (const auto& [key, paths] : trace.pathsBy5Tuple)
    {
        r.onePathPer5Tuple = r.onePathPer5Tuple && paths.size() == 1;
    }
    for (const auto& [key, paths] : trace.pathsByQp)
    {
        r.onePathPerQp = r.onePathPerQp && paths.size() == 1;
    }
    Simulator::Destroy();
    return r;
}

/**
 * \param bins counts per bin
 * \return bins with a count above zero
 */
uint32_t
UsedBins(const std::vector<uint32_t>& bins)
{
    return static_cast<uint32_t>(
        std::count_if(bins.begin(), bins.end(), [](uint32_t c) { return c > 0; }));
}

} // namespace

/**
 * \ingroup rocev2
 * E-ECMP on real packets: 32 QPs of one host pair with the same UDP source
 * port share one uplink under plain ECMP and spread over the uplinks when
 * the switches also hash the destination QP.
 */
class EEcmpTestCase : public TestCase
{
  public:
    EEcmpTestCase()
        : TestCase("E-ECMP on packets: 32 QPs with one 5-tuple share an uplink, hashing the "
                   "QP spreads them")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t qps = 32;
        const uint64_t msg = 8 * MTU;
        const uint16_t sport = 0xC0DE;
        // 32 QPs into 8 uplinks: at least 6 are used except with probability
        // C(8,5) (5/8)^32 < 2e-5, and the Pearson statistic (7 degrees of
        // freedom) exceeds 24.32 with probability 0.001.
        const uint32_t minUsed = 6;

        // Plain ECMP, same sport: one 5-tuple, so one uplink carries every QP.
        EEcmpResult same = RunHostPair(qps, sport, false, msg);
        NS_TEST_ASSERT_MSG_EQ(same.dataFlows, qps, "data QPs seen on the uplinks");
        NS_TEST_ASSERT_MSG_EQ(same.distinctDataSports, 1, "the QPs did not share their sport");
        NS_TEST_ASSERT_MSG_EQ(UsedBins(same.qpsPerUplink),
                              1,
                              "plain ECMP split one 5-tuple over several uplinks");
        NS_TEST_ASSERT_MSG_EQ(same.onePathPer5Tuple, true, "a 5-tuple took several paths");

        // E-ECMP, same sport: the destination QP separates them.
        EEcmpResult eecmp = RunHostPair(qps, sport, true, msg);
        NS_TEST_ASSERT_MSG_EQ(eecmp.dataFlows, qps, "data QPs seen on the uplinks");
        NS_TEST_ASSERT_MSG_EQ(eecmp.distinctDataSports, 1, "the QPs did not share their sport");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(UsedBins(eecmp.qpsPerUplink),
                                    minUsed,
                                    "E-ECMP did not spread the QPs over the uplinks");
        NS_TEST_ASSERT_MSG_LT(ChiSquare(eecmp.qpsPerUplink),
                              CHI2_7DOF_P001,
                              "E-ECMP spread far from balls into bins");
        NS_TEST_ASSERT_MSG_EQ(eecmp.onePathPerQp, true, "a QP took several paths");

        // Plain ECMP with the default per-QP source ports spreads them too.
        EEcmpResult derived = RunHostPair(qps, 0, false, msg);
        NS_TEST_ASSERT_MSG_EQ(derived.distinctDataSports, qps, "QPs without their own sport");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(UsedBins(derived.qpsPerUplink),
                                    minUsed,
                                    "per-QP source ports did not spread the QPs");
        NS_TEST_ASSERT_MSG_EQ(derived.onePathPer5Tuple, true, "a 5-tuple took several paths");

        for (const EEcmpResult* r : {&same, &eecmp, &derived})
        {
            NS_TEST_ASSERT_MSG_EQ(r->stats.drops, 0, "frames dropped");
            NS_TEST_ASSERT_MSG_EQ(r->stats.bytesDelivered, qps * msg, "bytes missing");
            NS_TEST_ASSERT_MSG_EQ(r->stats.retransmits, 0, "retransmissions");
            NS_TEST_ASSERT_MSG_EQ(r->outOfOrder, 0, "packets arrived out of order");
        }
    }
};

namespace
{

/// Load of the second tier in the three-tier scenario.
struct TierLoad
{
    std::vector<uint64_t> bytes; //!< bytes sent by each aggregation-to-core link
    RoceFabricStats stats;       //!< fabric counters
};

/**
 * Hosts - ToR - 2 aggs - 4 cores - 2 aggs - ToR - hosts. The source ToR has
 * two uplinks (one per agg); each source agg has four uplinks (one per
 * core). Flows go from the source pod to the destination pod.
 * \param seed EcmpSeed of every switch (0 = per-switch, from the node id)
 * \param flows number of QPs
 * \param msg bytes each writes
 * \return bytes per second-tier link (agg to core)
 */
TierLoad
RunThreeTier(uint32_t seed, uint32_t flows, uint64_t msg)
{
    const uint32_t nHosts = 4;
    const uint32_t nAggs = 2;
    const uint32_t nCores = 4;
    NodeContainer tors(2);
    NodeContainer aggs(2 * nAggs); // 0,1 source pod; 2,3 destination pod
    NodeContainer cores(nCores);
    NodeContainer hosts(2 * nHosts);
    RoceSwitchHelper sh;
    sh.SetSwitchAttribute("EcmpSeed", UintegerValue(seed));
    sh.Install(tors);
    sh.Install(aggs);
    sh.Install(cores);
    RoceHelper roce;
    std::vector<Ptr<NetDevice>> nics;
    for (uint32_t h = 0; h < 2 * nHosts; ++h)
    {
        nics.push_back(roce.Install(hosts.Get(h), tors.Get(h / nHosts)).Get(0));
    }
    std::vector<Ptr<RocePfcNetDevice>> secondTier;
    for (uint32_t pod = 0; pod < 2; ++pod)
    {
        for (uint32_t a = 0; a < nAggs; ++a)
        {
            Ptr<Node> agg = aggs.Get(pod * nAggs + a);
            roce.Install(tors.Get(pod), agg);
            for (uint32_t c = 0; c < nCores; ++c)
            {
                NetDeviceContainer link = roce.Install(agg, cores.Get(c));
                if (pod == 0)
                {
                    secondTier.push_back(DynamicCast<RocePfcNetDevice>(link.Get(0)));
                }
            }
        }
    }
    RoceSwitchHelper::PopulateRoutes();
    for (uint32_t f = 0; f < flows; ++f)
    {
        uint32_t h = f % nHosts;
        roce.CreateQp(nics[h], nics[nHosts + h]).first->PostWrite(msg);
    }
    Simulator::Run();
    TierLoad r;
    r.stats = RoceFabricStats::Collect();
    for (const auto& port : secondTier)
    {
        r.bytes.push_back(port->GetTxBytes());
    }
    Simulator::Destroy();
    return r;
}

/**
 * \param v loads
 * \return max / mean
 */
double
MaxOverMean(const std::vector<uint64_t>& v)
{
    double sum = 0;
    for (uint64_t x : v)
    {
        sum += x;
    }
    return *std::max_element(v.begin(), v.end()) / (sum / v.size());
}

} // namespace

/**
 * \ingroup rocev2
 * Hash polarisation across two tiers: with one seed on every switch the
 * aggregation switches repeat the ToR's choice and half the agg-to-core
 * links stay idle; per-switch seeds use them all.
 */
class PolarisationTestCase : public TestCase
{
  public:
    PolarisationTestCase()
        : TestCase("shared ECMP seed polarises the second tier; per-switch seeds do not")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t flows = 256;
        const uint64_t msg = 4 * MTU;
        TierLoad shared = RunThreeTier(0x5EED, flows, msg);
        TierLoad perSwitch = RunThreeTier(0, flows, msg);

        for (const TierLoad* r : {&shared, &perSwitch})
        {
            NS_TEST_ASSERT_MSG_EQ(r->stats.drops, 0, "frames dropped");
            NS_TEST_ASSERT_MSG_EQ(r->stats.bytesDelivered, flows * msg, "bytes missing");
            // Every data frame crosses exactly one second-tier link (and
            // nothing else does: ACKs travel core to agg).
            uint64_t total = 0;
            for (uint64_t b : r->bytes)
            {
                total += b;
            }
            NS_TEST_ASSERT_MSG_EQ(total, flows * WriteFrameBytes(msg), "second-tier bytes");
        }

        // Shared seed: a switch picks group[floor(hi32(h) * n / 2^32)] with
        // the same h at every hop. The ToR (n = 2) sends a flow to agg b =
        // top bit of h; that agg (n = 4) then uses cores 2b and 2b+1 only,
        // since the top two bits start with b. So exactly half the eight
        // agg-to-core links carry nothing, and max/mean >= 2 (all bytes on
        // four links).
        uint32_t idleShared = static_cast<uint32_t>(
            std::count(shared.bytes.begin(), shared.bytes.end(), uint64_t(0)));
        NS_TEST_ASSERT_MSG_EQ(idleShared, 4, "a shared seed should leave half the links idle");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(MaxOverMean(shared.bytes), 2.0, "shared seed max/mean");

        // Per-switch seeds: the agg's choice is independent of the ToR's, so
        // each link gets each flow with probability 1/2 * 1/4 = 1/8, i.e.
        // Binomial(256, 1/8) flows (mean 32) of equal bytes. P(some link of 8
        // gets >= 54 flows) <= 8 P(Bin(256, 1/8) >= 54) = 6.3e-4, so
        // max/mean < 54/32 = 1.69 but with probability < 0.001.
        uint32_t idlePerSwitch = static_cast<uint32_t>(
            std::count(perSwitch.bytes.begin(), perSwitch.bytes.end(), uint64_t(0)));
        NS_TEST_ASSERT_MSG_EQ(idlePerSwitch, 0, "per-switch seeds left a link idle");
        NS_TEST_ASSERT_MSG_LT(MaxOverMean(perSwitch.bytes), 54.0 / 32, "per-switch max/mean");
        NS_TEST_ASSERT_MSG_LT(MaxOverMean(perSwitch.bytes),
                              MaxOverMean(shared.bytes),
                              "per-switch seeds no better balanced than a shared seed");
    }
};

/**
 * \ingroup rocev2
 * ECMP on real packets and switch egress scheduling.
 */
class RoceEcmpTestSuite : public TestSuite
{
  public:
    RoceEcmpTestSuite()
        : TestSuite("rocev2-ecmp", Type::SYSTEM)
    {
        AddTestCase(new EcmpLeafSpineTestCase, RoceTestDuration::QUICK);
        AddTestCase(new EEcmpTestCase, RoceTestDuration::QUICK);
        AddTestCase(new PolarisationTestCase, RoceTestDuration::QUICK);
    }
};

/// The suite's instance.
static RoceEcmpTestSuite g_ecmpTestSuite;
