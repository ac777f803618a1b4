/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceFifo, the queue of a device's control frames and receive buffer:
 * first in, first out across the ring's wrap-around and its growth,
 * nothing allocated until the first push, and the storage (and every
 * packet it holds) released by clear().
 */

#include "ns3/packet.h"
#include "ns3/roce-fifo.h"

#include <deque>
#include <gtest/gtest.h>

using namespace ns3;

TEST(RoceFifoTest, KeepsTheOrderOfADequeThroughWrapAroundAndGrowth)
{
    RoceFifo<int> f;
    std::deque<int> d;
    EXPECT_TRUE(f.empty());
    int next = 0;
    // Pushes and pops in uneven bursts: the head wraps around before and
    // after each growth (4, 8, 16, 32 slots).
    for (int round = 0; round < 200; ++round)
    {
        for (int i = 0; i < round % 7 + 1; ++i)
        {
            f.push_back(next);
            d.push_back(next++);
        }
        for (int i = 0; i < round % 5 && !d.empty(); ++i)
        {
            ASSERT_EQ(f.front(), d.front());
            ASSERT_EQ(i % 2 == 0 ? f.take_front() : (f.pop_front(), d.front()), d.front());
            d.pop_front();
        }
        ASSERT_EQ(f.size(), d.size());
    }
    while (!d.empty())
    {
        ASSERT_EQ(f.take_front(), d.front());
        d.pop_front();
    }
    EXPECT_TRUE(f.empty());
}

TEST(RoceFifoTest, ReleasesPacketsOnPopAndClear)
{
    Ptr<Packet> a = Create<Packet>(100);
    Ptr<Packet> b = Create<Packet>(200);
    RoceFifo<Ptr<Packet>> f;
    f.push_back(a);
    f.push_back(b);
    EXPECT_EQ(a->GetReferenceCount(), 2u);
    f.pop_front();
    EXPECT_EQ(a->GetReferenceCount(), 1u) << "pop_front lets the packet go";
    EXPECT_EQ(f.front(), b);
    f.clear();
    EXPECT_EQ(b->GetReferenceCount(), 1u) << "clear lets every packet go";
    EXPECT_TRUE(f.empty());
    f.push_back(a);
    EXPECT_EQ(f.take_front(), a);
    EXPECT_EQ(a->GetReferenceCount(), 1u) << "take_front moves the packet out";
}
