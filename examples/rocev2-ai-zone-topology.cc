/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Builds a Meta-style AI Zone fabric with RoceAiZoneHelper (2 tiers: RTSW and
 * CTSW; 3 tiers: zones joined by ATSWs; rail-optimised; a k-ary fat-tree; or
 * one of Meta's presets), checks reachability on a seeded sample of NIC pairs
 * (one small RDMA WRITE each) and prints a summary.
 *
 *   ./rocev2 run rocev2-ai-zone-topology --gpus=4096 --tiers=3 --zones=2 --json=zone.json
 *   ./rocev2 run rocev2-ai-zone-topology --gpus=512 --rail=1 --servers=16
 *   ./rocev2 run rocev2-ai-zone-topology --fat-tree=4 --dot=fat-tree.dot
 *   ./rocev2 run rocev2-ai-zone-topology --preset=meta-cluster-24k
 *   ./rocev2 run rocev2-ai-zone-topology --gpus=4096 --job=512 --placement=fragmented
 *
 * The JSON holds gpus, nics, servers, switches {rtsw, ctsw, atsw}, links,
 * bisection_gbps, oversubscription, max_switch_hops, build_seconds (Build()) and
 * init_seconds (initializing the nodes, which Simulator::Run() does first). Exits 1
 * if a sampled message is not acknowledged.
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    uint32_t gpus = 1024;
    uint32_t tiers = 2;
    uint32_t zones = 1;
    uint32_t uplinks = 16;
    double oversub = 7;
    uint32_t rail = 0;
    uint32_t servers = 0;
    uint32_t fatTree = 0;
    std::string preset;
    std::string dot;
    uint32_t pairs = 64;
    uint32_t job = 0;
    std::string placement = "contiguous";
    uint32_t perRack = 0;
    uint32_t seed = 1;
    std::string json;

    RoceCommandLine cmd(__FILE__);
    cmd.AddGpus(gpus);
    cmd.AddValue("tiers", "2 (one zone) or 3 (zones joined by ATSWs)", tiers);
    cmd.AddValue("zones", "Zones (3 tiers)", zones);
    cmd.AddUplinks(uplinks);
    cmd.AddValue("oversub", "CTSW downlink:uplink capacity ratio (3 tiers)", oversub);
    cmd.AddValue("rail",
                 "1: rail-optimised (NIC i of every server of a group on rail switch i)",
                 rail);
    cmd.AddValue("servers",
                 "Servers per rack, or per rail group (0: 2, or 16 with --rail=1)",
                 servers);
    cmd.AddValue("fat-tree",
                 "Build the k-ary fat-tree of this k instead (other shape flags unused)",
                 fatTree);
    cmd.AddValue("preset", "Build a preset instead: meta-zone-3072 or meta-cluster-24k", preset);
    cmd.AddValue("dot", "Write a graphviz picture to this file (fabrics of <= 200 nodes)", dot);
    cmd.AddValue("job", "Place a job of this many GPUs and sample the pairs within it", job);
    cmd.AddValue("placement", "Job placement: contiguous, fragmented or random", placement);
    cmd.AddValue("per-rack", "GPUs per rack of a fragmented job (0: half a rack)", perRack);
    cmd.AddValue("pairs", "NIC pairs sampled for the reachability check", pairs);
    cmd.AddSeed(seed); // also seeds the pair sample
    cmd.AddJson(json);
    cmd.Parse(argc, argv);

    ROCE_ERROR_IF(rail > 1, "--rail=" << rail << " (must be 0 or 1)");
    // The helper refuses by name any other invalid combination.
    RoceAiZoneHelper helper;
    if (!preset.empty())
    {
        helper.SetPreset(preset);
    }
    else if (fatTree != 0)
    {
        helper.SetFatTree(fatTree);
    }
    else
    {
        helper.SetTiers(tiers);
        helper.SetZones(zones);
        helper.SetGpus(gpus);
        helper.SetRailOptimized(rail == 1);
        helper.SetServersPerRack(servers != 0 ? servers : (rail ? 16 : 2));
        helper.SetUplinks(uplinks);
        // Uplinks spread over up to 16 CTSWs: the largest C <= 16 that divides U.
        uint32_t ctsws = std::min<uint32_t>(16, std::max<uint32_t>(uplinks, 1));
        while (ctsws > 1 && uplinks % ctsws != 0)
        {
            --ctsws;
        }
        helper.SetCtsws(ctsws);
        helper.SetOversubscription(oversub);
    }

    auto t0 = std::chrono::steady_clock::now();
    RoceAiZone zone = helper.Build();
    auto t1 = std::chrono::steady_clock::now();
    double buildSeconds = std::chrono::duration<double>(t1 - t0).count();
    // Simulator::Run() initializes every node first (switch ports create their
    // queues there); doing it here, once all attributes are set, times it.
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        (*it)->Initialize();
    }
    double initSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();

    // The GPUs the pairs are drawn from: a placed job, or the whole fabric.
    std::vector<uint32_t> gpuList;
    if (job > 0)
    {
        RoceGpuPlacement place(zone);
        if (placement == "contiguous")
        {
            gpuList = place.Contiguous(job);
        }
        else if (placement == "fragmented")
        {
            gpuList = place.Fragmented(job, perRack ? perRack : zone.GetNicsPerRack() / 2);
        }
        else
        {
            ROCE_ERROR_IF(placement != "random",
                          "--placement=" << placement
                                         << " is unknown (contiguous, fragmented or random)");
            gpuList = place.Random(job, int64_t(seed));
        }
        std::set<uint32_t> racks;
        for (uint32_t g : gpuList)
        {
            racks.insert(g / zone.GetNicsPerRack());
        }
        std::cout << placement << " job of " << job << " GPUs over " << racks.size()
                  << " racks; ranks 0.." << gpuList.size() - 1 << " on GPUs " << gpuList.front()
                  << ".." << gpuList.back() << "\n";
    }
    else
    {
        for (uint32_t g = 0; g < zone.GetNGpus(); ++g)
        {
            gpuList.push_back(g);
        }
    }
    const uint32_t n = gpuList.size();
    RoceHelper roce;
    std::mt19937 rng(seed);
    std::uniform_int_distribution<uint32_t> pick(0, n - 1);
    uint32_t acked = 0;
    uint32_t sent = 0;
    auto onDone = [&acked](const RoceCompletion& c) { acked += c.success ? 1 : 0; };
    for (uint32_t i = 0; i < pairs && n > 1; ++i)
    {
        uint32_t a = pick(rng);
        uint32_t b = pick(rng);
        if (a == b)
        {
            b = (a + 1) % n;
        }
        auto qp = roce.CreateQp(zone.GetNic(gpuList[a]), zone.GetNic(gpuList[b]));
        qp.first->PostWrite(64, Callback<void, const RoceCompletion&>(onDone));
        ++sent;
    }
    Simulator::Run();

    zone.PrintSummary(std::cout);
    std::cout << "build " << buildSeconds << " s, node initialization " << initSeconds
              << " s; reachability: " << acked << "/" << sent << " sampled pairs acknowledged\n";
    if (!json.empty())
    {
        std::ofstream out(json);
        zone.WriteJson(out, buildSeconds, initSeconds);
    }
    if (!dot.empty())
    {
        std::ostringstream picture; // no file is left when the fabric is too large
        zone.WriteDot(picture);
        std::ofstream(dot) << picture.str();
        std::cout << "picture: " << dot << " (render with: dot -Tpng " << dot << " -o "
                  << dot.substr(0, dot.rfind('.')) << ".png)\n";
    }
    Simulator::Destroy();
    return acked == sent ? 0 : 1;
}
