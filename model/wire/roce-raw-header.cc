/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-raw-header.h"

#include "roce-icrc-trailer.h"
#include "roce-int-record.h"
#include "roce-raw-trailer.h"

#include "ns3/packet.h"
#include "ns3/roce-error.h"

#include <cstring>
#include <iomanip>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceRawHeader);

namespace
{
constexpr uint32_t ETH_BYTES = 14;       //!< Ethernet II header
constexpr uint32_t IPV4_BYTES = 20;      //!< IPv4 header without options
constexpr uint32_t TOS_OFFSET = 1;       //!< DSCP/ECN byte within IPv4
constexpr uint32_t CHECKSUM_OFFSET = 10; //!< header checksum within IPv4
constexpr uint32_t UDP_BYTES = 8;        //!< UDP header
constexpr uint32_t BTH_BYTES = 12;       //!< InfiniBand BTH
/// Ethernet, IPv4, UDP and BTH: the bytes an INT record changes fields of.
constexpr uint32_t INT_STAMP_BYTES = ETH_BYTES + IPV4_BYTES + UDP_BYTES + BTH_BYTES;
/// BTH byte 4: INT request (bit 5) and hop count (bits 4-0).
constexpr uint32_t INT_FLAGS_OFFSET = ETH_BYTES + IPV4_BYTES + UDP_BYTES + 4;

/// \param b two bytes, big-endian \return their value
inline uint16_t
Read16(const uint8_t* b)
{
    return static_cast<uint16_t>((b[0] << 8) | b[1]);
}

/// \param b two bytes \param v the value to write big-endian there
inline void
Write16(uint8_t* b, uint16_t v)
{
    b[0] = static_cast<uint8_t>(v >> 8);
    b[1] = static_cast<uint8_t>(v & 0xFF);
}

/// \param ip an IPv4 header \param offset an even offset in it \param v its new word
inline void
SetIpWord(uint8_t* ip, uint32_t offset, uint16_t v)
{
    uint16_t old = Read16(ip + offset);
    Write16(ip + offset, v);
    Write16(ip + CHECKSUM_OFFSET,
            RoceRawHeader::UpdateChecksum(Read16(ip + CHECKSUM_OFFSET), old, v));
}
} // namespace

RoceRawHeader::RoceRawHeader() = default;

RoceRawHeader::RoceRawHeader(const uint8_t* bytes, uint32_t size)
    : m_size(size)
{
    ROCE_ERROR_IF(size > MAX_SIZE,
                  "RoceRawHeader: " << size << " bytes; it holds at most " << MAX_SIZE);
    std::memcpy(m_bytes, bytes, size);
}

TypeId
RoceRawHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRawHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceRawHeader>();
    return tid;
}

TypeId
RoceRawHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceRawHeader::Print(std::ostream& os) const
{
    os << "raw " << m_size << " B:";
    std::ios_base::fmtflags f = os.flags();
    for (uint32_t i = 0; i < m_size; ++i)
    {
        os << ' ' << std::hex << std::setw(2) << std::setfill('0') << +m_bytes[i];
    }
    os.flags(f);
}

uint32_t
RoceRawHeader::GetSerializedSize() const
{
    return m_size;
}

void
RoceRawHeader::Serialize(Buffer::Iterator start) const
{
    start.Write(m_bytes, m_size);
}

uint32_t
RoceRawHeader::Deserialize(Buffer::Iterator start)
{
    RoceReadBytes(start, m_bytes, m_size);
    return m_size;
}

uint32_t
RoceRawHeader::Deserialize(Buffer::Iterator start, Buffer::Iterator end)
{
    uint32_t n = end.GetDistanceFrom(start);
    m_size = n < MAX_SIZE ? n : MAX_SIZE;
    return Deserialize(start);
}

void
RoceRawHeader::SetSize(uint32_t size)
{
    ROCE_ERROR_IF(size > MAX_SIZE,
                  "RoceRawHeader: " << size << " bytes; it holds at most " << MAX_SIZE);
    m_size = size;
}

const uint8_t*
RoceRawHeader::GetBytes() const
{
    return m_bytes;
}

uint16_t
RoceRawHeader::UpdateChecksum(uint16_t checksum, uint16_t oldWord, uint16_t newWord)
{
    // HC' = ~(~HC + ~m + m'), in one's complement arithmetic.
    uint32_t sum = uint32_t(static_cast<uint16_t>(~checksum)) +
                   uint32_t(static_cast<uint16_t>(~oldWord)) + newWord;
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    return static_cast<uint16_t>(~sum & 0xFFFF);
}

bool
RoceRawHeader::SetCe(uint8_t* frame, uint32_t size)
{
    if (size < ECN_MARK_BYTES || Read16(frame + 12) != 0x0800 || frame[ETH_BYTES] != 0x45)
    {
        return false;
    }
    uint8_t* ip = frame + ETH_BYTES;
    uint16_t word = Read16(ip); // version/IHL and TOS
    SetIpWord(ip, 0, static_cast<uint16_t>(word | 0x3));
    NS_ASSERT((ip[TOS_OFFSET] & 0x3) == 0x3);
    return true;
}

bool
RoceRawHeader::SetCe(Packet& p)
{
    RoceRawHeader h;
    if (!SetCe(h.m_bytes, p.CopyData(h.m_bytes, ECN_MARK_BYTES)))
    {
        return false;
    }
    h.m_size = ECN_MARK_BYTES;
    p.RemoveAtStart(ECN_MARK_BYTES);
    p.AddHeader(h);
    return true;
}

void
RoceRawHeader::GrowIpv4Udp(uint8_t* frame, uint16_t extra)
{
    uint8_t* ip = frame + ETH_BYTES;
    SetIpWord(ip, 2, static_cast<uint16_t>(Read16(ip + 2) + extra));
    uint8_t* udp = ip + IPV4_BYTES;
    Write16(udp + 4, static_cast<uint16_t>(Read16(udp + 4) + extra));
}

bool
RoceRawHeader::StampInt(Packet& p, RoceIntRecord& record)
{
    if (p.GetSize() < INT_STAMP_BYTES + RoceIcrcTrailer::SIZE)
    {
        return false;
    }
    // The frame's first bytes go straight into the header that replaces
    // them, and one trailer object reads the ICRC and carries the record
    // with the ICRC behind it.
    RoceRawHeader h;
    uint8_t* b = h.m_bytes;
    p.CopyData(b, INT_STAMP_BYTES);
    uint8_t hops = b[INT_FLAGS_OFFSET] & 0x1F;
    if (hops >= RoceIntRecord::MAX_HOPS)
    {
        return false;
    }
    h.m_size = INT_STAMP_BYTES;
    record.hop = hops;
    RoceRawTrailer tail;
    tail.SetSize(RoceIcrcTrailer::SIZE);
    p.PeekTrailer(tail);
    uint8_t* t = tail.GetBytes();
    std::memmove(t + RoceIntRecord::SIZE, t, RoceIcrcTrailer::SIZE);
    record.Write(t);
    tail.SetSize(RoceIntRecord::SIZE + RoceIcrcTrailer::SIZE);
    p.RemoveAtEnd(RoceIcrcTrailer::SIZE);
    p.AddTrailer(tail);
    b[INT_FLAGS_OFFSET] = static_cast<uint8_t>((b[INT_FLAGS_OFFSET] & 0xE0) | (hops + 1));
    GrowIpv4Udp(b, RoceIntRecord::SIZE);
    p.RemoveAtStart(INT_STAMP_BYTES);
    p.AddHeader(h);
    return true;
}

} // namespace ns3
