/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Fixtures shared by the switch-buffer unit tests (roce-shared-buffer-mmu-test.cc and
// roce-shared-buffer-mmu-pfc-test.cc).

#ifndef ROCE_SHARED_BUFFER_MMU_TEST_UTIL_H
#define ROCE_SHARED_BUFFER_MMU_TEST_UTIL_H

#include "ns3/double.h"
#include "ns3/roce-shared-buffer-mmu.h"

#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

namespace rocev2_mmu_test
{

using namespace ns3;

using Link = RoceSharedBufferMmu::PortLink;
using Pool = RoceSharedBufferMmu::Pool;

inline QueueSizeValue
Bytes(uint64_t n)
{
    return QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(n)));
}

inline std::vector<Link>
Links(uint32_t n, const char* rate = "100Gbps", Time delay = MicroSeconds(1))
{
    return std::vector<Link>(n, Link{DataRate(rate), delay});
}

/** Headroom formula for a 100 Gb/s, 1 us link with the default 4200 B frames
 * and 1 us PFC response: 2 * 12.5e9 B/s * 1e-6 s + 2 * 4200 B + 12.5e9 B/s *
 * 1e-6 s. */
constexpr uint64_t FORMULA_100G_1US = 25000 + 8400 + 12500;

/** The headroom the MMU sets aside per lossless PG for a 100 Gb/s, 1 us link
 * with default attributes. Tests of pool sizes and thresholds build on it, so
 * that they hold independently of how the formula is rounded. */
inline uint64_t
H100()
{
    auto probe = CreateObject<RoceSharedBufferMmu>();
    probe->Configure(Links(1));
    return probe->GetHeadroom(0);
}

/** One port at 100 Gb/s, 1 us, lossless priority 3, a shared pool of exactly
 * `pool` bytes (no reserves). */
inline Ptr<RoceSharedBufferMmu>
OnePortMmu(uint64_t pool, double alpha)
{
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(pool + H100()));
    mmu->SetAttribute("Alpha", DoubleValue(alpha));
    mmu->Configure(Links(1));
    EXPECT_EQ(mmu->GetSharedPoolSize(), pool);
    return mmu;
}

inline bool
IsReason(const char* reason, const char* expected)
{
    return reason != nullptr && std::strcmp(reason, expected) == 0;
}

/** Shared bytes of a PG with no reserve. */
inline uint64_t
SharedBytes(const Ptr<RoceSharedBufferMmu>& mmu, uint32_t port, uint8_t pg)
{
    return mmu->GetPgBytes(port, pg) - mmu->GetPgHeadroomBytes(port, pg);
}

} // namespace rocev2_mmu_test

#endif /* ROCE_SHARED_BUFFER_MMU_TEST_UTIL_H */
