/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The switch buffer (model/switch/roce-shared-buffer-mmu.h), sizes and thresholds: headroom
// per port, pool sizes, the dynamic, static and partitioned thresholds, the reserved pool,
// the order departures drain the pools in, and the user errors that abort. PFC decisions and the
// losslessness invariant are in roce-shared-buffer-mmu-pfc-test.cc.

#include "roce-gtest-error.h"
#include "roce-shared-buffer-mmu-test-util.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/roce-shared-buffer-mmu.h"
#include "ns3/string.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;
using namespace rocev2_mmu_test;

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

// AlphaReferenceRate: the HPCC simulator's PFC alpha (its third.cc: shift 3,
// minus one while the port rate, halved each time, is above the host rate,
// not below 0), worked by hand for a 100 Gb/s reference and Alpha 1/8.
TEST(SharedBufferMmuTest, AlphaReferenceRateRaisesFasterPortsAlpha)
{
    const std::vector<std::pair<const char*, double>> ports = {
        {"25Gbps", 1.0 / 8},  // slower: Alpha
        {"100Gbps", 1.0 / 8}, // the reference: Alpha
        {"200Gbps", 1.0 / 4}, // 200 > 100, then 100: one doubling
        {"250Gbps", 1.0 / 2}, // 250 > 100, 125 > 100, then 62.5: two
        {"400Gbps", 1.0 / 2}, // 400, 200, then 100: two
        {"1600Gbps", 1.0},    // 1600, 800, 400: three, and 1 is the cap
    };
    std::vector<Link> links;
    for (const auto& [rate, alpha] : ports)
    {
        links.push_back(Link{DataRate(rate), MicroSeconds(1)});
    }
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("AlphaReferenceRate", DataRateValue(DataRate("100Gbps")));
    mmu->Configure(links);
    const uint64_t pool = mmu->GetSharedPoolSize();
    for (uint32_t p = 0; p < ports.size(); ++p)
    {
        EXPECT_DOUBLE_EQ(mmu->GetPortAlpha(p), ports[p].second) << ports[p].first;
        EXPECT_EQ(mmu->GetThreshold(p, 3),
                  static_cast<uint64_t>(ports[p].second * static_cast<double>(pool)))
            << ports[p].first;
    }
    // Without a reference every port has Alpha; an Alpha above 1 is its own cap.
    auto flat = CreateObject<RoceSharedBufferMmu>();
    flat->Configure(links);
    auto big = CreateObject<RoceSharedBufferMmu>();
    big->SetAttribute("Alpha", DoubleValue(2));
    big->SetAttribute("AlphaReferenceRate", DataRateValue(DataRate("100Gbps")));
    big->Configure(links);
    for (uint32_t p = 0; p < ports.size(); ++p)
    {
        EXPECT_DOUBLE_EQ(flat->GetPortAlpha(p), 1.0 / 8) << ports[p].first;
        EXPECT_DOUBLE_EQ(big->GetPortAlpha(p), 2.0) << ports[p].first;
    }
    EXPECT_ROCE_ERROR(mmu->GetPortAlpha(6), "port 6 is not configured");
    // Alpha or the reference changed after Configure apply at once.
    mmu->SetAttribute("Alpha", DoubleValue(0.25));
    EXPECT_DOUBLE_EQ(mmu->GetPortAlpha(1), 0.25); // 100 Gb/s
    EXPECT_DOUBLE_EQ(mmu->GetPortAlpha(4), 1.0);  // 400 Gb/s: 0.5, then 1
    mmu->SetAttribute("AlphaReferenceRate", DataRateValue(DataRate(0)));
    EXPECT_DOUBLE_EQ(mmu->GetPortAlpha(4), 0.25);
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

// User errors abort with a message that names the attribute.
TEST(SharedBufferMmuErrorTest, NonPositiveAlphaAborts)
{
    for (double alpha : {0.0, -0.5})
    {
        EXPECT_ROCE_ERROR(
            {
                auto mmu = CreateObject<RoceSharedBufferMmu>();
                mmu->SetAttribute("Alpha", DoubleValue(alpha));
            },
            "Alpha=");
    }
}

TEST(SharedBufferMmuErrorTest, BufferSmallerThanHeadroomAborts)
{
    // Four 100G ports need four headrooms for priority 3.
    EXPECT_ROCE_ERROR(
        {
            auto mmu = CreateObject<RoceSharedBufferMmu>();
            mmu->SetAttribute("BufferSize", Bytes(4 * H100() - 1));
            mmu->Configure(Links(4));
        },
        "smaller than");
    // Reserves count too.
    EXPECT_ROCE_ERROR(
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

TEST(SharedBufferMmuErrorTest, ReleasingMoreThanHeldAborts)
{
    EXPECT_ROCE_ERROR(
        {
            auto mmu = OnePortMmu(100000, 1.0);
            mmu->Admit(0, 3, 1000);
            mmu->Release(0, 3, 1001);
        },
        "releases 1001 B but holds 1000");
}
