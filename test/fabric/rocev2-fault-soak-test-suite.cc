/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The fault soak (examples/rocev2-fault-soak.h) as a test: seeds of a
// randomized faulty AI Zone, each of which must end, deliver every message
// exactly once or fail it with a reason, and pass the end-of-run invariants.
// The case also checks that the faults were there to survive: every kind of
// fault was applied in every seed, and the fabric lost and resent data.

#include "../../examples/rocev2-fault-soak.h"

#include "ns3/rng-seed-manager.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/test.h"

#include <fstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/**
 * Runs `seeds` seeds of the soak and checks every property of each.
 */
class RoceFaultSoakTestCase : public TestCase
{
  public:
    /**
     * \param seeds how many seeds (1, 2, ...)
     * \param gpus GPUs of the zone \param duration the fault window
     * \param load the background load
     */
    RoceFaultSoakTestCase(uint32_t seeds, uint32_t gpus, Time duration, double load)
        : TestCase("Fault soak, " + std::to_string(seeds) + " seeds on " + std::to_string(gpus) +
                   " GPUs: every run ends, every message once or failed, invariants hold"),
          m_seeds(seeds),
          m_gpus(gpus),
          m_duration(duration),
          m_load(load)
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t run = RngSeedManager::GetRun();
        RoceFaultSoakConfig cfg;
        cfg.gpus = m_gpus;
        cfg.duration = m_duration;
        cfg.load = m_load;
        cfg.cdfPath = ns3::RoceCli::FindDataFile("data/cdf/websearch.txt");
        NS_TEST_ASSERT_MSG_EQ(std::ifstream(cfg.cdfPath).good(),
                              true,
                              "data/cdf/websearch.txt is found from the working directory");
        uint64_t retransmits = 0;
        uint64_t timeouts = 0;
        uint64_t triggers = 0;
        uint64_t watchdogDrops = 0;
        for (uint32_t seed = 1; seed <= m_seeds; ++seed)
        {
            const RoceFaultSoakResult r = RoceFaultSoak::RunSeed(cfg, seed);
            const std::string s = "seed " + std::to_string(seed) + ": ";
            NS_TEST_EXPECT_MSG_EQ(r.Ok(), true, s + (r.broken.empty() ? "" : r.broken[0]));
            NS_TEST_EXPECT_MSG_EQ(r.ended, true, s + "the run ended before the limit");
            NS_TEST_EXPECT_MSG_EQ(r.messagesPending, 0, s + "no message pending");
            NS_TEST_EXPECT_MSG_EQ(r.invariants.Ok(), true, s + "invariants");
            NS_TEST_EXPECT_MSG_EQ(r.messagesCompleted + r.messagesFailed,
                                  r.messagesPosted,
                                  s + "every message completed or failed");
            NS_TEST_EXPECT_MSG_EQ(r.flowsCompleted + r.flowsFailed,
                                  r.flows,
                                  s + "every flow completed or failed");
            NS_TEST_EXPECT_MSG_EQ(r.collectiveFinished || r.collectiveFailed,
                                  true,
                                  s + "the AllReduce finished or lost a queue pair");
            NS_TEST_EXPECT_MSG_GT(r.flows, 0, s + "background flows");
            NS_TEST_EXPECT_MSG_GT(r.qpPairs,
                                  r.flows,
                                  s + "queue pairs checked (flows + AllReduce)");
            NS_TEST_EXPECT_MSG_GT(r.bytesDelivered, 0, s + "bytes delivered");
            // Every kind of fault was applied, not only drawn.
            for (const std::string kind : {"link-flap",
                                           "link-loss",
                                           "slow-receiver",
                                           "pfc-storm",
                                           "switch-down",
                                           "switch-up"})
            {
                const auto it = r.applied.find(kind);
                NS_TEST_EXPECT_MSG_GT((it == r.applied.end() ? 0 : it->second),
                                      0,
                                      s + kind + " applied");
            }
            NS_TEST_EXPECT_MSG_GT(r.linkFlaps, 0, s + "link flaps drawn");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r.linkFlaps, 3, s + "at most 3 link flaps");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r.ber, 1e-7, s + "BER in [1e-7, 1e-4]");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r.ber, 1e-4, s + "BER in [1e-7, 1e-4]");
            retransmits += r.retransmits;
            timeouts += r.timeouts;
            triggers += r.watchdogTriggers;
            watchdogDrops += r.watchdogDrops;
        }
        // The faults hurt: data was lost and resent, and storms met the watchdog.
        NS_TEST_EXPECT_MSG_GT(retransmits, 0, "retransmissions");
        NS_TEST_EXPECT_MSG_GT(timeouts, 0, "retransmission timeouts");
        NS_TEST_EXPECT_MSG_GT(triggers, 0, "PFC watchdog triggers");
        NS_TEST_EXPECT_MSG_GT(watchdogDrops, 0, "PFC watchdog drops");
        RngSeedManager::SetRun(run);
    }

    uint32_t m_seeds;
    uint32_t m_gpus;
    Time m_duration;
    double m_load;
};

/**
 * The rocev2-fault-soak suite.
 */
class RoceFaultSoakTestSuite : public TestSuite
{
  public:
    RoceFaultSoakTestSuite()
        : TestSuite("rocev2-fault-soak", Type::SYSTEM)
    {
        // The example's defaults: 32 GPUs, 2 ms of faults and WebSearch at 0.2.
        AddTestCase(new RoceFaultSoakTestCase(3, 32, MilliSeconds(2), 0.2),
                    RoceTestDuration::EXTENSIVE);
        AddTestCase(new RoceFaultSoakTestCase(50, 32, MilliSeconds(2), 0.2),
                    RoceTestDuration::TAKES_FOREVER);
    }
};

/// The suite's one instance.
RoceFaultSoakTestSuite g_roceFaultSoakTestSuite;

} // namespace
