/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-header-block.h"

#include "roce-bth-header.h"
#include "roce-encap-header.h"

#include "ns3/buffer.h"

#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceHeaderBlock);

namespace
{

/// Offset of the IPv4 header in the block.
constexpr uint32_t IP_OFFSET = 14;
/// Offset of the UDP header in the block.
constexpr uint32_t UDP_OFFSET = 34;

/**
 * \param h a header
 * \param out where its bytes go (h.GetSerializedSize() of them)
 */
void
SerializeInto(const Header& h, uint8_t* out)
{
    uint32_t n = h.GetSerializedSize();
    Buffer b;
    b.AddAtStart(n);
    h.Serialize(b.Begin());
    b.CopyData(out, n);
}

} // namespace

RoceHeaderBlock::RoceHeaderBlock() = default;

TypeId
RoceHeaderBlock::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHeaderBlock")
                            .SetParent<Header>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceHeaderBlock>();
    return tid;
}

TypeId
RoceHeaderBlock::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceHeaderBlock::Print(std::ostream& os) const
{
    os << "RoCEv2 sport " << GetSourcePort() << " dscp " << +GetDscp() << " "
       << RoceBthHeader::OpcodeName(GetOpcode()) << " psn=" << GetPsn();
    if (GetExtension() == RETH)
    {
        os << " +RETH";
    }
    else if (GetExtension() == AETH)
    {
        os << " +AETH";
    }
}

uint32_t
RoceHeaderBlock::GetSerializedSize() const
{
    return m_size;
}

void
RoceHeaderBlock::Serialize(Buffer::Iterator start) const
{
    uint8_t b[MAX_BYTES];
    Write(b, start.GetSize()); // frame bytes from this header to the end
    start.Write(b, m_size);
}

void
RoceHeaderBlock::Write(uint8_t* b, uint32_t total) const
{
    std::memcpy(b, m_bytes, m_size);
    uint32_t ipLen = total - IP_OFFSET;
    uint32_t udpLen = total - UDP_OFFSET;
    b[IP_OFFSET + 2] = static_cast<uint8_t>(ipLen >> 8);
    b[IP_OFFSET + 3] = static_cast<uint8_t>(ipLen);
    uint32_t sum = m_ipSum + (ipLen & 0xFFFF);
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    uint16_t csum = static_cast<uint16_t>(~sum);
    b[IP_OFFSET + 10] = static_cast<uint8_t>(csum >> 8);
    b[IP_OFFSET + 11] = static_cast<uint8_t>(csum);
    b[UDP_OFFSET + 4] = static_cast<uint8_t>(udpLen >> 8);
    b[UDP_OFFSET + 5] = static_cast<uint8_t>(udpLen);
}

uint32_t
RoceHeaderBlock::Deserialize(Buffer::Iterator start)
{
    start.Read(m_bytes, BASE_BYTES);
    uint8_t op = m_bytes[BTH_OFFSET];
    m_size = BASE_BYTES;
    if (op == RoceBthHeader::WRITE_FIRST || op == RoceBthHeader::WRITE_ONLY)
    {
        start.Read(m_bytes + BASE_BYTES, RETH_BYTES);
        m_size += RETH_BYTES;
    }
    else if (op == RoceBthHeader::ACKNOWLEDGE)
    {
        start.Read(m_bytes + BASE_BYTES, AETH_BYTES);
        m_size += AETH_BYTES;
    }
    // Recompute the constant part of the checksum for a later Serialize().
    uint8_t ip[20];
    std::memcpy(ip, m_bytes + IP_OFFSET, 20);
    ip[2] = 0;
    ip[3] = 0;
    m_ipSum = static_cast<uint16_t>(~RoceEncapHeader::IpChecksum(ip));
    return m_size;
}

void
RoceHeaderBlock::SetEncap(const RoceEncapHeader& encap)
{
    SerializeInto(encap, m_bytes);
    // The sum of every IPv4 word but the total length and the checksum; the
    // total length is added per packet. IpChecksum skips the checksum word,
    // so it gives this sum's complement with the length zeroed.
    uint8_t ip[20];
    std::memcpy(ip, m_bytes + IP_OFFSET, 20);
    ip[2] = 0;
    ip[3] = 0;
    m_ipSum = static_cast<uint16_t>(~RoceEncapHeader::IpChecksum(ip));
}

void
RoceHeaderBlock::SetBth(const RoceBthHeader& bth)
{
    SerializeInto(bth, m_bytes + BTH_OFFSET);
}

void
RoceHeaderBlock::SetReth(uint64_t va, uint32_t rkey, uint32_t dmaLength)
{
    uint8_t* r = m_bytes + BASE_BYTES;
    for (int i = 0; i < 8; ++i)
    {
        r[i] = static_cast<uint8_t>(va >> (56 - 8 * i));
    }
    for (int i = 0; i < 4; ++i)
    {
        r[8 + i] = static_cast<uint8_t>(rkey >> (24 - 8 * i));
        r[12 + i] = static_cast<uint8_t>(dmaLength >> (24 - 8 * i));
    }
    m_size = BASE_BYTES + RETH_BYTES;
}

RoceHeaderBlock::Extension
RoceHeaderBlock::GetExtension() const
{
    switch (m_size)
    {
    case BASE_BYTES + RETH_BYTES:
        return RETH;
    case BASE_BYTES + AETH_BYTES:
        return AETH;
    default:
        return NONE;
    }
}

uint8_t
RoceHeaderBlock::GetOpcode() const
{
    return m_bytes[BTH_OFFSET];
}

uint32_t
RoceHeaderBlock::GetPsn() const
{
    const uint8_t* b = m_bytes + BTH_OFFSET;
    return (uint32_t(b[9]) << 16) | (uint32_t(b[10]) << 8) | b[11];
}

uint16_t
RoceHeaderBlock::GetSourcePort() const
{
    return static_cast<uint16_t>((m_bytes[UDP_OFFSET] << 8) | m_bytes[UDP_OFFSET + 1]);
}

uint8_t
RoceHeaderBlock::GetDscp() const
{
    return m_bytes[IP_OFFSET + 1] >> 2;
}

} // namespace ns3
