/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A generated workload on a 2-tier leaf-spine fabric, with flow completion
 * times and slowdowns per flow-size bucket.
 *
 *   spine 0 .. spine S-1         (fabric links --fabric-rate)
 *     |  \  /  |
 *   leaf 0 .. leaf L-1           (host links --host-rate)
 *    hosts     hosts
 *
 *   ./rocev2 run rocev2-workload --cdf=data/cdf/websearch.txt --load=0.3 --duration=1ms
 *   ./rocev2 run rocev2-workload --pattern=incast --size=1MB --cc=dcqcn --fct=fct.txt
 *   ./rocev2 run rocev2-workload --pattern=permutation --size=4MB --json=perm.json
 *
 * --pattern=poisson draws flows from --cdf at --load of each host's rate for
 * --duration (Poisson arrivals, random src != dst); incast sends --size from
 * every other host to host 0; permutation sends --size along a random
 * derangement. A relative --cdf path that does not exist is also looked for
 * from the folders above the current one (and their contrib/rocev2), so the
 * sample CDFs are found from a build folder or an ns-3 tree. --flows-out writes the flows as an
 * HPCC flow file. --fct writes the HPCC FCT file, --json the summary. The program exits 1 if a flow
 * did not complete or a lossless run dropped a packet.
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <chrono>
#include <fstream>
#include <iostream>

using namespace ns3;
using namespace ns3::RoceCli;

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    uint32_t leaves = 4;
    uint32_t hostsPerLeaf = 4;
    uint32_t spines = 2;
    std::string hostRate = "100Gbps";
    std::string fabricRate = "100Gbps";
    std::string delay = "1us";
    std::string pattern = "poisson";
    std::string cdfPath = "data/cdf/websearch.txt";
    double load = 0.3;
    std::string duration = "1ms";
    std::string sizeText = "1000000";
    std::string cc;
    std::string preset;
    std::string fct;
    std::string json;
    std::string faults;
    std::string flowsOut;
    uint32_t stream = 1;
    std::string fidelity = "packet";

    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("leaves", "Leaf switches", leaves);
    cmd.AddValue("hosts-per-leaf", "Hosts under each leaf", hostsPerLeaf);
    cmd.AddValue("spines", "Spine switches (each joined to every leaf)", spines);
    cmd.AddValue("host-rate", "Rate of the host links", hostRate);
    cmd.AddValue("fabric-rate", "Rate of the leaf-spine links", fabricRate);
    cmd.AddDelay(delay);
    cmd.AddValue("pattern", "poisson, incast or permutation", pattern);
    cmd.AddGeneratedFlows(cdfPath, load, duration);
    cmd.AddSize(sizeText);
    cmd.AddCongestionControl(cc, preset);
    cmd.AddValue("stream", "First random stream of the workload (with --RngRun)", stream);
    cmd.AddValue("flows-out", "Write the flows as an HPCC flow file", flowsOut);
    cmd.AddValue("fct", "Write the HPCC FCT file", fct);
    cmd.AddJson(json);
    cmd.AddFaults(faults);
    uint32_t seed = 1;
    cmd.AddSeed(seed);
    cmd.AddFidelity(fidelity);
    cmd.Parse(argc, argv);
    const RoceCcHelper ccChoice = RoceCli::MakeCongestionControl(cc, preset);
    cc = ccChoice.GetAlgorithm();
    preset = ccChoice.GetDcqcnPreset();

    ROCE_ERROR_IF(leaves < 1 || hostsPerLeaf < 1 || spines < 1,
                  "--leaves, --hosts-per-leaf and --spines must be at least 1");
    ROCE_ERROR_IF(leaves * hostsPerLeaf < 2, "need at least 2 hosts");
    const DataRate hRate = ParseRate("host-rate", hostRate);
    const DataRate fRate = ParseRate("fabric-rate", fabricRate);
    const Time linkDelay = ParseTime("delay", delay);
    const uint32_t nHosts = leaves * hostsPerLeaf;

    std::vector<RoceFlowSpec> flows;
    const Time start = MicroSeconds(10);
    if (pattern == "poisson")
    {
        RoceSizeCdf cdf = RoceSizeCdf::Read(FindDataFile(cdfPath));
        flows = RoceWorkloadHelper::Poisson(nHosts,
                                            cdf,
                                            load,
                                            hRate,
                                            start,
                                            ParsePositiveTime("duration", duration),
                                            stream);
    }
    else if (pattern == "incast")
    {
        std::vector<uint32_t> senders;
        for (uint32_t h = 1; h < nHosts; ++h)
        {
            senders.push_back(h);
        }
        flows = RoceWorkloadHelper::Incast(senders, 0, ParseBytes("size", sizeText), start);
    }
    else if (pattern == "permutation")
    {
        flows =
            RoceWorkloadHelper::Permutation(nHosts, ParseBytes("size", sizeText), start, stream);
    }
    else
    {
        ROCE_ERROR("--pattern=" << pattern << ": use poisson, incast or permutation");
    }
    ROCE_ERROR_IF(flows.empty(), "the workload has no flows (raise --load or --duration)");
    if (!flowsOut.empty())
    {
        std::ofstream out(flowsOut);
        ROCE_ERROR_IF(!out, "cannot write --flows-out=" << flowsOut);
        RoceWorkloadHelper::WriteHpccFlowFile(out, flows);
    }

    NodeContainer spineNodes(spines);
    NodeContainer leafNodes(leaves);
    NodeContainer hosts(nHosts);
    RoceSwitchHelper switches;
    RoceHelper roce;
    ccChoice.Configure(roce, switches);
    switches.Install(spineNodes);
    switches.Install(leafNodes);
    roce.SetChannelAttribute("Delay", TimeValue(linkDelay));
    // Unloaded RTT across the spine: 4 links each way, MTU packet out, ACK back.
    roce.SetCongestionControlAttribute(
        "BaseRtt",
        TimeValue(8 * linkDelay + 4 * hRate.CalculateBytesTxTime(1024 + 82 + 16)));
    roce.SetDeviceAttribute("DataRate", DataRateValue(fRate));
    for (uint32_t l = 0; l < leaves; ++l)
    {
        for (uint32_t s = 0; s < spines; ++s)
        {
            roce.Install(leafNodes.Get(l), spineNodes.Get(s));
        }
    }
    roce.SetDeviceAttribute("DataRate", DataRateValue(hRate));
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        roce.Install(hosts.Get(h), leafNodes.Get(h / hostsPerLeaf));
    }
    RoceSwitchHelper::PopulateRoutes();
    RoceFaultHelper faultHelper;
    for (uint32_t i = 0; i < leafNodes.GetN(); ++i)
    {
        faultHelper.AddName("leaf" + std::to_string(i), leafNodes.Get(i));
    }
    for (uint32_t i = 0; i < spineNodes.GetN(); ++i)
    {
        faultHelper.AddName("spine" + std::to_string(i), spineNodes.Get(i));
    }
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        faultHelper.AddName("host" + std::to_string(i), hosts.Get(i));
    }
    Ptr<RoceFlowEngine> engine = RoceCli::ApplyFidelity(fidelity);
    RoceCli::LoadFaults(faultHelper, faults);

    Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
    stats->SetAllDoneCallback(Callback<void>([]() { Simulator::Stop(); }));
    RoceWorkloadHelper().Install(hosts, flows, stats);

    std::cout << "rocev2-workload: " << pattern << ", " << flows.size() << " flows on " << nHosts
              << " hosts (" << leaves << " leaves x " << hostsPerLeaf << ", " << spines
              << " spines), cc " << (preset.empty() ? cc : "dcqcn/" + preset)
              << (engine ? ", flow level" : "") << "\n";
    auto wall = std::chrono::steady_clock::now();
    Simulator::Run();
    double wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    RoceFabricStats fabric = RoceFabricStats::Collect();
    stats->PrintTable(std::cout);
    RoceCli::PrintFaults(faultHelper, std::cout);
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(!faults.empty(), std::cout);
    std::cout << "  slowdown = FCT / ideal FCT alone on the path; sim time "
              << Simulator::Now().GetMicroSeconds() << " us, drops " << fabric.drops
              << ", PFC pauses " << fabric.pfcPauseTx << "\n";

    if (!fct.empty())
    {
        std::ofstream out(fct);
        ROCE_ERROR_IF(!out, "cannot write --fct=" << fct);
        stats->WriteHpccFct(out);
    }
    if (!json.empty())
    {
        std::ofstream out(json);
        ROCE_ERROR_IF(!out, "cannot write --json=" << json);
        out << "{\n"
            << "  \"pattern\": \"" << pattern << "\",\n"
            << "  \"cc\": \"" << cc << "\",\n"
            << "  \"dcqcn_preset\": \"" << preset << "\",\n"
            << "  \"load\": " << load << ",\n"
            << "  \"hosts\": " << nHosts << ",\n";
        stats->WriteJsonMembers(out, 2);
        out << ",\n";
        fabric.WriteJsonMembers(out, 2);
        out << ",\n  \"events\": " << Simulator::GetEventCount() << ",\n"
            << "  \"sim_time_s\": " << Simulator::Now().GetSeconds() << ",\n"
            << "  \"wall_time_s\": " << wallSeconds;
        RoceCli::CloseJson(out, invariants);
    }
    // Faults (--faults) lose frames on purpose; the flows must still complete.
    bool ok = invariants.Ok() && stats->GetCompleted() == flows.size() &&
              (fabric.drops == 0 || !faults.empty());
    Simulator::Destroy();
    if (!ok)
    {
        std::cerr << "rocev2-workload: FAILED: not every flow completed, or packets were dropped\n";
        return 1;
    }
    return 0;
}
