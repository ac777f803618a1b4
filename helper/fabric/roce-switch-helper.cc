/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch-helper.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-absent-device.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-error.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-mpi-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/string.h"

#include <algorithm>
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
    RoceSetFactoryAttribute(m_switchFactory, name, value);
}

void
RoceSwitchHelper::SetMmuAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_mmuFactory, name, value);
}

void
RoceSwitchHelper::SetQueueDiscAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_qdiscFactory, name, value);
}

void
RoceSwitchHelper::SetEcnStepMarking(QueueSize k, DataRate atRate)
{
    ROCE_ERROR_IF(k.GetUnit() != QueueSizeUnit::BYTES,
                  "RoceSwitchHelper::SetEcnStepMarking: K=" << k << " must be in bytes");
    m_qdiscFactory.Set("EcnEnabled", BooleanValue(true));
    m_qdiscFactory.Set("EcnKmin", QueueSizeValue(k));
    m_qdiscFactory.Set("EcnKmax", QueueSizeValue(k));
    m_qdiscFactory.Set("EcnPmax", DoubleValue(1.0));
    m_qdiscFactory.Set("EcnThresholdRate", DataRateValue(atRate));
    // DCTCP's switch marks a packet on its arrival when the queue holds more
    // than K (Alizadeh et al. 2010, section 3.1; RFC 8257 section 3.1 marks on
    // the instantaneous queue). Marking at dequeue shortens the marking
    // episodes so much that a flow's share of the marks no longer follows its
    // share of the bytes: the per-flow alphas differ and the windows stay
    // unequal (rocev2-cc-dynamics, rocev2-cc-window).
    m_qdiscFactory.Set("EcnMarkAt", StringValue("Enqueue"));
}

Ptr<RoceSwitch>
RoceSwitchHelper::Install(Ptr<Node> node)
{
    ROCE_ERROR_IF(node->GetObject<RoceSwitch>(),
                  "RoceSwitchHelper: node " << node->GetId() << " is already a switch");
    ROCE_ERROR_IF(node->GetNDevices() > 0,
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
/// The far end of a device's link: its node, and the switch port index
/// there (a port's index; for a link that this MPI rank stands in for, the
/// interface index, which is the port index on a switch). Null while a
/// built link is down (routable says no) and for a device without a link.
std::pair<Ptr<Node>, uint32_t>
Peer(Ptr<NetDevice> dev, const RoceSwitchHelper::LinkFilter& routable)
{
    Ptr<RocePfcNetDevice> pfc = DynamicCast<RocePfcNetDevice>(dev);
    if (Ptr<RoceChannel> ch = pfc ? DynamicCast<RoceChannel>(pfc->GetChannel()) : nullptr)
    {
        Ptr<RocePfcNetDevice> peer = routable(ch) ? ch->GetPeer(PeekPointer(pfc)) : nullptr;
        Ptr<RoceSwitchPort> port = DynamicCast<RoceSwitchPort>(peer);
        return {peer ? peer->GetNode() : nullptr, port ? port->GetPortIndex() : 0};
    }
    RoceLinkEnd end;
    if (RoceLinkEnd::Of(dev, &end))
    {
        return {NodeList::GetNode(end.peerNode), end.peerIf};
    }
    return {nullptr, 0};
}

/// \param node a switch \return true if this process fills its routes (across
/// MPI ranks only a switch's own rank does)
bool
Routed(Ptr<Node> node)
{
    return RoceMpiHelper::GetSize() <= 1 || RoceMpiHelper::IsLocal(node);
}

/// A NIC as seen from the switch it hangs off.
struct AttachedNic
{
    uint32_t addr; //!< its address, host order
    uint32_t port; //!< the port of its switch that leads to it
};
} // namespace

void
RoceSwitchHelper::PopulateRoutes()
{
    PopulateRoutes([](Ptr<RoceChannel> ch) { return ch->IsLinkUp(); });
}

void
RoceSwitchHelper::PopulateRoutes(const LinkFilter& routable)
{
    uint32_t nNodes = NodeList::GetNNodes();
    std::vector<Ptr<RoceSwitch>> switches(nNodes);
    RoceForEachNodeObject<RoceSwitch>([&](const Ptr<Node>& node, const Ptr<RoceSwitch>& sw) {
        switches[node->GetId()] = sw;
        sw->ClearRoutes();
    });
    // The NICs below each switch (over links that are up), and which switches
    // hold NICs of each /24.
    std::map<uint32_t, std::vector<AttachedNic>> below;
    std::map<uint32_t, std::vector<uint32_t>> prefixOwners;
    RoceForEachDevice<NetDevice>([&](const Ptr<Node>&, const Ptr<NetDevice>& nic) {
        // A NIC, or across MPI ranks the stand-in for one.
        if (!RoceNetDevice::IsNic(nic))
        {
            return;
        }
        auto [first, port] = Peer(nic, routable);
        if (!first || !switches[first->GetId()])
        {
            return; // a host-to-host link, or a link that is down
        }
        uint32_t addr = RoceNetDevice::AddressOf(nic).Get();
        below[first->GetId()].push_back({addr, port});
        auto& owners = prefixOwners[addr & 0xFFFFFF00];
        if (std::find(owners.begin(), owners.end(), first->GetId()) == owners.end())
        {
            owners.push_back(first->GetId());
        }
    });
    const Ipv4Mask hostMask("255.255.255.255");
    const Ipv4Mask rackMask("255.255.255.0");
    // One breadth-first search per switch with NICs below it: every switch's
    // equal-cost next hops towards it serve all of its NICs. A /24 whose NICs
    // all hang off that switch becomes one entry elsewhere.
    std::vector<int32_t> dist(nNodes);
    std::vector<std::vector<uint32_t>> next(nNodes);
    std::vector<uint32_t> reached;
    for (auto& [leaf, nics] : below)
    {
        std::sort(nics.begin(), nics.end(), [](const AttachedNic& a, const AttachedNic& b) {
            return a.addr < b.addr;
        });
        for (const AttachedNic& n : nics)
        {
            if (Routed(NodeList::GetNode(leaf)))
            {
                switches[leaf]->AddRoute(Ipv4Address(n.addr), hostMask, {n.port});
            }
        }
        std::fill(dist.begin(), dist.end(), -1);
        reached.clear();
        std::deque<uint32_t> queue;
        dist[leaf] = 0;
        queue.push_back(leaf);
        while (!queue.empty())
        {
            uint32_t u = queue.front();
            queue.pop_front();
            // A switch's devices are its ports, in order (also the links
            // this MPI rank stands in for).
            Ptr<Node> node = NodeList::GetNode(u);
            next[u].clear();
            for (uint32_t p = 0; p < node->GetNDevices(); ++p)
            {
                Ptr<Node> v = Peer(node->GetDevice(p), routable).first;
                if (!v || !switches[v->GetId()])
                {
                    continue; // hosts do not forward
                }
                int32_t& dv = dist[v->GetId()];
                if (dv == -1)
                {
                    dv = dist[u] + 1;
                    queue.push_back(v->GetId());
                }
                else if (dv == dist[u] - 1)
                {
                    Ptr<RoceSwitchPort> port = DynamicCast<RoceSwitchPort>(node->GetDevice(p));
                    next[u].push_back(port ? port->GetPortIndex() : p);
                }
            }
            if (u != leaf)
            {
                reached.push_back(u);
            }
        }
        std::vector<uint32_t> exclusive; // /24s only this switch's NICs use
        for (const AttachedNic& n : nics)
        {
            uint32_t prefix = n.addr & 0xFFFFFF00;
            if (prefixOwners[prefix].size() == 1 &&
                (exclusive.empty() || exclusive.back() != prefix))
            {
                exclusive.push_back(prefix);
            }
        }
        for (uint32_t u : reached)
        {
            if (!Routed(NodeList::GetNode(u)))
            {
                continue;
            }
            for (uint32_t prefix : exclusive)
            {
                switches[u]->AddRoute(Ipv4Address(prefix), rackMask, next[u]);
            }
            for (const AttachedNic& n : nics)
            {
                if (prefixOwners[n.addr & 0xFFFFFF00].size() > 1)
                {
                    switches[u]->AddRoute(Ipv4Address(n.addr), hostMask, next[u]);
                }
            }
        }
    }
}

int64_t
RoceSwitchHelper::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    RoceForEachNodeObject<RoceSwitch>([&](const Ptr<Node>& node, const Ptr<RoceSwitch>&) {
        // A switch's ports in order: its devices. A port that this MPI rank
        // does not build (RoceAbsentDevice) counts the one stream its queue
        // disc takes where it is built, so every port has the same stream on
        // every rank.
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<NetDevice> dev = node->GetDevice(d);
            if (Ptr<RoceSwitchPort> port = DynamicCast<RoceSwitchPort>(dev))
            {
                used += port->GetQueueDisc()->AssignStreams(stream + used);
            }
            else if (DynamicCast<RoceAbsentDevice>(dev))
            {
                used += 1;
            }
        }
    });
    // Then each switch's packet-spraying stream (after the ports' streams,
    // which keep the numbers they had before spraying existed).
    RoceForEachNodeObject<RoceSwitch>([&](const Ptr<Node>&, const Ptr<RoceSwitch>& sw) {
        used += sw->AssignStreams(stream + used);
    });
    return used;
}

uint64_t
RoceSwitchHelper::GetBufferedBytes()
{
    uint64_t total = 0;
    RoceForEachNodeObject<RoceSwitch>(
        [&](const Ptr<Node>&, const Ptr<RoceSwitch>& sw) { total += sw->GetBufferedBytes(); });
    return total;
}

} // namespace ns3
