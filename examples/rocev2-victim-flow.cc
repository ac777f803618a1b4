/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The victim flow of PFC congestion spreading (Zhu et al., SIGCOMM'15): an
 * incast behind the spine makes PFC pause hop by hop back to the senders'
 * leaves, and a flow that shares only an uncongested upstream link with the
 * incast is paused with it.
 *
 *                        spine
 *             ┌─────────┬────┴────┬──────────┐
 *           leaf 0    leaf 1    leaf 2     leaf 3
 *          S … VR      S …     V  S S …      R
 *
 * --senders hosts on leaf 0 and on leaf 1, and --victim-leaf-senders hosts on
 * leaf 2, RDMA-WRITE --size bytes each to R on leaf 3: N incast flows share
 * the leaf 3 → R link, 100/N Gb/s each. The victim V on leaf 2 writes to VR
 * on leaf 0; its path (leaf 2 → spine → leaf 0) carries no congested link, and
 * it shares the leaf 2 → spine link with the k incast flows of its leaf. Its
 * max-min fair share is the rest of that link: (1 - k/N) of the line rate.
 *
 * With PFC alone (--cc=none) leaf 3 pauses the spine, the spine pauses the
 * leaves, and the victim, held behind the pauses of leaf 2's uplink, runs far
 * below its fair share. With DCQCN (--cc=dcqcn) the incast senders slow down
 * before PFC fires and the victim gets its share back.
 *
 *   ./rocev2 run rocev2-victim-flow --cc=none --json=victim-pfc.json
 *   ./rocev2 run rocev2-victim-flow --cc=dcqcn --json=victim-dcqcn.json
 *
 * The victim's goodput is measured while every incast flow is running (from
 * --warmup until the first incast flow completes). The JSON holds
 * victim_gbps, victim_fair_share_gbps (goodput: payload share of the wire),
 * incast per-flow completion times, and per switch the PFC pauses sent and
 * received. The program exits 1 if a byte is missing, a lossless class
 * dropped, a pause is still held at the end, or a buffer did not drain.
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

/// PFC counters of one switch, all ports and priorities.
struct SwitchPfc
{
    std::string name;     //!< "leaf0" ... "spine"
    uint64_t pauseTx{0};  //!< pause frames sent (XOFF and refreshes)
    uint64_t resumeTx{0}; //!< XON frames sent
    uint64_t pauseRx{0};  //!< pauses received
    bool held{false};     //!< a port still holds XOFF or is paused
};

/**
 * \param node a switch node
 * \param name its name in the output
 * \return its PFC counters
 */
static SwitchPfc
CollectPfc(Ptr<Node> node, const std::string& name)
{
    SwitchPfc s;
    s.name = name;
    Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
    for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
    {
        Ptr<RoceSwitchPort> port = sw->GetPort(i);
        RocePfcNetDevice::PfcStats st = port->GetPfcStats();
        for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
        {
            s.pauseTx += st.pauseTx[p];
            s.resumeTx += st.resumeTx[p];
            s.pauseRx += st.pauseRx[p];
            s.held = s.held || port->IsXoff(p) || port->IsPaused(p);
        }
    }
    return s;
}

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    uint32_t senders = 1;
    uint32_t localSenders = 2;
    std::string sizeText = "4000000";
    std::string victimSizeText = "40000000";
    std::string rate = "100Gbps";
    std::string fabricRate = "400Gbps";
    std::string delay = "1us";
    uint32_t mtu = 1024;
    double bufferMb = 4;
    std::string cc;
    std::string preset;
    std::string warmupText = "500us";
    std::string json;

    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("senders", "Incast senders on leaf 0 and on leaf 1 (each)", senders);
    cmd.AddValue("victim-leaf-senders",
                 "Incast senders on the victim's leaf 2 (at least 1: the victim shares its "
                 "uplink with them)",
                 localSenders);
    cmd.AddSize(sizeText);
    cmd.AddValue("victim-size",
                 "Bytes the victim WRITEs (it must outlast the incast)",
                 victimSizeText);
    cmd.AddRate(rate);
    cmd.AddValue("fabric-rate", "Rate of the leaf-spine links", fabricRate);
    cmd.AddDelay(delay);
    cmd.AddMtu(mtu);
    cmd.AddValue("buffer", "Buffer of each switch in MB", bufferMb);
    cmd.AddCongestionControl(cc, preset);
    cmd.AddValue("warmup", "Start of the victim's measurement window", warmupText);
    cmd.AddJson(json);
    uint32_t seed = 1;
    cmd.AddSeed(seed);
    cmd.Parse(argc, argv);

    ROCE_ERROR_IF(senders == 0, "--senders must be at least 1");
    ROCE_ERROR_IF(localSenders == 0,
                  "--victim-leaf-senders must be at least 1 (the victim must share its uplink "
                  "with the incast)");
    ROCE_ERROR_IF(!(bufferMb > 0), "--buffer=" << bufferMb << " must be > 0 MB");
    const uint64_t size = ParseBytes("size", sizeText);
    const uint64_t victimSize = ParseBytes("victim-size", victimSizeText);
    const RoceCcHelper ccChoice = RoceCli::MakeCongestionControl(cc, preset);
    cc = ccChoice.GetAlgorithm();
    preset = ccChoice.GetDcqcnPreset();
    Time warmup = ParseTime("warmup", warmupText);
    const DataRate linkRate = ParseRate("rate", rate);
    const DataRate fabricLinkRate = ParseRate("fabric-rate", fabricRate);
    const Time linkDelay = ParseTime("delay", delay);

    // Nodes: spine, leaves 0..3, then hosts.
    NodeContainer spine(1);
    NodeContainer leaves(4);
    RoceSwitchHelper switches;
    switches.SetMmuAttribute(
        "BufferSize",
        QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(bufferMb * 1e6))));
    RoceHelper roce;
    ccChoice.Configure(roce, switches);
    switches.Install(spine);
    switches.Install(leaves);
    roce.SetDeviceAttribute("DataRate", DataRateValue(linkRate));
    roce.SetChannelAttribute("Delay", TimeValue(linkDelay));
    roce.SetNicAttribute("PayloadMtu", UintegerValue(mtu));
    // Unloaded RTT over four links each way (host-leaf-spine-leaf-host).
    roce.SetCongestionControlAttribute("BaseRtt",
                                       TimeValue(8 * linkDelay +
                                                 4 * linkRate.CalculateBytesTxTime(mtu + 82) +
                                                 4 * linkRate.CalculateBytesTxTime(84)));
    roce.SetDeviceAttribute("DataRate", DataRateValue(fabricLinkRate));
    for (uint32_t l = 0; l < 4; ++l)
    {
        roce.Install(leaves.Get(l), spine.Get(0));
    }
    roce.SetDeviceAttribute("DataRate", DataRateValue(linkRate));
    auto addHost = [&](uint32_t leaf) {
        Ptr<Node> h = CreateObject<Node>();
        return roce.Install(h, leaves.Get(leaf)).Get(0);
    };
    std::vector<Ptr<NetDevice>> incastSenders;
    for (uint32_t i = 0; i < senders; ++i)
    {
        incastSenders.push_back(addHost(0));
    }
    Ptr<NetDevice> victimReceiver = addHost(0);
    for (uint32_t i = 0; i < senders; ++i)
    {
        incastSenders.push_back(addHost(1));
    }
    Ptr<NetDevice> victim = addHost(2);
    for (uint32_t i = 0; i < localSenders; ++i)
    {
        incastSenders.push_back(addHost(2));
    }
    Ptr<NetDevice> receiver = addHost(3);
    RoceSwitchHelper::PopulateRoutes();
    RoceSwitchHelper::AssignStreams(1000);

    const uint32_t n = static_cast<uint32_t>(incastSenders.size());
    std::vector<Time> fct(n);
    Time firstDone = Time::Max();
    uint64_t victimAtWarmup = 0;
    uint64_t victimAtFirstDone = 0;
    auto [vqp, vrqp] = roce.CreateQp(victim, victimReceiver);
    Ptr<RoceQueuePair> victimRx = vrqp;
    Time victimDone;
    vqp->PostWrite(victimSize, Callback<void, const RoceCompletion&>([&](const RoceCompletion& c) {
                       victimDone = c.completed;
                   }));
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<RoceQueuePair> qp = roce.CreateQp(incastSenders[i], receiver).first;
        Time* slot = &fct[i];
        qp->PostWrite(size,
                      Callback<void, const RoceCompletion&>([&, slot](const RoceCompletion& c) {
                          *slot = c.completed;
                          if (c.completed < firstDone)
                          {
                              firstDone = c.completed;
                              victimAtFirstDone = victimRx->GetStats().bytesDelivered;
                          }
                      }));
    }
    Simulator::Schedule(warmup, [&]() { victimAtWarmup = victimRx->GetStats().bytesDelivered; });
    Simulator::Run();
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(false, std::cout);

    RoceFabricStats stats = RoceFabricStats::Collect();
    std::vector<SwitchPfc> pfc;
    pfc.push_back(CollectPfc(spine.Get(0), "spine"));
    for (uint32_t l = 0; l < 4; ++l)
    {
        pfc.push_back(CollectPfc(leaves.Get(l), "leaf" + std::to_string(l)));
    }
    bool held = false;
    for (const auto& s : pfc)
    {
        held = held || s.held;
    }
    const double payloadShare = double(mtu) / (mtu + RoceNetDevice::DATA_WIRE_OVERHEAD);
    // Max-min: the incast flows get line/N each at leaf 3 -> R; on leaf 2's
    // uplink the victim gets what the k local incast flows leave, capped by
    // its own NIC.
    const double line = static_cast<double>(linkRate.GetBitRate());
    const double fabric = static_cast<double>(fabricLinkRate.GetBitRate());
    const double fairShare = std::min(line, fabric - localSenders * line / n) * payloadShare;
    // The window needs the incast running from --warmup on and the victim
    // still sending when the first incast flow completes.
    bool measured = firstDone > warmup && firstDone != Time::Max() && victimDone > firstDone;
    double victimBps =
        measured ? (victimAtFirstDone - victimAtWarmup) * 8.0 / (firstDone - warmup).GetSeconds()
                 : 0;
    Time last;
    for (const Time& t : fct)
    {
        last = std::max(last, t);
    }

    std::cout << std::fixed << std::setprecision(3);
    std::cout << "rocev2-victim-flow: " << n << " incast senders (" << senders << " + " << senders
              << " + " << localSenders << ") to one receiver behind the spine, cc " << cc
              << (cc == "dcqcn" ? " (" + preset + ")" : "") << ", " << rate << "\n"
              << "  victim goodput " << victimBps / 1e9 << " Gb/s, fair share " << fairShare / 1e9
              << " Gb/s (" << (fairShare > 0 ? victimBps / fairShare : 0) << "), measured "
              << warmup.GetMicroSeconds() << ".." << (measured ? firstDone.GetMicroSeconds() : 0)
              << " us\n"
              << "  incast last FCT " << last.GetMicroSeconds() << " us, drops " << stats.drops
              << ", ECN marks " << stats.ecnMarked << ", CNPs " << stats.cnpSent << "\n";
    for (const auto& s : pfc)
    {
        std::cout << "  " << s.name << ": PFC pauses sent " << s.pauseTx << ", received "
                  << s.pauseRx << ", resumes sent " << s.resumeTx << "\n";
    }
    if (!measured)
    {
        std::cout << "  no measurement window: the first incast flow must complete after --warmup, "
                     "and the victim after it (raise --size, --victim-size or lower --warmup)\n";
    }
    stats.WriteBenchLines(std::cout);

    if (!json.empty())
    {
        std::ofstream out(json);
        ROCE_ERROR_IF(!out, "cannot write --json=" << json);
        out << std::setprecision(10) << "{\n"
            << "  \"cc\": \"" << cc << "\",\n"
            << "  \"dcqcn_preset\": \"" << (cc == "dcqcn" ? preset : "") << "\",\n"
            << "  \"incast_senders\": " << n << ",\n"
            << "  \"victim_leaf_senders\": " << localSenders << ",\n"
            << "  \"rate\": \"" << rate << "\",\n"
            << "  \"victim_gbps\": " << victimBps / 1e9 << ",\n"
            << "  \"victim_fair_share_gbps\": " << fairShare / 1e9 << ",\n"
            << "  \"window_us\": [" << warmup.GetSeconds() * 1e6 << ", "
            << (measured ? firstDone.GetSeconds() * 1e6 : 0) << "],\n"
            << "  \"victim_fct_us\": " << victimDone.GetSeconds() * 1e6 << ",\n"
            << "  \"incast_fct_us\": [";
        for (uint32_t i = 0; i < n; ++i)
        {
            out << (i ? ", " : "") << fct[i].GetSeconds() * 1e6;
        }
        out << "],\n  \"switches\": [\n";
        for (std::size_t i = 0; i < pfc.size(); ++i)
        {
            out << "    {\"name\": \"" << pfc[i].name << "\", \"pfc_pause_tx\": " << pfc[i].pauseTx
                << ", \"pfc_pause_rx\": " << pfc[i].pauseRx
                << ", \"pfc_resume_tx\": " << pfc[i].resumeTx << "}"
                << (i + 1 < pfc.size() ? ",\n" : "\n");
        }
        out << "  ],\n";
        stats.WriteJsonMembers(out);
        RoceCli::CloseJson(out, invariants);
    }
    uint64_t expected = uint64_t(n) * size + victimSize;
    bool ok = invariants.Ok() && stats.bytesDelivered == expected && stats.drops == 0 &&
              stats.bufferedBytes == 0 && !held && measured;
    Simulator::Destroy();
    return ok ? 0 : 1;
}
