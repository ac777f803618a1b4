/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HEADER_BLOCK_H
#define ROCE_HEADER_BLOCK_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

class RoceEncapHeader;
class RoceBthHeader;

/**
 * \ingroup rocev2
 * \brief The leading headers of a RoCEv2 frame as one header: Ethernet II,
 * IPv4 and UDP (RoceEncapHeader), BTH, and optionally a RETH (16 B, first
 * packet of an RDMA WRITE) or an AETH (4 B, ACK/NAK).
 *
 * The bytes are those of RoceEncapHeader, RoceBthHeader and
 * RoceRethHeader/RoceAethHeader added one after the other: SetEncap() and
 * SetBth() serialize those classes once into a fixed array, and the
 * per-packet setters patch single fields in place. A NIC keeps one block
 * per queue pair and frame kind as a template, so a packet costs one
 * AddHeader() instead of one per header.
 *
 * As with RoceEncapHeader, the IPv4 total length, the UDP length and the
 * IPv4 header checksum are taken from the packet when the block is
 * serialized: Serialize() copies the array and patches those three fields,
 * the checksum incrementally from a sum of the fields that do not change.
 * The IPv4 identification is always 0 (DF is set).
 */
class RoceHeaderBlock : public Header
{
  public:
    static constexpr uint32_t ENCAP_BYTES = 42; //!< Ethernet + IPv4 + UDP
    static constexpr uint32_t BTH_OFFSET = ENCAP_BYTES;
    static constexpr uint32_t BASE_BYTES = ENCAP_BYTES + 12; //!< up to the end of the BTH
    static constexpr uint32_t RETH_BYTES = 16;               //!< RDMA extended transport header
    static constexpr uint32_t AETH_BYTES = 4;                //!< ACK extended transport header
    static constexpr uint32_t MAX_BYTES = BASE_BYTES + RETH_BYTES; //!< the largest block

    /** What follows the BTH. */
    enum Extension : uint8_t
    {
        NONE = 0, //!< nothing: the payload
        RETH = 1, //!< an RETH
        AETH = 2, //!< an AETH
    };

    RoceHeaderBlock();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;

    /**
     * \brief The block's bytes as Serialize() writes them in front of the
     * rest of a frame: IPv4 total length, its checksum and UDP length for a
     * frame of `total` bytes.
     * \param out where the GetSerializedSize() bytes go
     * \param total the frame's bytes from the block's start to its end
     */
    void Write(uint8_t* out, uint32_t total) const;
    /**
     * Reads the encapsulation and the BTH, then an RETH if the opcode is
     * WRITE_FIRST or WRITE_ONLY, or an AETH if it is ACK.
     * \param start where the frame begins
     * \return bytes read
     */
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * \brief Set the Ethernet, IPv4 and UDP bytes (lengths are filled in
     * when serializing).
     * \param encap the encapsulation
     */
    void SetEncap(const RoceEncapHeader& encap);
    /** \param bth the BTH, serialized into the block as it is */
    void SetBth(const RoceBthHeader& bth);

    /** \param op BTH opcode */
    void SetOpcode(uint8_t op)
    {
        m_bytes[BTH_OFFSET] = op;
    }

    /** \param pad BTH PadCnt (0..3) */
    void SetPadCount(uint8_t pad)
    {
        uint8_t& b = m_bytes[BTH_OFFSET + 1];
        b = static_cast<uint8_t>((b & 0xCF) | ((pad & 0x3) << 4));
    }

    /** \param request BTH INT-request bit (byte 4, bit 5) */
    void SetIntRequest(bool request)
    {
        uint8_t& b = m_bytes[BTH_OFFSET + 4];
        b = static_cast<uint8_t>((b & 0xDF) | (request ? 0x20 : 0));
    }

    /** \param becn BTH BECN bit (byte 4, bit 6) */
    void SetBecn(bool becn)
    {
        uint8_t& b = m_bytes[BTH_OFFSET + 4];
        b = static_cast<uint8_t>((b & 0xBF) | (becn ? 0x40 : 0));
    }

    /** \param hops BTH INT hop count (byte 4, bits 4-0; 0..31) */
    void SetIntHops(uint8_t hops)
    {
        uint8_t& b = m_bytes[BTH_OFFSET + 4];
        b = static_cast<uint8_t>((b & 0xE0) | (hops & 0x1F));
    }

    /** \param ackReq BTH AckReq bit (byte 8, bit 7) */
    void SetAckReq(bool ackReq)
    {
        uint8_t& b = m_bytes[BTH_OFFSET + 8];
        b = static_cast<uint8_t>((b & 0x7F) | (ackReq ? 0x80 : 0));
    }

    /** \param request BTH PINT-request bit (byte 8, bit 6; see RocePintDigest) */
    void SetPintRequest(bool request)
    {
        uint8_t& b = m_bytes[BTH_OFFSET + 8];
        b = static_cast<uint8_t>((b & 0xBF) | (request ? 0x40 : 0));
    }

    /** \param psn BTH PSN (24 bits) */
    void SetPsn(uint32_t psn)
    {
        m_bytes[BTH_OFFSET + 9] = static_cast<uint8_t>(psn >> 16);
        m_bytes[BTH_OFFSET + 10] = static_cast<uint8_t>(psn >> 8);
        m_bytes[BTH_OFFSET + 11] = static_cast<uint8_t>(psn);
    }

    /** \brief Nothing follows the BTH. */
    void ClearExtension()
    {
        m_size = BASE_BYTES;
    }

    /**
     * \brief An RETH follows the BTH.
     * \param va virtual address
     * \param rkey R_Key
     * \param dmaLength DMA length (the whole message)
     */
    void SetReth(uint64_t va, uint32_t rkey, uint32_t dmaLength);

    /**
     * \brief An AETH follows the BTH.
     * \param syndrome AETH syndrome
     * \param msn message sequence number (24 bits)
     */
    void SetAeth(uint8_t syndrome, uint32_t msn)
    {
        uint8_t* a = m_bytes + BASE_BYTES;
        a[0] = syndrome;
        a[1] = static_cast<uint8_t>(msn >> 16);
        a[2] = static_cast<uint8_t>(msn >> 8);
        a[3] = static_cast<uint8_t>(msn);
        m_size = BASE_BYTES + AETH_BYTES;
    }

    /** \return what follows the BTH */
    Extension GetExtension() const;
    /** \return the BTH opcode */
    uint8_t GetOpcode() const;
    /** \return the BTH PSN */
    uint32_t GetPsn() const;
    /** \return the UDP source port */
    uint16_t GetSourcePort() const;
    /** \return the IPv4 DSCP */
    uint8_t GetDscp() const;

    /** \return the bytes of the block as they are now (lengths and checksum not filled) */
    const uint8_t* GetBytes() const
    {
        return m_bytes;
    }

  private:
    uint8_t m_bytes[MAX_BYTES]{};
    uint32_t m_size{BASE_BYTES};
    uint32_t m_ipSum{0}; //!< one's-complement sum of the IPv4 words but length and checksum
};

} // namespace ns3

#endif /* ROCE_HEADER_BLOCK_H */
