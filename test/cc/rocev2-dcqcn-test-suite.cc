/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN's reaction point on running queue pairs: the rate-increase timer,
 * byte counter, alpha decay and rate-decrease period driven by real CNP
 * frames. The notification point and the presets are in
 * rocev2-dcqcn-np-test-suite.cc.
 *
 * Expected values come from the equations of DCQCN (Zhu et al., SIGCOMM
 * 2015; DESIGN §6, doc/rocev2.rst), transcribed here independently of the
 * model, and from the times at which CNP frames arrive on the sender's wire.
 */
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/node-container.h"
#include "ns3/queue-size.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-cc-dcqcn.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

/// Payload MTU of these tests: every data packet carries exactly this many bytes.
constexpr uint32_t MTU = 1000;

/**
 * Rates are compared to 1 bit/s. The reference below performs the same
 * IEEE operations as the equations, so it agrees with any correct
 * implementation up to rounding (about 1e-6 bit/s at 10 Gb/s); 1 bit/s is
 * also the distance at which Rc snaps to the line rate. Any wrong stage,
 * timer or counter moves a rate by at least R_AI = 40 Mb/s or halves a gap.
 */
constexpr double RATE_TOL = 1.0;

/// Relative tolerance on alpha: n multiplications round at most n ulps (n < 200 here).
constexpr double ALPHA_REL_TOL = 1e-12;

/**
 * The reaction point's equations, as DESIGN §6 and the module doc state
 * them (counters T and BC count the expiries before the current one).
 */
struct RpReference
{
    /** Increase stages. */
    enum Stage
    {
        FAST_RECOVERY,
        ADDITIVE,
        HYPER,
    };

    double line{10e9};      //!< line rate, bit/s
    double g{1.0 / 256};    //!< alpha gain
    double rai{40e6};       //!< R_AI
    double rhai{400e6};     //!< R_HAI
    uint32_t f{5};          //!< F
    double minRate{1e6};    //!< MinRate
    bool byteCounter{true}; //!< BC counts (else BC follows T)
    double rc{10e9};        //!< current rate
    double rt{10e9};        //!< target rate
    double alpha{1.0};      //!< alpha
    uint32_t t{0};          //!< timer expiries since the last CNP
    uint32_t bc{0};         //!< byte-counter expiries since the last CNP

    /** \param n alpha periods without a CNP */
    void AlphaPeriods(uint64_t n)
    {
        for (uint64_t i = 0; i < n; ++i)
        {
            alpha *= 1.0 - g;
        }
    }

    /** A CNP: Rt <- Rc, Rc <- Rc (1 - alpha/2), alpha <- (1-g) alpha + g. */
    void Cnp()
    {
        rt = rc;
        rc = std::max(rc * (1.0 - alpha / 2.0), minRate);
        alpha = (1.0 - g) * alpha + g;
        t = bc = 0;
    }

    /**
     * \param timer true for a timer expiry, false for a byte-counter one
     * \return the stage applied
     */
    Stage Increase(bool timer)
    {
        uint32_t b = byteCounter ? bc : t;
        uint32_t hi = std::max(t, b);
        uint32_t lo = std::min(t, b);
        Stage s;
        if (hi < f)
        {
            s = FAST_RECOVERY;
        }
        else if (lo > f)
        {
            s = HYPER;
            rt += (lo - f) * rhai;
        }
        else
        {
            s = ADDITIVE;
            rt += rai;
        }
        rt = std::min(rt, line);
        rc = std::min((rt + rc) / 2.0, line);
        if (line - rc < 1.0)
        {
            rc = line;
        }
        (timer ? t : bc)++;
        return s;
    }

    /** \return true while an increase event still changes something */
    bool Recovering() const
    {
        return rc < line || rt < line;
    }
};

/**
 * One sender and one receiver through one switch (1 us links) with DCQCN,
 * the sender writing one message from time 0. The switch does not mark, so
 * the only CNPs are the ones a test makes the receiver's NIC send
 * (RoceNetDevice::SendCnp: a real CNP frame through the switch). The
 * receiver acknowledges only every 65536 packets and the end of the message, so the reverse path
 * carries nothing but those CNPs and their latency is constant.
 */
class RpFixture
{
  public:
    /** One change of the sender's rate Rc. */
    struct RateEvent
    {
        Time at;              //!< when
        double rc;            //!< Rc after it
        double rt;            //!< Rt after it
        uint64_t payloadSent; //!< payload bytes the QP had sent then
    };

    /**
     * \param rate link rate
     * \param size bytes the sender writes
     * \param configure DCQCN attributes (SetCongestionControlAttribute)
     */
    RpFixture(const std::string& rate, uint64_t size, std::function<void(RoceHelper&)> configure)
    {
        NodeContainer sw(1);
        NodeContainer hosts(2);
        RoceSwitchHelper switches;
        switches.SetQueueDiscAttribute("EcnEnabled", BooleanValue(false));
        RoceHelper roce;
        roce.SetDeviceAttribute("DataRate", StringValue(rate));
        roce.SetChannelAttribute("Delay", StringValue("1us"));
        roce.SetNicAttribute("PayloadMtu", UintegerValue(MTU));
        roce.SetQpAttribute("AckInterval", UintegerValue(65536));
        roce.SetCongestionControl("dcqcn");
        configure(roce);
        switches.Install(sw);
        Ptr<NetDevice> tx = roce.Install(hosts.Get(0), sw.Get(0)).Get(0);
        Ptr<NetDevice> rx = roce.Install(hosts.Get(1), sw.Get(0)).Get(0);
        RoceSwitchHelper::PopulateRoutes();
        auto qps = roce.CreateQp(tx, rx);
        sender = qps.first;
        receiver = qps.second;
        rxNic = DynamicCast<RoceNetDevice>(rx);
        cc = DynamicCast<RoceCcDcqcn>(sender->GetCongestionControl());
        line = static_cast<double>(DataRate(rate).GetBitRate());
        cc->TraceConnectWithoutContext("Rate", MakeCallback(&RpFixture::OnRate, this));
        tx->TraceConnectWithoutContext("MacRx", MakeCallback(&RpFixture::OnSenderRx, this));
        sender->PostWrite(size,
                          Callback<void, const RoceCompletion&>(
                              [this](const RoceCompletion& c) { completed = c.completed; }));
    }

    /** \param at when the receiver's NIC sends a CNP for the QP */
    void InjectCnp(Time at)
    {
        Simulator::Schedule(at, &RpFixture::SendCnp, this);
    }

    /** \brief Run to the end (or to stop, if positive), then release the simulator. */
    void Run(Time stop = Time(0))
    {
        Simulator::Stop(stop.IsStrictlyPositive() ? stop : Seconds(0.1));
        Simulator::Run();
        timerCount = cc->GetRateMachine().GetTimerCount();
        decreases = cc->GetDecreases();
        cnpReceived = sender->GetStats().cnpReceived;
        Simulator::Destroy();
        sender = receiver = nullptr;
        rxNic = nullptr;
        cc = nullptr;
    }

    /// \return the decreases among the rate events (Rc fell)
    std::vector<RateEvent> Decreases() const
    {
        std::vector<RateEvent> d;
        double prev = line;
        for (const auto& e : rates)
        {
            if (e.rc < prev)
            {
                d.push_back(e);
            }
            prev = e.rc;
        }
        return d;
    }

    Ptr<RoceQueuePair> sender;              //!< sending QP
    Ptr<RoceQueuePair> receiver;            //!< receiving QP
    Ptr<RoceNetDevice> rxNic;               //!< the receiver's NIC
    Ptr<RoceCcDcqcn> cc;                    //!< the sender's DCQCN
    double line{0};                         //!< line rate, bit/s
    std::vector<RateEvent> rates;           //!< every change of Rc
    std::vector<Time> cnpArrivals;          //!< CNP frames arriving at the sender's NIC
    std::function<void(Time)> onCnpArrival; //!< called at each arrival
    Time completed;                         //!< when the message completed
    uint32_t timerCount{0};                 //!< T at the end
    uint64_t decreases{0};                  //!< decreases at the end
    uint64_t cnpReceived{0};                //!< CNPs the sending QP received

  private:
    void SendCnp()
    {
        rxNic->SendCnp(PeekPointer(receiver));
    }

    void OnRate(double /* old */, double now)
    {
        rates.push_back(RateEvent{Simulator::Now(),
                                  now,
                                  cc->GetTargetRate(),
                                  sender->GetStats().payloadBytesSent});
    }

    void OnSenderRx(Ptr<const Packet> p)
    {
        RoceFrame f = RoceFrame::Parse(*p);
        if (f.isRoce && f.opcode == RoceBthHeader::CNP)
        {
            cnpArrivals.push_back(Simulator::Now());
            if (onCnpArrival)
            {
                onCnpArrival(Simulator::Now());
            }
        }
    }
};

/// paper-2015's reaction point with the byte counter given (0: off).
std::function<void(RoceHelper&)>
Paper2015Rp(uint64_t byteCounter)
{
    return [byteCounter](RoceHelper& roce) {
        roce.SetCongestionControlAttribute("G", DoubleValue(1.0 / 256));
        roce.SetCongestionControlAttribute("InitialAlpha", DoubleValue(1.0));
        roce.SetCongestionControlAttribute("AlphaUpdateInterval", TimeValue(MicroSeconds(55)));
        roce.SetCongestionControlAttribute("RateIncreaseTimer", TimeValue(MicroSeconds(55)));
        roce.SetCongestionControlAttribute("ByteCounter", UintegerValue(byteCounter));
        roce.SetCongestionControlAttribute("FastRecoveryStages", UintegerValue(5));
        roce.SetCongestionControlAttribute("RateAi", DataRateValue(DataRate("40Mbps")));
        roce.SetCongestionControlAttribute("RateHai", DataRateValue(DataRate("400Mbps")));
        roce.SetCongestionControlAttribute("MinRate", DataRateValue(DataRate("1Mbps")));
        roce.SetCongestionControlAttribute("ClampTargetRate", BooleanValue(true));
        roce.SetCongestionControlAttribute("RateDecreasePeriod", TimeValue(Time(0)));
    };
}

/**
 * \param ref the reference, at line rate with the initial alpha since time 0
 * \param arrivals CNP arrival times
 * \param k alpha period
 * Applies, for each CNP, the alpha periods elapsed since the previous CNP
 * (or since the QP connected at time 0) and then the decrease.
 */
void
ApplyCnps(RpReference& ref, const std::vector<Time>& arrivals, Time k)
{
    Time anchor(0);
    for (Time a : arrivals)
    {
        ref.AlphaPeriods((a - anchor).GetTimeStep() / k.GetTimeStep());
        ref.Cnp();
        anchor = a;
    }
}

} // namespace

/**
 * \ingroup rocev2
 * The rate-increase timer on a running QP, byte counter off (paper-2015
 * otherwise, 10 Gb/s). Two CNP frames arrive at a1 and a2; then increase
 * events come exactly at a2 + k RateIncreaseTimer, k = 1..N, and each sets
 * Rc and Rt as the equations give: F fast-recovery steps Rc <- (Rt + Rc)/2
 * with Rt = Rc before the second CNP, one additive step Rt += R_AI, then hyper
 * steps Rt += i R_HAI (i = 1, 2, ...) until Rt is at line rate, then halvings
 * of the gap until Rc reaches line rate, where the timer stops (T = N).
 *
 * The message ends during the recovery. The timer goes on while the QP is
 * idle, until Rc is back at line rate: that is the paper's reaction point,
 * whose timer runs whether or not the flow sends (only the byte counter
 * needs traffic), so a flow that resumes after a pause does not start at the
 * rate its last CNP left. The model keeps that behaviour and this test
 * requires it.
 */
class DcqcnIncreaseTimerTestCase : public TestCase
{
  public:
    DcqcnIncreaseTimerTestCase()
        : TestCase("DCQCN RP: increase events every RateIncreaseTimer after the last CNP, "
                   "F fast-recovery, one additive, then hyper steps; the timer runs while idle "
                   "and stops at line rate")
    {
    }

  private:
    void DoRun() override
    {
        const Time period = MicroSeconds(55);
        RpFixture fx("10Gbps", 300000, Paper2015Rp(0));
        fx.InjectCnp(MicroSeconds(30));
        fx.InjectCnp(MicroSeconds(40));
        fx.Run();

        NS_TEST_ASSERT_MSG_EQ(fx.cnpArrivals.size(), 2u, "both CNP frames arrived");
        RpReference ref;
        ref.line = fx.line;
        ref.byteCounter = false;
        ref.rc = ref.rt = ref.line;
        std::vector<Time> a = fx.cnpArrivals;
        // The two decreases, at the arrival times.
        RpReference r1 = ref;
        ApplyCnps(r1, {a[0]}, period);
        ApplyCnps(ref, a, period);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(fx.rates.size(), 2u, "two decreases");
        NS_TEST_ASSERT_MSG_EQ(fx.rates[0].at, a[0], "the first CNP decreases on arrival");
        NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[0].rc, r1.rc, RATE_TOL, "Rc (1 - alpha/2)");
        NS_TEST_ASSERT_MSG_EQ(fx.rates[1].at, a[1], "the second CNP decreases on arrival");
        NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[1].rc, ref.rc, RATE_TOL, "Rc (1 - alpha/2)");
        NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[1].rt, r1.rc, RATE_TOL, "Rt <- Rc");

        // The increase events, computed from the equations.
        const double rt0 = ref.rt;
        std::vector<RpReference::Stage> stages;
        uint32_t k = 0;
        while (ref.Recovering())
        {
            ++k;
            stages.push_back(ref.Increase(true));
            std::size_t i = 1 + k;
            NS_TEST_ASSERT_MSG_LT(i, fx.rates.size(), "increase event " << k << " happened");
            NS_TEST_ASSERT_MSG_EQ(fx.rates[i].at, a[1] + period * k, "event " << k << " on time");
            NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[i].rc, ref.rc, RATE_TOL, "Rc after event " << k);
            NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[i].rt, ref.rt, RATE_TOL, "Rt after event " << k);
        }
        const uint32_t n = k;
        NS_TEST_ASSERT_MSG_EQ(fx.rates.size(), 2u + n, "no events beyond line rate");
        NS_TEST_ASSERT_MSG_EQ(fx.timerCount, n, "the timer stopped at line rate");
        NS_TEST_ASSERT_MSG_EQ(fx.rates.back().rc, fx.line, "back at line rate");

        // The stages, spelled out: F fast-recovery steps leave Rt alone, then
        // R_AI, then R_HAI, 2 R_HAI, ...
        const uint32_t f = 5;
        for (uint32_t j = 0; j < f; ++j)
        {
            NS_TEST_ASSERT_MSG_EQ(stages[j], RpReference::FAST_RECOVERY, "fast recovery " << j);
            NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[2 + j].rt, rt0, RATE_TOL, "Rt stays in FR");
        }
        NS_TEST_ASSERT_MSG_EQ(stages[f], RpReference::ADDITIVE, "then additive increase");
        NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[2 + f].rt, rt0 + 40e6, RATE_TOL, "Rt += R_AI");
        NS_TEST_ASSERT_MSG_EQ(stages[f + 1], RpReference::HYPER, "then hyper increase");
        NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[3 + f].rt, rt0 + 40e6 + 400e6, RATE_TOL, "Rt += R_HAI");
        NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[4 + f].rt,
                                  rt0 + 40e6 + 3 * 400e6,
                                  RATE_TOL,
                                  "Rt += 2 R_HAI");

        // The QP went idle before the recovery ended, and the timer went on.
        NS_TEST_ASSERT_MSG_GT(fx.completed, a[1], "the message ended after the CNPs");
        NS_TEST_ASSERT_MSG_LT(fx.completed + period * 3,
                              fx.rates.back().at,
                              "increase events continue while the QP is idle");
    }
};

/**
 * \ingroup rocev2
 * The byte counter on a running QP (paper-2015 at 10 Gb/s with ByteCounter
 * = 5000 B, five packets, so that it expires several times per timer
 * period). After the second CNP, each increase event is either a timer
 * expiry, exactly at a2 + k RateIncreaseTimer, or a byte-counter expiry,
 * exactly when the payload sent since the CNP reaches a multiple of
 * ByteCounter (no expiry missed). Each sets Rc and Rt as the equations give
 * with T and BC counting the expiries before it: fast recovery while
 * max(T, BC) < F, hyper increase by (min(T, BC) - F) R_HAI once min(T, BC) > F,
 * additive otherwise. The scenario shows both: the byte counter ends fast
 * recovery before the timer reaches F (max), and hyper increase waits for
 * the timer's (F+1)-th expiry although BC passed F long before (min).
 */
class DcqcnByteCounterTestCase : public TestCase
{
  public:
    DcqcnByteCounterTestCase()
        : TestCase("DCQCN RP: byte-counter expiries every ByteCounter bytes sent, interleaved "
                   "with the timer; stages follow max and min of T, BC against F")
    {
    }

  private:
    void DoRun() override
    {
        const Time period = MicroSeconds(55);
        const uint64_t bytes = 5000;
        const uint32_t f = 5;
        RpFixture fx("10Gbps", 2000000, Paper2015Rp(bytes));
        // 4 us apart: at Rc = 5 Gb/s the QP sends 2500 B < ByteCounter between them.
        fx.InjectCnp(MicroSeconds(30));
        fx.InjectCnp(MicroSeconds(34));
        fx.Run();

        NS_TEST_ASSERT_MSG_EQ(fx.cnpArrivals.size(), 2u, "both CNP frames arrived");
        const std::vector<Time>& a = fx.cnpArrivals;
        RpReference ref;
        ref.line = fx.line;
        ref.rc = ref.rt = ref.line;
        ApplyCnps(ref, a, period);
        NS_TEST_ASSERT_MSG_GT(fx.rates.size(), 2u, "increase events");
        NS_TEST_ASSERT_MSG_EQ(fx.rates[0].at, a[0], "the first decrease");
        NS_TEST_ASSERT_MSG_EQ(fx.rates[1].at, a[1], "the second decrease");
        NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[1].rc, ref.rc, RATE_TOL, "Rc after the decrease");

        const uint64_t base = fx.rates[1].payloadSent;
        uint32_t timerEvents = 0;
        uint32_t bcEvents = 0;
        bool byteCounterEndedFr = false;
        bool additiveWithBcAboveF = false;
        bool hyperSeen = false;
        for (std::size_t i = 2; i < fx.rates.size(); ++i)
        {
            const RpFixture::RateEvent& e = fx.rates[i];
            NS_TEST_ASSERT_MSG_EQ(ref.Recovering(), true, "event " << i << " while recovering");
            const uint64_t sent = e.payloadSent - base;
            const bool byBytes = sent >= (ref.bc + 1) * bytes;
            if (byBytes)
            {
                NS_TEST_ASSERT_MSG_EQ(sent,
                                      (ref.bc + 1) * bytes,
                                      "byte-counter expiry " << ref.bc + 1 << " at its byte");
                ++bcEvents;
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(e.at,
                                      a[1] + period * (ref.t + 1),
                                      "timer expiry " << ref.t + 1 << " on time");
                NS_TEST_ASSERT_MSG_EQ(sent / bytes, ref.bc, "no byte-counter expiry missed");
                ++timerEvents;
            }
            const uint32_t t = ref.t;
            const uint32_t bc = ref.bc;
            const double rtBefore = ref.rt;
            RpReference::Stage s = ref.Increase(!byBytes);
            NS_TEST_ASSERT_MSG_EQ_TOL(e.rc, ref.rc, RATE_TOL, "Rc after event " << i);
            NS_TEST_ASSERT_MSG_EQ_TOL(e.rt, ref.rt, RATE_TOL, "Rt after event " << i);
            if (s != RpReference::FAST_RECOVERY && t < f && bc == f && !hyperSeen)
            {
                byteCounterEndedFr = true;
            }
            if (s == RpReference::ADDITIVE && bc > f)
            {
                additiveWithBcAboveF = true;
            }
            if (s == RpReference::HYPER && !hyperSeen)
            {
                hyperSeen = true;
                NS_TEST_ASSERT_MSG_EQ(t, f + 1, "hyper increase waits for T > F");
                NS_TEST_ASSERT_MSG_GT(bc, f + 1, "while BC is past F");
                NS_TEST_ASSERT_MSG_EQ_TOL(e.rt,
                                          std::min(rtBefore + 400e6, fx.line),
                                          RATE_TOL,
                                          "first hyper step: (min(T, BC) - F) R_HAI = R_HAI");
            }
        }
        NS_TEST_ASSERT_MSG_EQ(ref.Recovering(), false, "the events brought Rc back to line rate");
        NS_TEST_ASSERT_MSG_GT(bcEvents, 3 * f, "the byte counter drove most of the recovery");
        NS_TEST_ASSERT_MSG_GT(timerEvents, f, "and the timer passed F");
        NS_TEST_ASSERT_MSG_EQ(byteCounterEndedFr, true, "max(T, BC) >= F ends fast recovery");
        NS_TEST_ASSERT_MSG_EQ(additiveWithBcAboveF, true, "min(T, BC) <= F keeps it additive");
        NS_TEST_ASSERT_MSG_EQ(hyperSeen, true, "hyper increase reached");
    }
};

/**
 * \ingroup rocev2
 * Alpha decays while no CNP comes, observed on a running QP with GetAlpha()
 * (g = 1/16, AlphaUpdateInterval K = 10 us). A CNP at a1 and another at
 * a2 = a1 + 3.5 K. At a + n K - 1 ns alpha is alpha_a (1 - g)^(n-1), at
 * a + n K it is alpha_a (1 - g)^n, where alpha_a = (1 - g) alpha + g after the
 * CNP at a, alpha being the value decayed since the previous CNP (or since
 * the QP connected with InitialAlpha = 1). Probes reach 200 periods, long
 * after the message ended (alpha decays on an idle QP as well), and cover
 * the second CNP restarting the alpha period.
 */
class DcqcnAlphaDecayTestCase : public TestCase
{
  public:
    DcqcnAlphaDecayTestCase()
        : TestCase("DCQCN RP: alpha decays as (1-g)^n after n AlphaUpdateIntervals without a "
                   "CNP; a CNP restarts the period")
    {
    }

  private:
    void DoRun() override
    {
        const Time k = MicroSeconds(10);
        const double g = 1.0 / 16;
        RpFixture fx("10Gbps", 100000, [k, g](RoceHelper& roce) {
            Paper2015Rp(0)(roce);
            roce.SetCongestionControlAttribute("G", DoubleValue(g));
            roce.SetCongestionControlAttribute("AlphaUpdateInterval", TimeValue(k));
        });
        fx.InjectCnp(MicroSeconds(20));
        fx.InjectCnp(MicroSeconds(20) + k * 3 + k / 2);

        /// One reading of alpha.
        struct Probe
        {
            std::size_t cnp;  //!< after which CNP
            uint64_t periods; //!< whole periods since it
            double alpha;     //!< GetAlpha()
        };

        std::vector<Probe> probes;
        RpFixture* f = &fx;
        auto probe = [f, &probes](std::size_t cnp, uint64_t periods) {
            probes.push_back(Probe{cnp, periods, f->cc->GetAlpha()});
        };
        fx.onCnpArrival = [f, k, probe](Time) {
            std::size_t cnp = f->cnpArrivals.size() - 1;
            std::vector<uint64_t> ns = {1, 2, 3};
            if (cnp == 1)
            {
                ns = {1, 2, 3, 10, 64, 65, 100, 200};
            }
            Simulator::ScheduleNow([probe, cnp]() { probe(cnp, 0); });
            for (uint64_t n : ns)
            {
                Simulator::Schedule(k * n - NanoSeconds(1),
                                    [probe, cnp, n]() { probe(cnp, n - 1); });
                Simulator::Schedule(k * n, [probe, cnp, n]() { probe(cnp, n); });
            }
        };
        fx.Run();

        NS_TEST_ASSERT_MSG_EQ(fx.cnpArrivals.size(), 2u, "both CNP frames arrived");
        NS_TEST_ASSERT_MSG_EQ(probes.size(), 7u + 17u, "every probe ran");
        NS_TEST_ASSERT_MSG_LT(fx.completed, fx.cnpArrivals[1] + k * 64, "idle for the last probes");
        std::vector<double> after;
        for (std::size_t c = 0; c < 2; ++c)
        {
            RpReference ref;
            ref.g = g;
            ref.line = ref.rc = ref.rt = fx.line;
            ApplyCnps(ref,
                      std::vector<Time>(fx.cnpArrivals.begin(), fx.cnpArrivals.begin() + c + 1),
                      k);
            after.push_back(ref.alpha);
        }
        for (const Probe& p : probes)
        {
            double expected = after[p.cnp];
            for (uint64_t i = 0; i < p.periods; ++i)
            {
                expected *= 1.0 - g;
            }
            NS_TEST_ASSERT_MSG_EQ_TOL(p.alpha,
                                      expected,
                                      expected * ALPHA_REL_TOL,
                                      "alpha " << p.periods << " periods after CNP " << p.cnp);
        }
    }
};

/**
 * \ingroup rocev2
 * The rate-decrease period on a running QP (paper-2015, 8 Gb/s, alpha
 * period and timer 55 us so that no increase falls between the CNPs). The
 * receiver's NIC sends CNP frames at given offsets; the reverse path carries
 * only them, so they arrive with the same spacing (checked). The rule: a CNP
 * decreases at once unless it comes within RateDecreasePeriod of the last
 * decrease; then it, and every CNP until the period ends, make one decrease
 * at the period's end. Each decrease follows Rc <- Rc (1 - alpha/2) with
 * alpha from the equations. Period 0: each CNP decreases.
 */
class DcqcnDecreasePeriodTestCase : public TestCase
{
  public:
    /**
     * \param name what the case shows
     * \param period RateDecreasePeriod
     * \param offsets when the receiver sends CNPs, from the first
     */
    DcqcnDecreasePeriodTestCase(const std::string& name, Time period, std::vector<Time> offsets)
        : TestCase("DCQCN RP: " + name),
          m_period(period),
          m_offsets(offsets)
    {
    }

  private:
    void DoRun() override
    {
        const Time alphaPeriod = MicroSeconds(55);
        const Time start = MicroSeconds(20);
        // At 8 Gb/s a CNP frame (74 B + FCS, preamble and gap = 98 B) takes exactly
        // 98 ns, so its latency has no sub-nanosecond carry and stays constant.
        RpFixture fx("8Gbps", 1000000, [this](RoceHelper& roce) {
            Paper2015Rp(0)(roce);
            roce.SetCongestionControlAttribute("RateDecreasePeriod", TimeValue(m_period));
        });
        for (Time o : m_offsets)
        {
            fx.InjectCnp(start + o);
        }
        // Stop before the first increase after the last CNP.
        fx.Run(start + m_offsets.back() + MicroSeconds(30));

        NS_TEST_ASSERT_MSG_EQ(fx.cnpArrivals.size(), m_offsets.size(), "every CNP arrived");
        NS_TEST_ASSERT_MSG_EQ(fx.cnpReceived, m_offsets.size(), "and reached the QP");
        const std::vector<Time>& a = fx.cnpArrivals;
        for (std::size_t i = 0; i < a.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(a[i] - a[0], m_offsets[i] - m_offsets[0], "constant latency");
        }
        // The decrease times the rule gives.
        std::vector<Time> expected;
        bool pending = false;
        Time due;
        for (Time t : a)
        {
            if (pending && t <= due)
            {
                continue; // coalesced into the pending decrease
            }
            if (pending)
            {
                expected.push_back(due);
                pending = false;
            }
            if (!expected.empty() && t < expected.back() + m_period)
            {
                pending = true;
                due = expected.back() + m_period;
            }
            else
            {
                expected.push_back(t);
            }
        }
        if (pending)
        {
            expected.push_back(due);
        }
        RpReference ref;
        ref.line = ref.rc = ref.rt = fx.line;
        NS_TEST_ASSERT_MSG_EQ(fx.rates.size(), expected.size(), "one rate change per decrease");
        NS_TEST_ASSERT_MSG_EQ(fx.decreases, expected.size(), "decreases counted");
        Time anchor(0);
        for (std::size_t i = 0; i < expected.size() && i < fx.rates.size(); ++i)
        {
            ref.AlphaPeriods((expected[i] - anchor).GetTimeStep() / alphaPeriod.GetTimeStep());
            ref.Cnp();
            anchor = expected[i];
            NS_TEST_ASSERT_MSG_EQ(fx.rates[i].at, expected[i], "decrease " << i << " on time");
            NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[i].rc, ref.rc, RATE_TOL, "Rc after decrease " << i);
            NS_TEST_ASSERT_MSG_EQ_TOL(fx.rates[i].rt, ref.rt, RATE_TOL, "Rt after decrease " << i);
        }
    }

    Time m_period;               //!< RateDecreasePeriod
    std::vector<Time> m_offsets; //!< CNP send offsets
};

/**
 * \ingroup rocev2
 * DCQCN's timers, byte counter, alpha, CNP pacing and decrease period on
 * running queue pairs, and the presets' installed values.
 */
class RoceDcqcnTestSuite : public TestSuite
{
  public:
    RoceDcqcnTestSuite()
        : TestSuite("rocev2-dcqcn", Type::SYSTEM)
    {
        AddTestCase(new DcqcnIncreaseTimerTestCase, RoceTestDuration::QUICK);
        AddTestCase(new DcqcnByteCounterTestCase, RoceTestDuration::QUICK);
        AddTestCase(new DcqcnAlphaDecayTestCase, RoceTestDuration::QUICK);
        const std::vector<Time> spread = {MicroSeconds(0),
                                          MicroSeconds(5),
                                          MicroSeconds(10),
                                          MicroSeconds(15),
                                          MicroSeconds(50)};
        AddTestCase(new DcqcnDecreasePeriodTestCase(
                        "CNPs within RateDecreasePeriod make one deferred decrease",
                        MicroSeconds(20),
                        spread),
                    RoceTestDuration::QUICK);
        AddTestCase(new DcqcnDecreasePeriodTestCase("RateDecreasePeriod 0: every CNP decreases",
                                                    Time(0),
                                                    spread),
                    RoceTestDuration::QUICK);
        AddTestCase(new DcqcnDecreasePeriodTestCase(
                        "a CNP arriving as the period ends joins the pending decrease",
                        MicroSeconds(20),
                        {MicroSeconds(0), NanoSeconds(19900), MicroSeconds(20)}),
                    RoceTestDuration::QUICK);
    }
};

/// The suite's instance.
static RoceDcqcnTestSuite g_dcqcnTestSuite;
