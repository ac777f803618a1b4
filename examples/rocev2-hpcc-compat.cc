/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs an experiment of the HPCC-lineage simulators unmodified: their
 * config.txt, or their topology and flow files with a congestion control
 * named on the command line; or a web-search-like load generated on the
 * topology. Writes that lineage's FCT and PFC files, our monitors' CSVs, and
 * a JSON summary (FCT slowdown percentiles, PFC pauses, events, packet hops,
 * simulated and wall time).
 *
 *   ./rocev2 run rocev2-hpcc-compat --config=mix/config.txt
 *   ./rocev2 run rocev2-hpcc-compat --topology=data/hpcc-format/fat-tree-320.txt \
 *       --flows=data/hpcc-format/websearch-320-30pct-10ms.txt --cc=dcqcn \
 *       --dcqcn-preset=hpcc-sim --fct=fct.txt --json=run.json
 *   ./rocev2 run rocev2-hpcc-compat --cc=hpcc --load=0.5 --duration=1ms --json=run.json
 *   ./rocev2 run rocev2-hpcc-compat --config=examples/hpcc/config-tiny.txt --monitor=run --rates=1
 *   ./rocev2 run rocev2-hpcc-compat --cdf=data/cdf/fb-hadoop.txt --load=0.3 --duration=10ms \
 *       --start=2s --flows-out=fb-hadoop-30pct.txt
 *
 * --config with --load runs the config's settings on flows generated on its
 * topology instead of its FLOW_FILE (how sweeps/cc-websearch.json varies the
 * load under the HPCC simulator's run.py settings).
 * --flows-out writes the flows (generated with --load, or read) as an HPCC
 * flow file and stops: the HPCC simulator and this program then read the
 * same file. --start shifts generated arrivals (that lineage's generator
 * starts its flows at 2 s).
 */

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

using namespace ns3;
using namespace ns3::RoceCli;

namespace
{

/** \return a file to write, or an abort naming the flag */
std::unique_ptr<std::ofstream>
OpenOut(const std::string& flag, const std::string& path)
{
    if (path.empty())
    {
        return nullptr;
    }
    auto out = std::make_unique<std::ofstream>(path);
    ROCE_ERROR_IF(!*out, "cannot write " << flag << "=" << path);
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    const auto wallStart = std::chrono::steady_clock::now();
    std::string config;
    std::string topologyFile;
    std::string flowFile;
    std::string cc; // with no --dcqcn-preset either: DCQCN with the hpcc-sim preset
    std::string preset;
    std::string cdf; // data/cdf/websearch.txt unless given
    double load = 0;
    std::string duration; // 1ms unless given
    std::string fct;
    std::string pfc;
    std::string json;
    std::string faults;
    std::string monitor;
    std::string sample = "10us";
    std::string stop;
    std::string start;
    std::string flowsOut;
    uint32_t mtu = 0; // 1000 unless given
    bool quiet = false;
    bool rates = false;
    std::string framing = "ethernet";
    std::string fidelity = "packet";

    RoceCommandLine cmd(__FILE__);
    cmd.Usage("Run an HPCC-lineage experiment (config.txt, or topology and flow files) and "
              "report FCT slowdown, PFC and run statistics.");
    cmd.AddValue("config", "An HPCC-lineage config.txt (its keys set everything)", config);
    cmd.AddValue("framing",
                 "With --config: ethernet (RoCEv2 frames on Ethernet, 1,082 wire bytes per "
                 "1,000-byte payload) or hpcc-sim (the HPCC simulator's packets, 1,036 with "
                 "DCQCN; not for CC_MODE 3)",
                 framing);
    cmd.AddValue("topology", "An HPCC-format topology file (without --config)", topologyFile);
    cmd.AddValue("flows", "An HPCC-format flow file (without --config)", flowFile);
    cmd.AddCongestionControl(cc, preset); // neither given: --dcqcn-preset=hpcc-sim
    cmd.AddGeneratedFlows(cdf, load, duration);
    cmd.AddMtu(mtu); // without --config; 1000 unless given
    cmd.AddValue("fct", "Write the HPCC-format FCT file here", fct);
    cmd.AddValue("pfc", "Write the HPCC-format PFC event file here", pfc);
    cmd.AddJson(json);
    cmd.AddFaults(faults);
    cmd.AddMonitor(monitor, sample);
    cmd.AddValue("rates", "With --monitor: also sample every queue pair's rate", rates);
    cmd.AddValue("stop", "Stop at this simulated time even if flows remain", stop);
    cmd.AddValue("start", "With --load: the first possible arrival (default 0s)", start);
    cmd.AddValue("flows-out", "Write the flows as an HPCC flow file and stop", flowsOut);
    cmd.AddQuiet(quiet);
    uint32_t seed = 1;
    cmd.AddSeed(seed);
    cmd.AddFidelity(fidelity);
    cmd.Parse(argc, argv);

    ROCE_ERROR_IF(!config.empty() && (!topologyFile.empty() || !flowFile.empty()),
                  "--config sets the topology and flows: give either --config or "
                  "--topology/--flows");
    ROCE_ERROR_IF(load < 0 || load > 1, "--load=" << load << " is not in [0, 1]");
    const RoceHpccConfig::Framing framingChoice =
        RoceHpccConfig::ParseFraming(framing, "--framing");
    ROCE_ERROR_IF(framingChoice != RoceHpccConfig::ETHERNET && config.empty(),
                  "--framing=" << framing << " sizes frames as the HPCC simulator's for a "
                               << "config's CC_MODE: give --config");
    ROCE_ERROR_IF(load > 0 && !flowFile.empty(),
                  "--load generates the flows: give either --load or --flows");
    // What a config file sets is not also taken from the command line.
    for (const auto& given : {std::make_pair("cc", !cc.empty()),
                              std::make_pair("dcqcn-preset", !preset.empty()),
                              std::make_pair("mtu", mtu != 0)})
    {
        ROCE_ERROR_IF(!config.empty() && given.second,
                      "--" << given.first << " with --config: the config file sets it (CC_MODE, "
                           << "its DCQCN keys, PACKET_PAYLOAD_SIZE)");
    }
    ROCE_ERROR_IF(load == 0 && (!cdf.empty() || !duration.empty() || !start.empty()),
                  "--cdf, --duration and --start shape a generated load: give --load too");
    // The lineage's own DCQCN unless a choice was made (--cc=dcqcn alone
    // means nvidia-cx, as in every example).
    const RoceCcHelper ccChoice =
        RoceCli::MakeCongestionControl(cc, preset, RoceHpccConfig::DCQCN_PRESET);
    if (config.empty())
    {
        cc = ccChoice.GetAlgorithm();
        preset = ccChoice.GetDcqcnPreset();
    }
    cdf = cdf.empty() ? "data/cdf/websearch.txt" : cdf;
    duration = duration.empty() ? "1ms" : duration;
    mtu = mtu == 0 ? 1000 : mtu;
    ROCE_ERROR_IF(config.empty() && load == 0 && flowFile.empty(),
                  "nothing to run: give --config, --flows or --load");
    ROCE_ERROR_IF(rates && monitor.empty(), "--rates=1 needs --monitor=PREFIX");
    const Time sampleEvery = ParsePositiveTime("sample", sample);

    RoceHelper roce;
    RoceSwitchHelper switches;
    RoceHpccConfig hpcc;
    if (!config.empty())
    {
        hpcc = RoceHpccConfig::Read(FindDataFile(config));
        hpcc.framing = framingChoice;
        topologyFile = FindDataFile(hpcc.Resolve(hpcc.topologyFile));
        // With --load the config's settings run generated flows instead of
        // its FLOW_FILE.
        flowFile = load > 0 ? "" : FindDataFile(hpcc.Resolve(hpcc.flowFile));
        fct = fct.empty() ? hpcc.fctFile : fct;
        pfc = pfc.empty() ? hpcc.pfcFile : pfc;
        cc = hpcc.GetCcName();
        if (!hpcc.GetWarning().empty())
        {
            std::cerr << "warning: " << hpcc.GetWarning() << "\n";
        }
    }
    if (topologyFile.empty())
    {
        topologyFile = "data/hpcc-format/fat-tree-320.txt";
    }
    topologyFile = FindDataFile(topologyFile);
    flowFile = FindDataFile(flowFile);
    const RoceHpccFormat::Topology topology = RoceHpccFormat::ReadTopology(topologyFile);
    if (!config.empty())
    {
        hpcc.Apply(roce, switches, topology);
    }
    else
    {
        roce.SetNicAttribute("PayloadMtu", UintegerValue(mtu));
        ccChoice.Configure(roce, switches);
    }
    NodeContainer nodes =
        RoceHpccFormat::Build(topology, roce, switches, hpcc.GetErrorRatePerLink());
    if (!config.empty())
    {
        hpcc.ApplyEcnByRate();
    }
    RoceSwitchHelper::AssignStreams(1000);
    RoceFaultHelper faultHelper;
    ROCE_ERROR_IF(fidelity == "flow" && (!monitor.empty() || !pfc.empty() ||
                                         (!config.empty() && !hpcc.qlenFile.empty())),
                  "--fidelity=flow has no queues or PFC to sample: drop --monitor, --pfc and "
                  "the config's QLEN_MON_FILE");
    Ptr<RoceFlowEngine> engine = RoceCli::ApplyFidelity(fidelity, hpcc.GetErrorRatePerLink() > 0);
    RoceCli::LoadFaults(faultHelper, faults);
    faultHelper.AssignStreams(2000);

    // The flows: from the file, or generated on the topology's hosts.
    std::vector<RoceFlowSpec> flows;
    if (load > 0)
    {
        const std::vector<uint32_t> hosts = RoceHpccFormat::Hosts(topology);
        ROCE_ERROR_IF(hosts.size() < 2,
                      "--load: the topology has " << hosts.size() << " hosts; flows need two");
        const DataRate hostRate = RoceHelper::GetNic(nodes.Get(hosts[0]))->GetDataRate();
        const RoceSizeCdf sizes = RoceSizeCdf::Read(FindDataFile(cdf));
        flows = RoceWorkloadHelper::Poisson(hosts,
                                            sizes,
                                            load,
                                            hostRate,
                                            start.empty() ? Seconds(0) : ParseTime("start", start),
                                            ParsePositiveTime("duration", duration),
                                            1);
    }
    else
    {
        flows = RoceWorkloadHelper::FromHpcc(RoceHpccFormat::ReadFlows(flowFile, topology));
    }
    ROCE_ERROR_IF(flows.empty(), "no flows to run");
    if (!flowsOut.empty())
    {
        std::ofstream out(flowsOut);
        ROCE_ERROR_IF(!out, "--flows-out=" << flowsOut << ": cannot be written");
        RoceWorkloadHelper::WriteHpccFlowFile(out, flows);
        ROCE_ERROR_IF(!out.good(), "--flows-out=" << flowsOut << ": write failed");
        if (!quiet)
        {
            std::cout << "wrote " << flows.size() << " flows to " << flowsOut << "\n";
        }
        Simulator::Destroy();
        return 0;
    }
    Ptr<RoceFctStats> fctStats = CreateObject<RoceFctStats>();
    RoceWorkloadHelper workload;
    workload.Install(nodes, flows, fctStats);

    Ptr<RoceMonitor> monitors = CreateObject<RoceMonitor>();
    const bool wantQueue = !monitor.empty() || !hpcc.qlenFile.empty();
    if (!pfc.empty() || !monitor.empty())
    {
        monitors->EnablePfcLog();
    }
    // Samplers start with the first flow (that lineage's flows start at 2 s).
    Time firstStart = flows.front().start;
    for (const auto& f : flows)
    {
        firstStart = std::min(firstStart, f.start);
    }
    Simulator::Schedule(firstStart, [=]() {
        if (wantQueue)
        {
            monitors->EnableQueueSampling(sampleEvery);
        }
        if (!monitor.empty())
        {
            monitors->EnableLinkUtilisation(sampleEvery);
        }
        if (!monitor.empty() && rates)
        {
            monitors->EnableRateSampling(sampleEvery);
        }
    });
    fctStats->SetAllDoneCallback(Callback<void>([monitors]() {
        monitors->Stop();
        RoceProgress::Disable();
        Simulator::Stop();
    }));
    Time stopAt = stop.empty() ? hpcc.stopTime : ParsePositiveTime("stop", stop);
    if (stopAt.IsStrictlyPositive())
    {
        Simulator::Stop(stopAt);
    }
    RoceProgress::Enable(stopAt, quiet);

    Simulator::Run();

    RoceProgress::Disable();
    RoceCli::PrintFaults(faultHelper, std::cout);
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(!faults.empty(), std::cout);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    const Time simTime = Simulator::Now();
    const uint64_t events = Simulator::GetEventCount() - RoceProgress::GetOwnEvents();
    RoceFabricStats stats = RoceFabricStats::Collect();

    if (auto out = OpenOut("--fct", fct))
    {
        fctStats->WriteHpccFct(*out);
    }
    if (auto out = OpenOut("--pfc", pfc))
    {
        monitors->WritePfcHpcc(*out);
    }
    if (!monitor.empty())
    {
        monitors->WriteCsv(monitor);
        auto out = OpenOut("--monitor", monitor + "-monitor.json");
        monitors->WriteJson(*out);
    }
    if (auto out = OpenOut("QLEN_MON_FILE", config.empty() ? "" : hpcc.qlenFile))
    {
        // The queue samples between QLEN_MON_START and QLEN_MON_END (0: the end).
        *out << "time_ns,node,port,priority,bytes\n";
        for (const auto& q : monitors->GetQueueSamples())
        {
            if (q.timeNs >= hpcc.qlenStart.GetNanoSeconds() &&
                (hpcc.qlenEnd.IsZero() || q.timeNs <= hpcc.qlenEnd.GetNanoSeconds()))
            {
                *out << q.timeNs << "," << q.node << "," << q.ifIndex << "," << unsigned(q.priority)
                     << "," << q.bytes << "\n";
            }
        }
    }

    std::cout << std::fixed << std::setprecision(3)
              << "rocev2-hpcc-compat: " << topology.nodes - topology.switches.size() << " hosts, "
              << topology.switches.size() << " switches, " << flows.size() << " flows, cc " << cc
              << (preset.empty() ? "" : " (" + preset + ")") << ", framing " << framing << " ("
              << RocePfcNetDevice::GetGlobalWireOverhead() << " wire bytes a frame)"
              << (engine ? ", flow level" : "") << "\n"
              << "  completed " << fctStats->GetCompleted() << "/" << flows.size()
              << ", slowdown p50 " << fctStats->GetSlowdownPercentile(50) << " p95 "
              << fctStats->GetSlowdownPercentile(95) << " p99 "
              << fctStats->GetSlowdownPercentile(99) << "\n"
              << "  PFC pauses " << stats.pfcPauseTx << ", drops " << stats.drops << ", simulated "
              << simTime.GetSeconds() << " s in " << wall << " s wall\n";
    fctStats->PrintTable(std::cout);
    stats.WriteBenchLines(std::cout);

    if (auto out = OpenOut("--json", json))
    {
        *out << std::setprecision(10) << "{\n"
             << "  \"topology\": \"" << topologyFile << "\",\n"
             << "  \"flow_file\": \"" << (load > 0 ? "" : flowFile) << "\",\n"
             << "  \"config\": \"" << config << "\",\n"
             << "  \"cc\": \"" << cc << "\",\n"
             << "  \"dcqcn_preset\": \"" << preset << "\",\n"
             << "  \"load\": " << load << ",\n"
             << "  \"seed_run\": " << RngSeedManager::GetRun() << ",\n"
             << "  \"pfc_pauses\": " << stats.pfcPauseTx << ",\n"
             << "  \"events\": " << events << ",\n"
             << "  \"sim_time_s\": " << simTime.GetSeconds() << ",\n"
             << "  \"wall_time_s\": " << wall << ",\n";
        fctStats->WriteJsonMembers(*out, 2);
        *out << ",\n";
        stats.WriteJsonMembers(*out, 2);
        RoceCli::CloseJson(*out, invariants);
    }
    const bool ok = invariants.Ok() &&
                    (fctStats->GetCompleted() == flows.size() || stopAt.IsStrictlyPositive());
    Simulator::Destroy();
    return ok ? 0 : 1;
}
