/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RoceSwitch, load balancing beyond ECMP: flowlet switching, packet spraying,
// adaptive (least-loaded) routing and per-flow pinned entries. None of this
// runs while LoadBalancing is "ecmp" and no flow is pinned: Receive() then
// takes SelectEgress() as before.

#include "roce-ecmp-hash.h"
#include "roce-switch.h"

#include "ns3/integer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-error.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"

#include <iterator>

namespace ns3
{

namespace
{
/// LoadBalancing names, in LoadBalancing enum order.
const char* const LB_NAMES[] = {"ecmp", "flowlet", "spray", "adaptive"};
} // namespace

std::vector<std::string>
RoceSwitch::GetLoadBalancingNames()
{
    return {std::begin(LB_NAMES), std::end(LB_NAMES)};
}

void
RoceSwitch::SetLoadBalancing(const std::string& name)
{
    for (uint32_t i = 0; i < std::size(LB_NAMES); ++i)
    {
        if (name == LB_NAMES[i])
        {
            m_lb = static_cast<LoadBalancing>(i);
            if (m_configured)
            {
                PrepareLoadBalancing();
            }
            return;
        }
    }
    ROCE_ERROR("RoceSwitch: LoadBalancing=" << name
                                            << " is unknown (known: ecmp, flowlet, spray, "
                                               "adaptive)");
}

std::string
RoceSwitch::GetLoadBalancing() const
{
    return LB_NAMES[m_lb];
}

RoceSwitch::LoadBalancing
RoceSwitch::GetLoadBalancingMode() const
{
    return m_lb;
}

void
RoceSwitch::SetFlowletGap(Time gap)
{
    ROCE_ERROR_IF(!gap.IsStrictlyPositive(),
                  "RoceSwitch: FlowletGap=" << gap.As(Time::US) << " must be positive");
    m_flowletGap = gap.GetTimeStep();
}

Time
RoceSwitch::GetFlowletGap() const
{
    return TimeStep(m_flowletGap);
}

void
RoceSwitch::SetFlowletTableSize(uint32_t size)
{
    ROCE_ERROR_IF(size == 0 || size > (1u << 24),
                  "RoceSwitch: FlowletTableSize=" << size << " out of range 1..16777216 slots");
    m_flowletTableSize = size;
    if (m_configured)
    {
        PrepareLoadBalancing();
    }
}

uint32_t
RoceSwitch::GetFlowletTableSize() const
{
    return m_flowletTableSize;
}

void
RoceSwitch::SetFlowletChoice(const std::string& name)
{
    ROCE_ERROR_IF(name != "hash" && name != "least-loaded",
                  "RoceSwitch: FlowletChoice=" << name
                                               << " is unknown (known: hash, least-loaded)");
    m_flowletLeastLoaded = name == "least-loaded";
}

std::string
RoceSwitch::GetFlowletChoice() const
{
    return m_flowletLeastLoaded ? "least-loaded" : "hash";
}

void
RoceSwitch::SetSprayMode(const std::string& name)
{
    ROCE_ERROR_IF(name != "random" && name != "round-robin",
                  "RoceSwitch: SprayMode=" << name << " is unknown (known: random, round-robin)");
    m_sprayRoundRobin = name == "round-robin";
    if (m_configured)
    {
        PrepareLoadBalancing();
    }
}

std::string
RoceSwitch::GetSprayMode() const
{
    return m_sprayRoundRobin ? "round-robin" : "random";
}

void
RoceSwitch::PrepareLoadBalancing()
{
    if (m_lb == LB_FLOWLET && m_flowlets.GetSize() != m_flowletTableSize)
    {
        m_flowlets.Resize(m_flowletTableSize);
    }
    if (m_lb == LB_SPRAY && !m_sprayRoundRobin && !m_sprayRng)
    {
        // Created only when used: a random variable takes the next automatic
        // stream index, which would shift the streams of every object created
        // after it in runs that never spray.
        m_sprayRng =
            m_sprayStream >= 0
                ? CreateObjectWithAttributes<UniformRandomVariable>("Stream",
                                                                    IntegerValue(m_sprayStream))
                : CreateObject<UniformRandomVariable>();
    }
    m_balanced = m_lb != LB_ECMP || m_pins.GetSize() > 0;
}

int64_t
RoceSwitch::AssignStreams(int64_t stream)
{
    m_sprayStream = stream;
    if (m_sprayRng)
    {
        m_sprayRng->SetStream(stream);
    }
    return 1;
}

void
RoceSwitch::AddPinnedRoute(const RoceFlowKey& key, uint32_t port)
{
    ROCE_ERROR_IF(port >= m_ports.size(),
                  "RoceSwitch: pinned route of flow "
                      << Ipv4Address(key.srcIp) << ":" << key.sport << " -> "
                      << Ipv4Address(key.dstIp) << ":" << key.dport << " QP " << key.destQp
                      << " names port " << port << ", but the switch has " << m_ports.size()
                      << " ports");
    m_pins.Add(key, port);
    m_balanced = true;
}

void
RoceSwitch::ClearPinnedRoutes()
{
    m_pins.Clear();
    m_balanced = m_lb != LB_ECMP;
}

uint32_t
RoceSwitch::GetNPinnedRoutes() const
{
    return m_pins.GetSize();
}

int32_t
RoceSwitch::GetPinnedPort(const RoceFlowKey& key) const
{
    return m_pins.Find(key);
}

uint64_t
RoceSwitch::GetPinnedFrames() const
{
    return m_pinnedFrames;
}

uint64_t
RoceSwitch::GetFlowletsStarted() const
{
    return m_flowletsStarted;
}

uint32_t
RoceSwitch::LeastLoaded(const std::vector<uint32_t>& group, uint8_t priority, uint64_t hash) const
{
    uint32_t n = static_cast<uint32_t>(group.size());
    uint32_t start = RoceEcmpHash::Select(hash, n);
    uint32_t best = group[start];
    uint64_t bestBytes = m_qdiscs[best]->GetQueueBytes(priority);
    for (uint32_t i = 1; i < n && bestBytes > 0; ++i)
    {
        uint32_t j = start + i < n ? start + i : start + i - n;
        uint32_t port = group[j];
        uint64_t bytes = m_qdiscs[port]->GetQueueBytes(priority);
        if (bytes < bestBytes)
        {
            best = port;
            bestBytes = bytes;
        }
    }
    return best;
}

int32_t
RoceSwitch::SelectEgressBalanced(const RoceFrame& f, uint8_t priority)
{
    if (m_pins.GetSize() > 0)
    {
        int32_t pinned = m_pins.Find({f.srcIp, f.dstIp, f.sport, f.dport, f.destQp});
        // A pin whose port is down is bypassed: the flow follows the routes
        // (which RoceFaultHelper recomputes) until the link returns.
        if (pinned >= 0 && m_ports[pinned]->IsLinkUp())
        {
            ++m_pinnedFrames;
            return pinned;
        }
    }
    int32_t g = FindGroup(f.dstIp);
    if (g < 0)
    {
        return -1;
    }
    const auto& group = m_groupIndices[g];
    uint32_t n = static_cast<uint32_t>(group.size());
    if (n == 1)
    {
        return group[0];
    }
    if (m_lb == LB_SPRAY)
    {
        uint32_t i;
        if (m_sprayRoundRobin)
        {
            i = m_rrNext[g];
            m_rrNext[g] = i + 1 < n ? i + 1 : 0;
        }
        else
        {
            i = m_sprayRng->GetInteger(0, n - 1);
        }
        return group[i];
    }
    uint64_t h = FlowHash(f);
    switch (m_lb)
    {
    case LB_ADAPTIVE:
        return LeastLoaded(group, priority, h);
    case LB_FLOWLET: {
        int64_t now = RoceNow().GetTimeStep();
        RoceFlowletTable::Entry& e = m_flowlets.Find(h);
        if (!RoceFlowletTable::Continues(e, h, static_cast<uint32_t>(g), now, m_flowletGap))
        {
            // The first flowlet through a slot takes the ECMP port; later ones
            // mix the slot's flowlet count into the hash.
            uint64_t k =
                e.flowlets == 0 ? h : RoceHash::Mix64(h ^ (e.flowlets * 0x9e3779b97f4a7c15ULL));
            uint32_t port = m_flowletLeastLoaded ? LeastLoaded(group, priority, k)
                                                 : group[RoceEcmpHash::Select(k, n)];
            RoceFlowletTable::Start(e, h, static_cast<uint32_t>(g), static_cast<int32_t>(port));
            ++m_flowletsStarted;
            m_newFlowletTrace(h, port);
        }
        e.lastSeen = now;
        return e.port;
    }
    default:
        return group[RoceEcmpHash::Select(h, n)];
    }
}

} // namespace ns3
