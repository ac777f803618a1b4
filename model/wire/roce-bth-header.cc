/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-bth-header.h"

#include "roce-pint-digest.h"

#include "ns3/roce-error.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceBthHeader);

RoceBthHeader::RoceBthHeader() = default;

TypeId
RoceBthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceBthHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceBthHeader>();
    return tid;
}

TypeId
RoceBthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceBthHeader::Print(std::ostream& os) const
{
    os << "BTH " << OpcodeName(m_opcode) << " dqp=" << m_destQp << " psn=" << m_psn
       << (m_ackReq ? " A" : "") << (m_pintRequest ? " PINT" : "") << (GetFecn() ? " FECN" : "")
       << (GetBecn() ? " BECN" : "");
}

uint32_t
RoceBthHeader::GetSerializedSize() const
{
    return SIZE;
}

void
RoceBthHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(m_opcode);
    start.WriteU8(m_flags);
    start.WriteHtonU16(m_pkey);
    start.WriteU8(m_ecnBits);
    start.WriteU8((m_destQp >> 16) & 0xFF);
    start.WriteHtonU16(m_destQp & 0xFFFF);
    start.WriteU8((m_ackReq ? 0x80 : 0x00) | (m_pintRequest ? RocePintDigest::REQUEST_BIT : 0));
    start.WriteU8((m_psn >> 16) & 0xFF);
    start.WriteHtonU16(m_psn & 0xFFFF);
}

uint32_t
RoceBthHeader::Deserialize(Buffer::Iterator start)
{
    m_opcode = start.ReadU8();
    m_flags = start.ReadU8();
    m_pkey = start.ReadNtohU16();
    m_ecnBits = start.ReadU8();
    uint32_t hi = start.ReadU8();
    m_destQp = (hi << 16) | start.ReadNtohU16();
    const uint8_t b8 = start.ReadU8();
    m_ackReq = (b8 & 0x80) != 0;
    m_pintRequest = (b8 & RocePintDigest::REQUEST_BIT) != 0;
    hi = start.ReadU8();
    m_psn = (hi << 16) | start.ReadNtohU16();
    return SIZE;
}

void
RoceBthHeader::SetOpcode(uint8_t op)
{
    m_opcode = op;
}

uint8_t
RoceBthHeader::GetOpcode() const
{
    return m_opcode;
}

void
RoceBthHeader::SetSolicitedEvent(bool se)
{
    m_flags = (m_flags & 0x7F) | (se ? 0x80 : 0);
}

bool
RoceBthHeader::GetSolicitedEvent() const
{
    return (m_flags & 0x80) != 0;
}

void
RoceBthHeader::SetMigReq(bool m)
{
    m_flags = (m_flags & 0xBF) | (m ? 0x40 : 0);
}

bool
RoceBthHeader::GetMigReq() const
{
    return (m_flags & 0x40) != 0;
}

void
RoceBthHeader::SetPadCount(uint8_t pad)
{
    ROCE_ERROR_IF(pad > 3, "RoceBthHeader: PadCnt " << +pad << " out of range 0..3");
    m_flags = (m_flags & 0xCF) | (pad << 4);
}

uint8_t
RoceBthHeader::GetPadCount() const
{
    return (m_flags >> 4) & 0x3;
}

uint8_t
RoceBthHeader::GetTver() const
{
    return m_flags & 0x0F;
}

void
RoceBthHeader::SetPkey(uint16_t pkey)
{
    m_pkey = pkey;
}

uint16_t
RoceBthHeader::GetPkey() const
{
    return m_pkey;
}

void
RoceBthHeader::SetFecn(bool fecn)
{
    m_ecnBits = (m_ecnBits & 0x7F) | (fecn ? 0x80 : 0);
}

bool
RoceBthHeader::GetFecn() const
{
    return (m_ecnBits & 0x80) != 0;
}

void
RoceBthHeader::SetBecn(bool becn)
{
    m_ecnBits = (m_ecnBits & 0xBF) | (becn ? 0x40 : 0);
}

bool
RoceBthHeader::GetBecn() const
{
    return (m_ecnBits & 0x40) != 0;
}

void
RoceBthHeader::SetIntRequest(bool request)
{
    m_ecnBits = (m_ecnBits & 0xDF) | (request ? 0x20 : 0);
}

bool
RoceBthHeader::GetIntRequest() const
{
    return (m_ecnBits & 0x20) != 0;
}

void
RoceBthHeader::SetIntHops(uint8_t hops)
{
    ROCE_ERROR_IF(hops > 31, "RoceBthHeader: INT hop count " << +hops << " out of range 0..31");
    m_ecnBits = (m_ecnBits & 0xE0) | hops;
}

uint8_t
RoceBthHeader::GetIntHops() const
{
    return m_ecnBits & 0x1F;
}

void
RoceBthHeader::SetDestQp(uint32_t qpn)
{
    m_destQp = qpn & QPN_MASK;
}

uint32_t
RoceBthHeader::GetDestQp() const
{
    return m_destQp;
}

void
RoceBthHeader::SetAckReq(bool ackReq)
{
    m_ackReq = ackReq;
}

bool
RoceBthHeader::GetAckReq() const
{
    return m_ackReq;
}

void
RoceBthHeader::SetPintRequest(bool request)
{
    m_pintRequest = request;
}

bool
RoceBthHeader::GetPintRequest() const
{
    return m_pintRequest;
}

void
RoceBthHeader::SetPsn(uint32_t psn)
{
    m_psn = psn & PSN_MASK;
}

uint32_t
RoceBthHeader::GetPsn() const
{
    return m_psn;
}

bool
RoceBthHeader::IsData(uint8_t op)
{
    return op <= WRITE_ONLY && op != 0x03 && op != 0x05 && op != 0x09;
}

bool
RoceBthHeader::IsFirst(uint8_t op)
{
    return op == SEND_FIRST || op == SEND_ONLY || op == WRITE_FIRST || op == WRITE_ONLY;
}

bool
RoceBthHeader::IsLast(uint8_t op)
{
    return op == SEND_LAST || op == SEND_ONLY || op == WRITE_LAST || op == WRITE_ONLY;
}

const char*
RoceBthHeader::OpcodeName(uint8_t op)
{
    switch (op)
    {
    case SEND_FIRST:
        return "SEND_FIRST";
    case SEND_MIDDLE:
        return "SEND_MIDDLE";
    case SEND_LAST:
        return "SEND_LAST";
    case SEND_ONLY:
        return "SEND_ONLY";
    case WRITE_FIRST:
        return "WRITE_FIRST";
    case WRITE_MIDDLE:
        return "WRITE_MIDDLE";
    case WRITE_LAST:
        return "WRITE_LAST";
    case WRITE_ONLY:
        return "WRITE_ONLY";
    case READ_REQUEST:
        return "READ_REQUEST";
    case ACKNOWLEDGE:
        return "ACK";
    case CNP:
        return "CNP";
    default:
        return "UNKNOWN";
    }
}

uint32_t
RoceBthHeader::QpnOfSlot(uint64_t slot, Ipv4Address nic)
{
    ROCE_ERROR_IF(slot + FIRST_QPN > QPN_MASK,
                  "NIC " << nic << ": no QP numbers left (" << QPN_MASK - FIRST_QPN + 1
                         << " numbered, 24 bits)");
    return static_cast<uint32_t>(FIRST_QPN + slot);
}

} // namespace ns3
