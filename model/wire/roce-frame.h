/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FRAME_H
#define ROCE_FRAME_H

#include "roce-wire-frame.h"

#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * The number of 802.1p priorities: PFC classes in a pause frame, PFC state per
 * port, priority groups per switch port in the MMU, egress queues per port and
 * NIC scheduling classes.
 */
static constexpr uint32_t ROCE_NUM_PRIORITIES = 8;

/**
 * \ingroup rocev2
 * \brief The fields of a frame that forwarding, scheduling and marking need,
 * read from its first bytes in one copy.
 *
 * A frame is parsed once per device it enters: one CopyData() of at most
 * PARSE_BYTES bytes and fixed-offset reads. No Header objects are built and
 * the packet is not modified, so switches forward without touching the
 * packet's buffer. The BTH fields and the 4 bytes after the BTH (the AETH of
 * an ACK) are kept too, so that the receiving NIC needs no second parse: it
 * strips the headers with one RemoveAtStart().
 */
struct RoceFrame
{
    static constexpr uint32_t ETH_BYTES = 14;          //!< Ethernet II header
    static constexpr uint32_t IPV4_BYTES = 20;         //!< IPv4 header without options
    static constexpr uint32_t UDP_BYTES = 8;           //!< UDP header
    static constexpr uint32_t BTH_BYTES = 12;          //!< InfiniBand BTH
    static constexpr uint16_t ETHERTYPE_IPV4 = 0x0800; //!< IPv4 EtherType
    static constexpr uint16_t ROCEV2_UDP_PORT = 4791;  //!< RoCEv2 destination port
    static constexpr uint32_t AETH_BYTES = 4;          //!< InfiniBand AETH
    static constexpr uint32_t HEADER_BYTES =
        ETH_BYTES + IPV4_BYTES + UDP_BYTES + BTH_BYTES; //!< bytes up to the end of the BTH
    static constexpr uint32_t PARSE_BYTES = HEADER_BYTES + AETH_BYTES; //!< bytes read per frame
    static constexpr uint32_t ECN_OFFSET = ETH_BYTES + 1; //!< byte holding DSCP and ECN

    uint16_t etherType{0};   //!< EtherType
    uint8_t dscp{0};         //!< IPv4 DSCP (0 if not IPv4)
    uint8_t ecn{0};          //!< IPv4 ECN codepoint (0 if not IPv4)
    uint8_t ipProto{0};      //!< IPv4 protocol
    uint32_t srcIp{0};       //!< IPv4 source, host order
    uint32_t dstIp{0};       //!< IPv4 destination, host order
    uint16_t sport{0};       //!< UDP source port
    uint16_t dport{0};       //!< UDP destination port
    uint8_t opcode{0};       //!< BTH opcode (RoCE frames only)
    uint32_t destQp{0};      //!< BTH destination QP (RoCE frames only)
    bool intRequest{false};  //!< BTH asks switches for INT records
    uint8_t bthFlags{0};     //!< BTH byte 1: SE, M, PadCnt, TVer
    uint8_t bthByte4{0};     //!< BTH byte 4: FECN, BECN, INT request, INT hops
    uint16_t pkey{0};        //!< BTH P_Key
    bool ackReq{false};      //!< BTH AckReq
    bool pintRequest{false}; //!< BTH byte 8 bit 6: a PINT digest before the ICRC
    uint32_t psn{0};         //!< BTH PSN
    bool hasAeth{false};     //!< the frame holds AETH_BYTES after the BTH
    uint32_t aeth{0};        //!< those bytes, big-endian: syndrome << 24 | MSN
    bool isIpv4{false};      //!< IPv4 frame with a 20-byte header
    bool isRoce{false};      //!< IPv4/UDP to port 4791 with a BTH

    /**
     * \brief Read the fields of a frame.
     * \param p the frame, starting with its Ethernet header
     * \return the parsed fields
     */
    static RoceFrame Parse(const Packet& p)
    {
        uint8_t b[PARSE_BYTES];
        return Parse(b, p.CopyData(b, PARSE_BYTES));
    }

    /**
     * \brief Read the fields of a frame.
     * \param p the frame, starting with its Ethernet header
     * \return the parsed fields
     */
    static RoceFrame Parse(const RoceWireFrame& p)
    {
        uint8_t b[PARSE_BYTES];
        return Parse(b, p.CopyData(b, PARSE_BYTES));
    }

    /**
     * \brief Read the fields of a frame's first bytes.
     * \param b the bytes
     * \param n how many (at most PARSE_BYTES are read)
     * \return the parsed fields
     */
    static RoceFrame Parse(const uint8_t* b, uint32_t n)
    {
        RoceFrame f;
        if (n < ETH_BYTES)
        {
            return f;
        }
        f.etherType = static_cast<uint16_t>((b[12] << 8) | b[13]);
        if (f.etherType != ETHERTYPE_IPV4 || n < ETH_BYTES + IPV4_BYTES || (b[14] >> 4) != 4 ||
            (b[14] & 0x0F) != 5)
        {
            return f;
        }
        const uint8_t* ip = b + ETH_BYTES;
        f.isIpv4 = true;
        f.dscp = ip[1] >> 2;
        f.ecn = ip[1] & 0x3;
        f.ipProto = ip[9];
        f.srcIp =
            (uint32_t(ip[12]) << 24) | (uint32_t(ip[13]) << 16) | (uint32_t(ip[14]) << 8) | ip[15];
        f.dstIp =
            (uint32_t(ip[16]) << 24) | (uint32_t(ip[17]) << 16) | (uint32_t(ip[18]) << 8) | ip[19];
        if (f.ipProto != 17 || n < ETH_BYTES + IPV4_BYTES + UDP_BYTES)
        {
            return f;
        }
        const uint8_t* udp = ip + IPV4_BYTES;
        f.sport = static_cast<uint16_t>((udp[0] << 8) | udp[1]);
        f.dport = static_cast<uint16_t>((udp[2] << 8) | udp[3]);
        if (f.dport != ROCEV2_UDP_PORT || n < HEADER_BYTES)
        {
            return f;
        }
        const uint8_t* bth = udp + UDP_BYTES;
        f.isRoce = true;
        f.opcode = bth[0];
        f.destQp = (uint32_t(bth[5]) << 16) | (uint32_t(bth[6]) << 8) | bth[7];
        f.bthFlags = bth[1];
        f.pkey = static_cast<uint16_t>((bth[2] << 8) | bth[3]);
        f.bthByte4 = bth[4];
        f.intRequest = (bth[4] & 0x20) != 0;
        f.ackReq = (bth[8] & 0x80) != 0;
        f.pintRequest = (bth[8] & 0x40) != 0;
        f.psn = (uint32_t(bth[9]) << 16) | (uint32_t(bth[10]) << 8) | bth[11];
        if (n == PARSE_BYTES)
        {
            const uint8_t* a = bth + BTH_BYTES;
            f.hasAeth = true;
            f.aeth = (uint32_t(a[0]) << 24) | (uint32_t(a[1]) << 16) | (uint32_t(a[2]) << 8) | a[3];
        }
        return f;
    }
};

} // namespace ns3

#endif /* ROCE_FRAME_H */
