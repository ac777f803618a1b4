/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-reth-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceRethHeader);

RoceRethHeader::RoceRethHeader() = default;

TypeId
RoceRethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceRethHeader>();
    return tid;
}

TypeId
RoceRethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceRethHeader::Print(std::ostream& os) const
{
    os << "RETH va=0x" << std::hex << m_va << std::dec << " rkey=" << m_rkey
       << " len=" << m_dmaLength;
}

uint32_t
RoceRethHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceRethHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(m_va);
    start.WriteHtonU32(m_rkey);
    start.WriteHtonU32(m_dmaLength);
}

uint32_t
RoceRethHeader::Deserialize(Buffer::Iterator start)
{
    m_va = start.ReadNtohU64();
    m_rkey = start.ReadNtohU32();
    m_dmaLength = start.ReadNtohU32();
    return SIZE;
}

void
RoceRethHeader::SetVirtualAddress(uint64_t va)
{
    m_va = va;
}

uint64_t
RoceRethHeader::GetVirtualAddress() const
{
    return m_va;
}

void
RoceRethHeader::SetRkey(uint32_t rkey)
{
    m_rkey = rkey;
}

uint32_t
RoceRethHeader::GetRkey() const
{
    return m_rkey;
}

void
RoceRethHeader::SetDmaLength(uint32_t len)
{
    m_dmaLength = len;
}

uint32_t
RoceRethHeader::GetDmaLength() const
{
    return m_dmaLength;
}

} // namespace ns3
