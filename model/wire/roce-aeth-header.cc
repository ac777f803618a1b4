/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-aeth-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceAethHeader);

RoceAethHeader::RoceAethHeader() = default;

TypeId
RoceAethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceAethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceAethHeader>();
    return tid;
}

TypeId
RoceAethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceAethHeader::Print(std::ostream& os) const
{
    os << "AETH " << (IsNak() ? "NAK" : "ACK") << " code=" << +GetCode() << " msn=" << m_msn;
}

uint32_t
RoceAethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceAethHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(m_syndrome);
    start.WriteU8((m_msn >> 16) & 0xFF);
    start.WriteHtonU16(m_msn & 0xFFFF);
}

uint32_t
RoceAethHeader::Deserialize(Buffer::Iterator start)
{
    m_syndrome = start.ReadU8();
    uint32_t hi = start.ReadU8();
    m_msn = (hi << 16) | start.ReadNtohU16();
    return SIZE;
}

void
RoceAethHeader::SetSyndrome(uint8_t syndrome)
{
    m_syndrome = syndrome;
}

uint8_t
RoceAethHeader::GetSyndrome() const
{
    return m_syndrome;
}

void
RoceAethHeader::SetType(Type type, uint8_t code)
{
    m_syndrome = static_cast<uint8_t>((type << 5) | (code & 0x1F));
}

uint8_t
RoceAethHeader::GetType() const
{
    return m_syndrome >> 5;
}

uint8_t
RoceAethHeader::GetCode() const
{
    return m_syndrome & 0x1F;
}

bool
RoceAethHeader::IsNak() const
{
    return GetType() == NAK;
}

void
RoceAethHeader::SetMsn(uint32_t msn)
{
    m_msn = msn & 0xFFFFFF;
}

uint32_t
RoceAethHeader::GetMsn() const
{
    return m_msn;
}

} // namespace ns3
