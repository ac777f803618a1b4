/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-te-helper.h"

#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-error.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceTeHelper");

namespace
{
/**
 * \param dev a device
 * \return the device at the far end of its link (null if none)
 */
Ptr<RocePfcNetDevice>
PeerOf(Ptr<RocePfcNetDevice> dev)
{
    Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(dev->GetChannel());
    return ch ? ch->GetPeer(PeekPointer(dev)) : nullptr;
}

/**
 * \param nic a NIC
 * \param what "source" or "destination", for messages
 * \return the switch port it is linked to; aborts if it is not linked to a switch
 */
Ptr<RoceSwitchPort>
SwitchPortOf(Ptr<RoceNetDevice> nic, const char* what)
{
    Ptr<RoceSwitchPort> port = DynamicCast<RoceSwitchPort>(PeerOf(nic));
    ROCE_ERROR_IF(!port,
                  "RoceTeHelper: the " << what << " NIC " << nic->GetIpv4Address()
                                       << " is not linked to a RoceSwitch");
    return port;
}
} // namespace

RoceTeHelper::RoceTeHelper() = default;

void
RoceTeHelper::SetMaxPaths(uint32_t maxPaths)
{
    ROCE_ERROR_IF(maxPaths == 0, "RoceTeHelper: MaxPaths=0 must be at least 1");
    m_maxPaths = maxPaths;
    m_computed = false;
}

uint32_t
RoceTeHelper::AddFlow(const RoceTeFlow& flow)
{
    uint32_t index = static_cast<uint32_t>(m_flows.size());
    ROCE_ERROR_IF(!flow.src || !flow.dst,
                  "RoceTeHelper: flow " << index << " has no "
                                        << (flow.src ? "destination" : "source") << " NIC");
    ROCE_ERROR_IF(flow.src == flow.dst,
                  "RoceTeHelper: flow " << index << " goes from NIC " << flow.src->GetIpv4Address()
                                        << " to itself");
    ROCE_ERROR_IF(!(flow.demand >= 0) || !std::isfinite(flow.demand),
                  "RoceTeHelper: flow " << index << " has demand " << flow.demand
                                        << " (must be finite and >= 0)");
    m_flows.push_back(flow);
    m_computed = false;
    return index;
}

uint32_t
RoceTeHelper::AddFlow(Ptr<RoceQueuePair> qp, double demand)
{
    ROCE_ERROR_IF(!qp || qp->GetState() == RoceQueuePair::RESET,
                  "RoceTeHelper: AddFlow needs a connected queue pair (RoceHelper::CreateQp)");
    RoceTeFlow f;
    f.src = qp->GetNic();
    f.dst = RoceHelper::FindNic(qp->GetRemoteAddress());
    ROCE_ERROR_IF(!f.dst, "RoceTeHelper: no NIC has address " << qp->GetRemoteAddress());
    f.sport = qp->GetSourcePort();
    f.destQp = qp->GetRemoteQpn();
    f.demand = demand;
    return AddFlow(f);
}

uint32_t
RoceTeHelper::GetNFlows() const
{
    return static_cast<uint32_t>(m_flows.size());
}

std::vector<std::vector<RoceTeHelper::Hop>>
RoceTeHelper::EnumeratePaths(const RoceTeFlow& flow) const
{
    Ptr<RoceSwitchPort> first = SwitchPortOf(flow.src, "source");
    Ptr<RoceSwitchPort> last = SwitchPortOf(flow.dst, "destination");
    uint32_t srcSw = first->GetNode()->GetId();
    uint32_t dstSw = last->GetNode()->GetId();

    // Hops from every switch to the destination's switch, over switch links.
    std::vector<int32_t> dist(NodeList::GetNNodes(), -1);
    std::deque<uint32_t> queue{dstSw};
    dist[dstSw] = 0;
    auto forEachSwitchPeer = [](uint32_t node, const std::function<void(uint32_t, uint32_t)>& fn) {
        Ptr<RoceSwitch> sw = NodeList::GetNode(node)->GetObject<RoceSwitch>();
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<RocePfcNetDevice> peer = PeerOf(sw->GetPort(p));
            if (peer && peer->GetNode()->GetObject<RoceSwitch>())
            {
                fn(p, peer->GetNode()->GetId());
            }
        }
    };
    while (!queue.empty())
    {
        uint32_t u = queue.front();
        queue.pop_front();
        forEachSwitchPeer(u, [&](uint32_t, uint32_t v) {
            if (dist[v] < 0)
            {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        });
    }
    ROCE_ERROR_IF(dist[srcSw] < 0,
                  "RoceTeHelper: no path from NIC " << flow.src->GetIpv4Address() << " to NIC "
                                                    << flow.dst->GetIpv4Address());

    // Every shortest path, depth first in port order, up to m_maxPaths.
    std::vector<std::vector<Hop>> paths;
    std::vector<Hop> path;
    std::function<void(uint32_t)> walk = [&](uint32_t u) {
        if (paths.size() >= m_maxPaths)
        {
            return;
        }
        if (u == dstSw)
        {
            path.push_back({u, last->GetPortIndex()});
            paths.push_back(path);
            path.pop_back();
            return;
        }
        forEachSwitchPeer(u, [&](uint32_t p, uint32_t v) {
            if (dist[v] == dist[u] - 1)
            {
                path.push_back({u, p});
                walk(v);
                path.pop_back();
            }
        });
    };
    walk(srcSw);
    return paths;
}

double
RoceTeHelper::Compute()
{
    uint32_t n = GetNFlows();
    std::vector<std::vector<std::vector<Hop>>> candidates(n);
    std::map<Hop, double> load;
    for (uint32_t f = 0; f < n; ++f)
    {
        candidates[f] = EnumeratePaths(m_flows[f]);
        for (const auto& path : candidates[f])
        {
            for (const Hop& h : path)
            {
                load.emplace(h, 0.0);
            }
        }
    }
    std::vector<uint32_t> order(n);
    for (uint32_t f = 0; f < n; ++f)
    {
        order[f] = f;
    }
    std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
        return m_flows[a].demand > m_flows[b].demand;
    });
    m_paths.assign(n, {});
    m_nCandidates.assign(n, 0);
    for (uint32_t f : order)
    {
        double d = m_flows[f].demand;
        const auto& paths = candidates[f];
        std::size_t best = 0;
        double bestMax = 0;
        double bestSum = 0;
        for (std::size_t i = 0; i < paths.size(); ++i)
        {
            double mx = 0;
            double sum = 0;
            for (const Hop& h : paths[i])
            {
                mx = std::max(mx, load[h] + d);
                sum += load[h];
            }
            if (i == 0 || mx < bestMax || (mx == bestMax && sum < bestSum))
            {
                best = i;
                bestMax = mx;
                bestSum = sum;
            }
        }
        for (const Hop& h : paths[best])
        {
            load[h] += d;
        }
        m_paths[f] = paths[best];
        m_nCandidates[f] = static_cast<uint32_t>(paths.size());
    }
    m_loads.clear();
    m_maxLoad = 0;
    for (const auto& [hop, l] : load)
    {
        m_loads.push_back({hop, l});
        m_maxLoad = std::max(m_maxLoad, l);
    }
    m_computed = true;
    return m_maxLoad;
}

double
RoceTeHelper::Install()
{
    if (!m_computed)
    {
        Compute();
    }
    for (uint32_t f = 0; f < GetNFlows(); ++f)
    {
        RoceFlowKey key = GetFlowKey(f);
        for (const Hop& h : m_paths[f])
        {
            NodeList::GetNode(h.node)->GetObject<RoceSwitch>()->AddPinnedRoute(key, h.port);
        }
    }
    return m_maxLoad;
}

double
RoceTeHelper::GetMaxLinkLoad() const
{
    return m_maxLoad;
}

std::vector<RoceTeHelper::LinkLoad>
RoceTeHelper::GetLinkLoads() const
{
    return m_loads;
}

const std::vector<RoceTeHelper::Hop>&
RoceTeHelper::GetPath(uint32_t flow) const
{
    ROCE_ERROR_IF(!m_computed || flow >= m_paths.size(),
                  "RoceTeHelper: no path for flow " << flow << " (" << m_paths.size()
                                                    << " flows computed; call Compute first)");
    return m_paths[flow];
}

uint32_t
RoceTeHelper::GetNCandidatePaths(uint32_t flow) const
{
    ROCE_ERROR_IF(!m_computed || flow >= m_nCandidates.size(),
                  "RoceTeHelper: no path for flow " << flow << " (call Compute first)");
    return m_nCandidates[flow];
}

RoceFlowKey
RoceTeHelper::GetFlowKey(uint32_t flow) const
{
    ROCE_ERROR_IF(flow >= m_flows.size(),
                  "RoceTeHelper: flow " << flow << " out of range (" << m_flows.size()
                                        << " flows)");
    const RoceTeFlow& f = m_flows[flow];
    return {f.src->GetIpv4Address().Get(),
            f.dst->GetIpv4Address().Get(),
            f.sport,
            f.dport,
            f.destQp};
}

void
RoceTeHelper::PrintLinkLoads(std::ostream& os) const
{
    for (const LinkLoad& l : m_loads)
    {
        os << "node " << l.link.node << " port " << l.link.port << " load " << l.load << "\n";
    }
}

void
RoceTeHelper::ClearPinnedRoutes()
{
    RoceForEachNodeObject<RoceSwitch>(
        [](const Ptr<Node>&, const Ptr<RoceSwitch>& sw) { sw->ClearPinnedRoutes(); });
}

} // namespace ns3
