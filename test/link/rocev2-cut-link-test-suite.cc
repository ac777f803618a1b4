/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Links between MPI ranks, in one process: RoceOrderedScheduler runs
 * simultaneous events in an order that does not depend on when an event
 * was inserted, so a frame that reaches its receiver late (as a frame from
 * another rank does, at a window boundary) runs where a local one would.
 * The fabric case delivers every RTSW-CTSW frame the way RoceMpiLink does
 * (an MPI-layer event at the first bit, the receive at the last with the
 * sender's key) and must give exactly the results of ordinary links; the
 * same delivery without the key gives other results.
 */
#include "ns3/node-list.h"
#include "ns3/object-factory.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-ordered-scheduler.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <string>
#include <vector>

using namespace ns3;

namespace
{

/** \brief Make the next simulation use RoceOrderedScheduler. */
void
UseOrderedScheduler()
{
    ObjectFactory f;
    f.SetTypeId("ns3::RoceOrderedScheduler");
    Simulator::SetScheduler(f);
}

} // namespace

/**
 * \ingroup rocev2
 * The order rules: FIFO within a context, earlier-scheduled first across
 * insertion times, a reserved key keeps its place, Remove() is honoured.
 */
class OrderedSchedulerRulesTestCase : public TestCase
{
  public:
    OrderedSchedulerRulesTestCase()
        : TestCase("RoceOrderedScheduler: FIFO per context, reserved keys keep their place, Remove")
    {
    }

  private:
    void DoRun() override
    {
        for (bool keyed : {true, false})
        {
            UseOrderedScheduler();
            std::string order;
            auto mark = [&order](char c) { return [&order, c]() { order += c; }; };
            // From main: FIFO.
            Simulator::Schedule(NanoSeconds(100), mark('a'));
            Simulator::Schedule(NanoSeconds(100), mark('b'));
            EventId gone = Simulator::Schedule(NanoSeconds(100), mark('x'));
            Simulator::Remove(gone);
            // Node 3 at 1 ns reserves a key (a frame leaving for another rank);
            // at 2 ns it schedules 'c' for 50 ns; at 10 ns the late frame
            // arrives and is scheduled for 50 ns too: with the reserved key it
            // runs first, as it would have had it been scheduled at 1 ns.
            RoceOrderedScheduler::Key key;
            Simulator::ScheduleWithContext(3, NanoSeconds(1), [&key]() {
                key = RoceOrderedScheduler::Reserve();
            });
            Simulator::ScheduleWithContext(3, NanoSeconds(2), [mark]() {
                Simulator::Schedule(NanoSeconds(48), mark('c'));
            });
            Simulator::ScheduleWithContext(3, NanoSeconds(10), [&key, mark, keyed]() {
                if (keyed)
                {
                    RoceOrderedScheduler::SetNextKey(key);
                }
                Simulator::Schedule(NanoSeconds(40), mark('r'));
            });
            Simulator::Run();
            const std::string expected = keyed ? "rcab" : "crab";
            NS_TEST_ASSERT_MSG_EQ(order,
                                  expected,
                                  "order of simultaneous events (keyed = " << keyed << ")");
            Simulator::Destroy();
            NS_TEST_ASSERT_MSG_EQ(RoceOrderedScheduler::IsActive(),
                                  false,
                                  "the scheduler is gone with its simulation");
        }
    }
};

/**
 * \ingroup rocev2
 * A PFC-heavy incast and a permutation on a 16-GPU AI Zone whose
 * RTSW-CTSW links deliver as links between ranks do: identical flow
 * completion times and PFC counters to ordinary links with the sender's
 * key, different ones without it.
 */
class CutLinkOrderTestCase : public TestCase
{
  public:
    CutLinkOrderTestCase()
        : TestCase("frames delivered late with their sender's key give a one-process run's results")
    {
    }

  private:
    /** How the RTSW-CTSW links deliver. */
    enum Mode
    {
        DIRECT,  //!< ordinary links
        KEYED,   //!< as RoceMpiLink: late, with the sender's key
        UNKEYED, //!< late, without it
    };

    /** \param mode how \return the FCT of every flow and the PFC counters of every device */
    static std::vector<int64_t> Run(Mode mode, uint64_t* crossed)
    {
        UseOrderedScheduler();
        RoceAiZoneHelper zh;
        zh.SetGpusPerServer(2);
        zh.SetServersPerRack(2);
        zh.SetUplinks(4);
        zh.SetCtsws(4);
        zh.SetGpus(16);
        zh.SetLinkRate(DataRate("100Gbps"));
        zh.GetRoceHelper().SetCongestionControl("none");
        RoceAiZone z = zh.Build();
        *crossed = 0;
        if (mode != DIRECT)
        {
            for (auto it = z.servers.Begin(); it != z.servers.End(); ++it)
            {
                for (uint32_t d = 0; d < (*it)->GetNDevices(); ++d)
                {
                    Ptr<RoceChannel> ch =
                        DynamicCast<RoceChannel>((*it)->GetDevice(d)->GetChannel());
                    if (!ch)
                    {
                        continue;
                    }
                    RoceChannel* raw = PeekPointer(ch);
                    ch->CutBothEnds(RoceChannel::RemoteSendCallback(
                        [raw, mode, crossed](Ptr<Packet> p,
                                             Time txTime,
                                             const RocePfcNetDevice* src) {
                            ++*crossed;
                            Ptr<RocePfcNetDevice> dst = raw->GetPeer(src);
                            RoceOrderedScheduler::Key key = RoceOrderedScheduler::Reserve();
                            // The MPI layer's event at the first bit, inserted
                            // outside the node's own sequence.
                            RoceOrderedScheduler::SetNextInfra();
                            Simulator::ScheduleWithContext(
                                dst->GetNode()->GetId(),
                                raw->GetDelay(),
                                [dst, p, txTime, key, mode]() {
                                    if (mode == KEYED)
                                    {
                                        RoceOrderedScheduler::SetNextKey(key);
                                    }
                                    Simulator::Schedule(txTime,
                                                        &RocePfcNetDevice::Receive,
                                                        PeekPointer(dst),
                                                        p);
                                });
                        }));
                }
            }
        }
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        for (uint32_t src : {1, 2, 3, 15, 13, 11})
        {
            pairs.emplace_back(src, 0); // incast to GPU 0 from its rack and the far racks
        }
        for (uint32_t g = 0; g < 16; ++g)
        {
            pairs.emplace_back(g, (g + 8) % 16); // a permutation across the zone
        }
        std::vector<int64_t> out(pairs.size(), -1);
        for (std::size_t i = 0; i < pairs.size(); ++i)
        {
            auto [src, dst] = pairs[i];
            Ptr<RoceQueuePair> qp = zh.GetRoceHelper().CreateQp(z.GetNic(src), z.GetNic(dst)).first;
            int64_t* slot = &out[i];
            qp->PostWrite(dst == 0 && i < 6 ? 4 << 20 : 128 << 10,
                          Callback<void, const RoceCompletion&>([slot](const RoceCompletion& c) {
                              *slot = c.success ? c.completed.GetTimeStep() : -2;
                          }));
        }
        Simulator::Run();
        for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
        {
            Ptr<Node> node = NodeList::GetNode(n);
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                Ptr<RocePfcNetDevice> dev = DynamicCast<RocePfcNetDevice>(node->GetDevice(d));
                if (dev)
                {
                    const RocePfcNetDevice::PfcStats s = dev->GetPfcStats();
                    out.push_back(static_cast<int64_t>(s.pauseTx[3] + s.pauseTx[0]));
                    out.push_back(static_cast<int64_t>(s.pauseRx[3] + s.pauseRx[0]));
                    out.push_back(s.pausedTime[3].GetTimeStep() + s.pausedTime[0].GetTimeStep());
                    out.push_back(static_cast<int64_t>(dev->GetTxFrames()));
                }
            }
        }
        Simulator::Destroy();
        return out;
    }

    void DoRun() override
    {
        uint64_t crossed = 0;
        const std::vector<int64_t> direct = Run(DIRECT, &crossed);
        NS_TEST_ASSERT_MSG_EQ(crossed, 0, "ordinary links");
        const std::vector<int64_t> keyed = Run(KEYED, &crossed);
        NS_TEST_ASSERT_MSG_GT(crossed, 10000, "most frames crossed the deferred links");
        const std::vector<int64_t> unkeyed = Run(UNKEYED, &crossed);

        uint64_t pauses = 0;
        for (std::size_t i = 22; i + 3 < direct.size(); i += 4)
        {
            pauses += direct[i];
        }
        NS_TEST_ASSERT_MSG_GT(pauses, 50, "the incast is PFC-heavy");
        for (std::size_t i = 0; i < 22; ++i)
        {
            NS_TEST_ASSERT_MSG_GT(direct[i], 0, "flow " << i << " completed");
        }
        NS_TEST_ASSERT_MSG_EQ(keyed.size(), direct.size(), "same devices");
        for (std::size_t i = 0; i < direct.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(keyed[i], direct[i], "value " << i << " with the sender's key");
        }
        NS_TEST_ASSERT_MSG_EQ((unkeyed != direct),
                              true,
                              "without the sender's key the late frames run elsewhere among "
                              "simultaneous events, and the results change");
    }
};

/**
 * \ingroup rocev2
 * The suite.
 */
class CutLinkTestSuite : public TestSuite
{
  public:
    CutLinkTestSuite()
        : TestSuite("rocev2-cut-link", Type::UNIT)
    {
        AddTestCase(new OrderedSchedulerRulesTestCase, RoceTestDuration::QUICK);
        AddTestCase(new CutLinkOrderTestCase, RoceTestDuration::QUICK);
    }
};

static CutLinkTestSuite g_cutLinkTestSuite; //!< the suite
