/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_RAW_TRAILER_H
#define ROCE_RAW_TRAILER_H

#include "roce-icrc-trailer.h"
#include "roce-int-record.h"

#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A frame's last bytes, carried verbatim: how INT records and the
 * ICRC behind them are appended, read and echoed in one buffer operation
 * instead of one typed trailer each (RoceRawHeader is the same for a frame's
 * first bytes). Deserialize reads the size set with SetSize().
 */
class RoceRawTrailer : public Trailer
{
  public:
    /** Most bytes one trailer holds: MAX_HOPS INT records and the ICRC. */
    static constexpr uint32_t MAX_SIZE =
        RoceIntRecord::MAX_HOPS * RoceIntRecord::SIZE + RoceIcrcTrailer::SIZE;

    RoceRawTrailer();
    /**
     * \param bytes the bytes to carry
     * \param size how many (at most MAX_SIZE)
     */
    RoceRawTrailer(const uint8_t* bytes, uint32_t size);

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

    /** \param size bytes Deserialize reads (at most MAX_SIZE) */
    void SetSize(uint32_t size);
    /** \return the bytes carried */
    const uint8_t* GetBytes() const;

  private:
    uint8_t m_bytes[MAX_SIZE];
    uint32_t m_size{0};
};

} // namespace ns3

#endif /* ROCE_RAW_TRAILER_H */
