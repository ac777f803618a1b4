/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_ECMP_HASH_H
#define ROCE_ECMP_HASH_H

#include "ns3/roce-hash.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The ECMP flow hash of RoceSwitch.
 *
 * Fields: source and destination IPv4 address, UDP source and destination
 * port, IP protocol, and (E-ECMP) the BTH destination QP. Each field word is
 * folded into a 64-bit state that starts from the switch's seed, and each fold
 * is followed by the module's mixer, RoceHash::Mix64 (MurmurHash3's fmix64). The result is a
 * pure function of its inputs, so it is the same on every run and platform,
 * and switches with different seeds choose independently.
 */
namespace RoceEcmpHash
{

/**
 * \brief Hash a flow.
 * \param seed the switch's seed
 * \param srcIp source address
 * \param dstIp destination address
 * \param sport UDP source port
 * \param dport UDP destination port
 * \param proto IP protocol
 * \param useQp true for E-ECMP (also hash the destination QP)
 * \param destQp BTH destination QP
 * \return the 64-bit hash
 */
inline uint64_t
Hash(uint64_t seed,
     uint32_t srcIp,
     uint32_t dstIp,
     uint16_t sport,
     uint16_t dport,
     uint8_t proto,
     bool useQp,
     uint32_t destQp)
{
    uint64_t h = RoceHash::Mix64(seed ^ 0x9e3779b97f4a7c15ULL);
    h = RoceHash::Mix64(h ^ ((uint64_t(srcIp) << 32) | dstIp));
    h = RoceHash::Mix64(h ^ ((uint64_t(sport) << 32) | (uint64_t(dport) << 8) | proto));
    if (useQp)
    {
        h = RoceHash::Mix64(h ^ (uint64_t(destQp) | (1ULL << 40)));
    }
    return h;
}

/**
 * \brief Map a hash onto n choices without modulo bias worth noticing
 * (multiply-high of the upper 32 bits).
 * \param h a hash
 * \param n number of choices (> 0)
 * \return an index in [0, n)
 */
inline uint32_t
Select(uint64_t h, uint32_t n)
{
    return static_cast<uint32_t>(((h >> 32) * uint64_t(n)) >> 32);
}

} // namespace RoceEcmpHash
} // namespace ns3

#endif /* ROCE_ECMP_HASH_H */
