/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The flow-level engine (RoceFlowEngine): its max-min allocation against
 * answers worked by hand, one flow's completion time against the frames'
 * bytes and the links' physics (and against the packet model), the shares
 * of N flows on one bottleneck and what a leaving flow frees, a collective
 * at both fidelities, and the refusals.
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

/**
 * A link of a flow's path goes down, at both fidelities. Two leaves, two
 * spines, one host under each leaf, 1 us links at 100 Gb/s. At 100 us the
 * link from leaf 0 to the spine the flow's ECMP hash chose goes down;
 * routes learn it 50 us later (DetectionDelay); RetransmitTimeout is 200 us.
 * The round trip is 8 links of 1 us plus serialisation: under 9 us.
 *
 * - 10 MB from time 0: the sender is still sending when the routes change;
 *   its next frames take the other spine, the receiver NAKs the gap and the
 *   sender goes back. It ends about 50 us + one round trip later than
 *   without the fault: the packet model's delay is checked in [50, 50 + 2 x
 *   9 + 1] us (the lost frames in flight, at most one round trip's, are
 *   resent too).
 * - 100 kB posted at 95 us (8 us of frames): all sent before the routes
 *   change, so nothing reveals the gap and the retransmission timeout,
 *   counted from the last ACK (just after the failure), resends it: the
 *   packet model ends after 300 us.
 *
 * Flow level must agree with the packet model within 2 x 9 us + 1 us: they
 * differ by the bytes the packet model resends (at most one round trip's)
 * and by when its timer started (the last ACK, at most one round trip
 * before the failure). The flow stalls and resumes once, on the other spine.
 */
class RoceFlowLinkDownTestCase : public TestCase
{
  public:
    RoceFlowLinkDownTestCase()
        : TestCase("a link down on a flow's path: it resumes on the new route as packets do")
    {
    }

  private:
    struct Result
    {
        Time done;               //!< the completion
        uint64_t stalls{0};      //!< the engine's stalls
        uint64_t resumed{0};     //!< the engine's resumptions
        uint32_t spineBefore{0}; //!< the spine of the first path
        uint32_t spineAfter{0};  //!< the spine of the path at the end
    };

    static Result Run(bool flow, bool fault, uint64_t bytes, Time post)
    {
        Config::SetDefault("ns3::RoceQueuePair::RetransmitTimeout", TimeValue(MicroSeconds(200)));
        NodeContainer spines(2);
        NodeContainer leaves(2);
        NodeContainer hosts(2);
        RoceSwitchHelper switches;
        switches.Install(spines);
        switches.Install(leaves);
        RoceHelper roce;
        roce.SetDeviceAttribute("DataRate", DataRateValue(g_rate));
        roce.SetChannelAttribute("Delay", TimeValue(g_delay));
        for (uint32_t l = 0; l < 2; ++l)
        {
            for (uint32_t sp = 0; sp < 2; ++sp)
            {
                roce.Install(leaves.Get(l), spines.Get(sp));
            }
        }
        std::vector<Ptr<RoceNetDevice>> nic;
        for (uint32_t h = 0; h < 2; ++h)
        {
            nic.push_back(
                DynamicCast<RoceNetDevice>(roce.Install(hosts.Get(h), leaves.Get(h)).Get(0)));
        }
        RoceSwitchHelper::PopulateRoutes();
        Ptr<RoceFlowEngine> engine = flow ? RoceFlowEngine::Install() : nullptr;
        // Not a structured binding: the lambdas below use it.
        const Ptr<RoceQueuePair> s = roce.CreateQp(nic[0], nic[1]).first;
        // The spine the flow's frames take, from an engine's walk (the same
        // as the frames', rocev2-flow-path): path = NIC, leaf port, spine port, leaf port.
        Result res;
        auto spineOf = [&]() {
            const auto path = CreateObject<RoceFlowEngine>()->GetPath(s);
            return path.at(2)->GetNode() == spines.Get(0) ? 0u : 1u;
        };
        res.spineBefore = spineOf();
        RoceFaultHelper faults;
        faults.SetDetectionDelay(MicroSeconds(50));
        if (fault)
        {
            faults.LinkDown(
                MicroSeconds(100),
                RoceFaultHelper::LinksBetween(leaves.Get(0), spines.Get(res.spineBefore)).at(0));
        }
        Simulator::Schedule(post, [s, bytes, &res]() {
            s->PostWrite(bytes, MakeCallback(+[](Time* t, const RoceCompletion& c) {
                                    *t = c.completed;
                                }).Bind(&res.done));
        });
        Simulator::Run();
        res.spineAfter = spineOf();
        if (engine)
        {
            res.stalls = engine->GetStats().stalls;
            res.resumed = engine->GetStats().resumed;
        }
        Simulator::Destroy();
        Config::SetDefault("ns3::RoceQueuePair::RetransmitTimeout",
                           TimeValue(NanoSeconds(67108864)));
        return res;
    }

    void Check(uint64_t bytes, Time post, double minDelayUs, double maxDelayUs)
    {
        const Result clean = Run(false, false, bytes, post);
        const Result packet = Run(false, true, bytes, post);
        const Result flow = Run(true, true, bytes, post);
        const double delay = (packet.done - clean.done).GetSeconds() * 1e6;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(delay, minDelayUs, bytes << " B: packet-level delay");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(delay, maxDelayUs, bytes << " B: packet-level delay");
        NS_TEST_EXPECT_MSG_EQ_TOL(flow.done.GetSeconds() * 1e6,
                                  packet.done.GetSeconds() * 1e6,
                                  19,
                                  bytes << " B: flow " << flow.done.As(Time::US) << ", packet "
                                        << packet.done.As(Time::US));
        NS_TEST_EXPECT_MSG_EQ(flow.stalls, 1, bytes << " B: stalled once");
        NS_TEST_EXPECT_MSG_EQ(flow.resumed, 1, bytes << " B: resumed once");
        NS_TEST_EXPECT_MSG_NE(flow.spineAfter, flow.spineBefore, bytes << " B: other spine");
    }

    void DoRun() override
    {
        // Still sending at the reroute: 50 us of outage plus one round trip.
        Check(10000000, Seconds(0), 50, 50 + 2 * 9 + 1);
        // All sent before it: the timeout, 200 us from the failure, less the
        // 8 us the message needed anyway, and a round trip at most on each side.
        Check(100000, MicroSeconds(95), 200 - 8 - 9, 200 + 2 * 9 + 1);
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

/**
 * A collective at both fidelities: a ring AllReduce and an AllToAll of
 * 64 MiB over 32 GPUs (4 servers in 2 racks) of a non-blocking 2-tier
 * zone, 8 channels. The target for sizes of 64 MiB and more on a
 * non-blocking zone is busbw within 5 % of packet level; flow level lacks
 * only queueing and PFC, which a collective's steady, line-rate flows hardly
 * see.
 */
class RoceFlowCollectiveTestCase : public TestCase
{
  public:
    RoceFlowCollectiveTestCase()
        : TestCase("ring AllReduce and AllToAll: flow-level busbw within 5% of packet level")
    {
    }

  private:
    static double BusBw(const std::string& op, bool flow)
    {
        RoceAiZoneHelper zone;
        zone.SetGpus(32);
        RoceAiZone fabric = zone.Build();
        if (flow)
        {
            RoceFlowEngine::Install();
        }
        RoceCollectiveHelper h;
        h.SetAppAttribute("Operation", StringValue(op));
        std::vector<uint32_t> all(32);
        std::iota(all.begin(), all.end(), 0);
        Ptr<RoceCollectiveApp> app = h.Install(h.CreateCommunicator(fabric, all), {64u << 20});
        Simulator::Run();
        const double busbw = app->IsFinished() ? app->GetResults()[0].busbwGbps : 0;
        Simulator::Destroy();
        return busbw;
    }

    void DoRun() override
    {
        for (const std::string op : {"allreduce", "alltoall"})
        {
            const double packet = BusBw(op, false);
            const double flow = BusBw(op, true);
            NS_TEST_ASSERT_MSG_GT(packet, 0, op << " finished at packet level");
            NS_TEST_EXPECT_MSG_EQ_TOL(flow / packet,
                                      1.0,
                                      0.05,
                                      op << ": flow " << flow << " Gb/s, packet " << packet
                                         << " Gb/s");
        }
    }
};

/**
 * The fast path and the local solve (FastPath) settle a change without a
 * computation over the whole component only when the result is provably
 * max-min; VerifyFastPath makes the engine check each such change against a
 * full computation and throw on a difference. Here
 * collectives whose flows come and go in many patterns run with the check
 * on: a ring AllReduce (ACK loads chain the flows around the rings), a tree,
 * halving-doubling with 8 QPs round robin on a 2:1 zone (ECMP collisions on
 * the uplinks, many rate levels), and an AllToAll. Each must finish, the
 * fast path must have been taken in each (else it checks nothing), and over
 * the four the local solve and full computations too.
 */
class RoceFlowFastPathTestCase : public TestCase
{
  public:
    RoceFlowFastPathTestCase()
        : TestCase("the fast path's rates equal a full max-min computation's, in collectives")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            std::string op;
            std::string algo;
            uint32_t uplinks;
            uint32_t qps;
        };

        uint64_t local = 0;
        uint64_t full = 0;
        for (const Case& c : {Case{"allreduce", "ring", 16, 1},
                              Case{"allreduce", "tree", 16, 1},
                              Case{"allreduce", "hd", 8, 8},
                              Case{"alltoall", "", 8, 1}})
        {
            RoceAiZoneHelper zone;
            zone.SetGpus(64);
            zone.SetUplinks(c.uplinks);
            zone.SetCtsws(c.uplinks);
            RoceAiZone fabric = zone.Build();
            Ptr<RoceFlowEngine> engine = RoceFlowEngine::Install();
            engine->SetAttribute("VerifyFastPath", BooleanValue(true));
            RoceCollectiveHelper h;
            h.SetAppAttribute("Operation", StringValue(c.op));
            h.SetAppAttribute("Algorithm", StringValue(c.algo));
            h.SetCommunicatorAttribute("QpsPerConnection", UintegerValue(c.qps));
            h.SetCommunicatorAttribute("QpMode", StringValue(c.qps > 1 ? "rr" : "split"));
            std::vector<uint32_t> all(64);
            std::iota(all.begin(), all.end(), 0);
            Ptr<RoceCollectiveApp> app =
                h.Install(h.CreateCommunicator(fabric, all), {1u << 20, 4u << 20});
            std::string error;
            try
            {
                Simulator::Run();
            }
            catch (const RoceError& e)
            {
                error = e.what();
            }
            const std::string name = c.op + " " + c.algo;
            NS_TEST_EXPECT_MSG_EQ(error, "", name);
            NS_TEST_EXPECT_MSG_EQ(app->IsFinished(), true, name << " finished");
            NS_TEST_EXPECT_MSG_GT(engine->GetStats().fastComputations, 0, name << ": fast path");
            local += engine->GetStats().localComputations;
            full += engine->GetStats().rateComputations;
            Simulator::Destroy();
        }
        NS_TEST_EXPECT_MSG_GT(local, 0, "the local solve ran");
        NS_TEST_EXPECT_MSG_GT(full, 0, "a full computation ran");
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
        AddTestCase(new RoceFlowLinkDownTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowRefusalTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowFastPathTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowCollectiveTestCase, RoceTestDuration::EXTENSIVE);
    }
};

/** The instance. */
static RoceFlowEngineTestSuite g_rocev2FlowEngineTestSuite;
