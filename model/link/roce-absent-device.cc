/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-absent-device.h"

#include "roce-channel.h"
#include "roce-pfc-net-device.h"

#include "ns3/node.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-error.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceAbsentDevice);

bool
RoceLinkEnd::Of(Ptr<const NetDevice> device, RoceLinkEnd* end)
{
    if (Ptr<const RoceAbsentDevice> absent = DynamicCast<const RoceAbsentDevice>(device))
    {
        *end = absent->GetLink();
        return true;
    }
    if (Ptr<const RocePfcNetDevice> dev = DynamicCast<const RocePfcNetDevice>(device))
    {
        if (Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(dev->GetChannel()))
        {
            Ptr<RocePfcNetDevice> peer = ch->GetPeer(PeekPointer(dev));
            if (!peer)
            {
                return false;
            }
            end->peerNode = peer->GetNode()->GetId();
            end->peerIf = peer->GetIfIndex();
            end->rate = dev->GetDataRate();
            end->peerRate = peer->GetDataRate();
            end->delay = ch->GetDelay();
            return true;
        }
    }
    return false;
}

TypeId
RoceAbsentDevice::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceAbsentDevice")
                            .SetParent<NetDevice>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceAbsentDevice>();
    return tid;
}

void
RoceAbsentDevice::SetLink(const RoceLinkEnd& link)
{
    m_link = link;
}

const RoceLinkEnd&
RoceAbsentDevice::GetLink() const
{
    return m_link;
}

void
RoceAbsentDevice::SetIpv4Address(Ipv4Address address)
{
    m_ipv4 = address;
}

Ipv4Address
RoceAbsentDevice::GetIpv4Address() const
{
    return m_ipv4;
}

bool
RoceAbsentDevice::IsNicEndpoint() const
{
    return m_ipv4 != Ipv4Address();
}

uint32_t
RoceAbsentDevice::ReserveQpn()
{
    ROCE_ERROR_IF(!IsNicEndpoint(),
                  "RoceAbsentDevice: interface " << m_ifIndex << " of node "
                                                 << (m_node ? m_node->GetId() : 0)
                                                 << " stands in for a switch port, not a NIC: it "
                                                    "has no QPs");
    const uint32_t qpn = RoceBthHeader::QpnOfSlot(m_reservedQpns, m_ipv4);
    ++m_reservedQpns;
    return qpn;
}

uint32_t
RoceAbsentDevice::GetNReservedQpns() const
{
    return m_reservedQpns;
}

void
RoceAbsentDevice::DoDispose()
{
    m_node = nullptr;
    NetDevice::DoDispose();
}

void
RoceAbsentDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
RoceAbsentDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
RoceAbsentDevice::GetChannel() const
{
    return nullptr;
}

void
RoceAbsentDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
RoceAbsentDevice::GetAddress() const
{
    return m_address;
}

bool
RoceAbsentDevice::SetMtu(const uint16_t)
{
    return false;
}

uint16_t
RoceAbsentDevice::GetMtu() const
{
    return 0;
}

bool
RoceAbsentDevice::IsLinkUp() const
{
    return false;
}

void
RoceAbsentDevice::AddLinkChangeCallback(Callback<void>)
{
}

bool
RoceAbsentDevice::IsBroadcast() const
{
    return false;
}

Address
RoceAbsentDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
RoceAbsentDevice::IsMulticast() const
{
    return false;
}

Address
RoceAbsentDevice::GetMulticast(Ipv4Address) const
{
    return Mac48Address::GetBroadcast();
}

Address
RoceAbsentDevice::GetMulticast(Ipv6Address) const
{
    return Mac48Address::GetBroadcast();
}

bool
RoceAbsentDevice::IsPointToPoint() const
{
    return true;
}

bool
RoceAbsentDevice::IsBridge() const
{
    return false;
}

bool
RoceAbsentDevice::Send(Ptr<Packet>, const Address&, uint16_t)
{
    ROCE_ERROR("RoceAbsentDevice: interface " << m_ifIndex << " of node "
                                              << (m_node ? m_node->GetId() : 0)
                                              << " runs on another MPI rank and cannot send");
    return false;
}

bool
RoceAbsentDevice::SendFrom(Ptr<Packet> p, const Address&, const Address& dest, uint16_t proto)
{
    return Send(p, dest, proto);
}

Ptr<Node>
RoceAbsentDevice::GetNode() const
{
    return m_node;
}

void
RoceAbsentDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
RoceAbsentDevice::NeedsArp() const
{
    return false;
}

void
RoceAbsentDevice::SetReceiveCallback(NetDevice::ReceiveCallback)
{
}

void
RoceAbsentDevice::SetPromiscReceiveCallback(PromiscReceiveCallback)
{
}

bool
RoceAbsentDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
