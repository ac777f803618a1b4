/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A PFC deadlock from a routing loop, found by RoceDeadlockDetector and
 * broken by the switches' PFC watchdog.
 *
 *     host 0        host 1
 *       |             |
 *     sw 0 ───────▶ sw 1
 *       ▲             │
 *       │             ▼
 *     sw 3 ◀─────── sw 2
 *       |             |
 *     host 3        host 2
 *
 * --switches switches form a ring with one host each. Static routes
 * (RoceSwitch::AddRoute, no shortest paths) send all traffic clockwise, and
 * every host writes --size bytes to the host --hops switches further on, so
 * every ring link carries --hops flows at once and each switch's clockwise
 * queue holds frames that wait for the next switch's clockwise queue: a
 * cyclic buffer dependency. With PFC only (no congestion control) and a
 * small buffer the dependency closes: every clockwise queue is paused by the
 * next switch, whose buffer is full of frames for its own paused clockwise
 * queue. Throughput falls to zero and no flow completes.
 *
 * The detector checks the wait-for graph of paused queues every --check and
 * prints each cycle it finds, e.g.
 *   t=0.100ms deadlock: sw4/p1/pri3 -> sw5/p2/pri3 -> sw6/p2/pri3 -> sw7/p2/pri3 -> sw4/p1/pri3
 * With --watchdog=1 every switch port runs a PFC watchdog (--timeout,
 * --interval, --recovery, --action): a queue paused with frames for the
 * timeout is flushed (drop) or sent despite the pause (forward), the cycle
 * opens, and the queue pairs' go-back-N and retransmission timeout (--rto)
 * resend what was dropped, so every flow completes.
 *
 *   ./rocev2 run rocev2-pfc-deadlock                 # deadlock, reported
 *   ./rocev2 run rocev2-pfc-deadlock --watchdog=1    # recovers; FCTs printed
 *
 * The program exits 1 if a flow failed to complete while no deadlock
 * persists (a stall the detector missed), if a deadlock persists with the
 * watchdog on, or if, with every flow complete, a switch buffer did not drain.
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;
using namespace ns3::RoceCli;

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    uint32_t nSwitches = 4;
    uint32_t hops = 2;
    std::string sizeText = "1MB";
    std::string rate = "100Gbps";
    std::string delay = "1us";
    std::string bufferText = "300KB";
    bool watchdog = false;
    std::string timeoutText = "1ms";
    std::string intervalText = "100us";
    std::string recoveryText = "1ms";
    std::string action = "drop";
    std::string checkText = "100us";
    std::string rtoText = "1ms";
    std::string endText = "50ms";
    uint32_t maxEvents = 20;

    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("switches", "Switches in the ring (one host each), at least 3", nSwitches);
    cmd.AddValue("hops", "Each host writes to the host this many switches clockwise", hops);
    cmd.AddSize(sizeText);
    cmd.AddRate(rate);
    cmd.AddDelay(delay);
    cmd.AddValue("buffer", "Buffer of each switch (e.g. 300KB)", bufferText);
    cmd.AddValue("watchdog", "PFC watchdog on every switch port (1) or off (0)", watchdog);
    cmd.AddValue("timeout", "Watchdog: pause with frames that fires it", timeoutText);
    cmd.AddValue("interval", "Watchdog: time between checks", intervalText);
    cmd.AddValue("recovery", "Watchdog: time a fired queue ignores pauses", recoveryText);
    cmd.AddValue("action", "Watchdog action: drop or forward", action);
    cmd.AddValue("check", "Deadlock detector: time between checks", checkText);
    cmd.AddValue("rto", "Retransmission timeout of the queue pairs", rtoText);
    cmd.AddValue("end", "Stop the run at this time", endText);
    cmd.AddValue("events", "Print at most this many watchdog events", maxEvents);
    uint32_t seed = 1;
    cmd.AddSeed(seed);
    cmd.Parse(argc, argv);

    ROCE_ERROR_IF(nSwitches < 3, "--switches=" << nSwitches << " must be at least 3");
    ROCE_ERROR_IF(hops < 1 || hops >= nSwitches,
                  "--hops=" << hops << " out of range 1.." << nSwitches - 1);
    ROCE_ERROR_IF(action != "drop" && action != "forward",
                  "--action=" << action << " is not drop or forward");
    const uint64_t size = ParseBytes("size", sizeText);
    const uint64_t buffer = ParseBytes("buffer", bufferText);
    const DataRate linkRate = ParseRate("rate", rate);
    const Time linkDelay = ParseTime("delay", delay);
    const Time timeout = ParsePositiveTime("timeout", timeoutText);
    const Time interval = ParsePositiveTime("interval", intervalText);
    const Time recovery = ParsePositiveTime("recovery", recoveryText);
    const Time check = ParsePositiveTime("check", checkText);
    const Time rto = ParsePositiveTime("rto", rtoText);
    const Time end = ParsePositiveTime("end", endText);

    Config::SetDefault("ns3::RocePfcWatchdog::Enabled", BooleanValue(watchdog));
    Config::SetDefault("ns3::RocePfcWatchdog::Timeout", TimeValue(timeout));
    Config::SetDefault("ns3::RocePfcWatchdog::Interval", TimeValue(interval));
    Config::SetDefault("ns3::RocePfcWatchdog::RecoveryTime", TimeValue(recovery));
    Config::SetDefault(
        "ns3::RocePfcWatchdog::Action",
        EnumValue(action == "drop" ? RocePfcWatchdog::DROP : RocePfcWatchdog::FORWARD));

    // Hosts first, so that switch node ids follow them (sw N .. sw 2N-1).
    NodeContainer hosts(nSwitches);
    NodeContainer sws(nSwitches);
    RoceSwitchHelper switchHelper;
    switchHelper.SetMmuAttribute("BufferSize",
                                 QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, buffer)));
    switchHelper.Install(sws);
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", DataRateValue(linkRate));
    roce.SetChannelAttribute("Delay", TimeValue(linkDelay));
    roce.SetQpAttribute("RetransmitTimeout", TimeValue(rto));
    roce.SetQpAttribute("RetryCount", UintegerValue(1000));
    std::vector<Ptr<RoceNetDevice>> nics;
    std::vector<uint32_t> hostPort;
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        NetDeviceContainer d = roce.Install(hosts.Get(i), sws.Get(i));
        nics.push_back(DynamicCast<RoceNetDevice>(d.Get(0)));
        hostPort.push_back(DynamicCast<RoceSwitchPort>(d.Get(1))->GetPortIndex());
    }
    std::vector<uint32_t> clockwise(nSwitches);
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        NetDeviceContainer d = roce.Install(sws.Get(i), sws.Get((i + 1) % nSwitches));
        clockwise[i] = DynamicCast<RoceSwitchPort>(d.Get(0))->GetPortIndex();
    }
    // The routing loop: every switch sends every remote host clockwise.
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        Ptr<RoceSwitch> sw = sws.Get(i)->GetObject<RoceSwitch>();
        for (uint32_t h = 0; h < nSwitches; ++h)
        {
            sw->AddRoute(nics[h]->GetIpv4Address(),
                         Ipv4Mask("255.255.255.255"),
                         {h == i ? hostPort[i] : clockwise[i]});
        }
    }
    RoceSwitchHelper::AssignStreams(1);

    // Watchdog events, printed as they happen.
    uint32_t triggers = 0;
    uint32_t restores = 0;
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        Ptr<RoceSwitch> sw = sws.Get(i)->GetObject<RoceSwitch>();
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            RoceQueueId id{sws.Get(i)->GetId(), p, 0};
            sw->GetPort(p)->TraceConnectWithoutContext(
                "PfcWatchdogTrigger",
                Callback<void, uint8_t, Time>([id, &triggers, maxEvents](uint8_t prio, Time s) {
                    RoceQueueId q = id;
                    q.priority = prio;
                    if (++triggers <= maxEvents)
                    {
                        std::cout << "  t=" << std::fixed << std::setprecision(3)
                                  << Simulator::Now().GetNanoSeconds() / 1e6
                                  << "ms watchdog: " << q.ToString() << " fired after "
                                  << s.GetNanoSeconds() / 1e6 << "ms paused with frames\n";
                    }
                }));
            sw->GetPort(p)->TraceConnectWithoutContext(
                "PfcWatchdogRestore",
                Callback<void, uint8_t>([&restores](uint8_t) { ++restores; }));
        }
    }

    Ptr<RoceDeadlockDetector> detector = CreateObject<RoceDeadlockDetector>();
    detector->SetAttribute("Interval", TimeValue(check));
    detector->TraceConnectWithoutContext(
        "Deadlock",
        Callback<void, const RoceDeadlockReport&>(
            [](const RoceDeadlockReport& r) { std::cout << "  " << r.ToString() << "\n"; }));
    detector->TraceConnectWithoutContext(
        "DeadlockEnd",
        Callback<void, const RoceDeadlockReport&>([](const RoceDeadlockReport& r) {
            std::cout << "  t=" << std::fixed << std::setprecision(3)
                      << r.ended.GetNanoSeconds() / 1e6 << "ms deadlock ended (found at "
                      << r.detected.GetNanoSeconds() / 1e6 << "ms)\n";
        }));

    struct Flow
    {
        uint32_t src;
        uint32_t dst;
        Ptr<RoceQueuePair> qp;
        Ptr<RoceQueuePair> remote;
        bool done{false};
        bool success{false};
        Time fct;
    };

    std::vector<Flow> flows(nSwitches);
    uint32_t pending = nSwitches;
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        Flow& f = flows[i];
        f.src = i;
        f.dst = (i + hops) % nSwitches;
        auto qps = roce.CreateQp(nics[f.src], nics[f.dst]);
        f.qp = qps.first;
        f.remote = qps.second;
        Flow* fp = &f;
        f.qp->PostWrite(size,
                        Callback<void, const RoceCompletion&>(
                            [fp, &pending, detector](const RoceCompletion& c) {
                                fp->done = true;
                                fp->success = c.success;
                                fp->fct = c.completed - c.posted;
                                if (--pending == 0)
                                {
                                    detector->Stop();
                                }
                            }));
    }

    std::cout << "rocev2-pfc-deadlock: " << nSwitches << " switches in a ring at " << rate
              << ", each host writes " << size << " B " << hops << " hops clockwise, buffer "
              << buffer << " B, watchdog "
              << (watchdog ? "on (timeout " + timeoutText + ", interval " + intervalText +
                                 ", recovery " + recoveryText + ", " + action + ")"
                           : std::string("off"))
              << "\n";
    detector->Start();
    Simulator::Stop(end);
    Simulator::Run();
    // One last look at the fabric as the run ends.
    detector->Check();
    // The watchdog's drops are what a PFC storm or deadlock costs: faults.
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(watchdog, std::cout);

    RoceFabricStats stats = RoceFabricStats::Collect();
    uint32_t completed = 0;
    Time lastFct;
    std::cout << std::fixed << std::setprecision(3);
    for (const Flow& f : flows)
    {
        std::cout << "  flow " << f.src << " -> " << f.dst << ": ";
        if (f.done && f.success)
        {
            ++completed;
            lastFct = std::max(lastFct, f.fct);
            std::cout << "complete, FCT " << f.fct.GetNanoSeconds() / 1e3 << " us, "
                      << f.qp->GetStats().retransmittedPackets << " packets resent\n";
        }
        else
        {
            std::cout << (f.done ? "failed" : "not complete") << ", "
                      << f.remote->GetStats().bytesDelivered << " of " << size << " B delivered\n";
        }
    }
    uint64_t wdDrops = 0;
    for (uint32_t i = 0; i < nSwitches; ++i)
    {
        Ptr<RoceSwitch> sw = sws.Get(i)->GetObject<RoceSwitch>();
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            RocePfcWatchdog::Stats s = sw->GetPort(p)->GetPfcWatchdogStats();
            for (uint64_t d : s.droppedFrames)
            {
                wdDrops += d;
            }
        }
    }
    std::vector<RoceDeadlockReport> active = detector->GetActiveReports();
    const auto& reports = detector->GetReports();
    std::cout << "  summary: " << reports.size() << " deadlock(s) found";
    if (!reports.empty())
    {
        std::cout << ", first at " << reports.front().detected.GetNanoSeconds() / 1e6 << " ms";
    }
    std::cout << ", " << active.size() << " persisting at "
              << Simulator::Now().GetNanoSeconds() / 1e6 << " ms; flows complete " << completed
              << "/" << nSwitches;
    if (completed == nSwitches)
    {
        std::cout << ", last FCT " << lastFct.GetNanoSeconds() / 1e3 << " us";
    }
    std::cout << "; watchdog triggers " << triggers << ", restores " << restores << ", drops "
              << wdDrops << "; drops " << stats.drops << ", retransmits " << stats.retransmits
              << ", timeouts " << stats.timeouts << ", buffer left " << stats.bufferedBytes
              << " B\n";

    bool ok = true;
    if (completed < nSwitches && active.empty())
    {
        std::cout << "  FAIL: flows did not complete, yet no deadlock persists\n";
        ok = false;
    }
    if (watchdog && !active.empty())
    {
        std::cout << "  FAIL: a deadlock persists with the watchdog on\n";
        ok = false;
    }
    if (completed == nSwitches && stats.bufferedBytes != 0)
    {
        std::cout << "  FAIL: every flow completed but " << stats.bufferedBytes
                  << " B remain in switch buffers\n";
        ok = false;
    }
    Simulator::Destroy();
    return ok && invariants.Ok() ? 0 : 1;
}
