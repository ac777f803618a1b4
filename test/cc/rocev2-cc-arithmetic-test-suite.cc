/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TIMELY's rate rules and DCTCP-style window rules against hand-computed
 * values, each rule on its own queue pair fed directly; DCQCN's Alpha and
 * TargetRate trace sources on hand-fed CNPs.
 */
#include "ns3/double.h"
#include "ns3/node-container.h"
#include "ns3/queue-size.h"
#include "ns3/roce-cc-dcqcn.h"
#include "ns3/roce-cc-dctcp.h"
#include "ns3/roce-cc-hpcc.h"
#include "ns3/roce-cc-timely.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

using namespace ns3;

/**
 * \ingroup rocev2
 * DCQCN's Alpha and TargetRate trace sources fire once per change, with the
 * old and new values of the reaction-point equations (Zhu et al. 2015):
 * on a CNP Rt <- Rc, Rc <- Rc (1 - alpha / 2), alpha <- (1 - g) alpha + g.
 */
class DcqcnTraceTestCase : public TestCase
{
  public:
    DcqcnTraceTestCase()
        : TestCase("DCQCN: Alpha and TargetRate traces fire with the equations' old and new values")
    {
    }

  private:
    /** A trace firing: old and new value. */
    using Change = std::pair<double, double>;

    void DoRun() override
    {
        Ptr<RoceCcDcqcn> cc = CreateObject<RoceCcDcqcn>();
        cc->SetAttribute("InitialAlpha", DoubleValue(0.5));
        cc->SetAttribute("RateIncreaseTimer", TimeValue(Seconds(1))); // no increase in the run
        RoceCcContext ctx;
        ctx.lineRate = DataRate("100Gbps");
        std::vector<Change> alpha;
        std::vector<Change> target;
        cc->TraceConnectWithoutContext("Alpha",
                                       MakeBoundCallback(&DcqcnTraceTestCase::Record, &alpha));
        cc->TraceConnectWithoutContext("TargetRate",
                                       MakeBoundCallback(&DcqcnTraceTestCase::Record, &target));
        Simulator::Schedule(Time(0), [cc, ctx]() {
            cc->Init(ctx);
            cc->OnCnp();
        });
        Simulator::Schedule(MicroSeconds(10), [cc]() { cc->OnCnp(); });
        Simulator::Stop(MicroSeconds(20)); // before the first alpha period (55 us) ends
        Simulator::Run();
        Simulator::Destroy();

        const double g = 1.0 / 256;
        const double a1 = 0.5 * (1 - g) + g;
        const double a2 = a1 * (1 - g) + g;
        const double rc1 = 100e9 * (1 - 0.5 / 2); // the first cut uses alpha before its update
        // Init publishes the initial values (the traces start from 0), then
        // each CNP changes alpha, and the second sets Rt to the first cut's Rc.
        NS_TEST_ASSERT_MSG_EQ(alpha.size(), 3, "Init, then one Alpha change per CNP");
        NS_TEST_EXPECT_MSG_EQ_TOL(alpha[0].second, 0.5, 1e-12, "InitialAlpha at Init");
        NS_TEST_EXPECT_MSG_EQ_TOL(alpha[1].first, 0.5, 1e-12, "Alpha old value");
        NS_TEST_EXPECT_MSG_EQ_TOL(alpha[1].second, a1, 1e-12, "alpha after the first CNP");
        NS_TEST_EXPECT_MSG_EQ_TOL(alpha[2].first, a1, 1e-12, "Alpha old value");
        NS_TEST_EXPECT_MSG_EQ_TOL(alpha[2].second, a2, 1e-12, "alpha after the second CNP");
        // The first CNP sets Rt to Rc = line rate, its value already: no firing.
        NS_TEST_ASSERT_MSG_EQ(target.size(), 2, "TargetRate fires at Init and when Rt changes");
        NS_TEST_EXPECT_MSG_EQ_TOL(target[0].second, 100e9, 1, "Rt = line rate at Init");
        NS_TEST_EXPECT_MSG_EQ_TOL(target[1].first, 100e9, 1, "Rt before the second CNP");
        NS_TEST_EXPECT_MSG_EQ_TOL(target[1].second, rc1, 1, "Rt <- Rc after the first cut");
    }

    /**
     * \param log where to record
     * \param oldValue the value before
     * \param newValue the value after
     */
    static void Record(std::vector<Change>* log, double oldValue, double newValue)
    {
        log->emplace_back(oldValue, newValue);
    }
};

namespace
{

/**
 * \param haiCount the HaiCount attribute
 * \return TIMELY at 100 Gb/s with BaseRtt 5 us, T_low 10 us, T_high 100 us
 * and delta 500 Mb/s, initialised
 */
Ptr<RoceCcTimely>
HandMadeTimely(const std::string& haiCount)
{
    Ptr<RoceCcTimely> cc = CreateObject<RoceCcTimely>();
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(5)));
    cc->SetAttribute("Tlow", TimeValue(MicroSeconds(10)));
    cc->SetAttribute("Thigh", TimeValue(MicroSeconds(100)));
    cc->SetAttribute("Delta", DataRateValue(DataRate("500Mbps")));
    cc->SetAttribute("HaiCount", StringValue(haiCount));
    RoceCcContext ctx;
    ctx.lineRate = DataRate("100Gbps");
    cc->Init(ctx);
    return cc;
}

} // namespace

/**
 * \ingroup rocev2
 * TIMELY's rate rules against hand-computed values: RTT samples fed
 * directly, line rate 100 Gb/s, minRTT = BaseRtt = 5 us, T_low 10 us,
 * T_high 100 us, beta 0.8, a 0.875, delta 500 Mb/s.
 */
class TimelyArithmeticTestCase : public TestCase
{
  public:
    TimelyArithmeticTestCase()
        : TestCase("TIMELY: T_low, T_high, gradient and HAI rules on hand-made RTT samples")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RoceCcTimely> cc = HandMadeTimely("NegativeGradients");
        NS_TEST_ASSERT_MSG_EQ(cc->GetWindow(), 0, "TIMELY has no window");
        NS_TEST_ASSERT_MSG_EQ(cc->WantsInt(), false, "TIMELY needs no INT");
        uint64_t una = 1;
        auto sample = [&](double us) {
            Time rtt = NanoSeconds(static_cast<int64_t>(us * 1000));
            cc->RecordRtt(rtt);
            RoceAckEvent ack;
            ack.ackedBytes = 1000;
            ack.sndUna = una++;
            ack.sndNxt = una + 10;
            ack.rtt = rtt;
            cc->OnAck(ack);
        };
        const double tol = 1; // bit/s

        // The first sample only sets prev_rtt.
        sample(5);
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRttGradient(), 0.0, 1e-12, "no gradient yet");
        // Below T_low: + delta, but never above line rate.
        sample(5);
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), 100e9, tol, "rate above line rate");
        // Above T_high: rate (1 - beta (1 - 100/150)) = 100G x 11/15.
        sample(150);
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), 100e9 * 11 / 15, tol, "T_high rule");
        // rtt_diff = 0.875 x 145 us = 126.875 us, gradient 25.375 (reported, unused).
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRttGradient(), 25.375, 1e-9, "gradient");
        // 50 us: rtt_diff = 0.125 x 126.875 - 0.875 x 100 = -71.640625 us: + delta.
        sample(50);
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRttGradient(), -14.328125, 1e-9, "EWMA of the diffs");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), 100e9 * 11 / 15 + 0.5e9, tol, "+ delta");
        // Three more negative gradients: + delta each; the fifth in a row: + 5 delta.
        sample(60);
        sample(60);
        sample(60);
        NS_TEST_ASSERT_MSG_EQ(cc->GetNegativeGradientRun(), 4, "negative run");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), 100e9 * 11 / 15 + 2e9, tol, "+ delta x 4");
        sample(60);
        double hai = 100e9 * 11 / 15 + 4.5e9;
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), hai, tol, "HAI: + 5 delta");
        // 61 us: rtt_diff = 0.875 us - 0.000050 us, gradient 0.174990: multiplicative
        // decrease by beta x gradient.
        sample(61);
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRttGradient(), 0.174989986, 1e-8, "positive gradient");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), 66937290178.93, 100, "rate (1 - beta g)");
        NS_TEST_ASSERT_MSG_EQ(cc->GetNegativeGradientRun(), 0, "run survived a decrease");
        // A steep rise (gradient 8.3) would make the rate negative: MinRate holds.
        sample(40);
        sample(90);
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), 100e6, tol, "MinRate floor");
        // ACKs without an RTT sample change nothing.
        RoceAckEvent plain;
        plain.sndUna = una++;
        cc->OnAck(plain);
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), 100e6, tol, "an ACK without RTT acted");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * TIMELY with HaiCount Increases (the HPCC simulator's count): increases of
 * any kind since the last decrease, T_low's included, start hyperactive
 * increase at the HaiThreshold-th; a decrease ends it. Same settings as
 * above (delta 500 Mb/s, T_low 10 us, T_high 100 us, HAI 5 x delta).
 */
class TimelyHaiCountTestCase : public TestCase
{
  public:
    TimelyHaiCountTestCase()
        : TestCase("TIMELY: HaiCount Increases counts T_low's increases, a decrease resets it")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RoceCcTimely> cc = HandMadeTimely("Increases");
        uint64_t una = 1;
        auto sample = [&](double us) {
            Time rtt = NanoSeconds(static_cast<int64_t>(us * 1000));
            cc->RecordRtt(rtt);
            RoceAckEvent ack;
            ack.sndUna = una++;
            ack.sndNxt = una + 10;
            ack.rtt = rtt;
            cc->OnAck(ack);
        };
        const double tol = 1; // bit/s
        sample(500);          // the first sample only sets prev_rtt, even above T_high
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), 100e9, tol, "the first sample acted");
        sample(150); // T_high: 100G x 11/15, the count starts at 0
        const double cut = 100e9 * 11 / 15;
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), cut, tol, "T_high rule");
        for (int i = 1; i <= 5; ++i)
        {
            sample(5); // below T_low: + delta, counted
            NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), cut + i * 0.5e9, tol, "increase " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(cc->GetNegativeGradientRun(), 0, "no negative gradient");
        sample(5); // five increases before it: + 5 delta
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), cut + 5e9, tol, "HAI after five increases");
        sample(150); // a decrease resets the count
        const double cut2 = (cut + 5e9) * 11 / 15;
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), cut2, tol, "second T_high cut");
        sample(5);
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), cut2 + 0.5e9, tol, "back to + delta");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * DCTCP's window rules against hand-computed values: line rate 100 Gb/s,
 * mtu 1000 + 82 B, BaseRtt 8.656 us, so the initial window is the BDP
 * 108200 wire bytes = 100 packets = 100000 payload bytes; g = 1/16.
 */
class DctcpArithmeticTestCase : public TestCase
{
  public:
    DctcpArithmeticTestCase()
        : TestCase("DCTCP: alpha, once-per-window cut and per-ACK growth on hand-made ACKs")
    {
    }

  private:
    void DoRun() override
    {
        RoceCcContext ctx;
        ctx.lineRate = DataRate("100Gbps");
        ctx.mtu = 1000;
        ctx.wireOverhead = 82;
        const double tol = 1e-12;

        Ptr<RoceCcDctcp> pk = CreateObject<RoceCcDctcp>();
        pk->SetAttribute("InitialWindow", QueueSizeValue(QueueSize("10p")));
        pk->Init(ctx);
        NS_TEST_ASSERT_MSG_EQ(pk->GetWindow(), 10000, "InitialWindow 10p = 10 payload MTUs");

        Ptr<RoceCcDctcp> cc = CreateObject<RoceCcDctcp>();
        cc->SetAttribute("BaseRtt", TimeValue(NanoSeconds(8656)));
        cc->Init(ctx);
        NS_TEST_ASSERT_MSG_EQ(cc->GetWindow(), 100000, "initial window = BDP");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetAlpha(), 1.0, tol, "initial alpha");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetRate(), 100e9, 1, "DCTCP paces at line rate");
        NS_TEST_ASSERT_MSG_EQ(cc->OnCeReceived(), false, "DCTCP asks for a CNP");

        // ACK(una, nxt, ece), 1000 bytes each, nxt - una + 1 = 100 packets in
        // flight before each ACK: the window is full (it limits the sender)
        // while W < 101 packets, which holds throughout (W stays below 101005).
        auto ack = [&](uint64_t una, bool ece, uint64_t inflight = 99) {
            RoceAckEvent a;
            a.ackedBytes = 1000;
            a.sndUna = una;
            a.sndNxt = una + inflight;
            a.ecnEcho = ece;
            cc->OnAck(a);
        };
        // RFC 8257 section 3.4 grows W as TCP does (RFC 5681 section 3.1,
        // congestion avoidance): W += mtu x acked / W on every ACK that does not
        // echo CE (RFC 3168 section 6.1.2), marks earlier in the window or not.
        double w = 100000;
        auto grow = [&w]() { w += 1000.0 * 1000 / w; };
        // Window 1 opens at the first ACK (ends when una passes 100) ...
        for (uint64_t una = 1; una <= 100; ++una)
        {
            ack(una, false);
            grow();
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetAlpha(), 1.0, tol, "alpha moved mid-window");
        // 100 ACKs of one MTU: about one MTU per window of data (sqrt(1e10 + 2e8)
        // = 100995.0 for the continuous form).
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindow(), w, 1, "W += mtu acked / W per ACK");
        NS_TEST_ASSERT_MSG_EQ_TOL(w, 100995.0, 1, "one MTU per window of data");
        // ... and closes at una 101 (new window ends at 200): no marks, so
        // alpha = 15/16.
        ack(101, false);
        grow();
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetAlpha(), 15.0 / 16, tol, "alpha, F = 0");
        // Window 2: the first ECN echo cuts W by alpha/2 at once (RFC 8257
        // section 3.3); later ones in the same window of data do not cut, and the
        // ACKs without an echo keep growing W. Half of the 100 ACKs echo CE.
        for (uint64_t una = 102; una <= 200; ++una)
        {
            bool ece = una % 2 == 0;
            ack(una, ece);
            if (una == 102)
            {
                w *= 1 - 15.0 / 32;
                NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindow(), w, 1, "one cut by alpha/2");
            }
            else if (!ece)
            {
                grow();
            }
        }
        NS_TEST_ASSERT_MSG_EQ(cc->GetCuts(), 1, "cut more than once in a window");
        // 49 unmarked ACKs after the cut at about 53.6 KB: about 49 x 1000 / 53.6
        // = 0.91 MTU of growth in the marked window.
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindow(), w, 1, "the marked window did not grow");
        NS_TEST_ASSERT_MSG_GT(w, 101004.95 * (1 - 15.0 / 32) + 900, "growth in the marked window");
        // Close window 2 with an unmarked ACK: F = 50/100 (window 2 holds ACKs
        // 102..201, 50 marked), so alpha = 15/16 x 15/16 + 0.5/16.
        ack(201, false);
        grow();
        double alpha = 15.0 / 16 * 15.0 / 16 + 0.5 / 16;
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetAlpha(), alpha, tol, "alpha, F = 0.5");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindow(), w, 1, "W at the end of the marked window");

        // ACKs while the sender never filled W (12 packets in flight before
        // each) do not grow it (RFC 7661: the window was not the limit).
        uint64_t wNow = cc->GetWindow();
        for (uint64_t una = 202; una <= 300; ++una)
        {
            ack(una, false, 10);
        }
        ack(301, false, 10);
        NS_TEST_ASSERT_MSG_EQ(cc->GetWindow(), wNow, "grew while not window-limited");
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetAlpha(), alpha * 15 / 16, tol, "alpha decays");
        w = wNow;

        // A NAK halves W once per window; a timeout halves it regardless.
        cc->OnNak();
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindow(), w / 2, 1, "NAK halves");
        cc->OnNak();
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindow(), w / 2, 1, "second NAK in the window cut again");
        cc->OnTimeout();
        NS_TEST_ASSERT_MSG_EQ_TOL(cc->GetWindow(), w / 4, 1, "timeout halves");
        // The window never falls below one packet.
        for (uint32_t i = 0; i < 20; ++i)
        {
            cc->OnTimeout();
        }
        NS_TEST_ASSERT_MSG_EQ(cc->GetWindow(), 1000, "window below one packet");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * rocev2-cc-arithmetic suite.
 */
class RoceCcArithmeticTestSuite : public TestSuite
{
  public:
    RoceCcArithmeticTestSuite()
        : TestSuite("rocev2-cc-arithmetic", Type::UNIT)
    {
        AddTestCase(new TimelyArithmeticTestCase, RoceTestDuration::QUICK);
        AddTestCase(new TimelyHaiCountTestCase, RoceTestDuration::QUICK);
        AddTestCase(new DctcpArithmeticTestCase, RoceTestDuration::QUICK);
        AddTestCase(new DcqcnTraceTestCase, RoceTestDuration::QUICK);
    }
};

static RoceCcArithmeticTestSuite g_roceCcArithmeticTestSuite; //!< static instance
