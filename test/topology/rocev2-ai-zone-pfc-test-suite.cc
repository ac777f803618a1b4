/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * AI Zones as fabrics: PFC hop by hop across three tiers.
 */

// PFC across the three tiers of an AI Zone (RTSW, CTSW, ATSW): an incast that
// converges on an ATSW port backs up behind the CTSWs' ATSW-facing ports, and
// the pauses travel back hop by hop through the CTSWs and RTSWs to the
// senders' NICs; a victim flow that shares one paused link is held below its
// share of that link, one that shares none runs at line rate. No congestion
// control: PFC does the work.

#include "../rocev2-frame-bytes.h"
#include "rocev2-zone-test-helpers.h"

#include "ns3/boolean.h"
#include "ns3/queue-size.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-flow-pin-table.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;
using namespace ns3::rocev2test;

namespace
{

constexpr uint8_t PRIO = 3; //!< the lossless priority QPs use by default

// ---------------------------------------------------------------------------
// PFC across three tiers

/**
 * \param sw a switch node \param peer a node it links to
 * \return the switch's port facing that node
 */
Ptr<RoceSwitchPort>
PortTowards(Ptr<Node> sw, Ptr<Node> peer)
{
    Ptr<RoceSwitch> s = sw->GetObject<RoceSwitch>();
    for (uint32_t i = 0; i < s->GetNPorts(); ++i)
    {
        if (PeerNode(s->GetPort(i)) == peer)
        {
            return s->GetPort(i);
        }
    }
    return nullptr;
}

/**
 * The 3-tier zone of the PFC case: 5 zones of 3 racks, 2 one-NIC servers per
 * rack, one uplink per RTSW to the zone's one CTSW, and one CTSW-ATSW link
 * per zone (3:1) to the one ATSW; 100 Gb/s links. GPU (zone, rack, nic) is
 * index zone x 6 + rack x 2 + nic.
 */
constexpr uint32_t PFC_ZONES = 5;   //!< zones
constexpr uint32_t PFC_RACKS = 3;   //!< racks per zone
constexpr uint32_t PFC_NICS = 2;    //!< NICs per rack
const DataRate PFC_RATE("100Gbps"); //!< every link

/**
 * \param zone a zone \param rack a rack of it \param nic a NIC of the rack
 * \return the GPU index
 */
uint32_t
Gpu(uint32_t zone, uint32_t rack, uint32_t nic)
{
    return (zone * PFC_RACKS + rack) * PFC_NICS + nic;
}

/// One switch port's pauses: PFC frames sent and when the first XOFF left.
struct PausePort
{
    uint64_t pauseTx{0}; //!< PFC pause frames sent (XOFF and refreshes)
    Time firstXoff{-1};  //!< first XOFF, -1 if none
};

/// What the PFC run gives.
struct PfcRun
{
    std::map<const RocePfcNetDevice*, PausePort> ports; //!< every switch port
    std::map<std::string, uint64_t> tierPauses;         //!< pause frames sent per tier
    double v1Bps{0};                                    //!< V1 goodput in the window
    double v2Bps{0};                                    //!< V2 goodput in the window
    Time incastFirstDone;                               //!< first incast completion
    Time v2Done;                                        //!< V2's completion
    std::vector<uint64_t> senderPauseRx;                //!< pauses each incast NIC received
    uint64_t v2PauseRx{0};                              //!< pauses V2's NICs received
    RoceFabricStats stats;                              //!< fabric counters at the end
    uint64_t expectedBytes{0};                          //!< bytes every WRITE carries, summed
    bool pauseHeld{false};                              //!< some port still pauses at the end
};

/// Times of the PFC scenario.
const Time VICTIMS_START = MicroSeconds(200); //!< the victims post their WRITEs
const Time WINDOW_FROM = MicroSeconds(250);   //!< victim measurement window
const Time WINDOW_TO = MicroSeconds(550);     //!< its end

/**
 * \param checks called after the run, before Simulator::Destroy, with the zone
 * \return what happened
 */
PfcRun
RunThreeTierIncast(std::function<void(const RoceAiZone&, PfcRun&)> checks)
{
    RoceAiZoneHelper zh;
    zh.SetTiers(3);
    zh.SetZones(PFC_ZONES);
    zh.SetServersPerRack(PFC_NICS);
    zh.SetGpusPerServer(1);
    zh.SetGpus(PFC_ZONES * PFC_RACKS * PFC_NICS);
    zh.SetUplinks(1);
    zh.SetCtsws(1);
    zh.SetOversubscription(PFC_RACKS); // one ATSW link per CTSW
    zh.SetLinkRate(PFC_RATE);
    // Buffers shallow enough for the pause chain to form within a 3 MB
    // incast (the CTSW and ATSW defaults hold 2000 MB); the modes stay
    // (RTSW dynamic, CTSW and ATSW partitioned per port).
    for (auto tier : {RoceAiZoneHelper::RTSW, RoceAiZoneHelper::CTSW, RoceAiZoneHelper::ATSW})
    {
        zh.SetMmuAttribute(tier, "BufferSize", QueueSizeValue(QueueSize("4MB")));
    }
    RoceAiZone z = zh.Build();

    PfcRun r;
    std::map<Ptr<Node>, std::string> tierOf = TierOf(z);
    for (auto c : {&z.rtsw, &z.ctsw, &z.atsw})
    {
        for (auto it = c->Begin(); it != c->End(); ++it)
        {
            Ptr<RoceSwitch> sw = (*it)->GetObject<RoceSwitch>();
            for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
            {
                PausePort* rec = &r.ports[PeekPointer(sw->GetPort(i))];
                sw->GetPort(i)->TraceConnectWithoutContext(
                    "PfcTx",
                    Callback<void, uint8_t, uint16_t>([rec](uint8_t prio, uint16_t quanta) {
                        if (prio == PRIO && quanta > 0 && rec->firstXoff.IsNegative())
                        {
                            rec->firstXoff = Simulator::Now();
                        }
                    }));
            }
        }
    }

    // The incast: NIC 0 of rack 0 of zones 0..3 write to NIC 0 of rack 0 of
    // zone 4. The four flows meet at the ATSW's port to zone 4's CTSW.
    RoceHelper roce;
    const uint64_t incastBytes = 3000000;
    const uint32_t receiver = Gpu(4, 0, 0);
    std::vector<uint32_t> senders{Gpu(0, 0, 0), Gpu(1, 0, 0), Gpu(2, 0, 0), Gpu(3, 0, 0)};
    std::vector<Time> incastDone(senders.size());
    for (std::size_t i = 0; i < senders.size(); ++i)
    {
        Time* slot = &incastDone[i];
        roce.CreateQp(z.GetNic(senders[i]), z.GetNic(receiver))
            .first->PostWrite(incastBytes,
                              Callback<void, const RoceCompletion&>(
                                  [slot](const RoceCompletion& c) { *slot = c.completed; }));
        r.expectedBytes += incastBytes;
    }
    // V1, in zone 1: NIC 1 of rack 0 to NIC 1 of rack 1, through the zone's
    // CTSW. It shares one paused link, RTSW(1,0) -> CTSW(1), with zone 1's
    // incast flow. V2, in zone 0: NIC 0 of rack 1 to NIC 0 of rack 2, through
    // zone 0's CTSW (which pauses its rack-0 link) on links no incast frame,
    // and no incast ACK, crosses.
    static constexpr uint64_t v1Bytes = 4000000;
    static constexpr uint64_t v2Bytes = 8000000;
    auto [v1tx, v1rx] = roce.CreateQp(z.GetNic(Gpu(1, 0, 1)), z.GetNic(Gpu(1, 1, 1)));
    auto [v2tx, v2rx] = roce.CreateQp(z.GetNic(Gpu(0, 1, 0)), z.GetNic(Gpu(0, 2, 0)));
    Ptr<RoceQueuePair> v1s = v1tx;
    Ptr<RoceQueuePair> v2s = v2tx;
    Simulator::Schedule(VICTIMS_START, [v1s, v2s, &r]() {
        v1s->PostWrite(v1Bytes);
        v2s->PostWrite(v2Bytes,
                       Callback<void, const RoceCompletion&>(
                           [&r](const RoceCompletion& c) { r.v2Done = c.completed; }));
    });
    r.expectedBytes += v1Bytes + v2Bytes;
    uint64_t v1From = 0;
    uint64_t v2From = 0;
    Ptr<RoceQueuePair> v1r = v1rx;
    Ptr<RoceQueuePair> v2r = v2rx;
    Simulator::Schedule(WINDOW_FROM, [&]() {
        v1From = v1r->GetStats().bytesDelivered;
        v2From = v2r->GetStats().bytesDelivered;
    });
    Simulator::Schedule(WINDOW_TO, [&]() {
        double window = (WINDOW_TO - WINDOW_FROM).GetSeconds();
        r.v1Bps = (v1r->GetStats().bytesDelivered - v1From) * 8.0 / window;
        r.v2Bps = (v2r->GetStats().bytesDelivered - v2From) * 8.0 / window;
    });
    Simulator::Run();

    r.incastFirstDone = *std::min_element(incastDone.begin(), incastDone.end());
    for (auto& [node, tier] : tierOf)
    {
        Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
        for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
        {
            Ptr<RoceSwitchPort> port = sw->GetPort(i);
            uint64_t n = port->GetPfcStats().pauseTx[PRIO];
            r.ports[PeekPointer(port)].pauseTx = n;
            r.tierPauses[tier] += n;
            r.pauseHeld = r.pauseHeld || port->IsXoff(PRIO) || port->IsPaused(PRIO);
        }
    }
    for (uint32_t g : senders)
    {
        r.senderPauseRx.push_back(z.GetNic(g)->GetPfcStats().pauseRx[PRIO]);
    }
    r.v2PauseRx = z.GetNic(Gpu(0, 1, 0))->GetPfcStats().pauseRx[PRIO] +
                  z.GetNic(Gpu(0, 2, 0))->GetPfcStats().pauseRx[PRIO];
    r.stats = RoceFabricStats::Collect();
    checks(z, r);
    Simulator::Destroy();
    return r;
}

} // namespace

/**
 * \ingroup rocev2
 * PFC across three tiers: the incast meets at the ATSW's port to zone 4.
 * The ATSW pauses the four CTSWs' ATSW-facing ports; each CTSW, its egress
 * blocked, pauses its rack-0 RTSW; each RTSW pauses its sender's NIC, in that
 * order. V1 shares one paused link and runs below half of it; V2 shares none
 * and runs at the line rate's payload share; nothing is dropped.
 */
class PfcThreeTierTestCase : public TestCase
{
  public:
    PfcThreeTierTestCase()
        : TestCase("PFC across three tiers: an incast at an ATSW pauses back through CTSW and "
                   "RTSW to the senders; a victim sharing a paused link slows, one sharing "
                   "none does not")
    {
    }

  private:
    void DoRun() override
    {
        PfcRun r = RunThreeTierIncast([this](const RoceAiZone& z, PfcRun& run) {
            Ptr<Node> atsw = z.atsw.Get(0);
            auto pauses = [&](Ptr<Node> sw, Ptr<Node> peer) -> const PausePort& {
                return run.ports[PeekPointer(PortTowards(sw, peer))];
            };
            auto rtsw = [&](uint32_t zone, uint32_t rack) {
                return z.rtsw.Get(zone * PFC_RACKS + rack);
            };
            for (uint32_t zone = 0; zone < 4; ++zone)
            {
                Ptr<Node> ctsw = z.ctsw.Get(zone);
                // Hop 1: the ATSW pauses the zone's CTSW.
                const PausePort& a = pauses(atsw, ctsw);
                NS_TEST_EXPECT_MSG_GT(a.pauseTx, 0u, "the ATSW never paused CTSW " << zone);
                // Hop 2: the CTSW pauses the senders' RTSW, after hop 1.
                const PausePort& c = pauses(ctsw, rtsw(zone, 0));
                NS_TEST_EXPECT_MSG_GT(c.pauseTx,
                                      0u,
                                      "CTSW " << zone << " never paused RTSW " << zone << ".0");
                if (c.pauseTx > 0 && a.pauseTx > 0)
                {
                    NS_TEST_EXPECT_MSG_GT(c.firstXoff,
                                          a.firstXoff,
                                          "CTSW " << zone << " paused its RTSW before the ATSW "
                                                  << "paused it");
                }
                // Hop 3: the RTSW pauses the sender's NIC, after hop 2.
                Ptr<Node> sender = z.GetNic(Gpu(zone, 0, 0))->GetNode();
                const PausePort& t = pauses(rtsw(zone, 0), sender);
                NS_TEST_EXPECT_MSG_GT(t.pauseTx,
                                      0u,
                                      "RTSW " << zone << ".0 never paused "
                                              << "its sender");
                if (t.pauseTx > 0 && c.pauseTx > 0)
                {
                    NS_TEST_EXPECT_MSG_GT(t.firstXoff,
                                          c.firstXoff,
                                          "RTSW " << zone << ".0 paused its sender before its "
                                                  << "CTSW paused it");
                }
                auto first = [](const PausePort& p) {
                    std::ostringstream os;
                    os << p.pauseTx << " (first XOFF ";
                    if (p.pauseTx > 0)
                    {
                        os << p.firstXoff.As(Time::US) << ")";
                    }
                    else
                    {
                        os << "none)";
                    }
                    return os.str();
                };
                std::cout << "rocev2-ai-zone-pfc: zone " << zone << " PAUSE frames: ATSW->CTSW "
                          << first(a) << ", CTSW->RTSW " << first(c) << ", RTSW->NIC " << first(t)
                          << "\n";
                if (t.pauseTx > 0)
                {
                    NS_TEST_EXPECT_MSG_LT(t.firstXoff,
                                          VICTIMS_START,
                                          "the pause chain of zone "
                                              << zone << " formed after the victims started");
                }
                // Nothing downstream of the bottleneck pauses.
                NS_TEST_EXPECT_MSG_EQ(pauses(ctsw, atsw).pauseTx,
                                      0u,
                                      "CTSW " << zone << " paused the ATSW");
            }
            // Zone 4 receives at the ATSW's drain rate: no pause there.
            NS_TEST_EXPECT_MSG_EQ(pauses(atsw, z.ctsw.Get(4)).pauseTx,
                                  0u,
                                  "the ATSW paused the receiver's CTSW");
            // V2's links: never paused.
            NS_TEST_EXPECT_MSG_EQ(pauses(z.ctsw.Get(0), rtsw(0, 1)).pauseTx,
                                  0u,
                                  "CTSW 0 paused V2's RTSW");
            NS_TEST_EXPECT_MSG_EQ(pauses(rtsw(0, 2), z.ctsw.Get(0)).pauseTx,
                                  0u,
                                  "V2's receiving RTSW paused CTSW 0");
        });

        std::cout << "rocev2-ai-zone-pfc: pauses sent per tier: ATSW " << r.tierPauses["ATSW"]
                  << ", CTSW " << r.tierPauses["CTSW"] << ", RTSW " << r.tierPauses["RTSW"]
                  << "; V1 " << r.v1Bps / 1e9 << " Gb/s, V2 " << r.v2Bps / 1e9 << " Gb/s\n";
        for (const char* tier : {"ATSW", "CTSW", "RTSW"})
        {
            NS_TEST_EXPECT_MSG_GT(r.tierPauses[tier], 0u, tier << " tier sent no PAUSE");
        }
        for (std::size_t i = 0; i < r.senderPauseRx.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_GT(r.senderPauseRx[i], 0u, "incast sender " << i << " never paused");
        }
        NS_TEST_EXPECT_MSG_EQ(r.v2PauseRx, 0u, "V2's NICs were paused");

        // The window lies inside the incast and inside V2's transfer.
        NS_TEST_EXPECT_MSG_GT(r.incastFirstDone, WINDOW_TO, "incast over before the window ended");
        NS_TEST_EXPECT_MSG_GT(r.v2Done, WINDOW_TO, "V2 done before the window ended");
        // The oracles. Goodput at line rate: every packet carries ZONE_MTU
        // bytes in ZONE_MTU + 58 (Ethernet, IPv4, UDP, BTH, ICRC) + 24 (FCS,
        // preamble, SFD, gap) on the wire (the window holds no first packet,
        // whose RETH adds 16).
        const double line =
            PFC_RATE.GetBitRate() * double(ZONE_MTU) / (ZONE_MTU + FRAME_OVERHEAD + WIRE_EXTRA);
        // V1 shares its paused link with one incast flow: its line-rate
        // share is half the link. PFC holds it below that, at about the
        // incast flow's rate (the link's FIFO interleaves them).
        NS_TEST_EXPECT_MSG_LT(r.v1Bps, line / 2, "V1 not slowed below its share of the link");
        // V2 crosses no paused link and nothing else crosses its links: the
        // line rate less the wire overhead, up to one packet in the window
        // (4096 B in 300 us: 0.11 Gb/s).
        NS_TEST_EXPECT_MSG_EQ_TOL(r.v2Bps,
                                  line,
                                  0.002 * line,
                                  "V2, which shares no paused link, is not at line rate");

        NS_TEST_EXPECT_MSG_EQ(r.stats.drops, 0u, "a lossless class dropped");
        NS_TEST_EXPECT_MSG_EQ(r.stats.retransmits, 0u, "retransmissions");
        NS_TEST_EXPECT_MSG_EQ(r.stats.bytesDelivered, r.expectedBytes, "bytes missing");
        NS_TEST_EXPECT_MSG_EQ(r.stats.bufferedBytes, 0u, "a switch buffer did not drain");
        NS_TEST_EXPECT_MSG_EQ(r.pauseHeld, false, "a pause is still held at the end");
    }
};

/**
 * \ingroup rocev2
 * AI Zones as fabrics: PFC hop by hop across three tiers.
 */
class RoceAiZonePfcTestSuite : public TestSuite
{
  public:
    RoceAiZonePfcTestSuite()
        : TestSuite("rocev2-ai-zone-pfc", Type::SYSTEM)
    {
        AddTestCase(new PfcThreeTierTestCase, RoceTestDuration::QUICK);
    }
};

static RoceAiZonePfcTestSuite g_roceAiZonePfcTestSuite; //!< static instance
