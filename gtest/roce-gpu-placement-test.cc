/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceGpuPlacement refuses jobs it cannot place and GPUs it does not have,
 * with a message that names the argument and its value.
 */

#include "roce-gtest-error.h"

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-gpu-placement.h"

#include <gtest/gtest.h>
#include <numeric>
#include <vector>

using namespace ns3;

namespace
{

/** A 64-GPU zone: 4 racks of 2 servers of 8 GPUs (counts only, no nodes). */
RoceAiZone
Zone(uint32_t racks = 4, uint32_t servers = 2, uint32_t gpus = 8)
{
    RoceAiZone z;
    z.racksPerZone = racks;
    z.serversPerRack = servers;
    z.gpusPerServer = gpus;
    z.nics.resize(racks * servers * gpus);
    return z;
}

/** \return first, ..., first+n-1 */
std::vector<uint32_t>
Range(uint32_t first, uint32_t n)
{
    std::vector<uint32_t> v(n);
    std::iota(v.begin(), v.end(), first);
    return v;
}

} // namespace

TEST(GpuPlacementErrorTest, JobSize)
{
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Contiguous(0), "Contiguous: n=0 \\(must be > 0\\)");
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Fragmented(0, 8),
                      "Fragmented: n=0 \\(must be > 0\\)");
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Random(0, 1), "Random: n=0 \\(must be > 0\\)");
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Contiguous(65), "n=65 exceeds the 64 free GPUs");
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone(256, 2, 8)).Random(5000, 1),
                      "n=5000 exceeds the 4096 free GPUs");
    EXPECT_ROCE_ERROR(
        {
            RoceGpuPlacement p(Zone());
            p.Contiguous(60);
            p.Random(5, 1);
        },
        "n=5 exceeds the 4 free GPUs");
    // 57 GPUs free, but only 6 whole servers: a job of 7 servers does not fit.
    EXPECT_ROCE_ERROR(
        {
            RoceGpuPlacement p(Zone());
            p.MarkTaken({3, 5, 7, 9, 11, 13, 15});
            p.Random(56, 1);
        },
        "n=56 needs 7 servers of 8 free GPUs, only 6 are wholly free");
}

TEST(GpuPlacementErrorTest, NoRun)
{
    // Servers 1, 3, 5, 7 taken: 4 free servers but no two adjacent.
    EXPECT_ROCE_ERROR(
        {
            RoceGpuPlacement p(Zone());
            for (uint32_t s : {1, 3, 5, 7})
            {
                p.MarkTaken(Range(s * 8, 8));
            }
            p.Contiguous(16);
        },
        "Contiguous: n=16 finds no run of 2 free servers \\(longest: 1\\)");
}

TEST(GpuPlacementErrorTest, PerRack)
{
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Fragmented(16, 0), "perRack=0 \\(must be > 0\\)");
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Fragmented(16, 16),
                      "perRack=16 is not less than a rack \\(16 GPUs\\)");
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Fragmented(16, 4),
                      "perRack=4 is less than one server \\(8 GPUs\\), and n=16");
    // One server per rack from 4 racks holds 32 GPUs, not 40.
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Fragmented(40, 8),
                      "n=40 perRack=8 finds too few racks with 8 free GPUs \\(8 GPUs left");
}

TEST(GpuPlacementErrorTest, GpuOutOfRange)
{
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).MarkTaken({64}),
                      "MarkTaken: gpu=64 is out of range \\(the zone has 64 GPUs\\)");
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Release({1000}),
                      "Release: gpu=1000 is out of range");
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).IsFree(64), "IsFree: gpu=64 is out of range");
}

TEST(GpuPlacementErrorTest, TakenAndFree)
{
    EXPECT_ROCE_ERROR(RoceGpuPlacement(Zone()).Release({5}), "Release: gpu=5 is free");
    EXPECT_ROCE_ERROR(
        {
            RoceGpuPlacement p(Zone());
            p.Contiguous(8);
            p.MarkTaken({7});
        },
        "MarkTaken: gpu=7 is already taken");
    EXPECT_ROCE_ERROR(
        {
            RoceGpuPlacement p(Zone());
            auto a = p.Contiguous(8);
            p.Release(a);
            p.Release(a);
        },
        "Release: gpu=0 is free");
}

TEST(GpuPlacementErrorTest, BadZone)
{
    EXPECT_ROCE_ERROR(RoceGpuPlacement p(Zone(4, 2, 0)), "gpusPerServer=0");
    EXPECT_ROCE_ERROR(RoceGpuPlacement p(Zone(4, 0, 8)), "serversPerRack=0");
    RoceAiZone z = Zone();
    z.nics.resize(60);
    EXPECT_ROCE_ERROR(RoceGpuPlacement{z}, "60 GPUs are not whole racks of 16 GPUs");
}

TEST(GpuPlacement, ValidJobsDoNotAbort)
{
    RoceGpuPlacement p(Zone());
    EXPECT_EQ(
        p.Fragmented(32, 8),
        (std::vector<uint32_t>{0,  1,  2,  3,  4,  5,  6,  7,  16, 17, 18, 19, 20, 21, 22, 23,
                               32, 33, 34, 35, 36, 37, 38, 39, 48, 49, 50, 51, 52, 53, 54, 55}));
    // Servers 1, 3, 5, 7 are left: a random 4-server job takes exactly them.
    EXPECT_EQ(p.Random(32, 1).size(), 32u);
    EXPECT_EQ(p.GetNFree(), 0u);
}
