/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_PSN_H
#define ROCE_PSN_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief 24-bit packet sequence number arithmetic.
 *
 * Queue pairs count packets with 64-bit sequence numbers internally and put
 * the low 24 bits on the wire. A receiver turns a wire PSN back into a 64-bit
 * sequence number with Unwrap(), relative to the one it expects next; the
 * distance must stay within +/- 2^23, which the sender's in-flight limit
 * guarantees.
 */
namespace RocePsn
{

static constexpr uint32_t MASK = 0xFFFFFF; //!< 24-bit PSN space
static constexpr uint32_t HALF = 0x800000; //!< half the PSN space

/**
 * \param seq a 64-bit sequence number
 * \return its 24-bit wire PSN
 */
inline uint32_t
ToWire(uint64_t seq)
{
    return static_cast<uint32_t>(seq) & MASK;
}

/**
 * \param a wire PSN
 * \param b wire PSN
 * \return the signed distance a - b in the 24-bit space, in [-2^23, 2^23)
 */
inline int32_t
Diff(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & MASK;
    return d >= HALF ? static_cast<int32_t>(d) - static_cast<int32_t>(MASK + 1)
                     : static_cast<int32_t>(d);
}

/**
 * \param wire a 24-bit PSN from the wire
 * \param reference the 64-bit sequence number it is compared with
 * \return the 64-bit sequence number closest to reference whose low 24 bits are wire
 */
inline uint64_t
Unwrap(uint32_t wire, uint64_t reference)
{
    int64_t d = Diff(wire, ToWire(reference));
    return static_cast<uint64_t>(static_cast<int64_t>(reference) + d);
}

} // namespace RocePsn
} // namespace ns3

#endif /* ROCE_PSN_H */
