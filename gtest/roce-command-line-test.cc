/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The examples' command-line values (helper/cli/roce-command-line.h): the
 * values that fuzzing found ending the program in an ns-3 abort or an
 * uncaught std::out_of_range, or giving a time beyond ns-3's range, are now
 * read or refused with a RoceError naming the flag
 * (fuzz/corpus/command-line/); and attribute values with blanks, which ns-3
 * aborted on.
 */

#include "roce-gtest-error.h"

#include "ns3/object-factory.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-command-line.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/string.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::RoceCli;

TEST(RoceCli, RatesAndTimesWithBlanks)
{
    // The forms allow blanks around and inside a value; ns-3's parsers
    // aborted on them ("Attribute value ... is not properly formatted",
    // "Can't Parse Time").
    EXPECT_EQ(ParseRate("rate", "100Gbps "), DataRate("100Gbps"));
    EXPECT_EQ(ParseRate("rate", " 400 Gbps"), DataRate("400Gbps"));
    EXPECT_EQ(ParseRateOrZero("rx-drain-rate", "0 bps"), DataRate(uint64_t{0}));
    EXPECT_EQ(ParseTime("delay", "1 us"), MicroSeconds(1));
    EXPECT_EQ(ParsePositiveTime("rto", "\t500us "), MicroSeconds(500));
}

TEST(RoceCliErrorTest, TimeBeyondRange)
{
    // ns-3 turned these into garbage times (negative, or undefined behaviour
    // converting the double).
    EXPECT_ROCE_ERROR(ParseTime("stop", "1e30y"), "--stop=1e30y is too long: a time is at most");
    EXPECT_ROCE_ERROR(ParsePositiveTime("delay", "1e400s"), "--delay=1e400s is too long");
    EXPECT_ROCE_ERROR(ParseTime("rto", "300y"), "--rto=300y is too long");
    EXPECT_EQ(ParseTime("stop", "290y"), Years(290));
}

TEST(RoceCliErrorTest, ValuesOfThousandsOfCharacters)
{
    // std::stold threw std::out_of_range beyond a long double or below its
    // smallest value; std::regex took seconds on a long value that fails
    // late, and overflowed the stack on some 10^5 characters.
    EXPECT_ROCE_ERROR(ParseBytes("size", "1" + std::string(5000, '0')),
                      "--size=10+\\.\\.\\. is not a byte count");
    EXPECT_ROCE_ERROR(ParseBytes("size", "0." + std::string(5000, '0') + "1"),
                      "--size=0\\.0+\\.\\.\\. is not a byte count");
    const std::string digits(1000000, '1');
    EXPECT_ROCE_ERROR(ParseRate("rate", digits + "Gbps"), "--rate=1+\\.\\.\\. is not a data rate");
    EXPECT_ROCE_ERROR(ParseTime("delay", digits + "/us"), "--delay=1+\\.\\.\\. is not a time");
    EXPECT_ROCE_ERROR(ParseBytes("size", digits + "/"), "--size=1+\\.\\.\\. is not a byte count");
}

TEST(RoceErrorTest, AttributeValuesWithBlanks)
{
    // ns-3's deserializers abort on blanks ("Attribute value ... is not
    // properly formatted"); RoceSetFactoryAttribute strips the outer ones and
    // refuses the inner ones, for helpers, Python and the attribute flags.
    ObjectFactory qp("ns3::RoceQueuePair");
    RoceSetFactoryAttribute(qp, "RetransmitTimeout", StringValue("500us "));
    RoceSetFactoryAttribute(qp, "RetryCount", StringValue(" 40"));
    Ptr<RoceQueuePair> q = qp.Create<RoceQueuePair>();
    TimeValue rto;
    q->GetAttribute("RetransmitTimeout", rto);
    EXPECT_EQ(rto.Get(), MicroSeconds(500));
    ObjectFactory dev("ns3::RocePfcNetDevice");
    RoceSetFactoryAttribute(dev, "DataRate", StringValue("100Gbps "));
    ObjectFactory mmu("ns3::RoceSharedBufferMmu");
    EXPECT_ROCE_ERROR(RoceSetFactoryAttribute(mmu, "BufferSize", StringValue("4 MB")),
                      "BufferSize=4 MB is not a valid value");
    EXPECT_ROCE_ERROR(RoceSetFactoryAttribute(qp, "RetransmitTimeout", StringValue("1 us")),
                      "RetransmitTimeout=1 us is not a valid value");
    EXPECT_ROCE_ERROR(RoceSetFactoryAttribute(qp, "RetryCount", StringValue(std::string(100, '1'))),
                      "RetryCount=1111.* is not a valid value");
    // Every value type but a string: ns-3 reads one word and aborts on what
    // follows (found by the command-line fuzzer: "100Gbps --g--gpus=256").
    EXPECT_ROCE_ERROR(RoceSetFactoryAttribute(dev, "DataRate", StringValue("100Gbps --gpus=256")),
                      "DataRate=100Gbps --gpus=256 is not a valid value \\(DataRate");
    EXPECT_ROCE_ERROR(RoceSetFactoryAttribute(dev, "DataRate", StringValue("100Gbps\t1")),
                      "is not a valid value");
    // An Ipv4Address reads one word too.
    ObjectFactory nic("ns3::RoceNetDevice");
    EXPECT_ROCE_ERROR(RoceSetFactoryAttribute(nic, "Ipv4Address", StringValue("10.0.0.1 x")),
                      "Ipv4Address=10.0.0.1 x is not a valid value");
}

TEST(RoceCommandLineCc, PresetWithAnotherAlgorithmIsRefused)
{
    // rocev2-workload ran DCQCN for --cc=timely --dcqcn-preset=hpcc-sim and
    // reported "timely": every example now reads the pair here.
    EXPECT_ROCE_ERROR(MakeCongestionControl("timely", "hpcc-sim"),
                      "--dcqcn-preset=hpcc-sim needs --cc=dcqcn, not --cc=timely");
    EXPECT_ROCE_ERROR(MakeCongestionControl("none", "nvidia-cx"),
                      "--dcqcn-preset=nvidia-cx needs --cc=dcqcn, not --cc=none");
    EXPECT_ROCE_ERROR(MakeCongestionControl("ns3::RoceCcHpcc", "paper-2015"),
                      "--dcqcn-preset=paper-2015 needs --cc=dcqcn, not --cc=ns3::RoceCcHpcc");
    EXPECT_ROCE_ERROR(MakeCongestionControl("cubic", ""), "unknown congestion control 'cubic'");
}

TEST(RoceCommandLineCc, OneMeaningOfEveryChoice)
{
    // --cc=dcqcn meant the DCQCN attribute defaults in two examples and the
    // nvidia-cx preset in the others; it is nvidia-cx everywhere.
    EXPECT_EQ(MakeCongestionControl("dcqcn", "").GetDcqcnPreset(), "nvidia-cx");
    EXPECT_EQ(MakeCongestionControl("ns3::RoceCcDcqcn", "").GetDcqcnPreset(), "nvidia-cx");
    const RoceCcHelper named = MakeCongestionControl("", "hpcc-sim");
    EXPECT_EQ(named.GetAlgorithm(), "dcqcn");
    EXPECT_EQ(named.GetDcqcnPreset(), "hpcc-sim");
    EXPECT_EQ(MakeCongestionControl("dcqcn", "paper-2015").GetDcqcnPreset(), "paper-2015");
    EXPECT_EQ(MakeCongestionControl("", "").GetAlgorithm(), "none");
    EXPECT_EQ(MakeCongestionControl("", "").GetDcqcnPreset(), "");
    EXPECT_EQ(MakeCongestionControl("dctcp", "").GetDcqcnPreset(), "");
    // A program's own default choice applies only when neither flag is given.
    EXPECT_EQ(MakeCongestionControl("", "", "hpcc-sim").GetDcqcnPreset(), "hpcc-sim");
    EXPECT_EQ(MakeCongestionControl("dcqcn", "", "hpcc-sim").GetDcqcnPreset(), "nvidia-cx");
    EXPECT_EQ(MakeCongestionControl("hpcc", "", "hpcc-sim").GetDcqcnPreset(), "");
    EXPECT_EQ(MakeCongestionControl("", "paper-2015", "hpcc-sim").GetDcqcnPreset(), "paper-2015");
}

namespace
{

/** \param args the arguments after the program name \return Parse's seed */
uint32_t
ParseSeed(std::vector<std::string> args)
{
    args.insert(args.begin(), "rocev2-test");
    std::vector<char*> argv;
    for (std::string& a : args)
    {
        argv.push_back(a.data());
    }
    uint32_t seed = 1;
    RoceCommandLine cmd("rocev2-test");
    cmd.AddSeed(seed);
    cmd.Parse(static_cast<int>(argv.size()), argv.data());
    return seed;
}

} // namespace

TEST(RoceCommandLineSeed, SeedIsTheRunNumber)
{
    EXPECT_EQ(ParseSeed({"--seed=3"}), 3u);
    EXPECT_EQ(RngSeedManager::GetRun(), 3u);
    // --RngRun alone (as sweeps give it) is the seed the program reports.
    EXPECT_EQ(ParseSeed({"--RngRun=5"}), 5u);
    EXPECT_EQ(RngSeedManager::GetRun(), 5u);
    EXPECT_ROCE_ERROR(ParseSeed({"--seed=2", "--RngRun=7"}),
                      "--seed and --RngRun both set the run number: give one of them");
    EXPECT_ROCE_ERROR(ParseSeed({"--seed=0"}), "--seed=0 \\(must be at least 1\\)");
    RngSeedManager::SetRun(1);
}

TEST(RoceCommandLineSeed, RngRunFromTheEnvironmentIsTheRunNumber)
{
    // ns-3 takes NS_GLOBAL_VALUE="RngRun=N" when the program starts; here
    // the run it would have set is set by hand. Without a flag the program
    // keeps that run (and reports it as its seed) instead of its default 1.
    ASSERT_EQ(setenv("NS_GLOBAL_VALUE", "SchedulerType=ns3::MapScheduler;RngRun=4", 1), 0);
    RngSeedManager::SetRun(4);
    EXPECT_EQ(ParseSeed({}), 4u);
    EXPECT_EQ(RngSeedManager::GetRun(), 4u);
    EXPECT_ROCE_ERROR(ParseSeed({"--seed=2"}),
                      "--seed and RngRun in NS_GLOBAL_VALUE both set the run number");
    ASSERT_EQ(unsetenv("NS_GLOBAL_VALUE"), 0);
    RngSeedManager::SetRun(1);
    // Without it, the default seed is the run.
    EXPECT_EQ(ParseSeed({}), 1u);
    EXPECT_EQ(RngSeedManager::GetRun(), 1u);
}
