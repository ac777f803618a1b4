/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_BTH_HEADER_H
#define ROCE_BTH_HEADER_H

#include "ns3/header.h"
#include "ns3/ipv4-address.h"

#include <cstdint>

/**
 * \defgroup rocev2 RoCEv2 fabrics
 *
 * RoCEv2 NICs with reliable-connected queue pairs, PFC-capable switches with
 * shared-buffer MMUs, ECN marking, ECMP forwarding and pluggable congestion
 * control.
 */

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief InfiniBand Base Transport Header (12 bytes), as carried by RoCEv2 over UDP 4791.
 *
 * Layout (network byte order): OpCode | SE,M,PadCnt,TVer | P_Key | FECN,BECN,resv |
 * DestQP (24 bit) | AckReq,resv | PSN (24 bit).
 */
class RoceBthHeader : public Header
{
  public:
    /** RC opcodes (IBTA vol. 1, table 38) and the RoCEv2 CNP. */
    enum Opcode : uint8_t
    {
        SEND_FIRST = 0x00,
        SEND_MIDDLE = 0x01,
        SEND_LAST = 0x02,
        SEND_ONLY = 0x04,
        WRITE_FIRST = 0x06,
        WRITE_MIDDLE = 0x07,
        WRITE_LAST = 0x08,
        WRITE_ONLY = 0x0A,
        READ_REQUEST = 0x0C,
        ACKNOWLEDGE = 0x11,
        CNP = 0x81,
    };

    static constexpr uint32_t SIZE = 12;           //!< serialized size in bytes
    static constexpr uint32_t QPN_MASK = 0xFFFFFF; //!< 24-bit QP number
    /// First QP number a NIC assigns (QP0 and QP1 are special in InfiniBand).
    static constexpr uint32_t FIRST_QPN = 2;

    /**
     * \brief The QP number a NIC gives its slot-th QP (FIRST_QPN + slot).
     * \param slot how many QPs the NIC numbered before
     * \param nic the NIC's address, for the error
     * \return the QP number; a RoceError when it would not fit in 24 bits
     */
    static uint32_t QpnOfSlot(uint64_t slot, Ipv4Address nic);
    static constexpr uint32_t PSN_MASK = 0xFFFFFF; //!< 24-bit PSN

    RoceBthHeader();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /** \param op the opcode */
    void SetOpcode(uint8_t op);
    /** \return the opcode */
    uint8_t GetOpcode() const;
    /** \param se solicited event bit */
    void SetSolicitedEvent(bool se);
    /** \return solicited event bit */
    bool GetSolicitedEvent() const;
    /** \param m migration request bit */
    void SetMigReq(bool m);
    /** \return migration request bit */
    bool GetMigReq() const;
    /** \param pad pad count (0..3) */
    void SetPadCount(uint8_t pad);
    /** \return pad count */
    uint8_t GetPadCount() const;
    /** \return transport header version (0) */
    uint8_t GetTver() const;
    /** \param pkey partition key */
    void SetPkey(uint16_t pkey);
    /** \return partition key */
    uint16_t GetPkey() const;
    /** \param fecn forward ECN bit (byte 4, bit 7) */
    void SetFecn(bool fecn);
    /** \return forward ECN bit */
    bool GetFecn() const;
    /** \param becn backward ECN bit (byte 4, bit 6) */
    void SetBecn(bool becn);
    /** \return backward ECN bit */
    bool GetBecn() const;
    /** \param request ask switches for INT records (byte 4, bit 5; see RoceIntRecord) */
    void SetIntRequest(bool request);
    /** \return true if the packet asks for INT records */
    bool GetIntRequest() const;
    /** \param hops INT records the packet carries (byte 4, bits 4-0; 0..31) */
    void SetIntHops(uint8_t hops);
    /** \return INT records the packet carries */
    uint8_t GetIntHops() const;
    /** \param qpn destination QP number; only the low 24 bits are kept */
    void SetDestQp(uint32_t qpn);
    /** \return destination QP number (24 bit) */
    uint32_t GetDestQp() const;
    /** \param ackReq acknowledge request bit */
    void SetAckReq(bool ackReq);
    /** \return acknowledge request bit */
    bool GetAckReq() const;
    /** \param request ask switches for the PINT digest (byte 8, bit 6; see RocePintDigest) */
    void SetPintRequest(bool request);
    /** \return true if the packet carries a PINT digest */
    bool GetPintRequest() const;
    /** \param psn packet sequence number; only the low 24 bits are kept */
    void SetPsn(uint32_t psn);
    /** \return packet sequence number (24 bit) */
    uint32_t GetPsn() const;

    /**
     * \param op an opcode
     * \return true if op is an RC SEND or RDMA WRITE data opcode
     */
    static bool IsData(uint8_t op);
    /**
     * \param op an opcode
     * \return true if op starts a message (FIRST or ONLY)
     */
    static bool IsFirst(uint8_t op);
    /**
     * \param op an opcode
     * \return true if op ends a message (LAST or ONLY)
     */
    static bool IsLast(uint8_t op);
    /**
     * \param op an opcode
     * \return a short name such as "WRITE_FIRST"
     */
    static const char* OpcodeName(uint8_t op);

  private:
    uint8_t m_opcode{0};
    uint8_t m_flags{0}; //!< SE(7) M(6) PadCnt(5-4) TVer(3-0)
    uint16_t m_pkey{0xFFFF};
    uint8_t m_ecnBits{0}; //!< FECN(7) BECN(6) INT request(5) INT hops(4-0)
    uint32_t m_destQp{0};
    bool m_ackReq{false};
    bool m_pintRequest{false};
    uint32_t m_psn{0};
};

} // namespace ns3

#endif /* ROCE_BTH_HEADER_H */
