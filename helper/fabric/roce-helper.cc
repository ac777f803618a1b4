/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-helper.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/roce-absent-device.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-error.h"
#include "ns3/roce-mpi-helper.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/string.h"

#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceHelper");

RoceHelper::RoceHelper()
{
    m_nicFactory.SetTypeId("ns3::RoceNetDevice");
    m_portFactory.SetTypeId("ns3::RoceSwitchPort");
    m_channelFactory.SetTypeId("ns3::RoceChannel");
    m_qpFactory.SetTypeId("ns3::RoceQueuePair");
    SetAddressBase(Ipv4Address("10.0.0.0"), Ipv4Mask("255.0.0.0"));
}

void
RoceHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_nicFactory, name, value);
    RoceSetFactoryAttribute(m_portFactory, name, value);
}

void
RoceHelper::SetNicAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_nicFactory, name, value);
}

void
RoceHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_channelFactory, name, value);
    m_channelDelay = Time(-1);
}

Time
RoceHelper::ChannelDelay()
{
    if (m_channelDelay.IsNegative())
    {
        m_channelDelay = m_channelFactory.Create<RoceChannel>()->GetDelay();
    }
    return m_channelDelay;
}

void
RoceHelper::SetQpAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_qpFactory, name, value);
}

void
RoceHelper::SetCongestionControl(const std::string& name)
{
    m_ccFactory = ObjectFactory();
    m_ccFactory.SetTypeId(RoceCongestionOps::LookupByName(name));
}

void
RoceHelper::SetCongestionControlAttribute(std::string name, const AttributeValue& value)
{
    ROCE_ERROR_IF(!m_ccFactory.IsTypeIdSet(),
                  "RoceHelper: SetCongestionControlAttribute(" << name
                                                               << ") before SetCongestionControl");
    struct TypeId::AttributeInformation info;
    ROCE_ERROR_IF(!m_ccFactory.GetTypeId().LookupAttributeByName(name, &info),
                  "RoceHelper: congestion control " << m_ccFactory.GetTypeId().GetName()
                                                    << " has no attribute " << name);
    ROCE_ERROR_IF(!info.checker->CreateValidValue(value),
                  "RoceHelper: " << m_ccFactory.GetTypeId().GetName() << "::" << name << "="
                                 << value.SerializeToString(info.checker)
                                 << " is out of range or of the wrong type");
    RoceSetFactoryAttribute(m_ccFactory, name, value);
}

Ptr<RoceCongestionOps>
RoceHelper::CreateCongestionControl() const
{
    if (!m_ccFactory.IsTypeIdSet())
    {
        return nullptr;
    }
    return m_ccFactory.Create<RoceCongestionOps>();
}

void
RoceHelper::SetAddressBase(Ipv4Address network, Ipv4Mask mask, Ipv4Address base)
{
    m_network = network.Get() & mask.Get();
    m_mask = mask.Get();
    m_nextHost = base.Get() & ~mask.Get();
    ROCE_ERROR_IF(m_nextHost == 0,
                  "RoceHelper: address base " << base << " has no host part under mask " << mask);
}

Ptr<RocePfcNetDevice>
RoceHelper::CreateEnd(Ptr<Node> node)
{
    Ptr<RocePfcNetDevice> dev;
    Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
    if (sw)
    {
        Ptr<RoceSwitchPort> port = m_portFactory.Create<RoceSwitchPort>();
        port->SetAddress(Mac48Address::Allocate());
        node->AddDevice(port);
        sw->AddPort(port);
        return port;
    }
    else
    {
        Ptr<RoceNetDevice> nic = m_nicFactory.Create<RoceNetDevice>();
        if (Ptr<RoceCongestionOps> cc = CreateCongestionControl())
        {
            nic->SetCongestionControl(cc);
        }
        ROCE_ERROR_IF(m_nextHost & m_mask,
                      "RoceHelper: address space " << Ipv4Address(m_network) << "/"
                                                   << Ipv4Mask(m_mask) << " exhausted");
        nic->SetIpv4Address(Ipv4Address(m_network | m_nextHost++));
        dev = nic;
    }
    dev->SetAddress(Mac48Address::Allocate());
    node->AddDevice(dev);
    return dev;
}

NetDeviceContainer
RoceHelper::Install(Ptr<Node> a, Ptr<Node> b)
{
    ROCE_ERROR_IF(!a || !b, "RoceHelper::Install: null node");
    ROCE_ERROR_IF(a == b, "RoceHelper::Install: node " << a->GetId() << " linked to itself");
    if (RoceMpiHelper::GetSize() > 1 && !RoceMpiHelper::IsLocal(a) && !RoceMpiHelper::IsLocal(b))
    {
        return InstallAbsent(a, b);
    }
    Ptr<RocePfcNetDevice> da = CreateEnd(a);
    Ptr<RocePfcNetDevice> db = CreateEnd(b);
    Ptr<RoceChannel> ch = m_channelFactory.Create<RoceChannel>();
    da->Attach(ch);
    db->Attach(ch);
    if (a->GetSystemId() != b->GetSystemId())
    {
        RoceMpiHelper::ConnectCut(ch, da, db); // the ends run on two MPI ranks
    }
    NetDeviceContainer c;
    c.Add(da);
    c.Add(db);
    return c;
}

NetDeviceContainer
RoceHelper::InstallAbsent(Ptr<Node> a, Ptr<Node> b)
{
    // Each end is made as CreateEnd makes it, so that MAC addresses, IPv4
    // addresses and ns-3's automatic random-stream numbers continue as in
    // a process that builds the link; then a RoceAbsentDevice takes its
    // place (at a host with the NIC's IPv4 address).
    const Ptr<Node> nodes[2] = {a, b};
    Ptr<RoceAbsentDevice> ends[2];
    DataRate rates[2];
    for (int i = 0; i < 2; ++i)
    {
        ends[i] = CreateObject<RoceAbsentDevice>();
        if (nodes[i]->GetObject<RoceSwitch>())
        {
            Ptr<RoceSwitchPort> port = m_portFactory.Create<RoceSwitchPort>();
            rates[i] = port->GetDataRate();
        }
        else
        {
            Ptr<RoceNetDevice> nic = m_nicFactory.Create<RoceNetDevice>();
            ROCE_ERROR_IF(m_nextHost & m_mask,
                          "RoceHelper: address space " << Ipv4Address(m_network) << "/"
                                                       << Ipv4Mask(m_mask) << " exhausted");
            ends[i]->SetIpv4Address(Ipv4Address(m_network | m_nextHost++));
            rates[i] = nic->GetDataRate();
        }
        ends[i]->SetAddress(Mac48Address::Allocate());
        nodes[i]->AddDevice(ends[i]);
    }
    const Time delay = ChannelDelay();
    NetDeviceContainer c;
    for (int i = 0; i < 2; ++i)
    {
        RoceLinkEnd link;
        link.peerNode = nodes[1 - i]->GetId();
        link.peerIf = ends[1 - i]->GetIfIndex();
        link.rate = rates[i];
        link.peerRate = rates[1 - i];
        link.delay = delay;
        ends[i]->SetLink(link);
        c.Add(ends[i]);
    }
    return c;
}

NetDeviceContainer
RoceHelper::Install(NodeContainer c)
{
    ROCE_ERROR_IF(c.GetN() != 2,
                  "RoceHelper::Install: a link joins exactly 2 nodes, got " << c.GetN());
    return Install(c.Get(0), c.Get(1));
}

std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>>
RoceHelper::CreateQp(Ptr<NetDevice> a, Ptr<NetDevice> b)
{
    ROCE_ERROR_IF(!RoceNetDevice::IsNic(a),
                  "RoceHelper::CreateQp: the first device is not a RoceNetDevice (NIC)");
    ROCE_ERROR_IF(!RoceNetDevice::IsNic(b),
                  "RoceHelper::CreateQp: the second device is not a RoceNetDevice (NIC)");
    ROCE_ERROR_IF(a == b, "RoceHelper::CreateQp: both ends are the same NIC");
    Ptr<RoceQueuePair> qa = m_qpFactory.Create<RoceQueuePair>();
    Ptr<RoceQueuePair> qb = m_qpFactory.Create<RoceQueuePair>();
    RoceNetDevice::ConnectPair(a, qa, b, qb);
    // A NIC of another MPI rank has no QP here (its number is reserved).
    return {qa->GetQpn() != 0 ? qa : nullptr, qb->GetQpn() != 0 ? qb : nullptr};
}

std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>>
RoceHelper::CreateQpOnNodes(Ptr<Node> a, Ptr<Node> b)
{
    return CreateQp(Ptr<NetDevice>(GetNic(a)), Ptr<NetDevice>(GetNic(b)));
}

std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>>
RoceHelper::CreateQp(Ptr<NetDevice> a, Ipv4Address remote)
{
    Ptr<RoceNetDevice> nb = FindNic(remote);
    ROCE_ERROR_IF(!nb, "RoceHelper::CreateQp: no NIC has address " << remote);
    return CreateQp(a, Ptr<NetDevice>(nb));
}

Ptr<NetDevice>
RoceHelper::GetNicDevice(Ptr<Node> node, uint32_t index)
{
    ROCE_ERROR_IF(!node, "RoceHelper::GetNicDevice: null node");
    uint32_t seen = 0;
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        Ptr<NetDevice> dev = node->GetDevice(i);
        if (RoceNetDevice::IsNic(dev) && seen++ == index)
        {
            return dev;
        }
    }
    ROCE_ERROR("RoceHelper: node " << node->GetId() << " has no NIC #" << index << " (it has "
                                   << seen << " NICs)");
    return nullptr;
}

Ptr<RoceNetDevice>
RoceHelper::GetNic(Ptr<Node> node, uint32_t index)
{
    ROCE_ERROR_IF(!node, "RoceHelper::GetNic: null node");
    uint32_t seen = 0;
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(node->GetDevice(i));
        if (nic && seen++ == index)
        {
            return nic;
        }
    }
    ROCE_ERROR("RoceHelper: node " << node->GetId() << " has no RoceNetDevice #" << index
                                   << " (it has " << seen << " NICs)");
    return nullptr;
}

namespace
{

/** Where a NIC is: its node's id and its index on the node. */
struct NicLocation
{
    uint32_t node;   //!< NodeList index
    uint32_t device; //!< device index on the node
};

/**
 * \param loc a location
 * \param address the address the NIC must have
 * \return the NIC there if it still has that address, else nullptr
 */
Ptr<RoceNetDevice>
NicAt(const NicLocation& loc, Ipv4Address address)
{
    if (loc.node >= NodeList::GetNNodes())
    {
        return nullptr;
    }
    Ptr<Node> node = NodeList::GetNode(loc.node);
    if (loc.device >= node->GetNDevices())
    {
        return nullptr;
    }
    Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(node->GetDevice(loc.device));
    return nic && nic->GetIpv4Address() == address ? nic : nullptr;
}

} // namespace

Ptr<RoceNetDevice>
RoceHelper::FindNic(Ipv4Address address)
{
    // An index from address to location, rebuilt from the NodeList when a
    // lookup misses or finds a stale entry, so creating a QP to each of N hosts
    // by address costs O(N), not O(N^2). It holds no pointers: an entry is
    // checked against the NodeList on every use, so nodes that are destroyed,
    // re-created or re-addressed are never returned wrongly.
    static std::unordered_map<uint32_t, NicLocation> index;
    auto it = index.find(address.Get());
    if (it != index.end())
    {
        if (Ptr<RoceNetDevice> nic = NicAt(it->second, address))
        {
            return nic;
        }
    }
    index.clear();
    RoceForEachDevice<RoceNetDevice>([](const Ptr<Node>& node, const Ptr<RoceNetDevice>& nic) {
        index.emplace(nic->GetIpv4Address().Get(),
                      NicLocation{node->GetId(), nic->GetIfIndex()}); // first one wins
    });
    it = index.find(address.Get());
    return it == index.end() ? nullptr : NicAt(it->second, address);
}

void
RoceHelper::EnablePcapInternal(std::string prefix,
                               Ptr<NetDevice> nd,
                               bool promiscuous,
                               bool explicitFilename)
{
    Ptr<RocePfcNetDevice> device = DynamicCast<RocePfcNetDevice>(nd);
    if (!device)
    {
        NS_LOG_INFO("RoceHelper::EnablePcapInternal: device " << nd
                                                              << " is not a RocePfcNetDevice");
        return;
    }
    PcapHelper pcapHelper;
    std::string filename =
        explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, device);
    Ptr<PcapFileWrapper> file =
        pcapHelper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    pcapHelper.HookDefaultSink<RocePfcNetDevice>(device,
                                                 promiscuous ? "PromiscSniffer" : "Sniffer",
                                                 file);
}

} // namespace ns3
