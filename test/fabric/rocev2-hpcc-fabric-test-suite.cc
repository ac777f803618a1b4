/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * HPCC on a multi-hop leaf-spine with cross traffic: near-zero queues and fairness.
 */

// HPCC (Li et al., SIGCOMM 2019) beyond one switch. Seven flows on a 3-leaf,
// 2-spine fabric (100 Gb/s, 1 us links) meet at two bottlenecks at two
// tiers: three at a leaf's port to their receiver (paths of one and of three
// switches), four at a spine's port to a leaf. Cross traffic shares the
// other hops: two of the spine-bottlenecked flows cross a leaf uplink with
// one of the leaf-bottlenecked ones, a hop busy at ~78% that is nobody's
// bottleneck. Every flow reads INT from every switch on its path and HPCC
// must react to the most loaded hop. eta = 0.95 (the paper's), T = 9 us (at
// least the longest unloaded RTT, ~8.5 us), W_AI = B T (1 - eta) / N with
// N = 16, four times the most flows a bottleneck holds.
//
// The oracles are derived here from HPCC's equations, not measured:
//
// - The fixed point. A flow whose most loaded hop l has normalised inflight
//   U_l updates its window once per T as W <- W eta / U_l + W_AI; it stands
//   still when W = W_AI U_l / (U_l - eta), i.e. at the rate W / T, the same
//   for every flow bottlenecked at l. With no standing queue U_l is the
//   link's transmit rate over its line rate (INT counts frame bytes, INT
//   records and the ACKs the link carries included), which fixes U_l.
//   Water-filling over the links, the most constrained first, gives every
//   flow's rate and every link's U (HpccFixedPoint). With n flows and
//   nothing else on the link this is U = eta + n W_AI / (B T): 0.9625 for
//   n = 4. (A flow that crosses two equally loaded bottlenecks gets less than
//   this: it follows the larger of two noisy U's, biased upwards. Each flow
//   here has one bottleneck.)
// - The queue bound. The fixed point has no standing queue as long as U_l
//   stays below what the wire can carry in INT's units, s_l = F / (F + 24)
//   for frames of F bytes (FCS, preamble and gap are not counted by INT),
//   ~0.98 here: N is chosen so that it does. Above s_l the excess inflight
//   (U_l - s_l) B T would stand in the queue. On top of that, each flow's
//   window can run ahead of the INT it last read by at most one additive
//   step W_AI and one packet P, so Q_l <= (U_l - s_l)^+ B T + N_l (W_AI + P)
//   for the N_l flows through l.

#include "../rocev2-frame-bytes.h"

#include "ns3/double.h"
#include "ns3/node-container.h"
#include "ns3/roce-cc-hpcc.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-flow-pin-table.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint8_t PRIO = 3;              //!< the priority QPs use by default
constexpr double LINK_BPS = 100e9;       //!< every link's rate
constexpr uint32_t N_LEAVES = 3;         //!< leaves
constexpr uint32_t N_SPINES = 2;         //!< spines
constexpr uint32_t HOSTS_PER_LEAF = 5;   //!< hosts per leaf
constexpr uint32_t ACK_OVERHEAD = 82;    //!< RoceCcContext::wireOverhead of a data packet
constexpr uint64_t FLOW_BYTES = 1 << 30; //!< each flow's WRITE: longer than the run

/// One flow of the scenario.
struct FlowSpec
{
    const char* name; //!< its name in messages
    uint32_t srcLeaf; //!< sender's leaf
    uint32_t srcHost; //!< sender's host on it
    uint32_t dstLeaf; //!< receiver's leaf
    uint32_t dstHost; //!< receiver's host on it
    int pinSpine;     //!< the spine its source leaf sends it to (-1: ECMP)
};

/**
 * The flows. a1..a3 go to R = host 0 of leaf 2: a1 from leaf 0 through
 * spine 1, a2 from leaf 1 through spine 0, a3 from R's own leaf (one switch,
 * one INT record); they meet at leaf 2's port to R, a leaf-tier bottleneck.
 * b1..b4 go to four hosts of leaf 1, b1 and b2 from leaf 0, b3 and b4 from
 * leaf 2, all through spine 1; they meet at spine 1's port to leaf 1, a
 * spine-tier bottleneck. b1 and b2 cross leaf 0's uplink to spine 1 with
 * a1: a hop that is busy (about 80%) but nobody's bottleneck.
 */
const std::vector<FlowSpec> FLOWS{
    {"a1", 0, 0, 2, 0, 1},
    {"a2", 1, 0, 2, 0, 0},
    {"a3", 2, 1, 2, 0, -1},
    {"b1", 0, 1, 1, 1, 1},
    {"b2", 0, 2, 1, 2, 1},
    {"b3", 2, 2, 1, 3, 1},
    {"b4", 2, 3, 1, 4, 1},
};

/**
 * \param hops INT records a frame carries
 * \return frame bytes per payload byte of a full data packet at that hop, as
 *         INT counts them (no FCS, preamble or gap)
 */
double
FrameFactor(uint32_t hops)
{
    return (MTU + FRAME_OVERHEAD + RoceIntRecord::SIZE * hops) / double(MTU);
}

/// A flow's crossing of one INT-stamping link, for HpccFixedPoint.
struct Crossing
{
    uint32_t link; //!< the link's index
    double phi;    //!< the flow's frame bytes per payload byte there
};

/**
 * HPCC's fixed point by water-filling (see the file comment).
 *
 * At link l, let F be the flows not yet fixed, Phi the sum of their phi, and
 * rho the frame rate of the flows already fixed, in bytes/s. The F flows
 * share one window W = W_AI U / (U - eta), i.e. the payload rate
 * p = a U / (U - eta) with a = (W_AI / T) x MTU / (MTU + 82) (the window
 * counts wire bytes of full packets), and the link's rate is U B:
 *
 *     Phi a U / (U - eta) + rho = U B
 *     B U^2 - (rho + eta B + Phi a) U + rho eta = 0
 *
 * whose root above eta is U. The link with the smallest p fixes its flows;
 * then the others are solved again. A flow never exceeds the NIC's line rate
 * (W <= W_init = B T), `cap` in payload bytes/s.
 *
 * \param flows each flow's crossings
 * \param nLinks links
 * \param bytesPerSec B, bytes/s
 * \param eta target utilisation
 * \param a the additive increase as a payload rate, bytes/s
 * \param cap a flow's largest payload rate, bytes/s
 * \param background each link's other traffic the INT counts (ACKs), bytes/s
 * \param linkU set to each link's predicted U (its frame rate over B)
 * \param fixedBy set to the link that fixed each flow's rate (-1: the NIC's line rate)
 * \return each flow's payload rate, bytes/s
 */
std::vector<double>
HpccFixedPoint(const std::vector<std::vector<Crossing>>& flows,
               uint32_t nLinks,
               double bytesPerSec,
               double eta,
               double a,
               double cap,
               const std::vector<double>& background,
               std::vector<double>* linkU,
               std::vector<int32_t>* fixedBy)
{
    const double B = bytesPerSec;
    std::vector<double> rate(flows.size(), -1); // -1: not fixed yet
    fixedBy->assign(flows.size(), -1);
    for (;;)
    {
        double best = cap;
        int32_t bestLink = -1;
        for (uint32_t l = 0; l < nLinks; ++l)
        {
            double phiSum = 0;          // flows not fixed yet
            double rho = background[l]; // frame rate of the fixed ones and the ACKs
            for (std::size_t f = 0; f < flows.size(); ++f)
            {
                for (const Crossing& c : flows[f])
                {
                    if (c.link != l)
                    {
                        continue;
                    }
                    if (rate[f] < 0)
                    {
                        phiSum += c.phi;
                    }
                    else
                    {
                        rho += rate[f] * c.phi;
                    }
                }
            }
            if (phiSum == 0)
            {
                continue;
            }
            double b = rho + eta * B + phiSum * a;
            double u = (b + std::sqrt(b * b - 4 * B * rho * eta)) / (2 * B);
            double p = a * u / (u - eta);
            if (p < best)
            {
                best = p;
                bestLink = static_cast<int32_t>(l);
            }
        }
        bool any = false;
        for (std::size_t f = 0; f < flows.size(); ++f)
        {
            if (rate[f] >= 0)
            {
                continue;
            }
            bool onBest = bestLink < 0; // none below the cap: every flow at line rate
            for (const Crossing& c : flows[f])
            {
                onBest = onBest || static_cast<int32_t>(c.link) == bestLink;
            }
            if (onBest)
            {
                rate[f] = best;
                (*fixedBy)[f] = bestLink;
            }
            any = any || rate[f] < 0;
        }
        if (!any)
        {
            break;
        }
    }
    linkU->assign(nLinks, 0);
    for (uint32_t l = 0; l < nLinks; ++l)
    {
        (*linkU)[l] = background[l] / B;
    }
    for (std::size_t f = 0; f < flows.size(); ++f)
    {
        for (const Crossing& c : flows[f])
        {
            (*linkU)[c.link] += rate[f] * c.phi / B;
        }
    }
    return rate;
}

/**
 * The priority-3 queue of one switch egress port over a window: its exact
 * time average and its largest value, from the queue disc's Enqueue and
 * Dequeue traces.
 */
class QueueWatch
{
  public:
    /** \param q the queue disc to watch */
    explicit QueueWatch(Ptr<RoceEgressQueueDisc> q)
        : m_q(q)
    {
        q->TraceConnectWithoutContext("Enqueue", MakeCallback(&QueueWatch::Changed, this));
        q->TraceConnectWithoutContext("Dequeue", MakeCallback(&QueueWatch::Changed, this));
    }

    /** \brief Start the window now. */
    void Start()
    {
        m_on = true;
        m_since = Simulator::Now();
        m_at = m_since;
        m_area = 0;
        m_last = m_q->GetQueueBytes(PRIO);
        m_max = m_last;
    }

    /** \return the largest queue seen in the window, bytes */
    uint64_t Max() const
    {
        return m_max;
    }

    /** \return the queue averaged over the window up to now, bytes */
    double Mean() const
    {
        double area = m_area + double(m_last) * (Simulator::Now() - m_at).GetSeconds();
        return area / (Simulator::Now() - m_since).GetSeconds();
    }

  private:
    /** \param priority the queue of the frame that joined or left */
    void Changed(Ptr<const Packet> /* frame */, uint8_t priority)
    {
        if (priority != PRIO || !m_on)
        {
            return;
        }
        Time now = Simulator::Now();
        m_area += double(m_last) * (now - m_at).GetSeconds();
        m_at = now;
        m_last = m_q->GetQueueBytes(PRIO);
        m_max = std::max(m_max, m_last);
    }

    Ptr<RoceEgressQueueDisc> m_q;
    bool m_on{false};
    Time m_since;
    Time m_at;
    double m_area{0};
    uint64_t m_last{0};
    uint64_t m_max{0};
};

/// How the scenario is run.
struct HpccConfig
{
    double eta{0.95};              //!< HPCC's Eta
    uint32_t expectedFlows{16};    //!< HPCC's ExpectedFlows (N in W_AI)
    Time baseRtt{MicroSeconds(9)}; //!< HPCC's BaseRtt, T
    Time from{MilliSeconds(1)};    //!< measurement window start
    Time to{MilliSeconds(5)};      //!< measurement window end
};

/// One switch egress port that carried data.
struct LinkResult
{
    std::string name;       //!< "leaf0->spine0"
    uint32_t flows{0};      //!< data flows through it
    uint32_t maxHops{0};    //!< most INT records its data frames carried
    double predictedU{0};   //!< HPCC's fixed point
    double measuredU{0};    //!< frame bytes sent in the window / (B x window)
    uint64_t maxQueue{0};   //!< largest queue in the window
    double meanQueue{0};    //!< average queue in the window
    double queueBound{0};   //!< Q_l bound of the file comment
    bool bottleneck{false}; //!< the fixed point saturates it (it fixes some flow's rate)
};

/// One flow's outcome.
struct FlowResult
{
    std::string name;            //!< its name
    double predictedBps{0};      //!< fixed-point payload rate, bit/s
    double measuredBps{0};       //!< payload delivered in the window, bit/s
    uint32_t intHops{0};         //!< INT records at its receiver
    std::set<std::string> links; //!< the switch egress ports its data left by
    std::string bottleneck;      //!< the link that fixes its rate in the fixed point
};

/// What one run gives.
struct HpccRun
{
    std::vector<FlowResult> flows; //!< per flow, in FLOWS order
    std::vector<LinkResult> links; //!< per switch egress port that carried data
    RoceFabricStats stats;         //!< fabric counters at the end
    double waiModel{0};            //!< W_AI as a sender's RoceCcHpcc computed it
    double waiPaper{0};            //!< W_AI = B T (1 - eta) / N
};

/**
 * Run the scenario.
 * \param cfg the configuration
 * \return what happened
 */
HpccRun
RunLeafSpine(const HpccConfig& cfg)
{
    NodeContainer leaves(N_LEAVES);
    NodeContainer spines(N_SPINES);
    NodeContainer hosts(N_LEAVES * HOSTS_PER_LEAF);
    RoceSwitchHelper sh;
    sh.Install(leaves);
    sh.Install(spines);
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(LINK_BPS))));
    roce.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
    roce.SetCongestionControl("hpcc");
    roce.SetCongestionControlAttribute("Eta", DoubleValue(cfg.eta));
    roce.SetCongestionControlAttribute("ExpectedFlows", UintegerValue(cfg.expectedFlows));
    roce.SetCongestionControlAttribute("BaseRtt", TimeValue(cfg.baseRtt));

    std::map<Ptr<Node>, std::string> names;
    std::vector<std::vector<Ptr<RoceNetDevice>>> nics(N_LEAVES);
    for (uint32_t l = 0; l < N_LEAVES; ++l)
    {
        names[leaves.Get(l)] = "leaf" + std::to_string(l);
        for (uint32_t h = 0; h < HOSTS_PER_LEAF; ++h)
        {
            Ptr<Node> host = hosts.Get(l * HOSTS_PER_LEAF + h);
            names[host] = "host" + std::to_string(l) + "." + std::to_string(h);
            nics[l].push_back(DynamicCast<RoceNetDevice>(roce.Install(host, leaves.Get(l)).Get(0)));
        }
    }
    // Leaf l's uplink to spine s is its port HOSTS_PER_LEAF + s.
    for (uint32_t s = 0; s < N_SPINES; ++s)
    {
        names[spines.Get(s)] = "spine" + std::to_string(s);
    }
    for (uint32_t l = 0; l < N_LEAVES; ++l)
    {
        for (uint32_t s = 0; s < N_SPINES; ++s)
        {
            roce.Install(leaves.Get(l), spines.Get(s));
        }
    }
    RoceSwitchHelper::PopulateRoutes();
    RoceSwitchHelper::AssignStreams(100);

    // The flows, pinned where the scenario says.
    std::vector<Ptr<RoceQueuePair>> senders;
    std::vector<Ptr<RoceQueuePair>> receivers;
    std::map<RoceFlowKey, uint32_t> flowOf;
    for (uint32_t f = 0; f < FLOWS.size(); ++f)
    {
        const FlowSpec& s = FLOWS[f];
        auto [qa, qb] = roce.CreateQp(nics[s.srcLeaf][s.srcHost], nics[s.dstLeaf][s.dstHost]);
        RoceFlowKey key{nics[s.srcLeaf][s.srcHost]->GetIpv4Address().Get(),
                        nics[s.dstLeaf][s.dstHost]->GetIpv4Address().Get(),
                        qa->GetSourcePort(),
                        RoceFrame::ROCEV2_UDP_PORT,
                        qb->GetQpn()};
        if (s.pinSpine >= 0)
        {
            leaves.Get(s.srcLeaf)->GetObject<RoceSwitch>()->AddPinnedRoute(
                key,
                HOSTS_PER_LEAF + static_cast<uint32_t>(s.pinSpine));
        }
        flowOf[key] = f;
        qa->PostWrite(FLOW_BYTES);
        senders.push_back(qa);
        receivers.push_back(qb);
    }

    // Every switch egress port: its name, queue and the flows (with their
    // INT record count) its data frames belong to.
    struct Port
    {
        Ptr<RoceSwitchPort> dev;
        std::string name;
        std::unique_ptr<QueueWatch> queue;
        std::map<uint32_t, uint32_t> hopsOf; // flow -> INT records on the wire here
        uint64_t dataInWindow{0};            // data frame bytes sent in the window
        uint64_t txAtFrom{0};
        uint64_t txAtTo{0};
    };

    std::vector<std::unique_ptr<Port>> ports;
    bool windowOn = false;
    for (NodeContainer* c : {&leaves, &spines})
    {
        for (auto it = c->Begin(); it != c->End(); ++it)
        {
            Ptr<RoceSwitch> sw = (*it)->GetObject<RoceSwitch>();
            for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
            {
                auto port = std::make_unique<Port>();
                port->dev = sw->GetPort(i);
                Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(port->dev->GetChannel());
                port->name =
                    names[*it] + "->" + names[ch->GetPeer(PeekPointer(port->dev))->GetNode()];
                port->queue = std::make_unique<QueueWatch>(port->dev->GetQueueDisc());
                Port* raw = port.get();
                port->dev->TraceConnectWithoutContext(
                    "MacTx",
                    Callback<void, Ptr<const Packet>>([raw, &flowOf, &windowOn](
                                                          Ptr<const Packet> p) {
                        RoceFrame fr = RoceFrame::Parse(*p);
                        if (!fr.isRoce || !IsDataOpcode(fr.opcode))
                        {
                            return;
                        }
                        auto it = flowOf.find({fr.srcIp, fr.dstIp, fr.sport, fr.dport, fr.destQp});
                        if (it != flowOf.end())
                        {
                            raw->dataInWindow += windowOn ? p->GetSize() : 0;
                            uint32_t& h = raw->hopsOf[it->second];
                            h = std::max<uint32_t>(h, fr.bthByte4 & 0x1F);
                        }
                    }));
                ports.push_back(std::move(port));
            }
        }
    }

    std::vector<uint64_t> rxAtFrom(FLOWS.size());
    std::vector<uint64_t> rxAtTo(FLOWS.size());
    HpccRun r;
    Simulator::Schedule(cfg.from, [&]() {
        for (std::size_t f = 0; f < FLOWS.size(); ++f)
        {
            rxAtFrom[f] = receivers[f]->GetStats().bytesDelivered;
        }
        for (auto& p : ports)
        {
            p->txAtFrom = p->dev->GetTxBytes();
            p->queue->Start();
        }
        windowOn = true;
    });
    Simulator::Schedule(cfg.to, [&]() {
        for (std::size_t f = 0; f < FLOWS.size(); ++f)
        {
            rxAtTo[f] = receivers[f]->GetStats().bytesDelivered;
        }
        for (auto& p : ports)
        {
            p->txAtTo = p->dev->GetTxBytes();
        }
        windowOn = false;
        Simulator::Stop();
    });
    Simulator::Run();

    // The fixed point over the links the data actually crossed.
    const double window = (cfg.to - cfg.from).GetSeconds();
    const double B = LINK_BPS / 8;
    const double wInit = B * cfg.baseRtt.GetSeconds();
    r.waiPaper = wInit * (1 - cfg.eta) / cfg.expectedFlows;
    r.waiModel = DynamicCast<RoceCcHpcc>(senders[0]->GetCongestionControl())->GetAdditiveIncrease();
    const double a = r.waiPaper / cfg.baseRtt.GetSeconds() * MTU / (MTU + ACK_OVERHEAD);
    const double cap = B * MTU / (MTU + ACK_OVERHEAD);
    std::vector<std::vector<Crossing>> crossings(FLOWS.size());
    std::vector<Port*> used;
    std::vector<double> background; // ACK bytes/s per used link, measured
    for (auto& p : ports)
    {
        if (p->hopsOf.empty())
        {
            continue;
        }
        background.push_back((p->txAtTo - p->txAtFrom - p->dataInWindow) / window);
        for (auto [f, hops] : p->hopsOf)
        {
            crossings[f].push_back({static_cast<uint32_t>(used.size()), FrameFactor(hops)});
        }
        used.push_back(p.get());
    }
    std::vector<double> linkU;
    std::vector<int32_t> fixedBy;
    std::vector<double> rates = HpccFixedPoint(crossings,
                                               static_cast<uint32_t>(used.size()),
                                               B,
                                               cfg.eta,
                                               a,
                                               cap,
                                               background,
                                               &linkU,
                                               &fixedBy);
    for (std::size_t f = 0; f < FLOWS.size(); ++f)
    {
        FlowResult fr;
        fr.name = FLOWS[f].name;
        fr.predictedBps = rates[f] * 8;
        fr.measuredBps = (rxAtTo[f] - rxAtFrom[f]) * 8.0 / window;
        r.flows.push_back(fr);
    }
    for (std::size_t l = 0; l < used.size(); ++l)
    {
        Port* p = used[l];
        r.links.emplace_back();
        LinkResult& lr = r.links.back();
        lr.name = p->name;
        lr.maxQueue = p->queue->Max();
        lr.meanQueue = p->queue->Mean();
        lr.flows = static_cast<uint32_t>(p->hopsOf.size());
        lr.predictedU = linkU[l];
        lr.measuredU = (p->txAtTo - p->txAtFrom) / (B * window);
        for (auto [f, hops] : p->hopsOf)
        {
            lr.maxHops = std::max(lr.maxHops, hops);
            r.flows[f].intHops = std::max(r.flows[f].intHops, hops);
            r.flows[f].links.insert(p->name);
        }
        double packet =
            MTU + FRAME_OVERHEAD + RETH_BYTES + RoceIntRecord::SIZE * lr.maxHops + WIRE_EXTRA;
        double frame = MTU + FRAME_OVERHEAD + RoceIntRecord::SIZE * lr.maxHops;
        double s = frame / (frame + WIRE_EXTRA);
        lr.queueBound = std::max(0.0, lr.predictedU - s) * B * cfg.baseRtt.GetSeconds() +
                        lr.flows * (r.waiPaper + packet);
        lr.bottleneck = std::count(fixedBy.begin(), fixedBy.end(), int32_t(l)) > 0;
    }
    for (std::size_t f = 0; f < FLOWS.size(); ++f)
    {
        r.flows[f].bottleneck = fixedBy[f] >= 0 ? r.links[fixedBy[f]].name : "the NIC";
    }
    r.stats = RoceFabricStats::Collect();
    Simulator::Destroy();
    return r;
}

/**
 * \param r a run
 * \return the run as a table, for messages and the log
 */
std::string
Describe(const HpccRun& r)
{
    std::ostringstream os;
    for (const auto& f : r.flows)
    {
        os << "  flow " << f.name << ": " << f.measuredBps / 1e9 << " Gb/s (fixed point "
           << f.predictedBps / 1e9 << " at " << f.bottleneck << "), " << f.intHops << " INT hops\n";
    }
    for (const auto& l : r.links)
    {
        os << "  link " << l.name << ": " << l.flows << " flows, U " << l.measuredU
           << " (fixed point " << l.predictedU << "), queue max " << l.maxQueue << " B mean "
           << l.meanQueue << " B (bound " << l.queueBound << " B)\n";
    }
    return os.str();
}

} // namespace

/**
 * \ingroup rocev2
 * HPCC on the leaf-spine with cross traffic: every flow runs at HPCC's fixed point (within 5%),
 * each bottleneck at its predicted U (within 1%), every queue within the bound of eta and the INT
 * window and, on average, under one packet; no PFC, no drop.
 */
class HpccLeafSpineTestCase : public TestCase
{
  public:
    HpccLeafSpineTestCase()
        : TestCase("HPCC on a leaf-spine with cross traffic: bottlenecks at a leaf and a spine, "
                   "fixed-point shares, near-zero queues at every hop")
    {
    }

  private:
    void DoRun() override
    {
        HpccConfig cfg;
        HpccRun r = RunLeafSpine(cfg);
        std::cout << "rocev2-hpcc-fabric:\n" << Describe(r);

        NS_TEST_EXPECT_MSG_EQ(r.stats.drops, 0u, "frames dropped");
        NS_TEST_EXPECT_MSG_EQ(r.stats.pfcPauseTx, 0u, "HPCC let a queue reach PFC");
        // W_AI as the paper gives it: W_init (1 - eta) / N with W_init = B T.
        NS_TEST_EXPECT_MSG_EQ_TOL(r.waiModel,
                                  r.waiPaper,
                                  1e-6 * r.waiPaper,
                                  "W_AI is not B T (1 - eta) / N");
        // The paths are the scenario's: a3 crosses one switch, the others three.
        for (const auto& f : r.flows)
        {
            const uint32_t hops = f.name == "a3" ? 1 : 3;
            NS_TEST_EXPECT_MSG_EQ(f.intHops, hops, "flow " << f.name << " INT hops");
        }

        // Shares: within 5% of the fixed point. The fixed point is that of
        // the mean U; HPCC acts on each ACK's most loaded hop, and a flow that
        // also crosses a busy hop (b1, b2 cross one at ~0.77) sees it as the
        // most loaded now and then. W = W_AI U / (U - eta) with U - eta ~ 0.01
        // turns such a bias of 3e-4 in U into 3% in rate. Measured: at most
        // 2.4% off in this run, 3.7% over RngRun 1..16 (the ACKs' ECMP paths
        // and the switches' seeds change with the run).
        uint32_t bottlenecks = 0;
        for (const auto& f : r.flows)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(f.measuredBps,
                                      f.predictedBps,
                                      0.05 * f.predictedBps,
                                      "flow " << f.name << " off HPCC's fixed point\n"
                                              << Describe(r));
        }
        // Fairness among the flows of each bottleneck, whatever their path
        // length (a3 crosses one switch, a1 and a2 three): Jain's index of
        // their rates relative to their fixed-point shares (which differ only
        // by INT bytes per packet). Rates within 5% of the shares give at
        // least 0.9975.
        for (const auto& l : r.links)
        {
            if (!l.bottleneck)
            {
                continue;
            }
            double sum = 0;
            double sq = 0;
            uint32_t n = 0;
            for (const auto& f : r.flows)
            {
                if (f.bottleneck == l.name)
                {
                    double x = f.measuredBps / f.predictedBps;
                    sum += x;
                    sq += x * x;
                    ++n;
                }
            }
            NS_TEST_EXPECT_MSG_GT(n, 1u, "link " << l.name << ": flows bottlenecked there");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(sum * sum / (n * sq),
                                        0.9975,
                                        "link " << l.name << ": unfair\n"
                                                << Describe(r));
        }
        for (const auto& l : r.links)
        {
            if (!l.bottleneck)
            {
                continue;
            }
            ++bottlenecks;
            // A bottleneck is as busy as the fixed point says: eta plus the
            // additive increases, not the wire's limit and not below eta.
            NS_TEST_EXPECT_MSG_EQ_TOL(l.measuredU,
                                      l.predictedU,
                                      0.01,
                                      "link " << l.name << " utilisation\n"
                                              << Describe(r));
        }
        NS_TEST_EXPECT_MSG_EQ(bottlenecks, 2u, "bottlenecks\n" << Describe(r));
        // They are the scenario's: leaf 2's port to R and spine 1's to leaf 1,
        // and leaf 0's uplink to spine 1 carries a1, b1 and b2.
        for (const auto& l : r.links)
        {
            const bool expected = l.name == "leaf2->host2.0" || l.name == "spine1->leaf1";
            NS_TEST_EXPECT_MSG_EQ(l.bottleneck, expected, "link " << l.name << " bottleneck");
            if (l.name == "leaf0->spine1")
            {
                NS_TEST_EXPECT_MSG_EQ(l.flows, 3u, "flows sharing leaf 0's uplink to spine 1");
            }
        }
        // Queues, at every switch egress the data crossed: within the bound,
        // and under one full packet on average (the fixed point has no
        // standing queue; what remains is packets of different flows meeting).
        const double packet = MTU + FRAME_OVERHEAD + WIRE_EXTRA;
        for (const auto& l : r.links)
        {
            NS_TEST_EXPECT_MSG_LT_OR_EQ(l.maxQueue,
                                        l.queueBound,
                                        "link " << l.name << " queue above eta's bound\n"
                                                << Describe(r));
            NS_TEST_EXPECT_MSG_LT(l.meanQueue,
                                  packet,
                                  "link " << l.name << " keeps a standing queue\n"
                                          << Describe(r));
        }
    }
};

/**
 * \ingroup rocev2
 * HPCC on a multi-hop leaf-spine with cross traffic: near-zero queues and fairness.
 */
class RoceHpccFabricTestSuite : public TestSuite
{
  public:
    RoceHpccFabricTestSuite()
        : TestSuite("rocev2-hpcc-fabric", Type::SYSTEM)
    {
        AddTestCase(new HpccLeafSpineTestCase, RoceTestDuration::QUICK);
    }
};

static RoceHpccFabricTestSuite g_roceHpccFabricTestSuite; //!< static instance
