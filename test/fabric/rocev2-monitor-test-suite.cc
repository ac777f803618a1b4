/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fabric monitors (RoceMonitor) and the progress line (RoceProgress):
 * the PFC log against the devices' PFC counters, queue samples against the
 * queue growth of a 2:1 incast, link utilisation against the wire
 * efficiency of a line-rate flow, per-QP CNP counts against the fabric's
 * CNP count, samplers that let a run end, and a progress line that writes
 * nothing when it must not and never changes the results.
 */
#include "../rocev2-frame-bytes.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/integer.h"
#include "ns3/node-container.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-monitor-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-progress.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

const DataRate g_rate("100Gbps");     //!< every link's rate
const Time g_delay = MicroSeconds(1); //!< every link's propagation delay

/// Frame bytes (without FCS) of a full data packet, as queues and GetTxBytes count them.
constexpr uint32_t FRAME = MTU + FRAME_OVERHEAD;
/// Its bytes on the wire.
constexpr uint32_t WIRE = FRAME + WIRE_EXTRA;

/**
 * \return the time one full data frame takes on the wire at g_rate
 */
double
FrameSeconds()
{
    return WIRE * 8.0 / g_rate.GetBitRate();
}

/**
 * A guard for runs that must end by themselves: every `period` it ends the
 * run if it is past `limit`, and stops rescheduling once nothing else is
 * pending, so it never keeps a run alive (nor delays its end by more than
 * one period). A regression then fails an assertion instead of hanging.
 * \param period check period \param limit latest acceptable end
 */
void
Watchdog(Time period, Time limit)
{
    if (Simulator::Now() > limit)
    {
        Simulator::Stop();
        return;
    }
    if (!Simulator::IsFinished())
    {
        Simulator::Schedule(period, &Watchdog, period, limit);
    }
}

/**
 * One switch with hosts: host 0 is the receiver of the tests' flows.
 */
struct Star
{
    NodeContainer sw{1};                    //!< the switch
    NodeContainer hosts;                    //!< the hosts
    std::vector<Ptr<RoceNetDevice>> nics;   //!< host NICs
    std::vector<Ptr<RoceSwitchPort>> ports; //!< switch port of each host
    RoceHelper roce;                        //!< makes QPs

    /**
     * \param n hosts
     * \param buffer switch buffer bytes
     * \param preset DCQCN preset, "" for none
     */
    Star(uint32_t n, uint32_t buffer, const std::string& preset)
        : hosts(n)
    {
        RoceSwitchHelper switches;
        switches.SetMmuAttribute("BufferSize",
                                 QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, buffer)));
        if (!preset.empty())
        {
            RoceCcHelper("dcqcn", preset).Configure(roce, switches);
        }
        switches.Install(sw);
        roce.SetDeviceAttribute("DataRate", DataRateValue(g_rate));
        roce.SetChannelAttribute("Delay", TimeValue(g_delay));
        roce.SetNicAttribute("PayloadMtu", UintegerValue(MTU));
        for (uint32_t h = 0; h < n; ++h)
        {
            NetDeviceContainer d = roce.Install(hosts.Get(h), sw.Get(0));
            nics.push_back(DynamicCast<RoceNetDevice>(d.Get(0)));
            ports.push_back(DynamicCast<RoceSwitchPort>(d.Get(1)));
        }
        RoceSwitchHelper::PopulateRoutes();
    }

    /**
     * \param from sender host \param to receiver host \param size bytes
     * \param done set to the completion time
     * \param then called at completion (may be null)
     * \return the sending QP
     */
    Ptr<RoceQueuePair> Write(uint32_t from,
                             uint32_t to,
                             uint64_t size,
                             Time* done,
                             std::function<void()> then = nullptr)
    {
        Ptr<RoceQueuePair> s = roce.CreateQp(nics[from], nics[to]).first;
        s->PostWrite(size,
                     Callback<void, const RoceCompletion&>([done, then](const RoceCompletion& c) {
                         *done = c.completed;
                         if (then)
                         {
                             then();
                         }
                     }));
        return s;
    }
};

/**
 * PFC log of a 4:1 incast at line rate into a small buffer: the switch must
 * pause. Every PFC frame a device sends is one row (XOFF for pauses and
 * their refreshes, XON for resumes), so the rows count what the devices'
 * PfcStats count; a drained fabric ends every pause with an XON; the switch
 * alone pauses (the receiver NIC never does), and what it pauses are the
 * senders' NICs, which the HPCC-format (receive side) log must show.
 */
class PfcLogTestCase : public TestCase
{
  public:
    PfcLogTestCase()
        : TestCase("PFC log rows = PFC frames sent; every XOFF ends with XON; HPCC log = frames "
                   "received by hosts")
    {
    }

  private:
    void DoRun() override
    {
        Star star(5, 300000, "");
        Ptr<RoceMonitor> mon = CreateObject<RoceMonitor>();
        mon->EnablePfcLog();
        std::vector<Time> done(4);
        for (uint32_t s = 1; s <= 4; ++s)
        {
            star.Write(s, 0, 500000, &done[s - 1]);
        }
        Simulator::Run();
        RoceFabricStats stats = RoceFabricStats::Collect();
        NS_TEST_ASSERT_MSG_EQ(stats.bytesDelivered, 4 * 500000, "incast incomplete");
        NS_TEST_ASSERT_MSG_GT(stats.pfcPauseTx, 0, "a 4:1 incast into 300 KB must pause");

        const uint32_t switchNode = star.sw.Get(0)->GetId();
        uint64_t xoff = 0;
        uint64_t xon = 0;
        std::map<std::tuple<uint32_t, uint32_t, uint8_t>, bool> lastIsXoff;
        int64_t last = 0;
        for (const RoceMonitor::PfcEvent& e : mon->GetPfcLog())
        {
            (e.xoff ? xoff : xon)++;
            lastIsXoff[{e.node, e.ifIndex, e.priority}] = e.xoff;
            NS_TEST_EXPECT_MSG_EQ(e.node, switchNode, "only the congested switch sends PFC");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(e.timeNs, last, "rows in time order");
            last = e.timeNs;
        }
        NS_TEST_EXPECT_MSG_EQ(xoff, stats.pfcPauseTx, "XOFF rows = pause frames sent");
        NS_TEST_EXPECT_MSG_EQ(xon, stats.pfcResumeTx, "XON rows = resume frames sent");
        for (const auto& [key, isXoff] : lastIsXoff)
        {
            NS_TEST_EXPECT_MSG_EQ(isXoff,
                                  false,
                                  "port " << std::get<1>(key) << " prio "
                                          << unsigned(std::get<2>(key))
                                          << " still paused at the end of a drained run");
        }

        // Receive side: the link is lossless for PFC frames, so each frame
        // sent is received once, by a sender's NIC (node type 0).
        std::ostringstream hpcc;
        mon->WritePfcHpcc(hpcc);
        std::istringstream in(hpcc.str());
        uint64_t t;
        uint32_t node;
        uint32_t type;
        uint32_t ifIndex;
        uint32_t pause;
        uint64_t pauses = 0;
        uint64_t resumes = 0;
        uint64_t lines = 0;
        while (in >> t >> node >> type >> ifIndex >> pause)
        {
            ++lines;
            (pause == 1 ? pauses : resumes)++;
            NS_TEST_EXPECT_MSG_EQ(type, 0, "the switch pauses hosts only");
            NS_TEST_EXPECT_MSG_NE(node, star.hosts.Get(0)->GetId(), "the receiver is not paused");
            NS_TEST_EXPECT_MSG_EQ(ifIndex,
                                  star.nics[1]->GetIfIndex(),
                                  "a host's RoCE NIC is its device " << ifIndex);
        }
        NS_TEST_EXPECT_MSG_EQ(lines, mon->GetPfcRxLog().size(), "one HPCC line per frame");
        NS_TEST_EXPECT_MSG_EQ(pauses, stats.pfcPauseTx, "pauses received = pauses sent");
        NS_TEST_EXPECT_MSG_EQ(resumes, stats.pfcResumeTx, "resumes received = resumes sent");
        // The CSV holds a header and one line per row.
        const std::string prefix = CreateTempDirFilename("monitor");
        mon->WriteCsv(prefix);
        std::ifstream csv(prefix + "-pfc.csv");
        std::string header;
        std::getline(csv, header);
        NS_TEST_EXPECT_MSG_EQ(header, "time_ns,node,port,priority,type", "pfc.csv header");
        uint64_t csvXoff = 0;
        uint64_t csvRows = 0;
        for (std::string line; std::getline(csv, line);)
        {
            ++csvRows;
            csvXoff += line.size() > 5 && line.substr(line.size() - 5) == ",XOFF" ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(csvRows, xoff + xon, "pfc.csv rows");
        NS_TEST_EXPECT_MSG_EQ(csvXoff, stats.pfcPauseTx, "pfc.csv XOFF rows");
        NS_TEST_EXPECT_MSG_EQ(std::ifstream(prefix + "-cnp.csv").good(), true, "cnp.csv");
        NS_TEST_EXPECT_MSG_EQ(std::ifstream(prefix + "-queue.csv").good(),
                              false,
                              "queue.csv written though queue sampling is off");

        // A frame is received at least one propagation delay after it is sent.
        if (!mon->GetPfcLog().empty() && !mon->GetPfcRxLog().empty())
        {
            NS_TEST_EXPECT_MSG_GT_OR_EQ(mon->GetPfcRxLog().front().timeNs,
                                        mon->GetPfcLog().front().timeNs + g_delay.GetNanoSeconds(),
                                        "first pause received before it could arrive");
        }
        Simulator::Destroy();
    }
};

/**
 * Queue samples of a 2:1 incast without congestion control. Each sender
 * WRITEs N full frames (F bytes, T = (F + 24) x 8 / R on the wire) from
 * time 0 at line rate R. Frame k of each sender has fully arrived at the
 * switch at d + kT (store and forward; the first frame's 16-byte RETH shifts
 * this by 1.3 ns), and the receiver's port starts sending frame j at
 * t0 + (j - 1)T, t0 = d + T. So at time t the egress queue (frames not yet in
 * service) holds
 *   A(t) - S(t) frames, A(t) = 2 min(floor((t - d) / T), N),
 *                       S(t) = min(floor((t - t0) / T) + 1, A(t)):
 * growing by one frame per T while both send ((2 - 1) x R), then draining
 * by one frame per T. Samples every 20 us to a stop time of 300 us: 15
 * samples, growth and drain. Samples away from frame boundaries match the
 * formula to the byte; one that falls within a few ns of a boundary (the
 * first frame's RETH shift, T's rounding to ps) may count a frame more or
 * less, so the tolerance is 1.5 frames: one frame off passes, two fail.
 */
class QueueSamplingTestCase : public TestCase
{
  public:
    QueueSamplingTestCase()
        : TestCase("queue samples follow a 2:1 incast's growth and drain; one per interval")
    {
    }

  private:
    void DoRun() override
    {
        Star star(3, 32000000, "");
        const Time interval = MicroSeconds(20);
        const Time duration = MicroSeconds(300);
        const uint64_t frames = 2000; // N per sender
        Ptr<RoceMonitor> mon = CreateObject<RoceMonitor>();
        mon->SetStopTime(duration);
        mon->EnableQueueSampling(interval);
        Time d1;
        Time d2;
        star.Write(1, 0, frames * MTU, &d1);
        star.Write(2, 0, frames * MTU, &d2);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(RoceFabricStats::Collect().pfcPauseTx,
                              0,
                              "the formula assumes no PFC pause");

        NS_TEST_ASSERT_MSG_EQ(mon->GetQueueSampleCount(),
                              uint64_t(duration.GetNanoSeconds() / interval.GetNanoSeconds()),
                              "one sample per interval up to the stop time");
        const uint32_t sw = star.sw.Get(0)->GetId();
        const uint32_t port = star.ports[0]->GetIfIndex();
        const double t = FrameSeconds();
        const double d = g_delay.GetSeconds();
        uint32_t bottleneckRows = 0;
        for (const RoceMonitor::QueueSample& s : mon->GetQueueSamples())
        {
            if (s.node != sw || s.ifIndex != port)
            {
                continue;
            }
            ++bottleneckRows;
            const double now = s.timeNs * 1e-9;
            int64_t arrived = 2 * std::min<int64_t>(std::floor((now - d) / t), frames);
            int64_t started =
                std::min<int64_t>(std::floor((now - d - t) / t) + 1, std::max<int64_t>(arrived, 0));
            double expected = double(std::max<int64_t>(arrived - started, 0)) * FRAME;
            NS_TEST_EXPECT_MSG_EQ_TOL(double(s.bytes),
                                      expected,
                                      1.5 * FRAME,
                                      "queue at " << s.timeNs << " ns");
            NS_TEST_EXPECT_MSG_EQ(s.timeNs % interval.GetNanoSeconds(), 0, "sample time");
        }
        NS_TEST_EXPECT_MSG_EQ(bottleneckRows, 15, "a row per sample for the non-empty queue");
        Simulator::Destroy();
    }
};

/**
 * Link utilisation of one line-rate flow (host 1 to host 0; host 2 idle),
 * sampled every 20 us. While the flow runs, its NIC sends back-to-back full
 * frames: utilisation (wire time / interval) is 1 and the frame-byte rate is
 * R × F / (F + 24) (FCS, preamble, SFD and IFG are not frame bytes), each
 * within 1%: an interval holds 20 us / T = 226 frames, so frame boundaries
 * move a sample by at most 1/226 = 0.44%. The idle host's link (its NIC and
 * its switch port) sends nothing and has no row. With another framing
 * (RoceFrameWireOverhead o in place of 24) the wire is still full, and the
 * frame-byte rate is R × F / (F + o).
 */
class LinkUtilisationTestCase : public TestCase
{
  public:
    /** \param overhead RoceFrameWireOverhead for the run */
    explicit LinkUtilisationTestCase(int32_t overhead)
        : TestCase("link utilisation of a line-rate flow: 1 on the wire, F over F" +
                   std::string(overhead < 0 ? "" : "+") + std::to_string(overhead) +
                   " in frame bytes; idle links absent"),
          m_overhead(overhead)
    {
    }

  private:
    int32_t m_overhead; //!< RoceFrameWireOverhead

    void DoRun() override
    {
        Config::SetGlobal("RoceFrameWireOverhead", IntegerValue(m_overhead));
        Star star(3, 32000000, "");
        Config::SetGlobal("RoceFrameWireOverhead",
                          IntegerValue(RocePfcNetDevice::ETHERNET_WIRE_OVERHEAD));
        const Time interval = MicroSeconds(20);
        Ptr<RoceMonitor> mon = CreateObject<RoceMonitor>();
        mon->EnableLinkUtilisation(interval);
        Time done;
        star.Write(1, 0, 4000000, &done, [mon]() { mon->Stop(); });
        // Should Stop() regress, the samplers-stop case fails; this one ends.
        mon->SetStopTime(MilliSeconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT(done, Time(0), "flow incomplete");

        const uint32_t host1 = star.hosts.Get(1)->GetId();
        const uint32_t host2 = star.hosts.Get(2)->GetId();
        const uint32_t sw = star.sw.Get(0)->GetId();
        const double efficiency = double(FRAME) / (FRAME + m_overhead);
        uint32_t full = 0;
        for (const RoceMonitor::LinkSample& s : mon->GetLinkSamples())
        {
            NS_TEST_EXPECT_MSG_NE(s.node, host2, "idle host has a link row");
            NS_TEST_EXPECT_MSG_EQ((s.node == sw && s.ifIndex == star.ports[2]->GetIfIndex()),
                                  false,
                                  "idle switch port has a link row");
            // Intervals that lie wholly inside the flow (its last frame leaves
            // the NIC about one RTT before completion).
            Time end = NanoSeconds(s.timeNs);
            if (s.node != host1 || end + MicroSeconds(5) > done)
            {
                continue;
            }
            ++full;
            NS_TEST_EXPECT_MSG_EQ_TOL(s.util, 1.0, 0.01, "wire utilisation at " << end);
            double rate = s.bytes * 8.0 / interval.GetSeconds();
            NS_TEST_EXPECT_MSG_EQ_TOL(rate / g_rate.GetBitRate(),
                                      efficiency,
                                      0.01,
                                      "frame-byte rate at " << end);
        }
        // 4 MB at 100 Gb/s take about 345 us: at least 15 whole intervals.
        NS_TEST_EXPECT_MSG_GT_OR_EQ(full, 15, "too few samples of the running flow");
        Simulator::Destroy();
    }
};

/**
 * Per-QP CNP counts of a DCQCN 4:1 incast: every CNP the fabric counts was
 * sent by a receiver QP on host 0 and, the fabric being lossless and drained,
 * received by a sender QP; so the rows' cnp_sent sum to RoceFabricStats's
 * cnpSent and their cnp_received sum to the same number.
 */
class CnpCountTestCase : public TestCase
{
  public:
    CnpCountTestCase()
        : TestCase("per-QP CNP rows sum to the fabric's CNPs, sent at the receiver, received at "
                   "the senders")
    {
    }

  private:
    void DoRun() override
    {
        Star star(5, 32000000, "paper-2015");
        Ptr<RoceMonitor> mon = CreateObject<RoceMonitor>();
        std::vector<Time> done(4);
        for (uint32_t s = 1; s <= 4; ++s)
        {
            star.Write(s, 0, 500000, &done[s - 1]);
        }
        Simulator::Run();
        RoceFabricStats stats = RoceFabricStats::Collect();
        NS_TEST_ASSERT_MSG_GT(stats.cnpSent, 0, "a DCQCN 4:1 incast must make CNPs");
        uint64_t sent = 0;
        uint64_t received = 0;
        for (const RoceMonitor::CnpCount& c : mon->GetCnpCounts())
        {
            sent += c.cnpSent;
            received += c.cnpReceived;
            if (c.cnpSent > 0)
            {
                NS_TEST_EXPECT_MSG_EQ(c.node, star.hosts.Get(0)->GetId(), "CNP sender");
            }
            if (c.cnpReceived > 0)
            {
                NS_TEST_EXPECT_MSG_NE(c.node, star.hosts.Get(0)->GetId(), "CNP receiver");
                NS_TEST_EXPECT_MSG_EQ(c.dstIp,
                                      star.nics[0]->GetIpv4Address().Get(),
                                      "a sender QP's remote address is the receiver's");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(sent, stats.cnpSent, "rows' cnp_sent = fabric cnpSent");
        NS_TEST_EXPECT_MSG_EQ(received, stats.cnpSent, "every CNP received once");
        std::ostringstream json;
        mon->WriteJson(json);
        NS_TEST_EXPECT_MSG_NE(json.str().find("\"cnp_counts\": [\n"),
                              std::string::npos,
                              "JSON holds the CNP rows");
        Simulator::Destroy();
    }
};

/**
 * Samplers do not keep a run alive: with every sampler on at a 1 us
 * interval, a run to completion whose workload calls Stop() at completion
 * returns within one interval of it (a watchdog that ends runs past 1 ms makes a
 * regression fail instead of hang, see Watchdog); and SetStopTime alone ends an idle run at
 * the stop time with duration / interval samples.
 */
class SamplersStopTestCase : public TestCase
{
  public:
    SamplersStopTestCase()
        : TestCase("samplers stop with Stop() at workload completion and at SetStopTime")
    {
    }

  private:
    void DoRun() override
    {
        {
            Star star(2, 32000000, "");
            Ptr<RoceMonitor> mon = CreateObject<RoceMonitor>();
            const Time interval = MicroSeconds(1);
            mon->EnablePfcLog();
            mon->EnableQueueSampling(interval);
            mon->EnableLinkUtilisation(interval);
            mon->EnableRateSampling(interval);
            Time done;
            star.Write(1, 0, 100000, &done, [mon]() { mon->Stop(); });
            // A regression fails instead of hanging: no sample after 1 ms.
            mon->SetStopTime(MilliSeconds(1));
            Simulator::Run();
            NS_TEST_ASSERT_MSG_GT(done, Time(0), "flow incomplete");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(Simulator::Now(),
                                        done + interval,
                                        "the samplers kept the run alive after Stop()");
            NS_TEST_EXPECT_MSG_EQ(mon->IsStopped(), true, "stopped");
            // One sample per interval until completion (floor(done / interval)).
            uint64_t expected = done.GetNanoSeconds() / interval.GetNanoSeconds();
            NS_TEST_EXPECT_MSG_EQ(mon->GetLinkSampleCount(), expected, "link samples");
            NS_TEST_EXPECT_MSG_EQ(mon->GetRateSampleCount(), expected, "rate samples");
            NS_TEST_EXPECT_MSG_GT(mon->GetRateSamples().size(), 0, "rate rows of the sender");
            Simulator::Destroy();
        }
        {
            // A sampling interval far longer than the flow: Stop() must take
            // the pending samples out of the event list, or the run would
            // end at the next sample time, not at completion.
            Star star(2, 32000000, "");
            Ptr<RoceMonitor> mon = CreateObject<RoceMonitor>();
            const Time interval = MicroSeconds(100);
            mon->EnableQueueSampling(interval);
            mon->EnableLinkUtilisation(interval);
            mon->EnableRateSampling(interval);
            mon->SetStopTime(MilliSeconds(1));
            Time done;
            star.Write(1, 0, 100000, &done, [mon]() { mon->Stop(); });
            Simulator::Run();
            NS_TEST_ASSERT_MSG_GT(done, Time(0), "flow incomplete");
            NS_TEST_ASSERT_MSG_LT(done, interval, "the flow must end before the first sample");
            // After completion only the last ACK's transmit-complete events
            // can remain: one ACK frame time (< 10 ns at 100 Gb/s) later.
            NS_TEST_EXPECT_MSG_LT_OR_EQ(Simulator::Now(),
                                        done + NanoSeconds(10),
                                        "a stopped sampler delayed the end of the run");
            Simulator::Destroy();
        }
        {
            Star star(2, 32000000, "");
            Ptr<RoceMonitor> mon = CreateObject<RoceMonitor>();
            mon->EnableQueueSampling(MicroSeconds(10));
            mon->SetStopTime(MicroSeconds(50));
            const Time guard = MicroSeconds(10);
            Simulator::Schedule(guard, &Watchdog, guard, MilliSeconds(1));
            Simulator::Run();
            NS_TEST_EXPECT_MSG_LT_OR_EQ(Simulator::Now(),
                                        MicroSeconds(50) + guard,
                                        "the run did not end at the stop time");
            NS_TEST_EXPECT_MSG_EQ(mon->GetQueueSampleCount(), 5, "50 us / 10 us samples");
            NS_TEST_EXPECT_MSG_EQ(mon->GetQueueSamples().size(), 0, "no traffic, no rows");
            Simulator::Destroy();
        }
    }
};

/**
 * The progress line writes nothing when quiet or when its stream is not a
 * terminal (and then schedules nothing); when drawn, it leaves the
 * simulation's results unchanged: the same completion time, frames and end
 * time as a run without it, and the same event count once its own events
 * are taken out. It ends a run to completion (no stop time) and writes a
 * final newline.
 */
class ProgressTestCase : public TestCase
{
  public:
    ProgressTestCase()
        : TestCase("progress line: silent when quiet or not a terminal; results unchanged")
    {
    }

  private:
    /// What one run gives.
    struct Result
    {
        Time done;         //!< completion
        Time end;          //!< Simulator::Now() when Run returned
        uint64_t events;   //!< model events
        uint64_t hops;     //!< frames sent
        uint64_t own;      //!< progress events
        std::string drawn; //!< what the progress line wrote
    };

    /**
     * \param isTerminal the stream is a terminal \param quiet --quiet
     * \param withProgress make a progress line at all
     * \param stop stop time the line is told (zero: unknown)
     * \param finishAtCompletion call Finish() when the flow completes
     * \return the run's result
     */
    static Result RunOnce(bool withProgress,
                          bool isTerminal,
                          bool quiet,
                          Time stop,
                          bool finishAtCompletion = true)
    {
        Result r;
        std::ostringstream os;
        {
            Star star(2, 32000000, "");
            RoceProgress progress(stop, &os, isTerminal, quiet);
            star.Write(1, 0, 2000000, &r.done, [&progress, finishAtCompletion]() {
                if (finishAtCompletion)
                {
                    progress.Finish();
                }
            });
            if (withProgress)
            {
                progress.Start();
            }
            Simulator::Run();
            progress.Finish();
            r.end = Simulator::Now();
            r.own = progress.GetOwnEventCount();
            r.events = Simulator::GetEventCount() - r.own;
            r.hops = RoceFabricStats::Collect().packetHops;
            Simulator::Destroy();
        }
        r.drawn = os.str();
        return r;
    }

    void DoRun() override
    {
        Result base = RunOnce(false, false, false, Time(0));
        NS_TEST_ASSERT_MSG_GT(base.done, Time(0), "flow incomplete");

        Result quiet = RunOnce(true, true, true, Time(0));
        NS_TEST_EXPECT_MSG_EQ(quiet.drawn, "", "--quiet wrote something");
        NS_TEST_EXPECT_MSG_EQ(quiet.own, 0, "--quiet scheduled events");

        Result pipe = RunOnce(true, false, false, Time(0));
        NS_TEST_EXPECT_MSG_EQ(pipe.drawn, "", "wrote to a stream that is not a terminal");
        NS_TEST_EXPECT_MSG_EQ(pipe.own, 0, "scheduled events for a non-terminal");

        // Not finished by the workload and no stop time: the line stops
        // rescheduling once nothing else is pending, so Run() returns (a
        // regression hangs here, and the runner's timeout fails it). The
        // run may end one check interval after its last model event; the
        // interval at most doubles per check, so that is before 2 x the end + the first interval (1
        // us).
        Result open = RunOnce(true, true, false, Time(0), false);
        NS_TEST_EXPECT_MSG_EQ(open.done, base.done, "completion time changed");
        NS_TEST_EXPECT_MSG_EQ(open.hops, base.hops, "frames changed");
        NS_TEST_EXPECT_MSG_EQ(open.events, base.events, "own events not excluded");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(open.end,
                                    2 * base.end + MicroSeconds(1),
                                    "the line ran on after the model");

        for (Time stop : {Time(0), MilliSeconds(1)})
        {
            Result tty = RunOnce(true, true, false, stop);
            NS_TEST_EXPECT_MSG_GT(tty.own, 0, "the line never checked");
            NS_TEST_EXPECT_MSG_EQ(tty.done, base.done, "completion time changed");
            NS_TEST_EXPECT_MSG_EQ(tty.end, base.end, "end of the run changed");
            NS_TEST_EXPECT_MSG_EQ(tty.hops, base.hops, "frames changed");
            NS_TEST_EXPECT_MSG_EQ(tty.events, base.events, "own events not excluded");
            NS_TEST_EXPECT_MSG_EQ(tty.drawn.empty(), false, "nothing drawn on a terminal");
            if (!tty.drawn.empty())
            {
                NS_TEST_EXPECT_MSG_EQ(tty.drawn.front(), '\r', "redraws in place");
                NS_TEST_EXPECT_MSG_EQ(tty.drawn.back(), '\n', "final newline");
                NS_TEST_EXPECT_MSG_EQ((tty.drawn.find(" / 1.000 ms") != std::string::npos),
                                      stop.IsStrictlyPositive(),
                                      "stop time shown iff known: " << tty.drawn);
            }
        }
    }
};

} // namespace

/**
 * \ingroup rocev2
 * \brief The fabric monitors and the progress line.
 */
class Rocev2MonitorTestSuite : public TestSuite
{
  public:
    Rocev2MonitorTestSuite()
        : TestSuite("rocev2-monitor", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new PfcLogTestCase, RoceTestDuration::QUICK);
        AddTestCase(new QueueSamplingTestCase, RoceTestDuration::QUICK);
        AddTestCase(new LinkUtilisationTestCase(RocePfcNetDevice::ETHERNET_WIRE_OVERHEAD),
                    RoceTestDuration::QUICK);
        AddTestCase(new LinkUtilisationTestCase(-22), RoceTestDuration::QUICK); // HPCC simulator's
        AddTestCase(new CnpCountTestCase, RoceTestDuration::QUICK);
        AddTestCase(new SamplersStopTestCase, RoceTestDuration::QUICK);
        AddTestCase(new ProgressTestCase, RoceTestDuration::QUICK);
    }
};

static Rocev2MonitorTestSuite g_monitorTestSuite; //!< the suite
