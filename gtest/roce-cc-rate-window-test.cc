/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCTCP on a rate (the HPCC simulator's CC_MODE 8), the window that follows
 * a rate (RateWindow, its VAR_WIN), and HPCC without fast reaction (its
 * FAST_REACT 0): ACKs fed by hand, expected values worked from the rules
 * each class documents.
 */

#include "roce-gtest-error.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/roce-cc-dcqcn.h"
#include "ns3/roce-cc-dctcp-rate.h"
#include "ns3/roce-cc-dctcp.h"
#include "ns3/roce-cc-hpcc.h"
#include "ns3/roce-int-record.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// 100 Gb/s, 1000 B payload per packet.
RoceCcContext
Ctx()
{
    RoceCcContext ctx;
    ctx.lineRate = DataRate("100Gbps");
    ctx.mtu = 1000;
    return ctx;
}

/// \return an ACK of one packet
RoceAckEvent
Ack(uint64_t una, uint64_t nxt, bool ece)
{
    RoceAckEvent a;
    a.ackedBytes = 1000;
    a.sndUna = una;
    a.sndNxt = nxt;
    a.ecnEcho = ece;
    return a;
}

} // namespace

TEST(RoceCcDctcpRate, CutsByAlphaOncePerWindowAndRaisesOncePerRtt)
{
    Ptr<RoceCcDctcpRate> cc = CreateObject<RoceCcDctcpRate>();
    cc->SetAttribute("G", DoubleValue(0.5));
    cc->SetAttribute("RateAi", DataRateValue(DataRate("1Gbps")));
    cc->Init(Ctx());
    EXPECT_DOUBLE_EQ(cc->GetRate(), 100e9);
    // The first ACK opens a window of observation ending at snd_nxt 10,000.
    cc->OnAck(Ack(1000, 10000, false));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    // An echo: R <- R (1 - alpha / 2) = 50 Gb/s, and a cut period to 11,000.
    cc->OnAck(Ack(2000, 11000, true));
    EXPECT_DOUBLE_EQ(cc->GetRate(), 50e9);
    EXPECT_EQ(cc->GetCuts(), 1u);
    // More echoes inside the cut period change nothing.
    cc->OnAck(Ack(3000, 11000, true));
    EXPECT_DOUBLE_EQ(cc->GetRate(), 50e9);
    EXPECT_EQ(cc->GetCuts(), 1u);
    // The window of observation ends past 10,000: of the 10 packets ACKed
    // after the opening ACK (2,000 to 11,000, the closing ACK included), 2
    // echoed: F = 0.2, alpha = 0.5 x 1 + 0.5 x 0.2 = 0.6. The cut period
    // lasts while snd_una <= 11,000, so no increase.
    for (uint64_t una = 4000; una <= 10000; una += 1000)
    {
        cc->OnAck(Ack(una, 20000, false));
    }
    cc->OnAck(Ack(11000, 20000, false)); // ends the window (una > 10,000)
    EXPECT_NEAR(cc->GetAlpha(), 0.6, 1e-12) << "F = 2 echoed of 10 ACKed packets";
    EXPECT_DOUBLE_EQ(cc->GetRate(), 50e9) << "no increase inside the cut period";
    // The next window ends past 20,000, outside any cut: R + 1 Gb/s.
    cc->OnAck(Ack(21000, 30000, false));
    EXPECT_DOUBLE_EQ(cc->GetRate(), 51e9);
    // An echo now cuts by the new alpha.
    const double alpha = cc->GetAlpha();
    cc->OnAck(Ack(22000, 30000, true));
    EXPECT_DOUBLE_EQ(cc->GetRate(), 51e9 * (1 - alpha / 2));
    Simulator::Destroy();
}

TEST(RoceCcDctcpRate, NeverBelowMinRateNorAboveTheLine)
{
    Ptr<RoceCcDctcpRate> cc = CreateObject<RoceCcDctcpRate>();
    cc->SetAttribute("MinRate", DataRateValue(DataRate("30Gbps")));
    cc->SetAttribute("RateAi", DataRateValue(DataRate("10Gbps")));
    cc->Init(Ctx());
    uint64_t una = 1000;
    cc->OnAck(Ack(una, 2000, false));
    for (int i = 0; i < 5; ++i) // each a new cut period and an echo: 50, 30, 30 ...
    {
        una += 1000;
        cc->OnAck(Ack(una + 1000, una + 1000, true));
    }
    EXPECT_DOUBLE_EQ(cc->GetRate(), 30e9);
    for (int i = 0; i < 20; ++i) // a window ends on every ACK: +10 Gb/s each, to 100
    {
        una += 2000;
        cc->OnAck(Ack(una, una, false));
    }
    EXPECT_DOUBLE_EQ(cc->GetRate(), 100e9);
    Simulator::Destroy();
}

TEST(RoceCongestionOps, RateWindowFollowsTheRate)
{
    // DCQCN cut to half the line rate by a CNP (alpha = 1 at start: R / 2).
    Ptr<RoceCcDcqcn> cc = CreateObject<RoceCcDcqcn>();
    cc->SetAttribute("RateWindow", UintegerValue(52000));
    cc->Init(Ctx());
    EXPECT_EQ(cc->GetWindow(), 52000u) << "at line rate: the whole BDP";
    cc->OnCnp();
    const double r = cc->GetRate();
    ASSERT_LT(r, 100e9);
    EXPECT_EQ(cc->GetWindow(), static_cast<uint64_t>(52000 * r / 100e9));
    Simulator::Destroy();
}

TEST(RoceCongestionOpsErrorTest, RateWindowIsRefusedWhereAWindowIsKept)
{
    Ptr<RoceCcHpcc> hpcc = CreateObject<RoceCcHpcc>();
    hpcc->SetAttribute("RateWindow", UintegerValue(52000));
    EXPECT_ROCE_ERROR(hpcc->Init(Ctx()), "RoceCcHpcc: RateWindow=52000 is for algorithms without");
    Ptr<RoceCcDctcp> dctcp = CreateObject<RoceCcDctcp>();
    dctcp->SetAttribute("RateWindow", UintegerValue(1));
    EXPECT_ROCE_ERROR(dctcp->Init(Ctx()), "RoceCcDctcp: RateWindow=1 is for algorithms without");
    Simulator::Destroy();
}

namespace
{

/// \return one 100 Gb/s hop's record
std::vector<RoceIntRecord>
Hop(uint64_t queue, uint64_t tx, uint64_t ns)
{
    RoceIntRecord r;
    r.rateMbps = 100000;
    r.queueBytes = queue;
    r.txBytes = tx;
    r.timestampNs = ns;
    return {r};
}

} // namespace

TEST(RoceCcHpcc, WithoutFastReactionOnlyTheOncePerRttAckIsRead)
{
    // T = 10 us, B T = 125,000 B. Both see the same ACKs: the first keeps
    // the records; the second (snd_una 2,000 > 0) is the first Wc update.
    // Then ACKs inside the RTT (snd_una <= the 50,000 recorded) report a
    // full link with a queue of B T: u = 2.
    for (bool fast : {true, false})
    {
        Ptr<RoceCcHpcc> cc = CreateObject<RoceCcHpcc>();
        cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
        cc->SetAttribute("FastReact", BooleanValue(fast));
        cc->Init(Ctx());
        RoceAckEvent a = Ack(1000, 50000, false);
        auto r0 = Hop(0, 0, 0);
        a.intRecords = &r0;
        cc->OnAck(a);
        auto r1 = Hop(0, 1000, 80);
        a = Ack(2000, 50000, false);
        a.intRecords = &r1;
        cc->OnAck(a);
        const double wc = cc->GetReferenceWindow();
        const double u1 = cc->GetUtilization();
        // 5 us apart at line rate (62,500 B), a queue of B T from then on.
        auto r2 = Hop(125000, 1000 + 62500, 80 + 5000);
        a = Ack(3000, 50000, false);
        a.intRecords = &r2;
        cc->OnAck(a);
        auto r3 = Hop(125000, 1000 + 125000, 80 + 10000);
        a = Ack(4000, 50000, false);
        a.intRecords = &r3;
        cc->OnAck(a);
        EXPECT_DOUBLE_EQ(cc->GetReferenceWindow(), wc) << "Wc waits for the RTT";
        if (fast)
        {
            // u = 1 (the queue's min with the previous 0), weight 1/2; then
            // u = 2, weight 1/2: U = (u1 / 2 + 1/2) / 2 + 1 > eta.
            EXPECT_NEAR(cc->GetUtilization(), (u1 / 2 + 0.5) / 2 + 1, 1e-9);
            EXPECT_LT(cc->GetWireWindow(), wc) << "every ACK cuts W at once";
        }
        else
        {
            EXPECT_DOUBLE_EQ(cc->GetUtilization(), u1) << "ACKs inside the RTT not read";
            EXPECT_DOUBLE_EQ(cc->GetWireWindow(), wc) << "W waits for the RTT";
            // The once-per-RTT ACK compares with the records of the last
            // update (r1): 10 us at line rate, the queue's min with r1's 0:
            // u = 1 with weight 1, so U = 1 and Wc = W = 0.95 Wc + W_AI,
            // W_AI = 125,000 x 0.05 / 100 = 62.5 B.
            auto r4 = Hop(125000, 1000 + 125000, 80 + 10000);
            a = Ack(50001, 90000, false);
            a.intRecords = &r4;
            cc->OnAck(a);
            EXPECT_NEAR(cc->GetUtilization(), 1.0, 1e-12);
            EXPECT_NEAR(cc->GetReferenceWindow(), 0.95 * wc + 62.5, 1e-6);
        }
        Simulator::Destroy();
    }
}
