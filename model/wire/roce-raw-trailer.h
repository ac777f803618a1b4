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
 * \brief Read n bytes at an iterator, four at a time where it can:
 * Buffer::Iterator::Read() checks the buffer's zero area once per byte, its
 * 32-bit read once per word.
 * \param i where (moves past the bytes)
 * \param out where the bytes go
 * \param n how many
 */
inline void
RoceReadBytes(Buffer::Iterator& i, uint8_t* out, uint32_t n)
{
    uint32_t k = 0;
    for (; k + 4 <= n; k += 4)
    {
        const uint32_t w = i.ReadNtohU32();
        out[k] = static_cast<uint8_t>(w >> 24);
        out[k + 1] = static_cast<uint8_t>(w >> 16);
        out[k + 2] = static_cast<uint8_t>(w >> 8);
        out[k + 3] = static_cast<uint8_t>(w);
    }
    for (; k < n; ++k)
    {
        out[k] = i.ReadU8();
    }
}

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
    /**
     * Most bytes one trailer holds: a PINT digest (2 bytes, RocePintDigest::SIZE),
     * MAX_HOPS INT records and the ICRC.
     */
    static constexpr uint32_t MAX_SIZE =
        2 + RoceIntRecord::MAX_HOPS * RoceIntRecord::SIZE + RoceIcrcTrailer::SIZE;

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
    /** \return the bytes carried, to change in place (GetSerializedSize() of them) */
    uint8_t* GetBytes();

  private:
    uint8_t m_bytes[MAX_SIZE];
    uint32_t m_size{0};
};

} // namespace ns3

#endif /* ROCE_RAW_TRAILER_H */
