/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_AETH_HEADER_H
#define ROCE_AETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief ACK Extended Transport Header (4 bytes): syndrome and 24-bit MSN.
 *
 * Syndrome bits 7-5 give the type (000 ACK, 001 RNR-NAK, 011 NAK); bits 4-0
 * give the credit count, RNR timer or NAK code (0 = PSN sequence error).
 */
class RoceAethHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 4; //!< serialized size in bytes

    /** Acknowledgement types (syndrome bits 7-5). */
    enum Type : uint8_t
    {
        ACK = 0,
        RNR_NAK = 1,
        NAK = 3,
    };

    /** NAK codes (syndrome bits 4-0 when the type is NAK). */
    enum NakCode : uint8_t
    {
        PSN_SEQUENCE_ERROR = 0,
        INVALID_REQUEST = 1,
        REMOTE_ACCESS_ERROR = 2,
        REMOTE_OPERATIONAL_ERROR = 3,
    };

    RoceAethHeader();

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

    /** \param syndrome the raw syndrome byte */
    void SetSyndrome(uint8_t syndrome);
    /** \return the raw syndrome byte */
    uint8_t GetSyndrome() const;
    /** \param type type, code: sets the syndrome from its two parts */
    void SetType(Type type, uint8_t code);
    /** \return the acknowledgement type (bits 7-5) */
    uint8_t GetType() const;
    /** \return the low five syndrome bits (credit, timer or NAK code) */
    uint8_t GetCode() const;
    /** \return true if this is a NAK */
    bool IsNak() const;
    /** \param msn message sequence number; only the low 24 bits are kept */
    void SetMsn(uint32_t msn);
    /** \return message sequence number (24 bit) */
    uint32_t GetMsn() const;

  private:
    uint8_t m_syndrome{0};
    uint32_t m_msn{0};
};

} // namespace ns3

#endif /* ROCE_AETH_HEADER_H */
