/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceHpccConfig reads the config.txt of the HPCC-lineage simulators (the
 * key set their experiment scripts write), refuses malformed lines with
 * file:line and the key, lists what it reads but does not model, and applies
 * the keys to the fabric: the values asserted here are the keys' values
 * converted by the lineage's units (microseconds, KB, MiB, bytes).
 */

#include "roce-gtest-error.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/global-value.h"
#include "ns3/integer.h"
#include "ns3/pointer.h"
#include "ns3/queue-size.h"
#include "ns3/roce-cc-dcqcn.h"
#include "ns3/roce-cc-dctcp-rate.h"
#include "ns3/roce-cc-hpcc-pint.h"
#include "ns3/roce-cc-hpcc.h"
#include "ns3/roce-cc-timely.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-fct-stats.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-hpcc-config.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-shared-buffer-mmu.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

using namespace ns3;

namespace
{

/** \return the path of a temporary file holding text */
std::string
Write(const std::string& name, const std::string& text)
{
    // One file per process: ctest runs tests in parallel processes,
    // and several of them write the same names.
    const std::string path =
        "/tmp/rocev2-hpcc-config-" + std::to_string(getpid()) + "-" + name + ".txt";
    std::ofstream(path) << text;
    return path;
}

/**
 * A DCQCN config as that lineage's run script writes it for 100 Gb/s NICs
 * (its key set and order), with the reference topology and flows.
 */
const std::string DCQCN = R"(ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1

PACKET_PAYLOAD_SIZE 1000

TOPOLOGY_FILE data/hpcc-format/fat-tree-320.txt
FLOW_FILE data/hpcc-format/websearch-320-30pct-10ms.txt
TRACE_FILE mix/trace.txt
TRACE_OUTPUT_FILE mix/mix.tr
FCT_OUTPUT_FILE /tmp/fct_dcqcn.txt
PFC_OUTPUT_FILE /tmp/pfc_dcqcn.txt

SIMULATOR_STOP_TIME 4.00

CC_MODE 1
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 300
EWMA_GAIN 0.00390625
FAST_RECOVERY_TIMES 1
RATE_AI 20Mb/s
RATE_HAI 200Mb/s
MIN_RATE 1000Mb/s
DCTCP_RATE_AI 1000Mb/s

ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0

HAS_WIN 0
GLOBAL_T 1
VAR_WIN 0
FAST_REACT 0
U_TARGET 0.95
MI_THRESH 0
INT_MULTI 1
MULTI_RATE 0
SAMPLE_FEEDBACK 0
PINT_LOG_BASE 1.05
PINT_PROB 1.0

RATE_BOUND 1

ACK_HIGH_PRIO 1

LINK_DOWN 0 0 0

ENABLE_TRACE 0

KMAX_MAP 2 100000000000 1600 400000000000 6400
KMIN_MAP 2 100000000000 400 400000000000 1600
PMAX_MAP 2 100000000000 0.20 400000000000 0.20
BUFFER_SIZE 32
QLEN_MON_FILE /tmp/qlen_dcqcn.txt
QLEN_MON_START 2000000000
QLEN_MON_END 3000000000
)";

} // namespace

TEST(HpccConfig, ReadsTheLineagesDcqcnConfig)
{
    const RoceHpccConfig c = RoceHpccConfig::Read(Write("dcqcn", DCQCN));
    EXPECT_EQ(c.GetCcName(), "dcqcn");
    EXPECT_EQ(c.topologyFile, "data/hpcc-format/fat-tree-320.txt");
    EXPECT_EQ(c.flowFile, "data/hpcc-format/websearch-320-30pct-10ms.txt");
    EXPECT_EQ(c.fctFile, "/tmp/fct_dcqcn.txt");
    EXPECT_EQ(c.pfcFile, "/tmp/pfc_dcqcn.txt");
    EXPECT_EQ(c.qlenFile, "/tmp/qlen_dcqcn.txt");
    EXPECT_EQ(c.qlenStart, Seconds(2));
    EXPECT_EQ(c.qlenEnd, Seconds(3));
    EXPECT_EQ(c.stopTime, Seconds(4));
    EXPECT_EQ(c.lines.at("CC_MODE"), 15u);
    // KMAX_MAP in KB by rate in bit/s, honoured exactly.
    EXPECT_EQ(c.EcnAt(DataRate("100Gbps")).first.first, 400000u);
    EXPECT_EQ(c.EcnAt(DataRate("100Gbps")).first.second, 1600000u);
    EXPECT_EQ(c.EcnAt(DataRate("400Gbps")).first.second, 6400000u);
    EXPECT_DOUBLE_EQ(c.EcnAt(DataRate("400Gbps")).second, 0.2);
    // A speed the maps do not list: the hpcc-sim thresholds scaled to it,
    // 100 and 400 KB at 25 Gb/s.
    EXPECT_EQ(c.EcnAt(DataRate("50Gbps")).first.first, 200000u);
    EXPECT_EQ(c.EcnAt(DataRate("50Gbps")).first.second, 800000u);
    // One warning lists what is read and not modelled, in line order.
    const std::string w = c.GetWarning();
    EXPECT_NE(w.find("read but not modelled: TRACE_FILE (line 8), TRACE_OUTPUT_FILE (line 9), "
                     "L2_CHUNK_SIZE (line 28)"),
              std::string::npos)
        << w;
    // FAST_REACT is HPCC's (this is DCQCN); ACK_HIGH_PRIO is modelled.
    EXPECT_EQ(w.find("FAST_REACT"), std::string::npos) << w;
    EXPECT_EQ(w.find("ACK_HIGH_PRIO"), std::string::npos) << w;
    EXPECT_EQ(w.find("LINK_DOWN"), std::string::npos) << w; // 0 0 0: no failure
    EXPECT_EQ(w.find("unknown"), std::string::npos) << w;
}

TEST(HpccConfig, UnknownKeysAndLinkDownAreListed)
{
    const RoceHpccConfig c = RoceHpccConfig::Read(
        Write("unknown",
              "TOPOLOGY_FILE t.txt\n# a comment\nFLOW_FILE f.txt   # trailing\nCC_MODE 3\n"
              "SOME_NEW_KEY 5\nLINK_DOWN 2000 1 4\n"));
    EXPECT_EQ(c.GetCcName(), "hpcc");
    EXPECT_EQ(c.flowFile, "f.txt");
    const std::string w = c.GetWarning();
    EXPECT_NE(w.find("read but not modelled: LINK_DOWN 2000 1 4 (line 6)"), std::string::npos) << w;
    EXPECT_NE(w.find("unknown keys, ignored: SOME_NEW_KEY (line 5)"), std::string::npos) << w;
    // Files the working directory does not have come from the config's folder.
    EXPECT_EQ(c.Resolve("t.txt"), "/tmp/t.txt");
    EXPECT_EQ(c.Resolve("/abs/t.txt"), "/abs/t.txt");
}

TEST(HpccConfigErrorTest, MalformedLines)
{
    const std::string base = "TOPOLOGY_FILE t.txt\nFLOW_FILE f.txt\n";
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("novalue", base + "CC_MODE\n")),
                      "novalue.txt:3: CC_MODE has no value");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("two", base + "RP_TIMER 300 400\n")),
                      "two.txt:3: RP_TIMER takes 1 value, found 2");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("num", base + "RP_TIMER fast\n")),
                      "num.txt:3: RP_TIMER 'fast' is not a number");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("neg", base + "RP_TIMER -3\n")),
                      "neg.txt:3: RP_TIMER '-3' is not > 0 \\(microseconds\\)");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("gain", base + "EWMA_GAIN 1.5\n")),
                      "gain.txt:3: EWMA_GAIN '1.5' is not in \\[0, 1\\]");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("rate", base + "RATE_AI 5Mbit\n")),
                      "rate.txt:3: RATE_AI '5Mbit' is not a positive rate");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("flag", base + "HAS_WIN 2\n")),
                      "flag.txt:3: HAS_WIN '2' is not a whole number of at most 1");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("cc", base + "CC_MODE 11\n")),
                      "cc.txt:3: CC_MODE '11' is not available; known: 1 \\(DCQCN\\)");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("pintbase", base + "PINT_LOG_BASE 1\n")),
                      "pintbase.txt:3: PINT_LOG_BASE '1' must be in \\[1.001, 2\\]");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("pintprob", base + "PINT_PROB 0\n")),
                      "pintprob.txt:3: PINT_PROB '0' is not in \\(0, 1\\]");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("map", base + "KMAX_MAP 2 100000000000 1600\n")),
                      "map.txt:3: KMAX_MAP: count 2 needs 4 fields");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("maprate", base + "KMIN_MAP 1 100G 400\n")),
                      "maprate.txt:3: KMIN_MAP rate \\(bit/s\\) '100G' is not a whole number");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("pmax", base + "PMAX_MAP 1 100000000000 1.2\n")),
                      "pmax.txt:3: PMAX_MAP value '1.2' is not in \\[0, 1\\]");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("down", base + "LINK_DOWN 0 0\n")),
                      "down.txt:3: LINK_DOWN takes 3 values, found 2");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("twice", base + "CC_MODE 1\nCC_MODE 3\n")),
                      "twice.txt:4: CC_MODE given twice \\(first on line 3\\)");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("notkey", base + "3 1 2\n")),
                      "notkey.txt:3: '3' is not a config key");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("notopo", "FLOW_FILE f.txt\n")),
                      "notopo.txt: TOPOLOGY_FILE is missing");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read("/nonexistent/config.txt"),
                      "/nonexistent/config.txt: cannot be read");
}

TEST(HpccConfigErrorTest, KeyOfThousandsOfCharacters)
{
    // Found by fuzzing: std::regex overflowed the stack on a key of some
    // 10^5 characters.
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("longkey", std::string(1000000, 'K') + " 1\n")),
                      "longkey.txt:1: 'K+\\.\\.\\.' is not a config key");
}

TEST(HpccConfig, AppliesItsKeysToTheFabric)
{
    // Two hosts under one switch, 100 Gb/s and 1 us per link.
    const std::string topo =
        Write("topo", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n");
    const RoceHpccConfig c = RoceHpccConfig::Read(
        Write("apply",
              "TOPOLOGY_FILE " + topo +
                  "\nFLOW_FILE f.txt\nCC_MODE 1\nRATE_AI 20Mb/s\nRP_TIMER 300\n"
                  "ALPHA_RESUME_INTERVAL 1\nEWMA_GAIN 0.5\nPACKET_PAYLOAD_SIZE 1000\n"
                  "BUFFER_SIZE 2\nUSE_DYNAMIC_PFC_THRESHOLD 0\nL2_ACK_INTERVAL 2500\n"
                  "KMIN_MAP 1 100000000000 50\nKMAX_MAP 1 100000000000 60\n"
                  "PMAX_MAP 1 100000000000 0.5\n"));
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(c.Resolve(c.topologyFile));
    // Largest base RTT as that lineage computes it: two ways of 1 us per
    // hop and one way of 1000 B at 100 Gb/s (80 ns) per hop, 2 hops.
    EXPECT_EQ(c.MaxBaseRtt(t), NanoSeconds(2 * 2 * 1000 + 2 * 80));

    RoceHelper roce;
    RoceSwitchHelper switches;
    c.Apply(roce, switches, t);
    NodeContainer nodes = RoceHpccFormat::Build(t, roce, switches);
    c.ApplyEcnByRate();
    ASSERT_EQ(nodes.GetN(), 3u);
    Ptr<RoceNetDevice> a = RoceHelper::GetNic(nodes.Get(0));
    Ptr<RoceNetDevice> b = RoceHelper::GetNic(nodes.Get(1));
    EXPECT_EQ(a->GetIpv4Address(), Ipv4Address("11.0.0.1"));
    EXPECT_EQ(b->GetIpv4Address(), Ipv4Address("11.0.1.1"));
    EXPECT_EQ(a->GetPayloadMtu(), 1000u);
    auto qp = roce.CreateQp(a, b).first;
    // L2_ACK_INTERVAL is in bytes: 2500 B of 1000 B packets is every 3rd packet.
    UintegerValue ackInterval;
    qp->GetAttribute("AckInterval", ackInterval);
    EXPECT_EQ(ackInterval.Get(), 3u);
    Ptr<RoceCcDcqcn> cc = DynamicCast<RoceCcDcqcn>(qp->GetCongestionControl());
    ASSERT_TRUE(cc);
    DataRateValue ai;
    cc->GetAttribute("RateAi", ai);
    EXPECT_EQ(ai.Get(), DataRate("20Mbps"));
    TimeValue timer;
    cc->GetAttribute("RateIncreaseTimer", timer);
    EXPECT_EQ(timer.Get(), MicroSeconds(300));
    cc->GetAttribute("AlphaUpdateInterval", timer);
    EXPECT_EQ(timer.Get(), MicroSeconds(1));
    DoubleValue g;
    cc->GetAttribute("G", g);
    EXPECT_DOUBLE_EQ(g.Get(), 0.5);

    Ptr<RoceSwitch> sw = nodes.Get(2)->GetObject<RoceSwitch>();
    ASSERT_TRUE(sw);
    QueueSizeValue buffer;
    sw->GetMmu()->GetAttribute("BufferSize", buffer);
    EXPECT_EQ(buffer.Get().GetValue(), 2u * 1024 * 1024); // MiB
    RoceEnumValue<RoceSharedBufferMmu::Mode> mode;
    sw->GetMmu()->GetAttribute("Mode", mode);
    EXPECT_EQ(mode.Get(), RoceSharedBufferMmu::STATIC);
    Simulator::Stop(NanoSeconds(1));
    Simulator::Run(); // the queue discs take their thresholds when they start
    Ptr<RoceEgressQueueDisc> q = sw->GetPort(0)->GetQueueDisc();
    EXPECT_EQ(q->GetKmin(), 50000u); // KB
    EXPECT_EQ(q->GetKmax(), 60000u);
    DoubleValue pmax;
    q->GetAttribute("EcnPmax", pmax);
    EXPECT_DOUBLE_EQ(pmax.Get(), 0.5);
    Simulator::Destroy();
    Config::Reset();
}

TEST(HpccConfig, DynamicPfcAlphaFollowsTheLinkRate)
{
    // That lineage's third.cc: PFC alpha 1/8 on a switch port at the host
    // rate, doubled per halving of a faster port's rate: 1/2 at 400 Gb/s.
    const std::string topo = Write("pfctopo",
                                   "4 2 3\n2 3\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"
                                   "2 3 400Gbps 1000ns 0\n");
    const RoceHpccConfig c = RoceHpccConfig::Read(Write(
        "pfcalpha",
        "TOPOLOGY_FILE " + topo + "\nFLOW_FILE f.txt\nCC_MODE 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\n"));
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(c.Resolve(c.topologyFile));
    RoceHelper roce;
    RoceSwitchHelper switches;
    c.Apply(roce, switches, t);
    NodeContainer nodes = RoceHpccFormat::Build(t, roce, switches);
    Simulator::Stop(NanoSeconds(1));
    Simulator::Run(); // switches configure their buffers when they start
    for (uint32_t id : {2u, 3u})
    {
        Ptr<RoceSwitch> sw = nodes.Get(id)->GetObject<RoceSwitch>();
        ASSERT_TRUE(sw);
        RoceEnumValue<RoceSharedBufferMmu::Mode> mode;
        sw->GetMmu()->GetAttribute("Mode", mode);
        EXPECT_EQ(mode.Get(), RoceSharedBufferMmu::DYNAMIC);
        DataRateValue reference;
        sw->GetMmu()->GetAttribute("AlphaReferenceRate", reference);
        EXPECT_EQ(reference.Get(), DataRate("100Gbps"));
        ASSERT_EQ(sw->GetNPorts(), 2u);
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const bool fabric = sw->GetPort(p)->GetDataRate() == DataRate("400Gbps");
            EXPECT_DOUBLE_EQ(sw->GetMmu()->GetPortAlpha(p), fabric ? 0.5 : 0.125)
                << "switch " << id << " port " << p;
        }
    }
    Simulator::Destroy();
    Config::Reset();
}

TEST(HpccConfig, AppliesTheHpccModeOfTheLineagesRunScript)
{
    // CC_MODE 3 with the keys the lineage's run script writes for HPCC at
    // 100 Gb/s. RATE_AI sets W_AI = RATE_AI x T, T the largest base RTT: an
    // attribute of type QueueSize, so a value of another type is refused
    // ("Wai=62 is out of range or of the wrong type" on fat-tree-320).
    const std::string topo =
        Write("hptopo", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n");
    const RoceHpccConfig c = RoceHpccConfig::Read(
        Write("hp",
              "TOPOLOGY_FILE " + topo +
                  "\nFLOW_FILE f.txt\nCC_MODE 3\nRATE_AI 40Mb/s\nHAS_WIN 1\nVAR_WIN 1\n"
                  "FAST_REACT 1\nU_TARGET 0.95\nMI_THRESH 0\nINT_MULTI 4\n"
                  "PACKET_PAYLOAD_SIZE 1000\n"));
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(c.Resolve(c.topologyFile));
    const Time rtt = c.MaxBaseRtt(t); // 4 x 1 us + 2 x 80 ns = 4.16 us
    ASSERT_EQ(rtt, NanoSeconds(4160));
    RoceHelper roce;
    RoceSwitchHelper switches;
    c.Apply(roce, switches, t);
    NodeContainer nodes = RoceHpccFormat::Build(t, roce, switches);
    auto qp =
        roce.CreateQp(RoceHelper::GetNic(nodes.Get(0)), RoceHelper::GetNic(nodes.Get(1))).first;
    Ptr<RoceCcHpcc> cc = DynamicCast<RoceCcHpcc>(qp->GetCongestionControl());
    ASSERT_TRUE(cc);
    // 40 Mb/s x 4.16 us = 166.4 bits = 20.8 B, rounded to 21 B.
    QueueSizeValue wai;
    cc->GetAttribute("Wai", wai);
    EXPECT_EQ(wai.Get(), QueueSize(QueueSizeUnit::BYTES, 21));
    BooleanValue fast;
    cc->GetAttribute("FastReact", fast);
    EXPECT_TRUE(fast.Get());
    // INT_MULTI 4: the INT fields count 512 B and 320 B units.
    UintegerValue multi;
    GlobalValue::GetValueByName("RoceIntUnitMultiplier", multi);
    EXPECT_EQ(multi.Get(), 4u);
    // ACK_HIGH_PRIO 0: ACKs in their queue pair's class.
    RoceEnumValue<RoceNetDevice::AckClass> ackClass;
    RoceHelper::GetNic(nodes.Get(0))->GetAttribute("AckClass", ackClass);
    EXPECT_EQ(ackClass.Get(), RoceNetDevice::ACK_QUEUE_PAIR);
    DoubleValue eta;
    cc->GetAttribute("Eta", eta);
    EXPECT_DOUBLE_EQ(eta.Get(), 0.95);
    UintegerValue stages;
    cc->GetAttribute("MaxStage", stages);
    EXPECT_EQ(stages.Get(), 0u);
    TimeValue base;
    cc->GetAttribute("BaseRtt", base);
    EXPECT_EQ(base.Get(), rtt);
    Simulator::Destroy();
    Config::Reset();
}

namespace
{

/**
 * \brief Read a config of two hosts under one switch (100 Gb/s, 1 us per
 * link: T = 4.16 us, bandwidth-delay product 52,000 B) with these keys, apply
 * it, and make a queue pair from host 0 to host 1.
 * \param name the file's name \param keys the config's lines
 * \return the queue pair
 */
Ptr<RoceQueuePair>
QpOf(const std::string& name, const std::string& keys)
{
    const std::string topo =
        Write(name + "-topo", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n");
    const RoceHpccConfig c = RoceHpccConfig::Read(
        Write(name,
              "TOPOLOGY_FILE " + topo + "\nFLOW_FILE f.txt\nPACKET_PAYLOAD_SIZE 1000\n" + keys));
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(c.Resolve(c.topologyFile));
    RoceHelper roce;
    RoceSwitchHelper switches;
    c.Apply(roce, switches, t);
    NodeContainer nodes = RoceHpccFormat::Build(t, roce, switches);
    return roce.CreateQp(RoceHelper::GetNic(nodes.Get(0)), RoceHelper::GetNic(nodes.Get(1))).first;
}

} // namespace

TEST(HpccConfig, ModelsTheDctcpModeOnARate)
{
    // run.py's dctcp mode: CC_MODE 8, EWMA_GAIN 1/16, DCTCP_RATE_AI 615 Mb/s,
    // HAS_WIN 1 with VAR_WIN 1 (a window of the BDP scaled by R / line rate).
    auto qp = QpOf("dctcp",
                   "CC_MODE 8\nEWMA_GAIN 0.0625\nDCTCP_RATE_AI 615Mb/s\nMIN_RATE 1000Mb/s\n"
                   "HAS_WIN 1\nVAR_WIN 1\n");
    Ptr<RoceCcDctcpRate> cc = DynamicCast<RoceCcDctcpRate>(qp->GetCongestionControl());
    ASSERT_TRUE(cc);
    DataRateValue ai;
    cc->GetAttribute("RateAi", ai);
    EXPECT_EQ(ai.Get(), DataRate("615Mbps"));
    cc->GetAttribute("MinRate", ai);
    EXPECT_EQ(ai.Get(), DataRate("1000Mbps"));
    DoubleValue g;
    cc->GetAttribute("G", g);
    EXPECT_DOUBLE_EQ(g.Get(), 0.0625);
    UintegerValue w;
    cc->GetAttribute("RateWindow", w);
    EXPECT_EQ(w.Get(), 52000u); // 100 Gb/s x 4.16 us / 8
    Simulator::Destroy();
    Config::Reset();
}

TEST(HpccConfig, ModelsTheTimelyMode)
{
    // run.py's timely mode: CC_MODE 7, RATE_AI 100 Mb/s, RATE_HAI 500 Mb/s.
    // The simulator's TIMELY takes minRTT 20 us (its RdmaHw default, set by
    // no key) and counts every increase since the last decrease towards HAI.
    auto qp = QpOf("timely", "CC_MODE 7\nRATE_AI 100Mb/s\nRATE_HAI 500Mb/s\nMIN_RATE 1000Mb/s\n");
    Ptr<RoceCcTimely> cc = DynamicCast<RoceCcTimely>(qp->GetCongestionControl());
    ASSERT_TRUE(cc);
    DataRateValue rate;
    cc->GetAttribute("Delta", rate);
    EXPECT_EQ(rate.Get(), DataRate("100Mbps"));
    cc->GetAttribute("MinRate", rate);
    EXPECT_EQ(rate.Get(), DataRate("1000Mbps"));
    UintegerValue factor;
    cc->GetAttribute("HaiFactor", factor);
    EXPECT_EQ(factor.Get(), 5u);
    TimeValue minRtt;
    cc->GetAttribute("MinRtt", minRtt);
    EXPECT_EQ(minRtt.Get(), MicroSeconds(20));
    RoceEnumValue<RoceCcTimely::HaiCount> count;
    cc->GetAttribute("HaiCount", count);
    EXPECT_EQ(count.Get(), RoceCcTimely::HAI_INCREASES);
    Simulator::Destroy();
    Config::Reset();
}

TEST(HpccConfig, ModelsTheHpccPintMode)
{
    // run.py's hpccPint mode: CC_MODE 10 with PINT_LOG_BASE and PINT_PROB,
    // HAS_WIN 1 and VAR_WIN 1 (a window that follows the rate).
    auto qp = QpOf("pint",
                   "CC_MODE 10\nRATE_AI 50Mb/s\nMIN_RATE 100Mb/s\nU_TARGET 0.9\nMI_THRESH 3\n"
                   "PINT_LOG_BASE 1.01\nPINT_PROB 0.5\nHAS_WIN 1\nVAR_WIN 1\n");
    Ptr<RoceCcHpccPint> cc = DynamicCast<RoceCcHpccPint>(qp->GetCongestionControl());
    ASSERT_TRUE(cc);
    DataRateValue rate;
    cc->GetAttribute("RateAi", rate);
    EXPECT_EQ(rate.Get(), DataRate("50Mbps"));
    cc->GetAttribute("MinRate", rate);
    EXPECT_EQ(rate.Get(), DataRate("100Mbps"));
    DoubleValue d;
    cc->GetAttribute("Eta", d);
    EXPECT_DOUBLE_EQ(d.Get(), 0.9);
    cc->GetAttribute("SampleProbability", d);
    EXPECT_DOUBLE_EQ(d.Get(), 0.5);
    UintegerValue u;
    cc->GetAttribute("MaxStage", u);
    EXPECT_EQ(u.Get(), 3u);
    cc->GetAttribute("RateWindow", u);
    EXPECT_EQ(u.Get(), 52000u); // 100 Gb/s x 4.16 us / 8
    GlobalValue::GetValueByName("RocePintLogBase", d);
    EXPECT_DOUBLE_EQ(d.Get(), 1.01);
    // Every switch port's queue disc knows T.
    bool seen = false;
    RoceForEachNodeObject<RoceSwitch>([&seen](const Ptr<Node>&, const Ptr<RoceSwitch>& sw) {
        for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
        {
            TimeValue t;
            sw->GetPort(i)->GetQueueDisc()->GetAttribute("PintRtt", t);
            EXPECT_EQ(t.Get(), NanoSeconds(4160));
            seen = true;
        }
    });
    EXPECT_TRUE(seen);
    Simulator::Destroy();
    Config::Reset();
}

TEST(HpccConfig, WindowsOfTheRateBasedModes)
{
    // VAR_WIN 1: a window that follows the rate; VAR_WIN 0: a fixed window
    // of the BDP in packets, ceil(52,000 / 1000).
    for (const char* mode : {"1", "7"})
    {
        auto qp = QpOf(std::string("varwin") + mode,
                       std::string("CC_MODE ") + mode + "\nHAS_WIN 1\nVAR_WIN 1\n");
        UintegerValue w;
        qp->GetCongestionControl()->GetAttribute("RateWindow", w);
        EXPECT_EQ(w.Get(), 52000u) << "CC_MODE " << mode;
        UintegerValue inflight;
        qp->GetAttribute("MaxInflightPackets", inflight);
        TypeId::AttributeInformation info;
        ASSERT_TRUE(RoceQueuePair::GetTypeId().LookupAttributeByName("MaxInflightPackets", &info));
        EXPECT_EQ(std::to_string(inflight.Get()),
                  info.initialValue->SerializeToString(info.checker))
            << "CC_MODE " << mode << ": no fixed window, the default cap";
        Simulator::Destroy();
        Config::Reset();
    }
    auto qp = QpOf("fixwin", "CC_MODE 1\nHAS_WIN 1\nVAR_WIN 0\n");
    UintegerValue inflight;
    qp->GetAttribute("MaxInflightPackets", inflight);
    EXPECT_EQ(inflight.Get(), 52u);
    UintegerValue w;
    qp->GetCongestionControl()->GetAttribute("RateWindow", w);
    EXPECT_EQ(w.Get(), 0u);
    Simulator::Destroy();
    Config::Reset();
}

TEST(HpccConfig, AckPriorityAndHpccWithoutFastReaction)
{
    auto qp = QpOf("ackhigh", "CC_MODE 1\nACK_HIGH_PRIO 1\n");
    // ACK_HIGH_PRIO 1: from the NIC's control queue, in the data's DSCP.
    RoceEnumValue<RoceNetDevice::AckClass> ackClass;
    qp->GetNic()->GetAttribute("AckClass", ackClass);
    EXPECT_EQ(ackClass.Get(), RoceNetDevice::ACK_CONTROL_QUEUE);
    EXPECT_EQ(qp->GetNic()->GetAckPriority(3), qp->GetNic()->GetCnpPriority())
        << "ACKs leave from the control class's NIC queue";
    EXPECT_EQ(qp->GetNic()->GetAckDscpPriority(3), 3) << "and carry the queue pair's DSCP";
    Simulator::Destroy();
    Config::Reset();
    qp = QpOf("slow", "CC_MODE 3\nHAS_WIN 1\nVAR_WIN 1\nFAST_REACT 0\n");
    BooleanValue fast;
    qp->GetCongestionControl()->GetAttribute("FastReact", fast);
    EXPECT_FALSE(fast.Get());
    Simulator::Destroy();
    Config::Reset();
}

TEST(HpccConfigErrorTest, BehaviourNotModelledIsRefused)
{
    const std::string base = "TOPOLOGY_FILE t.txt\nFLOW_FILE f.txt\n";
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("rb", base + "RATE_BOUND 0\n")),
                      "rb.txt:3: RATE_BOUND 0 is not modelled: queue pairs always pace");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("gt", base + "GLOBAL_T 0\n")),
                      "gt.txt:3: GLOBAL_T 0 is not modelled: every queue pair takes the largest");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("mr", base + "MULTI_RATE 1\n")),
                      "mr.txt:3: MULTI_RATE 1 is not modelled");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("sf", base + "SAMPLE_FEEDBACK 1\n")),
                      "sf.txt:3: SAMPLE_FEEDBACK 1 is not modelled");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("b0", base + "L2_BACK_TO_ZERO 1\n")),
                      "b0.txt:3: L2_BACK_TO_ZERO 1 is not modelled");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("im", base + "INT_MULTI 0\n")),
                      "im.txt:3: INT_MULTI '0' must be at least 1");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("hw", base + "CC_MODE 3\nHAS_WIN 0\n")),
                      "hw.txt:4: HAS_WIN 0 is not modelled: HPCC here always keeps its window");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("vw", base + "CC_MODE 3\nHAS_WIN 1\nVAR_WIN 0\n")),
                      "vw.txt:5: VAR_WIN 0 is not modelled: HPCC's window follows its rate");
}

TEST(HpccConfigErrorTest, FabricsThatCannotBeBuilt)
{
    RoceHelper roce;
    RoceSwitchHelper switches;
    const auto twice = RoceHpccFormat::ReadTopology(
        Write("twolinks", "3 1 3\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n0 2 100Gbps 1us 0\n"));
    EXPECT_ROCE_ERROR(RoceHpccFormat::Build(twice, roce, switches),
                      "line 5: host 0 has a second link \\(the first on line 3\\)");
    const auto lonely = RoceHpccFormat::ReadTopology(
        Write("lonely", "4 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"));
    EXPECT_ROCE_ERROR(RoceHpccFormat::Build(lonely, roce, switches), "host 3 has no link");
}

TEST(HpccConfigErrorTest, ValuesApplyCannotUse)
{
    // Found by fuzzing (fuzz/corpus/hpcc-config/bad-payload-size-zero*.txt,
    // bad-*-beyond-range.txt): a payload size of 0 divided the ACK interval
    // into infinity, converted to an integer (undefined behaviour); times
    // beyond ns-3's range were undefined behaviour converting to a Time.
    const std::string base = "TOPOLOGY_FILE t.txt\nFLOW_FILE f.txt\n";
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("payload", base + "PACKET_PAYLOAD_SIZE 0\n")),
                      "payload.txt:3: PACKET_PAYLOAD_SIZE '0' must be positive");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("stop", base + "SIMULATOR_STOP_TIME 1e300\n")),
                      "stop.txt:3: SIMULATOR_STOP_TIME '1e300' is beyond the simulator's");
    EXPECT_ROCE_ERROR(RoceHpccConfig::Read(Write("rp", base + "RP_TIMER 1e300\n")),
                      "rp.txt:3: RP_TIMER '1e300' is beyond the simulator's");
    EXPECT_EQ(RoceHpccConfig::Read(Write("stop4", base + "SIMULATOR_STOP_TIME 4\n")).stopTime,
              Seconds(4));
}

TEST(HpccConfig, TheSimulatorsFramingGivesItsPacketsWireBytes)
{
    // The HPCC simulator's data packet (its rdma-hw.cc builds it): PPP 2,
    // IPv4 20, UDP 8, sequence header 6 (seq 4, pg 2), and the INT header of
    // its mode (third.cc: TS for TIMELY, a timestamp of 8; PINT's 2-byte
    // power; none for DCQCN and DCTCP). This module's: Ethernet 14, IPv4 20,
    // UDP 8, BTH 12, ICRC 4 and PINT's 2-byte digest. A 1,000-byte payload
    // must take the simulator's bytes on the wire.
    const uint32_t payload = 1000;

    const struct
    {
        uint32_t mode;
        uint32_t theirs; // the simulator's packet
        uint32_t ours;   // this module's frame, no FCS
    } cases[] = {{1, payload + 36, payload + 58},
                 {7, payload + 36 + 8, payload + 58},
                 {8, payload + 36, payload + 58},
                 {10, payload + 36 + 2, payload + 58 + 2}};

    for (const auto& c : cases)
    {
        const std::string name = "framing" + std::to_string(c.mode);
        Ptr<RoceQueuePair> qp = QpOf(name, "CC_MODE " + std::to_string(c.mode) + "\n");
        RoceHpccConfig config = RoceHpccConfig::Read(Write(
            name + "-cfg",
            "TOPOLOGY_FILE t.txt\nFLOW_FILE f.txt\nCC_MODE " + std::to_string(c.mode) + "\n"));
        EXPECT_EQ(config.GetWireOverhead(), RocePfcNetDevice::ETHERNET_WIRE_OVERHEAD);
        config.framing = RoceHpccConfig::HPCC_SIM;
        EXPECT_EQ(RocePfcNetDevice::WireBytes(c.ours, config.GetWireOverhead()), c.theirs)
            << "CC_MODE " << c.mode;
        // Apply() sets it for the devices built after it; Ethernet's again
        // with the default framing.
        Ptr<RoceNetDevice> nic = qp->GetNic();
        EXPECT_EQ(nic->FrameWireBytes(payload + 58), payload + 58 + 24u);
        Simulator::Destroy();
        Config::Reset();
    }
    RoceHpccConfig hpcc = RoceHpccConfig::Read(
        Write("framing3", "TOPOLOGY_FILE t.txt\nFLOW_FILE f.txt\nCC_MODE 3\n"));
    hpcc.framing = RoceHpccConfig::HPCC_SIM;
    EXPECT_ROCE_ERROR(hpcc.GetWireOverhead(),
                      "framing3.txt: CC_MODE 3 \\(HPCC\\) with the hpcc-sim framing: the HPCC "
                      "simulator's INT header is 42 bytes on every packet");
    EXPECT_EQ(RoceHpccConfig::ParseFraming("hpcc-sim", "--framing"), RoceHpccConfig::HPCC_SIM);
    EXPECT_EQ(RoceHpccConfig::ParseFraming("ethernet", "--framing"), RoceHpccConfig::ETHERNET);
    EXPECT_ROCE_ERROR(RoceHpccConfig::ParseFraming("ppp", "--framing"),
                      "--framing=ppp: the framing is ethernet or hpcc-sim");
}

TEST(HpccConfig, AppliedFramingReachesTheDevicesAndTheIdealFct)
{
    // DCQCN (CC_MODE 1) with the simulator's framing: a NIC built after
    // Apply() puts a 1,058-byte data frame on the wire as 1,036 bytes, and
    // its congestion control counts a full packet as 1,036 wire bytes.
    const std::string topo =
        Write("applied-topo", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n");
    RoceHpccConfig c = RoceHpccConfig::Read(Write(
        "applied",
        "TOPOLOGY_FILE " + topo + "\nFLOW_FILE f.txt\nPACKET_PAYLOAD_SIZE 1000\nCC_MODE 1\n"));
    c.framing = RoceHpccConfig::HPCC_SIM;
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(c.Resolve(c.topologyFile));
    RoceHelper roce;
    RoceSwitchHelper switches;
    c.Apply(roce, switches, t);
    NodeContainer nodes = RoceHpccFormat::Build(t, roce, switches);
    Ptr<RoceNetDevice> a = RoceHelper::GetNic(nodes.Get(0));
    Ptr<RoceNetDevice> b = RoceHelper::GetNic(nodes.Get(1));
    EXPECT_EQ(a->FrameWireBytes(1058), 1036u);
    EXPECT_EQ(a->TxTime(1058), PicoSeconds(1036 * 80)); // 8 bits at 100 Gb/s: 80 ps a byte
    // One 1,000-byte message alone on two hops: the packet crosses both
    // (1,036 + 16 RETH bytes each), the 62-byte ACK both back (40 bytes
    // each), and 4 us of propagation: 4,174.72 ns, within the time step
    // (1 ns) the result is rounded to.
    const Time ideal = RoceFctStats::IdealFct(a, b, 1000);
    EXPECT_NEAR(ideal.GetPicoSeconds(), 2 * (1052 + 40) * 80 + 4000000, 1000);
    Simulator::Destroy();
    // A framing the program set some other way is not overridden silently.
    Config::SetGlobal("RoceFrameWireOverhead", IntegerValue(30));
    RoceHelper roce2;
    RoceSwitchHelper switches2;
    EXPECT_ROCE_ERROR(c.Apply(roce2, switches2, t),
                      "RoceFrameWireOverhead=30 and the hpcc-sim framing, which sets it to -22: "
                      "give one of them");
    Config::Reset(); // the globals too: RoceFrameWireOverhead is 24 again
    EXPECT_EQ(RocePfcNetDevice::GetGlobalWireOverhead(), RocePfcNetDevice::ETHERNET_WIRE_OVERHEAD);
}
