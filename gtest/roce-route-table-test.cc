/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The switch's longest-prefix-match table (model/switch/roce-route-table.h),
// checked against a brute-force search over the same routes: random routes of
// mixed lengths, the growth of a table far past its first size, replacement
// of a route's group, the default route and Clear().
//
// Random inputs come from std::mt19937_64 (its sequence is fixed by the
// standard), cut into fields with shifts and masks.

#include "ns3/roce-route-table.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <utility>

namespace
{

using ns3::RoceRouteTable;

/// The reference: (length, masked network) -> group, searched exhaustively.
class Reference
{
  public:
    static uint32_t Mask(uint8_t len)
    {
        return len == 0 ? 0 : ~uint32_t(0) << (32 - len);
    }

    bool Add(uint8_t len, uint32_t network, uint32_t group)
    {
        auto key = std::make_pair(len, network & Mask(len));
        bool fresh = m_routes.find(key) == m_routes.end();
        m_routes[key] = group;
        return fresh;
    }

    int32_t Find(uint32_t dst) const
    {
        int best = -1;
        int32_t group = -1;
        for (const auto& [key, g] : m_routes)
        {
            if ((dst & Mask(key.first)) == key.second && key.first > best)
            {
                best = key.first;
                group = static_cast<int32_t>(g);
            }
        }
        return group;
    }

  private:
    std::map<std::pair<uint8_t, uint32_t>, uint32_t> m_routes;
};

TEST(RoceRouteTable, EmptyTableFindsNothing)
{
    RoceRouteTable t;
    EXPECT_EQ(t.Find(0), -1);
    EXPECT_EQ(t.Find(0x0B000001), -1);
}

TEST(RoceRouteTable, LongestPrefixWinsAgainstBruteForce)
{
    std::mt19937_64 rng(7);
    RoceRouteTable t;
    Reference ref;
    const uint8_t lengths[] = {8, 16, 24, 28, 32};
    // 3,000 routes: every table grows many times past its first 16 slots.
    for (int i = 0; i < 3000; ++i)
    {
        uint64_t r = rng();
        uint8_t len = lengths[r % 5];
        // Networks inside 10.0.0.0/12 so that prefixes of different lengths nest.
        uint32_t net = 0x0A000000u | static_cast<uint32_t>((r >> 8) & 0x000FFFFFu);
        uint32_t group = static_cast<uint32_t>((r >> 40) % 97);
        ASSERT_EQ(t.Add(len, net, group), ref.Add(len, net, group)) << "route " << i;
    }
    for (int i = 0; i < 20000; ++i)
    {
        uint32_t dst = 0x0A000000u | static_cast<uint32_t>(rng() & 0x001FFFFFu);
        ASSERT_EQ(t.Find(dst), ref.Find(dst)) << "dst " << std::hex << dst;
    }
}

TEST(RoceRouteTable, ReplacingARouteKeepsOneEntry)
{
    RoceRouteTable t;
    EXPECT_TRUE(t.Add(24, 0x0B000100, 3));
    EXPECT_FALSE(t.Add(24, 0x0B0001FF, 5)); // the same /24: bits beyond it ignored
    EXPECT_EQ(t.Find(0x0B000142), 5);
    EXPECT_EQ(t.Find(0x0B000242), -1);
}

TEST(RoceRouteTable, DefaultRouteAndHostRoutes)
{
    RoceRouteTable t;
    t.Add(0, 0x12345678, 9); // network bits are ignored at length 0
    t.Add(32, 0, 1);         // 0.0.0.0/32 is a host route, distinct from the default
    EXPECT_EQ(t.Find(0xC0A80001), 9);
    EXPECT_EQ(t.Find(0), 1);
    t.Clear();
    EXPECT_EQ(t.Find(0xC0A80001), -1);
    EXPECT_EQ(t.Find(0), -1);
    t.Add(16, 0xC0A80000, 2);
    EXPECT_EQ(t.Find(0xC0A8FFFF), 2);
}

} // namespace
