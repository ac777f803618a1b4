/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PFC across a leaf-spine fabric: pauses that spread hop by hop from the
 * congested leaf back through the spine to the senders' NICs, each honoured
 * within one pause-reaction time and released with the MMU's hysteresis;
 * the victim flow of congestion spreading, with PFC alone and with DCQCN;
 * and a slow receiver NIC that pauses its switch.
 */
#include "ns3/boolean.h"
#include "ns3/node-container.h"
#include "ns3/node-list.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <deque>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

const Time g_delay = MicroSeconds(1); //!< every link's propagation delay
const uint32_t g_mtu = 1024;          //!< RoCE payload MTU
const uint8_t g_prio = 3;             //!< the lossless priority QPs use by default

/// Bytes on the wire of the largest data frame: payload + Ethernet 14, IPv4
/// 20, UDP 8, BTH 12, RETH 16 (first packet), ICRC 4, FCS 4, preamble/IFG 20.
const uint32_t g_maxDataWire = g_mtu + 98;
/// Bytes on the wire of a PFC frame: the 64-byte minimum + preamble/IFG 20.
const uint32_t g_pfcWire = 84;

/**
 * \param bytes wire bytes \param rate a line rate
 * \return their serialization time
 */
Time
WireTime(uint32_t bytes, DataRate rate)
{
    return PicoSeconds(static_cast<int64_t>(bytes * 8e12 / rate.GetBitRate()));
}

/**
 * A leaf-spine: one spine, leaves with hosts. Host links run at `hostRate`,
 * leaf-spine links at `fabricRate`; every link has g_delay.
 */
struct Fabric
{
    NodeContainer spine;                                  //!< the spine
    NodeContainer leaves;                                 //!< the leaves
    std::vector<std::vector<Ptr<RoceNetDevice>>> hosts;   //!< NICs, per leaf
    RoceHelper roce;                                      //!< makes QPs
    std::vector<std::pair<Ptr<Node>, std::string>> named; //!< switches by name

    /**
     * \param hostsPerLeaf hosts of each leaf
     * \param hostRate host link rate \param fabricRate leaf-spine link rate
     * \param buffer switch buffer bytes
     * \param preset DCQCN preset, or "" for PFC alone
     */
    Fabric(const std::vector<uint32_t>& hostsPerLeaf,
           DataRate hostRate,
           DataRate fabricRate,
           uint32_t buffer,
           const std::string& preset)
        : spine(1),
          leaves(hostsPerLeaf.size())
    {
        RoceSwitchHelper switches;
        switches.SetMmuAttribute("BufferSize",
                                 QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, buffer)));
        if (!preset.empty())
        {
            RoceCcHelper("dcqcn", preset).Configure(roce, switches);
        }
        switches.Install(spine);
        switches.Install(leaves);
        roce.SetChannelAttribute("Delay", TimeValue(g_delay));
        roce.SetNicAttribute("PayloadMtu", UintegerValue(g_mtu));
        roce.SetDeviceAttribute("DataRate", DataRateValue(fabricRate));
        named.emplace_back(spine.Get(0), "spine");
        for (uint32_t l = 0; l < leaves.GetN(); ++l)
        {
            roce.Install(leaves.Get(l), spine.Get(0));
            named.emplace_back(leaves.Get(l), "leaf" + std::to_string(l));
        }
        roce.SetDeviceAttribute("DataRate", DataRateValue(hostRate));
        hosts.resize(hostsPerLeaf.size());
        for (uint32_t l = 0; l < leaves.GetN(); ++l)
        {
            for (uint32_t h = 0; h < hostsPerLeaf[l]; ++h)
            {
                Ptr<Node> n = CreateObject<Node>();
                hosts[l].push_back(
                    DynamicCast<RoceNetDevice>(roce.Install(n, leaves.Get(l)).Get(0)));
            }
        }
        RoceSwitchHelper::PopulateRoutes();
        RoceSwitchHelper::AssignStreams(1000);
    }

    /**
     * \param from sender NIC \param to receiver NIC \param size bytes
     * \param done set to the completion time
     * \return the receiving QP
     */
    Ptr<RoceQueuePair> Write(Ptr<RoceNetDevice> from,
                             Ptr<RoceNetDevice> to,
                             uint64_t size,
                             Time* done)
    {
        auto [s, r] = roce.CreateQp(from, to);
        s->PostWrite(size, Callback<void, const RoceCompletion&>([done](const RoceCompletion& c) {
                         *done = c.completed;
                     }));
        return r;
    }
};

/**
 * Watches every PFC-capable device of the simulation: when it holds XOFF
 * towards its peer, when data of the paused priority still arrives, and the
 * state of the switch MMU at every XOFF and XON it sends.
 */
class PfcMonitor
{
  public:
    /// What one device saw.
    struct Device
    {
        Ptr<RocePfcNetDevice> dev;       //!< the device
        std::string name;                //!< "leaf3/port0", "nic 10.0.0.5"
        Ptr<RoceSharedBufferMmu> mmu;    //!< its switch's MMU (null on a NIC)
        uint32_t port{0};                //!< its port index on the switch
        bool xoff{false};                //!< holds XOFF on g_prio now
        Time xoffSince;                  //!< since when
        Time reaction;                   //!< pause-reaction bound of its link
        Time firstXoff{Time::Max()};     //!< its first XOFF
        uint32_t episodes{0};            //!< XOFF episodes (XOFF ... XON)
        uint32_t lateFrames{0};          //!< data frames received later than the reaction bound
        Time worstLateness;              //!< the latest of them past XOFF
        uint32_t xoffWithoutHeadroom{0}; //!< XOFF while the PG's headroom was empty
        uint32_t xonAboveHysteresis{0};  //!< XON above T - XonOffset or with headroom in use
    };

    PfcMonitor()
    {
        for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
        {
            Ptr<Node> node = *it;
            Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                Ptr<RocePfcNetDevice> dev = DynamicCast<RocePfcNetDevice>(node->GetDevice(d));
                if (!dev)
                {
                    continue;
                }
                m_devices.emplace_back();
                Device& r = m_devices.back();
                r.dev = dev;
                Ptr<RoceSwitchPort> port = DynamicCast<RoceSwitchPort>(dev);
                if (port)
                {
                    r.mmu = sw->GetMmu();
                    r.port = port->GetPortIndex();
                    r.name =
                        "node" + std::to_string(node->GetId()) + "/port" + std::to_string(r.port);
                }
                else
                {
                    std::ostringstream os;
                    os << "nic " << DynamicCast<RoceNetDevice>(dev)->GetIpv4Address();
                    r.name = os.str();
                }
                // After this device sends XOFF, the PFC frame may wait behind
                // the frame it is sending, then takes its own serialization
                // and the propagation delay to reach the peer; the peer
                // finishes the frame it is sending, which then propagates back.
                DataRate rate = dev->GetDataRate();
                r.reaction = WireTime(g_maxDataWire, rate) + WireTime(g_pfcWire, rate) + g_delay +
                             WireTime(g_maxDataWire, rate) + g_delay;
                Device* rec = &r;
                dev->TraceConnectWithoutContext(
                    "PfcTx",
                    Callback<void, uint8_t, uint16_t>(
                        [rec](uint8_t prio, uint16_t quanta) { OnPfcTx(rec, prio, quanta); }));
                dev->TraceConnectWithoutContext("MacRx",
                                                Callback<void, Ptr<const Packet>>(
                                                    [rec](Ptr<const Packet> p) { OnRx(rec, p); }));
            }
        }
    }

    /** \return every device's record */
    const std::deque<Device>& Devices() const
    {
        return m_devices;
    }

    /**
     * \param dev a device
     * \return its record
     */
    const Device& Of(Ptr<RocePfcNetDevice> dev) const
    {
        for (const auto& d : m_devices)
        {
            if (d.dev == dev)
            {
                return d;
            }
        }
        NS_FATAL_ERROR("PfcMonitor: device not watched");
        return m_devices.front();
    }

  private:
    /**
     * \param r the sending device \param prio priority \param quanta pause quanta (0: XON)
     */
    static void OnPfcTx(Device* r, uint8_t prio, uint16_t quanta)
    {
        if (prio != g_prio)
        {
            return;
        }
        if (quanta > 0 && !r->xoff)
        {
            r->xoff = true;
            r->xoffSince = Simulator::Now();
            r->firstXoff = std::min(r->firstXoff, r->xoffSince);
            ++r->episodes;
            // XOFF is sent by the packet that no longer fit under the
            // threshold, and that packet is in headroom.
            if (r->mmu && r->mmu->GetPgHeadroomBytes(r->port, prio) == 0)
            {
                ++r->xoffWithoutHeadroom;
            }
        }
        else if (quanta == 0)
        {
            r->xoff = false;
            if (r->mmu)
            {
                // XON: headroom empty, and the PG's bytes at most the dynamic
                // threshold alpha * (free shared pool) minus XonOffset (or zero).
                uint64_t bytes = r->mmu->GetPgBytes(r->port, prio);
                double t = r->mmu->GetAlpha() * static_cast<double>(r->mmu->GetSharedPoolSize() -
                                                                    r->mmu->GetSharedUsed());
                QueueSizeValue offset;
                r->mmu->GetAttribute("XonOffset", offset);
                bool below = bytes == 0 || double(bytes + offset.Get().GetValue()) <= t;
                if (!below || r->mmu->GetPgHeadroomBytes(r->port, prio) > 0)
                {
                    ++r->xonAboveHysteresis;
                }
            }
        }
    }

    /**
     * \param r the receiving device \param p the frame
     */
    static void OnRx(Device* r, Ptr<const Packet> p)
    {
        if (!r->xoff)
        {
            return;
        }
        RoceFrame f = RoceFrame::Parse(*p);
        if (!f.isIpv4 || r->dev->DscpToPriority(f.dscp) != g_prio)
        {
            return;
        }
        Time late = Simulator::Now() - r->xoffSince;
        if (late > r->reaction)
        {
            ++r->lateFrames;
            r->worstLateness = std::max(r->worstLateness, late);
        }
    }

    std::deque<Device> m_devices;
};

/// PFC counters of one switch on g_prio, and whether anything is still held.
struct SwitchPfc
{
    uint64_t pauseTx{0}; //!< pauses sent
    uint64_t pauseRx{0}; //!< pauses received
    bool held{false};    //!< XOFF still held or a port still paused
};

/**
 * \param node a switch node
 * \return its PFC counters
 */
SwitchPfc
CollectPfc(Ptr<Node> node)
{
    SwitchPfc s;
    Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
    for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
    {
        RocePfcNetDevice::PfcStats st = sw->GetPort(i)->GetPfcStats();
        s.pauseTx += st.pauseTx[g_prio];
        s.pauseRx += st.pauseRx[g_prio];
        for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
        {
            s.held = s.held || sw->GetPort(i)->IsXoff(p) || sw->GetPort(i)->IsPaused(p);
        }
    }
    return s;
}

/**
 * \param sw a switch node \param peer a node it is linked to
 * \return the switch's port facing that node
 */
Ptr<RoceSwitchPort>
PortTowards(Ptr<Node> sw, Ptr<Node> peer)
{
    Ptr<RoceSwitch> s = sw->GetObject<RoceSwitch>();
    for (uint32_t i = 0; i < s->GetNPorts(); ++i)
    {
        Ptr<RoceSwitchPort> port = s->GetPort(i);
        Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(port->GetChannel());
        if (ch->GetPeer(PeekPointer(port))->GetNode() == peer)
        {
            return port;
        }
    }
    return nullptr;
}

/**
 * The victim-flow fabric: spine, leaves 0..3. Leaves 0 and 1 hold one incast
 * sender each, leaf 0 also the victim's receiver VR; leaf 2 holds the victim
 * V and two incast senders; leaf 3 holds the incast receiver R. Host links
 * 100G, fabric links 400G: the spine's link to leaf 3 carries the four
 * senders' line rate, so the incast's only bottleneck is leaf 3 -> R, behind
 * the spine, and the victim's path crosses no congested link.
 */
struct VictimRun
{
    double victimBps{0};                  //!< victim goodput while every incast flow runs
    double fairShareBps{0};               //!< its max-min fair share (goodput)
    RoceFabricStats stats;                //!< fabric counters
    std::map<std::string, SwitchPfc> pfc; //!< per switch
    std::vector<Time> incastFct;          //!< incast completion times
    uint64_t expectedBytes{0};            //!< bytes all flows write
    Time windowEnd;                       //!< end of the victim measurement window
};

/**
 * \param preset DCQCN preset or "" for PFC alone
 * \param check called with the fabric and monitor after the run, before Destroy
 * \return what happened
 */
VictimRun
RunVictim(const std::string& preset,
          std::function<void(const Fabric&, const PfcMonitor&)> check = nullptr)
{
    const uint64_t size = 4000000;
    const uint64_t victimSize = 40000000;
    const Time warmup = MicroSeconds(500);
    const DataRate hostRate("100Gbps");
    Fabric fab({2, 1, 3, 1}, hostRate, DataRate("400Gbps"), 4000000, preset);
    PfcMonitor monitor;
    Ptr<RoceNetDevice> victim = fab.hosts[2][0];
    Ptr<RoceNetDevice> victimReceiver = fab.hosts[0][1];
    Ptr<RoceNetDevice> receiver = fab.hosts[3][0];
    std::vector<Ptr<RoceNetDevice>> incast{fab.hosts[0][0],
                                           fab.hosts[1][0],
                                           fab.hosts[2][1],
                                           fab.hosts[2][2]};
    const uint32_t n = static_cast<uint32_t>(incast.size());

    VictimRun r;
    r.incastFct.resize(n);
    r.expectedBytes = n * size + victimSize;
    Time victimDone;
    Ptr<RoceQueuePair> vrx = fab.Write(victim, victimReceiver, victimSize, &victimDone);
    for (uint32_t i = 0; i < n; ++i)
    {
        fab.Write(incast[i], receiver, size, &r.incastFct[i]);
    }
    uint64_t atWarmup = 0;
    Simulator::Schedule(warmup, [&]() { atWarmup = vrx->GetStats().bytesDelivered; });
    // The window ends when the first incast flow completes: sample the
    // victim every 10 us and keep the last sample before that.
    std::vector<std::pair<Time, uint64_t>> samples;
    std::function<void()> sample = [&]() {
        samples.emplace_back(Simulator::Now(), vrx->GetStats().bytesDelivered);
        if (victimDone.IsZero())
        {
            Simulator::Schedule(MicroSeconds(10), sample);
        }
    };
    Simulator::Schedule(warmup, sample);
    Simulator::Run();

    Time firstDone = *std::min_element(r.incastFct.begin(), r.incastFct.end());
    uint64_t atEnd = atWarmup;
    Time end = warmup;
    for (const auto& [t, b] : samples)
    {
        if (t <= firstDone)
        {
            end = t;
            atEnd = b;
        }
    }
    r.windowEnd = end;
    if (end > warmup)
    {
        r.victimBps = (atEnd - atWarmup) * 8.0 / (end - warmup).GetSeconds();
    }
    // Max-min: n incast flows share leaf 3 -> R (100G/n each); leaf 2's 400G
    // uplink carries two of them and the victim, whose own 100G NIC is then
    // its limit. Goodput is the payload share of the wire bytes.
    r.fairShareBps = hostRate.GetBitRate() * double(g_mtu) / (g_mtu + 82);
    r.stats = RoceFabricStats::Collect();
    for (const auto& [node, name] : fab.named)
    {
        r.pfc[name] = CollectPfc(node);
    }
    if (check)
    {
        check(fab, monitor);
    }
    Simulator::Destroy();
    return r;
}

} // namespace

/**
 * \ingroup rocev2
 * PFC spreads hop by hop: leaf 3 pauses the spine, the spine pauses the
 * leaves, the leaves pause the senders' NICs, in that order. Every device that
 * holds XOFF receives no data of the paused priority later than one
 * pause-reaction time after its XOFF; every XOFF is sent with the PG in
 * headroom and every XON at T - XonOffset with headroom empty; at the end no
 * pause is held, nothing was dropped and every buffer is empty.
 */
class PfcSpreadingTestCase : public TestCase
{
  public:
    PfcSpreadingTestCase()
        : TestCase("PFC spreads leaf -> spine -> leaves -> NICs, each pause honoured within one "
                   "reaction time, XON with hysteresis, all released at the end")
    {
    }

  private:
    void DoRun() override
    {
        VictimRun r = RunVictim("", [this](const Fabric& fab, const PfcMonitor& mon) {
            Ptr<Node> spine = fab.spine.Get(0);
            auto port = [&](uint32_t leaf, bool up) {
                return up ? PortTowards(fab.leaves.Get(leaf), spine)
                          : PortTowards(spine, fab.leaves.Get(leaf));
            };
            // Hop 1: leaf 3 pauses the spine.
            const auto& l3up = mon.Of(port(3, true));
            NS_TEST_ASSERT_MSG_GT(l3up.episodes, 0u, "leaf 3 never paused the spine");
            // Hop 2: the spine pauses leaves 0, 1 and 2, after hop 1.
            for (uint32_t l = 0; l < 3; ++l)
            {
                const auto& down = mon.Of(port(l, false));
                NS_TEST_ASSERT_MSG_GT(down.episodes, 0u, "the spine never paused leaf " << l);
                NS_TEST_ASSERT_MSG_GT(down.firstXoff,
                                      l3up.firstXoff,
                                      "the spine paused leaf " << l << " before it was paused");
            }
            // Hop 3: each leaf pauses its senders' NICs (the victim's too,
            // on leaf 2), after hop 2.
            const std::vector<std::pair<uint32_t, uint32_t>> nics{{0, 0},
                                                                  {1, 0},
                                                                  {2, 0},
                                                                  {2, 1},
                                                                  {2, 2}};
            for (auto [l, h] : nics)
            {
                Time spinePaused = mon.Of(port(l, false)).firstXoff;
                {
                    Ptr<RoceSwitchPort> toNic =
                        PortTowards(fab.leaves.Get(l), fab.hosts[l][h]->GetNode());
                    const auto& rec = mon.Of(toNic);
                    NS_TEST_ASSERT_MSG_GT(rec.episodes,
                                          0u,
                                          "leaf " << l << " never paused NIC " << h);
                    NS_TEST_ASSERT_MSG_GT(rec.firstXoff,
                                          spinePaused,
                                          "leaf " << l
                                                  << " paused its NIC before the spine "
                                                     "paused it");
                    NS_TEST_ASSERT_MSG_GT(fab.hosts[l][h]->GetPfcStats().pauseRx[g_prio],
                                          0u,
                                          "NIC never received a pause");
                }
            }
            uint32_t episodes = 0;
            for (const auto& d : mon.Devices())
            {
                episodes += d.episodes;
                NS_TEST_ASSERT_MSG_EQ(d.lateFrames,
                                      0u,
                                      d.name << ": data arrived " << d.worstLateness.As(Time::NS)
                                             << " after XOFF, reaction bound "
                                             << d.reaction.As(Time::NS));
                NS_TEST_ASSERT_MSG_EQ(d.xoffWithoutHeadroom,
                                      0u,
                                      d.name << ": XOFF below threshold");
                NS_TEST_ASSERT_MSG_EQ(d.xonAboveHysteresis,
                                      0u,
                                      d.name << ": XON above T - XonOffset");
                NS_TEST_ASSERT_MSG_EQ(d.xoff, false, d.name << ": XOFF still held at the end");
                NS_TEST_ASSERT_MSG_EQ(d.dev->IsPaused(g_prio), false, d.name << ": still paused");
            }
            NS_TEST_ASSERT_MSG_GT(episodes, 20u, "few pause episodes: the check saw little");
        });
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, 0u, "a lossless class dropped");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bytesDelivered, r.expectedBytes, "bytes missing");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bufferedBytes, 0u, "a switch buffer did not drain");
        NS_TEST_ASSERT_MSG_EQ(r.stats.retransmits, 0u, "retransmissions in a lossless run");
        for (const auto& [name, s] : r.pfc)
        {
            NS_TEST_ASSERT_MSG_EQ(s.held, false, name << " still holds a pause");
        }
    }
};

/**
 * \ingroup rocev2
 * The victim flow (Zhu et al., SIGCOMM'15, congestion spreading): with PFC
 * alone the victim, which crosses no congested link, is paused with the
 * incast that shares its leaf's uplink and runs at well under half its fair
 * share; with DCQCN (nvidia-cx) the incast slows down before PFC spreads, and
 * the victim runs within 10% of its fair share.
 */
class VictimFlowTestCase : public TestCase
{
  public:
    VictimFlowTestCase()
        : TestCase("victim flow: PFC alone holds it far below its fair share; DCQCN restores it "
                   "to within 10%")
    {
    }

  private:
    void DoRun() override
    {
        VictimRun pfc = RunVictim("");
        VictimRun dcqcn = RunVictim("nvidia-cx");
        for (const VictimRun* r : {&pfc, &dcqcn})
        {
            // The window spans most of the incast (4 flows x 4 MB at 25G each).
            NS_TEST_ASSERT_MSG_GT(r->windowEnd, MicroSeconds(900), "measurement window too short");
            NS_TEST_ASSERT_MSG_EQ(r->stats.drops, 0u, "a lossless class dropped");
            NS_TEST_ASSERT_MSG_EQ(r->stats.bytesDelivered, r->expectedBytes, "bytes missing");
            NS_TEST_ASSERT_MSG_EQ(r->stats.bufferedBytes, 0u, "a buffer did not drain");
        }
        NS_TEST_ASSERT_MSG_GT(pfc.pfc["spine"].pauseTx, 0u, "PFC alone: the spine never paused");
        NS_TEST_ASSERT_MSG_LT(pfc.victimBps,
                              0.5 * pfc.fairShareBps,
                              "PFC alone: the victim is not slowed by congestion spreading");
        NS_TEST_ASSERT_MSG_EQ_TOL(dcqcn.victimBps,
                                  dcqcn.fairShareBps,
                                  0.1 * dcqcn.fairShareBps,
                                  "DCQCN: the victim is not back near its fair share");
        NS_TEST_ASSERT_MSG_GT(dcqcn.stats.cnpSent, 0u, "DCQCN: no CNP");
        NS_TEST_ASSERT_MSG_LT(dcqcn.pfc["spine"].pauseTx + dcqcn.pfc["leaf2"].pauseRx,
                              pfc.pfc["spine"].pauseTx + pfc.pfc["leaf2"].pauseRx,
                              "DCQCN: PFC spread as much as without it");
    }
};

/**
 * \ingroup rocev2
 * A slow receiver: a NIC that drains at 50G pauses its leaf, the leaf's
 * queue towards it honours every pause within one reaction time, the leaf
 * pauses the spine, the spine pauses the senders' leaf, and every byte
 * arrives at the drain rate's payload share with nothing dropped.
 */
class SlowReceiverFabricTestCase : public TestCase
{
  public:
    SlowReceiverFabricTestCase()
        : TestCase("slow receiver NIC pauses its leaf; the pause spreads to the senders' leaf")
    {
    }

  private:
    void DoRun() override
    {
        const DataRate drain("50Gbps");
        const uint64_t size = 4000000;
        Fabric fab({2, 1}, DataRate("100Gbps"), DataRate("100Gbps"), 2000000, "");
        Ptr<RoceNetDevice> slow = fab.hosts[1][0];
        slow->SetAttribute("RxDrainRate", DataRateValue(drain));
        slow->SetAttribute("RxBufferSize", QueueSizeValue(QueueSize("1MB")));
        slow->SetAttribute("RxXoffThreshold", QueueSizeValue(QueueSize("256KB")));
        slow->SetAttribute("RxXonThreshold", QueueSizeValue(QueueSize("128KB")));
        PfcMonitor monitor;
        std::vector<Time> done(2);
        fab.Write(fab.hosts[0][0], slow, size, &done[0]);
        fab.Write(fab.hosts[0][1], slow, size, &done[1]);
        Simulator::Run();

        const auto& nic = monitor.Of(slow);
        NS_TEST_ASSERT_MSG_GT(nic.episodes, 0u, "the slow NIC never paused its leaf");
        Ptr<RoceSwitchPort> leafToNic = PortTowards(fab.leaves.Get(1), slow->GetNode());
        NS_TEST_ASSERT_MSG_GT(leafToNic->GetPfcStats().pauseRx[g_prio],
                              0u,
                              "the leaf got no pause");
        NS_TEST_ASSERT_MSG_GT(leafToNic->GetPfcStats().pausedTime[g_prio],
                              Time(0),
                              "the leaf's queue was never paused");
        const auto& leafUp = monitor.Of(PortTowards(fab.leaves.Get(1), fab.spine.Get(0)));
        NS_TEST_ASSERT_MSG_GT(leafUp.episodes, 0u, "the leaf never paused the spine");
        NS_TEST_ASSERT_MSG_GT(leafUp.firstXoff, nic.firstXoff, "leaf paused before the NIC");
        const auto& spineDown = monitor.Of(PortTowards(fab.spine.Get(0), fab.leaves.Get(0)));
        NS_TEST_ASSERT_MSG_GT(spineDown.episodes, 0u, "the spine never paused the senders' leaf");
        for (const auto& d : monitor.Devices())
        {
            NS_TEST_ASSERT_MSG_EQ(d.lateFrames,
                                  0u,
                                  d.name << ": data arrived " << d.worstLateness.As(Time::NS)
                                         << " after XOFF, bound " << d.reaction.As(Time::NS));
            NS_TEST_ASSERT_MSG_EQ(d.xoff, false, d.name << ": XOFF still held at the end");
        }
        RoceFabricStats stats = RoceFabricStats::Collect();
        NS_TEST_ASSERT_MSG_EQ(stats.drops, 0u, "dropped");
        NS_TEST_ASSERT_MSG_EQ(stats.bytesDelivered, 2 * size, "bytes missing");
        NS_TEST_ASSERT_MSG_EQ(stats.bufferedBytes, 0u, "a buffer did not drain");
        // The host drains whole frames without FCS and preamble (payload +
        // 58 B of headers, 16 more for the RETH of a message's first packet),
        // so the pair finishes no earlier than the drain time of every frame,
        // and no later than that plus the first frame's three hops in, the
        // last ACK's three hops back, and each frame's drain time rounded up
        // to the simulator's time resolution (1 ns).
        double frames = 2.0 * size / g_mtu;
        Time drainTime = Seconds((2.0 * size + frames * 58 + 2 * 16) * 8 / drain.GetBitRate());
        Time pipeline = 6 * (g_delay + WireTime(g_maxDataWire, DataRate("100Gbps"))) +
                        NanoSeconds(static_cast<int64_t>(frames) + 1);
        Time last = std::max(done[0], done[1]);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(last, drainTime, "faster than the host drains");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(last,
                                    drainTime + pipeline,
                                    "the pair does not finish at the drain rate");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * Fabric suite.
 */
class RoceFabricTestSuite : public TestSuite
{
  public:
    RoceFabricTestSuite()
        : TestSuite("rocev2-fabric", Type::SYSTEM)
    {
        AddTestCase(new PfcSpreadingTestCase, RoceTestDuration::QUICK);
        AddTestCase(new VictimFlowTestCase, RoceTestDuration::QUICK);
        AddTestCase(new SlowReceiverFabricTestCase, RoceTestDuration::QUICK);
    }
};

static RoceFabricTestSuite g_roceFabricTestSuite; //!< static instance
