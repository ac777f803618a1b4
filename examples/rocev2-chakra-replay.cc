/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Replay Chakra execution traces (one training iteration) on an AI Zone:
 * how long the iteration takes on this fabric, placement, QP scaling and
 * congestion control, and how much of its communication compute hides.
 *
 *   ./rocev2 run rocev2-chakra-replay --et=data/chakra/pytorch-ddp/chakra.0.et --replicate
 * --gpus=16
 *   ./rocev2 run rocev2-chakra-replay --et=data/chakra/synthetic-8/chakra.0.et --gpus-per-server=1
 *
 * --et names the rank-0 trace of a set (NAME.0.et, NAME.1.et, ... one per
 * rank; --gpus defaults to the number of files) or, with --replicate, one
 * trace that every rank runs (data-parallel traces are symmetric; --gpus
 * defaults to 16). --comm-groups maps process-group names (pg_name) to
 * ranks, as {"dp": [0, 1, 2, 3]}; without it every group holds all ranks.
 * The fabric is the smallest 2-tier zone that holds the job in whole racks
 * (--fabric-gpus, --gpus-per-server, --uplinks, --rate and --cc change
 * it), the job is placed by --placement, and collectives run over --channels
 * rings of --chunk chunks with --qps queue pairs per connection. GPU kernels
 * take their traced time times --compute-scale (0.5: a GPU twice as fast);
 * CPU-side nodes take none unless --cpu-ops=duration; --ctrl-deps says how
 * control dependencies count (auto, use, ignore; roce-chakra-replay-helper.h).
 *
 * It prints the makespan, compute, communication and exposed communication
 * per rank and overall, and each collective with its size, time and busbw;
 * --json writes them (keys in RoceReplayJob::WriteJson). Sends and receives
 * never matched, and collectives some ranks never reached, are reported at
 * the end, and the program exits 1.
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-chakra-replay-helper.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <chrono>
#include <fstream>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    std::string et;
    bool replicate = false;
    uint32_t gpus = 0;
    uint32_t fabricGpus = 0;
    uint32_t gpusPerServer = 8;
    uint32_t uplinks = 16;
    std::string linkRate = "400Gbps";
    std::string placement = "contiguous";
    uint32_t qps = 1;
    std::string qpMode = "split";
    uint32_t channels = 8;
    std::string chunk = "512KiB";
    std::string algo;
    std::string cc;
    std::string preset;
    std::string groups;
    std::string ctrlDeps = "auto";
    bool streamOrder = true;
    double computeScale = 1.0;
    std::string cpuOps = "zero";
    uint32_t gpuStreams = 1;
    uint32_t seed = 1;
    std::string json;
    std::string faults;
    std::string fidelity = "packet";

    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("et",
                 "Rank 0's trace (NAME.0.et), a folder of chakra.<rank>.et, or with "
                 "--replicate the one trace of every rank",
                 et);
    cmd.AddValue("replicate", "Every rank runs the one trace --et", replicate);
    cmd.AddGpus(gpus);
    cmd.AddValue("fabric-gpus",
                 "GPUs of the fabric (0: the smallest zone that holds the job)",
                 fabricGpus);
    cmd.AddValue("gpus-per-server", "GPUs per server (one scale-up domain each)", gpusPerServer);
    cmd.AddUplinks(uplinks);
    cmd.AddRate(linkRate);
    cmd.AddValue("placement", "contiguous, fragmented or random", placement);
    cmd.AddValue("qps", "Queue pairs per connection", qps);
    cmd.AddValue("qp-mode", "split (each message over all QPs) or rr (round-robin)", qpMode);
    cmd.AddChannels(channels);
    cmd.AddValue("chunk", "Largest message of a collective step", chunk);
    cmd.AddValue(
        "algo",
        "AllReduce algorithm: ring, tree, hd or hier (empty: ring; broadcasts take ring or tree)",
        algo);
    cmd.AddCongestionControl(cc, preset);
    cmd.AddValue("comm-groups", "JSON file mapping process-group names to ranks", groups);
    cmd.AddValue("ctrl-deps", "Control dependencies: auto, use or ignore", ctrlDeps);
    cmd.AddValue("stream-order",
                 "GPU-side communication waits for the last kernel before it in the trace",
                 streamOrder);
    cmd.AddValue("compute-scale",
                 "Factor on GPU kernel durations (0.5: twice as fast)",
                 computeScale);
    cmd.AddValue("cpu-ops", "CPU-side nodes: zero or duration", cpuOps);
    cmd.AddValue("gpu-streams", "GPU kernels that may run at once (0: no limit)", gpuStreams);
    cmd.AddSeed(seed);
    cmd.AddJson(json);
    cmd.AddFaults(faults);
    cmd.AddFidelity(fidelity);
    cmd.Parse(argc, argv);
    const RoceCcHelper ccChoice = RoceCli::MakeCongestionControl(cc, preset);
    cc = ccChoice.GetAlgorithm();
    ROCE_ERROR_IF(et.empty(), "--et=FILE is required (a Chakra .et trace)");
    ROCE_ERROR_IF(!(computeScale >= 0) || computeScale > 1e6,
                  "--compute-scale=" << computeScale << " (must be between 0 and 1e6)");
    ROCE_ERROR_IF(cpuOps != "zero" && cpuOps != "duration",
                  "--cpu-ops=" << cpuOps << " is unknown (zero or duration)");
    ROCE_ERROR_IF(ctrlDeps != "auto" && ctrlDeps != "use" && ctrlDeps != "ignore",
                  "--ctrl-deps=" << ctrlDeps << " is unknown (auto, use or ignore)");
    ROCE_ERROR_IF(gpusPerServer == 0, "--gpus-per-server=0 (must be at least 1)");

    const std::string etPath = RoceCli::FindDataFile(et);
    if (gpus == 0)
    {
        gpus = replicate ? 16 : RoceChakraReplayHelper::CountTraces(etPath);
    }
    const std::vector<std::string> paths =
        RoceChakraReplayHelper::TracePaths(etPath, gpus, replicate);

    const uint32_t rack = 2 * gpusPerServer;
    if (fabricGpus == 0)
    {
        fabricGpus = (gpus + rack - 1) / rack * rack;
    }
    ROCE_ERROR_IF(gpus > fabricGpus,
                  "--gpus=" << gpus << " ranks but the fabric has --fabric-gpus=" << fabricGpus);
    RoceAiZoneHelper zoneHelper;
    zoneHelper.SetTiers(2);
    zoneHelper.SetGpusPerServer(gpusPerServer);
    zoneHelper.SetGpus(fabricGpus);
    zoneHelper.SetUplinks(uplinks);
    zoneHelper.SetCtsws(std::min<uint32_t>(16, uplinks));
    zoneHelper.SetLinkRate(RoceCli::ParseRate("rate", linkRate));
    ccChoice.Configure(zoneHelper);
    RoceAiZone fabric = zoneHelper.Build();
    RoceFaultHelper faultHelper;
    faultHelper.AddNames(fabric);
    Ptr<RoceFlowEngine> engine = RoceCli::ApplyFidelity(fidelity);
    RoceCli::LoadFaults(faultHelper, faults);
    RoceGpuPlacement place(fabric);
    const std::vector<uint32_t> job = RoceCli::PlaceJob(place, fabric, placement, gpus);

    RoceChakraReplayHelper replay;
    replay.GetCollectiveHelper().SetCommunicatorAttribute("QpsPerConnection", UintegerValue(qps));
    replay.GetCollectiveHelper().SetCommunicatorAttribute("QpMode", StringValue(qpMode));
    replay.SetCollectiveAttribute("Channels", UintegerValue(channels));
    replay.SetCollectiveAttribute("ChunkSize", UintegerValue(RoceCli::ParseBytes("chunk", chunk)));
    replay.SetJobAttribute("Algorithm", StringValue(algo));
    replay.SetControlDependencies(ctrlDeps);
    replay.SetStreamOrder(streamOrder);
    replay.SetAppAttribute("ComputeScale", DoubleValue(computeScale));
    replay.SetAppAttribute("CpuOps", StringValue(cpuOps));
    replay.SetAppAttribute("GpuStreams", UintegerValue(gpuStreams));
    if (!groups.empty())
    {
        replay.SetGroupsFile(RoceCli::FindDataFile(groups));
    }
    Ptr<RoceReplayJob> replayJob = replay.Install(fabric, job, paths);

    std::cout << "rocev2-chakra-replay: " << gpus << " ranks (" << placement << ", "
              << (replicate ? "one trace replicated" : "one trace per rank") << ") on "
              << fabric.GetNGpus() << " GPUs, " << linkRate << " links; " << channels
              << " channels, " << qps << " QP(s)/connection (" << qpMode << "), cc " << cc
              << (engine ? ", flow level" : "") << "; seed " << seed << "\n";
    for (const std::string& note : replay.GetNotes())
    {
        std::cout << "# " << note << "\n";
    }
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    replayJob->PrintTable(std::cout);
    RoceCli::PrintFaults(faultHelper, std::cout);
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(!faults.empty(), std::cout);
    const RoceFabricStats stats = RoceFabricStats::Collect();
    stats.WriteBenchLines(std::cout);
    std::cout << "# PFC pauses " << stats.pfcPauseTx << "; simulated "
              << Simulator::Now().GetMicroSeconds() << " us in " << wall << " s\n";
    if (!json.empty())
    {
        RoceCli::WriteJson(
            json,
            [&replayJob](std::ostream& os) { replayJob->WriteJson(os); },
            invariants);
    }
    const bool finished = replayJob->IsFinished();
    Simulator::Destroy();
    if (!finished)
    {
        std::cerr << "rocev2-chakra-replay: the replay did not finish (see the problems above)\n";
        return 1;
    }
    return invariants.Ok() ? 0 : 1;
}
