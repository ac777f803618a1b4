/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-encap-header.h"

#include "ns3/roce-error.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceEncapHeader);

RoceEncapHeader::RoceEncapHeader() = default;

TypeId
RoceEncapHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceEncapHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceEncapHeader>();
    return tid;
}

TypeId
RoceEncapHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceEncapHeader::Print(std::ostream& os) const
{
    os << "Ethernet/IPv4 " << GetSource() << " > " << GetDestination() << " dscp " << +GetDscp()
       << " ecn " << +GetEcn() << "/UDP " << m_sport << " > " << m_dport;
}

uint32_t
RoceEncapHeader::GetSerializedSize() const
{
    return SIZE;
}

uint16_t
RoceEncapHeader::IpChecksum(const uint8_t* ip)
{
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
    {
        if (i != 10)
        {
            sum += (uint32_t(ip[i]) << 8) | ip[i + 1];
        }
    }
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum & 0xFFFF);
}

void
RoceEncapHeader::Serialize(Buffer::Iterator start) const
{
    uint32_t total = start.GetSize(); // frame bytes from this header to the end
    uint8_t b[SIZE];
    for (int i = 0; i < 6; ++i)
    {
        b[i] = m_dstMac[i];
        b[6 + i] = m_srcMac[i];
    }
    b[12] = 0x08; // IPv4
    b[13] = 0x00;
    uint8_t* ip = b + 14;
    uint16_t ipLen = static_cast<uint16_t>(total - 14);
    uint16_t udpLen = static_cast<uint16_t>(total - 34);
    ip[0] = 0x45;
    ip[1] = m_tos;
    ip[2] = ipLen >> 8;
    ip[3] = ipLen & 0xFF;
    ip[4] = 0; // identification
    ip[5] = 0;
    ip[6] = 0x40; // DF
    ip[7] = 0;
    ip[8] = m_ttl;
    ip[9] = 17;
    ip[10] = 0;
    ip[11] = 0;
    for (int i = 0; i < 4; ++i)
    {
        ip[12 + i] = (m_srcIp >> (24 - 8 * i)) & 0xFF;
        ip[16 + i] = (m_dstIp >> (24 - 8 * i)) & 0xFF;
    }
    uint16_t csum = IpChecksum(ip);
    ip[10] = csum >> 8;
    ip[11] = csum & 0xFF;
    uint8_t* udp = ip + 20;
    udp[0] = m_sport >> 8;
    udp[1] = m_sport & 0xFF;
    udp[2] = m_dport >> 8;
    udp[3] = m_dport & 0xFF;
    udp[4] = udpLen >> 8;
    udp[5] = udpLen & 0xFF;
    udp[6] = 0;
    udp[7] = 0;
    start.Write(b, SIZE);
}

uint32_t
RoceEncapHeader::Deserialize(Buffer::Iterator start)
{
    uint8_t b[SIZE];
    start.Read(b, SIZE);
    for (int i = 0; i < 6; ++i)
    {
        m_dstMac[i] = b[i];
        m_srcMac[i] = b[6 + i];
    }
    const uint8_t* ip = b + 14;
    m_tos = ip[1];
    m_ipTotalLength = static_cast<uint16_t>((ip[2] << 8) | ip[3]);
    m_ttl = ip[8];
    m_srcIp =
        (uint32_t(ip[12]) << 24) | (uint32_t(ip[13]) << 16) | (uint32_t(ip[14]) << 8) | ip[15];
    m_dstIp =
        (uint32_t(ip[16]) << 24) | (uint32_t(ip[17]) << 16) | (uint32_t(ip[18]) << 8) | ip[19];
    const uint8_t* udp = ip + 20;
    m_sport = static_cast<uint16_t>((udp[0] << 8) | udp[1]);
    m_dport = static_cast<uint16_t>((udp[2] << 8) | udp[3]);
    return SIZE;
}

void
RoceEncapHeader::SetMacs(Mac48Address src, Mac48Address dst)
{
    src.CopyTo(m_srcMac);
    dst.CopyTo(m_dstMac);
}

void
RoceEncapHeader::SetAddresses(Ipv4Address src, Ipv4Address dst)
{
    m_srcIp = src.Get();
    m_dstIp = dst.Get();
}

Ipv4Address
RoceEncapHeader::GetSource() const
{
    return Ipv4Address(m_srcIp);
}

Ipv4Address
RoceEncapHeader::GetDestination() const
{
    return Ipv4Address(m_dstIp);
}

void
RoceEncapHeader::SetDscp(uint8_t dscp)
{
    ROCE_ERROR_IF(dscp > 63, "RoceEncapHeader: DSCP " << +dscp << " out of range 0..63");
    m_tos = static_cast<uint8_t>((dscp << 2) | (m_tos & 0x3));
}

uint8_t
RoceEncapHeader::GetDscp() const
{
    return m_tos >> 2;
}

void
RoceEncapHeader::SetEcn(uint8_t ecn)
{
    m_tos = static_cast<uint8_t>((m_tos & 0xFC) | (ecn & 0x3));
}

uint8_t
RoceEncapHeader::GetEcn() const
{
    return m_tos & 0x3;
}

void
RoceEncapHeader::SetSourcePort(uint16_t sport)
{
    m_sport = sport;
}

uint16_t
RoceEncapHeader::GetSourcePort() const
{
    return m_sport;
}

uint16_t
RoceEncapHeader::GetDestinationPort() const
{
    return m_dport;
}

uint16_t
RoceEncapHeader::GetIpTotalLength() const
{
    return m_ipTotalLength;
}

} // namespace ns3
