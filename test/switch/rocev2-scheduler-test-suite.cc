/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Switch egress scheduling (DWRR weights, strict priority, paused classes),
// measured on the frames the switch port puts on the wire.

#include "../rocev2-frame-bytes.h"
#include "../rocev2-test-child.h"

#include "ns3/boolean.h"
#include "ns3/node-container.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// One sender of the scheduling scenarios.
struct Sender
{
    uint8_t priority; //!< its QP's priority
    DataRate rate;    //!< its access link's rate
    uint64_t bytes;   //!< what it writes
};

/// A measurement window on the bottleneck port.
struct MeasureWindow
{
    Time start; //!< first instant counted
    Time stop;  //!< last instant counted
};

/// Frames and bytes one port sent, per priority.
struct PriorityCounters
{
    std::array<uint64_t, 8> frames{}; //!< frames per priority
    std::array<uint64_t, 8> bytes{};  //!< MacTx bytes per priority
};

/**
 * MacTx sink of the bottleneck port: count by priority (the class-selector
 * DSCP the NIC writes, DSCP / 8).
 * \param c counters
 * \param p the frame
 */
void
OnBottleneckTx(PriorityCounters* c, Ptr<const Packet> p)
{
    RoceFrame f = RoceFrame::Parse(*p);
    if (!f.isRoce || !IsDataOpcode(f.opcode))
    {
        return;
    }
    uint8_t prio = f.dscp / 8;
    ++c->frames[prio];
    c->bytes[prio] += p->GetSize();
}

/**
 * \param c counters
 * \param out where to copy them
 */
void
Snapshot(const PriorityCounters* c, PriorityCounters* out)
{
    *out = *c;
}

/// What a scheduling run measured.
struct SchedulerResult
{
    std::vector<PriorityCounters> windows; //!< counters sent within each window
    RoceFabricStats stats;                 //!< fabric counters at the end
    uint64_t expectedBytes{0};             //!< bytes the senders wrote
    uint64_t pauseTxToPausedSender{0};     //!< XOFF the switch sent the paused class's sender
};

/**
 * Senders, each on its own access link and priority, write to one receiver
 * through one switch; the receiver's port is the bottleneck.
 * \param senders the senders
 * \param queueDiscAttrs RoceEgressQueueDisc attributes
 * \param windows where to measure
 * \param pausePrio priority the receiver pauses with PFC (8 = none)
 * \param pauseOn when it sends XOFF
 * \param pauseOff when it sends XON
 * \return the measurements
 */
SchedulerResult
RunScheduler(const std::vector<Sender>& senders,
             const std::vector<std::pair<std::string, std::string>>& queueDiscAttrs,
             const std::vector<MeasureWindow>& windows,
             uint8_t pausePrio = 8,
             Time pauseOn = Time(0),
             Time pauseOff = Time(0))
{
    NodeContainer sw(1);
    NodeContainer hosts(senders.size() + 1);
    RoceSwitchHelper sh;
    sh.SetMmuAttribute("LosslessPriorities", StringValue("1,3,5"));
    // A 4 MB buffer: a held class reaches its PFC threshold within tens of us.
    sh.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("4MB")));
    for (const auto& [name, value] : queueDiscAttrs)
    {
        sh.SetQueueDiscAttribute(name, StringValue(value));
    }
    sh.Install(sw);
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    NetDeviceContainer rx = roce.Install(hosts.Get(0), sw.Get(0));
    Ptr<RoceNetDevice> receiver = DynamicCast<RoceNetDevice>(rx.Get(0));
    Ptr<RocePfcNetDevice> bottleneck = DynamicCast<RocePfcNetDevice>(rx.Get(1));
    std::vector<Ptr<NetDevice>> nics;
    std::vector<Ptr<RocePfcNetDevice>> ingress;
    for (uint32_t s = 0; s < senders.size(); ++s)
    {
        roce.SetDeviceAttribute("DataRate", DataRateValue(senders[s].rate));
        NetDeviceContainer link = roce.Install(hosts.Get(s + 1), sw.Get(0));
        nics.push_back(link.Get(0));
        ingress.push_back(DynamicCast<RocePfcNetDevice>(link.Get(1)));
    }
    RoceSwitchHelper::PopulateRoutes();
    SchedulerResult r;
    for (uint32_t s = 0; s < senders.size(); ++s)
    {
        roce.SetQpAttribute("Priority", UintegerValue(senders[s].priority));
        roce.CreateQp(nics[s], Ptr<NetDevice>(receiver)).first->PostWrite(senders[s].bytes);
        r.expectedBytes += senders[s].bytes;
    }
    PriorityCounters live;
    bottleneck->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&OnBottleneckTx, &live));
    std::vector<PriorityCounters> at(2 * windows.size());
    for (uint32_t w = 0; w < windows.size(); ++w)
    {
        Simulator::Schedule(windows[w].start, &Snapshot, &live, &at[2 * w]);
        Simulator::Schedule(windows[w].stop, &Snapshot, &live, &at[2 * w + 1]);
    }
    if (pausePrio < 8)
    {
        Simulator::Schedule(pauseOn, &RocePfcNetDevice::SetXoff, receiver, pausePrio, true);
        Simulator::Schedule(pauseOff, &RocePfcNetDevice::SetXoff, receiver, pausePrio, false);
    }
    Simulator::Run();
    r.stats = RoceFabricStats::Collect();
    for (uint32_t w = 0; w < windows.size(); ++w)
    {
        PriorityCounters d;
        for (uint32_t p = 0; p < 8; ++p)
        {
            d.frames[p] = at[2 * w + 1].frames[p] - at[2 * w].frames[p];
            d.bytes[p] = at[2 * w + 1].bytes[p] - at[2 * w].bytes[p];
        }
        r.windows.push_back(d);
    }
    for (uint32_t s = 0; s < senders.size(); ++s)
    {
        if (senders[s].priority == pausePrio)
        {
            r.pauseTxToPausedSender += ingress[s]->GetPfcStats().pauseTx[pausePrio];
        }
    }
    Simulator::Destroy();
    return r;
}

/**
 * \param c counters
 * \return wire bytes of the frames (MacTx size + FCS, preamble, SFD, IFG)
 */
uint64_t
WireBytes(const PriorityCounters& c)
{
    uint64_t total = 0;
    for (uint32_t p = 0; p < 8; ++p)
    {
        total += c.bytes[p] + WIRE_EXTRA * c.frames[p];
    }
    return total;
}

/**
 * \param c counters
 * \return MacTx bytes over all priorities
 */
uint64_t
TotalBytes(const PriorityCounters& c)
{
    uint64_t total = 0;
    for (uint64_t b : c.bytes)
    {
        total += b;
    }
    return total;
}

} // namespace

/**
 * \ingroup rocev2
 * DWRR with weights 1:2:4 on priorities 1, 3, 5, each backlogged (three
 * 100G senders into one 100G port): each class gets w_i / sum(w) of the
 * bottleneck's bytes.
 */
class DwrrWeightsTestCase : public TestCase
{
  public:
    DwrrWeightsTestCase()
        : TestCase("DWRR weights 1:2:4 share a 100G bottleneck in proportion")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t quantum = 4096;
        const std::array<uint32_t, 3> prios{1, 3, 5};
        const std::array<uint32_t, 3> weights{1, 2, 4};
        MeasureWindow win{MicroSeconds(50), MicroSeconds(250)};
        // 4 MB each keeps all three backlogged past 250 us: the 4/7 class
        // sends 100G * 4/7 * 250 us = 1.8 MB by then.
        std::vector<Sender> senders;
        for (uint32_t prio : prios)
        {
            senders.push_back({static_cast<uint8_t>(prio), DataRate("100Gbps"), 4000000});
        }
        SchedulerResult r = RunScheduler(senders,
                                         {{"Scheduler", "Dwrr"},
                                          {"DwrrQuantum", std::to_string(quantum)},
                                          {"DwrrWeights", "1,1,1,2,1,4,1,1"}},
                                         {win});
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, 0, "lossless classes dropped");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bytesDelivered, r.expectedBytes, "bytes missing");
        NS_TEST_ASSERT_MSG_EQ(r.stats.retransmits, 0, "retransmissions");
        const PriorityCounters& c = r.windows[0];
        double total = TotalBytes(c);
        // The port never idles while backlogged: it sends 100G * 200 us of
        // wire bytes, to within the one frame a window edge can cut.
        double lineBytes = 100e9 / 8 * (win.stop - win.start).GetSeconds();
        NS_TEST_ASSERT_MSG_EQ_TOL(double(WireBytes(c)),
                                  lineBytes,
                                  MAX_FRAME + WIRE_EXTRA,
                                  "bottleneck not busy");
        // DWRR keeps each class's bytes within one frame of k rounds of
        // DwrrQuantum * w_i; a window holds whole rounds plus at most one
        // partial round at each edge. So each share is w_i / sum(w) to within
        // (one round + two frames) / window bytes = (4096 * 7 + 2 * 1098) /
        // 2.46 MB = 1.3 %.
        double wsum = 7;
        double tol = (quantum * wsum + 2.0 * MAX_FRAME) / total;
        for (uint32_t i = 0; i < prios.size(); ++i)
        {
            double share = c.bytes[prios[i]] / total;
            NS_TEST_ASSERT_MSG_EQ_TOL(share,
                                      weights[i] / wsum,
                                      tol,
                                      "priority " << prios[i] << " share");
        }
    }
};

/**
 * \ingroup rocev2
 * A class the downstream device pauses with PFC is skipped, not dropped:
 * while the receiver holds XOFF on priority 5, the port sends none of it and
 * gives the link to the others in their DWRR ratio; afterwards every byte
 * arrives.
 */
class PausedClassSkippedTestCase : public TestCase
{
  public:
    PausedClassSkippedTestCase()
        : TestCase("a PFC-paused class is skipped by DWRR, not dropped")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t quantum = 4096;
        Time pauseOn = MicroSeconds(100);
        Time pauseOff = MicroSeconds(300);
        // The XOFF reaches the port after the frame on the wire (< 0.1 us),
        // the PFC frame (< 0.01 us) and the 1 us link: 5 us is ample.
        MeasureWindow paused{pauseOn + MicroSeconds(5), pauseOff};
        std::vector<Sender> senders{{1, DataRate("100Gbps"), 3000000},
                                    {3, DataRate("100Gbps"), 3000000},
                                    {5, DataRate("100Gbps"), 3000000}};
        SchedulerResult r = RunScheduler(senders,
                                         {{"Scheduler", "Dwrr"},
                                          {"DwrrQuantum", std::to_string(quantum)},
                                          {"DwrrWeights", "1,1,1,2,1,4,1,1"}},
                                         {paused},
                                         5,
                                         pauseOn,
                                         pauseOff);
        const PriorityCounters& c = r.windows[0];
        NS_TEST_ASSERT_MSG_EQ(c.frames[5], 0, "the port sent a paused class");
        NS_TEST_ASSERT_MSG_GT(c.frames[1], 0, "priority 1 starved during the pause");
        double lineBytes = 100e9 / 8 * (paused.stop - paused.start).GetSeconds();
        NS_TEST_ASSERT_MSG_EQ_TOL(double(WireBytes(c)),
                                  lineBytes,
                                  MAX_FRAME + WIRE_EXTRA,
                                  "the link idled while other classes waited");
        // The remaining classes share as 1 : 2, within one round (of the
        // two) plus two frames over the window's bytes (derivation as in the
        // weights test).
        double total = TotalBytes(c);
        double tol = (quantum * 3.0 + 2.0 * MAX_FRAME) / total;
        NS_TEST_ASSERT_MSG_EQ_TOL(c.bytes[1] / total, 1.0 / 3, tol, "priority 1 share");
        NS_TEST_ASSERT_MSG_EQ_TOL(c.bytes[3] / total, 2.0 / 3, tol, "priority 3 share");
        // Skipped, not dropped: the held class backs up into its sender with
        // PFC, and every byte arrives once the pause ends.
        NS_TEST_ASSERT_MSG_GT(r.pauseTxToPausedSender, 0, "the paused class never backed up");
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, 0, "frames dropped");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bytesDelivered, r.expectedBytes, "bytes missing");
        NS_TEST_ASSERT_MSG_EQ(r.stats.retransmits, 0, "retransmissions");
    }
};

/**
 * \ingroup rocev2
 * Strict priority: a 40G sender on priority 5 gets all it sends, a 100G
 * sender on priority 3 the remaining 60%, and a 100G sender on priority 1
 * nothing while the others are backlogged.
 */
class StrictPriorityTestCase : public TestCase
{
  public:
    StrictPriorityTestCase()
        : TestCase("strict priority: 40G high class gets 40%, middle 60%, low nothing")
    {
    }

  private:
    void DoRun() override
    {
        MeasureWindow win{MicroSeconds(50), MicroSeconds(250)};
        std::vector<Sender> senders{{5, DataRate("40Gbps"), 3000000},
                                    {3, DataRate("100Gbps"), 3000000},
                                    {1, DataRate("100Gbps"), 3000000}};
        SchedulerResult r = RunScheduler(senders, {{"Scheduler", "Strict"}}, {win});
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, 0, "lossless classes dropped");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bytesDelivered, r.expectedBytes, "bytes missing");
        const PriorityCounters& c = r.windows[0];
        double lineBytes = 100e9 / 8 * (win.stop - win.start).GetSeconds();
        // Priority 5 arrives at 40G of wire and is always served first, so it
        // leaves at 40G: 40% of the port's wire bytes. Its frames are delayed
        // by at most one lower frame, and each window edge cuts at most one
        // frame: three frames of slack.
        double tol = 3.0 * (MAX_FRAME + WIRE_EXTRA) / lineBytes;
        double wire5 = c.bytes[5] + WIRE_EXTRA * c.frames[5];
        double wire3 = c.bytes[3] + WIRE_EXTRA * c.frames[3];
        NS_TEST_ASSERT_MSG_EQ_TOL(wire5 / lineBytes, 0.4, tol, "high class share");
        NS_TEST_ASSERT_MSG_EQ_TOL(wire3 / lineBytes, 0.6, tol, "middle class share");
        NS_TEST_ASSERT_MSG_EQ(c.frames[1], 0, "the low class was served while others waited");
    }
};

/**
 * \ingroup rocev2
 * DwrrWeights: valid strings set the weights; bad ones (wrong count, zero,
 * not a number) abort with a message naming the attribute and the value.
 */
class DwrrWeightsInputTestCase : public TestCase
{
  public:
    DwrrWeightsInputTestCase()
        : TestCase("DwrrWeights: parsing, and clear aborts on bad input")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RoceEgressQueueDisc> q = CreateObject<RoceEgressQueueDisc>();
        q->SetAttribute("DwrrWeights", StringValue(" 1, 2,3,4 ,5,6,7,65535"));
        const std::array<uint32_t, 8> expected{1, 2, 3, 4, 5, 6, 7, 65535};
        for (uint8_t p = 0; p < 8; ++p)
        {
            NS_TEST_ASSERT_MSG_EQ(q->GetDwrrWeight(p), expected[p], "weight of priority " << +p);
        }
        for (const std::string bad : {"1,2,3",
                                      "1,1,1,0,1,1,1,1",
                                      "1,1,x,1,1,1,1,1",
                                      "1,1,1,1,1,1,1,1,1",
                                      "1,1,1,1,1,1,1,",
                                      "1,1,1,1,1,1,1,65536",
                                      "1,1,1,-1,1,1,1,1",
                                      ""})
        {
            std::array<uint32_t, 8> w{};
            std::string error;
            NS_TEST_ASSERT_MSG_EQ(RoceEgressQueueDisc::ParseDwrrWeights(bad, w, error),
                                  false,
                                  "'" << bad << "' accepted");
            NS_TEST_ASSERT_MSG_NE(error.find("DwrrWeights='" + bad + "'"),
                                  std::string::npos,
                                  "message does not name the attribute and value: " << error);
        }
#ifdef ROCEV2_TEST_CAN_FORK
        // The attribute itself aborts: run it in a child process and read
        // its standard error.
        for (const std::string bad : {"1,2,3", "1,1,1,0,1,1,1,1", "1,1,x,1,1,1,1,1"})
        {
            std::string err;
            bool aborted = rocev2test::RunInChild(
                [bad]() {
                    CreateObject<RoceEgressQueueDisc>()->SetAttribute("DwrrWeights",
                                                                      StringValue(bad));
                },
                err);
            NS_TEST_ASSERT_MSG_EQ(aborted, true, "'" << bad << "' did not abort");
            NS_TEST_ASSERT_MSG_NE(err.find("DwrrWeights='" + bad + "'"),
                                  std::string::npos,
                                  "abort message does not name attribute and value: " << err);
        }
#endif
    }
};

/**
 * \ingroup rocev2
 * rocev2-scheduler suite.
 */
class RoceSchedulerTestSuite : public TestSuite
{
  public:
    RoceSchedulerTestSuite()
        : TestSuite("rocev2-scheduler", Type::SYSTEM)
    {
        AddTestCase(new DwrrWeightsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new PausedClassSkippedTestCase, RoceTestDuration::QUICK);
        AddTestCase(new StrictPriorityTestCase, RoceTestDuration::QUICK);
        AddTestCase(new DwrrWeightsInputTestCase, RoceTestDuration::QUICK);
    }
};

static RoceSchedulerTestSuite g_roceSchedulerTestSuite; //!< static instance
