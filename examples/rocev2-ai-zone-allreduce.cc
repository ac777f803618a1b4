/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A collective on a job placed in an AI Zone, reported as nccl-tests does.
 *
 *   ./rocev2 run rocev2-ai-zone-allreduce --gpus=128 --sizes=1M,16M,64M
 *   ./rocev2 run rocev2-ai-zone-allreduce --gpus=64 --op=alltoall --sizes=16M --qps=4 --qp-mode=rr
 *
 * The fabric (--fabric-gpus, --tiers, --zones, --uplinks, --oversub, --rail)
 * defaults to the smallest 2-tier zone that holds the job: whole racks of 16
 * GPUs (two 8-GPU servers). The job (--gpus ranks) is placed on it
 * (--placement) and runs --op with --algo over --channels rings of
 * --chunk-byte chunks, --qps queue pairs per connection (--qp-mode split or
 * rr), congestion control --cc and, with --cts=1, clear-to-send grants, for each size of --sizes
 * (units as nccl-tests: 1M = 2^20 B), --warmup plus --iters iterations each. It prints size, count,
 * type, time, algbw and busbw per size, and with --json the same as {"results": [{op, algo, size,
 * time_us, algbw_gbps, busbw_gbps, spread_us, iterations}]} (Gb/s). Exits 1 if a collective did not
 * finish.
 *
 * With --background=1 a second job takes every GPU the first leaves free
 * (--fabric-gpus must leave some) and runs the same operation and sizes with
 * 4x the iterations, so it loads the fabric for the whole of the first job's
 * run: a busy cluster. The table is the first job's.
 *
 *   ./rocev2 run rocev2-ai-zone-allreduce --gpus=32 --fabric-gpus=64 --uplinks=8 \
 *       --placement=fragmented --background=1 --sizes=16M
 */
#include "rocev2-job-run.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
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
    uint32_t gpus = 64;
    uint32_t fabricGpus = 0;
    uint32_t tiers = 2;
    uint32_t zones = 1;
    uint32_t uplinks = 16;
    double oversub = 7;
    uint32_t rail = 0;
    std::string op = "allreduce";
    std::string algo;
    std::string sizes = "1M,16M";
    uint32_t qps = 1;
    std::string qpMode = "split";
    uint32_t channels = 8;
    std::string chunk = "512KiB";
    std::string placement = "contiguous";
    std::string cc;
    std::string preset;
    uint32_t cts = 0;
    uint32_t iters = 1;
    uint32_t warmup = 0;
    uint32_t seed = 1;
    std::string jobFile;
    std::string json;
    std::string faults;
    uint32_t background = 0;
    std::string fidelity = "packet";
    std::string fabricPreset;

    RoceCommandLine cmd(__FILE__);
    cmd.AddGpus(gpus);
    cmd.AddValue("fabric-gpus",
                 "GPUs of the fabric (0: the smallest zone that holds the job)",
                 fabricGpus);
    cmd.AddValue("tiers", "Fabric tiers: 2 or 3", tiers);
    cmd.AddValue("zones", "Zones (3 tiers)", zones);
    cmd.AddUplinks(uplinks);
    cmd.AddValue("oversub", "CTSW:ATSW oversubscription (3 tiers)", oversub);
    cmd.AddValue("rail", "1: rail-optimised fabric", rail);
    cmd.AddValue("preset",
                 "A named fabric instead of --fabric-gpus, --tiers, --zones, --uplinks, "
                 "--oversub and --rail: meta-zone-3072 or meta-cluster-24k",
                 fabricPreset);
    cmd.AddValue("op",
                 "allreduce, allgather, reducescatter, alltoall, alltoallv, broadcast or sendrecv",
                 op);
    cmd.AddValue("algo",
                 "ring, tree, hd or hier (allreduce), ring or tree (broadcast), direct (alltoall); "
                 "empty: ring (alltoall: direct)",
                 algo);
    cmd.AddValue("sizes", "Comma list of sizes (1M = 2^20 B, as nccl-tests)", sizes);
    cmd.AddValue("qps", "Queue pairs per connection", qps);
    cmd.AddValue("qp-mode", "split (each message over all QPs) or rr (round-robin)", qpMode);
    cmd.AddChannels(channels);
    cmd.AddValue("chunk", "Largest message of a step", chunk);
    cmd.AddValue("placement", "contiguous, fragmented or random", placement);
    cmd.AddCongestionControl(cc, preset);
    cmd.AddValue("cts", "1: receiver-driven admission (clear-to-send grants)", cts);
    cmd.AddValue("iters", "Counted iterations per size", iters);
    cmd.AddValue("warmup", "Uncounted iterations per size before them", warmup);
    cmd.AddSeed(seed);
    cmd.AddValue("job",
                 "Run the training jobs of this JSON file instead (roce-job-helper.h); the "
                 "fabric flags --fabric-gpus, --uplinks, --channels, --chunk and --cc apply",
                 jobFile);
    cmd.AddValue("background",
                 "1: a second job on the GPUs left free runs the same collective meanwhile",
                 background);
    cmd.AddJson(json);
    cmd.AddFaults(faults);
    cmd.AddFidelity(fidelity);
    cmd.Parse(argc, argv);
    const RoceCcHelper ccChoice = RoceCli::MakeCongestionControl(cc, preset);
    cc = ccChoice.GetAlgorithm();
    if (!jobFile.empty())
    {
        return RoceExampleJobs::RunJobFile(jobFile,
                                           json,
                                           fabricGpus,
                                           uplinks,
                                           channels,
                                           RoceCli::ParseBytes("chunk", chunk),
                                           ccChoice,
                                           faults,
                                           fidelity);
    }

    std::vector<uint64_t> sizeList;
    for (const std::string& s : RoceSpecList::Split(sizes))
    {
        sizeList.push_back(RoceCli::ParseBytes("sizes", s));
    }
    ROCE_ERROR_IF(sizeList.empty(), "--sizes=" << sizes << " names no size");
    ROCE_ERROR_IF(gpus == 0, "--gpus=0: a job needs at least one rank");
    RoceAiZoneHelper zoneHelper;
    if (!fabricPreset.empty())
    {
        ROCE_ERROR_IF(fabricGpus != 0 || tiers != 2 || zones != 1 || uplinks != 16 ||
                          oversub != 7 || rail != 0,
                      "--preset=" << fabricPreset
                                  << " sets the fabric's shape: drop --fabric-gpus, --tiers, "
                                     "--zones, --uplinks, --oversub and --rail");
        zoneHelper.SetPreset(fabricPreset);
    }
    else
    {
        if (fabricGpus == 0)
        {
            fabricGpus = (gpus + 15) / 16 * 16 * zones;
        }
        ROCE_ERROR_IF(gpus > fabricGpus,
                      "--gpus=" << gpus
                                << " ranks but the fabric has --fabric-gpus=" << fabricGpus);
        zoneHelper.SetTiers(tiers);
        zoneHelper.SetZones(zones);
        zoneHelper.SetGpus(fabricGpus);
        zoneHelper.SetUplinks(uplinks);
        zoneHelper.SetCtsws(std::min<uint32_t>(16, uplinks));
        zoneHelper.SetOversubscription(oversub);
        zoneHelper.SetRailOptimized(rail == 1);
        if (rail == 1)
        {
            zoneHelper.SetServersPerRack(std::min<uint32_t>(16, fabricGpus / 8));
        }
    }
    ccChoice.Configure(zoneHelper);
    RoceAiZone fabric = zoneHelper.Build();
    ROCE_ERROR_IF(gpus > fabric.GetNGpus(),
                  "--gpus=" << gpus << " ranks but --preset=" << fabricPreset << " has "
                            << fabric.GetNGpus() << " GPUs");
    fabricGpus = fabric.GetNGpus();
    RoceFaultHelper faultHelper;
    faultHelper.AddNames(fabric);
    Ptr<RoceFlowEngine> engine = RoceCli::ApplyFidelity(fidelity);
    RoceCli::LoadFaults(faultHelper, faults);

    RoceGpuPlacement place(fabric);
    std::vector<uint32_t> job = RoceCli::PlaceJob(place, fabric, placement, gpus);

    ROCE_ERROR_IF(background > 1, "--background=" << background << " (must be 0 or 1)");
    std::vector<uint32_t> other;
    if (background == 1)
    {
        ROCE_ERROR_IF(place.GetNFree() == 0,
                      "--background=1 but the job takes all --fabric-gpus=" << fabricGpus);
        for (uint32_t g = 0; g < place.GetNGpus(); ++g)
        {
            if (place.IsFree(g))
            {
                other.push_back(g);
            }
        }
        place.MarkTaken(other);
    }

    RoceCollectiveHelper coll;
    coll.SetCommunicatorAttribute("QpsPerConnection", UintegerValue(qps));
    coll.SetCommunicatorAttribute("QpMode", StringValue(qpMode));
    ROCE_ERROR_IF(cts > 1, "--cts=" << cts << " (must be 0 or 1)");
    coll.SetCommunicatorAttribute("ClearToSend", BooleanValue(cts == 1));
    coll.SetCollectiveAttribute("Channels", UintegerValue(channels));
    coll.SetCollectiveAttribute("ChunkSize", UintegerValue(RoceCli::ParseBytes("chunk", chunk)));
    coll.SetAppAttribute("Operation", StringValue(op));
    coll.SetAppAttribute("Algorithm", StringValue(algo));
    coll.SetAppAttribute("Iterations", UintegerValue(iters));
    coll.SetAppAttribute("Warmup", UintegerValue(warmup));
    Ptr<RoceCommunicator> comm = coll.CreateCommunicator(fabric, job);
    Ptr<RoceCollectiveApp> app = coll.Install(comm, sizeList);
    if (background == 1)
    {
        coll.SetAppAttribute("Iterations", UintegerValue(4 * (iters + warmup)));
        coll.SetAppAttribute("Warmup", UintegerValue(0));
        coll.Install(coll.CreateCommunicator(fabric, other), sizeList);
    }

    std::cout << "rocev2-ai-zone-allreduce: seed " << seed << ", " << gpus << " ranks ("
              << placement << ", " << comm->GetNServers() << " servers) on " << fabric.GetNGpus()
              << " GPUs, " << fabric.tiers << " tiers; " << op << " " << channels << " channels, "
              << qps << " QP(s)/connection (" << qpMode << "), cc " << cc
              << (engine ? ", flow level" : "") << "\n";
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    app->PrintTable(std::cout);
    RoceCli::PrintFaults(faultHelper, std::cout);
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(!faults.empty(), std::cout);
    const RoceFabricStats stats = RoceFabricStats::Collect();
    stats.WriteBenchLines(std::cout);
    std::cout << "# QPs " << comm->GetNQps() << ", grants " << comm->GetNGrants() << ", PFC pauses "
              << stats.pfcPauseTx << ", bytes over NICs " << comm->GetNicBytes() << ", over NVLink "
              << comm->GetScaleUpBytes() << "; simulated " << Simulator::Now().GetMicroSeconds()
              << " us in " << wall << " s\n";
    if (engine)
    {
        const RoceFlowEngine::Stats& fs = engine->GetStats();
        std::cout << "# flow level: " << fs.messages << " messages, " << fs.rateComputations
                  << " rate computations over " << fs.flowsRated << " flows, "
                  << fs.fastComputations << " changes by the fast path (" << fs.replaced
                  << " flows took their queue pair's last rate) and " << fs.localComputations
                  << " by a local solve, at most " << fs.maxActive << " flows at once\n";
    }
    if (!json.empty())
    {
        std::ofstream out(json);
        out << "{\n  \"gpus\": " << gpus << ",\n  \"fabric_gpus\": " << fabric.GetNGpus()
            << ",\n  \"results\": ";
        app->WriteJsonResults(out);
        RoceCli::CloseJson(out, invariants);
    }
    const bool finished = app->IsFinished();
    Simulator::Destroy();
    if (!finished)
    {
        std::cerr << "rocev2-ai-zone-allreduce: a collective did not finish\n";
        return 1;
    }
    return invariants.Ok() ? 0 : 1;
}
