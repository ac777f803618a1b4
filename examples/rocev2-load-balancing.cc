/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Load balancing beyond ECMP on a skewed permutation.
 *
 *   host ─┐              ┌─ spine 0 ─┐              ┌─ host
 *   host ─┼─ leaf 0 ─────┼─ spine 1 ─┼───── leaf 1 ─┼─ host
 *   ...   ┘   ...        └─  ...    ─┘     ...      └─ ...
 *
 * --leaves x --spines leaf-spine, --hosts-per-leaf hosts per leaf (default
 * = spines: non-blocking), every link at --rate. Host h of leaf l writes to
 * host h of leaf l+1 (mod leaves): --messages RDMA WRITEs of --size bytes,
 * each posted --think after the previous one completed (the idle gaps that
 * flowlet switching needs). With --skew=1 (default) each flow's UDP source
 * port is chosen so that its leaf's ECMP hash puts all the leaf's flows on
 * the uplink to spine 0, the worst case of ECMP's collisions.
 *
 *   ./rocev2 run rocev2-load-balancing --lb=ecmp
 *   ./rocev2 run rocev2-load-balancing --lb=flowlet --flowlet-choice=least-loaded
 *   ./rocev2 run rocev2-load-balancing --lb=spray --receive-window=0   # go-back-N
 *   ./rocev2 run rocev2-load-balancing --lb=te --json=te.json
 *
 * --lb: ecmp, flowlet, spray, adaptive (RoceSwitch LoadBalancing), or te:
 * ECMP switches with every flow pinned by RoceTeHelper on the path its
 * greedy pass over the traffic matrix chose. --receive-window sets the
 * receivers' RoceQueuePair ReceiveWindow (selective repeat); "auto" gives
 * 256 packets to spray and adaptive, which reorder, and go-back-N (0) to
 * the others.
 *
 * Prints the data bytes on every uplink (leaf -> spine), the max and mean
 * uplink load and their ratio, the completion time of the permutation and
 * the mean message completion time, retransmissions and NAKs. The program
 * exits 1 if a byte is missing, a frame was dropped or a buffer did not drain.
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

using namespace ns3;
using namespace ns3::RoceCli;

namespace
{

/// One flow: posts its messages one after another with think time between.
struct Flow
{
    Ptr<RoceQueuePair> qp; //!< the sending queue pair
    Ptr<RoceQueuePair> rx; //!< the receiving queue pair
    uint32_t left{0};      //!< messages still to post
    uint64_t bytes{0};     //!< bytes per message
    Time think;            //!< idle time before the next post
    Time last;             //!< when its last message completed
    Time fctSum;           //!< sum of its message completion times

    /** \param c the completion of the previous message */
    void Done(const RoceCompletion& c)
    {
        last = c.completed;
        fctSum += c.completed - c.posted;
        if (left > 0)
        {
            Simulator::Schedule(think, &Flow::Post, this);
        }
    }

    /** \brief Post the next message. */
    void Post()
    {
        --left;
        qp->PostWrite(bytes, MakeCallback(&Flow::Done, this));
    }
};

/// Data frame bytes leaving one switch port.
struct PortBytes
{
    uint64_t bytes{0}; //!< data frame bytes (MacTx sizes)

    /** \param p a frame */
    void Tx(Ptr<const Packet> p)
    {
        RoceFrame f = RoceFrame::Parse(*p);
        if (f.isRoce && f.opcode <= 0x0A) // RC SEND and RDMA WRITE opcodes
        {
            bytes += p->GetSize();
        }
    }
};

} // namespace

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    std::string lb = "ecmp";
    uint32_t nLeaves = 4;
    uint32_t nSpines = 4;
    uint32_t hostsPerLeaf = 0;
    std::string rate = "100Gbps";
    std::string delay = "1us";
    uint32_t messages = 8;
    std::string sizeText = "256KiB";
    std::string thinkText = "300us";
    bool skew = true;
    std::string flowletGap = "256us";
    std::string flowletChoice = "hash";
    uint32_t flowletTable = 4096;
    std::string sprayMode = "random";
    std::string window = "auto";
    bool eEcmp = false;
    std::string json;

    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("lb", "Load balancing: ecmp, flowlet, spray, adaptive or te", lb);
    cmd.AddValue("leaves", "Leaf switches", nLeaves);
    cmd.AddValue("spines", "Spine switches (uplinks per leaf)", nSpines);
    cmd.AddValue("hosts-per-leaf", "Hosts per leaf (default: --spines)", hostsPerLeaf);
    cmd.AddRate(rate);
    cmd.AddDelay(delay);
    cmd.AddValue("messages", "RDMA WRITEs per flow", messages);
    cmd.AddSize(sizeText);
    cmd.AddValue("think", "Idle time between a WRITE's completion and the next post", thinkText);
    cmd.AddValue("skew",
                 "Choose source ports so that ECMP puts each leaf's flows on one uplink",
                 skew);
    cmd.AddValue("flowlet-gap", "RoceSwitch FlowletGap", flowletGap);
    cmd.AddValue("flowlet-choice", "RoceSwitch FlowletChoice: hash or least-loaded", flowletChoice);
    cmd.AddValue("flowlet-table", "RoceSwitch FlowletTableSize", flowletTable);
    cmd.AddValue("spray-mode", "RoceSwitch SprayMode: random or round-robin", sprayMode);
    cmd.AddValue("receive-window",
                 "Receivers' ReceiveWindow in packets (0: go-back-N; auto: 256 for spray and "
                 "adaptive, else 0)",
                 window);
    cmd.AddValue("e-ecmp", "RoceSwitch EcmpUseQp (hash the destination QP too)", eEcmp);
    cmd.AddJson(json);
    uint32_t seed = 1;
    cmd.AddSeed(seed);
    cmd.Parse(argc, argv);

    ROCE_ERROR_IF(lb != "ecmp" && lb != "flowlet" && lb != "spray" && lb != "adaptive" &&
                      lb != "te",
                  "--lb=" << lb << " is unknown (known: ecmp, flowlet, spray, adaptive, te)");
    ROCE_ERROR_IF(nLeaves < 2, "--leaves=" << nLeaves << " must be at least 2");
    ROCE_ERROR_IF(nSpines < 1, "--spines=" << nSpines << " must be at least 1");
    ROCE_ERROR_IF(messages < 1, "--messages must be at least 1");
    if (hostsPerLeaf == 0)
    {
        hostsPerLeaf = nSpines;
    }
    const uint64_t size = ParseBytes("size", sizeText);
    const Time think = ParseTime("think", thinkText);
    const DataRate linkRate = ParseRate("rate", rate);
    const Time linkDelay = ParseTime("delay", delay);
    uint32_t receiveWindow = 0;
    if (window == "auto")
    {
        receiveWindow = lb == "spray" || lb == "adaptive" ? 256 : 0;
    }
    else
    {
        ROCE_ERROR_IF(window.empty() ||
                          window.find_first_not_of("0123456789") != std::string::npos ||
                          window.size() > 9,
                      "--receive-window=" << window << " is not a packet count or auto");
        receiveWindow = static_cast<uint32_t>(std::stoul(window));
    }

    NodeContainer leaves(nLeaves);
    NodeContainer spines(nSpines);
    NodeContainer hosts(nLeaves * hostsPerLeaf);
    RoceSwitchHelper sh;
    sh.SetSwitchAttribute("LoadBalancing", StringValue(lb == "te" ? "ecmp" : lb));
    sh.SetSwitchAttribute("FlowletGap", TimeValue(ParseTime("flowlet-gap", flowletGap)));
    sh.SetSwitchAttribute("FlowletChoice", StringValue(flowletChoice));
    sh.SetSwitchAttribute("FlowletTableSize", UintegerValue(flowletTable));
    sh.SetSwitchAttribute("SprayMode", StringValue(sprayMode));
    sh.SetSwitchAttribute("EcmpUseQp", BooleanValue(eEcmp));
    sh.Install(leaves);
    sh.Install(spines);
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", DataRateValue(linkRate));
    roce.SetChannelAttribute("Delay", TimeValue(linkDelay));
    roce.SetQpAttribute("ReceiveWindow", UintegerValue(receiveWindow));
    std::vector<Ptr<RoceNetDevice>> nics;
    for (uint32_t h = 0; h < hosts.GetN(); ++h)
    {
        nics.push_back(DynamicCast<RoceNetDevice>(
            roce.Install(hosts.Get(h), leaves.Get(h / hostsPerLeaf)).Get(0)));
    }
    // uplink u = leaf * nSpines + spine
    std::vector<std::unique_ptr<PortBytes>> uplinks;
    std::vector<uint32_t> spine0Port(nLeaves);
    for (uint32_t l = 0; l < nLeaves; ++l)
    {
        for (uint32_t s = 0; s < nSpines; ++s)
        {
            Ptr<RoceSwitchPort> up =
                DynamicCast<RoceSwitchPort>(roce.Install(leaves.Get(l), spines.Get(s)).Get(0));
            uplinks.push_back(std::make_unique<PortBytes>());
            up->TraceConnectWithoutContext("MacTx",
                                           MakeCallback(&PortBytes::Tx, uplinks.back().get()));
            if (s == 0)
            {
                spine0Port[l] = up->GetPortIndex();
            }
        }
    }
    RoceSwitchHelper::PopulateRoutes();
    int64_t stream = 1;
    for (NodeContainer* c : {&leaves, &spines})
    {
        for (uint32_t i = 0; i < c->GetN(); ++i)
        {
            stream += c->Get(i)->GetObject<RoceSwitch>()->AssignStreams(stream);
        }
    }

    std::vector<Flow> flows(hosts.GetN());
    RoceTeHelper te;
    const uint32_t mtu = nics[0]->GetPayloadMtu();
    // The data frame bytes of one WRITE, the TE demand unit: every packet
    // carries Ethernet, IPv4, UDP, BTH and ICRC, the first one a RETH.
    const uint64_t frameBytes =
        size + (size + mtu - 1) / mtu * (RoceFrame::HEADER_BYTES + RoceIcrcTrailer::SIZE) +
        RoceRethHeader::SIZE;
    for (uint32_t src = 0; src < hosts.GetN(); ++src)
    {
        uint32_t l = src / hostsPerLeaf;
        uint32_t dst = ((l + 1) % nLeaves) * hostsPerLeaf + src % hostsPerLeaf;
        if (skew && nSpines > 1)
        {
            Ptr<RoceSwitch> leaf = leaves.Get(l)->GetObject<RoceSwitch>();
            Ipv4Address a = nics[src]->GetIpv4Address();
            Ipv4Address b = nics[dst]->GetIpv4Address();
            std::vector<uint32_t> group = leaf->Lookup(b);
            uint16_t sport = 0;
            for (uint32_t s = 0xC000; s <= 0xFFFF && sport == 0; ++s)
            {
                uint64_t h = RoceEcmpHash::Hash(leaf->GetEcmpSeed(),
                                                a.Get(),
                                                b.Get(),
                                                static_cast<uint16_t>(s),
                                                RoceFrame::ROCEV2_UDP_PORT,
                                                17,
                                                false,
                                                0);
                if (group[RoceEcmpHash::Select(h, static_cast<uint32_t>(group.size()))] ==
                    spine0Port[l])
                {
                    sport = static_cast<uint16_t>(s);
                }
            }
            roce.SetQpAttribute("SourcePort", UintegerValue(sport));
        }
        auto [qa, qb] = roce.CreateQp(nics[src], nics[dst]);
        flows[src].qp = qa;
        flows[src].rx = qb;
        flows[src].left = messages;
        flows[src].bytes = size;
        flows[src].think = think;
        if (lb == "te")
        {
            te.AddFlow(qa, static_cast<double>(messages * frameBytes));
        }
    }
    double teMax = 0;
    if (lb == "te")
    {
        teMax = te.Install();
    }
    for (auto& f : flows)
    {
        f.Post();
    }
    Simulator::Run();
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(false, std::cout);

    RoceFabricStats stats = RoceFabricStats::Collect();
    const uint64_t expected = uint64_t(flows.size()) * messages * size;
    Time done;
    Time fctSum;
    uint64_t naks = 0;
    uint64_t outOfOrder = 0;
    uint64_t flowlets = 0;
    for (const auto& f : flows)
    {
        done = std::max(done, f.last);
        fctSum += f.fctSum;
        naks += f.rx->GetStats().naksSent;
        outOfOrder += f.rx->GetStats().outOfOrderReceived;
    }
    for (NodeContainer* c : {&leaves, &spines})
    {
        for (uint32_t i = 0; i < c->GetN(); ++i)
        {
            flowlets += c->Get(i)->GetObject<RoceSwitch>()->GetFlowletsStarted();
        }
    }
    uint64_t maxUp = 0;
    double sumUp = 0;
    for (const auto& u : uplinks)
    {
        maxUp = std::max(maxUp, u->bytes);
        sumUp += u->bytes;
    }
    const double meanUp = sumUp / uplinks.size();
    const double meanFctUs = fctSum.GetNanoSeconds() / 1e3 / (flows.size() * messages);

    std::cout << std::fixed << std::setprecision(3);
    std::cout << "rocev2-load-balancing: --lb=" << lb << ", " << nLeaves << " leaves x " << nSpines
              << " spines, " << hostsPerLeaf << " hosts per leaf at " << rate << ", "
              << flows.size() << " flows x " << messages << " x " << size << " B, think "
              << think.As(Time::US) << (skew ? ", ECMP-skewed source ports" : "")
              << ", receive window " << receiveWindow << "\n";
    std::cout << "  uplink data MB (rows: leaves, columns: spines)\n";
    for (uint32_t l = 0; l < nLeaves; ++l)
    {
        std::cout << "   ";
        for (uint32_t s = 0; s < nSpines; ++s)
        {
            std::cout << " " << std::setw(8) << uplinks[l * nSpines + s]->bytes / 1e6;
        }
        std::cout << "\n";
    }
    std::cout << "  max uplink " << maxUp / 1e6 << " MB, mean " << meanUp / 1e6 << " MB, max/mean "
              << (meanUp > 0 ? maxUp / meanUp : 0) << "\n";
    if (lb == "te")
    {
        std::cout << "  TE computed max link load " << teMax / 1e6 << " MB\n";
    }
    std::cout << "  completion " << done.GetNanoSeconds() / 1e3 << " us, mean message FCT "
              << meanFctUs << " us\n"
              << "  delivered " << stats.bytesDelivered << "/" << expected << " B, drops "
              << stats.drops << ", retransmits " << stats.retransmits << ", NAKs " << naks
              << ", out-of-order arrivals " << outOfOrder << ", timeouts " << stats.timeouts
              << ", flowlets " << flowlets << ", PFC pauses " << stats.pfcPauseTx
              << ", buffer left " << stats.bufferedBytes << " B\n";

    if (!json.empty())
    {
        std::ofstream out(json);
        ROCE_ERROR_IF(!out, "cannot write --json=" << json);
        out << std::fixed << std::setprecision(3) << "{\n  \"lb\": \"" << lb
            << "\",\n  \"uplink_bytes\": [";
        for (std::size_t u = 0; u < uplinks.size(); ++u)
        {
            out << (u ? ", " : "") << uplinks[u]->bytes;
        }
        out << "],\n  \"max_uplink_bytes\": " << maxUp << ",\n  \"mean_uplink_bytes\": " << meanUp
            << ",\n  \"te_max_link_load\": " << teMax
            << ",\n  \"completion_us\": " << done.GetNanoSeconds() / 1e3
            << ",\n  \"mean_fct_us\": " << meanFctUs << ",\n  \"naks\": " << naks
            << ",\n  \"flowlets\": " << flowlets << ",\n";
        stats.WriteJsonMembers(out);
        RoceCli::CloseJson(out, invariants);
    }
    Simulator::Destroy();
    bool ok = stats.bytesDelivered == expected && stats.drops == 0 && stats.bufferedBytes == 0;
    if (!ok)
    {
        std::cerr << "rocev2-load-balancing: FAILED: delivered " << stats.bytesDelivered << " of "
                  << expected << " B, " << stats.drops << " drops, " << stats.bufferedBytes
                  << " B left in switch buffers\n";
    }
    return ok ? 0 : 1;
}
