/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN reaction-point arithmetic against the paper's equations, for each
 * preset: every expected value below is computed from the equations of
 * Zhu et al. (SIGCOMM'15) as DESIGN.md states them, step by step, next to the
 * event that causes it.
 */
#include "roce-gtest-error.h"

#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/roce-cc-dcqcn-preset.h"
#include "ns3/roce-cc-dcqcn.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

constexpr double LINE = 100e9;

/** The reference: the paper's equations, written out independently. */
struct Reference
{
    RoceDcqcnRpParams p;
    double rc{LINE};
    double rt{LINE};
    double alpha{1};
    uint32_t t{0};
    uint32_t bc{0};
    bool rose{false};

    explicit Reference(const RoceDcqcnRpParams& params)
        : p(params),
          alpha(params.initialAlpha)
    {
    }

    void Cnp()
    {
        if (p.clampTargetRate || rose)
        {
            rt = rc;
        }
        rc = std::max(rc * std::max(1 - alpha / 2, p.minDecreaseFactor), p.minRate);
        alpha = (1 - p.g) * alpha + p.g;
        t = bc = 0;
        rose = false;
    }

    void AlphaTimer()
    {
        alpha = (1 - p.g) * alpha;
    }

    RoceDcqcnRateMachine::Stage Increase()
    {
        uint32_t b = p.byteCounterEnabled ? bc : t;
        RoceDcqcnRateMachine::Stage s;
        if (std::max(t, b) < p.fastRecovery)
        {
            s = RoceDcqcnRateMachine::FAST_RECOVERY;
        }
        else if (std::min(t, b) > p.fastRecovery)
        {
            s = RoceDcqcnRateMachine::HYPER;
            rt = rt + (p.hyperConstant ? 1 : std::min(t, b) - p.fastRecovery) * p.rateHai;
        }
        else
        {
            s = RoceDcqcnRateMachine::ADDITIVE;
            rt = rt + p.rateAi;
        }
        rt = std::min(rt, p.lineRate);
        double old = rc;
        rc = std::min((rt + rc) / 2, p.lineRate);
        if (p.lineRate - rc < 1.0)
        {
            rc = p.lineRate;
        }
        rose = rose || rc > old;
        return s;
    }
};

RoceDcqcnRpParams
PresetParams(const std::string& preset)
{
    RoceHelper roce;
    RoceSwitchHelper switches;
    RoceCcHelper("dcqcn", preset).Configure(roce, switches);
    Ptr<RoceCcDcqcn> cc = DynamicCast<RoceCcDcqcn>(roce.CreateCongestionControl());
    EXPECT_TRUE(cc);
    return cc->GetRpParams(DataRate(static_cast<uint64_t>(LINE)));
}

void
ExpectSame(const RoceDcqcnRateMachine& m, const Reference& r, const std::string& where)
{
    EXPECT_DOUBLE_EQ(m.GetRate(), r.rc) << where;
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), r.rt) << where;
    EXPECT_DOUBLE_EQ(m.GetAlpha(), r.alpha) << where;
    EXPECT_EQ(m.GetTimerCount(), r.t) << where;
    EXPECT_EQ(m.GetByteCount(), r.bc) << where;
}

/**
 * \param options DCQCN attributes beyond the common ones
 * \return a DCQCN at 100 Gb/s with g = 1/256, initial alpha 1, a 1 us alpha
 * period, a 4 us decrease period and no byte counter, initialised
 */
Ptr<RoceCcDcqcn>
MakeQpDcqcn(const std::vector<std::pair<std::string, std::string>>& options)
{
    Ptr<RoceCcDcqcn> cc = CreateObject<RoceCcDcqcn>();
    cc->SetAttribute("AlphaUpdateInterval", TimeValue(MicroSeconds(1)));
    cc->SetAttribute("RateDecreasePeriod", TimeValue(MicroSeconds(4)));
    cc->SetAttribute("G", DoubleValue(1.0 / 256));
    cc->SetAttribute("InitialAlpha", DoubleValue(1.0));
    cc->SetAttribute("ByteCounter", UintegerValue(0));
    for (const auto& [name, value] : options)
    {
        cc->SetAttribute(name, StringValue(value));
    }
    RoceCcContext ctx;
    ctx.lineRate = DataRate("100Gbps");
    cc->Init(ctx);
    return cc;
}

} // namespace

TEST(DcqcnPreset, ValuesMatchThePublishedSets)
{
    RoceDcqcnRpParams paper = PresetParams("paper-2015");
    EXPECT_DOUBLE_EQ(paper.g, 1.0 / 256);
    EXPECT_DOUBLE_EQ(paper.rateAi, 40e6);
    EXPECT_EQ(paper.fastRecovery, 5u);
    EXPECT_TRUE(paper.byteCounterEnabled);
    EXPECT_TRUE(paper.clampTargetRate);

    RoceDcqcnRpParams cx = PresetParams("nvidia-cx");
    EXPECT_DOUBLE_EQ(cx.g, 5.0 / 1024); // dce_tcp_g = 1019: 1 - 1019/1024
    EXPECT_DOUBLE_EQ(cx.rateAi, 5e6);
    EXPECT_DOUBLE_EQ(cx.rateHai, 50e6);
    EXPECT_EQ(cx.fastRecovery, 1u);
    EXPECT_DOUBLE_EQ(cx.minRate, 1e6);
    EXPECT_DOUBLE_EQ(cx.minDecreaseFactor, 0.5);

    RoceDcqcnRpParams sim = PresetParams("hpcc-sim");
    EXPECT_DOUBLE_EQ(sim.g, 1.0 / 256);
    EXPECT_DOUBLE_EQ(sim.rateAi, 50e6);
    EXPECT_DOUBLE_EQ(sim.rateHai, 100e6);
    EXPECT_DOUBLE_EQ(sim.minRate, 100e6);
    EXPECT_EQ(sim.fastRecovery, 1u);
    EXPECT_FALSE(sim.byteCounterEnabled);
}

TEST(DcqcnPreset, UnknownNameIsFatal)
{
    EXPECT_ROCE_ERROR(
        RoceCcHelper("dcqcn", "paper-2016"),
        "unknown DCQCN preset 'paper-2016' \\(known: paper-2015, nvidia-cx, hpcc-sim\\)");
    EXPECT_ROCE_ERROR(
        RoceDcqcnPreset::Get("paper-2016"),
        "unknown DCQCN preset 'paper-2016' \\(known: paper-2015, nvidia-cx, hpcc-sim\\)");
}

TEST(DcqcnRate, AlphaTimerWithACnpAndADecreaseThatLeavesAlpha)
{
    RoceDcqcnRpParams p = PresetParams("hpcc-sim");
    const double g = p.g;
    RoceDcqcnRateMachine m;
    m.Init(p);
    m.AlphaTimer(3); // three periods without a CNP: (1-g)^3
    EXPECT_DOUBLE_EQ(m.GetAlpha(), std::pow(1 - g, 3));
    const double a = m.GetAlpha();
    m.AlphaTimer(3, true); // a CNP in the first: (1-g)^2 ((1-g) a + g)
    EXPECT_DOUBLE_EQ(m.GetAlpha(), ((1 - g) * a + g) * (1 - g) * (1 - g));
    const double b = m.GetAlpha();
    m.Decrease(false); // the rate falls by b/2, alpha stays
    EXPECT_DOUBLE_EQ(m.GetAlpha(), b);
    EXPECT_DOUBLE_EQ(m.GetRate(), LINE * (1 - b / 2));
    m.ResetAlpha();
    EXPECT_DOUBLE_EQ(m.GetAlpha(), p.initialAlpha);
}

/**
 * AlphaUpdate on a queue pair's DCQCN, 100 Gb/s, alpha period 1 us,
 * decrease period 4 us, g = 1/256: CNPs at 100, 100.5 and 103.5 us.
 * OnCnp (the paper): alpha decayed from Init, 100 periods, before the first
 * cut. PerInterval (ConnectX, the HPCC simulator): the first CNP sets
 * alpha to 1 and starts the timer; the periods [100, 101) and [103, 104)
 * saw CNPs, the others decay; the decrease deferred to 104 us cuts by the
 * alpha of that moment and leaves it.
 */
TEST(DcqcnRate, AlphaUpdatePerIntervalFollowsConnectX)
{
    const double g = 1.0 / 256;
    Ptr<RoceCcDcqcn> paper = MakeQpDcqcn({{"AlphaUpdate", "OnCnp"}});
    Ptr<RoceCcDcqcn> cx = MakeQpDcqcn({{"AlphaUpdate", "PerInterval"}});
    double paperFirst = 0;
    double cxFirst = 0;
    double cxAt104 = 0;
    double cxAlpha110 = 0;
    Simulator::Schedule(MicroSeconds(100), [&]() {
        paper->OnCnp();
        cx->OnCnp();
        paperFirst = paper->GetRate();
        cxFirst = cx->GetRate();
    });
    Simulator::Schedule(NanoSeconds(100500), [&]() { cx->OnCnp(); });
    Simulator::Schedule(NanoSeconds(103500), [&]() { cx->OnCnp(); });
    Simulator::Schedule(NanoSeconds(104001), [&]() { cxAt104 = cx->GetRate(); });
    Simulator::Schedule(MicroSeconds(110), [&]() { cxAlpha110 = cx->GetAlpha(); });
    Simulator::Run();
    Simulator::Destroy();
    const double a100 = std::pow(1 - g, 100);
    EXPECT_NEAR(paperFirst, LINE * (1 - a100 / 2), 1);
    EXPECT_NEAR(cxFirst, LINE / 2, 1);
    const double a104 = std::pow(1 - g, 3) + g; // [100,101) raised, two decayed, [103,104) raised
    EXPECT_NEAR(cxAt104, LINE / 2 * (1 - a104 / 2), 1);
    EXPECT_NEAR(cxAlpha110, a104 * std::pow(1 - g, 6), 1e-12);
}

/**
 * DecreaseTiming on a queue pair's DCQCN, 100 Gb/s, PerInterval alpha with
 * a 1 us period, decrease period 4 us, g = 1/256. CNPs at 100, 100.5,
 * 103.5, 112.5 and 120 us. Grid (the HPCC simulator): the first CNP starts
 * the grid 104, 108, ... and cuts nothing itself; 104 closes [100, 104) with
 * CNPs and cuts by alpha (1-g)^3 + g (as in AlphaUpdatePerIntervalFollowsConnectX);
 * 108 and 112 saw none; 116 cuts for the CNP at 112.5; the CNP at 120, on a
 * grid point, comes after that point's check and is answered at 124. AtCnp:
 * the first CNP cuts at once, 112.5 (more than 4 us after the last cut at
 * 104) at once, 120 at once.
 */
TEST(DcqcnRate, DecreaseTimingGridFollowsTheHpccSimulator)
{
    const double g = 1.0 / 256;
    // A 10 ms increase timer: no increase between the decreases.
    Ptr<RoceCcDcqcn> grid = MakeQpDcqcn({{"AlphaUpdate", "PerInterval"},
                                         {"DecreaseTiming", "Grid"},
                                         {"RateIncreaseTimer", "10ms"}});
    Ptr<RoceCcDcqcn> atCnp = MakeQpDcqcn({{"AlphaUpdate", "PerInterval"},
                                          {"DecreaseTiming", "AtCnp"},
                                          {"RateIncreaseTimer", "10ms"}});
    for (int64_t ns : {100000, 100500, 103500, 112500, 120000})
    {
        Simulator::Schedule(NanoSeconds(ns), [&]() {
            grid->OnCnp();
            atCnp->OnCnp();
        });
    }
    // (time in ns, decreases of Grid, decreases of AtCnp) just after each moment
    std::vector<std::tuple<int64_t, uint64_t, uint64_t>> expected = {{100001, 0, 1},
                                                                     {103999, 0, 1},
                                                                     {104001, 1, 2},
                                                                     {112499, 1, 2},
                                                                     {112501, 1, 3},
                                                                     {115999, 1, 3},
                                                                     {116001, 2, 3},
                                                                     {120001, 2, 4},
                                                                     {123999, 2, 4},
                                                                     {124001, 3, 4}};
    std::vector<std::tuple<int64_t, uint64_t, uint64_t>> seen;
    double gridAt104 = 0;
    for (const auto& e : expected)
    {
        int64_t ns = std::get<0>(e);
        Simulator::Schedule(NanoSeconds(ns), [&, ns]() {
            seen.emplace_back(ns, grid->GetDecreases(), atCnp->GetDecreases());
            if (ns == 104001)
            {
                gridAt104 = grid->GetRate();
            }
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(seen, expected);
    const double a104 = std::pow(1 - g, 3) + g;
    EXPECT_NEAR(gridAt104, LINE * (1 - a104 / 2), 1);
}

/**
 * Combinations of the HPCC simulator's mechanisms with a setting that would
 * lose its meaning are refused at Init, naming both attributes.
 */
TEST(DcqcnRate, GridWithoutPeriodAndAckEcnWithCnpIntervalAreRefused)
{
    EXPECT_ROCE_ERROR(MakeQpDcqcn({{"DecreaseTiming", "Grid"}, {"RateDecreasePeriod", "0s"}}),
                      "DecreaseTiming=Grid needs RateDecreasePeriod > 0");
    EXPECT_ROCE_ERROR(MakeQpDcqcn({{"Notification", "AckEcn"}, {"CnpInterval", "50us"}}),
                      "Notification=AckEcn sends no CNP frames, so CnpInterval=\\+?50");
    // Both accepted with what they need.
    EXPECT_EQ(MakeQpDcqcn({{"DecreaseTiming", "Grid"}})->GetDecreases(), 0u);
    EXPECT_EQ(MakeQpDcqcn({{"Notification", "AckEcn"}, {"CnpInterval", "0s"}})->GetDecreases(), 0u);
}

TEST(DcqcnRate, FirstCnpHalvesTheRateWithAlphaOne)
{
    RoceDcqcnRateMachine m;
    m.Init(PresetParams("paper-2015"));
    m.Decrease();
    // alpha starts at 1: Rc = 100G (1 - 1/2), Rt = 100G, alpha = (1-g) + g = 1.
    EXPECT_DOUBLE_EQ(m.GetRate(), 50e9);
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), 100e9);
    EXPECT_DOUBLE_EQ(m.GetAlpha(), 1.0);
    // Fast recovery halves the distance to Rt: 75G, then 87.5G.
    EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::FAST_RECOVERY);
    EXPECT_DOUBLE_EQ(m.GetRate(), 75e9);
    EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::FAST_RECOVERY);
    EXPECT_DOUBLE_EQ(m.GetRate(), 87.5e9);
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), 100e9);
    // One alpha period without a CNP: alpha = 1 - 1/256.
    m.AlphaTimer();
    EXPECT_DOUBLE_EQ(m.GetAlpha(), 255.0 / 256);
    // The next CNP uses that alpha: Rc = 87.5G (1 - 255/512), Rt = 87.5G.
    m.Decrease();
    EXPECT_DOUBLE_EQ(m.GetRate(), 87.5e9 * (1 - 255.0 / 512));
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), 87.5e9);
    EXPECT_DOUBLE_EQ(m.GetAlpha(), (255.0 / 256) * (255.0 / 256) + 1.0 / 256);
    EXPECT_EQ(m.GetTimerCount(), 0u);
}

TEST(DcqcnRate, StagesOfThePaperWithBothCounters)
{
    // paper-2015, F = 5. T and BC count the expiries before the current one:
    // the first F expiries after a CNP are fast recovery, additive while
    // min(T, BC) <= 5 <= max(T, BC), hyper once both exceed 5.
    RoceDcqcnRateMachine m;
    m.Init(PresetParams("paper-2015"));
    m.Decrease();
    m.Decrease(); // alpha stays 1: Rc = 25G
    EXPECT_DOUBLE_EQ(m.GetRate(), 25e9);
    double rt = 50e9;
    double rc = 25e9;
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), rt);
    for (int i = 0; i < 5; ++i)
    {
        EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::FAST_RECOVERY) << "expiry " << i + 1;
        rc = (rt + rc) / 2;
        EXPECT_DOUBLE_EQ(m.GetRate(), rc);
        EXPECT_DOUBLE_EQ(m.GetTargetRate(), rt);
    }
    EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::ADDITIVE); // T = 5 before: additive
    rt += 40e6;
    rc = (rt + rc) / 2;
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), rt);
    EXPECT_DOUBLE_EQ(m.GetRate(), rc);
    EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::ADDITIVE); // T = 6 > F but BC = 0
    rt += 40e6;
    for (int i = 0; i < 6; ++i)
    {
        EXPECT_EQ(m.ByteCounterExpired(), RoceDcqcnRateMachine::ADDITIVE) << "BC before " << i;
        rt += 40e6;
    }
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), rt);
    EXPECT_EQ(m.ByteCounterExpired(), RoceDcqcnRateMachine::HYPER); // T = 7, BC = 6: i = 1
    rt += 400e6;
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), rt);
    EXPECT_EQ(m.ByteCounterExpired(), RoceDcqcnRateMachine::HYPER); // T = 7, BC = 7: i = 2
    rt += 2 * 400e6;
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), rt);
    EXPECT_EQ(m.GetTimerCount(), 7u);
    EXPECT_EQ(m.GetByteCount(), 8u);
    // A CNP resets both counters: fast recovery again.
    m.Decrease();
    EXPECT_EQ(m.GetTimerCount(), 0u);
    EXPECT_EQ(m.GetByteCount(), 0u);
    EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::FAST_RECOVERY);
}

TEST(DcqcnRate, TimerAloneWalksTheStagesWithoutByteCounter)
{
    // hpcc-sim's F = 1, no byte counter. One fast recovery, one additive
    // increase, then hyper increase by (T - F) R_HAI (the paper's steps).
    RoceDcqcnRateMachine m;
    RoceDcqcnRpParams p = PresetParams("hpcc-sim");
    p.hyperConstant = false;
    m.Init(p);
    m.Decrease(); // Rc = 50G, Rt = 100G (not clamped: Rc never rose)
    m.Decrease(); // Rc = 25G
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), 100e9);
    m.TimerExpired(); // Rc = 62.5G
    m.Decrease();     // Rc rose: Rt = 62.5G, Rc = 31.25G
    double rt = 62.5e9;
    double rc = 31.25e9;
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), rt);
    EXPECT_DOUBLE_EQ(m.GetRate(), rc);
    EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::FAST_RECOVERY);
    rc = (rt + rc) / 2;
    EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::ADDITIVE);
    rt += 50e6;
    rc = (rt + rc) / 2;
    EXPECT_DOUBLE_EQ(m.GetRate(), rc);
    for (uint32_t i = 1; i <= 3; ++i)
    {
        EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::HYPER);
        rt += i * 100e6;
        rc = (rt + rc) / 2;
        EXPECT_DOUBLE_EQ(m.GetTargetRate(), rt);
        EXPECT_DOUBLE_EQ(m.GetRate(), rc);
    }
}

TEST(DcqcnRate, RatesNeverExceedLineRateNorFallBelowMinRate)
{
    RoceDcqcnRpParams p = PresetParams("hpcc-sim");
    RoceDcqcnRateMachine m;
    m.Init(p);
    for (int i = 0; i < 200; ++i)
    {
        m.Decrease();
        EXPECT_GE(m.GetRate(), p.minRate);
    }
    EXPECT_DOUBLE_EQ(m.GetRate(), 100e6);
    for (int i = 0; i < 2000 && m.IsRecovering(); ++i)
    {
        m.TimerExpired();
        EXPECT_LE(m.GetRate(), LINE);
        EXPECT_LE(m.GetTargetRate(), LINE);
    }
    EXPECT_FALSE(m.IsRecovering()) << "the timer alone brings the rate back to line rate";
    EXPECT_DOUBLE_EQ(m.GetRate(), LINE);
}

TEST(DcqcnRate, MinDecreaseFactorBoundsTheCut)
{
    RoceDcqcnRpParams p = PresetParams("nvidia-cx");
    p.minDecreaseFactor = 0.8; // stronger than 1 - alpha/2 = 0.5
    RoceDcqcnRateMachine m;
    m.Init(p);
    m.Decrease();
    EXPECT_DOUBLE_EQ(m.GetRate(), 80e9);
}

TEST(DcqcnRate, TargetClampingOption)
{
    // Without clamping, back-to-back CNPs keep Rt: only a CNP after the rate
    // rose moves it.
    RoceDcqcnRpParams p = PresetParams("hpcc-sim");
    ASSERT_FALSE(p.clampTargetRate);
    RoceDcqcnRateMachine m;
    m.Init(p);
    m.Decrease();
    m.Decrease();
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), LINE);
    EXPECT_DOUBLE_EQ(m.GetRate(), 25e9);
    m.TimerExpired(); // fast recovery: Rc = 62.5G
    m.Decrease();
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), 62.5e9);
    // With clamping, every CNP sets Rt = Rc.
    p.clampTargetRate = true;
    m.Init(p);
    m.Decrease();
    m.Decrease();
    EXPECT_DOUBLE_EQ(m.GetTargetRate(), 50e9);
}

TEST(DcqcnRate, ConstantHyperIncreaseAddsRateHaiEachStep)
{
    // HyperIncrease Constant (ConnectX, the HPCC simulator): each hyper
    // step adds R_HAI = 100 Mb/s, not (T - F) R_HAI. F = 1, no byte counter.
    RoceDcqcnRpParams p = PresetParams("hpcc-sim");
    p.hyperConstant = true;
    RoceDcqcnRateMachine m;
    m.Init(p);
    m.Decrease();     // Rc = 50G, Rt = 100G
    m.Decrease();     // Rc = 25G
    m.TimerExpired(); // fast recovery: Rc = 62.5G
    m.Decrease();     // Rt = 62.5G, Rc = 31.25G
    double rt = 62.5e9;
    double rc = 31.25e9;
    EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::FAST_RECOVERY);
    rc = (rt + rc) / 2;
    EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::ADDITIVE);
    rt += 50e6;
    rc = (rt + rc) / 2;
    for (int i = 0; i < 3; ++i)
    {
        EXPECT_EQ(m.TimerExpired(), RoceDcqcnRateMachine::HYPER);
        rt += 100e6;
        rc = (rt + rc) / 2;
        EXPECT_DOUBLE_EQ(m.GetTargetRate(), rt);
        EXPECT_DOUBLE_EQ(m.GetRate(), rc);
    }
}

/** A fixed pseudo-random event sequence, the machine against the reference, per preset. */
class DcqcnPresetSequence : public ::testing::TestWithParam<std::string>
{
};

TEST_P(DcqcnPresetSequence, MatchesTheEquationsEventByEvent)
{
    RoceDcqcnRpParams p = PresetParams(GetParam());
    RoceDcqcnRateMachine m;
    m.Init(p);
    Reference r(p);
    ExpectSame(m, r, "init");
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    int counts[3] = {0, 0, 0};
    for (int step = 0; step < 5000; ++step)
    {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int ev = static_cast<int>(x % 10);
        std::string where = GetParam() + " step " + std::to_string(step);
        if (ev == 0)
        {
            m.Decrease();
            r.Cnp();
        }
        else if (ev <= 3)
        {
            m.AlphaTimer();
            r.AlphaTimer();
        }
        else if (ev <= 7)
        {
            auto s = m.TimerExpired();
            EXPECT_EQ(s, r.Increase()) << where;
            r.t++;
            counts[s]++;
        }
        else if (p.byteCounterEnabled)
        {
            auto s = m.ByteCounterExpired();
            EXPECT_EQ(s, r.Increase()) << where;
            r.bc++;
            counts[s]++;
        }
        ExpectSame(m, r, where);
        if (HasFailure())
        {
            break;
        }
    }
    // The sequence visits every stage.
    EXPECT_GT(counts[RoceDcqcnRateMachine::FAST_RECOVERY], 0);
    EXPECT_GT(counts[RoceDcqcnRateMachine::ADDITIVE], 0);
    EXPECT_GT(counts[RoceDcqcnRateMachine::HYPER], 0);
}

INSTANTIATE_TEST_SUITE_P(Presets,
                         DcqcnPresetSequence,
                         ::testing::Values("paper-2015", "nvidia-cx", "hpcc-sim"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = info.param;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });
