/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The pure logic behind load balancing beyond ECMP: the flowlet table
// (model/switch/roce-flowlet-table.h), the pinned-flow table
// (model/switch/roce-flow-pin-table.h) and the selective-repeat receive
// window (model/nic/roce-queue-pair-reorder.h).

#include "ns3/roce-flow-pin-table.h"
#include "ns3/roce-flowlet-table.h"
#include "ns3/roce-hash.h"
#include "ns3/roce-queue-pair-reorder.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <vector>

using namespace ns3;

namespace
{

constexpr int64_t GAP = 256000; //!< a flowlet gap, time steps (256 us at 1 ns)

} // namespace

TEST(RoceFlowletTable, ContinuesWithinTheGapOnly)
{
    RoceFlowletTable t;
    t.Resize(64);
    const uint64_t h = RoceHash::Mix64(42);
    RoceFlowletTable::Entry& e = t.Find(h);
    // An unused slot never continues a flowlet.
    EXPECT_FALSE(RoceFlowletTable::Continues(e, h, 0, 0, GAP));
    RoceFlowletTable::Start(e, h, 0, 5);
    e.lastSeen = 1000;
    EXPECT_EQ(e.port, 5);
    EXPECT_EQ(e.flowlets, 1u);
    // Idle for exactly the gap: same flowlet; one step longer: a new one.
    EXPECT_TRUE(RoceFlowletTable::Continues(e, h, 0, 1000 + GAP, GAP));
    EXPECT_FALSE(RoceFlowletTable::Continues(e, h, 0, 1000 + GAP + 1, GAP));
    // Another ECMP group (a route change) starts a new flowlet.
    EXPECT_FALSE(RoceFlowletTable::Continues(e, h, 1, 1001, GAP));
    // Clear forgets it.
    t.Clear();
    EXPECT_FALSE(RoceFlowletTable::Continues(t.Find(h), h, 0, 1001, GAP));
    EXPECT_EQ(t.GetSize(), 64u);
}

TEST(RoceFlowletTable, CollidingFlowsDoNotShareAPort)
{
    RoceFlowletTable t;
    t.Resize(16);
    // Two hashes with the same slot (same lower 32 bits), different tags.
    const uint64_t a = 0x0000000100000007ULL;
    const uint64_t b = 0x0000000200000007ULL;
    ASSERT_EQ(t.Index(a), t.Index(b));
    RoceFlowletTable::Entry& e = t.Find(a);
    RoceFlowletTable::Start(e, a, 0, 3);
    e.lastSeen = 0;
    EXPECT_TRUE(RoceFlowletTable::Continues(t.Find(a), a, 0, 10, GAP));
    EXPECT_FALSE(RoceFlowletTable::Continues(t.Find(b), b, 0, 10, GAP));
    RoceFlowletTable::Start(t.Find(b), b, 0, 1);
    // b took the slot over: a's next packet starts a new flowlet.
    EXPECT_FALSE(RoceFlowletTable::Continues(t.Find(a), a, 0, 20, GAP));
    EXPECT_EQ(t.Find(a).flowlets, 2u);
}

TEST(RoceFlowletTable, IndexSpreadsOverTheTable)
{
    RoceFlowletTable t;
    t.Resize(1000); // not a power of two
    std::vector<uint32_t> hits(1000, 0);
    std::mt19937_64 rng(7);
    for (int i = 0; i < 100000; ++i)
    {
        uint32_t idx = t.Index(rng());
        ASSERT_LT(idx, 1000u);
        ++hits[idx];
    }
    for (uint32_t c : hits)
    {
        // 100 expected per slot; a Poisson(100) count is outside 50..160
        // with probability below 1e-6 per slot.
        EXPECT_GT(c, 50u);
        EXPECT_LT(c, 160u);
    }
}

TEST(RoceFlowPinTable, AddFindReplaceClear)
{
    RoceFlowPinTable t;
    RoceFlowKey k{0x0a000001, 0x0a000102, 0xC001, 4791, 7};
    EXPECT_EQ(t.Find(k), -1);
    EXPECT_TRUE(t.Add(k, 3));
    EXPECT_EQ(t.Find(k), 3);
    EXPECT_EQ(t.GetSize(), 1u);
    EXPECT_FALSE(t.Add(k, 9)); // re-pinned
    EXPECT_EQ(t.Find(k), 9);
    EXPECT_EQ(t.GetSize(), 1u);
    // Each field tells flows apart.
    RoceFlowKey other = k;
    other.destQp = 8;
    EXPECT_EQ(t.Find(other), -1);
    other = k;
    other.sport = 0xC002;
    EXPECT_EQ(t.Find(other), -1);
    other = k;
    other.srcIp = 0x0a000002;
    EXPECT_EQ(t.Find(other), -1);
    other = k;
    other.dstIp = 0x0a000103;
    EXPECT_EQ(t.Find(other), -1);
    other = k;
    other.dport = 4792;
    EXPECT_EQ(t.Find(other), -1);
    t.Clear();
    EXPECT_EQ(t.Find(k), -1);
    EXPECT_EQ(t.GetSize(), 0u);
}

TEST(RoceFlowPinTable, ManyFlowsSurviveGrowth)
{
    RoceFlowPinTable t;
    std::map<RoceFlowKey, uint32_t> ref;
    std::mt19937_64 rng(11);
    for (int i = 0; i < 20000; ++i)
    {
        uint64_t r = rng();
        // Few distinct addresses and ports, so that keys repeat and collide.
        RoceFlowKey k{0x0a000000u | uint32_t(r & 0x3F),
                      0x0a010000u | uint32_t((r >> 8) & 0x3F),
                      static_cast<uint16_t>(0xC000 | ((r >> 16) & 0xFF)),
                      4791,
                      uint32_t((r >> 32) & 0x7)};
        uint32_t port = uint32_t(r >> 48) & 0x3F;
        bool fresh = ref.find(k) == ref.end();
        EXPECT_EQ(t.Add(k, port), fresh);
        ref[k] = port;
    }
    EXPECT_EQ(t.GetSize(), ref.size());
    for (const auto& [k, port] : ref)
    {
        EXPECT_EQ(t.Find(k), static_cast<int32_t>(port));
    }
}

TEST(RoceReorderWindow, HoldsAndReleasesInOrder)
{
    RoceReorderWindow w(8);
    EXPECT_EQ(w.GetWindow(), 8u);
    EXPECT_TRUE(w.InWindow(1));
    EXPECT_TRUE(w.InWindow(8));
    EXPECT_FALSE(w.InWindow(9));
    const uint64_t expected = 1000;
    EXPECT_FALSE(w.Has(expected + 1));
    EXPECT_TRUE(w.Insert(expected + 2, {1024, 0x07}));
    EXPECT_TRUE(w.Insert(expected + 1, {512, 0x08}));
    EXPECT_FALSE(w.Insert(expected + 2, {1024, 0x07})); // duplicate
    EXPECT_EQ(w.GetCount(), 2u);
    EXPECT_FALSE(w.Has(expected));
    EXPECT_TRUE(w.Has(expected + 1));
    RoceReorderWindow::Held h = w.Take(expected + 1);
    EXPECT_EQ(h.payload, 512u);
    EXPECT_EQ(h.opcode, 0x08);
    h = w.Take(expected + 2);
    EXPECT_EQ(h.payload, 1024u);
    EXPECT_EQ(w.GetCount(), 0u);
    EXPECT_FALSE(w.Has(expected + 2));
}

TEST(RoceReorderWindow, RingNeverAliasesWithinTheWindow)
{
    // Slide a full window over many ring lengths: every sequence number in
    // (expected, expected + window] holds its own slot.
    const uint32_t window = 100; // ring of 128
    RoceReorderWindow w(window);
    uint64_t expected = (1ULL << 24) - 37; // across a PSN wrap too
    for (int round = 0; round < 50; ++round)
    {
        for (uint32_t d = window; d >= 1; --d)
        {
            ASSERT_TRUE(w.Insert(expected + d, {d, 0x07}));
        }
        ASSERT_EQ(w.GetCount(), window);
        for (uint32_t d = 1; d <= window; ++d)
        {
            ASSERT_TRUE(w.Has(expected + d));
            ASSERT_EQ(w.Take(expected + d).payload, d);
        }
        ASSERT_EQ(w.GetCount(), 0u);
        expected += window + 1;
    }
}
