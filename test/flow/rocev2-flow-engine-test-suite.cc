/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The flow-level engine (RoceFlowEngine): its max-min allocation against
 * answers worked by hand, one flow's completion time against the frames'
 * bytes and the links' physics (and against the packet model), the shares
 * of N flows on one bottleneck and what a leaving flow frees, a NIC's queue
 * pairs, and the refusals. On fabrics (a link down, the fast path in
 * collectives, collectives at both fidelities): rocev2-flow-fabric.
 */

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-collective-app.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-error.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-flow-engine.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <numeric>

using namespace ns3;

namespace
{

const DataRate g_rate("100Gbps");
const Time g_delay = NanoSeconds(1000);
constexpr uint32_t MTU = 1024;

/** Hosts on one switch, each by its own link of g_rate and g_delay. */
struct Star
{
    NodeContainer sw;                    //!< the switch
    NodeContainer hosts;                 //!< the hosts
    std::vector<Ptr<RoceNetDevice>> nic; //!< host i's NIC
    RoceHelper roce;                     //!< made the links and QPs
};

/**
 * \param star filled
 * \param n hosts
 * \param cc congestion control of the NICs
 */
void
MakeStar(Star& star, uint32_t n, const std::string& cc = "none")
{
    star.sw.Create(1);
    star.hosts.Create(n);
    RoceSwitchHelper switches;
    switches.Install(star.sw);
    star.roce.SetDeviceAttribute("DataRate", DataRateValue(g_rate));
    star.roce.SetChannelAttribute("Delay", TimeValue(g_delay));
    star.roce.SetNicAttribute("PayloadMtu", UintegerValue(MTU));
    star.roce.SetCongestionControl(cc);
    for (uint32_t i = 0; i < n; ++i)
    {
        star.nic.push_back(DynamicCast<RoceNetDevice>(
            star.roce.Install(star.hosts.Get(i), star.sw.Get(0)).Get(0)));
    }
    RoceSwitchHelper::PopulateRoutes();
}

/**
 * \return seconds a frame of frameBytes (without FCS) takes on a g_rate
 *         wire: padded to 60 bytes, plus FCS 4, preamble and SFD 8, IFG 12
 */
double
WireSeconds(uint32_t frameBytes)
{
    return (std::max(frameBytes, 60u) + 24) * 8.0 / g_rate.GetBitRate();
}

/**
 * Progressive filling on hand-worked cases.
 *
 * Three links, A = 10, B = 4, C = 10; flows f0 on {A, B}, f1 on {B, C},
 * f2 on {A}, f3 on {C}. B is full first, at 4 / 2 = 2 (f0, f1); then A has
 * 10 - 2 = 8 left for f2 alone and C 8 for f3: {2, 2, 8, 8}. Weighted: one
 * link of 12 carrying f0 and f1 by 1 and f2 by 0.5 (an ACK stream) fills at
 * 12 / 2.5 = 4.8 for all three. A chain with a bottleneck inside: links
 * D = 6, E = 9; f0 on {D, E}, f1 on {D}, f2 on {E}: D fills at 3 (f0, f1),
 * then E has 9 - 3 = 6 for f2: {3, 3, 6}. Rates are compared within 1e-12
 * relative, the double arithmetic of a few subtractions and divisions.
 */
class RoceFlowMaxMinTestCase : public TestCase
{
  public:
    RoceFlowMaxMinTestCase()
        : TestCase("max-min rates of hand-worked link sets, weighted and not")
    {
    }

  private:
    void Check(const std::vector<double>& got, const std::vector<double>& want)
    {
        NS_TEST_ASSERT_MSG_EQ(got.size(), want.size(), "one rate per flow");
        for (size_t i = 0; i < want.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(got[i], want[i], want[i] * 1e-12, "flow " << i);
        }
    }

    void DoRun() override
    {
        Check(RoceFlowEngine::MaxMin({10, 4, 10},
                                     {{{0, 1}, {1, 1}}, {{1, 1}, {2, 1}}, {{0, 1}}, {{2, 1}}}),
              {2, 2, 8, 8});
        Check(RoceFlowEngine::MaxMin({12}, {{{0, 1}}, {{0, 1}}, {{0, 0.5}}}), {4.8, 4.8, 4.8});
        Check(RoceFlowEngine::MaxMin({6, 9}, {{{0, 1}, {1, 1}}, {{0, 1}}, {{1, 1}}}), {3, 3, 6});
        bool refused = false;
        try
        {
            RoceFlowEngine::MaxMin({1}, {{{0, 0}}});
        }
        catch (const RoceError&)
        {
            refused = true;
        }
        NS_TEST_EXPECT_MSG_EQ(refused, true, "a flow that loads no link is refused");
    }
};

/**
 * Random link sets against the definition of max-min fairness (weighted as
 * the engine loads ACK paths): the rates are feasible (every link's load
 * sum of weight x rate at most its capacity) and every flow has a
 * bottleneck, a link that is full and on which no flow with a weight above
 * 0 has a higher rate. Those two properties single out the max-min
 * allocation, so they check the answer without a second implementation.
 * 500 sets of 1-40 links (capacities 1-100) and 1-60 flows of 1-6 links,
 * a third of the loads weighted 0.05-0.2 as ACKs, flows often sharing the
 * same rates (the rounds) and often not (the heap). A link counts as full
 * within 1e-9 of its capacity and rates as equal within 1e-9 relative: the
 * double sums of up to 60 terms round at about 1e-14.
 */
class RoceFlowMaxMinRandomTestCase : public TestCase
{
  public:
    RoceFlowMaxMinRandomTestCase()
        : TestCase("max-min rates of random link sets are feasible and every flow has a bottleneck")
    {
    }

  private:
    void DoRun() override
    {
        uint64_t x = 0x9E3779B97F4A7C15ULL;
        auto next = [&x](uint32_t n) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            return static_cast<uint32_t>(x % n);
        };
        uint32_t bad = 0;
        for (uint32_t trial = 0; trial < 500; ++trial)
        {
            const uint32_t nLinks = 1 + next(40);
            const uint32_t nFlows = 1 + next(60);
            std::vector<double> cap(nLinks);
            for (double& c : cap)
            {
                // Few distinct capacities in half the trials: many ties.
                c = trial % 2 ? 1 + next(100) : 10.0 * (1 + next(3));
            }
            std::vector<std::vector<std::pair<uint32_t, double>>> flows(nFlows);
            for (auto& f : flows)
            {
                const uint32_t hops = 1 + next(6);
                std::vector<bool> used(nLinks, false);
                for (uint32_t h = 0; h < hops; ++h)
                {
                    const uint32_t l = next(nLinks);
                    if (used[l])
                    {
                        continue;
                    }
                    used[l] = true;
                    const double w =
                        h > 0 && next(3) == 0 ? 0.05 + 0.15 * next(1000) / 1000.0 : 1.0;
                    f.push_back({l, w});
                }
            }
            const std::vector<double> r = RoceFlowEngine::MaxMin(cap, flows);
            std::vector<double> load(nLinks, 0);
            std::vector<double> top(nLinks, 0);
            for (uint32_t i = 0; i < nFlows; ++i)
            {
                for (const auto& [l, w] : flows[i])
                {
                    load[l] += w * r[i];
                    top[l] = std::max(top[l], r[i]);
                }
            }
            for (uint32_t l = 0; l < nLinks; ++l)
            {
                if (load[l] > cap[l] * (1 + 1e-9))
                {
                    ++bad;
                    NS_TEST_EXPECT_MSG_EQ(true,
                                          false,
                                          "trial " << trial << ": link " << l << " over capacity");
                }
            }
            for (uint32_t i = 0; i < nFlows; ++i)
            {
                bool bottleneck = false;
                for (const auto& [l, w] : flows[i])
                {
                    bottleneck = bottleneck ||
                                 (load[l] >= cap[l] * (1 - 1e-9) && r[i] >= top[l] * (1 - 1e-9));
                }
                if (!bottleneck)
                {
                    ++bad;
                    NS_TEST_EXPECT_MSG_EQ(bottleneck,
                                          true,
                                          "trial " << trial << ": flow " << i
                                                   << " has no bottleneck");
                }
            }
            if (bad > 5)
            {
                return;
            }
        }
    }
};

/**
 * One WRITE alone from host 1 to host 0 through the switch, at both
 * fidelities. Its frames: 1 MB = 977 packets of 1,024 B (the last 576 B);
 * the first carries a RETH (16 B). A data frame is 58 B of headers (Ethernet
 * 14, IPv4 20, UDP 8, BTH 12, ICRC 4) beyond its payload; each takes 24 B
 * more on the wire. At line rate the last byte leaves the NIC after W / C
 * (W the frames' wire bytes); it then crosses two links (2 d) and is stored
 * and forwarded once by the switch. On the switch's egress, frames follow
 * one another from the first frame's arrival on, and the last leaves at
 * max over k of (frames 1..k on link 1 + frames k..n on link 2) = W / C +
 * the largest frame's wire time (here the first, with its RETH); the ACK of
 * the last packet (62 B: headers, AETH 4, ICRC) crosses two links back, each
 * with its wire time. Flow level must give this to the nanosecond (its events
 * round up to the resolution: 1 ns); the packet model, whose frames follow
 * one another on an idle path at line rate, within 2 ns (its serialisation
 * rounds each frame to the nanosecond, carrying the remainder).
 */
class RoceFlowOneFlowTestCase : public TestCase
{
  public:
    RoceFlowOneFlowTestCase()
        : TestCase("one flow alone: bytes on the wire over rate plus path latency, to the ns")
    {
    }

  private:
    static Time Run(bool flow, Ptr<RoceFlowEngine>* engineOut = nullptr)
    {
        Star star;
        MakeStar(star, 2);
        Ptr<RoceFlowEngine> engine;
        if (flow)
        {
            engine = RoceFlowEngine::Install();
        }
        auto [s, r] = star.roce.CreateQp(star.nic[1], star.nic[0]);
        Time done;
        s->PostWrite(1000000, MakeCallback(+[](Time* t, const RoceCompletion& c) {
                                  *t = c.completed - c.posted;
                              }).Bind(&done));
        Simulator::Run();
        if (engineOut)
        {
            *engineOut = engine;
        }
        Simulator::Destroy();
        return done;
    }

    void DoRun() override
    {
        const uint64_t bytes = 1000000;
        const uint64_t packets = (bytes + MTU - 1) / MTU;
        const uint32_t last = bytes - (packets - 1) * MTU;
        const double w = WireSeconds(58 + 16 + MTU) + (packets - 2) * WireSeconds(58 + MTU) +
                         WireSeconds(58 + last);
        const double expect = w + 2 * g_delay.GetSeconds() + WireSeconds(58 + 16 + MTU) +
                              2 * (g_delay.GetSeconds() + WireSeconds(62));
        const Time flow = Run(true);
        const Time packet = Run(false);
        NS_TEST_EXPECT_MSG_EQ_TOL(flow.GetSeconds(),
                                  expect,
                                  1e-9,
                                  "flow level: " << flow.GetNanoSeconds() << " ns");
        NS_TEST_EXPECT_MSG_EQ_TOL(packet.GetSeconds(),
                                  expect,
                                  2e-9,
                                  "packet level: " << packet.GetNanoSeconds() << " ns");
    }
};

/**
 * N = 4 senders to one receiver: the receiver's link carries their data (the
 * ACKs go the other way), so each gets C / 4 of the wire. The senders write
 * 1, 2, 3 and 4 MB: when the first has sent its bytes, three are left at
 * C / 3, then two at C / 2, then one at C. The test samples the engine's
 * rates between those instants and checks each finish time against the
 * fluid schedule: with W_k the wire bytes of k MB, flow 1 ends at 4 W_1 / C,
 * flow 2 at that + 3 (W_2 - W_1) / C, and so on (the largest frame's store
 * and forward, the links' delays and the ACK's way back added as in the
 * one-flow case). The engine learns of each end at the next nanosecond (its
 * events round up to the resolution) and changes rates then: each earlier
 * end may delay a flow by up to 1 ns, so flow k (0-based) is checked within
 * (k + 1) ns.
 */
class RoceFlowSharesTestCase : public TestCase
{
  public:
    RoceFlowSharesTestCase()
        : TestCase("N flows on one bottleneck get C over N, a leaving flow frees its share at once")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 4;
        Star star;
        MakeStar(star, n + 1);
        Ptr<RoceFlowEngine> engine = RoceFlowEngine::Install();
        std::vector<Ptr<RoceQueuePair>> qps;
        std::vector<Time> done(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            auto [s, r] = star.roce.CreateQp(star.nic[i + 1], star.nic[0]);
            qps.push_back(s);
            s->PostWrite((i + 1) * 1000000ULL, MakeCallback(+[](Time* t, const RoceCompletion& c) {
                                                   *t = c.completed;
                                               }).Bind(&done[i]));
        }
        // Wire bytes of k MB, and the fluid ends.
        auto wire = [](uint64_t bytes) {
            const uint64_t packets = (bytes + MTU - 1) / MTU;
            const uint32_t last = bytes - (packets - 1) * MTU;
            return (58 + 16 + MTU + 24) + (packets - 2) * (58.0 + MTU + 24) + (58 + last + 24);
        };
        const double c = g_rate.GetBitRate() / 8.0;
        std::vector<double> end(n);
        double t = 0;
        double sent = 0;
        for (uint32_t k = 0; k < n; ++k)
        {
            t += (n - k) * (wire((k + 1) * 1000000ULL) - sent) / c;
            sent = wire((k + 1) * 1000000ULL);
            end[k] = t;
        }
        std::vector<std::vector<double>> rates(n);
        for (uint32_t k = 0; k < n; ++k)
        {
            // Halfway through each phase.
            const double at = (k == 0 ? end[0] : end[k - 1] + end[k]) / 2;
            Simulator::Schedule(Seconds(at), [&, k]() {
                for (uint32_t i = 0; i < n; ++i)
                {
                    rates[k].push_back(engine->GetRate(qps[i]));
                }
            });
        }
        Simulator::Run();
        for (uint32_t k = 0; k < n; ++k)
        {
            for (uint32_t i = 0; i < n; ++i)
            {
                const double want = i < k ? 0 : g_rate.GetBitRate() / double(n - k);
                NS_TEST_EXPECT_MSG_EQ_TOL(rates[k][i],
                                          want,
                                          1e-9 * g_rate.GetBitRate(),
                                          "phase " << k << ", flow " << i);
            }
            const double latency = 2 * g_delay.GetSeconds() + WireSeconds(58 + 16 + MTU) +
                                   2 * (g_delay.GetSeconds() + WireSeconds(62));
            NS_TEST_EXPECT_MSG_EQ_TOL(done[k].GetSeconds(),
                                      end[k] + latency,
                                      (k + 1) * 1e-9,
                                      "flow " << k << " completes at " << done[k].GetNanoSeconds()
                                              << " ns");
        }
        NS_TEST_EXPECT_MSG_EQ(engine->GetNActive(), 0, "every flow finished");
        NS_TEST_EXPECT_MSG_EQ(engine->GetStats().delivered, n, "every message delivered");
        Simulator::Destroy();
    }
};

/**
 * A queue pair's messages follow one another, as its packets do: two 1 MB
 * WRITEs posted at once on one QP end at W / C and 2 W / C (plus the path
 * latency), not both at 2 W / C as two concurrent flows would.
 */
class RoceFlowQpOrderTestCase : public TestCase
{
  public:
    RoceFlowQpOrderTestCase()
        : TestCase("a queue pair's messages are carried one after the other")
    {
    }

  private:
    void DoRun() override
    {
        Star star;
        MakeStar(star, 2);
        Ptr<RoceFlowEngine> engine = RoceFlowEngine::Install();
        auto [s, r] = star.roce.CreateQp(star.nic[1], star.nic[0]);
        std::vector<Time> done(2);
        for (uint32_t i = 0; i < 2; ++i)
        {
            s->PostWrite(1000000, MakeCallback(+[](Time* t, const RoceCompletion& c) {
                                      *t = c.completed;
                                  }).Bind(&done[i]));
        }
        Simulator::Run();
        const double gap = (done[1] - done[0]).GetSeconds();
        const double one = done[0].GetSeconds();
        // The second ends one message's wire time after the first.
        const uint32_t last = 1000000 - 976 * MTU;
        const double w =
            WireSeconds(58 + 16 + MTU) + 975 * WireSeconds(58 + MTU) + WireSeconds(58 + last);
        NS_TEST_EXPECT_MSG_EQ_TOL(gap, w, 1e-9, "second message after the first");
        NS_TEST_EXPECT_MSG_GT(one, w, "first message takes at least its wire time");
        NS_TEST_EXPECT_MSG_EQ(s->GetStats().messagesCompleted, 2, "sender counts");
        NS_TEST_EXPECT_MSG_EQ(r->GetStats().messagesReceived, 2, "receiver counts");
        NS_TEST_EXPECT_MSG_EQ(r->GetStats().bytesDelivered, 2000000, "receiver bytes");
        NS_TEST_EXPECT_MSG_EQ(s->HasOutstanding(), false, "nothing outstanding");
        Simulator::Destroy();
    }
};

/**
 * Eight queue pairs of one NIC, each given 16 WRITEs of 512 KiB at once (64
 * MiB, as a collective step's chunks on 8 QPs round robin): the NIC's link
 * is never idle at either fidelity, so the last completion is the 128
 * messages' wire bytes / C plus one message's path latency (store and
 * forward of the largest frame, both links' delays, the ACK's way back),
 * within 1 ns at flow level (its rounding) and 1 us at packet level (where
 * ACKs share the receiver's link with nothing but the queue pairs share
 * the sender's frame by frame; a frame's time is 88 ns).
 */
class RoceFlowManyQpsTestCase : public TestCase
{
  public:
    RoceFlowManyQpsTestCase()
        : TestCase("8 QPs x 16 messages of one NIC: the last ends at total wire bytes over C")
    {
    }

  private:
    static double Run(bool flow)
    {
        Star star;
        MakeStar(star, 2);
        if (flow)
        {
            RoceFlowEngine::Install();
        }
        Time last;
        for (uint32_t q = 0; q < 8; ++q)
        {
            auto [s, r] = star.roce.CreateQp(star.nic[1], star.nic[0]);
            for (uint32_t m = 0; m < 16; ++m)
            {
                s->PostWrite(512 * 1024, MakeCallback(+[](Time* t, const RoceCompletion& c) {
                                             *t = std::max(*t, c.completed);
                                         }).Bind(&last));
            }
        }
        Simulator::Run();
        Simulator::Destroy();
        return last.GetSeconds();
    }

    void DoRun() override
    {
        const double w = 128 * (WireSeconds(58 + 16 + MTU) + 510 * WireSeconds(58 + MTU) +
                                WireSeconds(58 + MTU));
        const double expect = w + 2 * g_delay.GetSeconds() + WireSeconds(58 + 16 + MTU) +
                              2 * (g_delay.GetSeconds() + WireSeconds(62));
        const double flow = Run(true);
        const double packet = Run(false);
        NS_TEST_EXPECT_MSG_EQ_TOL(flow, expect, 1e-9, "flow level");
        NS_TEST_EXPECT_MSG_EQ_TOL(packet, expect, 1e-6, "packet level");
    }
};

/**
 * A queue pair whose next message starts as its last one ends, on the same
 * links with the same weights, keeps its rate without a computation
 * (RoceFlowEngine::Replace); a next message of another size (other ACK
 * weight) does not. Two senders into one receiver, five WRITEs each posted
 * at once: A's are all 1,000,000 B, B's alternate 1,000,000 and 999,424 B
 * (976 full frames). Checks, with VerifyFastPath on (every change settled
 * without a full computation is compared with one):
 * - A's four successors are replaced, none of B's: replaced = 4;
 * - while both send, each has half the receiver's link: C / 2 within 1e-9
 *   relative (max-min; the doubles of one division);
 * - the receiver's link is never idle, so the last completion is both
 *   senders' wire bytes / C plus one message's path latency, within 1 ns
 *   (fluid time is exact; the completion event rounds up to a tick once).
 */
class RoceFlowReplaceTestCase : public TestCase
{
  public:
    RoceFlowReplaceTestCase()
        : TestCase("a queue pair's next equal message takes its rate; another size does not")
    {
    }

  private:
    void DoRun() override
    {
        Star star;
        MakeStar(star, 3);
        Ptr<RoceFlowEngine> engine = RoceFlowEngine::Install();
        engine->SetAttribute("VerifyFastPath", BooleanValue(true));
        auto wire = [](uint64_t bytes) {
            const uint64_t packets = (bytes + MTU - 1) / MTU;
            const uint32_t last = bytes - (packets - 1) * MTU;
            return (58 + 16 + MTU + 24) + (packets - 2) * (58.0 + MTU + 24) + (58 + last + 24);
        };
        Time last;
        double total = 0;
        std::vector<Ptr<RoceQueuePair>> qps;
        for (uint32_t q = 0; q < 2; ++q)
        {
            auto [s, r] = star.roce.CreateQp(star.nic[q + 1], star.nic[0]);
            qps.push_back(s);
            for (uint32_t m = 0; m < 5; ++m)
            {
                const uint64_t bytes = (q == 1 && m % 2 == 1) ? 976 * MTU : 1000000;
                total += wire(bytes);
                s->PostWrite(bytes, MakeCallback(+[](Time* t, const RoceCompletion& c) {
                                        *t = std::max(*t, c.completed);
                                    }).Bind(&last));
            }
        }
        // Sampled inside A's 2nd to 4th messages, while B still sends.
        const double c = g_rate.GetBitRate() / 8.0;
        std::vector<std::pair<double, double>> rates;
        for (double k : {1.5, 2.5, 3.5})
        {
            Simulator::Schedule(Seconds(k * 2 * wire(1000000) / c), [&]() {
                rates.emplace_back(engine->GetRate(qps[0]), engine->GetRate(qps[1]));
            });
        }
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(engine->GetStats().replaced, 4, "A's successors only");
        NS_TEST_EXPECT_MSG_EQ(engine->GetStats().delivered, 10, "every message delivered");
        NS_TEST_ASSERT_MSG_EQ(rates.size(), 3, "three samples");
        for (const auto& [a, b] : rates)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(a, g_rate.GetBitRate() / 2.0, 1e-9 * a, "A's rate");
            NS_TEST_EXPECT_MSG_EQ_TOL(b, g_rate.GetBitRate() / 2.0, 1e-9 * b, "B's rate");
        }
        const double latency = 2 * g_delay.GetSeconds() + WireSeconds(58 + 16 + MTU) +
                               2 * (g_delay.GetSeconds() + WireSeconds(62));
        NS_TEST_EXPECT_MSG_EQ_TOL(last.GetSeconds(),
                                  total / c + latency,
                                  1e-9,
                                  "the last completion, at ns " << last.GetNanoSeconds());
        Simulator::Destroy();
    }
};

/**
 * A rate change moves a flow's end event by removing the old one from the
 * event queue, not by cancelling it: a cancelled event stays queued until
 * its time, so the changes of a busy fabric piled them up (AllToAll on 8
 * QPs held gigabytes of them). 100 senders into one receiver, 1 MB each,
 * started 100 ns apart: the k-th start changes the rates of k - 1 flows,
 * and each end those of the flows left, about 100 x 100 moves in all. Each
 * message adds at most 6 events to those of the same run without messages
 * (its post, its end, its delivery, its completion, and a computation at
 * its start and at its end); with cancelled ends the run executes the
 * 10,000 moves as well (ns-3 counts an event when it leaves the queue,
 * cancelled or not). The last completion is
 * the wire bytes / C plus one message's latency (the receiver's link never
 * idles after the first start), within the starts' 10 us.
 */
class RoceFlowMovedEndsTestCase : public TestCase
{
  public:
    RoceFlowMovedEndsTestCase()
        : TestCase("a flow's moved end leaves no cancelled event in the queue")
    {
    }

  private:
    static constexpr uint32_t N = 100; //!< senders

    /**
     * \param post false: the same fabric and queue pairs, no message
     * \param last filled with the last completion
     * \param delivered filled with the messages delivered
     * \return the events the run executed
     */
    static uint64_t Run(bool post, Time& last, uint64_t& delivered)
    {
        Star star;
        MakeStar(star, N + 1);
        Ptr<RoceFlowEngine> engine = RoceFlowEngine::Install();
        for (uint32_t i = 0; i < N; ++i)
        {
            auto [s, r] = star.roce.CreateQp(star.nic[i + 1], star.nic[0]);
            if (post)
            {
                Simulator::Schedule(NanoSeconds(100 * i), [s = s, &last]() {
                    s->PostWrite(1000000, MakeCallback(+[](Time* t, const RoceCompletion& c) {
                                              *t = std::max(*t, c.completed);
                                          }).Bind(&last));
                });
            }
        }
        const uint64_t before = Simulator::GetEventCount();
        Simulator::Run();
        const uint64_t events = Simulator::GetEventCount() - before;
        delivered = engine->GetStats().delivered;
        Simulator::Destroy();
        return events;
    }

    void DoRun() override
    {
        Time last;
        uint64_t delivered = 0;
        const uint64_t idle = Run(false, last, delivered);
        const uint64_t events = Run(true, last, delivered);
        NS_TEST_EXPECT_MSG_EQ(delivered, N, "every message delivered");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(events - idle, 6 * N, "events the messages added");
        const uint32_t lastPayload = 1000000 - 976 * MTU;
        const double w = N * (WireSeconds(58 + 16 + MTU) + 975 * WireSeconds(58 + MTU) +
                              WireSeconds(58 + lastPayload));
        const double latency = 2 * g_delay.GetSeconds() + WireSeconds(58 + 16 + MTU) +
                               2 * (g_delay.GetSeconds() + WireSeconds(62));
        NS_TEST_EXPECT_MSG_EQ_TOL(last.GetSeconds(), w + latency, 10e-6, "the last completion");
    }
};

/**
 * Eight queue pairs of one NIC given one 512 KiB WRITE each at the same
 * instant. The packet model's NIC sends them a frame each in turn, so they
 * end in the order they were posted, one frame apart; flow level must break
 * the tie the same way (equal flows started together would otherwise end at
 * the same instant, and a collective's chunks stay in lockstep for ever).
 * Checked at both fidelities: completions strictly increasing in posting
 * order, and the last at the same time within 1 us (a frame is 88 ns; the
 * link is never idle at either, so the last ends at the wire bytes / C).
 */
class RoceFlowTieTestCase : public TestCase
{
  public:
    RoceFlowTieTestCase()
        : TestCase("QPs of one NIC ready at one instant end in posting order, as packets do")
    {
    }

  private:
    static std::vector<Time> Run(bool flow)
    {
        Star star;
        MakeStar(star, 2);
        if (flow)
        {
            RoceFlowEngine::Install();
        }
        std::vector<Time> done(8);
        for (uint32_t q = 0; q < 8; ++q)
        {
            auto [s, r] = star.roce.CreateQp(star.nic[1], star.nic[0]);
            s->PostWrite(512 * 1024, MakeCallback(+[](Time* t, const RoceCompletion& c) {
                                         *t = c.completed;
                                     }).Bind(&done[q]));
        }
        Simulator::Run();
        Simulator::Destroy();
        return done;
    }

    void DoRun() override
    {
        for (bool flow : {false, true})
        {
            const std::vector<Time> done = Run(flow);
            for (uint32_t q = 1; q < 8; ++q)
            {
                NS_TEST_EXPECT_MSG_GT(done[q],
                                      done[q - 1],
                                      (flow ? "flow" : "packet") << " level, QP " << q);
            }
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(Run(true).back().GetSeconds(),
                                  Run(false).back().GetSeconds(),
                                  1e-6,
                                  "the last ends together");
    }
};

/** What flow level cannot model is refused, naming it. */
class RoceFlowRefusalTestCase : public TestCase
{
  public:
    RoceFlowRefusalTestCase()
        : TestCase("congestion control and non-ECMP load balancing are refused at flow level")
    {
    }

  private:
    void DoRun() override
    {
        {
            Star star;
            MakeStar(star, 2, "dcqcn");
            std::string what;
            try
            {
                RoceFlowEngine::Install();
            }
            catch (const RoceError& e)
            {
                what = e.what();
            }
            NS_TEST_EXPECT_MSG_NE(what.find("congestion control dcqcn"),
                                  std::string::npos,
                                  "DCQCN refused: " << what);
            Simulator::Destroy();
        }
        {
            Star star;
            MakeStar(star, 2);
            star.sw.Get(0)->GetObject<RoceSwitch>()->SetLoadBalancing("spray");
            RoceFlowEngine::Install();
            auto [s, r] = star.roce.CreateQp(star.nic[1], star.nic[0]);
            std::string what;
            try
            {
                s->PostWrite(1000);
            }
            catch (const RoceError& e)
            {
                what = e.what();
            }
            NS_TEST_EXPECT_MSG_NE(what.find("LoadBalancing=spray"),
                                  std::string::npos,
                                  "spraying refused: " << what);
            Simulator::Destroy();
        }
    }
};

} // namespace

/** The flow-level engine's suite. */
class RoceFlowEngineTestSuite : public TestSuite
{
  public:
    RoceFlowEngineTestSuite()
        : TestSuite("rocev2-flow-engine", Type::UNIT)
    {
        AddTestCase(new RoceFlowMaxMinTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowMaxMinRandomTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowOneFlowTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowSharesTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowQpOrderTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowManyQpsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowTieTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowReplaceTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowMovedEndsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowRefusalTestCase, RoceTestDuration::QUICK);
    }
};

/** The instance. */
static RoceFlowEngineTestSuite g_rocev2FlowEngineTestSuite;
