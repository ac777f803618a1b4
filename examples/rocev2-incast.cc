/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * N senders RDMA-WRITE to one receiver through one PFC switch: the classic
 * incast that fills the receiver's egress queue, trips PFC and, without PFC,
 * overflows the buffer.
 *
 *   host 1 ──┐
 *   host 2 ──┤
 *     ...    ├── switch ── host 0 (receiver)
 *   host N ──┘
 *
 *   ./rocev2 run rocev2-incast --senders=16 --size=1000000 --json=incast.json
 *   ./rocev2 run rocev2-incast --senders=8 --cc=dcqcn --dcqcn-preset=nvidia-cx \
 *       --trace-rate=rates.csv && utils/plot-rates.py rates.csv -o rates.png
 *
 * --cc selects the congestion control of every NIC (none, dcqcn, hpcc,
 * timely, dctcp; dctcp also sets the switches' step marking at 30 KB per
 * 100 Gb/s); --dcqcn-preset selects DCQCN with a published parameter
 * set and the switch ECN marking that goes with it. --trace-rate writes each
 * sender QP's rate (and window) every --trace-interval as CSV.
 *
 * --monitor=PREFIX writes the fabric monitors (RoceMonitor) as CSV: the PFC
 * event log (PREFIX-pfc.csv), egress queues and link utilisation sampled
 * every --sample (PREFIX-queue.csv, PREFIX-link.csv) and per-QP CNP counts
 * (PREFIX-cnp.csv), and adds them to --json; the samplers stop when the
 * last flow completes. On a terminal, stderr shows a progress line unless
 * --quiet.
 *
 * The JSON holds drops, pfc_pause_tx, max_queue_bytes, buffer_leftover_bytes,
 * ecn_marked, cnp_sent and per-flow {src, bytes, fct_us, goodput_gbps}. The
 * program exits 1 if a byte is missing, if a lossless run dropped anything,
 * if the switch buffer did not drain, or if a congestion control (--cc other
 * than none) never acted: no CNP for DCQCN, no rate or window reduction for any.
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;
using namespace ns3::RoceCli;

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    uint32_t senders = 16;
    std::string sizeText = "1000000";
    std::string rate = "100Gbps";
    std::string delay = "1us";
    uint32_t mtu = 1024;
    bool pfc = true;
    double bufferMb = 32;
    std::string cc;
    std::string preset;
    uint32_t hosts = 0;
    std::string baseRtt;
    std::string traceRate;
    std::string traceInterval = "10us";
    std::string pcap;
    std::string json;
    std::string faults;
    bool dryRun = false;
    bool quiet = false;

    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("senders", "Number of senders", senders);
    cmd.AddSize(sizeText);
    cmd.AddRate(rate);
    cmd.AddDelay(delay);
    cmd.AddMtu(mtu);
    cmd.AddValue("pfc", "PFC on the switch (1) or off (0: lossy, drops when full)", pfc);
    cmd.AddValue("buffer", "Switch buffer in MB", bufferMb);
    cmd.AddCongestionControl(cc, preset);
    uint32_t seed = 1;
    cmd.AddSeed(seed);
    cmd.AddValue("hosts",
                 "Hosts on the switch, receiver and senders included (default senders+1)",
                 hosts);
    cmd.AddValue("base-rtt",
                 "BaseRtt of the congestion control (default: the unloaded RTT of this topology)",
                 baseRtt);
    cmd.AddValue("trace-rate",
                 "Write every sender QP's rate and window as CSV to this file",
                 traceRate);
    cmd.AddValue("trace-interval", "Sampling interval of --trace-rate", traceInterval);
    cmd.AddValue("pcap", "Write pcap files with this prefix", pcap);
    cmd.AddJson(json);
    cmd.AddFaults(faults);
    cmd.AddValue("dry-run",
                 "Print the estimated size of the run (hosts, packets, memory) and stop",
                 dryRun);
    std::string monitor;
    std::string sampleText = "10us";
    cmd.AddMonitor(monitor, sampleText);
    cmd.AddQuiet(quiet);
    cmd.Parse(argc, argv);

    ROCE_ERROR_IF(senders == 0, "--senders must be at least 1");
    ROCE_ERROR_IF(!(bufferMb > 0), "--buffer=" << bufferMb << " must be > 0 MB");
    if (hosts == 0)
    {
        hosts = senders + 1;
    }
    ROCE_ERROR_IF(hosts < uint64_t(senders) + 1,
                  "--hosts=" << hosts << " leaves no room for " << senders
                             << " senders and the receiver");
    const RoceCcHelper ccChoice = RoceCli::MakeCongestionControl(cc, preset);
    cc = ccChoice.GetAlgorithm();
    preset = ccChoice.GetDcqcnPreset();
    const uint64_t size = ParseBytes("size", sizeText);
    const DataRate linkRate = ParseRate("rate", rate);
    const Time linkDelay = ParseTime("delay", delay);
    const Time sampleEvery = ParsePositiveTime("trace-interval", traceInterval);
    const Time monitorEvery = ParsePositiveTime("sample", sampleText);
    Time rtt;
    if (!baseRtt.empty())
    {
        rtt = ParsePositiveTime("base-rtt", baseRtt);
    }

    // The size of the run, estimated before building it. Peak memory grows
    // by about HOST_BYTES per host (its node, NIC, QP pair, link and switch
    // port) and PACKET_BYTES per frame in the switch buffer, at most all the
    // data packets or a full buffer; fitted to the peak RSS of runs with
    // 1,000 and 4,000 senders (45 and 146 MB, 10 packets each, within 2%).
    // Packet hops are the data packets' crossings of their two links.
    constexpr double HOST_BYTES = 21e3;
    constexpr double PACKET_BYTES = 1.3e3;
    constexpr double BASE_BYTES = 11e6;
    const uint64_t packets = uint64_t(senders) * ((size + mtu - 1) / std::max(mtu, 1U));
    const double bufferedFrames =
        std::min(double(packets), bufferMb * 1e6 / (mtu + RoceNetDevice::DATA_WIRE_OVERHEAD));
    const double memory = BASE_BYTES + hosts * HOST_BYTES + bufferedFrames * PACKET_BYTES;
    const bool large = senders > 1000 || memory > 1e9 || 2.0 * packets > 1e9;
    std::ostringstream estimate;
    estimate << hosts << " hosts, " << packets << " data packets (" << 2 * packets
             << " packet hops), about " << std::fixed << std::setprecision(0) << memory / 1e6
             << " MB of memory";
    if (dryRun)
    {
        std::cout << "rocev2-incast: dry run: " << estimate.str() << (large ? " (large)" : "")
                  << "\n";
        return 0;
    }
    if (large && !quiet)
    {
        std::cerr << "rocev2-incast: warning: a large run: " << estimate.str()
                  << "; it may take minutes and run out of memory (--quiet hides this "
                     "warning, --dry-run prints it and stops)\n";
    }

    NodeContainer sw(1);
    NodeContainer hostNodes(hosts);
    RoceSwitchHelper switches;
    switches.SetMmuAttribute(
        "BufferSize",
        QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(bufferMb * 1e6))));
    switches.SetMmuAttribute("PfcEnabled", BooleanValue(pfc));

    RoceHelper roce;
    ccChoice.Configure(roce, switches);
    switches.Install(sw);

    roce.SetDeviceAttribute("DataRate", DataRateValue(linkRate));
    roce.SetChannelAttribute("Delay", TimeValue(linkDelay));
    roce.SetNicAttribute("PayloadMtu", UintegerValue(mtu));
    // The unloaded RTT: a data packet and its ACK each cross two links.
    if (baseRtt.empty())
    {
        rtt = 4 * linkDelay + 2 * linkRate.CalculateBytesTxTime(mtu + 82 + 24) +
              2 * linkRate.CalculateBytesTxTime(84);
    }
    roce.SetCongestionControlAttribute("BaseRtt", TimeValue(rtt));
    // Without PFC a lost tail waits for the timer: keep it short.
    roce.SetQpAttribute("RetransmitTimeout", TimeValue(MicroSeconds(pfc ? 10000 : 500)));
    roce.SetQpAttribute("RetryCount", UintegerValue(50));
    NetDeviceContainer nics;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        nics.Add(roce.Install(hostNodes.Get(h), sw.Get(0)).Get(0));
    }
    RoceSwitchHelper::PopulateRoutes();
    // The switches' random streams (ECN marking) from 1000, as every fabric
    // example and the test suites number them: the same scenario gives the
    // same run here and in rocev2-cc's DCQCN hpcc-sim incast.
    RoceSwitchHelper::AssignStreams(1000);
    RoceFaultHelper faultHelper;
    faultHelper.AddName("switch", sw.Get(0));
    for (uint32_t h = 0; h < hosts; ++h)
    {
        faultHelper.AddName("host" + std::to_string(h), hostNodes.Get(h));
    }
    RoceCli::LoadFaults(faultHelper, faults);
    if (!pcap.empty())
    {
        roce.EnablePcapAll(pcap);
    }

    struct Flow
    {
        uint32_t src;
        Ptr<RoceQueuePair> qp;
        Time done;
    };

    // Evidence that the congestion control acted: rate or window reductions
    // of the sender QPs, read off their Rate and Window traces.
    uint64_t ccReductions = 0;
    auto countRate = [&ccReductions](double before, double after) {
        ccReductions += after < before ? 1 : 0;
    };
    auto countWindow = [&ccReductions](uint64_t before, uint64_t after) {
        ccReductions += after < before ? 1 : 0;
    };
    Ptr<RoceMonitor> monitors;
    if (!monitor.empty())
    {
        monitors = CreateObject<RoceMonitor>();
        monitors->EnablePfcLog();
        monitors->EnableQueueSampling(monitorEvery);
        monitors->EnableLinkUtilisation(monitorEvery);
    }
    // The run ends when the last flow completes: stop the samplers and the
    // progress line then, or they would keep Simulator::Run() going.
    uint32_t pending = senders;
    auto flowDone = [&pending, &monitors]() {
        if (--pending == 0)
        {
            if (monitors)
            {
                monitors->Stop();
            }
            RoceProgress::Disable();
        }
    };
    std::vector<Flow> flows(senders);
    for (uint32_t s = 0; s < senders; ++s)
    {
        flows[s].src = s + 1;
        flows[s].qp = roce.CreateQp(nics.Get(s + 1), nics.Get(0)).first;
        Ptr<RoceCongestionOps> c = flows[s].qp->GetCongestionControl();
        // DCQCN reports its decreases itself (below): a Rate callback would
        // keep its rate-increase timer running after the flow completes.
        if (!DynamicCast<RoceCcDcqcn>(c))
        {
            c->TraceConnectWithoutContext("Rate", Callback<void, double, double>(countRate));
        }
        c->TraceConnectWithoutContext("Window", Callback<void, uint64_t, uint64_t>(countWindow));
        Flow* f = &flows[s];
        f->qp->PostWrite(
            size,
            Callback<void, const RoceCompletion&>([f, &flowDone](const RoceCompletion& c) {
                f->done = c.completed;
                flowDone();
            }));
    }

    std::ofstream rateOut;
    std::function<void()> sample;
    if (!traceRate.empty())
    {
        rateOut.open(traceRate);
        ROCE_ERROR_IF(!rateOut, "cannot write --trace-rate=" << traceRate);
        rateOut << "time_us,src,qpn,rate_gbps,window_bytes\n";
        sample = [&]() {
            bool busy = false;
            for (const auto& f : flows)
            {
                Ptr<RoceCongestionOps> c = f.qp->GetCongestionControl();
                rateOut << Simulator::Now().GetNanoSeconds() / 1e3 << "," << f.src << ","
                        << f.qp->GetQpn() << "," << c->GetRate() / 1e9 << "," << c->GetWindow()
                        << "\n";
                busy = busy || f.qp->HasOutstanding();
            }
            if (busy)
            {
                Simulator::Schedule(sampleEvery, sample);
            }
        };
        Simulator::ScheduleNow(sample);
    }

    RoceProgress::Enable(Time(0), quiet);
    Simulator::Run();
    RoceProgress::Disable();
    RoceCli::PrintFaults(faultHelper, std::cout);
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(!faults.empty(), std::cout);

    if (monitors)
    {
        monitors->WriteCsv(monitor);
    }
    RoceFabricStats stats = RoceFabricStats::Collect();
    uint64_t expected = uint64_t(senders) * size;
    Time last;
    for (const auto& f : flows)
    {
        last = std::max(last, f.done);
    }
    uint64_t cnpReceived = 0;
    for (const auto& f : flows)
    {
        cnpReceived += f.qp->GetStats().cnpReceived;
        if (Ptr<RoceCcDcqcn> d = DynamicCast<RoceCcDcqcn>(f.qp->GetCongestionControl()))
        {
            ccReductions += d->GetDecreases();
        }
    }
    std::cout << std::fixed << std::setprecision(3);
    std::cout << "rocev2-incast: " << senders << ":1 at " << rate << ", " << size
              << " B per sender, PFC " << (pfc ? "on" : "off") << ", buffer " << bufferMb
              << " MB, cc " << cc << (preset.empty() ? "" : " (" + preset + ")") << "\n"
              << "  delivered " << stats.bytesDelivered << "/" << expected << " B, last FCT "
              << last.GetMicroSeconds() << " us, aggregate "
              << (last.IsStrictlyPositive() ? stats.bytesDelivered * 8.0 / last.GetNanoSeconds()
                                            : 0)
              << " Gb/s\n"
              << "  drops " << stats.drops << ", PFC pauses sent " << stats.pfcPauseTx
              << ", max queue " << stats.maxQueueBytes << " B, ECN marks " << stats.ecnMarked
              << ", buffer left " << stats.bufferedBytes << " B, retransmits " << stats.retransmits
              << "\n"
              << "  CNPs received " << cnpReceived << ", rate/window reductions " << ccReductions
              << "\n";
    stats.WriteBenchLines(std::cout);

    if (!json.empty())
    {
        std::ofstream out(json);
        ROCE_ERROR_IF(!out, "cannot write --json=" << json);
        out << std::setprecision(10) << "{\n"
            << "  \"senders\": " << senders << ",\n"
            << "  \"size\": " << size << ",\n"
            << "  \"rate\": \"" << rate << "\",\n"
            << "  \"pfc\": " << (pfc ? "true" : "false") << ",\n"
            << "  \"cc\": \"" << cc << "\",\n"
            << "  \"dcqcn_preset\": \"" << preset << "\",\n";
        stats.WriteJsonMembers(out);
        if (monitors)
        {
            out << ",\n";
            monitors->WriteJsonMembers(out);
        }
        out << ",\n  \"flows\": [\n";
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            double fct = flows[i].done.GetSeconds() * 1e6;
            const RoceQueuePair::Stats& qs = flows[i].qp->GetStats();
            out << "    {\"src\": " << flows[i].src << ", \"bytes\": " << size
                << ", \"fct_us\": " << fct << ", \"cnp_received\": " << qs.cnpReceived
                << ", \"goodput_gbps\": " << (fct > 0 ? size * 8.0 / (fct * 1e3) : 0) << "}"
                << (i + 1 < flows.size() ? ",\n" : "\n");
        }
        out << "  ]";
        RoceCli::CloseJson(out, invariants);
    }
    bool ok = invariants.Ok() && stats.bytesDelivered == expected && stats.bufferedBytes == 0 &&
              (!pfc || !faults.empty() || stats.drops == 0);
    // With a congestion control the incast must have made it act: DCQCN
    // received CNPs and cut a rate, the others cut a rate or a window. PFC
    // alone keeps such a run lossless, so the checks above would pass without.
    if (monitors)
    {
        // The PFC log has one row per PFC frame sent: as many XOFF rows as
        // pauses the devices count.
        uint64_t xoffRows = 0;
        for (const RoceMonitor::PfcEvent& e : monitors->GetPfcLog())
        {
            xoffRows += e.xoff ? 1 : 0;
        }
        if (xoffRows != stats.pfcPauseTx)
        {
            std::cout << "  FAIL: the PFC log has " << xoffRows << " XOFF rows for "
                      << stats.pfcPauseTx << " pauses sent\n";
            ok = false;
        }
    }
    if (cc == "dcqcn" && cnpReceived == 0)
    {
        std::cout << "  FAIL: DCQCN but no CNP received\n";
        ok = false;
    }
    if (cc != "none" && ccReductions == 0)
    {
        std::cout << "  FAIL: congestion control " << cc << " never reduced a rate or window\n";
        ok = false;
    }
    Simulator::Destroy();
    return ok ? 0 : 1;
}
