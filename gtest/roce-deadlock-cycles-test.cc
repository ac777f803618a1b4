/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The cycle enumeration of RoceDeadlockDetector (Johnson's algorithm),
// checked against known graphs and against a brute-force search over every
// vertex sequence on random small graphs; and the printed form of a report.
// The detector on real fabrics is tested in
// test/fabric/rocev2-deadlock-test-suite.cc.
//
// Random graphs come from std::mt19937_64 (its sequence is fixed by the
// standard).

#include "ns3/nstime.h"
#include "ns3/roce-deadlock-detector.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <vector>

namespace
{

using ns3::RoceDeadlockDetector;
using Graph = std::vector<std::vector<uint32_t>>;
using Cycles = std::vector<std::vector<uint32_t>>;

/// Brute force: every elementary cycle, from its smallest vertex.
void
Extend(const Graph& g, std::vector<uint32_t>& path, std::vector<bool>& used, Cycles& out)
{
    uint32_t v = path.back();
    for (uint32_t w : g[v])
    {
        if (w == path.front())
        {
            out.push_back(path);
        }
        else if (w > path.front() && !used[w])
        {
            used[w] = true;
            path.push_back(w);
            Extend(g, path, used, out);
            path.pop_back();
            used[w] = false;
        }
    }
}

/// \param g a graph \return its elementary cycles, sorted
std::set<std::vector<uint32_t>>
BruteForce(const Graph& g)
{
    Cycles out;
    for (uint32_t s = 0; s < g.size(); ++s)
    {
        std::vector<uint32_t> path{s};
        std::vector<bool> used(g.size(), false);
        used[s] = true;
        Extend(g, path, used, out);
    }
    return {out.begin(), out.end()};
}

TEST(DeadlockCycles, NoneInADag)
{
    Graph g{{1, 2}, {2, 3}, {3}, {}};
    EXPECT_TRUE(RoceDeadlockDetector::FindCycles(g, 100).empty());
    EXPECT_TRUE(RoceDeadlockDetector::FindCycles({}, 100).empty());
}

TEST(DeadlockCycles, ARingFromItsSmallestVertex)
{
    // 2 -> 3 -> 0 -> 1 -> 2, plus a tail 4 -> 2 that is not on it.
    Graph g{{1}, {2}, {3}, {0}, {2}};
    Cycles c = RoceDeadlockDetector::FindCycles(g, 100);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0], (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(DeadlockCycles, SelfLoopAndTwoCyclesSharingAVertex)
{
    Graph g{{1, 2}, {0}, {0}, {3}};
    Cycles c = RoceDeadlockDetector::FindCycles(g, 100);
    ASSERT_EQ(c.size(), 3u);
    EXPECT_EQ(c[0], (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(c[1], (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(c[2], (std::vector<uint32_t>{3}));
}

TEST(DeadlockCycles, CompleteGraphAndTheCap)
{
    // The complete directed graph on 4 vertices has C(4,2)*1! + C(4,3)*2! +
    // C(4,4)*3! = 6 + 8 + 6 = 20 elementary cycles.
    Graph g(4);
    for (uint32_t v = 0; v < 4; ++v)
    {
        for (uint32_t w = 0; w < 4; ++w)
        {
            if (v != w)
            {
                g[v].push_back(w);
            }
        }
    }
    EXPECT_EQ(RoceDeadlockDetector::FindCycles(g, 100).size(), 20u);
    EXPECT_EQ(RoceDeadlockDetector::FindCycles(g, 7).size(), 7u);
    EXPECT_EQ(RoceDeadlockDetector::FindCycles(g, 0).size(), 0u);
}

TEST(DeadlockCycles, RandomGraphsMatchBruteForce)
{
    std::mt19937_64 rng(12345);
    for (int trial = 0; trial < 300; ++trial)
    {
        uint32_t n = 1 + rng() % 7;
        uint32_t density = 1 + rng() % 4; // edge probability density/8
        Graph g(n);
        for (uint32_t v = 0; v < n; ++v)
        {
            for (uint32_t w = 0; w < n; ++w)
            {
                if (rng() % 8 < density)
                {
                    g[v].push_back(w);
                }
            }
        }
        Cycles found = RoceDeadlockDetector::FindCycles(g, 100000);
        std::set<std::vector<uint32_t>> unique(found.begin(), found.end());
        EXPECT_EQ(unique.size(), found.size()) << "a cycle reported twice, trial " << trial;
        EXPECT_EQ(unique, BruteForce(g)) << "trial " << trial;
        // Canonical: each cycle starts at its smallest vertex, and the list
        // is ordered by first vertex.
        for (std::size_t i = 0; i < found.size(); ++i)
        {
            EXPECT_EQ(found[i].front(), *std::min_element(found[i].begin(), found[i].end()));
            if (i > 0)
            {
                EXPECT_LE(found[i - 1].front(), found[i].front());
            }
        }
    }
}

TEST(DeadlockCycles, PrintedForm)
{
    ns3::RoceDeadlockReport r;
    r.detected = ns3::MicroSeconds(12345);
    r.cycle = {{4, 2, 3}, {5, 2, 3}, {6, 2, 3}, {7, 2, 3}};
    EXPECT_EQ(r.ToString(),
              "t=12.345ms deadlock: sw4/p2/pri3 -> sw5/p2/pri3 -> sw6/p2/pri3 -> sw7/p2/pri3 "
              "-> sw4/p2/pri3");
    EXPECT_TRUE(r.IsActive());
    r.ended = ns3::MilliSeconds(13);
    EXPECT_FALSE(r.IsActive());
}

} // namespace
