/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch.h"

#include "roce-ecmp-hash.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-vector.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-error.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

namespace
{

/**
 * \param f a frame
 * \return what its egress stamps: an INT record or a PINT digest on data
 * frames that ask (an ACK carries the digest it echoes: it is not raised)
 */
uint8_t
Telemetry(const RoceFrame& f)
{
    if (f.intRequest)
    {
        return RoceEgressQueueDisc::TELEMETRY_INT;
    }
    return f.pintRequest && RoceBthHeader::IsData(f.opcode) ? RoceEgressQueueDisc::TELEMETRY_PINT
                                                            : RoceEgressQueueDisc::TELEMETRY_NONE;
}

} // namespace

NS_LOG_COMPONENT_DEFINE("RoceSwitch");
NS_OBJECT_ENSURE_REGISTERED(RoceSwitch);

TypeId
RoceSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitch")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceSwitch>()
            .AddAttribute(
                "EcmpSeed",
                "Seed of this switch's ECMP hash. 0 derives one from the node id "
                "and the run's RngSeed/RngRun, so that switches do not polarise.",
                UintegerValue(0),
                MakeUintegerAccessor(&RoceSwitch::SetEcmpSeed, &RoceSwitch::GetEcmpSeedAttribute),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcmpUseQp",
                          "E-ECMP: also hash the BTH destination QP.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceSwitch::m_useQp),
                          MakeBooleanChecker())
            .AddAttribute(
                "LoadBalancing",
                "How a packet's egress port is chosen within its ECMP group: ecmp "
                "(flow hash, one path per flow), flowlet (a flow may change port "
                "after an idle gap of FlowletGap), spray (per packet, SprayMode) or "
                "adaptive (per packet, the port with the fewest bytes queued in the "
                "packet's priority; ties by flow hash). Spray and adaptive reorder "
                "packets: give the receiving queue pairs a ReceiveWindow.",
                StringValue("ecmp"),
                MakeStringAccessor(&RoceSwitch::SetLoadBalancing, &RoceSwitch::GetLoadBalancing),
                MakeStringChecker())
            .AddAttribute("FlowletGap",
                          "Flowlet switching: a packet whose flow has been idle longer than "
                          "this starts a new flowlet, which may take another port. It must "
                          "exceed the largest difference in delay between the group's paths, "
                          "or a new flowlet overtakes the previous one. 256 us is the low end "
                          "of the published 256-512 us at 200 Gb/s: 6.4 MB of queue at 200 "
                          "Gb/s, 3.2 MB at 100 Gb/s.",
                          TimeValue(MicroSeconds(256)),
                          MakeTimeAccessor(&RoceSwitch::SetFlowletGap, &RoceSwitch::GetFlowletGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FlowletTableSize",
                          "Flowlet switching: slots of the flowlet table (indexed by flow "
                          "hash; flows that share a slot evict each other), 1..2^24.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RoceSwitch::SetFlowletTableSize,
                                               &RoceSwitch::GetFlowletTableSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "FlowletChoice",
                "Flowlet switching: the port of a new flowlet. hash: the flow hash "
                "mixed with the slot's flowlet count (the first flowlet takes the "
                "ECMP port); least-loaded: the port with the fewest bytes queued "
                "in the packet's priority, ties by that hash.",
                StringValue("hash"),
                MakeStringAccessor(&RoceSwitch::SetFlowletChoice, &RoceSwitch::GetFlowletChoice),
                MakeStringChecker())
            .AddAttribute("SprayMode",
                          "Packet spraying: random (uniform per packet; AssignStreams fixes "
                          "the stream) or round-robin (each ECMP group cycles over its ports).",
                          StringValue("random"),
                          MakeStringAccessor(&RoceSwitch::SetSprayMode, &RoceSwitch::GetSprayMode),
                          MakeStringChecker())
            .AddAttribute("Mmu",
                          "The shared-buffer MMU.",
                          PointerValue(),
                          MakePointerAccessor(&RoceSwitch::m_mmu),
                          MakePointerChecker<RoceSharedBufferMmu>())
            .AddAttribute("PortList",
                          "The switch's ports (RoceSwitchPort), in port-index order.",
                          ObjectVectorValue(),
                          MakeObjectVectorAccessor(&RoceSwitch::m_ports),
                          MakeObjectVectorChecker<RoceSwitchPort>())
            .AddTraceSource("Drop",
                            "A frame was dropped before reaching an egress queue (no route, "
                            "not IPv4).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_dropTrace),
                            "ns3::RocePfcNetDevice::DropTracedCallback")
            .AddTraceSource("NewFlowlet",
                            "Flowlet switching started a new flowlet (flow hash, egress port).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_newFlowletTrace),
                            "ns3::RoceSwitch::NewFlowletTracedCallback");
    return tid;
}

RoceSwitch::RoceSwitch()
{
    m_qdiscFactory.SetTypeId("ns3::RoceEgressQueueDisc");
}

RoceSwitch::~RoceSwitch() = default;

void
RoceSwitch::DoDispose()
{
    m_ports.clear();
    m_qdiscs.clear();
    m_sprayRng = nullptr;
    if (m_mmu)
    {
        m_mmu->SetPfcCallback(RoceSharedBufferMmu::PfcCallback());
    }
    m_mmu = nullptr;
    Object::DoDispose();
}

void
RoceSwitch::DoInitialize()
{
    Configure();
    Object::DoInitialize();
}

uint32_t
RoceSwitch::AddPort(Ptr<RoceSwitchPort> port)
{
    ROCE_ERROR_IF(m_configured, "RoceSwitch: ports cannot be added once traffic has started");
    uint32_t index = static_cast<uint32_t>(m_ports.size());
    Ptr<RoceEgressQueueDisc> qdisc = m_qdiscFactory.Create<RoceEgressQueueDisc>();
    port->SetSwitch(this, index, qdisc);
    m_ports.push_back(port);
    m_qdiscs.push_back(PeekPointer(qdisc));
    return index;
}

uint32_t
RoceSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<RoceSwitchPort>
RoceSwitch::GetPort(uint32_t i) const
{
    return i < m_ports.size() ? m_ports[i] : nullptr;
}

void
RoceSwitch::SetMmu(Ptr<RoceSharedBufferMmu> mmu)
{
    m_mmu = mmu;
}

Ptr<RoceSharedBufferMmu>
RoceSwitch::GetMmu() const
{
    return m_mmu;
}

void
RoceSwitch::SetQueueDiscFactory(const ObjectFactory& factory)
{
    m_qdiscFactory = factory;
}

void
RoceSwitch::Configure()
{
    if (m_configured)
    {
        return;
    }
    if (!m_mmu)
    {
        m_mmu = CreateObject<RoceSharedBufferMmu>();
    }
    std::vector<RoceSharedBufferMmu::PortLink> links;
    for (auto& port : m_ports)
    {
        Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(port->GetChannel());
        links.push_back({port->GetDataRate(), ch ? ch->GetDelay() : Time(0)});
    }
    m_mmu->Configure(links);
    m_mmu->SetPfcCallback(MakeCallback(&RoceSwitch::SendPfc, this));
    for (auto& port : m_ports)
    {
        port->GetQueueDisc()->Setup(m_mmu, port->GetDataRate());
        port->GetQueueDisc()->Initialize();
    }
    m_configured = true;
    PrepareLoadBalancing();
}

void
RoceSwitch::SendPfc(uint32_t port, uint8_t pg, bool xoff)
{
    m_ports[port]->SetXoff(pg, xoff);
}

void
RoceSwitch::AddRoute(Ipv4Address network, Ipv4Mask mask, const std::vector<uint32_t>& ports)
{
    ROCE_ERROR_IF(ports.empty(),
                  "RoceSwitch: route to " << network << "/" << mask.GetPrefixLength()
                                          << " has no egress port");
    std::vector<uint32_t> sorted = ports;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (uint32_t p : sorted)
    {
        ROCE_ERROR_IF(p >= m_ports.size(),
                      "RoceSwitch: route to " << network << "/" << mask.GetPrefixLength()
                                              << " names port " << p << ", but the switch has "
                                              << m_ports.size() << " ports");
    }
    uint8_t len = static_cast<uint8_t>(mask.GetPrefixLength());
    uint32_t key = network.Get() & mask.Get();
    uint32_t group = 0;
    auto it = std::find(m_groupIndices.begin(), m_groupIndices.end(), sorted);
    if (it == m_groupIndices.end())
    {
        group = static_cast<uint32_t>(m_groupIndices.size());
        m_groupIndices.push_back(sorted);
        m_rrNext.push_back(0);
    }
    else
    {
        group = static_cast<uint32_t>(it - m_groupIndices.begin());
    }
    if (m_routes.Add(len, key, group))
    {
        ++m_nRoutes;
    }
}

void
RoceSwitch::ClearRoutes()
{
    m_routes.Clear();
    m_groupIndices.clear();
    m_rrNext.clear();
    m_flowlets.Clear(); // group indices are about to be reused
    m_nRoutes = 0;
}

uint32_t
RoceSwitch::GetNRoutes() const
{
    return m_nRoutes;
}

int32_t
RoceSwitch::FindGroup(uint32_t dst) const
{
    return m_routes.Find(dst);
}

std::vector<uint32_t>
RoceSwitch::Lookup(Ipv4Address dst) const
{
    int32_t g = FindGroup(dst.Get());
    return g < 0 ? std::vector<uint32_t>() : m_groupIndices[g];
}

void
RoceSwitch::SetEcmpSeed(uint32_t seed)
{
    m_seedAttr = seed;
    m_seedSet = false; // derive again on next use
}

uint32_t
RoceSwitch::GetEcmpSeedAttribute() const
{
    return m_seedAttr;
}

uint64_t
RoceSwitch::GetEcmpSeed() const
{
    if (!m_seedSet)
    {
        if (m_seedAttr != 0)
        {
            m_seed = m_seedAttr;
        }
        else
        {
            Ptr<Node> node = GetObject<Node>();
            uint64_t id = node ? node->GetId() : 0;
            m_seed = RoceHash::Mix64((uint64_t(RngSeedManager::GetSeed()) << 40) ^
                                     (RngSeedManager::GetRun() << 20) ^ id);
        }
        m_seedSet = true;
    }
    return m_seed;
}

uint64_t
RoceSwitch::FlowHash(const RoceFrame& f) const
{
    return RoceEcmpHash::Hash(GetEcmpSeed(),
                              f.srcIp,
                              f.dstIp,
                              f.sport,
                              f.dport,
                              f.ipProto,
                              m_useQp && f.isRoce,
                              f.destQp);
}

int32_t
RoceSwitch::SelectEgress(const RoceFrame& f) const
{
    int32_t g = FindGroup(f.dstIp);
    if (g < 0)
    {
        return -1;
    }
    const auto& group = m_groupIndices[g];
    if (group.size() == 1)
    {
        return group[0];
    }
    uint64_t h = FlowHash(f);
    return group[RoceEcmpHash::Select(h, static_cast<uint32_t>(group.size()))];
}

void
RoceSwitch::Receive(RoceSwitchPort* in, RoceFramePtr p, const RoceFrame& frame)
{
    if (!m_configured)
    {
        Configure();
    }
    if (!frame.isIpv4)
    {
        m_dropCounts.Add(DROP_NOT_IPV4);
        if (!m_dropTrace.IsEmpty())
        {
            m_dropTrace(p->GetPacket(), DROP_NOT_IPV4);
        }
        return;
    }
    uint8_t prio = in->DscpToPriority(frame.dscp);
    int32_t out = m_balanced ? SelectEgressBalanced(frame, prio) : SelectEgress(frame);
    if (out < 0)
    {
        ++m_noRouteDrops;
        m_dropCounts.Add(DROP_NO_ROUTE);
        if (!m_dropTrace.IsEmpty())
        {
            m_dropTrace(p->GetPacket(), DROP_NO_ROUTE);
        }
        return;
    }
    bool ect = frame.ecn == 1 || frame.ecn == 2;
    m_ports[out]->Enqueue(std::move(p),
                          static_cast<uint16_t>(in->GetPortIndex()),
                          prio,
                          ect,
                          Telemetry(frame));
}

uint64_t
RoceSwitch::GetBufferedBytes() const
{
    return m_mmu ? m_mmu->GetTotalBytes() : 0;
}

uint64_t
RoceSwitch::GetNoRouteDrops() const
{
    return m_noRouteDrops;
}

const RoceDropCounts&
RoceSwitch::GetDropCounts() const
{
    return m_dropCounts;
}

} // namespace ns3
