/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GPUs of one server copy data to each other over its scale-up domain
 * (RoceNvlinkDomain: NVLink through a non-blocking NVSwitch), all at once:
 *
 *   all-to-all  every GPU sends --size bytes to every other GPU; each port
 *               carries G-1 transfers, so all end at Latency + (G-1)*B*8/rate
 *   ring        GPU i sends --size bytes to GPU i+1 mod G (one ring step);
 *               every port carries one transfer: Latency + B*8/rate
 *
 *   ./rocev2 run rocev2-nvlink-transfer --pattern=all-to-all --size=16MB
 *
 * Prints the completion times against the formula and the bytes each GPU
 * sent and received; exits 1 if a transfer ends outside [formula, formula +
 * 1 ns) (the simulator's tick) or a byte count differs from the formula.
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <vector>

using namespace ns3;
using namespace ns3::RoceCli;

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    uint32_t gpus = 8;
    std::string pattern = "all-to-all";
    std::string sizeText = "1MB";
    std::string rateText = "3600Gbps";
    std::string latencyText = "1us";

    RoceCommandLine cmd(__FILE__);
    cmd.AddGpus(gpus);
    cmd.AddValue("pattern", "all-to-all or ring", pattern);
    cmd.AddSize(sizeText);
    cmd.AddValue("nvlink-rate", "Per-GPU, per-direction NVLink rate (DataRate)", rateText);
    cmd.AddValue("latency", "First-byte latency of a transfer (Latency)", latencyText);
    cmd.Parse(argc, argv);

    ROCE_ERROR_IF(pattern != "all-to-all" && pattern != "ring",
                  "--pattern=" << pattern << " is not all-to-all or ring");
    const uint64_t bytes = ParseBytes("size", sizeText);
    // A zero rate or GPU count reaches the model, which refuses it by name.
    const DataRate rate = ParseRateOrZero("nvlink-rate", rateText);
    const Time latency = ParseTime("latency", latencyText);

    Ptr<Node> server = CreateObject<Node>();
    Ptr<RoceNvlinkDomain> domain = RoceNvlinkDomain::Install(server, gpus);
    domain->SetAttribute("DataRate", DataRateValue(rate));
    domain->SetAttribute("Latency", TimeValue(latency));
    ROCE_ERROR_IF(gpus < 2, "--gpus=" << gpus << ": a pattern needs at least 2 GPUs");

    std::vector<Time> done;
    Callback<void, uint64_t> record([&done](uint64_t) { done.push_back(Simulator::Now()); });
    const bool ring = pattern == "ring";
    for (uint32_t s = 0; s < gpus; ++s)
    {
        for (uint32_t r = 0; r < gpus; ++r)
        {
            if (s != r && (!ring || r == (s + 1) % gpus))
            {
                domain->Send(s, r, bytes, record);
            }
        }
    }
    const uint64_t transfers = ring ? gpus : uint64_t{gpus} * (gpus - 1);
    Simulator::Run();

    // Transfers per port: G-1 for all-to-all, 1 for a ring step.
    const uint64_t perPort = ring ? 1 : gpus - 1;
    const long double formulaNs =
        latency.GetNanoSeconds() + static_cast<long double>(perPort * bytes) * 8 * 1e9L /
                                       static_cast<long double>(rate.GetBitRate());
    const Time first = done.empty() ? Time(0) : *std::min_element(done.begin(), done.end());
    const Time last = done.empty() ? Time(0) : *std::max_element(done.begin(), done.end());

    std::cout << std::fixed << std::setprecision(3);
    std::cout << "rocev2-nvlink-transfer: " << pattern << ", " << gpus << " GPUs, " << bytes
              << " B per transfer, " << rate.GetBitRate() / 1e9
              << " Gb/s per GPU per direction, latency " << latency.As(Time::US) << "\n";
    std::cout << "  transfers: " << done.size() << " of " << transfers << "\n";
    std::cout << "  completion: first " << first.GetNanoSeconds() / 1e3 << " us, last "
              << last.GetNanoSeconds() / 1e3 << " us; formula Latency + " << perPort
              << "*B*8/rate = " << static_cast<double>(formulaNs / 1e3) << " us\n";
    // Measured: the bits each egress port carried over the time until the
    // last delivery, less the latency.
    const long double busyNs = last.GetNanoSeconds() - latency.GetNanoSeconds();
    std::cout << "  per-GPU egress rate: "
              << (busyNs > 0 ? static_cast<double>(perPort * bytes * 8 / busyNs) : 0.0)
              << " Gb/s measured, " << rate.GetBitRate() / 1e9 << " Gb/s configured\n";

    bool ok = done.size() == transfers;
    for (const Time& t : done)
    {
        const long double ns = t.GetNanoSeconds();
        ok = ok && ns + 1e-6L >= formulaNs && ns < formulaNs + 1;
    }
    for (uint32_t g = 0; g < gpus; ++g)
    {
        ok = ok && domain->GetTxBytes(g) == perPort * bytes &&
             domain->GetRxBytes(g) == perPort * bytes;
    }
    std::cout << "  per GPU: sent " << domain->GetTxBytes(0) << " B, received "
              << domain->GetRxBytes(0) << " B (GPU 0; formula " << perPort
              << "*B = " << perPort * bytes << " B on every GPU)\n";
    std::cout << (ok ? "OK: every transfer and byte count matches the formula\n"
                     : "FAIL: a completion time or byte count differs from the formula\n");
    Simulator::Destroy();
    return ok ? 0 : 1;
}
