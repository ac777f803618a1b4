/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_ICRC_TRAILER_H
#define ROCE_ICRC_TRAILER_H

#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The 4-byte invariant CRC that ends every RoCEv2 packet.
 *
 * The module carries the four bytes so that frame sizes and serialization
 * times are exact. It does not compute the CRC over the payload (payload bytes
 * are not materialised in simulation); the value is whatever the sender set,
 * 0 by default, and Wireshark may flag it as wrong.
 */
class RoceIcrcTrailer : public Trailer
{
  public:
    static constexpr uint32_t SIZE = 4; //!< serialized size in bytes

    RoceIcrcTrailer();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator end) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;

    /** \param icrc the CRC value to carry */
    void SetIcrc(uint32_t icrc);
    /** \return the CRC value carried */
    uint32_t GetIcrc() const;

  private:
    uint32_t m_icrc{0};
};

} // namespace ns3

#endif /* ROCE_ICRC_TRAILER_H */
