/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceCcHelper: one congestion-control choice applies both halves, the NICs'
 * algorithm and parameters and the switches' marking, on plain fabrics and
 * AI Zones alike; combinations that make no sense are refused. The expected
 * values are the published ones (NVIDIA's ConnectX DCQCN defaults and RoCE
 * lossless-mode marking; DCTCP's K from Alizadeh et al.), written here.
 */

#include "roce-gtest-error.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/queue-size.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-cc-dcqcn.h"
#include "ns3/roce-cc-dctcp.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-cc-hpcc-pint.h"
#include "ns3/roce-cc-hpcc.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <string>

using namespace ns3;

namespace
{

/// The marking a switch port's queue disc was given.
struct Marking
{
    bool enabled{false}; //!< EcnEnabled
    uint32_t kmin{0};    //!< EcnKmin, bytes
    uint32_t kmax{0};    //!< EcnKmax, bytes
    double pmax{0};      //!< EcnPmax
    uint64_t atRate{0};  //!< EcnThresholdRate, bit/s
    Time pintRtt;        //!< PintRtt
};

/** \param node a switch with at least one port \return its first port's marking */
Marking
MarkingOf(Ptr<Node> node)
{
    Ptr<RoceSwitchPort> port;
    for (uint32_t d = 0; d < node->GetNDevices() && !port; ++d)
    {
        port = DynamicCast<RoceSwitchPort>(node->GetDevice(d));
    }
    EXPECT_TRUE(port);
    Ptr<RoceEgressQueueDisc> q = port->GetQueueDisc();
    Marking m;
    BooleanValue enabled;
    QueueSizeValue kmin;
    QueueSizeValue kmax;
    DoubleValue pmax;
    DataRateValue atRate;
    q->GetAttribute("EcnEnabled", enabled);
    q->GetAttribute("EcnKmin", kmin);
    q->GetAttribute("EcnKmax", kmax);
    q->GetAttribute("EcnPmax", pmax);
    q->GetAttribute("EcnThresholdRate", atRate);
    m.enabled = enabled.Get();
    m.kmin = kmin.Get().GetValue();
    m.kmax = kmax.Get().GetValue();
    m.pmax = pmax.Get();
    m.atRate = atRate.Get().GetBitRate();
    TimeValue pintRtt;
    q->GetAttribute("PintRtt", pintRtt);
    m.pintRtt = pintRtt.Get();
    return m;
}

/**
 * \param cc the choice
 * \return the congestion control a NIC gets and the marking of the switch, on
 *         one switch with two hosts
 */
std::pair<Ptr<RoceCongestionOps>, Marking>
Apply(const RoceCcHelper& cc)
{
    NodeContainer sw(1);
    NodeContainer hosts(2);
    RoceHelper roce;
    RoceSwitchHelper switches;
    cc.Configure(roce, switches);
    switches.Install(sw);
    roce.Install(hosts.Get(0), sw.Get(0));
    roce.Install(hosts.Get(1), sw.Get(0));
    auto result = std::make_pair(roce.CreateCongestionControl(), MarkingOf(sw.Get(0)));
    Simulator::Destroy();
    return result;
}

} // namespace

TEST(RoceCcHelper, DcqcnIsTheNvidiaCxPresetWithItsMarking)
{
    auto [nic, marking] = Apply(RoceCcHelper("dcqcn"));
    Ptr<RoceCcDcqcn> dcqcn = DynamicCast<RoceCcDcqcn>(nic);
    ASSERT_TRUE(dcqcn);
    const RoceDcqcnRpParams p = dcqcn->GetRpParams(DataRate("400Gbps"));
    EXPECT_DOUBLE_EQ(p.g, 5.0 / 1024); // dce_tcp_g = 1019 of 1024
    EXPECT_DOUBLE_EQ(p.rateAi, 5e6);
    EXPECT_DOUBLE_EQ(p.rateHai, 50e6);
    EXPECT_DOUBLE_EQ(p.minDecreaseFactor, 0.5);
    // NVIDIA's RoCE lossless mode: 150 KB / 1500 KB, always marked at Kmax,
    // at every rate.
    EXPECT_TRUE(marking.enabled);
    EXPECT_EQ(marking.kmin, 150000u);
    EXPECT_EQ(marking.kmax, 1500000u);
    EXPECT_DOUBLE_EQ(marking.pmax, 1.0);
    EXPECT_EQ(marking.atRate, 0u);
}

TEST(RoceCcHelper, PresetsCarryTheirPublishedMarking)
{
    // Zhu et al. (SIGCOMM'15): Kmin 5 KB, Kmax 200 KB, Pmax 1%.
    Marking paper = Apply(RoceCcHelper("dcqcn", "paper-2015")).second;
    EXPECT_EQ(paper.kmin, 5000u);
    EXPECT_EQ(paper.kmax, 200000u);
    EXPECT_DOUBLE_EQ(paper.pmax, 0.01);
    // The HPCC simulator: 100 KB / 400 KB per 25 Gb/s, Pmax 0.2.
    Marking sim = Apply(RoceCcHelper("dcqcn", "hpcc-sim")).second;
    EXPECT_EQ(sim.kmin, 100000u);
    EXPECT_EQ(sim.kmax, 400000u);
    EXPECT_DOUBLE_EQ(sim.pmax, 0.2);
    EXPECT_EQ(sim.atRate, 25000000000u);
}

TEST(RoceCcHelper, DctcpGetsStepMarking)
{
    auto [nic, marking] = Apply(RoceCcHelper("dctcp"));
    EXPECT_TRUE(DynamicCast<RoceCcDctcp>(nic));
    // K = 30 KB at 100 Gb/s: above C x RTT / 7 = 54 KB / 7 over 1 us links.
    EXPECT_TRUE(marking.enabled);
    EXPECT_EQ(marking.kmin, 30000u);
    EXPECT_EQ(marking.kmax, 30000u);
    EXPECT_DOUBLE_EQ(marking.pmax, 1.0);
    EXPECT_EQ(marking.atRate, 100000000000u);

    RoceCcHelper k("dctcp");
    k.SetStepMarking(QueueSize("60KB"), DataRate("400Gbps"));
    Marking custom = Apply(k).second;
    EXPECT_EQ(custom.kmin, 60000u);
    EXPECT_EQ(custom.kmax, 60000u);
    EXPECT_EQ(custom.atRate, 400000000000u);
}

TEST(RoceCcHelper, HpccAndNoneKeepTheDefaultMarking)
{
    const Marking defaults = Apply(RoceCcHelper()).second;
    auto [hpcc, marking] = Apply(RoceCcHelper("hpcc"));
    EXPECT_TRUE(DynamicCast<RoceCcHpcc>(hpcc));
    EXPECT_EQ(marking.kmin, defaults.kmin);
    EXPECT_EQ(marking.kmax, defaults.kmax);
    EXPECT_DOUBLE_EQ(marking.pmax, defaults.pmax);
}

TEST(RoceCcHelper, HpccPintGivesTheSwitchesItsBaseRtt)
{
    // Without a BaseRtt the switches keep PintRtt 0 (a PINT frame then
    // aborts, naming the attribute); with one, they average over it.
    auto [plain, none] = Apply(RoceCcHelper("hpcc-pint"));
    EXPECT_TRUE(DynamicCast<RoceCcHpccPint>(plain));
    EXPECT_EQ(none.pintRtt, Time(0));
    RoceCcHelper cc("hpcc-pint");
    cc.SetAttribute("BaseRtt", TimeValue(MicroSeconds(9)));
    EXPECT_EQ(Apply(cc).second.pintRtt, MicroSeconds(9));
}

TEST(RoceCcHelper, AttributesOverThePreset)
{
    RoceCcHelper cc("dcqcn", "paper-2015");
    cc.SetAttribute("RateAi", DataRateValue(DataRate("20Mbps")));
    Ptr<RoceCcDcqcn> dcqcn = DynamicCast<RoceCcDcqcn>(Apply(cc).first);
    ASSERT_TRUE(dcqcn);
    const RoceDcqcnRpParams p = dcqcn->GetRpParams(DataRate("100Gbps"));
    EXPECT_DOUBLE_EQ(p.rateAi, 20e6);
    EXPECT_DOUBLE_EQ(p.g, 1.0 / 256); // the rest is the preset's
}

TEST(RoceCcHelper, NonsenseIsRefused)
{
    EXPECT_ROCE_ERROR(RoceCcHelper("hpcc", "nvidia-cx"),
                      "DCQCN preset 'nvidia-cx' \\(--dcqcn-preset\\) needs congestion control "
                      "dcqcn, not 'hpcc' \\(--cc\\)");
    RoceCcHelper dcqcn("dcqcn");
    EXPECT_ROCE_ERROR(dcqcn.SetStepMarking(QueueSize("30KB"), DataRate("100Gbps")),
                      "step marking \\(K = 30000B\\) is DCTCP's; congestion control 'dcqcn' "
                      "\\(--cc\\) marks as its preset nvidia-cx says");
    EXPECT_ROCE_ERROR(dcqcn.SetAttribute("Eta", DoubleValue(0.95)),
                      "congestion control dcqcn: .*Eta");
    EXPECT_ROCE_ERROR(RoceCcHelper("reno"), "unknown congestion control 'reno'");
}

TEST(RoceCcHelper, AiZoneSwitchesOfEveryTierMarkAsThePreset)
{
    RoceAiZoneHelper zone;
    zone.SetGpus(32);
    zone.SetUplinks(2);
    zone.SetCtsws(2);
    RoceCcHelper("dcqcn", "paper-2015").Configure(zone);
    RoceAiZone fabric = zone.Build();
    for (Ptr<Node> sw : {fabric.rtsw.Get(0), fabric.ctsw.Get(0)})
    {
        Marking m = MarkingOf(sw);
        EXPECT_EQ(m.kmin, 5000u) << "switch node " << sw->GetId();
        EXPECT_EQ(m.kmax, 200000u) << "switch node " << sw->GetId();
    }
    Ptr<RoceCcDcqcn> nic = DynamicCast<RoceCcDcqcn>(zone.GetRoceHelper().CreateCongestionControl());
    ASSERT_TRUE(nic);
    EXPECT_DOUBLE_EQ(nic->GetRpParams(DataRate("400Gbps")).rateAi, 40e6);
    Simulator::Destroy();
}

TEST(RoceCcHelper, ChangedDefaultsWinOverThePreset)
{
    // As --ns3::RoceCcDcqcn::RateAi=20Mbps and
    // --ns3::RoceEgressQueueDisc::EcnKmin=50KB on a command line.
    Config::SetDefault("ns3::RoceCcDcqcn::RateAi", DataRateValue(DataRate("20Mbps")));
    Config::SetDefault("ns3::RoceEgressQueueDisc::EcnKmin", QueueSizeValue(QueueSize("50KB")));
    auto [nic, marking] = Apply(RoceCcHelper("dcqcn"));
    Ptr<RoceCcDcqcn> dcqcn = DynamicCast<RoceCcDcqcn>(nic);
    ASSERT_TRUE(dcqcn);
    const RoceDcqcnRpParams p = dcqcn->GetRpParams(DataRate("100Gbps"));
    EXPECT_DOUBLE_EQ(p.rateAi, 20e6);  // the user's
    EXPECT_DOUBLE_EQ(p.rateHai, 50e6); // nvidia-cx's
    EXPECT_EQ(marking.kmin, 50000u);   // the user's
    EXPECT_EQ(marking.kmax, 1500000u); // nvidia-cx's
    const Marking dctcp = Apply(RoceCcHelper("dctcp")).second;
    EXPECT_EQ(dctcp.kmin, 50000u); // a changed ECN default: no step marking
    EXPECT_NE(dctcp.kmax, 30000u);
    RoceCcHelper k("dctcp");
    k.SetStepMarking(QueueSize("60KB"), DataRate("100Gbps"));
    const Marking chosen = Apply(k).second; // a K chosen here still applies
    EXPECT_EQ(chosen.kmin, 60000u);
    EXPECT_EQ(chosen.kmax, 60000u);
    Config::Reset();
}
