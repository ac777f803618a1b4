/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_ENCAP_HEADER_H
#define ROCE_ENCAP_HEADER_H

#include "ns3/header.h"
#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The RoCEv2 encapsulation in one header: Ethernet II (14 B),
 * IPv4 without options (20 B; DF set, protocol 17, checksum computed) and
 * UDP to port 4791 (8 B; checksum 0, as RoCEv2 allows).
 *
 * The bytes are exactly those of ns-3's EthernetHeader, Ipv4Header and
 * UdpHeader in a row, so pcaps decode the same; writing them in one pass is
 * what keeps the per-packet cost of NICs (every data packet and ACK) and of
 * ECN marking in switches low. Lengths are taken from the packet when the
 * header is serialized.
 */
class RoceEncapHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 42; //!< serialized size in bytes

    RoceEncapHeader();

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

    /** \param src source MAC \param dst destination MAC */
    void SetMacs(Mac48Address src, Mac48Address dst);
    /** \param src source address \param dst destination address */
    void SetAddresses(Ipv4Address src, Ipv4Address dst);
    /** \return the source address */
    Ipv4Address GetSource() const;
    /** \return the destination address */
    Ipv4Address GetDestination() const;
    /** \param dscp DSCP (0..63) */
    void SetDscp(uint8_t dscp);
    /** \return DSCP */
    uint8_t GetDscp() const;
    /** \param ecn ECN codepoint (0..3) */
    void SetEcn(uint8_t ecn);
    /** \return ECN codepoint */
    uint8_t GetEcn() const;
    /** \param sport UDP source port */
    void SetSourcePort(uint16_t sport);
    /** \return UDP source port */
    uint16_t GetSourcePort() const;
    /** \return UDP destination port (4791 unless deserialized otherwise) */
    uint16_t GetDestinationPort() const;
    /** \return the IPv4 total length read by Deserialize */
    uint16_t GetIpTotalLength() const;

    /**
     * \param ipHeader the 20 bytes of an IPv4 header, checksum field included
     * \return the header checksum those bytes should carry
     */
    static uint16_t IpChecksum(const uint8_t* ipHeader);

  private:
    uint8_t m_dstMac[6]{};
    uint8_t m_srcMac[6]{};
    uint32_t m_srcIp{0};
    uint32_t m_dstIp{0};
    uint8_t m_tos{0}; //!< DSCP << 2 | ECN
    uint8_t m_ttl{64};
    uint16_t m_ipTotalLength{0};
    uint16_t m_sport{0};
    uint16_t m_dport{4791};
};

} // namespace ns3

#endif /* ROCE_ENCAP_HEADER_H */
