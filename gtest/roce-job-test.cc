/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Job files (RoceJobHelper): what a good file gives, and that each malformed
 * file is refused with FILE:LINE:COLUMN of the fault and the field and value
 * at fault. Lines and columns below are counted by hand in the texts.
 */

#include "roce-gtest-error.h"

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-job-helper.h"
#include "ns3/simulator.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

using namespace ns3;

namespace
{

/** A valid job file; line 8 is the step, line 5 the communicator. */
const std::string GOOD = R"({
  "name": "j",
  "iterations": 2,
  "communicators": [
    {"name": "dp", "gpus": 8, "placement": "contiguous"}
  ],
  "steps": [
    {"op": "allreduce", "size": "16M", "comm": "dp", "gap_us": 100}
  ]
})";

/** \return GOOD with the first `from` replaced by `to` */
std::string
With(const std::string& from, const std::string& to)
{
    std::string s = GOOD;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
}

void
Parse(const std::string& text)
{
    RoceJobHelper::Parse(text, "bad.json");
}

} // namespace

TEST(RoceJobFile, GoodFileGivesTheJob)
{
    auto jobs = RoceJobHelper::Parse(GOOD, "good.json");
    ASSERT_EQ(jobs.size(), 1u);
    const auto& j = jobs[0];
    EXPECT_EQ(j.name, "j");
    EXPECT_EQ(j.iterations, 2u);
    ASSERT_EQ(j.comms.size(), 1u);
    EXPECT_EQ(j.comms[0].name, "dp");
    EXPECT_EQ(j.comms[0].gpus, 8u);
    EXPECT_EQ(j.comms[0].placement, "contiguous");
    ASSERT_EQ(j.steps.size(), 1u);
    EXPECT_EQ(j.steps[0].op, RoceCollective::ALL_REDUCE);
    EXPECT_EQ(j.steps[0].bytes, 16u << 20); // nccl-tests: M = 2^20
    EXPECT_EQ(j.steps[0].gap, MicroSeconds(100));
    EXPECT_FALSE(j.steps[0].overlap);
    EXPECT_EQ(RoceJobHelper::GetGpusNeeded(jobs), 8u);
}

TEST(RoceJobFile, SizesDefaultsAndSeveralJobs)
{
    auto jobs = RoceJobHelper::Parse(R"({"jobs": [
  {"communicators": [{"name": "a", "gpu_list": [3, 9]}],
   "steps": [{"op": "alltoall", "size": 4096, "comm": "a"},
             {"op": "broadcast", "size": "1.5K", "comm": "a", "overlap": true}]},
  {"communicators": [{"name": "b", "gpus": 16, "placement": "fragmented", "per_rack": 8}],
   "steps": [{"op": "allgather", "size": "1G", "comm": "b", "gap_us": 2.5}]}
]})",
                                     "two.json");
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(jobs[0].name, "job0");
    EXPECT_EQ(jobs[1].name, "job1");
    EXPECT_EQ(jobs[0].iterations, 1u);
    EXPECT_EQ(jobs[0].steps[0].bytes, 4096u);
    EXPECT_EQ(jobs[0].steps[0].algo, RoceCollective::DIRECT);
    EXPECT_EQ(jobs[0].steps[0].gap, Time(0));
    EXPECT_EQ(jobs[0].steps[1].bytes, 1536u);
    EXPECT_TRUE(jobs[0].steps[1].overlap);
    EXPECT_EQ(jobs[1].steps[0].bytes, 1ull << 30);
    EXPECT_EQ(jobs[1].steps[0].gap, NanoSeconds(2500));
    EXPECT_EQ(jobs[1].comms[0].perRack, 8u);
    // 16 placed + 2 listed, and GPU 9 needs at least 10: 18.
    EXPECT_EQ(RoceJobHelper::GetGpusNeeded(jobs), 18u);
}

TEST(RoceJobFileErrorTest, MissingComma)
{
    // Line 6 "]" ends the list, then line 7 starts "steps" without a comma.
    EXPECT_ROCE_ERROR(Parse(With("  ],\n  \"steps\"", "  ]\n  \"steps\"")),
                      "bad\\.json:7:[0-9]+: JSON syntax error");
}

TEST(RoceJobFileErrorTest, UnknownOp)
{
    EXPECT_ROCE_ERROR(
        Parse(With("\"allreduce\"", "\"allreduec\"")),
        "bad\\.json:8:12: field \"op\".*= \"allreduec\": unknown op \\(known: allreduce");
}

TEST(RoceJobFileErrorTest, UnknownCommunicator)
{
    EXPECT_ROCE_ERROR(Parse(With("\"comm\": \"dp\"", "\"comm\": \"tp\"")),
                      "bad\\.json:8:48: field \"comm\".*= \"tp\": unknown communicator \\(the job "
                      "has: dp\\)");
}

TEST(RoceJobFileErrorTest, MissingField)
{
    EXPECT_ROCE_ERROR(Parse(With("\"size\": \"16M\", ", "")),
                      "bad\\.json:8:5: step /steps/0: missing field \"size\"");
}

TEST(RoceJobFileErrorTest, NegativeGap)
{
    EXPECT_ROCE_ERROR(Parse(With("\"gap_us\": 100", "\"gap_us\": -5")),
                      "bad\\.json:8:64: field \"gap_us\".*= -5: must not be negative");
}

TEST(RoceJobFileErrorTest, UnknownPlacement)
{
    EXPECT_ROCE_ERROR(Parse(With("\"contiguous\"", "\"scattered\"")),
                      "bad\\.json:5:44: field \"placement\".*= \"scattered\": unknown placement");
}

TEST(RoceJobFileErrorTest, UnknownField)
{
    EXPECT_ROCE_ERROR(Parse(With("\"gap_us\"", "\"gap\"")),
                      "bad\\.json:8:61: unknown field \"gap\" in step /steps/0");
}

TEST(RoceJobFileErrorTest, BadSize)
{
    EXPECT_ROCE_ERROR(Parse(With("\"16M\"", "\"16Q\"")),
                      "bad\\.json:8:33: field \"size\".*= \"16Q\": must be a positive byte count");
    EXPECT_ROCE_ERROR(Parse(With("\"16M\"", "0")), "bad\\.json:8:33: field \"size\".*= 0");
}

TEST(RoceJobFileErrorTest, SizeTheOpCannotSplit)
{
    // AllGather's share per rank is size / ranks: 1001 is not a multiple of 8.
    EXPECT_ROCE_ERROR(
        Parse(With("\"allreduce\", \"size\": \"16M\"", "\"allgather\", \"size\": 1001")),
        "bad\\.json:8:33: field \"size\".*= 1001: allgather needs a multiple of the 8 "
        "ranks");
}

TEST(RoceJobFileErrorTest, BadIterationsAndOverlap)
{
    EXPECT_ROCE_ERROR(Parse(With("\"iterations\": 2", "\"iterations\": 0")),
                      "bad\\.json:3:17: field \"iterations\".*= 0: must be an integer >= 1");
    EXPECT_ROCE_ERROR(Parse(With("\"gap_us\": 100", "\"gap_us\": 100, \"overlap\": \"yes\"")),
                      "bad\\.json:8:80: field \"overlap\".*= \"yes\": must be true or false");
}

TEST(RoceJobFileErrorTest, FileNameAndUnreadableFile)
{
    const std::string path = std::string(P_tmpdir) + "/rocev2-job-gtest.json";
    {
        std::ofstream out(path);
        out << With("\"allreduce\"", "\"allreduec\"");
    }
    EXPECT_ROCE_ERROR(RoceJobHelper::Read(path), "rocev2-job-gtest\\.json:8:12: field \"op\"");
    std::remove(path.c_str());
    EXPECT_ROCE_ERROR(RoceJobHelper::Read("/nonexistent/job.json"),
                      "/nonexistent/job\\.json: cannot read the job file");
}

TEST(RoceJobFileErrorTest, CommunicatorBiggerThanTheFreeGpus)
{
    auto jobs = RoceJobHelper::Parse(With("\"gpus\": 8", "\"gpus\": 64"), "big.json");
    EXPECT_ROCE_ERROR(
        {
            RoceAiZoneHelper zh;
            zh.SetGpus(16);
            RoceAiZone zone = zh.Build();
            RoceJobHelper h;
            h.Install(zone, jobs);
        },
        "big\\.json:5:5: communicator \"dp\" needs 64 GPUs but only 16 of the 16 are free");
}

TEST(RoceJobFileErrorTest, NumberBeyondADouble)
{
    // Found by fuzzing (fuzz/corpus/job-file/bad-number-beyond-a-double*.json):
    // nlohmann-json throws out_of_range, not parse_error, for a number beyond
    // a double, and it escaped the reader.
    EXPECT_ROCE_ERROR(Parse(With("\"iterations\": 2", "\"iterations\": 1e999")),
                      "bad\\.json:3:17: JSON value out of range: .*number overflow parsing "
                      "'1e999'");
}

TEST(RoceJobFileErrorTest, SizeOfThousandsOfDigits)
{
    // Found by fuzzing (fuzz/corpus/job-file/bad-size-5000-*.json): std::stold
    // threw std::out_of_range for a size beyond a long double, or below its
    // smallest value.
    EXPECT_ROCE_ERROR(Parse(With("\"16M\"", "\"1" + std::string(5000, '0') + "\"")),
                      "bad\\.json:8:33: field \"size\".*: must be a positive byte count");
    EXPECT_ROCE_ERROR(Parse(With("\"16M\"", "\"0." + std::string(5000, '0') + "1\"")),
                      "bad\\.json:8:33: field \"size\".*: must be a positive byte count");
}

TEST(RoceJobFileErrorTest, LongNamesAndSizes)
{
    // Found by fuzzing: std::regex took 36 s (sanitizer build) on a size of
    // 5000 digits with a '/' in it, and overflowed the stack on a name of
    // some 10^5 characters.
    EXPECT_ROCE_ERROR(
        Parse(
            With("\"16M\"", "\"1" + std::string(2500, '0') + "/" + std::string(2500, '0') + "\"")),
        "bad\\.json:8:33: field \"size\".*: must be a positive byte count");
    EXPECT_ROCE_ERROR(
        Parse(With("\"name\": \"j\"", "\"name\": \"" + std::string(1000000, 'j') + "\"")),
        "bad\\.json:2:11: field \"name\".*: must be a name of \\[A-Za-z0-9_.-\\], at "
        "most 256 characters");
}
