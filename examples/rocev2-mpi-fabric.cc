/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// One AI Zone split over MPI ranks: a collective over every GPU, a
// PFC-heavy incast and a permutation across the partition's cut, with
// results that do not depend on the number of ranks.
//
//   ./rocev2 run rocev2-mpi-fabric                    # one process
//   ./rocev2 run --mpi=2 rocev2-mpi-fabric            # two ranks (MPI build)
//   ./rocev2 run --mpi=4 rocev2-mpi-fabric --partition=map:0,1,2,3,0,1,2,3
//
// The fabric is a 2-tier AI Zone (RoceAiZoneHelper) partitioned by
// SetPartition: every rank builds and runs the nodes it owns (of other
// ranks' links it keeps stand-ins), and the links between ranks carry
// frames, PFC frames included, as MPI messages (RoceMpiLink). GPUs in the
// racks of every other rank each WRITE --size bytes to GPU 0, whose port
// pauses its leaf by PFC and backs the pauses up across the cut; every
// GPU also WRITEs --permutation bytes to the GPU half the fabric away, and
// with --load GPUs send Poisson flows of
// --cdf sizes to random GPUs (RoceWorkloadHelper: each flow is posted and
// recorded on its sender's rank). Every GPU takes part in a --collective
// (a ring AllReduce of --coll-size by default) over a Distributed
// communicator: each rank posts its own GPUs' chunks, and arrivals reach
// a sender on another rank as RoceRankCall notices. --monitor logs PFC
// frames and samples queues and links on each rank's own devices until
// the last flow of the run is done. Rank 0 gathers every flow's record
// (RoceFctStats), the monitor's rows, every GPU's collective finish time
// and every device's PFC counters and writes them, sorted, to stdout,
// --json and the monitor's CSV files: the same files on 1, 2 or 4 ranks
// (check/mpi compares them).
//
//   ./rocev2 run --mpi=2 rocev2-mpi-fabric --load=0.3 --monitor=out/mpi
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;
using namespace ns3::RoceCli;

namespace
{

/** \return the sorted, newline-joined lines of every rank's text (rank 0). */
std::vector<std::string>
SortedLines(const std::vector<std::string>& parts)
{
    std::vector<std::string> lines;
    for (const std::string& part : parts)
    {
        std::istringstream in(part);
        std::string line;
        while (std::getline(in, line))
        {
            if (!line.empty())
            {
                lines.push_back(line);
            }
        }
    }
    std::sort(lines.begin(), lines.end());
    return lines;
}

} // namespace

int
main(int argc, char* argv[])
{
    RoceMpiHelper::Enable(&argc, &argv);
    uint32_t tiers = 2;
    uint32_t zones = 1;
    double oversub = 7;
    std::string preset;
    uint32_t gpus = 32;
    uint32_t gpusPerServer = 2;
    uint32_t servers = 2;
    uint32_t uplinks = 4;
    uint32_t ctsws = 4;
    uint32_t incast = 8;
    std::string sizeText = "4194304";
    std::string permutationText = "131072";
    std::string rate = "100Gbps";
    std::string cc;
    std::string dcqcnPreset;
    std::string ctswDelay = "4us";
    std::string partition = "racks";
    std::string routes = "zone";
    std::string collective = "allreduce";
    std::string algorithm;
    std::string collSizeText = "1048576";
    uint32_t channels = 2;
    std::string notifyText = "auto";
    double load = 0;
    std::string cdfPath = "data/cdf/websearch.txt";
    std::string duration = "100us";
    uint32_t stream = 1;
    std::string monitor;
    std::string monitorInterval = "10us";
    std::string json;

    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("tiers", "2 (one zone) or 3 (zones joined by ATSWs)", tiers);
    cmd.AddValue("zones", "Zones (3 tiers)", zones);
    cmd.AddValue("oversub", "CTSW down:up capacity (3 tiers)", oversub);
    cmd.AddValue("preset",
                 "One of Meta's layouts (meta-zone-3072, meta-cluster-24k) instead of the shape "
                 "flags",
                 preset);
    cmd.AddGpus(gpus);
    cmd.AddValue("gpus-per-server", "GPUs (NICs) per server", gpusPerServer);
    cmd.AddValue("servers", "Servers per rack", servers);
    cmd.AddUplinks(uplinks);
    cmd.AddValue("ctsws", "CTSWs of the zone", ctsws);
    cmd.AddValue("incast", "GPUs, from the racks of other ranks, that WRITE to GPU 0", incast);
    cmd.AddSize(sizeText);
    cmd.AddValue("permutation",
                 "Bytes every GPU WRITEs to the GPU half the zone away (0: none)",
                 permutationText);
    cmd.AddRate(rate);
    cmd.AddCongestionControl(cc, dcqcnPreset);
    cmd.AddValue("ctsw-delay",
                 "Delay of the RTSW-CTSW links (the cut of a racks partition: the lookahead)",
                 ctswDelay);
    cmd.AddValue("partition",
                 "How to split the fabric over the ranks: none, racks, zones (3 tiers), auto or "
                 "map:R0,R1,... (a rank per rack)",
                 partition);
    cmd.AddValue("routes",
                 "How switches get their routes: zone (the AI Zone's own tables) or bfs "
                 "(RoceSwitchHelper::PopulateRoutes, the shortest paths any topology gets)",
                 routes);
    cmd.AddValue("collective",
                 "Collective over every GPU, from time 0 (allreduce, allgather, reducescatter, "
                 "alltoall, broadcast, sendrecv; none: no collective)",
                 collective);
    cmd.AddValue("algorithm",
                 "Its algorithm (ring, direct, tree, hd, hier; empty: the op's default)",
                 algorithm);
    cmd.AddValue("coll-size", "Its size S, as nccl-tests counts it", collSizeText);
    cmd.AddChannels(channels);
    cmd.AddValue("notify-delay",
                 "How long after an arrival in another server its sender learns of it "
                 "(RoceCommunicator::NotifyDelay; auto: one way across the fabric's top tier)",
                 notifyText);
    cmd.AddGeneratedFlows(cdfPath, load, duration);
    cmd.AddValue("stream", "First random stream of the Poisson flows (with --RngRun)", stream);
    cmd.AddMonitor(monitor, monitorInterval); // rank 0 writes the CSV files
    cmd.AddJson(json);
    uint32_t seed = 1;
    cmd.AddSeed(seed);
    cmd.Parse(argc, argv);
    const RoceCcHelper ccChoice = RoceCli::MakeCongestionControl(cc, dcqcnPreset);
    cc = ccChoice.GetAlgorithm();

    const uint64_t size = ParseBytes("size", sizeText);
    const uint64_t permutation =
        permutationText == "0" ? 0 : ParseBytes("permutation", permutationText);
    const uint32_t rank = RoceMpiHelper::GetRank();
    const uint32_t ranks = RoceMpiHelper::GetSize();

    RoceAiZoneHelper zoneHelper;
    if (!preset.empty())
    {
        zoneHelper.SetPreset(preset);
    }
    else
    {
        zoneHelper.SetTiers(tiers);
        zoneHelper.SetZones(zones);
        zoneHelper.SetGpusPerServer(gpusPerServer);
        zoneHelper.SetServersPerRack(servers);
        zoneHelper.SetUplinks(uplinks);
        zoneHelper.SetCtsws(ctsws);
        zoneHelper.SetGpus(gpus);
        zoneHelper.SetOversubscription(oversub);
    }
    zoneHelper.SetLinkRate(ParseRate("rate", rate));
    zoneHelper.SetLinkDelay(RoceAiZoneHelper::CTSW, ParseTime("ctsw-delay", ctswDelay));
    zoneHelper.SetPartition(partition);
    ccChoice.Configure(zoneHelper);
    const auto wallStart = std::chrono::steady_clock::now();
    RoceAiZone zone = zoneHelper.Build();
    ROCE_ERROR_IF(routes != "zone" && routes != "bfs",
                  "--routes=" << routes << ": expected zone or bfs");
    if (routes == "bfs")
    {
        RoceSwitchHelper::PopulateRoutes();
    }
    gpus = zone.GetNGpus();
    gpusPerServer = zone.gpusPerServer;
    ROCE_ERROR_IF(incast + 1 > gpus, "--incast=" << incast << " needs more than --gpus=" << gpus);

    // A sender learns of an arrival in another server one way across the
    // fabric later (the receiver's credit back), which exceeds every cut
    // link's delay, the lookahead; so do ranks of each other's last flow.
    Time notify = 2 * (zoneHelper.GetLinkDelay(RoceAiZoneHelper::RTSW) +
                       zoneHelper.GetLinkDelay(RoceAiZoneHelper::CTSW));
    if (zone.tiers == 3)
    {
        notify += 2 * zoneHelper.GetLinkDelay(RoceAiZoneHelper::ATSW);
    }
    if (notifyText != "auto")
    {
        notify = ParseTime("notify-delay", notifyText);
    }

    // The collective: every GPU, in order, over a Distributed communicator
    // (RoceMpiHelper::Enable made it the default). Built on every rank alike.
    Ptr<RoceCollective> coll;
    uint64_t collSize = 0;
    RoceCollective::Op collOp = RoceCollective::ALL_REDUCE;
    if (collective != "none")
    {
        collSize = ParseBytes("coll-size", collSizeText);
        RoceCollectiveHelper collHelper;
        collHelper.SetCommunicatorAttribute("NotifyDelay", TimeValue(notify));
        std::vector<uint32_t> ranksOfJob(gpus);
        for (uint32_t g = 0; g < gpus; ++g)
        {
            ranksOfJob[g] = g;
        }
        coll = CreateObject<RoceCollective>();
        coll->SetAttribute("Channels", UintegerValue(channels));
        coll->SetCommunicator(collHelper.CreateCommunicator(zone, ranksOfJob));
        collOp = RoceCollective::OpByName(collective);
        coll->Start(collOp,
                    algorithm.empty() ? RoceCollective::DefaultAlgorithm(collOp)
                                      : RoceCollective::AlgorithmByName(algorithm),
                    collSize);
    }

    // The incast senders: GPUs from the far end of the zone (the last racks,
    // on other ranks than GPU 0 when the zone is split), one per server.
    std::vector<uint32_t> senders;
    for (uint32_t k = 0; k < incast; ++k)
    {
        senders.push_back(gpus - 1 - (k * gpusPerServer) % (gpus - 1));
    }
    std::vector<RoceFlowSpec> flows = RoceWorkloadHelper::Incast(senders, 0, size, Time(0));
    for (uint32_t g = 0; g < gpus && permutation > 0; ++g)
    {
        RoceFlowSpec f;
        f.src = g;
        f.dst = (g + gpus / 2) % gpus;
        f.bytes = permutation;
        flows.push_back(f);
    }
    if (load > 0)
    {
        const std::vector<RoceFlowSpec> poisson =
            RoceWorkloadHelper::Poisson(gpus,
                                        RoceSizeCdf::Read(FindDataFile(cdfPath)),
                                        load,
                                        ParseRate("rate", rate),
                                        Time(0),
                                        ParsePositiveTime("duration", duration),
                                        stream);
        flows.insert(flows.end(), poisson.begin(), poisson.end());
    }
    // Every rank installs every flow (RoceWorkloadHelper): the QPs are
    // connected alike everywhere, and each flow is posted and recorded on its
    // sender's rank. The ranks learn of each other's last flow NotifyDelay
    // later; then the monitor stops, at one time on every rank.
    Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
    stats->SetAttribute("NotifyDelay", TimeValue(notify));
    RoceWorkloadHelper().Install(zone.nics, flows, stats);
    Ptr<RoceMonitor> mon;
    if (!monitor.empty())
    {
        const Time interval = ParsePositiveTime("sample", monitorInterval);
        mon = CreateObject<RoceMonitor>();
        mon->EnablePfcLog();
        mon->EnableQueueSampling(interval);
        mon->EnableLinkUtilisation(interval);
        stats->SetAllDoneCallback(Callback<void>([mon]() { mon->Stop(); }));
    }
    if (rank == 0)
    {
        std::cout << "rocev2-mpi-fabric: " << gpus << " GPUs, " << flows.size() << " flows ("
                  << incast << " x " << size << " B incast to GPU 0"
                  << (permutation ? ", permutation of " + std::to_string(permutation) + " B" : "")
                  << "), cc " << cc << ", " << ranks << " rank(s)\n";
    }
    if (rank == 0)
    {
        zone.PrintPartition(std::cout);
    }

    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    // Every rank's flows and monitor rows to rank 0, in an order that does
    // not depend on the split.
    RoceMpiHelper::Gather(stats);
    if (mon)
    {
        RoceMpiHelper::Gather(mon);
    }
    // This rank's part, as lines "KEY {JSON object}" that rank 0 sorts by
    // KEY (node id and device; rank): the PFC counters of its devices and
    // its GPUs' collective finish times.
    std::ostringstream pfcText;
    uint64_t hops = 0;
    uint64_t pauses = 0;
    RoceForEachDevice<RocePfcNetDevice>(
        [&](const Ptr<Node>& node, const Ptr<RocePfcNetDevice>& dev) {
            if (!RoceMpiHelper::IsLocal(node))
            {
                return;
            }
            const uint32_t n = node->GetId();
            const uint32_t d = dev->GetIfIndex();
            hops += dev->GetTxFrames();
            const RocePfcNetDevice::PfcStats ps = dev->GetPfcStats();
            uint64_t tx = 0;
            uint64_t rx = 0;
            int64_t paused = 0;
            for (uint32_t p = 0; p < ps.pauseTx.size(); ++p)
            {
                tx += ps.pauseTx[p];
                rx += ps.pauseRx[p];
                paused += ps.pausedTime[p].GetNanoSeconds();
            }
            pauses += tx;
            if (tx + rx > 0)
            {
                pfcText << std::setw(8) << std::setfill('0') << n << std::setw(4) << d
                        << std::setfill(' ') << " {\"node\": " << n << ", \"device\": " << d
                        << ", \"pause_tx\": " << tx << ", \"pause_rx\": " << rx
                        << ", \"paused_ns\": " << paused << "}\n";
            }
        });
    // This rank's GPUs' collective finish times, and their bytes.
    std::ostringstream collText;
    uint64_t collLocal = 0;
    uint64_t collUnfinished = 0;
    uint64_t collNicBytes = 0;
    uint64_t collFinishNs = 0;
    for (uint32_t r = 0; coll && r < gpus; ++r)
    {
        Ptr<RoceCommunicator> comm = coll->GetCommunicator();
        if (!comm->IsLocal(r))
        {
            continue;
        }
        ++collLocal;
        const Time t = coll->GetRankFinishTime(r);
        collUnfinished += t.IsNegative() ? 1 : 0;
        collFinishNs = std::max<uint64_t>(collFinishNs, t.IsNegative() ? 0 : t.GetNanoSeconds());
        collText << std::setw(8) << std::setfill('0') << r << std::setfill(' ')
                 << " {\"rank\": " << r << ", \"finish_ns\": " << t.GetNanoSeconds()
                 << ", \"sent\": " << comm->GetBytesSent(r)
                 << ", \"received\": " << comm->GetBytesReceived(r) << "}\n";
    }
    if (coll)
    {
        collNicBytes = coll->GetCommunicator()->GetNicBytes();
    }
    // Links between two nodes of other ranks that this rank did not build:
    // the switch ports and NICs it stands in for.
    uint64_t absentPorts = 0;
    uint64_t absentNics = 0;
    RoceForEachDevice<RoceAbsentDevice>([&](const Ptr<Node>&, const Ptr<RoceAbsentDevice>& absent) {
        ++(RoceNetDevice::IsNic(absent) ? absentNics : absentPorts);
    });
    const RoceInvariantReport invariants = RoceInvariants::Check(false);
    const uint64_t drops = RoceFabricStats::Collect().drops;
    const std::vector<std::string> pfcLines = SortedLines(RoceMpiHelper::Gather(pfcText.str()));
    const std::vector<std::string> collLines = SortedLines(RoceMpiHelper::Gather(collText.str()));
    const std::vector<uint64_t> sums = RoceMpiHelper::Sum({hops,
                                                           pauses,
                                                           drops,
                                                           invariants.Ok() ? 0u : 1u,
                                                           RoceMpiHelper::GetCutFramesSent(),
                                                           RoceMpiHelper::GetCutPfcFramesSent(),
                                                           collLocal,
                                                           collUnfinished,
                                                           collNicBytes,
                                                           RoceMpiHelper::GetCutCallsSent(),
                                                           absentPorts,
                                                           absentNics});
    collFinishNs = RoceMpiHelper::Max({collFinishNs})[0];
    // nccl-tests' bus bandwidth of the collective, from its last rank's finish.
    const double busbw =
        coll && collFinishNs > 0
            ? collSize * RoceCollective::BusBandwidthFactor(collOp, gpus) / collFinishNs
            : 0;

    int status = 0;
    if (rank == 0)
    {
        int64_t lastNs = 0;
        for (const RoceFctRecord& r : stats->GetRecords())
        {
            lastNs = std::max(lastNs, (r.start + r.fct).GetNanoSeconds());
        }
        std::cout << "  " << stats->GetCompleted() << " of " << stats->GetExpected()
                  << " flows completed, last at " << lastNs / 1e3 << " us, " << stats->GetFailed()
                  << " failed; " << sums[0] << " packet hops, " << sums[1] << " PFC pauses, "
                  << sums[2] << " drops; " << sums[4] << " frames crossed ranks (" << sums[5]
                  << " PFC), " << sums[9] << " calls; " << sums[10] << " switch ports and "
                  << sums[11] << " NICs of other ranks not built\n"
                  << (coll ? "  " + collective + " of " + std::to_string(collSize) + " B over " +
                                 std::to_string(gpus) + " GPUs: finished at " +
                                 std::to_string(collFinishNs / 1e3) + " us, busbw " +
                                 std::to_string(busbw) + " GB/s, " + std::to_string(sums[8]) +
                                 " B over NICs, " + std::to_string(sums[7]) + " GPUs unfinished\n"
                           : std::string());
        if (!stats->GetRecords().empty())
        {
            stats->PrintTable(std::cout);
        }
        if (mon)
        {
            mon->WriteCsv(monitor);
            std::cout << "  monitor: " << mon->GetPfcLog().size() << " PFC frames, "
                      << mon->GetQueueSamples().size() << " queue rows, "
                      << mon->GetLinkSamples().size() << " link rows, "
                      << mon->GetCnpCounts().size() << " QPs with CNPs in " << monitor
                      << "-*.csv\n";
        }
        std::cout << "  wall " << std::fixed << std::setprecision(3) << wall << " s on rank 0\n"
                  << "# invariants: " << (sums[3] == 0 ? "ok" : "VIOLATED") << " on " << ranks
                  << " rank(s)\n";
        if (!json.empty())
        {
            std::ofstream out(json);
            ROCE_ERROR_IF(!out, "cannot write --json=" << json);
            out << "{\n  \"gpus\": " << gpus << ",\n  \"incast\": " << incast
                << ",\n  \"size\": " << size << ",\n  \"permutation\": " << permutation
                << ",\n  \"load\": " << load << ",\n  \"cc\": \"" << cc
                << "\",\n  \"packet_hops\": " << sums[0] << ",\n  \"pfc_pauses\": " << sums[1]
                << ",\n  \"drops\": " << sums[2] << ",\n  \"collective\": \"" << collective
                << "\",\n  \"coll_size\": " << collSize
                << ",\n  \"coll_finish_ns\": " << collFinishNs
                << ",\n  \"coll_busbw_gbs\": " << std::setprecision(6) << busbw
                << ",\n  \"coll_nic_bytes\": " << sums[8] << ",\n";
            stats->WriteJsonMembers(out, 2);
            // Every flow, in the gathered order.
            out << ",\n  \"flows\": [";
            const char* sep = "\n    ";
            for (const RoceFctRecord& r : stats->GetRecords())
            {
                out << sep << "{\"sip\": \"" << r.sip << "\", \"dip\": \"" << r.dip
                    << "\", \"sport\": " << r.sport << ", \"bytes\": " << r.bytes
                    << ", \"start_ns\": " << r.start.GetNanoSeconds()
                    << ", \"fct_ns\": " << r.fct.GetNanoSeconds()
                    << ", \"ideal_fct_ns\": " << r.idealFct.GetNanoSeconds()
                    << ", \"failed\": " << (r.failed ? "true" : "false") << "}";
                sep = ",\n    ";
            }
            out << "\n  ]";
            // Each line's JSON object follows its sort key and a blank.
            for (const auto& [name, lines] :
                 {std::pair{"collective_ranks", &collLines}, std::pair{"pfc", &pfcLines}})
            {
                out << ",\n  \"" << name << "\": [";
                sep = "\n    ";
                for (const std::string& l : *lines)
                {
                    out << sep << l.substr(l.find(' ') + 1);
                    sep = ",\n    ";
                }
                out << "\n  ]";
            }
            if (mon)
            {
                out << ",\n";
                mon->WriteJsonMembers(out, 2);
            }
            out << ",\n  \"invariants_ok\": " << (sums[3] == 0 ? "true" : "false") << "\n}\n";
        }
        status = (stats->GetFailed() == 0 && stats->GetCompleted() == flows.size() &&
                  sums[3] == 0 && sums[6] == (coll ? gpus : 0) && sums[7] == 0)
                     ? 0
                     : 1;
    }
    Simulator::Destroy();
    RoceMpiHelper::Disable();
    return status;
}
