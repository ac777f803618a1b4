/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Two hosts joined by one RoCEv2 link; host 0 RDMA-WRITEs a message to host 1
 * over one or more queue pairs (with --qps=N the message is split into N
 * pieces, one per QP). Optional per-packet loss on the link exercises
 * go-back-N and the retransmission timeout.
 *
 *   ./rocev2 run rocev2-two-hosts --size=10000000 --error-rate=1e-3 --json=out.json
 *
 * Prints a summary, optionally writes JSON with goodput_gbps, bytes_delivered,
 * retransmits, timeouts and fct_us, and exits 1 if any byte is missing.
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;
using namespace ns3::RoceCli;

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    std::string rate = "100Gbps";
    std::string delay = "1us";
    uint32_t mtu = 1024;
    std::string sizeText = "10000000";
    uint32_t qps = 1;
    double errorRate = 0;
    std::string rto = "100us";
    uint32_t priority = 3;
    std::string drainRate = "0bps";
    std::string remote;
    std::string pcap;
    std::string json;

    RoceCommandLine cmd(__FILE__);
    cmd.AddRate(rate);
    cmd.AddDelay(delay);
    cmd.AddMtu(mtu);
    cmd.AddSize(sizeText);
    cmd.AddValue("qps", "Queue pairs the message is split over", qps);
    cmd.AddValue("error-rate",
                 "Per-packet loss probability on the link (both directions)",
                 errorRate);
    cmd.AddValue("rto", "Retransmission timeout of the QPs", rto);
    cmd.AddValue("priority", "Priority of the QPs (0..7)", priority);
    cmd.AddValue("rx-drain-rate",
                 "Host drain rate of the receiver's NIC buffer (0bps: no bottleneck); below the "
                 "link rate the receiver pauses the sender with PFC",
                 drainRate);
    cmd.AddValue("remote",
                 "Create the QPs towards this IPv4 address instead of host 1's NIC",
                 remote);
    cmd.AddValue("pcap", "Write pcap files with this prefix", pcap);
    cmd.AddJson(json);
    uint32_t seed = 1;
    cmd.AddSeed(seed);
    cmd.Parse(argc, argv);

    ROCE_ERROR_IF(qps == 0, "--qps must be at least 1");
    const uint64_t size = ParseBytes("size", sizeText);
    const DataRate linkRate = ParseRate("rate", rate);
    const Time linkDelay = ParseTime("delay", delay);
    const Time retransmitTimeout = ParsePositiveTime("rto", rto);
    const DataRate rxDrainRate = ParseRateOrZero("rx-drain-rate", drainRate);
    ROCE_ERROR_IF(errorRate < 0 || errorRate > 1,
                  "--error-rate=" << errorRate << " out of range 0..1");

    NodeContainer hosts(2);
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", DataRateValue(linkRate));
    roce.SetNicAttribute("PayloadMtu", UintegerValue(mtu));
    roce.SetChannelAttribute("Delay", TimeValue(linkDelay));
    roce.SetQpAttribute("RetransmitTimeout", TimeValue(retransmitTimeout));
    roce.SetQpAttribute("Priority", UintegerValue(priority));
    roce.SetNicAttribute("RxDrainRate", DataRateValue(rxDrainRate));
    NetDeviceContainer nics = roce.Install(hosts.Get(0), hosts.Get(1));
    if (errorRate > 0)
    {
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(errorRate);
            nics.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }
    if (!pcap.empty())
    {
        roce.EnablePcapAll(pcap);
    }

    std::vector<Ptr<RoceQueuePair>> senders;
    std::vector<Ptr<RoceQueuePair>> receivers;
    for (uint32_t q = 0; q < qps; ++q)
    {
        auto [s, r] = remote.empty() ? roce.CreateQp(nics.Get(0), nics.Get(1))
                                     : roce.CreateQp(nics.Get(0), Ipv4Address(remote.c_str()));
        senders.push_back(s);
        receivers.push_back(r);
    }
    Time lastCompletion;
    uint32_t failed = 0;
    auto onComplete = [&](const RoceCompletion& c) {
        lastCompletion = std::max(lastCompletion, c.completed);
        failed += c.success ? 0 : 1;
    };
    for (uint32_t q = 0; q < qps; ++q)
    {
        uint64_t piece = size / qps + (q < size % qps ? 1 : 0);
        senders[q]->PostWrite(piece, Callback<void, const RoceCompletion&>(onComplete));
    }

    Simulator::Run();
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(errorRate > 0, std::cout);

    uint64_t delivered = 0;
    uint64_t retransmits = 0;
    uint64_t timeouts = 0;
    for (uint32_t q = 0; q < qps; ++q)
    {
        delivered += receivers[q]->GetStats().bytesDelivered;
        retransmits += senders[q]->GetStats().retransmittedPackets;
        timeouts += senders[q]->GetStats().timeouts;
    }
    double fctUs = lastCompletion.GetSeconds() * 1e6;
    double goodput = fctUs > 0 ? delivered * 8.0 / (fctUs * 1e3) : 0;

    std::cout << std::fixed << std::setprecision(3);
    std::cout << "rocev2-two-hosts: " << size << " B over " << qps << " QP(s) at " << rate
              << ", MTU " << mtu << ", loss " << errorRate << "\n"
              << "  delivered " << delivered << " B in " << fctUs << " us, goodput " << goodput
              << " Gb/s, retransmitted packets " << retransmits << ", timeouts " << timeouts
              << (failed ? ", FAILED messages " + std::to_string(failed) : std::string()) << "\n";
    RoceFabricStats::Collect().WriteBenchLines(std::cout);
    if (!json.empty())
    {
        std::ofstream out(json);
        ROCE_ERROR_IF(!out, "cannot write --json=" << json);
        out << std::setprecision(10) << "{\n"
            << "  \"size\": " << size << ",\n"
            << "  \"qps\": " << qps << ",\n"
            << "  \"mtu\": " << mtu << ",\n"
            << "  \"rate\": \"" << rate << "\",\n"
            << "  \"error_rate\": " << errorRate << ",\n"
            << "  \"bytes_delivered\": " << delivered << ",\n"
            << "  \"fct_us\": " << fctUs << ",\n"
            << "  \"goodput_gbps\": " << goodput << ",\n"
            << "  \"retransmits\": " << retransmits << ",\n"
            << "  \"timeouts\": " << timeouts << ",\n"
            << "  \"failed_messages\": " << failed;
        RoceCli::CloseJson(out, invariants);
    }
    Simulator::Destroy();
    return (delivered == size && failed == 0 && invariants.Ok()) ? 0 : 1;
}
