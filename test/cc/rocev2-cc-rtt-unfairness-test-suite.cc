/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RTT unfairness: two long flows with 1x and 4x base RTT on one bottleneck,
 * per algorithm; the throughput ratio in the range the literature, or a
 * bound derived from the algorithm's rules, gives.
 */
#include "rocev2-cc-dynamics-test-helpers.h"

#include "ns3/roce-ns3-compat.h"

namespace
{

/// RttExpectation::maxRatio when there is no upper limit.
constexpr double NO_LIMIT = 1e9;

/// What the papers, or a bound derived from the rules, say about a 1x / 4x RTT pair.
struct RttExpectation
{
    double minRatio; //!< short-RTT flow's throughput / long-RTT flow's, at least
    double maxRatio; //!< at most
    std::string why; //!< where the range comes from
};

/**
 * \ingroup rocev2
 * Two long flows share one bottleneck from t = 0, one with the base RTT of
 * the fabric (4.19 us) and one with four times it (its sender's link is
 * longer). The test reports the short flow's throughput over the long
 * flow's over the second half of the run, and asserts the range the
 * literature, or a bound derived from the algorithm's rules, gives
 * (RttExpectation).
 */
class RttUnfairnessTestCase : public TestCase
{
  public:
    /**
     * \param model the algorithm \param duration how long to run
     * \param expect what to assert
     */
    RttUnfairnessTestCase(CcModel model, Time duration, RttExpectation expect)
        : TestCase(model.name + ": two flows with 1x and 4x base RTT: throughput ratio " +
                   (expect.maxRatio == NO_LIMIT ? ">= " + ToString(expect.minRatio)
                                                : "in [" + ToString(expect.minRatio) + ", " +
                                                      ToString(expect.maxRatio) + "]")),
          m_model(std::move(model)),
          m_duration(duration),
          m_expect(std::move(expect))
    {
    }

  private:
    /** \param x a number \return it with two decimals */
    static std::string ToString(double x)
    {
        std::ostringstream os;
        os << std::fixed << std::setprecision(2) << x;
        return os.str();
    }

    void DoRun() override
    {
        const Time shortRtt = m_model.Rtt();
        DynScenario sc;
        sc.configure = m_model.configure;
        sc.linkBps = m_model.linkBps;
        sc.sample = m_duration / 2;
        sc.flows.resize(2);
        sc.flows[1].access = SenderDelayFor(4 * shortRtt, sc.linkBps);
        sc.end = m_duration;
        DynRun r = RunDynamics(sc);
        double shortBps = r.Rate(0, 1, 2);
        double longBps = r.Rate(1, 1, 2);
        double ratio = shortBps / longBps;
        std::cout << m_model.name << " RTT " << shortRtt.As(Time::US) << " vs "
                  << BaseRtt(sc.flows[1].access, sc.linkBps).As(Time::US) << ": " << std::fixed
                  << std::setprecision(1) << shortBps / 1e9 << " vs " << longBps / 1e9
                  << " Gb/s, ratio " << std::setprecision(2) << ratio << " (expected "
                  << m_expect.minRatio << ".." << m_expect.maxRatio << ": " << m_expect.why
                  << ")\n";
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, 0, "lossless");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(ratio, m_expect.minRatio, m_expect.why);
        NS_TEST_EXPECT_MSG_LT_OR_EQ(ratio, m_expect.maxRatio, m_expect.why);
        NS_TEST_EXPECT_MSG_GT_OR_EQ(shortBps + longBps,
                                    m_model.utilisation * m_model.Goodput(),
                                    "bottleneck idle");
    }

    CcModel m_model;         //!< the algorithm
    Time m_duration;         //!< run length
    RttExpectation m_expect; //!< what to assert
};

} // namespace

/**
 * \ingroup rocev2
 * RTT unfairness of every algorithm: one case per algorithm.
 */
class RoceCcRttUnfairnessTestSuite : public TestSuite
{
  public:
    RoceCcRttUnfairnessTestSuite()
        : TestSuite("rocev2-cc-rtt-unfairness", Type::SYSTEM)
    {
        const Time shortRtt = BaseRtt(LINK_DELAY);
        const Time longRtt = 4 * shortRtt;
        // DCQCN: the rate rises on a timer (and byte counter), not per RTT, and
        // a flow's CNPs follow its marked packets: nothing in the rate machine
        // depends on the RTT, and the fixed point of its fluid model (Zhu et al.,
        // CoNEXT 2016) is the fair share whatever the feedback delay. The long
        // flow only reacts 12 us later, a small fraction of a 55-300 us rate
        // period. Near fair: within 25% either way (Jain >= 0.988).
        RttExpectation dcqcn{1 / 1.25,
                             1.25,
                             "DCQCN is rate-based with timer-driven increase: near fair"};
        AddTestCase(new RttUnfairnessTestCase(Dcqcn("paper-2015", 40e9), MilliSeconds(100), dcqcn),
                    RoceTestDuration::QUICK);
        AddTestCase(
            new RttUnfairnessTestCase(Dcqcn("nvidia-cx", LINK_BPS), MilliSeconds(20), dcqcn),
            RoceTestDuration::QUICK);
        // HPCC is window-based, but its window is W = R T with each flow's own
        // base RTT T (here measured per flow, the BaseRtt attribute being unset):
        // W_AI / T = B (1 - eta) / N is the same rate step for every flow, and the
        // factor eta / U is common, so the fixed point Wc / T = (W_AI / T) /
        // (1 - eta / U) does not depend on T; the window cannot hold the long
        // flow back since it is sized to its own RTT. What differs is U's queue
        // term qlen / (B T): the same queue weighs four times more for the short
        // flow, which therefore backs off a little more. So no 1/RTT bias (a
        // ratio near 4); near fair, the long flow possibly ahead: within 1.5x
        // either way.
        RttExpectation hpcc{1 / 1.5,
                            1.5,
                            "HPCC's W = R T with per-flow T has an RTT-independent fixed point"};
        AddTestCase(new RttUnfairnessTestCase(Hpcc(), MilliSeconds(20), hpcc),
                    RoceTestDuration::QUICK);
        // DCTCP is window-based (Alizadeh et al. 2010; RFC 8257): AIMD, one MSS
        // per own RTT T_i up, a cut by alpha / 2 when marked. The switch marks
        // both flows in the same episodes (the queue crosses K for both), so
        // between two episodes P apart each flow adds P / T_i MSS and removes
        // alpha W_i / 2; with one alpha (one marked fraction) W_i = 2 P / (alpha
        // T_i): the windows go as 1 / RTT and the throughputs W_i / T_i as
        // 1 / RTT^2 (the synchronised-loss result for AIMD, Lakshman and Madhow
        // 1997). At worst the long flow is not marked in fewer episodes than the
        // short one; if it is (it cuts at most once per its longer RTT) its
        // window is larger, down to the 1 / RTT of equal windows. So the ratio
        // lies between T2' / T1' and (T2' / T1')^2, T' the RTT with the standing
        // queue: the queue is at most K (plus one sawtooth's overshoot) and at
        // least empty. Lower end with the queue at K: (4 T + K/C) / (T + K/C) =
        // 2.91; upper end with no queue: (4 T / T)^2 = 16.
        const Time queueing = Seconds(RoceCcHelper::DCTCP_K_BYTES * 8 / LINK_BPS);
        double dctcpMin = (longRtt + queueing).GetSeconds() / (shortRtt + queueing).GetSeconds();
        double dctcpMax = std::pow(longRtt.GetSeconds() / shortRtt.GetSeconds(), 2);
        RttExpectation dctcp{dctcpMin,
                             dctcpMax,
                             "DCTCP's AIMD favours the short RTT between 1/RTT and 1/RTT^2"};
        AddTestCase(new RttUnfairnessTestCase(Dctcp(), MilliSeconds(5), dctcp),
                    RoceTestDuration::QUICK);
        // TIMELY (Mittal et al. 2015) updates once per RTT sample: +Delta, or a
        // cut by beta times the gradient normalised by the flow's own minimum
        // RTT. Both the step and the cut come four times less often to the long
        // flow, so in the gradient region alone the two would balance at the
        // same rate (no RTT term in the fixed point). But T_low is one absolute
        // threshold: below it the rate grows whatever the gradient. The short
        // flow's RTT (4.2 us) is below T_low = 10 us whenever less than 5.8 us
        // of queue stands; the long flow's (16.8 us) never is. The short flow is
        // favoured; asserting at least 1.25 keeps the direction clear of noise.
        RttExpectation timely{1.25,
                              NO_LIMIT,
                              "TIMELY's absolute T_low lets only the short-RTT flow grow freely"};
        AddTestCase(new RttUnfairnessTestCase(Timely(), MilliSeconds(5), timely),
                    RoceTestDuration::QUICK);
    }
};

static RoceCcRttUnfairnessTestSuite g_roceCcRttUnfairnessTestSuite; //!< static instance
