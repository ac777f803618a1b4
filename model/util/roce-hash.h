/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HASH_H
#define ROCE_HASH_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The module's one 64-bit mixer.
 *
 * Everything that turns identifiers into well-spread bits uses it: the ECMP
 * flow hash and switch seeds (RoceEcmpHash), and the UDP source port a queue
 * pair picks for its flow.
 */
namespace RoceHash
{

/**
 * \brief MurmurHash3's 64-bit finalizer (fmix64): xor-shift 33, multiply by
 * 0xff51afd7ed558ccd, xor-shift 33, multiply by 0xc4ceb9fe1a85ec53,
 * xor-shift 33. Full avalanche: every input bit flips each output bit with
 * probability close to 1/2. A pure function, the same on every run and
 * platform.
 * \param x a 64-bit word
 * \return fmix64(x)
 */
inline uint64_t
Mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

} // namespace RoceHash
} // namespace ns3

#endif /* ROCE_HASH_H */
