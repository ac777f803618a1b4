/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The flow-level engine on fabrics: a link of a flow's path going down, the
 * fast path and local solve against full computations in collectives, and
 * collectives at both fidelities. The engine's own arithmetic (max-min, one
 * flow's time, shares, a NIC's queue pairs, refusals): rocev2-flow-engine.
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

const DataRate g_rate("100Gbps");       //!< every link's rate
const Time g_delay = NanoSeconds(1000); //!< every link's delay

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

} // namespace

/** The flow-level engine on fabrics. */
class RoceFlowFabricTestSuite : public TestSuite
{
  public:
    RoceFlowFabricTestSuite()
        : TestSuite("rocev2-flow-fabric", Type::UNIT)
    {
        AddTestCase(new RoceFlowLinkDownTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowFastPathTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFlowCollectiveTestCase, RoceTestDuration::EXTENSIVE);
    }
};

/** The instance. */
static RoceFlowFabricTestSuite g_rocev2FlowFabricTestSuite;
