/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-icrc-trailer.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceIcrcTrailer);

RoceIcrcTrailer::RoceIcrcTrailer() = default;

TypeId
RoceIcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceIcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceIcrcTrailer>();
    return tid;
}

TypeId
RoceIcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceIcrcTrailer::Print(std::ostream& os) const
{
    os << "ICRC=0x" << std::hex << m_icrc << std::dec;
}

uint32_t
RoceIcrcTrailer::GetSerializedSize() const
{
    return SIZE;
}

void
RoceIcrcTrailer::Serialize(Buffer::Iterator end) const
{
    end.Prev(SIZE);
    end.WriteHtonU32(m_icrc);
}

uint32_t
RoceIcrcTrailer::Deserialize(Buffer::Iterator end)
{
    end.Prev(SIZE);
    m_icrc = end.ReadNtohU32();
    return SIZE;
}

void
RoceIcrcTrailer::SetIcrc(uint32_t icrc)
{
    m_icrc = icrc;
}

uint32_t
RoceIcrcTrailer::GetIcrc() const
{
    return m_icrc;
}

} // namespace ns3
