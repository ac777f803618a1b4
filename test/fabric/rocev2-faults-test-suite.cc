/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Faults on a running fabric (RoceFaultHelper): a link that goes down
// mid-transfer, a flapping link, a lossy link, a failed switch, a slow
// receiver and a PFC storm. Every byte must arrive exactly once, nothing may
// hang, and the timing must follow the detection delay, the drain rate and
// the buffers.

#include "rocev2-fault-test-helpers.h"

#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/queue-size.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

using namespace rocev2test;

/**
 * \ingroup rocev2
 * A link that goes down mid-transfer: the frames on it are lost, routing
 * withdraws it after the detection delay, the retransmission timeout resends
 * over the other spine, every byte arrives once, and the completion time
 * grows by about the detection delay.
 */
class FaultLinkDownTestCase : public TestCase
{
  public:
    FaultLinkDownTestCase()
        : TestCase("Link down mid-transfer: all bytes once, FCT grows by about the detection "
                   "delay, the link leaves the ECMP group")
    {
    }

  private:
    static constexpr uint64_t SIZE = 4000000;

    /// One run: the flow's FCT, the uplink it used, and what the fabric saw.
    struct Run
    {
        Done done;                        //!< the message
        int32_t uplink{-1};               //!< leaf 0's uplink that carried most data
        uint64_t delivered{0};            //!< bytes the receiver accepted
        DropLog drops;                    //!< drops by reason
        uint64_t timeouts{0};             //!< sender's timeouts
        std::vector<uint32_t> groupAfter; //!< leaf 0's ports to host 1 after reroute
        uint32_t reroutes{0};             //!< route recomputations
    };

    Run RunOnce(int32_t failUplink, Time failAt, Time delay)
    {
        Run r;
        LeafSpine net(2, 2, 1, MicroSeconds(250));
        TraceDrops(&r.drops);
        RoceFaultHelper faults;
        faults.SetDetectionDelay(delay);
        if (failUplink >= 0)
        {
            faults.LinkDown(failAt, net.up[0][failUplink]);
            Simulator::Schedule(failAt + delay + MicroSeconds(1), [&r, &net]() {
                r.groupAfter = net.leaves.Get(0)->GetObject<RoceSwitch>()->Lookup(
                    net.Nic(1)->GetIpv4Address());
            });
        }
        auto [qa, qb] = net.roce.CreateQp(net.nics[0], net.nics[1]);
        qa->PostWrite(SIZE, MakeBoundCallback(&OnComplete, &r.done));
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        uint64_t most = 0;
        for (uint32_t s = 0; s < 2; ++s)
        {
            if (net.upPort[0][s]->GetTxBytes() > most)
            {
                most = net.upPort[0][s]->GetTxBytes();
                r.uplink = static_cast<int32_t>(s);
            }
        }
        r.delivered = qb->GetStats().bytesDelivered;
        r.timeouts = qa->GetStats().timeouts;
        r.reroutes = faults.GetReroutes();
        Simulator::Destroy();
        return r;
    }

    void DoRun() override
    {
        const Time delay = MilliSeconds(1);
        Run base = RunOnce(-1, Time(0), delay);
        NS_TEST_ASSERT_MSG_EQ(base.done.success, true, "the healthy transfer completed");
        NS_TEST_ASSERT_MSG_EQ(base.delivered, SIZE, "healthy: bytes delivered");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(base.uplink, 0, "an uplink carried the flow");

        Time failAt = base.done.fct / 3;
        Run f = RunOnce(base.uplink, failAt, delay);
        NS_TEST_ASSERT_MSG_EQ(f.done.success, true, "the transfer completed despite the failure");
        NS_TEST_ASSERT_MSG_EQ(f.delivered, SIZE, "every byte delivered exactly once");
        NS_TEST_ASSERT_MSG_GT(f.drops.dataByReason["link-down"], 0, "frames lost with the link");
        NS_TEST_ASSERT_MSG_GT(f.timeouts, 0, "the retransmission timeout recovered them");
        NS_TEST_ASSERT_MSG_EQ(f.reroutes, 1, "routes recomputed once");
        // After the reroute leaf 0 reaches host 1 over the other spine only.
        NS_TEST_ASSERT_MSG_EQ(f.groupAfter.size(), 1, "the failed uplink left the ECMP group");
        Time grow = f.done.fct - base.done.fct;
        // Frames are lost until routing learns of the failure, then the next
        // timeout (at most one RTO later) resends the rest: the FCT grows by
        // the detection delay, less the part of the transfer done before the
        // failure, plus at most one RTO.
        NS_TEST_ASSERT_MSG_GT_OR_EQ(grow, delay - failAt, "FCT grew by at least the delay");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(grow,
                                    delay + MicroSeconds(250) + base.done.fct,
                                    "FCT grew by at most the delay + one RTO + the transfer");
        std::cout << "link down: FCT " << base.done.fct.As(Time::US) << " -> "
                  << f.done.fct.As(Time::US) << " (+" << grow.As(Time::US) << ", delay "
                  << delay.As(Time::US) << "), " << f.drops.dataByReason["link-down"]
                  << " data frames lost, " << f.timeouts << " timeouts" << std::endl;
    }
};

/**
 * \ingroup rocev2
 * A flapping uplink under eight queue pairs: the run ends, every byte
 * arrives once, routing followed every change.
 */
class FaultFlapTestCase : public TestCase
{
  public:
    FaultFlapTestCase()
        : TestCase("Flapping link: runs end, nothing hangs, all bytes delivered")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t size = 1000000;
        const uint32_t qps = 8;
        LeafSpine net(2, 2, 1, MicroSeconds(200));
        DropLog drops;
        TraceDrops(&drops);
        RoceFaultHelper faults;
        faults.SetDetectionDelay(MicroSeconds(100));
        // down 200 us of every 400 us from 20 us to 3 ms: 8 cycles
        faults.LinkFlap(MicroSeconds(20), net.up[0][0], MicroSeconds(400), 0.5, MilliSeconds(3));
        std::vector<Ptr<RoceQueuePair>> receivers;
        std::vector<Done> done(qps);
        for (uint32_t q = 0; q < qps; ++q)
        {
            auto [qa, qb] = net.roce.CreateQp(net.nics[0], net.nics[1]);
            qa->PostWrite(size, MakeBoundCallback(&OnComplete, &done[q]));
            receivers.push_back(qb);
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        for (uint32_t q = 0; q < qps; ++q)
        {
            NS_TEST_ASSERT_MSG_EQ(done[q].success, true, "QP " << q << " completed");
        }
        NS_TEST_ASSERT_MSG_EQ(Delivered(receivers), qps * size, "bytes delivered once");
        NS_TEST_ASSERT_MSG_EQ(net.upPort[0][0]->GetLinkDowns(), 8, "the link went down 8 times");
        NS_TEST_ASSERT_MSG_EQ(faults.GetReroutes(), 16, "routing followed 16 changes");
        NS_TEST_ASSERT_MSG_GT(drops.byReason["link-down"], 0, "frames lost while down");
        NS_TEST_ASSERT_MSG_EQ(RoceSwitchHelper::GetBufferedBytes(), 0, "buffers drained");
        NS_TEST_ASSERT_MSG_EQ(RoceFabricStats::Collect().drops,
                              drops.byReason["link-down"],
                              "every drop was a frame lost with the link");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * A bit error rate of 1e-4 on one link: frames are lost as often as
 * 1 - (1 - BER)^(8 x bytes) says, every byte arrives once, and every lost
 * data frame was sent again.
 */
class FaultBerTestCase : public TestCase
{
  public:
    FaultBerTestCase()
        : TestCase("BER 1e-4 on one link: loss follows 1-(1-BER)^bits, all bytes delivered, "
                   "retransmissions counted")
    {
    }

  private:
    /// Data frames host 0 sent, and the loss expected of them.
    struct Sent
    {
        uint64_t frames{0}; //!< data frames sent
        double expected{0}; //!< sum of their loss probabilities
        double variance{0}; //!< sum of p(1-p)
        double ber{0};      //!< the bit error rate
    };

    static void OnTx(Sent* s, Ptr<const Packet> p)
    {
        RoceFrame f = RoceFrame::Parse(*p);
        if (f.isRoce && IsDataOpcode(f.opcode))
        {
            double pl = 1 - std::pow(1 - s->ber, 8.0 * p->GetSize());
            ++s->frames;
            s->expected += pl;
            s->variance += pl * (1 - pl);
        }
    }

    void DoRun() override
    {
        const uint64_t size = 300000;
        const double ber = 1e-4;
        LeafSpine net(1, 0, 2, MicroSeconds(100));
        DropLog drops;
        TraceDrops(&drops);
        RoceFaultHelper faults;
        Ptr<RoceChannel> link = DynamicCast<RoceChannel>(net.nics[0]->GetChannel());
        faults.LinkLoss(Time(0), link, ber, true, Time::Max());
        faults.AssignStreams(7);
        Sent sent;
        sent.ber = ber;
        net.nics[0]->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&OnTx, &sent));
        Done done;
        auto [qa, qb] = net.roce.CreateQp(net.nics[0], net.nics[1]);
        qa->PostWrite(size, MakeBoundCallback(&OnComplete, &done));
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(done.success, true, "the transfer completed");
        NS_TEST_ASSERT_MSG_EQ(qb->GetStats().bytesDelivered, size, "every byte once");
        NS_TEST_ASSERT_MSG_EQ(qb->GetStats().messagesReceived, 1, "one message");
        uint64_t lost = drops.dataByReason["rx-error"];
        double sigma = std::sqrt(sent.variance);
        NS_TEST_ASSERT_MSG_GT(lost, 0, "frames were lost");
        NS_TEST_ASSERT_MSG_LT(std::fabs(double(lost) - sent.expected),
                              4 * sigma,
                              "data frames lost " << lost << " vs expected " << sent.expected
                                                  << " +- " << sigma);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(qa->GetStats().retransmittedPackets,
                                    lost,
                                    "every lost data frame was sent again");
        std::cout << "BER 1e-4: " << sent.frames << " data frames sent, " << lost
                  << " lost (expected " << sent.expected << " +- " << sigma << "), "
                  << qa->GetStats().retransmittedPackets << " retransmitted, "
                  << qa->GetStats().timeouts << " timeouts" << std::endl;
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * A spine fails and comes back: its links go down, leaves route around it
 * after the detection delay and take it back after it returns.
 */
class FaultSwitchDownTestCase : public TestCase
{
  public:
    FaultSwitchDownTestCase()
        : TestCase("Switch down and up: routes avoid it, then use it again; all bytes once")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t size = 2000000;
        const uint32_t qps = 8;
        LeafSpine net(2, 2, 1, MicroSeconds(300));
        RoceFaultHelper faults;
        faults.SetDetectionDelay(MicroSeconds(200));
        faults.SwitchDown(MicroSeconds(50), net.spines.Get(0));
        faults.SwitchUp(MilliSeconds(1), net.spines.Get(0));
        Ptr<RoceSwitch> leaf0 = net.leaves.Get(0)->GetObject<RoceSwitch>();
        Ipv4Address dst = net.Nic(1)->GetIpv4Address();
        std::vector<uint32_t> during;
        std::vector<uint32_t> after;
        Simulator::Schedule(MicroSeconds(500), [&]() { during = leaf0->Lookup(dst); });
        Simulator::Schedule(MicroSeconds(1300), [&]() { after = leaf0->Lookup(dst); });
        std::vector<Ptr<RoceQueuePair>> receivers;
        std::vector<Done> done(qps);
        for (uint32_t q = 0; q < qps; ++q)
        {
            auto [qa, qb] = net.roce.CreateQp(net.nics[0], net.nics[1]);
            qa->PostWrite(size, MakeBoundCallback(&OnComplete, &done[q]));
            receivers.push_back(qb);
        }
        uint64_t spine0Before = 0;
        Simulator::Schedule(MicroSeconds(1300),
                            [&]() { spine0Before = net.upPort[0][0]->GetTxBytes(); });
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        for (uint32_t q = 0; q < qps; ++q)
        {
            NS_TEST_ASSERT_MSG_EQ(done[q].success, true, "QP " << q << " completed");
        }
        NS_TEST_ASSERT_MSG_EQ(Delivered(receivers), qps * size, "bytes delivered once");
        NS_TEST_ASSERT_MSG_EQ(during.size(), 1, "while spine 0 is down: one way up");
        NS_TEST_ASSERT_MSG_EQ(after.size(), 2, "spine 0 back in the ECMP group");
        NS_TEST_ASSERT_MSG_GT(net.upPort[0][0]->GetTxBytes(),
                              spine0Before,
                              "traffic took spine 0 again after it came back");
        NS_TEST_ASSERT_MSG_EQ(faults.GetReroutes(), 2, "one reroute per event");
        NS_TEST_ASSERT_MSG_EQ(RoceSwitchHelper::GetBufferedBytes(), 0, "buffers drained");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * A slow receiver drains at 20 Gb/s for 2 ms while two hosts of another
 * leaf write to it: it delivers at the drain rate, pauses reach the senders'
 * leaf within the time the buffers on the way take to fill, and nothing is
 * dropped.
 */
class FaultSlowReceiverTestCase : public TestCase
{
  public:
    FaultSlowReceiverTestCase()
        : TestCase("Slow receiver: delivers at its drain rate, pauses reach the senders' leaf "
                   "within the buffer fill time, no drops")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t size = 3000000;
        const DataRate drain("20Gbps");
        const QueueSize buffer("1MB");
        const uint64_t xoff = 512 * 1024; // RxXoffThreshold default
        LeafSpine net(2, 1, 2, MilliSeconds(10), buffer);
        DropLog drops;
        TraceDrops(&drops);
        RoceFaultHelper faults;
        const Time start = MicroSeconds(10);
        const Time slow = MilliSeconds(2);
        faults.SlowReceiver(start, net.Nic(2), drain, slow);
        std::vector<Ptr<RoceQueuePair>> receivers;
        for (uint32_t h = 0; h < 2; ++h)
        {
            auto [qa, qb] = net.roce.CreateQp(net.nics[h], net.nics[2]);
            qa->PostWrite(size);
            receivers.push_back(qb);
        }
        // First pause the senders' leaf receives on its uplink.
        Time firstPause = Time::Max();
        net.upPort[0][0]->TraceConnectWithoutContext(
            "PfcRx",
            MakeCallback(+[](Time* t, uint8_t, uint16_t quanta) {
                if (quanta > 0 && *t == Time::Max())
                {
                    *t = Simulator::Now();
                }
            }).Bind(&firstPause));
        uint64_t at1 = 0;
        uint64_t at2 = 0;
        Simulator::Schedule(MicroSeconds(800), [&]() { at1 = Delivered(receivers); });
        Simulator::Schedule(MicroSeconds(1800), [&]() { at2 = Delivered(receivers); });
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(Delivered(receivers), 2 * size, "every byte delivered once");
        NS_TEST_ASSERT_MSG_EQ(drops.byReason.size(), 0, "nothing dropped");
        RoceFabricStats stats = RoceFabricStats::Collect();
        NS_TEST_ASSERT_MSG_EQ(stats.retransmits,
                              0,
                              "nothing resent (no reordering when the receiver speeds up)");
        NS_TEST_ASSERT_MSG_EQ(stats.bufferedBytes, 0, "buffers drained");
        NS_TEST_ASSERT_MSG_EQ(net.Nic(2)->GetRxBufferBytes(), 0, "the receive buffer drained");
        // Payload delivered during 1 ms of the slow phase: the drain rate,
        // less the headers that drain with it.
        double payloadShare = double(MTU) / (MTU + FRAME_OVERHEAD);
        double expect = drain.GetBitRate() / 8.0 * 1e-3 * payloadShare;
        NS_TEST_ASSERT_MSG_EQ_TOL(double(at2 - at1),
                                  expect,
                                  0.05 * expect,
                                  "delivered at the drain rate");
        // The pause reaches the senders' leaf once the receiver's buffer
        // (XOFF threshold) and the two switches' buffers have filled at the
        // excess rate (100 - 20 Gb/s).
        double excess = 100e9 - drain.GetBitRate();
        Time bound =
            start + Seconds((xoff + 2.0 * buffer.GetValue()) * 8 / excess) + MicroSeconds(10);
        NS_TEST_ASSERT_MSG_LT(firstPause, bound, "pause reached the senders' leaf in time");
        NS_TEST_ASSERT_MSG_GT(firstPause, start, "and not before the receiver slowed");
        std::cout << "slow receiver: pause at the senders' leaf after "
                  << (firstPause - start).As(Time::US) << " (bound " << (bound - start).As(Time::US)
                  << "), " << (at2 - at1) * 8 / 1e6 << " Gb/s x 1 ms delivered" << std::endl;
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * A PFC storm: a NIC keeps its switch port paused for 1 ms. The port stays
 * paused that long, the pause spreads to the sender, nothing moves to the
 * storming host meanwhile, and everything arrives after the storm.
 */
class FaultPfcStormTestCase : public TestCase
{
  public:
    FaultPfcStormTestCase()
        : TestCase("PFC storm: the port is paused for the storm, the sender is paused, all "
                   "bytes after it")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t size = 2000000;
        LeafSpine net(1, 0, 2, MilliSeconds(10));
        Ptr<RoceSwitch> sw = net.leaves.Get(0)->GetObject<RoceSwitch>();
        Ptr<RocePfcNetDevice> portToVictim = DynamicCast<RocePfcNetDevice>(
            DynamicCast<RoceChannel>(net.nics[1]->GetChannel())->GetPeer(PeekPointer(net.Nic(1))));
        RoceFaultHelper faults;
        const Time start = MicroSeconds(20);
        const Time storm = MilliSeconds(1);
        faults.PfcStorm(start, net.Nic(1), 3, storm);
        auto [qa, rx] = net.roce.CreateQp(net.nics[0], net.nics[1]);
        Ptr<RoceQueuePair> qb = rx;
        qa->PostWrite(size);
        uint64_t at1 = 0;
        uint64_t at2 = 0;
        Simulator::Schedule(MicroSeconds(200), [&]() { at1 = qb->GetStats().bytesDelivered; });
        Simulator::Schedule(MicroSeconds(1000), [&]() { at2 = qb->GetStats().bytesDelivered; });
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(qb->GetStats().bytesDelivered, size, "all bytes after the storm");
        Time paused = portToVictim->GetPfcStats().pausedTime[3];
        NS_TEST_ASSERT_MSG_EQ_TOL(paused.GetMicroSeconds(),
                                  storm.GetMicroSeconds(),
                                  2,
                                  "the port was paused for the storm");
        NS_TEST_ASSERT_MSG_EQ(at2, at1, "nothing reached the storming host during the storm");
        NS_TEST_ASSERT_MSG_GT(net.Nic(0)->GetPfcStats().pauseRx[3], 0, "the sender was paused");
        NS_TEST_ASSERT_MSG_EQ(RoceFabricStats::Collect().drops, 0, "nothing dropped");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * A fault file: every kind is read, scheduled at its time, and logged.
 */
class FaultFileTestCase : public TestCase
{
  public:
    FaultFileTestCase()
        : TestCase("Fault file: names, node:device targets and every fault kind, applied at "
                   "their times")
    {
    }

  private:
    void DoRun() override
    {
        LeafSpine net(2, 2, 1, MicroSeconds(300));
        RoceFaultHelper faults;
        faults.AddName("leaf0", net.leaves.Get(0));
        faults.AddName("spine1", net.spines.Get(1));
        faults.AddName("gpu1", Ptr<RocePfcNetDevice>(net.Nic(1)));
        std::string path = CreateTempDirFilename("faults.txt");
        {
            std::ofstream f(path);
            f << "# time fault target parameters\n"
              << "10us  link-down leaf0 spine1   # all links between two nodes\n"
              << "20us  link-up   leaf0 spine1\n"
              << "\n"
              << "30us  link-flap " << net.leaves.Get(1)->GetId() << ":"
              << net.upPort[1][0]->GetIfIndex() << " period=10us down=0.5 until=50us\n"
              << "60us  switch-down spine1\n"
              << "70us  switch-up   spine1\n"
              << "80us  link-loss leaf0 spine1 drop=0.5 until=90us\n"
              << "100us slow-receiver gpu1 rate=10Gbps for=10us\n"
              << "120us pfc-storm gpu1 priority=3 for=10us\n";
        }
        faults.Load(path);
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        std::vector<std::string> log = faults.GetLog();
        std::vector<std::string> kinds;
        for (const auto& line : log)
        {
            if (line.find("routes recomputed") == std::string::npos)
            {
                kinds.push_back(line.substr(0, line.find(' ', line.find(' ') + 1)));
            }
        }
        std::vector<std::string> expected = {
            "0.010000ms link-down",
            "0.020000ms link-up",
            "0.030000ms link-flap",
            "0.035000ms link-flap",
            "0.040000ms link-flap",
            "0.045000ms link-flap",
            "0.060000ms switch-down",
            "0.070000ms switch-up",
            "0.080000ms link-loss",
            "0.090000ms link-loss",
            "0.100000ms slow-receiver",
            "0.110000ms slow-receiver",
            "0.120000ms pfc-storm",
            "0.130000ms pfc-storm",
        };
        NS_TEST_ASSERT_MSG_EQ(kinds.size(), expected.size(), "faults applied");
        for (size_t i = 0; i < std::min(kinds.size(), expected.size()); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(kinds[i], expected[i], "fault " << i << ": " << log[i]);
        }
        NS_TEST_ASSERT_MSG_EQ(net.upPort[0][1]->GetLinkDowns(), 2, "leaf0-spine1 went down twice");
        NS_TEST_ASSERT_MSG_EQ(net.upPort[1][0]->GetLinkDowns(), 2, "the flapping link: 2 cycles");
        NS_TEST_ASSERT_MSG_EQ(net.upPort[0][1]->IsLinkUp(), true, "and is up at the end");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * The fault log as PrintLog writes it, worked out by hand: a link between a
 * named leaf (its interface 2: after its host and spine 0) and a named
 * spine (its interface 0) goes down and up, an unnamed spine fails, and
 * each change is followed by a route recomputation one detection delay
 * (5 us) later.
 */
class FaultPrintLogTestCase : public TestCase
{
  public:
    FaultPrintLogTestCase()
        : TestCase("PrintLog: one line per fault and recomputation, with its time")
    {
    }

  private:
    void DoRun() override
    {
        LeafSpine net(2, 2, 1, MicroSeconds(300));
        RoceFaultHelper faults;
        faults.SetDetectionDelay(MicroSeconds(5));
        faults.AddName("leaf0", net.leaves.Get(0));
        faults.AddName("spine1", net.spines.Get(1));
        faults.LinkDown(MicroSeconds(10), net.up[0][1]);
        faults.LinkUp(MicroSeconds(25), net.up[0][1]);
        faults.SwitchDown(MicroSeconds(40), net.spines.Get(0));
        Simulator::Stop(MicroSeconds(100));
        Simulator::Run();
        const std::string spine0 = "n" + std::to_string(net.spines.Get(0)->GetId());
        const std::string expected = "0.010000ms link-down leaf0:2-spine1:0\n"
                                     "0.015000ms routes recomputed (1)\n"
                                     "0.025000ms link-up leaf0:2-spine1:0\n"
                                     "0.030000ms routes recomputed (2)\n"
                                     "0.040000ms switch-down " +
                                     spine0 +
                                     "\n"
                                     "0.045000ms routes recomputed (3)\n";
        std::ostringstream os;
        faults.PrintLog(os);
        NS_TEST_EXPECT_MSG_EQ(os.str(), expected, "the fault log");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * Two failed switches that share a link: the first to come back leaves that
 * link down until the other returns.
 */
class FaultTwoSwitchesTestCase : public TestCase
{
  public:
    FaultTwoSwitchesTestCase()
        : TestCase("Switch up: a link to a switch still down stays down")
    {
    }

  private:
    void DoRun() override
    {
        LeafSpine net(2, 2, 1, MicroSeconds(300));
        RoceFaultHelper faults;
        faults.SwitchDown(MicroSeconds(10), net.spines.Get(0));
        faults.SwitchDown(MicroSeconds(10), net.leaves.Get(0));
        faults.SwitchUp(MicroSeconds(20), net.spines.Get(0));
        faults.SwitchUp(MicroSeconds(30), net.leaves.Get(0));
        bool sharedAt25 = true;
        bool otherAt25 = false;
        Simulator::Schedule(MicroSeconds(25), [&]() {
            sharedAt25 = net.up[0][0]->IsLinkUp();
            otherAt25 = net.up[1][0]->IsLinkUp();
        });
        Simulator::Stop(MilliSeconds(2));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(sharedAt25, false, "leaf0-spine0 stays down while leaf0 is down");
        NS_TEST_ASSERT_MSG_EQ(otherAt25, true, "leaf1-spine0 came back with spine0");
        NS_TEST_ASSERT_MSG_EQ(net.up[0][0]->IsLinkUp(), true, "and up once leaf0 is back");
        NS_TEST_ASSERT_MSG_EQ(net.up[0][1]->IsLinkUp(), true, "leaf0-spine1 up at the end");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * The fault tests.
 */
class Rocev2FaultsTestSuite : public TestSuite
{
  public:
    Rocev2FaultsTestSuite()
        : TestSuite("rocev2-faults", Type::UNIT)
    {
        AddTestCase(new FaultLinkDownTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FaultFlapTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FaultBerTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FaultSwitchDownTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FaultSlowReceiverTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FaultPfcStormTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FaultFileTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FaultPrintLogTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FaultTwoSwitchesTestCase, RoceTestDuration::QUICK);
    }
};

/// Registers the suite.
static Rocev2FaultsTestSuite g_rocev2FaultsTestSuite;
