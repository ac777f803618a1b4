/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The switch buffer (model/switch/roce-shared-buffer-mmu.h): pool sizes, the dynamic and
// static thresholds, PFC XOFF/XON decisions, drop reasons, partitioned
// buffers, accounting that returns to zero, and the losslessness invariant.

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/roce-shared-buffer-mmu.h"
#include "ns3/string.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

using Link = RoceSharedBufferMmu::PortLink;
using Pool = RoceSharedBufferMmu::Pool;

QueueSizeValue
Bytes(uint64_t n)
{
    return QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(n)));
}

std::vector<Link>
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
uint64_t
H100()
{
    auto probe = CreateObject<RoceSharedBufferMmu>();
    probe->Configure(Links(1));
    return probe->GetHeadroom(0);
}

/** One port at 100 Gb/s, 1 us, lossless priority 3, a shared pool of exactly
 * `pool` bytes (no reserves). */
Ptr<RoceSharedBufferMmu>
OnePortMmu(uint64_t pool, double alpha)
{
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(pool + H100()));
    mmu->SetAttribute("Alpha", DoubleValue(alpha));
    mmu->Configure(Links(1));
    EXPECT_EQ(mmu->GetSharedPoolSize(), pool);
    return mmu;
}

bool
IsReason(const char* reason, const char* expected)
{
    return reason != nullptr && std::strcmp(reason, expected) == 0;
}

/** Shared bytes of a PG with no reserve. */
uint64_t
SharedBytes(const Ptr<RoceSharedBufferMmu>& mmu, uint32_t port, uint8_t pg)
{
    return mmu->GetPgBytes(port, pg) - mmu->GetPgHeadroomBytes(port, pg);
}

} // namespace

// Headroom per lossless PG is at least 2 * rate * delay + 2 * MaxFrameSize +
// rate * PfcResponseTime (DESIGN.md section 5: the losslessness invariant
// needs "at least"), and no more than one byte above it. The configurations
// below have whole-byte formulas, so rounding must not take a byte off.
TEST(SharedBufferMmuTest, HeadroomFollowsLinkFormulaPerPort)
{
    auto expectHeadroom = [](const Ptr<RoceSharedBufferMmu>& mmu, uint32_t port, uint64_t formula) {
        EXPECT_GE(mmu->GetHeadroom(port), formula) << "port " << port;
        EXPECT_LE(mmu->GetHeadroom(port), formula + 1) << "port " << port;
    };
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(32000000));
    mmu->Configure({Link{DataRate("25Gbps"), NanoSeconds(500)},
                    Link{DataRate("100Gbps"), MicroSeconds(1)},
                    Link{DataRate("400Gbps"), MicroSeconds(2)},
                    Link{DataRate("400Gbps"), Seconds(0)},
                    Link{DataRate("200Gbps"), NanoSeconds(1500)}});
    // Rates in B/s: 25G = 3.125e9, 100G = 12.5e9, 200G = 25e9, 400G = 50e9.
    expectHeadroom(mmu, 0, 3125 + 8400 + 3125);    // 25G, 500 ns
    expectHeadroom(mmu, 1, FORMULA_100G_1US);      // 100G, 1 us
    expectHeadroom(mmu, 2, 200000 + 8400 + 50000); // 400G, 2 us
    expectHeadroom(mmu, 3, 0 + 8400 + 50000);      // 400G, no wire
    expectHeadroom(mmu, 4, 75000 + 8400 + 25000);  // 200G, 1.5 us

    // Each term scales with its own attribute.
    auto small = CreateObject<RoceSharedBufferMmu>();
    small->SetAttribute("BufferSize", Bytes(32000000));
    small->SetAttribute("MaxFrameSize", Bytes(1500));
    small->SetAttribute("PfcResponseTime", TimeValue(Seconds(0)));
    small->Configure(Links(2, "100Gbps", MicroSeconds(1)));
    expectHeadroom(small, 0, 25000 + 3000);
    expectHeadroom(small, 1, 25000 + 3000);
    small = CreateObject<RoceSharedBufferMmu>();
    small->SetAttribute("BufferSize", Bytes(32000000));
    small->SetAttribute("PfcResponseTime", TimeValue(MicroSeconds(3)));
    small->Configure(Links(1, "100Gbps", MicroSeconds(1)));
    expectHeadroom(small, 0, 25000 + 8400 + 37500);
    small = CreateObject<RoceSharedBufferMmu>();
    small->SetAttribute("BufferSize", Bytes(32000000));
    small->SetAttribute("PfcResponseTime", TimeValue(Seconds(0)));
    small->SetAttribute("MaxFrameSize", Bytes(0));
    small->Configure(Links(1, "100Gbps", MicroSeconds(1)));
    expectHeadroom(small, 0, 25000);

    // An explicit Headroom overrides the formula on every port.
    auto fixed = CreateObject<RoceSharedBufferMmu>();
    fixed->SetAttribute("BufferSize", Bytes(32000000));
    fixed->SetAttribute("Headroom", Bytes(77777));
    fixed->Configure(
        {Link{DataRate("25Gbps"), NanoSeconds(500)}, Link{DataRate("400Gbps"), MicroSeconds(2)}});
    EXPECT_EQ(fixed->GetHeadroom(0), 77777u);
    EXPECT_EQ(fixed->GetHeadroom(1), 77777u);
}

TEST(SharedBufferMmuTest, SharedPoolIsBufferMinusReservesAndHeadroom)
{
    // 3 ports, lossless priorities 3 and 4, 2000 B reserved per (port, PG).
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(4000000));
    mmu->SetAttribute("LosslessPriorities", StringValue("3,4"));
    mmu->SetAttribute("ReservedPerPg", Bytes(2000));
    mmu->Configure(Links(3));
    const uint64_t reserves = 3 * 8 * 2000;
    const uint64_t headroom = 3 * 2 * H100();
    EXPECT_EQ(mmu->GetSharedPoolSize(), 4000000 - reserves - headroom);
    EXPECT_TRUE(mmu->IsLossless(3));
    EXPECT_TRUE(mmu->IsLossless(4));
    EXPECT_FALSE(mmu->IsLossless(0));
    EXPECT_FALSE(mmu->IsLossless(5));
    // Default Alpha 1/8 of the empty pool.
    EXPECT_EQ(mmu->GetThreshold(0, 3), (4000000 - reserves - headroom) / 8);
    EXPECT_EQ(mmu->GetSharedUsed(), 0u);
    EXPECT_EQ(mmu->GetTotalBytes(), 0u);

    // No lossless priority, or PFC off: no headroom is set aside.
    for (bool pfcOff : {false, true})
    {
        auto lossy = CreateObject<RoceSharedBufferMmu>();
        lossy->SetAttribute("BufferSize", Bytes(4000000));
        lossy->SetAttribute("ReservedPerPg", Bytes(2000));
        if (pfcOff)
        {
            lossy->SetAttribute("PfcEnabled", BooleanValue(false));
        }
        else
        {
            lossy->SetAttribute("LosslessPriorities", StringValue(""));
        }
        lossy->Configure(Links(3));
        EXPECT_EQ(lossy->GetSharedPoolSize(), 4000000 - reserves) << "pfcOff " << pfcOff;
        EXPECT_FALSE(lossy->IsLossless(3));
    }
}

TEST(SharedBufferMmuTest, DynamicThresholdShrinksAsSharedUseGrows)
{
    constexpr uint64_t pool = 1000000;
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(pool + 2 * H100()));
    mmu->SetAttribute("Alpha", DoubleValue(0.5));
    mmu->Configure(Links(2));
    ASSERT_EQ(mmu->GetSharedPoolSize(), pool);
    EXPECT_EQ(mmu->GetThreshold(0, 3), pool / 2);

    // Port 1, lossy PG 0 fills the pool; everyone's threshold follows.
    uint64_t used = 0;
    uint64_t lastT = mmu->GetThreshold(0, 3);
    for (int i = 0; i < 30; ++i)
    {
        auto a = mmu->Admit(1, 0, 10000);
        ASSERT_TRUE(a.admitted) << i;
        ASSERT_EQ(a.pool, RoceSharedBufferMmu::SHARED);
        used += 10000;
        EXPECT_EQ(mmu->GetSharedUsed(), used);
        const uint64_t t = mmu->GetThreshold(0, 3);
        EXPECT_EQ(t, (pool - used) / 2) << "after " << used << " B";
        EXPECT_LT(t, lastT);
        EXPECT_EQ(mmu->GetThreshold(1, 0), t);
        EXPECT_EQ(mmu->GetThreshold(0, 0), t);
        lastT = t;
    }
    // Freeing the bytes raises it again.
    for (int i = 0; i < 30; ++i)
    {
        mmu->Release(1, 0, 10000);
    }
    EXPECT_EQ(mmu->GetThreshold(0, 3), pool / 2);
    EXPECT_EQ(mmu->GetSharedUsed(), 0u);
}

// With one PG alone in a pool P and equal packets of b bytes, the k-th packet
// fits while k*b <= Alpha*(P - (k-1)*b), i.e. up to
// k = floor(Alpha*(P + b) / ((1 + Alpha)*b)); the next one sends XOFF.
TEST(SharedBufferMmuTest, XoffExactlyWhenPacketNoLongerFitsUnderThreshold)
{
    constexpr uint32_t b = 1000;

    struct Case
    {
        uint64_t pool;
        double alpha;
        uint32_t k;
    };

    // P = 1,000,000, Alpha 1: floor(1,001,000 / 2000) = 500.
    // P = 1,000,000, Alpha 1/8: floor(1,001,000 / 9000) = 111.
    // P = 999,000, Alpha 1: 500, and packet 500 fills T exactly
    // (500,000 <= 999,000 - 499,000): a packet that just fits is admitted.
    for (const auto& [pool, alpha, k] :
         {Case{1000000, 1.0, 500}, Case{1000000, 0.125, 111}, Case{999000, 1.0, 500}})
    {
        SCOPED_TRACE(std::to_string(pool) + " B, alpha " + std::to_string(alpha));
        auto mmu = OnePortMmu(pool, alpha);
        for (uint32_t i = 1; i <= k; ++i)
        {
            const uint64_t t = mmu->GetThreshold(0, 3);
            ASSERT_LE(SharedBytes(mmu, 0, 3) + b, t) << "packet " << i;
            auto a = mmu->Admit(0, 3, b);
            ASSERT_TRUE(a.admitted) << "packet " << i;
            ASSERT_EQ(a.pool, RoceSharedBufferMmu::SHARED) << "packet " << i;
            ASSERT_FALSE(a.sendXoff) << "packet " << i;
            ASSERT_FALSE(mmu->IsXoff(0, 3));
        }
        EXPECT_EQ(mmu->GetPgBytes(0, 3), uint64_t(k) * b);
        // Packet k+1 does not fit under T: it is the one that pauses.
        EXPECT_GT(SharedBytes(mmu, 0, 3) + b, mmu->GetThreshold(0, 3));
        auto x = mmu->Admit(0, 3, b);
        EXPECT_TRUE(x.admitted);
        EXPECT_EQ(x.pool, RoceSharedBufferMmu::HEADROOM);
        EXPECT_TRUE(x.sendXoff);
        EXPECT_TRUE(mmu->IsXoff(0, 3));
        EXPECT_EQ(mmu->GetPgHeadroomBytes(0, 3), b);

        // While paused, even a packet small enough for the threshold goes to
        // headroom, and XOFF is not repeated. (With Alpha 1/8 a 64 B packet
        // fits under T here: 111,064 <= 111,125.)
        const bool smallFits = SharedBytes(mmu, 0, 3) + 64 <= mmu->GetThreshold(0, 3);
        EXPECT_EQ(smallFits, alpha < 1);
        auto small = mmu->Admit(0, 3, 64);
        EXPECT_TRUE(small.admitted);
        EXPECT_EQ(small.pool, RoceSharedBufferMmu::HEADROOM);
        EXPECT_FALSE(small.sendXoff);

        // Headroom takes what fits, then the PG drops.
        const uint64_t h = mmu->GetHeadroom(0);
        uint64_t inHeadroom = b + 64;
        while (inHeadroom + b <= h)
        {
            auto a = mmu->Admit(0, 3, b);
            ASSERT_TRUE(a.admitted);
            ASSERT_EQ(a.pool, RoceSharedBufferMmu::HEADROOM);
            ASSERT_FALSE(a.sendXoff);
            inHeadroom += b;
        }
        EXPECT_EQ(mmu->GetPgHeadroomBytes(0, 3), inHeadroom);
        const uint64_t total = mmu->GetTotalBytes();
        auto drop = mmu->Admit(0, 3, b);
        EXPECT_FALSE(drop.admitted);
        EXPECT_FALSE(drop.sendXoff);
        EXPECT_TRUE(IsReason(drop.reason, "headroom-overflow"));
        EXPECT_TRUE(IsReason(drop.reason, RoceSharedBufferMmu::DROP_HEADROOM));
        EXPECT_EQ(mmu->GetTotalBytes(), total);
        EXPECT_EQ(mmu->GetPgHeadroomBytes(0, 3), inHeadroom);
        EXPECT_EQ(mmu->GetPgMaxHeadroomBytes(0, 3), inHeadroom);
        EXPECT_EQ(mmu->GetPgMaxBytes(0, 3), uint64_t(k) * b + inHeadroom);
    }
}

TEST(SharedBufferMmuTest, LossyPgDropsAtThresholdAndNeverPauses)
{
    constexpr uint64_t pool = 1000000;
    constexpr uint32_t b = 1000;
    auto mmu = OnePortMmu(pool, 1.0);
    ASSERT_FALSE(mmu->IsLossless(0));
    uint32_t admitted = 0;
    RoceSharedBufferMmu::Admission a;
    for (int i = 0; i < 2000; ++i)
    {
        a = mmu->Admit(0, 0, b);
        ASSERT_FALSE(a.sendXoff);
        ASSERT_NE(a.pool, RoceSharedBufferMmu::HEADROOM);
        if (!a.admitted)
        {
            break;
        }
        ++admitted;
    }
    // Same crossing point as a lossless PG, but the packet is dropped.
    EXPECT_EQ(admitted, 500u);
    EXPECT_FALSE(a.admitted);
    EXPECT_TRUE(IsReason(a.reason, "shared-threshold"));
    EXPECT_TRUE(IsReason(a.reason, RoceSharedBufferMmu::DROP_THRESHOLD));
    EXPECT_FALSE(mmu->IsXoff(0, 0));
    EXPECT_EQ(mmu->GetPgHeadroomBytes(0, 0), 0u);
    EXPECT_EQ(mmu->GetTotalBytes(), 500u * b);
    // A lossless PG of the same port is untouched by the lossy PG's drops.
    EXPECT_FALSE(mmu->IsXoff(0, 3));

    // Alpha above 1 lets the thresholds of several PGs add up to more than
    // the pool: PGs filling one after another run it out, and the drop that
    // finds it full says so.
    auto deep = OnePortMmu(pool, 8.0);
    bool full = false;
    for (uint8_t pg : {0, 1, 2, 4, 5, 6, 7})
    {
        ASSERT_FALSE(deep->IsLossless(pg));
        for (int i = 0; i < 2000; ++i)
        {
            a = deep->Admit(0, pg, b);
            ASSERT_FALSE(a.sendXoff);
            if (!a.admitted)
            {
                break;
            }
        }
        ASSERT_FALSE(a.admitted);
        if (IsReason(a.reason, "buffer-full"))
        {
            full = true;
            break;
        }
        // Only one PG's own threshold stopped it; the pool still had room.
        ASSERT_TRUE(IsReason(a.reason, "shared-threshold"));
        ASSERT_LE(deep->GetSharedUsed() + b, pool) << "pg " << +pg;
    }
    EXPECT_TRUE(full);
    EXPECT_TRUE(IsReason(a.reason, RoceSharedBufferMmu::DROP_BUFFER_FULL));
    EXPECT_GT(deep->GetSharedUsed() + b, pool);
    // A lossless PG finding the pool full pauses instead of dropping.
    auto x = deep->Admit(0, 3, b);
    EXPECT_TRUE(x.admitted);
    EXPECT_EQ(x.pool, RoceSharedBufferMmu::HEADROOM);
    EXPECT_TRUE(x.sendXoff);
}

TEST(SharedBufferMmuTest, PfcDisabledOrUnlistedPriorityIsLossy)
{
    constexpr uint32_t b = 1000;
    for (int variant = 0; variant < 2; ++variant)
    {
        SCOPED_TRACE(variant == 0 ? "PfcEnabled=false" : "LosslessPriorities=4");
        auto mmu = CreateObject<RoceSharedBufferMmu>();
        mmu->SetAttribute("BufferSize", Bytes(1000000 + H100()));
        mmu->SetAttribute("Alpha", DoubleValue(1.0));
        if (variant == 0)
        {
            mmu->SetAttribute("PfcEnabled", BooleanValue(false));
        }
        else
        {
            mmu->SetAttribute("LosslessPriorities", StringValue("4"));
        }
        mmu->Configure(Links(1));
        EXPECT_FALSE(mmu->IsLossless(3));
        RoceSharedBufferMmu::Admission a;
        int drops = 0;
        for (int i = 0; i < 1500; ++i)
        {
            a = mmu->Admit(0, 3, b);
            ASSERT_FALSE(a.sendXoff) << i;
            ASSERT_NE(a.pool, RoceSharedBufferMmu::HEADROOM) << i;
            if (!a.admitted)
            {
                ++drops;
                ASSERT_TRUE(IsReason(a.reason, "shared-threshold") ||
                            IsReason(a.reason, "buffer-full"))
                    << (a.reason ? a.reason : "(null)");
            }
        }
        EXPECT_GT(drops, 0);
        EXPECT_FALSE(mmu->IsXoff(0, 3));
        EXPECT_EQ(mmu->GetPgHeadroomBytes(0, 3), 0u);
    }
    // With "4" listed, PG 4 pauses rather than drops.
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(1000000 + H100()));
    mmu->SetAttribute("LosslessPriorities", StringValue("4"));
    mmu->Configure(Links(1));
    bool paused = false;
    for (int i = 0; i < 1500 && !paused; ++i)
    {
        auto a = mmu->Admit(0, 4, b);
        ASSERT_TRUE(a.admitted);
        paused = a.sendXoff;
    }
    EXPECT_TRUE(paused);
}

// Departures drain headroom first, and XON waits for an empty headroom and
// shared bytes down to T - XonOffset. Alpha 1, pool 1,000,000 B, 1000 B
// packets: XOFF at 500 shared packets, then 5 in headroom. Releases 1-5 empty
// the headroom; XON then needs s + 8400 <= 1,000,000 - s, i.e. s <= 495,800:
// at release 10 (s = 495,000). Without the offset XON would come at release
// 5; with headroom drained last, or counted in the PG's bytes, later still.
TEST(SharedBufferMmuTest, XonWhenHeadroomEmptyAndSharedAtThresholdMinusOffset)
{
    constexpr uint32_t b = 1000;
    auto mmu = OnePortMmu(1000000, 1.0);
    uint32_t shared = 0;
    uint32_t headroom = 0;
    for (int i = 0; i < 505; ++i)
    {
        auto a = mmu->Admit(0, 3, b);
        ASSERT_TRUE(a.admitted);
        (a.pool == RoceSharedBufferMmu::SHARED ? shared : headroom) += 1;
    }
    ASSERT_EQ(shared, 500u);
    ASSERT_EQ(headroom, 5u);
    ASSERT_TRUE(mmu->IsXoff(0, 3));

    for (uint32_t j = 1; j <= 9; ++j)
    {
        EXPECT_FALSE(mmu->Release(0, 3, b)) << "release " << j;
        EXPECT_TRUE(mmu->IsXoff(0, 3));
        // Headroom first: 5 packets' worth, then the shared pool.
        EXPECT_EQ(mmu->GetPgHeadroomBytes(0, 3), j < 5 ? (5 - j) * b : 0u) << "release " << j;
        EXPECT_EQ(mmu->GetSharedUsed(), j < 5 ? 500000u : 500000u - (j - 5) * b);
    }
    EXPECT_TRUE(mmu->Release(0, 3, b)) << "release 10";
    EXPECT_FALSE(mmu->IsXoff(0, 3));
    EXPECT_EQ(mmu->GetSharedUsed(), 495000u);
    EXPECT_EQ(mmu->GetPgBytes(0, 3), 495000u);
    // XON is sent once, not on every later release.
    EXPECT_FALSE(mmu->Release(0, 3, b));
    // After XON the PG is back in the shared pool.
    auto a = mmu->Admit(0, 3, b);
    EXPECT_TRUE(a.admitted);
    EXPECT_EQ(a.pool, RoceSharedBufferMmu::SHARED);
    EXPECT_FALSE(a.sendXoff);
}

// Departures drain headroom, then shared, then reserved, whatever pool each
// packet was admitted to.
TEST(SharedBufferMmuTest, ReleaseDrainsHeadroomThenSharedThenReserved)
{
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(8 * 3000 + H100() + 10000));
    mmu->SetAttribute("ReservedPerPg", Bytes(3000));
    mmu->SetAttribute("Alpha", DoubleValue(1.0));
    mmu->Configure(Links(1));
    // 3 reserved, 5 shared (T = 10,000 - s), 4 in headroom.
    for (int i = 0; i < 12; ++i)
    {
        ASSERT_TRUE(mmu->Admit(0, 3, 1000).admitted);
    }
    ASSERT_EQ(mmu->GetPgHeadroomBytes(0, 3), 4000u);
    ASSERT_EQ(mmu->GetSharedUsed(), 5000u);
    ASSERT_EQ(mmu->GetPgBytes(0, 3), 12000u);
    // A 2500 B release spans headroom only; a 2000 B one headroom then shared.
    mmu->Release(0, 3, 2500);
    EXPECT_EQ(mmu->GetPgHeadroomBytes(0, 3), 1500u);
    EXPECT_EQ(mmu->GetSharedUsed(), 5000u);
    mmu->Release(0, 3, 2000);
    EXPECT_EQ(mmu->GetPgHeadroomBytes(0, 3), 0u);
    EXPECT_EQ(mmu->GetSharedUsed(), 4500u);
    mmu->Release(0, 3, 5000);
    EXPECT_EQ(mmu->GetSharedUsed(), 0u);
    EXPECT_EQ(mmu->GetPgBytes(0, 3), 2500u);
    EXPECT_FALSE(mmu->IsXoff(0, 3));
    // What is left is reserve: the next 500 B fit there again.
    EXPECT_EQ(mmu->Admit(0, 3, 500).pool, RoceSharedBufferMmu::RESERVED);
    EXPECT_EQ(mmu->Admit(0, 3, 500).pool, RoceSharedBufferMmu::SHARED);
    mmu->Release(0, 3, 3500);
    EXPECT_EQ(mmu->GetPgBytes(0, 3), 0u);
    EXPECT_EQ(mmu->GetTotalBytes(), 0u);
    EXPECT_EQ(mmu->GetSharedUsed(), 0u);
}

TEST(SharedBufferMmuTest, XonAtZeroWhenOffsetExceedsThreshold)
{
    constexpr uint32_t b = 1000;
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(100000 + H100()));
    mmu->SetAttribute("Alpha", DoubleValue(1.0));
    mmu->SetAttribute("XonOffset", Bytes(10000000));
    mmu->Configure(Links(1));
    constexpr int n = 60; // 50 shared, 10 in headroom
    for (int i = 0; i < n; ++i)
    {
        ASSERT_TRUE(mmu->Admit(0, 3, b).admitted);
    }
    ASSERT_TRUE(mmu->IsXoff(0, 3));
    ASSERT_EQ(mmu->GetPgHeadroomBytes(0, 3), 10u * b);
    for (int i = 0; i < n; ++i)
    {
        bool xon = mmu->Release(0, 3, b);
        EXPECT_EQ(xon, i + 1 == n) << "release " << i;
    }
    EXPECT_FALSE(mmu->IsXoff(0, 3));
    EXPECT_EQ(mmu->GetTotalBytes(), 0u);
}

TEST(SharedBufferMmuTest, ReservedPoolIsUsedFirst)
{
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(1000000));
    mmu->SetAttribute("ReservedPerPg", Bytes(3000));
    mmu->Configure(Links(2));
    EXPECT_EQ(mmu->GetSharedPoolSize(), 1000000 - 2 * 8 * 3000 - 2 * H100());
    const uint64_t t0 = mmu->GetThreshold(0, 0);
    for (int i = 0; i < 3; ++i)
    {
        auto a = mmu->Admit(0, 0, 1000);
        ASSERT_TRUE(a.admitted);
        EXPECT_EQ(a.pool, RoceSharedBufferMmu::RESERVED) << i;
    }
    EXPECT_EQ(mmu->GetSharedUsed(), 0u);
    EXPECT_EQ(mmu->GetThreshold(0, 0), t0);
    EXPECT_EQ(mmu->GetTotalBytes(), 3000u);
    auto a = mmu->Admit(0, 0, 1000);
    EXPECT_EQ(a.pool, RoceSharedBufferMmu::SHARED);
    EXPECT_EQ(mmu->GetSharedUsed(), 1000u);
    // Each (port, PG) has its own reserve.
    EXPECT_EQ(mmu->Admit(0, 1, 1000).pool, RoceSharedBufferMmu::RESERVED);
    EXPECT_EQ(mmu->Admit(1, 0, 1000).pool, RoceSharedBufferMmu::RESERVED);
    // Departures drain shared bytes before reserved ones; freed reserve is
    // used again, and a packet larger than what is left is not split.
    mmu->Release(0, 0, 1000);
    EXPECT_EQ(mmu->GetSharedUsed(), 0u);
    EXPECT_EQ(mmu->GetPgBytes(0, 0), 3000u);
    mmu->Release(0, 0, 1000);
    EXPECT_EQ(mmu->GetPgBytes(0, 0), 2000u);
    EXPECT_EQ(mmu->Admit(0, 0, 1500).pool, RoceSharedBufferMmu::SHARED);
    EXPECT_EQ(mmu->Admit(0, 0, 1000).pool, RoceSharedBufferMmu::RESERVED);

    // A lossless PG that holds XOFF still gets what is left of its reserve.
    auto tight = CreateObject<RoceSharedBufferMmu>();
    tight->SetAttribute("BufferSize", Bytes(8 * 3000 + H100() + 10000));
    tight->SetAttribute("ReservedPerPg", Bytes(3000));
    tight->SetAttribute("Alpha", DoubleValue(1.0));
    tight->Configure(Links(1));
    EXPECT_EQ(tight->Admit(0, 3, 1000).pool, RoceSharedBufferMmu::RESERVED);
    EXPECT_EQ(tight->Admit(0, 3, 1000).pool, RoceSharedBufferMmu::RESERVED);
    bool paused = false;
    for (int i = 0; i < 20 && !paused; ++i)
    {
        auto a = tight->Admit(0, 3, 1500);
        ASSERT_TRUE(a.admitted);
        ASSERT_NE(a.pool, RoceSharedBufferMmu::RESERVED);
        paused = a.sendXoff;
    }
    ASSERT_TRUE(paused);
    auto r = tight->Admit(0, 3, 1000);
    EXPECT_EQ(r.pool, RoceSharedBufferMmu::RESERVED);
    EXPECT_FALSE(r.sendXoff);
}

TEST(SharedBufferMmuTest, StaticModeUsesStaticThreshold)
{
    constexpr uint32_t b = 1000;
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(1000000));
    mmu->SetAttribute("Mode", EnumValue(RoceSharedBufferMmu::STATIC));
    mmu->SetAttribute("StaticThreshold", Bytes(10000));
    mmu->Configure(Links(4));
    EXPECT_EQ(mmu->GetMode(), RoceSharedBufferMmu::STATIC);
    EXPECT_EQ(mmu->GetThreshold(0, 3), 10000u);
    // Lossless: ten packets in the shared pool, the eleventh pauses.
    for (int i = 0; i < 10; ++i)
    {
        auto a = mmu->Admit(0, 3, b);
        ASSERT_EQ(a.pool, RoceSharedBufferMmu::SHARED) << i;
        ASSERT_FALSE(a.sendXoff);
    }
    auto x = mmu->Admit(0, 3, b);
    EXPECT_EQ(x.pool, RoceSharedBufferMmu::HEADROOM);
    EXPECT_TRUE(x.sendXoff);
    // Lossy: ten packets, then drops.
    for (int i = 0; i < 10; ++i)
    {
        ASSERT_TRUE(mmu->Admit(1, 0, b).admitted) << i;
    }
    auto d = mmu->Admit(1, 0, b);
    EXPECT_FALSE(d.admitted);
    EXPECT_TRUE(IsReason(d.reason, "shared-threshold"));
    // Usage elsewhere does not move a static threshold.
    for (uint8_t pg = 0; pg < 8; ++pg)
    {
        for (int i = 0; i < 10; ++i)
        {
            mmu->Admit(2, pg, b);
        }
    }
    EXPECT_GE(mmu->GetSharedUsed(), 90000u);
    EXPECT_EQ(mmu->GetThreshold(3, 0), 10000u);
    EXPECT_EQ(mmu->GetThreshold(0, 3), 10000u);

    // A static threshold above the pool: the pool bounds it.
    auto big = CreateObject<RoceSharedBufferMmu>();
    big->SetAttribute("BufferSize", Bytes(20000 + H100()));
    big->SetAttribute("Mode", EnumValue(RoceSharedBufferMmu::STATIC));
    big->SetAttribute("StaticThreshold", Bytes(50000));
    big->Configure(Links(1));
    for (int i = 0; i < 20; ++i)
    {
        ASSERT_TRUE(big->Admit(0, 0, b).admitted) << i;
    }
    auto full = big->Admit(0, 0, b);
    EXPECT_FALSE(full.admitted);
    EXPECT_TRUE(IsReason(full.reason, "buffer-full"));
    auto lossless = big->Admit(0, 3, b);
    EXPECT_EQ(lossless.pool, RoceSharedBufferMmu::HEADROOM);
    EXPECT_TRUE(lossless.sendXoff);
}

// Partitioned: each port has its own share of the buffer; filling one port
// leaves another's threshold where it was. The same load in Dynamic mode
// shrinks every port's threshold (the control).
TEST(SharedBufferMmuTest, PartitionedModeIsolatesPorts)
{
    constexpr uint32_t b = 1000;
    for (auto mode : {RoceSharedBufferMmu::PARTITIONED, RoceSharedBufferMmu::DYNAMIC})
    {
        const bool partitioned = mode == RoceSharedBufferMmu::PARTITIONED;
        SCOPED_TRACE(partitioned ? "Partitioned" : "Dynamic");
        auto mmu = CreateObject<RoceSharedBufferMmu>();
        mmu->SetAttribute("BufferSize", Bytes(4000000));
        mmu->SetAttribute("Mode", EnumValue(mode));
        mmu->SetAttribute("Alpha", DoubleValue(1.0));
        mmu->Configure(Links(4));
        const uint64_t perPort = 1000000 - H100();
        EXPECT_EQ(mmu->GetSharedPoolSize(), partitioned ? perPort : 4000000 - 4 * H100());
        const uint64_t t1 = mmu->GetThreshold(1, 0);

        uint32_t admitted0 = 0;
        while (mmu->Admit(0, 0, b).admitted)
        {
            ++admitted0;
            ASSERT_LT(admitted0, 10000u);
        }
        EXPECT_LT(mmu->GetThreshold(0, 0), partitioned ? perPort / 2 + b : t1);
        if (partitioned)
        {
            // floor((P + b) / 2b) packets of a pool P to itself.
            EXPECT_EQ(admitted0, (perPort + b) / (2 * b));
            EXPECT_EQ(mmu->GetThreshold(1, 0), t1);
            EXPECT_EQ(mmu->GetThreshold(3, 3), t1);
            uint32_t admitted1 = 0;
            while (mmu->Admit(1, 0, b).admitted)
            {
                ++admitted1;
                ASSERT_LT(admitted1, 10000u);
            }
            EXPECT_EQ(admitted1, admitted0);
        }
        else
        {
            EXPECT_LT(mmu->GetThreshold(1, 0), t1 / 2 + b);
        }
    }
}

// Random arrivals and departures over 4 ports x 4 PGs (lossless 3 and 4,
// lossy 0 and 1) in every mode. Each lossless PG has a sender that honours
// PFC as the headroom formula assumes: after XOFF it delivers at most the
// port's headroom (counting the packet that triggered it) until XON. Checked
// at every step: the model's counters equal an independent tally; shared
// bytes stay under the threshold they were admitted at; headroom stays under
// its size; lossy PGs never pause; lossless PGs never drop. At the end,
// draining everything returns every counter to zero with no XOFF held.
class SharedBufferMmuPropertyTest : public ::testing::TestWithParam<RoceSharedBufferMmu::Mode>
{
};

TEST_P(SharedBufferMmuPropertyTest, RandomTrafficConservesBytesAndStaysLossless)
{
    constexpr uint32_t nPorts = 4;
    constexpr uint32_t steps = 40000;
    constexpr uint64_t reservedPerPg = 2000;
    constexpr uint64_t xonOffset = 8400;
    const std::array<uint8_t, 4> pgs{0, 1, 3, 4};
    const std::vector<Link> links{Link{DataRate("100Gbps"), MicroSeconds(1)},
                                  Link{DataRate("400Gbps"), NanoSeconds(500)},
                                  Link{DataRate("25Gbps"), MicroSeconds(2)},
                                  Link{DataRate("100Gbps"), NanoSeconds(300)}};
    const RoceSharedBufferMmu::Mode mode = GetParam();

    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("Mode", EnumValue(mode));
    mmu->SetAttribute("LosslessPriorities", StringValue("3,4"));
    mmu->SetAttribute("ReservedPerPg", Bytes(reservedPerPg));
    mmu->SetAttribute("XonOffset", Bytes(xonOffset));
    mmu->SetAttribute("Alpha", DoubleValue(0.5));
    mmu->SetAttribute("StaticThreshold", Bytes(150000));
    {
        // Size the buffer from the headroom the links need, plus a shared
        // pool small enough to be under pressure.
        auto probe = CreateObject<RoceSharedBufferMmu>();
        probe->SetAttribute("LosslessPriorities", StringValue("3,4"));
        probe->Configure(links);
        uint64_t need = 0;
        for (uint32_t p = 0; p < nPorts; ++p)
        {
            need += 2 * probe->GetHeadroom(p) + 8 * reservedPerPg;
        }
        mmu->SetAttribute("BufferSize", Bytes(need + nPorts * 200000));
    }
    mmu->Configure(links);

    struct Pkt
    {
        uint32_t port;
        uint8_t pg;
        uint32_t bytes;
    };

    struct PgTally
    {
        uint64_t pool[3]{0, 0, 0}; //!< reserved, shared, headroom
        uint64_t lastSharedT{0};   //!< T when the latest shared packet was admitted
        bool paused{false};        //!< the sender has seen XOFF and no XON
        uint64_t sentSinceXoff{0}; //!< bytes the sender delivered since XOFF
    };

    std::vector<PgTally> tally(nPorts * 8);
    std::vector<Pkt> buffered;
    std::mt19937_64 rng(0x5B0FFE7);
    uint64_t outstanding = 0;
    uint64_t xoffs = 0;
    uint64_t xons = 0;
    uint64_t lossyDrops = 0;
    uint64_t losslessDrops = 0;
    uint64_t headroomAdmits = 0;
    uint64_t bursts = 0;
    double maxHeadroomFill = 0; // largest headroom bytes / headroom size

    auto release = [&](size_t i) {
        const Pkt pkt = buffered[i];
        buffered[i] = buffered.back();
        buffered.pop_back();
        PgTally& t = tally[pkt.port * 8 + pkt.pg];
        const bool xon = mmu->Release(pkt.port, pkt.pg, pkt.bytes);
        // Departures drain headroom, then shared, then reserved.
        uint64_t rest = pkt.bytes;
        for (Pool from : {RoceSharedBufferMmu::HEADROOM,
                          RoceSharedBufferMmu::SHARED,
                          RoceSharedBufferMmu::RESERVED})
        {
            const uint64_t take = std::min(rest, t.pool[from]);
            t.pool[from] -= take;
            rest -= take;
        }
        EXPECT_EQ(rest, 0u);
        outstanding -= pkt.bytes;
        // XON is due exactly when a paused PG's headroom is empty and its
        // shared bytes are at most T - XonOffset, or zero.
        const uint64_t thr = mmu->GetThreshold(pkt.port, pkt.pg);
        const uint64_t sh = t.pool[Pool::SHARED];
        const bool due =
            t.paused && t.pool[Pool::HEADROOM] == 0 && (sh == 0 || sh + xonOffset <= thr);
        EXPECT_EQ(xon, due) << "port " << pkt.port << " pg " << +pkt.pg << " shared " << sh
                            << " headroom " << t.pool[Pool::HEADROOM] << " T " << thr;
        if (xon)
        {
            ++xons;
            EXPECT_TRUE(mmu->IsLossless(pkt.pg));
            EXPECT_TRUE(t.paused) << "XON without XOFF";
            EXPECT_FALSE(mmu->IsXoff(pkt.port, pkt.pg));
            t.paused = false;
        }
    };

    uint32_t step = 0;
    // One packet from the sender of (port, pg), if that sender may send.
    auto arrive = [&](uint32_t port, uint8_t pg, uint32_t bytes) {
        PgTally& t = tally[port * 8 + pg];
        const bool lossless = mmu->IsLossless(pg);
        const uint64_t h = mmu->GetHeadroom(port);
        if (lossless && t.paused && t.sentSinceXoff + bytes > h)
        {
            return; // the sender has stopped
        }
        const uint64_t tBefore = mmu->GetThreshold(port, pg);
        const auto a = mmu->Admit(port, pg, bytes);
        if (lossless && t.paused)
        {
            t.sentSinceXoff += bytes;
        }
        if (!a.admitted)
        {
            ASSERT_NE(a.reason, nullptr) << "step " << step;
            if (lossless)
            {
                ++losslessDrops;
                ADD_FAILURE() << "lossless drop at step " << step << ": port " << port << " pg "
                              << +pg << " " << bytes << " B, reason " << a.reason
                              << ", headroom held " << t.pool[Pool::HEADROOM] << " of " << h
                              << ", sent since XOFF " << t.sentSinceXoff;
                ASSERT_LT(losslessDrops, 5u) << "stopping after repeated lossless drops";
            }
            else
            {
                ++lossyDrops;
                ASSERT_TRUE(IsReason(a.reason, RoceSharedBufferMmu::DROP_THRESHOLD) ||
                            IsReason(a.reason, RoceSharedBufferMmu::DROP_BUFFER_FULL))
                    << a.reason;
                if (IsReason(a.reason, RoceSharedBufferMmu::DROP_THRESHOLD))
                {
                    ASSERT_GT(t.pool[Pool::SHARED] + bytes, tBefore) << "step " << step;
                }
                ASSERT_GT(t.pool[Pool::RESERVED] + bytes, reservedPerPg);
            }
        }
        else
        {
            buffered.push_back(Pkt{port, pg, bytes});
            t.pool[a.pool] += bytes;
            outstanding += bytes;
            switch (a.pool)
            {
            case RoceSharedBufferMmu::RESERVED:
                ASSERT_LE(t.pool[Pool::RESERVED], reservedPerPg) << "step " << step;
                break;
            case RoceSharedBufferMmu::SHARED:
                ASSERT_LE(t.pool[Pool::SHARED], tBefore) << "step " << step;
                ASSERT_FALSE(lossless && t.paused) << "shared admit while XOFF held";
                t.lastSharedT = tBefore;
                break;
            case RoceSharedBufferMmu::HEADROOM:
                ASSERT_TRUE(lossless) << "lossy PG admitted to headroom";
                ASSERT_LE(t.pool[Pool::HEADROOM], h) << "step " << step;
                ++headroomAdmits;
                maxHeadroomFill =
                    std::max(maxHeadroomFill, static_cast<double>(t.pool[Pool::HEADROOM]) / h);
                break;
            }
        }
        if (a.sendXoff)
        {
            ASSERT_TRUE(lossless) << "lossy PG sent XOFF";
            ASSERT_TRUE(a.admitted);
            ASSERT_EQ(a.pool, RoceSharedBufferMmu::HEADROOM);
            ASSERT_FALSE(t.paused) << "XOFF repeated";
            ++xoffs;
            t.paused = true;
            t.sentSinceXoff = bytes;
        }
        ASSERT_EQ(mmu->IsXoff(port, pg), t.paused) << "step " << step;
        // Shared bytes stay under the threshold of their latest admission;
        // the PG as a whole under reserve + that threshold + headroom.
        ASSERT_LE(t.pool[Pool::SHARED], t.lastSharedT);
        ASSERT_LE(mmu->GetPgBytes(port, pg), reservedPerPg + t.lastSharedT + (lossless ? h : 0))
            << "step " << step;
    };

    for (step = 0; step < steps; ++step)
    {
        const uint64_t r = rng();
        // Alternate draining phases with congested ones (arrivals outpace
        // departures); the run ends congested.
        const bool congested = (step / 2500) % 2 == 1;
        const uint32_t arriveOutOf16 = congested ? 11 : 6;
        if ((r & 15) < arriveOutOf16 || buffered.empty())
        {
            const uint32_t port = static_cast<uint32_t>((r >> 4) % nPorts);
            const uint8_t pg = pgs[(r >> 8) % pgs.size()];
            const uint32_t bytes = 64 + static_cast<uint32_t>((r >> 16) % (4200 - 64 + 1));
            const uint64_t xoffsBefore = xoffs;
            arrive(port, pg, bytes);
            if (HasFatalFailure())
            {
                return;
            }
            // Half the time, a sender that was just paused has its whole
            // allowance in flight: the worst case the headroom is sized for.
            if (xoffs > xoffsBefore && ((r >> 40) & 1))
            {
                ++bursts;
                const PgTally& t = tally[port * 8 + pg];
                const uint64_t h = mmu->GetHeadroom(port);
                while (true)
                {
                    const uint32_t more = 64 + static_cast<uint32_t>(rng() % (4200 - 64 + 1));
                    if (t.sentSinceXoff + more > h)
                    {
                        break;
                    }
                    arrive(port, pg, more);
                    if (HasFatalFailure())
                    {
                        return;
                    }
                }
            }
        }
        else
        {
            release(static_cast<size_t>((r >> 4) % buffered.size()));
        }

        ASSERT_EQ(mmu->GetTotalBytes(), outstanding) << "step " << step;
        if (step % 97 == 0)
        {
            uint64_t shared = 0;
            for (uint32_t p = 0; p < nPorts; ++p)
            {
                for (uint8_t pg : pgs)
                {
                    const PgTally& t = tally[p * 8 + pg];
                    shared += t.pool[Pool::SHARED];
                    ASSERT_EQ(mmu->GetPgBytes(p, pg),
                              t.pool[Pool::RESERVED] + t.pool[Pool::SHARED] +
                                  t.pool[Pool::HEADROOM]);
                    ASSERT_EQ(mmu->GetPgHeadroomBytes(p, pg), t.pool[Pool::HEADROOM]);
                }
            }
            ASSERT_EQ(mmu->GetSharedUsed(), shared) << "step " << step;
        }
    }

    // The run must have exercised what it checks (the counts also go to the
    // XML report: --gtest_output=xml).
    RecordProperty("xoff", std::to_string(xoffs));
    RecordProperty("headroomAdmits", std::to_string(headroomAdmits));
    RecordProperty("bursts", std::to_string(bursts));
    RecordProperty("maxHeadroomFill", std::to_string(maxHeadroomFill));
    RecordProperty("lossyDrops", std::to_string(lossyDrops));
    RecordProperty("bufferedAtEnd", std::to_string(buffered.size()));
    EXPECT_GT(xoffs, 10u);
    EXPECT_GT(xons, 10u);
    EXPECT_GT(headroomAdmits, 100u);
    EXPECT_GT(bursts, 10u);
    // Bursts fill a headroom to within one frame of its size.
    EXPECT_GT(maxHeadroomFill, 0.9);
    EXPECT_GT(lossyDrops, 100u);
    EXPECT_EQ(losslessDrops, 0u);

    // Drain in random order: everything returns to zero.
    while (!buffered.empty())
    {
        release(static_cast<size_t>(rng() % buffered.size()));
    }
    EXPECT_EQ(mmu->GetTotalBytes(), 0u);
    EXPECT_EQ(mmu->GetSharedUsed(), 0u);
    EXPECT_EQ(xons, xoffs);
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        for (uint8_t pg = 0; pg < 8; ++pg)
        {
            EXPECT_EQ(mmu->GetPgBytes(p, pg), 0u) << p << "/" << +pg;
            EXPECT_EQ(mmu->GetPgHeadroomBytes(p, pg), 0u);
            EXPECT_FALSE(mmu->IsXoff(p, pg)) << p << "/" << +pg;
        }
    }
    // With the pool empty again, the threshold is back at its start.
    auto fresh = CreateObject<RoceSharedBufferMmu>();
    fresh->SetAttribute("Mode", EnumValue(mode));
    fresh->SetAttribute("LosslessPriorities", StringValue("3,4"));
    fresh->SetAttribute("ReservedPerPg", Bytes(reservedPerPg));
    fresh->SetAttribute("Alpha", DoubleValue(0.5));
    fresh->SetAttribute("StaticThreshold", Bytes(150000));
    QueueSizeValue size;
    mmu->GetAttribute("BufferSize", size);
    fresh->SetAttribute("BufferSize", size);
    fresh->Configure(links);
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        EXPECT_EQ(mmu->GetThreshold(p, 0), fresh->GetThreshold(p, 0));
    }
}

INSTANTIATE_TEST_SUITE_P(AllModes,
                         SharedBufferMmuPropertyTest,
                         ::testing::Values(RoceSharedBufferMmu::DYNAMIC,
                                           RoceSharedBufferMmu::STATIC,
                                           RoceSharedBufferMmu::PARTITIONED),
                         [](const ::testing::TestParamInfo<RoceSharedBufferMmu::Mode>& info) {
                             switch (info.param)
                             {
                             case RoceSharedBufferMmu::DYNAMIC:
                                 return "Dynamic";
                             case RoceSharedBufferMmu::STATIC:
                                 return "Static";
                             default:
                                 return "Partitioned";
                             }
                         });

// User errors abort with a message that names the attribute.
TEST(SharedBufferMmuDeathTest, NonPositiveAlphaAborts)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    for (double alpha : {0.0, -0.5})
    {
        EXPECT_DEATH(
            {
                auto mmu = CreateObject<RoceSharedBufferMmu>();
                mmu->SetAttribute("Alpha", DoubleValue(alpha));
            },
            "Alpha=");
    }
}

TEST(SharedBufferMmuDeathTest, BufferSmallerThanHeadroomAborts)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // Four 100G ports need four headrooms for priority 3.
    EXPECT_DEATH(
        {
            auto mmu = CreateObject<RoceSharedBufferMmu>();
            mmu->SetAttribute("BufferSize", Bytes(4 * H100() - 1));
            mmu->Configure(Links(4));
        },
        "smaller than");
    // Reserves count too.
    EXPECT_DEATH(
        {
            auto mmu = CreateObject<RoceSharedBufferMmu>();
            mmu->SetAttribute("BufferSize", Bytes(H100() + 1000));
            mmu->SetAttribute("ReservedPerPg", Bytes(1000));
            mmu->Configure(Links(1));
        },
        "BufferSize=.*smaller than");
    // Just enough is accepted.
    auto ok = CreateObject<RoceSharedBufferMmu>();
    ok->SetAttribute("BufferSize", Bytes(4 * H100() + 1));
    ok->Configure(Links(4));
    EXPECT_TRUE(ok->IsConfigured());
    EXPECT_EQ(ok->GetSharedPoolSize(), 1u);
}

TEST(SharedBufferMmuDeathTest, ReleasingMoreThanHeldAborts)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            auto mmu = OnePortMmu(100000, 1.0);
            mmu->Admit(0, 3, 1000);
            mmu->Release(0, 3, 1001);
        },
        "releases 1001 B but holds 1000");
}
