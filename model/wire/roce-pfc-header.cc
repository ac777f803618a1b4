/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-pfc-header.h"

#include "ns3/roce-error.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RocePfcHeader);

RocePfcHeader::RocePfcHeader() = default;

TypeId
RocePfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RocePfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RocePfcHeader>();
    return tid;
}

TypeId
RocePfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RocePfcHeader::Print(std::ostream& os) const
{
    os << "PFC cev=0x" << std::hex << m_classEnable << std::dec;
    for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << +p << "=" << m_quanta[p];
        }
    }
}

uint32_t
RocePfcHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RocePfcHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU16(m_opcode);
    start.WriteHtonU16(m_classEnable);
    for (uint16_t q : m_quanta)
    {
        start.WriteHtonU16(q);
    }
    start.WriteU8(0, SIZE - BODY_SIZE);
}

uint32_t
RocePfcHeader::Deserialize(Buffer::Iterator start)
{
    m_opcode = start.ReadNtohU16();
    m_classEnable = start.ReadNtohU16();
    for (auto& q : m_quanta)
    {
        q = start.ReadNtohU16();
    }
    start.Next(SIZE - BODY_SIZE);
    return SIZE;
}

void
RocePfcHeader::SetPause(uint8_t priority, uint16_t quanta)
{
    ROCE_ERROR_IF(priority >= ROCE_NUM_PRIORITIES,
                  "RocePfcHeader: priority " << +priority << " out of range 0..7");
    m_classEnable |= (1u << priority);
    m_quanta[priority] = quanta;
}

uint16_t
RocePfcHeader::GetClassEnable() const
{
    return m_classEnable;
}

bool
RocePfcHeader::IsEnabled(uint8_t priority) const
{
    return priority < ROCE_NUM_PRIORITIES && (m_classEnable & (1u << priority)) != 0;
}

uint16_t
RocePfcHeader::GetQuanta(uint8_t priority) const
{
    return priority < ROCE_NUM_PRIORITIES ? m_quanta[priority] : 0;
}

uint16_t
RocePfcHeader::GetOpcode() const
{
    return m_opcode;
}

} // namespace ns3
