/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * qp-scale: what many queue pairs cost a NIC. Two hosts on one 100 Gb/s link;
 * host 0 opens --qps queue pairs to host 1, of which --active write --size
 * bytes each, all at t = 0. The scheduler's cost per packet should not grow
 * with the idle QPs, and an idle QP should cost little memory.
 *
 * Prints, besides the usual BENCH lines (sim_time_s, events, packet_hops):
 *   BENCH data_packets=N              data packets the senders put on the wire
 *   BENCH qps=N active=N
 *   BENCH rss_setup_bytes_per_qp=X    resident memory added per QP (both ends
 *                                     counted: 2 x qps QPs) by creating and
 *                                     connecting the QPs, from /proc/self/status
 *   BENCH heap_setup_bytes_per_qp=X   the same in malloc'd bytes (mallinfo2)
 *   BENCH heap_bytes_per_qp=X         malloc'd bytes per QP once the simulation
 *                                     has run (ns-3's setup-time Time records
 *                                     freed); with --active=0 what an idle QP
 *                                     costs
 *
 *   rocev2-qp-scale --qps=10000 --active=16 --size=1000000
 *   rocev2-qp-scale --qps=100000 --active=0 --cc=dcqcn   (memory only)
 */

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <fstream>
#include <iostream>
#include <malloc.h>
#include <string>

using namespace ns3;

namespace
{

/** \return the resident set size of this process in bytes (VmRSS), 0 if unknown */
uint64_t
ResidentBytes()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
    {
        if (line.rfind("VmRSS:", 0) == 0)
        {
            return std::stoull(line.substr(6)) * 1024;
        }
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    uint32_t qps = 1000;
    uint32_t active = 16;
    uint64_t size = 1000000;
    std::string cc;
    std::string preset;
    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("qps", "Queue pairs from host 0 to host 1", qps);
    cmd.AddValue("active", "How many of them write --size bytes (the first ones)", active);
    cmd.AddValue("size", "Bytes each active QP writes", size);
    cmd.AddCongestionControl(cc, preset);
    cmd.Parse(argc, argv);
    if (qps == 0 || active > qps)
    {
        std::cerr << "rocev2-qp-scale: need 0 < --qps and --active <= --qps (got qps=" << qps
                  << ", active=" << active << ")\n";
        return 2;
    }

    NodeContainer hosts(2);
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    roce.SetChannelAttribute("Delay", StringValue("1us"));
    RoceCli::MakeCongestionControl(cc, preset).Configure(roce); // no switch: the NICs' half
    NetDeviceContainer nics = roce.Install(hosts.Get(0), hosts.Get(1));

    std::vector<Ptr<RoceQueuePair>> senders;
    senders.reserve(qps);
    uint64_t before = ResidentBytes();
    size_t heapBefore = mallinfo2().uordblks;
    for (uint32_t i = 0; i < qps; ++i)
    {
        senders.push_back(roce.CreateQp(nics.Get(0), nics.Get(1)).first);
    }
    uint64_t after = ResidentBytes();
    size_t heapAfter = mallinfo2().uordblks;
    for (uint32_t i = 0; i < active; ++i)
    {
        senders[i]->PostWrite(size);
    }
    Simulator::Run();
    // Until Simulator::Run() ns-3 records every Time object constructed
    // (Time::Mark, a std::set node of ~48 bytes each, to rescale them should
    // the resolution change) and frees the records when it starts: the heap
    // after Run() is what the QPs cost for the rest of the simulation.
    size_t heapRun = mallinfo2().uordblks;

    uint64_t packets = 0;
    uint64_t acked = 0;
    for (const auto& qp : senders)
    {
        packets += qp->GetStats().dataPacketsSent;
        acked += qp->GetStats().bytesAcked;
    }
    std::cout << "rocev2-qp-scale: " << qps << " QPs, " << active << " active x " << size
              << " B, cc " << cc << ": " << packets << " data packets, " << acked
              << " B acknowledged, "
              << (after > before ? double(after - before) / (2.0 * qps) : 0.0)
              << " B resident per QP\n";
    RoceFabricStats stats = RoceFabricStats::Collect();
    stats.WriteBenchLines(std::cout);
    std::cout << "BENCH data_packets=" << packets << " qps=" << qps << " active=" << active << "\n"
              << "BENCH rss_setup_bytes_per_qp="
              << (after > before ? double(after - before) / (2.0 * qps) : 0.0) << "\n"
              << "BENCH heap_setup_bytes_per_qp=" << double(heapAfter - heapBefore) / (2.0 * qps)
              << "\n"
              << "BENCH heap_bytes_per_qp=" << (double(heapRun) - double(heapBefore)) / (2.0 * qps)
              << "\n";
    Simulator::Destroy();
    return acked == uint64_t(active) * size ? 0 : 1;
}
