/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// 24-bit PSN arithmetic (model/wire/roce-psn.h): the wire form of a 64-bit
// sequence number, signed distance across the wrap, and unwrapping a wire PSN
// relative to the sequence number a receiver expects.

#include "ns3/roce-psn.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <random>

using namespace ns3;

TEST(RocePsnTest, ToWireKeepsLow24Bits)
{
    EXPECT_EQ(RocePsn::ToWire(0), 0u);
    EXPECT_EQ(RocePsn::ToWire(1), 1u);
    EXPECT_EQ(RocePsn::ToWire(0xFFFFFF), 0xFFFFFFu);
    EXPECT_EQ(RocePsn::ToWire(0x1000000), 0u);
    EXPECT_EQ(RocePsn::ToWire(0x1000001), 1u);
    EXPECT_EQ(RocePsn::ToWire(0x1234567890ABCDEFULL), 0xABCDEFu);
    EXPECT_EQ(RocePsn::ToWire(0xFFFFFFFFFFFFFFFFULL), 0xFFFFFFu);
    // Bits 24-31 of the low word do not leak into the PSN.
    EXPECT_EQ(RocePsn::ToWire(0xFF000000ULL), 0u);
    EXPECT_EQ(RocePsn::ToWire(0x1FF123456ULL), 0x123456u);
}

TEST(RocePsnTest, DiffAcrossTheWrap)
{
    EXPECT_EQ(RocePsn::Diff(5, 5), 0);
    EXPECT_EQ(RocePsn::Diff(6, 5), 1);
    EXPECT_EQ(RocePsn::Diff(5, 6), -1);
    // Just after the wrap is ahead of just before it.
    EXPECT_EQ(RocePsn::Diff(0, 0xFFFFFF), 1);
    EXPECT_EQ(RocePsn::Diff(0xFFFFFF, 0), -1);
    EXPECT_EQ(RocePsn::Diff(1, 0xFFFFFF), 2);
    EXPECT_EQ(RocePsn::Diff(0xFFFFFF, 1), -2);
    EXPECT_EQ(RocePsn::Diff(0x000010, 0xFFFFF0), 0x20);
    // The range is [-2^23, 2^23): half the space ahead is the last positive
    // distance, exactly half is negative.
    EXPECT_EQ(RocePsn::Diff(0x7FFFFF, 0), 0x7FFFFF);
    EXPECT_EQ(RocePsn::Diff(0x800000, 0), -0x800000);
    EXPECT_EQ(RocePsn::Diff(0, 0x800000), -0x800000);
    EXPECT_EQ(RocePsn::Diff(0x800001, 0), -0x7FFFFF);
    EXPECT_EQ(RocePsn::Diff(0, 0x7FFFFF), -0x7FFFFF);
    EXPECT_EQ(RocePsn::Diff(0x7FFFFF, 0xFFFFFF), -0x800000);
    EXPECT_EQ(RocePsn::Diff(0xFFFFFF, 0x7FFFFF), -0x800000);
    EXPECT_EQ(RocePsn::Diff(0x7FFFFE, 0xFFFFFF), 0x7FFFFF);
}

TEST(RocePsnTest, DiffProperties)
{
    std::mt19937_64 rng(24);
    for (int i = 0; i < 100000; ++i)
    {
        uint64_t r = rng();
        uint32_t a = static_cast<uint32_t>(r) & RocePsn::MASK;
        uint32_t b = static_cast<uint32_t>(r >> 32) & RocePsn::MASK;
        int32_t d = RocePsn::Diff(a, b);
        ASSERT_GE(d, -static_cast<int32_t>(RocePsn::HALF));
        ASSERT_LT(d, static_cast<int32_t>(RocePsn::HALF));
        // b + d lands on a in the 24-bit space.
        ASSERT_EQ((b + static_cast<uint32_t>(d)) & RocePsn::MASK, a);
        // Antisymmetric, except at the one distance with no positive twin.
        if (d != -static_cast<int32_t>(RocePsn::HALF))
        {
            ASSERT_EQ(RocePsn::Diff(b, a), -d);
        }
        // Consistent with 64-bit sequence numbers closer than 2^23.
        uint64_t s = rng();
        int32_t step =
            static_cast<int32_t>(rng() % (2 * RocePsn::HALF)) - static_cast<int32_t>(RocePsn::HALF);
        uint64_t t = s + static_cast<uint64_t>(static_cast<int64_t>(step));
        ASSERT_EQ(RocePsn::Diff(RocePsn::ToWire(t), RocePsn::ToWire(s)), step);
    }
}

TEST(RocePsnTest, UnwrapAcrossTheWrap)
{
    // The receiver expects the last PSN before the wrap; the first after it
    // arrives.
    EXPECT_EQ(RocePsn::Unwrap(0x000000, 0xFFFFFF), 0x1000000u);
    EXPECT_EQ(RocePsn::Unwrap(0x000001, 0xFFFFFE), 0x1000001u);
    // A late packet from before the wrap, seen after it.
    EXPECT_EQ(RocePsn::Unwrap(0xFFFFFF, 0x1000001), 0xFFFFFFu);
    EXPECT_EQ(RocePsn::Unwrap(0xFFFFF0, 0x1000010), 0xFFFFF0u);
    // Many wraps in.
    const uint64_t ref = 0x5000000ULL + 0x10;
    EXPECT_EQ(RocePsn::Unwrap(0x000010, ref), ref);
    EXPECT_EQ(RocePsn::Unwrap(0x000020, ref), ref + 0x10);
    EXPECT_EQ(RocePsn::Unwrap(0xFFFFF0, ref), ref - 0x20);
    // The extremes of the window: 2^23 - 1 ahead, 2^23 behind.
    EXPECT_EQ(RocePsn::Unwrap(RocePsn::ToWire(ref + 0x7FFFFF), ref), ref + 0x7FFFFF);
    EXPECT_EQ(RocePsn::Unwrap(RocePsn::ToWire(ref - 0x800000), ref), ref - 0x800000);
    // One further ahead is read as behind.
    EXPECT_EQ(RocePsn::Unwrap(RocePsn::ToWire(ref + 0x800000), ref), ref - 0x800000);
    // Sequence numbers above 2^32 survive (no 32-bit truncation).
    const uint64_t big = 0x123456789ABCDEULL;
    EXPECT_EQ(RocePsn::Unwrap(RocePsn::ToWire(big + 3), big), big + 3);
    EXPECT_EQ(RocePsn::Unwrap(RocePsn::ToWire(big - 3), big), big - 3);
}

// An ACK of "the PSN before the first", sent by a receiver that has nothing
// yet, unwraps at reference 0 to 2^64 - 1, so that the acknowledged-up-to
// sequence number (that plus one) is 0 again and nothing counts as acked.
TEST(RocePsnTest, UnwrapBeforeTheFirstPsnIsModular)
{
    EXPECT_EQ(RocePsn::Unwrap(0xFFFFFF, 0), 0xFFFFFFFFFFFFFFFFULL);
    EXPECT_EQ(RocePsn::Unwrap(0xFFFFFF, 0) + 1, 0u);
    EXPECT_EQ(RocePsn::Unwrap(0x000000, 0), 0u);
    EXPECT_EQ(RocePsn::Unwrap(0x000005, 0), 5u);
}

TEST(RocePsnTest, UnwrapInvertsToWireWithinHalfTheSpace)
{
    std::mt19937_64 rng(23);
    for (int i = 0; i < 100000; ++i)
    {
        // References well away from 0 and 2^64 so that seq stays in range.
        uint64_t ref = (rng() >> 2) + (1ULL << 30);
        int64_t off =
            static_cast<int64_t>(rng() % (2 * RocePsn::HALF)) - static_cast<int64_t>(RocePsn::HALF);
        uint64_t seq = ref + static_cast<uint64_t>(off);
        ASSERT_EQ(RocePsn::Unwrap(RocePsn::ToWire(seq), ref), seq)
            << "ref " << ref << " off " << off;
    }
    // Walking a sequence across several wraps with the receiver's reference
    // trailing by up to 1000 packets.
    for (uint64_t seq = 0xFFF000; seq < 0x3001000; seq += 997)
    {
        uint64_t ref = seq >= 1000 ? seq - 1000 : 0;
        ASSERT_EQ(RocePsn::Unwrap(RocePsn::ToWire(seq), ref), seq);
        ASSERT_EQ(RocePsn::Unwrap(RocePsn::ToWire(ref), seq), ref);
    }
}
