/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The switch buffer (model/switch/roce-shared-buffer-mmu.h), PFC: when XOFF and XON are
// decided, that the MMU itself calls its owner's PFC callback exactly at those crossings,
// drop reasons of lossy PGs, and the losslessness invariant under random traffic with
// accounting that returns to zero. Pool sizes and thresholds are in
// roce-shared-buffer-mmu-test.cc.

#include "roce-shared-buffer-mmu-test-util.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/roce-shared-buffer-mmu.h"
#include "ns3/string.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;
using namespace rocev2_mmu_test;

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

namespace
{

/** One call of the MMU's PFC callback, with the PG's bytes when it came. */
struct PfcCall
{
    uint32_t port;    //!< ingress port index
    uint8_t pg;       //!< priority group
    bool xoff;        //!< true for XOFF, false for XON
    uint64_t pgBytes; //!< GetPgBytes(port, pg) inside the callback
    uint32_t step;    //!< the Admit (arrivals) or Release (departures) count at the call
};

/** Records every PFC callback an MMU makes. */
struct PfcRecorder
{
    std::vector<PfcCall> calls; //!< in order
    uint32_t step{0};           //!< set by the test before each Admit/Release

    /** \param mmu the MMU to listen to */
    void Attach(const Ptr<RoceSharedBufferMmu>& mmu)
    {
        RoceSharedBufferMmu* raw = PeekPointer(mmu);
        mmu->SetPfcCallback(
            RoceSharedBufferMmu::PfcCallback([this, raw](uint32_t port, uint8_t pg, bool xoff) {
                calls.push_back({port, pg, xoff, raw->GetPgBytes(port, pg), step});
            }));
    }
};

} // namespace

// The MMU decides PFC and calls its owner (the switch) itself: exactly one
// callback when the PG crosses into XOFF, exactly one when it returns to XON,
// none per packet in between. Same setup as the XON test above: Alpha 1, pool
// P = 1,000,000 B, b = 1000 B. The k-th packet fits while
// k*b <= Alpha*(P - (k-1)*b), so k <= (P + b) / (2b) = 500.5: packet 501 is
// the first that does not fit and sends XOFF, once the packet is counted
// (501,000 B). Packets 502-505 go to headroom without a second call. Releases
// 1-5 drain the headroom; XON needs s + 8400 <= P - s, s <= 495,800, first met
// at release 10 (s = 495,000 B, 495,000 B held when the callback runs). The
// remaining 495 releases call nothing.
TEST(SharedBufferMmuTest, PfcCallbackRunsExactlyAtXoffAndXonCrossings)
{
    constexpr uint32_t b = 1000;
    constexpr uint32_t P = 1000000;
    constexpr uint32_t K_XOFF = (P + b) / (2 * b) + 1; // 501
    constexpr uint32_t N = K_XOFF + 4;                 // 505: four more in headroom
    constexpr uint64_t XON_SHARED = 495000;            // largest s = 500,000 - j*b <= 495,800
    constexpr uint32_t K_XON = 5 + (500000 - XON_SHARED) / b; // 5 headroom + 5 shared = 10
    auto mmu = OnePortMmu(P, 1.0);
    PfcRecorder rec;
    rec.Attach(mmu);
    for (uint32_t i = 1; i <= N; ++i)
    {
        rec.step = i;
        auto a = mmu->Admit(0, 3, b);
        ASSERT_TRUE(a.admitted) << i;
        // The returned decision and the callback agree, packet by packet.
        ASSERT_EQ(a.sendXoff, i == K_XOFF) << "arrival " << i;
    }
    ASSERT_EQ(rec.calls.size(), 1u) << "one XOFF call for " << N << " arrivals";
    EXPECT_EQ(rec.calls[0].port, 0u);
    EXPECT_EQ(rec.calls[0].pg, 3);
    EXPECT_TRUE(rec.calls[0].xoff);
    EXPECT_EQ(rec.calls[0].step, K_XOFF);
    EXPECT_EQ(rec.calls[0].pgBytes, uint64_t(K_XOFF) * b) << "XOFF call before the packet counted";

    rec.calls.clear();
    for (uint32_t j = 1; j <= N; ++j)
    {
        rec.step = j;
        bool xon = mmu->Release(0, 3, b);
        ASSERT_EQ(xon, j == K_XON) << "release " << j;
    }
    ASSERT_EQ(rec.calls.size(), 1u) << "one XON call for " << N << " departures";
    EXPECT_EQ(rec.calls[0].port, 0u);
    EXPECT_EQ(rec.calls[0].pg, 3);
    EXPECT_FALSE(rec.calls[0].xoff);
    EXPECT_EQ(rec.calls[0].step, K_XON);
    EXPECT_EQ(rec.calls[0].pgBytes, XON_SHARED);
    EXPECT_EQ(mmu->GetTotalBytes(), 0u);
}

// The callback names the (port, PG) that crossed, and a lossy PG never calls
// it. Two ports, lossless PGs 3 and 4, a shared pool of exactly P = 1,000,000 B
// (buffer = P + 2 ports x 2 lossless PGs x headroom), Alpha 1, b = 1000 B.
// Lossy PG 0 on port 0 fills to its threshold and drops packet 501 (same
// formula as above) without a call. With it drained, PG 4 on port 1 sends
// XOFF at packet 501 (one call: port 1, PG 4). Its one headroom packet leaves
// at release 1; XON needs s + 8400 <= P - s with s = 500,000 - (j - 1) * b,
// i.e. j - 1 >= 4.2: release 6 (one call: port 1, PG 4, XON).
TEST(SharedBufferMmuTest, PfcCallbackNamesPortAndPgAndSkipsLossyPgs)
{
    constexpr uint32_t b = 1000;
    constexpr uint32_t P = 1000000;
    constexpr uint32_t K = (P + b) / (2 * b) + 1; // 501
    auto mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->SetAttribute("BufferSize", Bytes(P + 4 * H100()));
    mmu->SetAttribute("Alpha", DoubleValue(1.0));
    mmu->SetAttribute("LosslessPriorities", StringValue("3,4"));
    mmu->Configure(Links(2));
    ASSERT_EQ(mmu->GetSharedPoolSize(), P);
    PfcRecorder rec;
    rec.Attach(mmu);

    for (uint32_t i = 1; i <= K; ++i)
    {
        auto a = mmu->Admit(0, 0, b);
        ASSERT_EQ(a.admitted, i < K) << "lossy arrival " << i;
    }
    EXPECT_TRUE(rec.calls.empty()) << "a lossy PG called the PFC callback";
    for (uint32_t i = 1; i < K; ++i)
    {
        ASSERT_FALSE(mmu->Release(0, 0, b));
    }
    EXPECT_TRUE(rec.calls.empty());

    for (uint32_t i = 1; i <= K; ++i)
    {
        rec.step = i;
        ASSERT_TRUE(mmu->Admit(1, 4, b).admitted) << i;
    }
    ASSERT_EQ(rec.calls.size(), 1u);
    EXPECT_EQ(rec.calls[0].port, 1u);
    EXPECT_EQ(rec.calls[0].pg, 4);
    EXPECT_TRUE(rec.calls[0].xoff);
    EXPECT_EQ(rec.calls[0].step, K);
    rec.calls.clear();
    for (uint32_t j = 1; j <= K; ++j)
    {
        rec.step = j;
        mmu->Release(1, 4, b);
    }
    ASSERT_EQ(rec.calls.size(), 1u);
    EXPECT_EQ(rec.calls[0].port, 1u);
    EXPECT_EQ(rec.calls[0].pg, 4);
    EXPECT_FALSE(rec.calls[0].xoff);
    EXPECT_EQ(rec.calls[0].step, 6u);

    // A null callback removes it: the next crossing calls nothing.
    rec.calls.clear();
    mmu->SetPfcCallback(RoceSharedBufferMmu::PfcCallback());
    bool paused = false;
    for (uint32_t i = 1; i <= K; ++i)
    {
        paused = mmu->Admit(1, 4, b).sendXoff || paused;
    }
    EXPECT_TRUE(paused);
    EXPECT_TRUE(rec.calls.empty());
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
