/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/string.h"

#include <deque>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitchHelper");

RoceSwitchHelper::RoceSwitchHelper()
{
    m_switchFactory.SetTypeId("ns3::RoceSwitch");
    m_mmuFactory.SetTypeId("ns3::RoceSharedBufferMmu");
    m_qdiscFactory.SetTypeId("ns3::RoceEgressQueueDisc");
}

void
RoceSwitchHelper::SetSwitchAttribute(std::string name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

void
RoceSwitchHelper::SetMmuAttribute(std::string name, const AttributeValue& value)
{
    m_mmuFactory.Set(name, value);
}

void
RoceSwitchHelper::SetQueueDiscAttribute(std::string name, const AttributeValue& value)
{
    m_qdiscFactory.Set(name, value);
}

void
RoceSwitchHelper::SetEcnStepMarking(QueueSize k, DataRate atRate)
{
    NS_ABORT_MSG_IF(k.GetUnit() != QueueSizeUnit::BYTES,
                    "RoceSwitchHelper::SetEcnStepMarking: K=" << k << " must be in bytes");
    m_qdiscFactory.Set("EcnEnabled", BooleanValue(true));
    m_qdiscFactory.Set("EcnKmin", QueueSizeValue(k));
    m_qdiscFactory.Set("EcnKmax", QueueSizeValue(k));
    m_qdiscFactory.Set("EcnPmax", DoubleValue(1.0));
    m_qdiscFactory.Set("EcnThresholdRate", DataRateValue(atRate));
}

void
RoceSwitchHelper::SetEcnForDcqcnPreset(const std::string& preset)
{
    for (const auto& [name, value] : RoceHelper::GetDcqcnPresetEcn(preset))
    {
        m_qdiscFactory.Set(name, StringValue(value));
    }
    m_qdiscFactory.Set("EcnEnabled", BooleanValue(true));
}

Ptr<RoceSwitch>
RoceSwitchHelper::Install(Ptr<Node> node)
{
    NS_ABORT_MSG_IF(node->GetObject<RoceSwitch>(),
                    "RoceSwitchHelper: node " << node->GetId() << " is already a switch");
    NS_ABORT_MSG_IF(node->GetNDevices() > 0,
                    "RoceSwitchHelper: install the switch on node "
                        << node->GetId() << " before linking it (it already has devices)");
    Ptr<RoceSwitch> sw = m_switchFactory.Create<RoceSwitch>();
    sw->SetMmu(m_mmuFactory.Create<RoceSharedBufferMmu>());
    sw->SetQueueDiscFactory(m_qdiscFactory);
    node->AggregateObject(sw);
    return sw;
}

void
RoceSwitchHelper::Install(NodeContainer nodes)
{
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        Install(*it);
    }
}

namespace
{
/// The node at the far end of a device's link, and the device there.
std::pair<Ptr<Node>, Ptr<RocePfcNetDevice>>
Peer(Ptr<RocePfcNetDevice> dev)
{
    Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(dev->GetChannel());
    Ptr<RocePfcNetDevice> peer = ch ? ch->GetPeer(PeekPointer(dev)) : nullptr;
    return {peer ? peer->GetNode() : nullptr, peer};
}
} // namespace

void
RoceSwitchHelper::PopulateRoutes()
{
    uint32_t nNodes = NodeList::GetNNodes();
    std::vector<Ptr<RoceSwitch>> switches(nNodes);
    for (uint32_t i = 0; i < nNodes; ++i)
    {
        switches[i] = NodeList::GetNode(i)->GetObject<RoceSwitch>();
        if (switches[i])
        {
            switches[i]->ClearRoutes();
        }
    }
    // routes[switch][address] = egress ports
    std::vector<std::map<uint32_t, std::vector<uint32_t>>> routes(nNodes);
    std::vector<int32_t> dist(nNodes);
    for (uint32_t h = 0; h < nNodes; ++h)
    {
        Ptr<Node> host = NodeList::GetNode(h);
        for (uint32_t d = 0; d < host->GetNDevices(); ++d)
        {
            Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(host->GetDevice(d));
            if (!nic)
            {
                continue;
            }
            auto [first, firstPort] = Peer(nic);
            if (!first || !switches[first->GetId()])
            {
                continue; // host-to-host link: no switch involved
            }
            uint32_t addr = nic->GetIpv4Address().Get();
            std::fill(dist.begin(), dist.end(), -1);
            std::deque<uint32_t> queue;
            dist[first->GetId()] = 1;
            queue.push_back(first->GetId());
            while (!queue.empty())
            {
                uint32_t u = queue.front();
                queue.pop_front();
                Ptr<RoceSwitch> sw = switches[u];
                std::vector<uint32_t> next;
                for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
                {
                    auto [v, vdev] = Peer(sw->GetPort(p));
                    if (!v)
                    {
                        continue;
                    }
                    if (vdev == nic)
                    {
                        next.push_back(p);
                        continue;
                    }
                    if (!switches[v->GetId()])
                    {
                        continue; // other hosts do not forward
                    }
                    int32_t& dv = dist[v->GetId()];
                    if (dv == -1)
                    {
                        dv = dist[u] + 1;
                        queue.push_back(v->GetId());
                    }
                    else if (dv == dist[u] - 1)
                    {
                        next.push_back(p);
                    }
                }
                routes[u][addr] = next;
            }
        }
    }
    // Install, collapsing a /24 whose hosts all share one group.
    for (uint32_t s = 0; s < nNodes; ++s)
    {
        if (!switches[s])
        {
            continue;
        }
        std::map<uint32_t, std::vector<std::pair<uint32_t, const std::vector<uint32_t>*>>> byPrefix;
        for (const auto& [addr, ports] : routes[s])
        {
            byPrefix[addr & 0xFFFFFF00].emplace_back(addr, &ports);
        }
        for (const auto& [prefix, entries] : byPrefix)
        {
            bool same = true;
            for (const auto& e : entries)
            {
                same = same && *e.second == *entries.front().second;
            }
            if (same && entries.size() > 1)
            {
                switches[s]->AddRoute(Ipv4Address(prefix),
                                      Ipv4Mask("255.255.255.0"),
                                      *entries.front().second);
                continue;
            }
            for (const auto& e : entries)
            {
                if (!e.second->empty())
                {
                    switches[s]->AddRoute(Ipv4Address(e.first),
                                          Ipv4Mask("255.255.255.255"),
                                          *e.second);
                }
            }
        }
    }
}

int64_t
RoceSwitchHelper::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        Ptr<RoceSwitch> sw = (*it)->GetObject<RoceSwitch>();
        for (uint32_t p = 0; sw && p < sw->GetNPorts(); ++p)
        {
            used += sw->GetPort(p)->GetQueueDisc()->AssignStreams(stream + used);
        }
    }
    return used;
}

uint64_t
RoceSwitchHelper::GetBufferedBytes()
{
    uint64_t total = 0;
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        Ptr<RoceSwitch> sw = (*it)->GetObject<RoceSwitch>();
        total += sw ? sw->GetBufferedBytes() : 0;
    }
    return total;
}

} // namespace ns3
