/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-flow-engine.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/roce-cc-none.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-congestion-ops.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-error.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-rank-call.h"
#include "ns3/roce-reth-header.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFlowEngine");
NS_OBJECT_ENSURE_REGISTERED(RoceFlowEngine);

namespace
{

/** The longest path a walk follows before it calls it a loop. */
constexpr uint32_t MAX_HOPS = 64;

/** Bytes of a data frame beyond its payload and pad: headers up to the BTH, ICRC. */
constexpr uint32_t DATA_HEADERS = RoceFrame::HEADER_BYTES + RoceIcrcTrailer::SIZE;

/** Bytes of an ACK frame: headers up to the BTH, AETH, ICRC. */
constexpr uint32_t ACK_FRAME =
    RoceFrame::HEADER_BYTES + RoceFrame::AETH_BYTES + RoceIcrcTrailer::SIZE;

/** \return payload bytes rounded up to the 4-byte multiple frames carry */
uint32_t
Padded(uint64_t payload)
{
    return static_cast<uint32_t>((payload + 3) / 4 * 4);
}

} // namespace

TypeId
RoceFlowEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceFlowEngine")
                            .SetParent<RoceMessageOffload>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceFlowEngine>()
                            .AddAttribute("FastPath",
                                          "Settle a change without a max-min computation when "
                                          "the old rates plus the new flow's free capacity are "
                                          "provably max-min (the same rates, fewer operations)",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(&RoceFlowEngine::m_fastPath),
                                          MakeBooleanChecker())
                            .AddAttribute("VerifyFastPath",
                                          "Check every fast-path change against a full "
                                          "computation (a RoceError on a difference above "
                                          "1e-6 relative); for tests",
                                          BooleanValue(false),
                                          MakeBooleanAccessor(&RoceFlowEngine::m_verify),
                                          MakeBooleanChecker());
    return tid;
}

RoceFlowEngine::RoceFlowEngine()
    : m_ticksPerSecond(static_cast<long double>(Seconds(1).GetTimeStep()))
{
}

RoceFlowEngine::~RoceFlowEngine() = default;

void
RoceFlowEngine::DoDispose()
{
    for (Flow& f : m_flows)
    {
        f.finish.Cancel();
        f.cb = Callback<void, const RoceCompletion&>();
    }
    m_reshare.Cancel();
    m_flows.clear();
    m_qps.clear();
    m_qpIndex.clear();
    m_links.clear();
    m_linkIndex.clear();
    RoceMessageOffload::DoDispose();
}

Ptr<RoceFlowEngine>
RoceFlowEngine::Install()
{
    ROCE_ERROR_IF(RoceRankCall::HasTransport(),
                  "RoceFlowEngine: flow-level fidelity runs in one process; this run is split "
                  "over MPI ranks (use --fidelity=packet, or run without MPI)");
    Ptr<RoceFlowEngine> engine = CreateObject<RoceFlowEngine>();
    RoceForEachDevice<RoceNetDevice>(
        [&engine](const Ptr<Node>&, const Ptr<RoceNetDevice>& nic) { engine->Attach(nic); });
    return engine;
}

void
RoceFlowEngine::Attach(Ptr<RoceNetDevice> nic)
{
    ROCE_ERROR_IF(!nic, "RoceFlowEngine::Attach: a null NIC");
    const TypeId cc = nic->GetCongestionControlType();
    if (cc != RoceCcNone::GetTypeId())
    {
        ObjectFactory factory(cc.GetName());
        ROCE_ERROR("RoceFlowEngine: the NIC of node "
                   << nic->GetNodeId() << " uses congestion control "
                   << factory.Create<RoceCongestionOps>()->GetName()
                   << "; flow-level fidelity models none (max-min fair rates): use cc none, or "
                      "--fidelity=packet");
    }
    nic->SetMessageOffload(this);
}

const RoceFlowEngine::Stats&
RoceFlowEngine::GetStats() const
{
    return m_stats;
}

uint32_t
RoceFlowEngine::GetNActive() const
{
    return m_active;
}

long double
RoceFlowEngine::Now() const
{
    return static_cast<long double>(Simulator::Now().GetTimeStep()) / m_ticksPerSecond;
}

Time
RoceFlowEngine::Until(long double t) const
{
    const long double ticks = std::ceil(t * m_ticksPerSecond - 1e-9L);
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t at = static_cast<int64_t>(ticks);
    return TimeStep(at > now ? at - now : 0);
}

uint32_t
RoceFlowEngine::LinkOf(RocePfcNetDevice* device)
{
    auto it = m_linkIndex.find(device);
    if (it != m_linkIndex.end())
    {
        return it->second;
    }
    Ptr<RoceChannel> channel = DynamicCast<RoceChannel>(device->GetChannel());
    ROCE_ERROR_IF(!channel,
                  "RoceFlowEngine: device " << device->GetIfIndex() << " of node "
                                            << device->GetNodeId() << " has no RoceChannel");
    ROCE_ERROR_IF(device->GetReceiveErrorModel(),
                  "RoceFlowEngine: device " << device->GetIfIndex() << " of node "
                                            << device->GetNodeId()
                                            << " has a ReceiveErrorModel; flow-level fidelity "
                                               "has no packets to lose (use --fidelity=packet)");
    Link l;
    l.device = device;
    l.bitRate = static_cast<double>(device->GetBitRate());
    l.capacity = l.bitRate / 8.0;
    l.delay = static_cast<long double>(channel->GetDelay().GetTimeStep()) / m_ticksPerSecond;
    const uint32_t index = m_links.size();
    m_links.push_back(std::move(l));
    m_linkIndex.emplace(device, index);
    return index;
}

RoceNetDevice*
RoceFlowEngine::Walk(RoceQueuePair* qp, uint32_t dst, std::vector<uint32_t>& links, bool strict)
{
    links.clear();
    RoceNetDevice* src = PeekPointer(qp->GetNic());
    RoceFrame f;
    f.etherType = RoceFrame::ETHERTYPE_IPV4;
    f.ipProto = 17;
    f.srcIp = src->GetIpv4Address().Get();
    f.dstIp = dst;
    f.sport = qp->GetSourcePort();
    f.dport = RoceFrame::ROCEV2_UDP_PORT;
    f.destQp = qp->GetRemoteQpn();
    f.isIpv4 = true;
    f.isRoce = true;
    RocePfcNetDevice* dev = src;
    for (uint32_t hop = 0; hop < MAX_HOPS; ++hop)
    {
        if (!strict && !dev->IsLinkUp())
        {
            links.clear();
            return nullptr;
        }
        ROCE_ERROR_IF(!dev->IsLinkUp(),
                      "RoceFlowEngine: QP " << qp->GetQpn() << " of node " << src->GetNodeId()
                                            << ": the link of device " << dev->GetIfIndex()
                                            << " of node " << dev->GetNodeId()
                                            << " on its path is down");
        links.push_back(LinkOf(dev));
        Ptr<Channel> channel = dev->GetChannel();
        Ptr<NetDevice> peer = channel->GetDevice(0) == Ptr<NetDevice>(dev) ? channel->GetDevice(1)
                                                                           : channel->GetDevice(0);
        if (Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(peer))
        {
            ROCE_ERROR_IF(nic->GetIpv4Address().Get() != dst,
                          "RoceFlowEngine: QP " << qp->GetQpn() << " of node " << src->GetNodeId()
                                                << " to " << Ipv4Address(dst) << " reaches the NIC "
                                                << nic->GetIpv4Address() << " of node "
                                                << nic->GetNodeId() << " instead");
            return PeekPointer(nic);
        }
        Ptr<RoceSwitchPort> port = DynamicCast<RoceSwitchPort>(peer);
        ROCE_ERROR_IF(!port,
                      "RoceFlowEngine: QP " << qp->GetQpn() << " of node " << src->GetNodeId()
                                            << " reaches device " << peer->GetIfIndex()
                                            << " of node " << peer->GetNode()->GetId()
                                            << ", neither a RoCE NIC nor a switch port "
                                               "(another MPI rank's?)");
        Ptr<RoceSwitch> sw = peer->GetNode()->GetObject<RoceSwitch>();
        ROCE_ERROR_IF(sw->GetLoadBalancingMode() != RoceSwitch::LB_ECMP,
                      "RoceFlowEngine: switch node "
                          << peer->GetNode()->GetId()
                          << " has LoadBalancing=" << sw->GetLoadBalancing()
                          << "; flow-level fidelity follows ECMP only (flowlets, spraying and "
                             "adaptive routing choose by queues it does not have)");
        int32_t out = sw->GetPinnedPort({f.srcIp, f.dstIp, f.sport, f.dport, f.destQp});
        if (out < 0 || !sw->GetPort(out)->IsLinkUp())
        {
            out = sw->SelectEgress(f);
        }
        if (!strict && out < 0)
        {
            links.clear();
            return nullptr;
        }
        ROCE_ERROR_IF(out < 0,
                      "RoceFlowEngine: switch node "
                          << peer->GetNode()->GetId() << " has no route to " << Ipv4Address(dst)
                          << " for QP " << qp->GetQpn() << " of node " << src->GetNodeId());
        dev = PeekPointer(sw->GetPort(out));
    }
    ROCE_ERROR("RoceFlowEngine: QP " << qp->GetQpn() << " of node " << src->GetNodeId() << " to "
                                     << Ipv4Address(dst) << " takes more than " << MAX_HOPS
                                     << " hops: a routing loop");
}

uint32_t
RoceFlowEngine::State(RoceQueuePair* qp)
{
    auto it = m_qpIndex.find(qp);
    if (it != m_qpIndex.end())
    {
        return it->second;
    }
    const std::string cc = qp->GetCongestionControl()->GetName();
    ROCE_ERROR_IF(cc != "none",
                  "RoceFlowEngine: QP " << qp->GetQpn() << " of node " << qp->GetNic()->GetNodeId()
                                        << " uses congestion control " << cc
                                        << "; flow-level fidelity models none (max-min fair "
                                           "rates): use cc none, or --fidelity=packet");
    QpState s;
    s.qp = qp;
    s.mtu = qp->GetPayloadMtu();
    // A path that is down when the queue pair first sends is walked again
    // when it resumes (Stall).
    RoceNetDevice* dstNic = Walk(qp, qp->GetRemoteAddress().Get(), s.data, false);
    if (!dstNic)
    {
        dstNic = NicOf(qp->GetRemoteAddress());
        ROCE_ERROR_IF(!dstNic,
                      "RoceFlowEngine: QP " << qp->GetQpn() << " of node "
                                            << qp->GetNic()->GetNodeId() << ": no NIC has "
                                            << qp->GetRemoteAddress());
    }
    Ptr<RoceQueuePair> peer = dstNic->GetQp(qp->GetRemoteQpn());
    ROCE_ERROR_IF(!peer,
                  "RoceFlowEngine: QP " << qp->GetQpn() << " of node " << qp->GetNic()->GetNodeId()
                                        << ": the NIC of node " << dstNic->GetNodeId()
                                        << " has no QP " << qp->GetRemoteQpn());
    s.peer = PeekPointer(peer);
    DataRateValue drain;
    dstNic->GetAttribute("RxDrainRate", drain);
    ROCE_ERROR_IF(drain.Get().GetBitRate() != 0,
                  "RoceFlowEngine: the NIC of node "
                      << dstNic->GetNodeId() << " has RxDrainRate=" << drain.Get()
                      << "; flow-level fidelity has no receive buffer (use --fidelity=packet)");
    UintegerValue ackInterval;
    peer->GetAttribute("AckInterval", ackInterval);
    s.ackInterval = static_cast<uint32_t>(std::max<uint64_t>(1, ackInterval.Get()));
    TimeValue rto;
    qp->GetAttribute("RetransmitTimeout", rto);
    s.rto = rto.Get();
    Walk(s.peer, qp->GetNic()->GetIpv4Address().Get(), s.ack, false);
    const uint32_t index = m_qps.size();
    m_qps.push_back(std::move(s));
    m_qpIndex.emplace(qp, index);
    return index;
}

std::vector<Ptr<RocePfcNetDevice>>
RoceFlowEngine::GetPath(Ptr<RoceQueuePair> qp)
{
    const QpState& s = m_qps[State(PeekPointer(qp))];
    std::vector<Ptr<RocePfcNetDevice>> path;
    for (uint32_t l : s.data)
    {
        path.push_back(m_links[l].device);
    }
    return path;
}

double
RoceFlowEngine::GetRate(Ptr<RoceQueuePair> qp) const
{
    auto it = m_qpIndex.find(PeekPointer(qp));
    if (it == m_qpIndex.end() || m_qps[it->second].current < 0)
    {
        return 0;
    }
    return m_flows[m_qps[it->second].current].rate * 8.0;
}

uint64_t
RoceFlowEngine::GetLinkWireBytes(Ptr<RocePfcNetDevice> device) const
{
    auto it = m_linkIndex.find(PeekPointer(device));
    return it == m_linkIndex.end() ? 0 : m_links[it->second].wireBytes;
}

void
RoceFlowEngine::Carry(RoceQueuePair* qp,
                      uint64_t id,
                      uint64_t bytes,
                      bool write,
                      Time posted,
                      Callback<void, const RoceCompletion&> cb)
{
    const uint32_t s = State(qp);
    ++m_stats.messages;
    m_qps[s].waiting.push_back(Pending{id, bytes, write, posted, std::move(cb)});
    if (m_qps[s].current == IDLE)
    {
        StartNext(s, Now(), true);
    }
}

void
RoceFlowEngine::StartNext(uint32_t qpIndex, long double at, bool stagger)
{
    QpState& s = m_qps[qpIndex];
    if (s.waiting.empty())
    {
        s.current = IDLE;
        return;
    }
    if (stagger)
    {
        // Queue pairs of one NIC that become ready at the same instant send
        // their first frames one after the other (the NIC's round robin):
        // the k-th to start at this instant starts k full frames later.
        // Without it, flows that start together stay tied for ever, where
        // packets break the tie (a collective's chunks on several QPs would
        // finish in lockstep and leave the NIC idle between batches).
        Link& nicLink = m_links[s.data.front()];
        const int64_t tick = Simulator::Now().GetTimeStep();
        uint32_t k = 0;
        if (nicLink.startTick == tick)
        {
            k = ++nicLink.startsAtTick;
        }
        else
        {
            nicLink.startTick = tick;
            nicLink.startsAtTick = 0;
        }
        if (k > 0)
        {
            const long double frame = nicLink.device->FrameWireBytes(DATA_HEADERS + Padded(s.mtu)) *
                                      8.0L / nicLink.bitRate;
            const long double start = std::max(at, Now()) + k * frame;
            s.current = STARTING;
            Simulator::Schedule(Until(start),
                                [this, qpIndex, start]() { StartNext(qpIndex, start, false); });
            return;
        }
    }
    Pending m = std::move(s.waiting.front());
    s.waiting.pop_front();
    uint32_t index;
    if (m_freeFlows.empty())
    {
        index = m_flows.size();
        m_flows.emplace_back();
    }
    else
    {
        index = m_freeFlows.back();
        m_freeFlows.pop_back();
    }
    Flow& f = m_flows[index];
    const RocePfcNetDevice* nic = m_links[s.data.front()].device;
    // The frames of the message, as RoceQueuePair::BuildNextPacket makes them.
    const uint64_t packets = m.bytes == 0 ? 1 : (m.bytes + s.mtu - 1) / s.mtu;
    const uint32_t reth = m.write ? RoceRethHeader::SIZE : 0;
    const uint64_t lastPayload = m.bytes - (packets - 1) * s.mtu;
    uint64_t wire;
    if (packets == 1)
    {
        f.maxFrame = DATA_HEADERS + reth + Padded(m.bytes);
        wire = nic->FrameWireBytes(f.maxFrame);
    }
    else
    {
        f.maxFrame = DATA_HEADERS + reth + Padded(s.mtu);
        wire = nic->FrameWireBytes(f.maxFrame) +
               (packets - 2) * nic->FrameWireBytes(DATA_HEADERS + Padded(s.mtu)) +
               nic->FrameWireBytes(DATA_HEADERS + Padded(lastPayload));
    }
    // One ACK per AckInterval packets, and one for the last.
    const uint64_t acks = (packets + s.ackInterval - 1) / s.ackInterval;
    f.id = m.id;
    f.bytes = m.bytes;
    f.packets = packets;
    f.wire = wire;
    f.ackWire = acks * nic->FrameWireBytes(ACK_FRAME);
    f.posted = m.posted;
    f.cb = std::move(m.cb);
    f.remaining = static_cast<long double>(wire);
    // From the exact instant it may start: its rate, given at the next
    // computation (at most one tick later), counts from there.
    f.since = at;
    f.rate = 0;
    f.qp = qpIndex;
    f.active = true;
    f.frozen = false;
    f.stalled = false;
    s.current = index;
    ++m_active;
    m_stats.maxActive = std::max<uint64_t>(m_stats.maxActive, m_active);
    if (s.data.empty() || s.ack.empty())
    {
        // Its path is down: the frames it sends at line rate are lost.
        Link& nicLink = m_links[LinkOf(PeekPointer(s.qp->GetNic()))];
        f.rate = nicLink.capacity;
        f.active = true;
        Stall(index, false);
        return;
    }
    AttachFlow(index);
}

RoceNetDevice*
RoceFlowEngine::NicOf(Ipv4Address address)
{
    if (m_nicByAddress.empty())
    {
        RoceForEachDevice<RoceNetDevice>([this](const Ptr<Node>&, const Ptr<RoceNetDevice>& nic) {
            m_nicByAddress.emplace(nic->GetIpv4Address().Get(), PeekPointer(nic));
        });
    }
    auto it = m_nicByAddress.find(address.Get());
    return it == m_nicByAddress.end() ? nullptr : it->second;
}

void
RoceFlowEngine::AttachFlow(uint32_t index)
{
    Flow& f = m_flows[index];
    const QpState& s = m_qps[f.qp];
    f.hops.clear();
    const double ackWeight = AckWeight(f);
    for (uint32_t l : s.data)
    {
        f.hops.push_back(Hop{l, 0, 1.0});
    }
    for (uint32_t l : s.ack)
    {
        f.hops.push_back(Hop{l, 0, ackWeight});
    }
    for (uint32_t h = 0; h < f.hops.size(); ++h)
    {
        Link& l = m_links[f.hops[h].link];
        f.hops[h].pos = l.members.size();
        l.members.push_back(Member{index, h, f.hops[h].weight});
        Touch(f.hops[h].link);
    }
    f.rate = 0;
    f.fresh = true;
    m_added.push_back(index);
}

void
RoceFlowEngine::DetachFlow(uint32_t index, bool ended)
{
    Flow& f = m_flows[index];
    if (ended && !f.fresh)
    {
        m_qps[f.qp].removed = static_cast<int64_t>(m_removed.size());
    }
    m_removed.push_back(Removed{f.qp,
                                f.rate,
                                AckWeight(f),
                                static_cast<uint32_t>(m_removedLinks.size()),
                                static_cast<uint32_t>(f.hops.size()),
                                ended && !f.fresh});
    for (const Hop& h : f.hops)
    {
        m_removedLinks.push_back(h.link);
        Link& l = m_links[h.link];
        // Swap-remove the flow's member entry; the moved member's hop learns its place.
        const Member moved = l.members.back();
        l.members[h.pos] = moved;
        m_flows[moved.flow].hops[moved.hop].pos = h.pos;
        l.members.pop_back();
        Touch(h.link);
    }
    f.hops.clear();
    if (f.fresh)
    {
        // Not rated yet: it leaves the list of new flows.
        m_added.erase(std::find(m_added.begin(), m_added.end(), index));
        f.fresh = false;
    }
}

void
RoceFlowEngine::Progress(Flow& f)
{
    const long double now = Now();
    if (now > f.since)
    {
        f.remaining = std::max<long double>(0, f.remaining - f.rate * (now - f.since));
    }
    f.since = now;
}

void
RoceFlowEngine::LinkChanged(Ptr<RoceChannel> channel)
{
    // Flows whose data or ACKs cross a link that went down stop: their
    // frames (or ACKs) are lost. They resume at their queue pair's first
    // retransmission timeout that finds a path up, as the packet model's
    // go-back-N does (the bytes lost in flight are not sent again).
    for (std::size_t d = 0; d < channel->GetNDevices(); ++d)
    {
        Ptr<RocePfcNetDevice> dev = DynamicCast<RocePfcNetDevice>(channel->GetDevice(d));
        auto it = dev ? m_linkIndex.find(PeekPointer(dev)) : m_linkIndex.end();
        if (it == m_linkIndex.end() || dev->IsLinkUp())
        {
            continue;
        }
        std::vector<uint32_t> hit;
        for (const Member& m : m_links[it->second].members)
        {
            hit.push_back(m.flow);
        }
        for (uint32_t flow : hit)
        {
            Stall(flow, true);
        }
    }
}

void
RoceFlowEngine::Stall(uint32_t index, bool attached)
{
    Flow& f = m_flows[index];
    if (f.stalled || !f.active)
    {
        return;
    }
    if (attached)
    {
        Progress(f);
        Simulator::Remove(f.finish);
        DetachFlow(index);
    }
    // How long the sender goes on putting frames on the dead path: its
    // message's rest and the messages queued behind it, at the rate it had
    // (new frames after the routes change reveal the gap to the receiver).
    long double queued = f.remaining;
    for (const Pending& p : m_qps[f.qp].waiting)
    {
        queued += p.bytes;
    }
    f.sendingUntil = f.rate > 0 ? Now() + queued / f.rate : std::numeric_limits<long double>::max();
    f.rate = 0;
    f.stalled = true;
    ++m_stats.stalls;
    const uint32_t qp = f.qp;
    Simulator::Schedule(m_qps[qp].rto, &RoceFlowEngine::RetransmitTimeout, this, qp);
}

bool
RoceFlowEngine::Rewalk(uint32_t qpIndex)
{
    QpState& s = m_qps[qpIndex];
    std::vector<uint32_t> data;
    std::vector<uint32_t> ack;
    if (!Walk(s.qp, s.qp->GetRemoteAddress().Get(), data, false) ||
        !Walk(s.peer, s.qp->GetNic()->GetIpv4Address().Get(), ack, false))
    {
        return false;
    }
    s.data = std::move(data);
    s.ack = std::move(ack);
    return true;
}

void
RoceFlowEngine::RetransmitTimeout(uint32_t qpIndex)
{
    QpState& s = m_qps[qpIndex];
    if (s.current < 0 || !m_flows[s.current].stalled)
    {
        return;
    }
    if (!Rewalk(qpIndex))
    {
        // Still no way through: the next timeout tries again.
        Simulator::Schedule(s.rto, &RoceFlowEngine::RetransmitTimeout, this, qpIndex);
        return;
    }
    Resume(qpIndex);
}

void
RoceFlowEngine::Resume(uint32_t qpIndex)
{
    QpState& s = m_qps[qpIndex];
    if (s.current < 0 || !m_flows[s.current].stalled)
    {
        return;
    }
    Flow& f = m_flows[s.current];
    f.stalled = false;
    f.since = Now();
    ++m_stats.resumed;
    AttachFlow(s.current);
}

void
RoceFlowEngine::RoutesChanged()
{
    // Frames follow the new routes at once: a flow whose path changed moves
    // to the new one; a stalled flow waits for its timeout; an idle queue
    // pair's next message takes the new path.
    for (uint32_t q = 0; q < m_qps.size(); ++q)
    {
        QpState& s = m_qps[q];
        const std::vector<uint32_t> data = s.data;
        const std::vector<uint32_t> ack = s.ack;
        const bool stalled = s.current >= 0 && m_flows[s.current].stalled;
        if (stalled)
        {
            // A sender still putting frames on the wire when the routes
            // change sends the next ones on the new path; the receiver sees
            // the gap and NAKs it, and the sender goes back at once (one
            // trip there and back). Otherwise its timeout brings it back.
            if (Rewalk(q) && m_flows[s.current].sendingUntil > Now())
            {
                long double trip = 0;
                for (uint32_t l : s.data)
                {
                    trip += m_links[l].delay +
                            m_links[l].device->FrameWireBytes(DATA_HEADERS + Padded(s.mtu)) * 8.0L /
                                m_links[l].bitRate;
                }
                for (uint32_t l : s.ack)
                {
                    trip += m_links[l].delay + m_links[l].device->FrameWireBytes(ACK_FRAME) * 8.0L /
                                                   m_links[l].bitRate;
                }
                Simulator::Schedule(Until(Now() + trip), &RoceFlowEngine::Resume, this, q);
            }
            continue;
        }
        if (!Rewalk(q) || (s.data == data && s.ack == ack) || s.current < 0)
        {
            continue;
        }
        Flow& f = m_flows[s.current];
        Progress(f);
        Simulator::Remove(f.finish);
        // Off the old path (whose links Detach finds in the flow's hops), onto the new.
        DetachFlow(s.current);
        AttachFlow(s.current);
        ++m_stats.moved;
    }
}

void
RoceFlowEngine::Touch(uint32_t link)
{
    Link& l = m_links[link];
    if (!l.dirty)
    {
        l.dirty = true;
        m_dirty.push_back(link);
    }
    if (!m_resharePending)
    {
        m_resharePending = true;
        m_reshare = Simulator::ScheduleNow(&RoceFlowEngine::Reshare, this);
    }
}

void
RoceFlowEngine::Fill(std::vector<Link>& links,
                     std::vector<Flow>& flows,
                     const std::vector<uint32_t>& compLinks,
                     const std::vector<uint32_t>& compFlows,
                     uint32_t mark)
{
    // Progressive filling: all unfrozen flows share one level; a link is
    // full at level (capacity - frozen load) / (unfrozen weight). The links
    // full first freeze their flows at that level; repeat. Freezing a flow
    // can only raise the level at which its other links are full.
    //
    // Rounds: each round scans the links for the lowest level and freezes
    // the flows of every link full at it (within a relative 1e-12, the
    // rounding of the sums). A fabric's flows mostly share a few levels, so
    // a few scans settle them; after ROUNDS rounds the rest goes through a
    // heap ordered by level, in which a link's key is a lower bound: popped,
    // the key is recomputed, and the link goes back with the new key if it
    // rose (one push per link and per rise seen).
    constexpr uint32_t ROUNDS = 4;
    constexpr double TIE = 1e-12;
    for (uint32_t f : compFlows)
    {
        flows[f].frozen = false;
        flows[f].newRate = 0;
    }
    uint32_t unfrozenLinks = 0;
    for (uint32_t i : compLinks)
    {
        Link& l = links[i];
        l.residual = l.capacity;
        l.wsum = 0;
        l.unfrozen = 0;
        for (const Member& m : l.members)
        {
            Flow& f = flows[m.flow];
            if (f.mark != mark)
            {
                // Not in the problem: its load is fixed.
                f.frozen = true;
                l.residual -= m.weight * f.rate;
            }
            else if (m.weight > 0)
            {
                l.wsum += m.weight;
                ++l.unfrozen;
            }
        }
        unfrozenLinks += l.unfrozen > 0 ? 1 : 0;
    }
    auto levelOf = [](const Link& l) {
        return std::max(0.0, l.residual) / std::max(l.wsum, 1e-300);
    };
    double level = 0;
    // Freeze the unfrozen flows of link l at the current level.
    auto freeze = [&](Link& l) {
        for (const Member& m : l.members)
        {
            Flow& f = flows[m.flow];
            if (f.frozen || m.weight <= 0)
            {
                continue;
            }
            f.frozen = true;
            f.newRate = level;
            for (const Hop& h : f.hops)
            {
                if (h.weight <= 0)
                {
                    continue;
                }
                Link& o = links[h.link];
                o.residual -= h.weight * level;
                o.wsum -= h.weight;
                if (--o.unfrozen == 0)
                {
                    --unfrozenLinks;
                }
            }
        }
    };
    for (uint32_t round = 0; round < ROUNDS && unfrozenLinks > 0; ++round)
    {
        double lowest = std::numeric_limits<double>::infinity();
        for (uint32_t i : compLinks)
        {
            const Link& l = links[i];
            if (l.unfrozen > 0)
            {
                lowest = std::min(lowest, levelOf(l));
            }
        }
        level = std::max(level, lowest);
        const double bar = level * (1 + TIE);
        for (uint32_t i : compLinks)
        {
            Link& l = links[i];
            if (l.unfrozen > 0 && levelOf(l) <= bar)
            {
                freeze(l);
            }
        }
    }
    if (unfrozenLinks == 0)
    {
        return;
    }

    struct Key
    {
        double level;  //!< the level at which the link was full when pushed
        uint32_t link; //!< the link

        bool operator>(const Key& o) const
        {
            return level > o.level || (level == o.level && link > o.link);
        }
    };

    std::vector<Key> heap;
    for (uint32_t i : compLinks)
    {
        if (links[i].unfrozen > 0)
        {
            heap.push_back({levelOf(links[i]), i});
        }
    }
    const auto later = std::greater<Key>();
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty())
    {
        std::pop_heap(heap.begin(), heap.end(), later);
        const Key k = heap.back();
        heap.pop_back();
        Link& l = links[k.link];
        if (l.unfrozen == 0)
        {
            continue;
        }
        const double now = levelOf(l);
        if (now > k.level)
        {
            heap.push_back({now, k.link});
            std::push_heap(heap.begin(), heap.end(), later);
            continue;
        }
        level = std::max(level, now);
        freeze(l);
    }
}

std::vector<double>
RoceFlowEngine::MaxMin(const std::vector<double>& capacity,
                       const std::vector<std::vector<std::pair<uint32_t, double>>>& flows)
{
    std::vector<Link> links(capacity.size());
    std::vector<Flow> fs(flows.size());
    std::vector<uint32_t> compLinks;
    std::vector<uint32_t> compFlows;
    for (uint32_t i = 0; i < capacity.size(); ++i)
    {
        ROCE_ERROR_IF(!(capacity[i] > 0),
                      "RoceFlowEngine::MaxMin: link " << i << " capacity " << capacity[i]);
        links[i].capacity = capacity[i];
        compLinks.push_back(i);
    }
    for (uint32_t f = 0; f < flows.size(); ++f)
    {
        bool loads = false;
        for (const auto& hop : flows[f])
        {
            // Not a structured binding: the error macro's lambda uses them.
            const uint32_t link = hop.first;
            const double weight = hop.second;
            ROCE_ERROR_IF(link >= capacity.size(),
                          "RoceFlowEngine::MaxMin: flow " << f << " names link " << link);
            ROCE_ERROR_IF(weight < 0, "RoceFlowEngine::MaxMin: flow " << f << " weight " << weight);
            loads = loads || weight > 0;
            fs[f].hops.push_back(Hop{link, uint32_t(links[link].members.size()), weight});
            links[link].members.push_back(Member{f, uint32_t(fs[f].hops.size() - 1), weight});
        }
        ROCE_ERROR_IF(!loads, "RoceFlowEngine::MaxMin: flow " << f << " loads no link");
        fs[f].mark = 1;
        compFlows.push_back(f);
    }
    Fill(links, fs, compLinks, compFlows, 1);
    std::vector<double> rates;
    for (const Flow& f : fs)
    {
        rates.push_back(f.newRate);
    }
    return rates;
}

const RoceFlowEngine::Link&
RoceFlowEngine::Measured(const Link& l) const
{
    if (l.measured != m_rateVersion)
    {
        // One pass over the members gives the load and the two highest
        // rates, for every check until a rate changes.
        double load = 0;
        double top = 0;
        double second = 0;
        uint32_t topFlow = UINT32_MAX;
        for (const Member& m : l.members)
        {
            const double rate = m_flows[m.flow].rate;
            load += m.weight * rate;
            if (m.weight <= 0)
            {
                continue;
            }
            if (topFlow == UINT32_MAX || rate > top)
            {
                second = top;
                top = rate;
                topFlow = m.flow;
            }
            else if (rate > second)
            {
                second = rate;
            }
        }
        l.load = load;
        l.top = top;
        l.second = second;
        l.topFlow = topFlow;
        l.measured = m_rateVersion;
    }
    return l;
}

double
RoceFlowEngine::LoadOf(const Link& l) const
{
    return Measured(l).load;
}

double
RoceFlowEngine::TopRateOn(const Link& l, uint32_t except) const
{
    const Link& m = Measured(l);
    return m.topFlow == except ? m.second : m.top;
}

bool
RoceFlowEngine::HasBottleneck(uint32_t flow) const
{
    const Flow& f = m_flows[flow];
    for (const Hop& h : f.hops)
    {
        const Link& l = m_links[h.link];
        if (h.weight > 0 && LoadOf(l) >= l.capacity * (1 - FAST_TIE) &&
            f.rate >= TopRateOn(l, flow) * (1 - FAST_TIE))
        {
            return true;
        }
    }
    return false;
}

bool
RoceFlowEngine::TryFast()
{
    // Removals: the flows that shared a link with a removed flow keep their
    // rates if each still has a bottleneck (a full link on which none has a
    // higher rate); flows that shared none keep theirs.
    ++m_epoch;
    ++m_rateVersion;
    for (uint32_t link : m_removedLinks)
    {
        for (const Member& m : m_links[link].members)
        {
            Flow& h = m_flows[m.flow];
            if (h.fresh || h.mark == m_epoch)
            {
                continue;
            }
            h.mark = m_epoch;
            if (!HasBottleneck(m.flow))
            {
                return false;
            }
        }
    }
    // Additions: a new flow takes the free capacity of its path if the
    // link that limits it then has no flow at a higher rate; then no
    // other flow's bottleneck (a full link) is on its path.
    for (uint32_t g : m_added)
    {
        Flow& f = m_flows[g];
        double best = std::numeric_limits<double>::infinity();
        for (const Hop& h : f.hops)
        {
            if (h.weight > 0)
            {
                const Link& l = m_links[h.link];
                best = std::min(best, (l.capacity - LoadOf(l)) / h.weight);
            }
        }
        if (!(best > 0))
        {
            return false;
        }
        bool bottleneck = false;
        for (const Hop& h : f.hops)
        {
            const Link& l = m_links[h.link];
            if (h.weight > 0 && (l.capacity - LoadOf(l)) / h.weight <= best * (1 + FAST_TIE) &&
                best >= TopRateOn(l, g) * (1 - FAST_TIE))
            {
                bottleneck = true;
                break;
            }
        }
        if (!bottleneck)
        {
            return false;
        }
        f.rate = best;
        ++m_rateVersion;
    }
    return true;
}

double
RoceFlowEngine::AckWeight(const Flow& f)
{
    return static_cast<double>(f.ackWire) / static_cast<double>(f.wire);
}

bool
RoceFlowEngine::Replace()
{
    // A queue pair whose message ended and whose next one started in the
    // same change, on the same links with the same weights, leaves every
    // link's load and every other flow's bottleneck as they were once the
    // new flow takes the old one's rate: the pair is no change at all, and
    // the max-min rates of the rest are those of the other changes alone.
    const long double now = Now();
    bool any = false;
    std::size_t kept = 0;
    for (std::size_t a = 0; a < m_added.size(); ++a)
    {
        const uint32_t g = m_added[a];
        Flow& f = m_flows[g];
        // A queue pair has one flow at a time: its ended one, if any, is
        // the one this change removed last for it.
        const int64_t r = m_qps[f.qp].removed;
        Removed* match = nullptr;
        if (r >= 0 && m_removed[r].replaceable && m_removed[r].count == f.hops.size() &&
            m_removed[r].ackWeight == AckWeight(f))
        {
            match = &m_removed[r];
            for (uint32_t h = 0; match != nullptr && h < match->count; ++h)
            {
                if (m_removedLinks[match->first + h] != f.hops[h].link)
                {
                    match = nullptr;
                }
            }
        }
        if (match == nullptr)
        {
            m_added[kept++] = g;
            continue;
        }
        match->replaceable = false;
        match->count = 0; // its links leave the removals
        f.rate = match->rate;
        Restart(g, now, f.rate);
        ++m_stats.replaced;
        any = true;
    }
    m_added.resize(kept);
    if (!any)
    {
        return false;
    }
    // The others' links, moved down in place (each range starts at or
    // after where it goes).
    std::size_t w = 0;
    for (const Removed& r : m_removed)
    {
        for (uint32_t h = 0; h < r.count; ++h)
        {
            m_removedLinks[w++] = m_removedLinks[r.first + h];
        }
    }
    m_removedLinks.resize(w);
    ClearRemoved();
    return m_added.empty() && m_removedLinks.empty();
}

bool
RoceFlowEngine::SolveLocal()
{
    // Max-min rates for a set S of flows with every other flow's rate fixed,
    // S grown until every flow whose bottleneck could have changed still has
    // one: the flows of S, and the flows that share a link with a flow of S
    // whose rate changed. The others' links carry the same loads and top
    // rates as before, so theirs still hold. Then the rates are max-min
    // (feasible, every flow with a bottleneck), exactly what a computation
    // over the whole component would give.
    //
    // Its cost grows faster than a full computation's with the size of S
    // (each round fills S again and checks its neighbours), so S may grow
    // to an eighth of the flows active (at least 64, at most 1,024) over at
    // most 8 rounds; beyond that a full computation is cheaper.
    constexpr uint32_t ITERATIONS = 8;
    const size_t MAX_FLOWS = std::clamp<size_t>(m_active / 8, 64, 1024);
    ++m_epoch;
    const uint32_t mark = m_epoch;
    m_compFlows.clear();
    auto add = [this, mark](uint32_t i) {
        Flow& f = m_flows[i];
        if (f.mark != mark)
        {
            f.mark = mark;
            f.oldRate = f.rate;
            m_compFlows.push_back(i);
        }
    };
    auto addNeighbours = [this, &add](uint32_t i) {
        for (const Hop& h : m_flows[i].hops)
        {
            for (const Member& m : m_links[h.link].members)
            {
                add(m.flow);
            }
        }
    };
    for (uint32_t g : m_added)
    {
        add(g);
        addNeighbours(g);
    }
    for (uint32_t link : m_removedLinks)
    {
        for (const Member& m : m_links[link].members)
        {
            add(m.flow);
        }
    }
    auto restore = [this]() {
        for (uint32_t i : m_compFlows)
        {
            m_flows[i].rate = m_flows[i].oldRate;
        }
    };
    for (uint32_t iteration = 0; iteration < ITERATIONS && m_compFlows.size() <= MAX_FLOWS;
         ++iteration)
    {
        // The links of S, marked afresh each time S grows.
        const uint32_t linkMark = ++m_epoch;
        m_compLinks.clear();
        for (uint32_t i : m_compFlows)
        {
            for (const Hop& h : m_flows[i].hops)
            {
                if (m_links[h.link].mark != linkMark)
                {
                    m_links[h.link].mark = linkMark;
                    m_compLinks.push_back(h.link);
                }
            }
        }
        Fill(m_links, m_flows, m_compLinks, m_compFlows, mark);
        for (uint32_t i : m_compFlows)
        {
            m_flows[i].rate = m_flows[i].newRate;
        }
        ++m_rateVersion;
        const size_t before = m_compFlows.size();
        for (size_t k = 0; k < before; ++k)
        {
            const uint32_t i = m_compFlows[k];
            if (!HasBottleneck(i))
            {
                addNeighbours(i);
            }
            if (m_flows[i].rate != m_flows[i].oldRate)
            {
                for (const Hop& h : m_flows[i].hops)
                {
                    for (const Member& m : m_links[h.link].members)
                    {
                        if (m_flows[m.flow].mark != mark && !HasBottleneck(m.flow))
                        {
                            add(m.flow);
                        }
                    }
                }
            }
        }
        if (m_compFlows.size() == before)
        {
            return true;
        }
        restore();
    }
    restore();
    return false;
}

void
RoceFlowEngine::Reshare()
{
    m_resharePending = false;
    if (m_dirty.empty())
    {
        return;
    }
    if (m_fastPath && !m_removed.empty() && !m_added.empty() && Replace())
    {
        ++m_stats.fastComputations;
        Settled();
        return;
    }
    if (m_fastPath && TryFast())
    {
        ++m_stats.fastComputations;
        const long double now = Now();
        for (uint32_t g : m_added)
        {
            // A new flow's rate counts from its start.
            Restart(g, now, m_flows[g].rate);
        }
        Settled();
        return;
    }
    for (uint32_t g : m_added)
    {
        // A failed fast path may have given it a rate: it starts from none.
        m_flows[g].rate = 0;
    }
    // The local solve backs off where it keeps failing (fabrics whose
    // changes spread): after a failure it sits out 1, 2, 4, ... up to 64
    // changes, and one success resets that.
    bool local = false;
    if (m_fastPath && m_localSkip > 0)
    {
        --m_localSkip;
    }
    else if (m_fastPath)
    {
        local = SolveLocal();
        m_localBackoff =
            local ? 0 : std::min<uint32_t>(64, std::max<uint32_t>(1, 2 * m_localBackoff));
        m_localSkip = m_localBackoff;
    }
    if (local)
    {
        ++m_stats.localComputations;
        m_stats.flowsRated += m_compFlows.size();
        const long double now = Now();
        for (uint32_t i : m_compFlows)
        {
            Flow& f = m_flows[i];
            if (!f.fresh && f.rate == f.oldRate)
            {
                continue;
            }
            // A new flow's rate counts from its start, an old one's new rate from now.
            Restart(i, now, f.fresh ? f.rate : f.oldRate);
        }
        Settled();
        return;
    }
    m_removedLinks.clear();
    ClearRemoved();
    Component();
    ++m_stats.rateComputations;
    m_stats.flowsRated += m_compFlows.size();
    const long double now = Now();
    for (uint32_t i : m_compFlows)
    {
        Flow& f = m_flows[i];
        if (!f.fresh)
        {
            f.remaining = std::max<long double>(0, f.remaining - f.rate * (now - f.since));
            f.since = now;
        }
    }
    Fill(m_links, m_flows, m_compLinks, m_compFlows, m_epoch);
    for (uint32_t g : m_added)
    {
        // A new flow's rate counts from its start.
        Flow& f = m_flows[g];
        f.fresh = false;
        f.remaining = std::max<long double>(0, f.remaining - f.newRate * (now - f.since));
        f.since = now;
    }
    m_added.clear();
    for (uint32_t i : m_compFlows)
    {
        Flow& f = m_flows[i];
        if (f.newRate == f.rate && !f.finish.IsExpired())
        {
            continue;
        }
        f.rate = f.newRate;
        // Its bytes are counted up to now already.
        Restart(i, now, 0);
    }
}

void
RoceFlowEngine::Restart(uint32_t index, long double now, double sentAt)
{
    Flow& f = m_flows[index];
    f.remaining = std::max<long double>(0, f.remaining - sentAt * (now - f.since));
    f.since = now;
    f.fresh = false;
    // Removed, not cancelled: a cancelled event would stay in the queue,
    // with its memory, until its time came; a computation that moves
    // thousands of ends far in the future would pile them up by the
    // million (AllToAll on 8 QPs: gigabytes).
    Simulator::Remove(f.finish);
    ROCE_ERROR_IF(!(f.rate > 0), "RoceFlowEngine: a flow got no rate (a link of capacity 0?)");
    f.finish = Simulator::Schedule(Until(now + f.remaining / f.rate),
                                   &RoceFlowEngine::Finish,
                                   this,
                                   index);
}

void
RoceFlowEngine::Settled()
{
    if (m_verify)
    {
        Verify();
    }
    for (uint32_t l : m_dirty)
    {
        m_links[l].dirty = false;
    }
    m_dirty.clear();
    m_added.clear();
    m_removedLinks.clear();
    ClearRemoved();
}

void
RoceFlowEngine::ClearRemoved()
{
    for (const Removed& r : m_removed)
    {
        m_qps[r.qp].removed = -1;
    }
    m_removed.clear();
}

void
RoceFlowEngine::Verify()
{
    Component();
    Fill(m_links, m_flows, m_compLinks, m_compFlows, m_epoch);
    for (uint32_t i : m_compFlows)
    {
        const Flow& f = m_flows[i];
        ROCE_ERROR_IF(std::abs(f.newRate - f.rate) > 1e-6 * f.newRate,
                      "RoceFlowEngine: the fast path gave a flow of QP "
                          << m_qps[f.qp].qp->GetQpn() << " of node "
                          << m_qps[f.qp].qp->GetNic()->GetNodeId() << " " << f.rate * 8
                          << " b/s where max-min gives " << f.newRate * 8 << " b/s");
    }
}

void
RoceFlowEngine::Component()
{
    // The flows and links connected to the changed links.
    ++m_epoch;
    m_compLinks.clear();
    m_compFlows.clear();
    for (uint32_t l : m_dirty)
    {
        m_links[l].dirty = false;
        if (m_links[l].mark != m_epoch)
        {
            m_links[l].mark = m_epoch;
            m_compLinks.push_back(l);
        }
    }
    for (size_t i = 0; i < m_compLinks.size(); ++i)
    {
        for (const Member& m : m_links[m_compLinks[i]].members)
        {
            Flow& f = m_flows[m.flow];
            if (f.mark == m_epoch)
            {
                continue;
            }
            f.mark = m_epoch;
            m_compFlows.push_back(m.flow);
            for (const Hop& h : f.hops)
            {
                if (m_links[h.link].mark != m_epoch)
                {
                    m_links[h.link].mark = m_epoch;
                    m_compLinks.push_back(h.link);
                }
            }
        }
    }
    m_dirty.clear();
}

void
RoceFlowEngine::Finish(uint32_t index)
{
    Flow& f = m_flows[index];
    // The exact fluid end, which the event rounded up.
    const long double end = f.since + f.remaining / f.rate;
    f.remaining = 0;
    f.active = false;
    --m_active;
    DetachFlow(index, true);
    QpState& s = m_qps[f.qp];
    long double deliver = end;
    for (size_t i = 0; i < s.data.size(); ++i)
    {
        Link& l = m_links[s.data[i]];
        l.wireBytes += f.wire;
        deliver += l.delay;
        if (i > 0)
        {
            deliver += l.device->FrameWireBytes(f.maxFrame) * 8.0L / l.bitRate;
        }
    }
    long double complete = deliver;
    for (uint32_t link : s.ack)
    {
        Link& l = m_links[link];
        l.wireBytes += f.ackWire;
        complete += l.delay + l.device->FrameWireBytes(ACK_FRAME) * 8.0L / l.bitRate;
    }
    RoceQueuePair* peer = s.peer;
    const uint64_t bytes = f.bytes;
    const uint64_t packets = f.packets;
    Simulator::Schedule(Until(deliver), [this, peer, bytes, packets]() {
        ++m_stats.delivered;
        peer->DeliverOffloaded(bytes, packets);
    });
    RoceQueuePair* qp = s.qp;
    Simulator::Schedule(Until(complete),
                        [qp, id = f.id, bytes, packets, posted = f.posted, cb = std::move(f.cb)]() {
                            qp->CompleteOffloaded(id, bytes, packets, posted, cb);
                        });
    f.cb = Callback<void, const RoceCompletion&>();
    m_freeFlows.push_back(index);
    // The queue pair's next message follows its last byte.
    StartNext(f.qp, end, true);
}

} // namespace ns3
