/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN's rate-increase timer while a queue pair is idle: with IdleTimers
 * "sleep" the timer is not re-armed while the queue pair has nothing to send,
 * and the skipped expiries are applied when the rate is next read. The
 * simulation must be the same as with "run" in everything observable.
 */
#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/node-container.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-cc-dcqcn.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <functional>
#include <memory>
#include <vector>

using namespace ns3;

namespace
{

/// One sender's work: messages of `size` bytes, each posted `gap` after the previous completed.
struct IdleSender
{
    uint64_t size;   //!< bytes per message
    uint32_t rounds; //!< messages
    Time gap;        //!< idle time between a completion and the next post
};

/// What a run recorded; two runs that differ only in IdleTimers must record the same.
struct IdleRun
{
    std::vector<int64_t> completions; //!< completion time of every message, in order, time steps
    std::vector<int64_t> sendTimes;   //!< every data frame a sender put on its wire, time steps
    std::vector<double> sendRates;    //!< the sender's DCQCN rate Rc at that frame, bit/s
    std::vector<double> sendTargets;  //!< the sender's DCQCN target rate Rt at that frame, bit/s
    std::vector<int64_t> rxWire;      //!< every frame the receiver's NIC received, time steps
    std::vector<uint32_t> rxSizes;    //!< its size
    uint64_t cnpFrames{0};            //!< CNP frames the receiver sent
    std::vector<uint64_t> decreases;  //!< rate decreases per sender
    uint64_t events{0};               //!< events the simulator executed
    double lineRate{0};               //!< bit/s
    uint32_t belowLineAfterGap{0};    //!< first packets after a gap that were sent below line rate
};

/**
 * N senders write to one receiver through one switch (100 Gb/s, 1 us links),
 * DCQCN with `preset`, each sender going idle between its messages.
 */
IdleRun
RunIdle(const std::string& preset, const std::vector<IdleSender>& senders, const std::string& mode)
{
    uint32_t hosts = senders.size() + 1;
    NodeContainer sw(1);
    NodeContainer hostNodes(hosts);
    RoceSwitchHelper switches;
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    roce.SetChannelAttribute("Delay", StringValue("1us"));
    roce.SetNicAttribute("PayloadMtu", UintegerValue(1000));
    RoceCcHelper("dcqcn", preset).Configure(roce, switches);
    switches.Install(sw);
    NetDeviceContainer nics;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        nics.Add(roce.Install(hostNodes.Get(h), sw.Get(0)).Get(0));
    }
    RoceSwitchHelper::PopulateRoutes();
    RoceSwitchHelper::AssignStreams(1000);

    IdleRun r;
    r.lineRate = 100e9;
    std::vector<Ptr<RoceQueuePair>> qps;
    std::vector<Ptr<RoceCcDcqcn>> ccs;
    std::vector<bool> afterGap(senders.size(), false);
    // Each sender's chain of posts: post, on completion wait `gap`, post again.
    auto chains = std::make_shared<std::vector<std::function<void(uint32_t)>>>(senders.size());
    for (uint32_t s = 0; s < senders.size(); ++s)
    {
        auto pair = roce.CreateQp(nics.Get(s + 1), nics.Get(0));
        Ptr<RoceQueuePair> qp = pair.first;
        Ptr<RoceCcDcqcn> cc = DynamicCast<RoceCcDcqcn>(qp->GetCongestionControl());
        NS_ABORT_MSG_IF(!cc, "the preset installs DCQCN");
        cc->SetAttribute("IdleTimers", StringValue(mode));
        qps.push_back(qp);
        ccs.push_back(cc);
        IdleSender job = senders[s];
        IdleRun* rp = &r;
        std::vector<bool>* ag = &afterGap;
        std::weak_ptr<std::vector<std::function<void(uint32_t)>>> weak = chains;
        (*chains)[s] = [qp, job, rp, ag, s, weak](uint32_t round) {
            qp->PostWrite(
                job.size,
                Callback<void, const RoceCompletion&>(
                    [job, rp, ag, s, round, weak](const RoceCompletion& c) {
                        rp->completions.push_back(c.completed.GetTimeStep());
                        auto ch = weak.lock();
                        if (ch && round + 1 < job.rounds)
                        {
                            (*ag)[s] = true;
                            Simulator::Schedule(job.gap, [ch, s, round]() { (*ch)[s](round + 1); });
                        }
                    }));
        };
        Simulator::ScheduleNow([chains, s]() { (*chains)[s](0); });
        // The rate at every data frame the sender transmits: this is the
        // per-packet path that would show a rate the sleeping timer got wrong.
        Ptr<RocePfcNetDevice> txNic = DynamicCast<RocePfcNetDevice>(nics.Get(s + 1));
        txNic->TraceConnectWithoutContext(
            "MacTx",
            Callback<void, Ptr<const Packet>>([rp, cc, ag, s](Ptr<const Packet> p) {
                RoceFrame f = RoceFrame::Parse(*p);
                if (!f.isRoce || f.opcode == RoceBthHeader::ACKNOWLEDGE ||
                    f.opcode == RoceBthHeader::CNP)
                {
                    return;
                }
                double rate = cc->GetRate();
                rp->sendTimes.push_back(Simulator::Now().GetTimeStep());
                rp->sendRates.push_back(rate);
                rp->sendTargets.push_back(cc->GetTargetRate());
                if ((*ag)[s])
                {
                    (*ag)[s] = false;
                    rp->belowLineAfterGap += rate < rp->lineRate ? 1 : 0;
                }
            }));
    }
    Ptr<RocePfcNetDevice> rxNic = DynamicCast<RocePfcNetDevice>(nics.Get(0));
    rxNic->TraceConnectWithoutContext("MacTx",
                                      Callback<void, Ptr<const Packet>>([&r](Ptr<const Packet> p) {
                                          RoceFrame f = RoceFrame::Parse(*p);
                                          if (f.isRoce && f.opcode == RoceBthHeader::CNP)
                                          {
                                              ++r.cnpFrames;
                                          }
                                      }));
    rxNic->TraceConnectWithoutContext("MacRx",
                                      Callback<void, Ptr<const Packet>>([&r](Ptr<const Packet> p) {
                                          r.rxWire.push_back(Simulator::Now().GetTimeStep());
                                          r.rxSizes.push_back(p->GetSize());
                                      }));
    Simulator::Run();
    r.events = Simulator::GetEventCount();
    for (const auto& cc : ccs)
    {
        r.decreases.push_back(cc->GetDecreases());
    }
    chains->clear();
    Simulator::Destroy();
    return r;
}

/// A queue pair whose idleness the test sets.
class FakeQp : public RoceCcRateListener
{
  public:
    bool idle{false}; //!< what IsIdle() answers

    void RateRaised() override
    {
    }

    bool IsIdle() const override
    {
        return idle;
    }
};

/// Rc and Rt at each sample, and the events executed.
struct HookRun
{
    std::vector<double> rates;   //!< Rc at each sample, bit/s
    std::vector<double> targets; //!< Rt at each sample, bit/s
    uint64_t events{0};          //!< events the simulator executed
};

/**
 * One DCQCN reaction point driven directly (10 us increase timer, byte
 * counter off, alpha starts at 1 so a CNP halves the rate): CNP at 0, the
 * queue pair idle from 15 us (the expiry at 20 us finds it idle), a CNP at
 * 55 us while the timer sleeps (the expiries at 30, 40 and 50 us come
 * first), idle again, a read at 95 us, exactly when an expiry is due, by an
 * event scheduled before the timer's (so the eager timer has not run yet),
 * then busy again and read at 96 and 130 us.
 */
HookRun
RunHooks(const std::string& mode)
{
    Ptr<RoceCcDcqcn> cc = CreateObject<RoceCcDcqcn>();
    cc->SetAttribute("RateIncreaseTimer", TimeValue(MicroSeconds(10)));
    cc->SetAttribute("ByteCounter", UintegerValue(0));
    cc->SetAttribute("IdleTimers", StringValue(mode));
    RoceCcContext ctx;
    ctx.lineRate = DataRate("100Gbps");
    cc->Init(ctx);
    FakeQp qp;
    cc->SetRateListener(&qp);
    HookRun r;
    auto sample = [&r, cc]() {
        r.rates.push_back(cc->GetRate());
        r.targets.push_back(cc->GetTargetRate());
    };
    Simulator::Schedule(MicroSeconds(0), [cc]() { cc->OnCnp(); });
    Simulator::Schedule(MicroSeconds(15), [&qp]() { qp.idle = true; });
    Simulator::Schedule(MicroSeconds(55), [cc, sample]() {
        cc->OnCnp();
        sample();
    });
    Simulator::Schedule(MicroSeconds(95), [&qp, sample]() {
        sample();
        qp.idle = false;
    });
    Simulator::Schedule(MicroSeconds(96), sample);
    Simulator::Schedule(MicroSeconds(130), sample);
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    sample();
    r.events = Simulator::GetEventCount();
    cc->SetRateListener(nullptr);
    cc->Dispose();
    Simulator::Destroy();
    return r;
}

} // namespace

/**
 * \ingroup rocev2
 * The hooks that meet a sleeping timer, driven directly: a CNP while the
 * timer sleeps must first apply the skipped expiries (the decrease halves
 * the rate those expiries raised), a read at the instant of an expiry must
 * not apply it before the timer's own event would, and a queue pair that is
 * busy again must see the expiries at their old phase. Rc and Rt at every
 * sample must equal the eager timer's, with fewer events.
 */
class DcqcnIdleTimersHooksTestCase : public TestCase
{
  public:
    DcqcnIdleTimersHooksTestCase()
        : TestCase("DCQCN IdleTimers sleep = run: CNP while asleep, read at an expiry, wake-up "
                   "phase")
    {
    }

  private:
    void DoRun() override
    {
        HookRun run = RunHooks("run");
        HookRun sleep = RunHooks("sleep");
        NS_TEST_ASSERT_MSG_EQ(run.rates.size(), 5u, "samples");
        NS_TEST_ASSERT_MSG_EQ(sleep.rates.size(), run.rates.size(), "samples");
        for (std::size_t i = 0; i < run.rates.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(sleep.rates[i], run.rates[i], "Rc at sample " << i);
            NS_TEST_ASSERT_MSG_EQ(sleep.targets[i], run.targets[i], "Rt at sample " << i);
        }
        // The last sample is after the timer's end: back at line rate.
        NS_TEST_ASSERT_MSG_EQ(run.rates.back(), 100e9, "recovered to line rate");
        // The eager timer's expiries at 30, 40, 50, 75 and 85 us find the
        // queue pair idle: with "sleep" they are not events.
        NS_TEST_ASSERT_MSG_LT(sleep.events, run.events, "sleeping timers save events");
    }
};

/**
 * \ingroup rocev2
 * The same incast with IdleTimers "run" and "sleep": every message completes
 * at the same time step, the receiver sends the same number of CNPs, each
 * sender decreases as often, every data frame leaves at the same time step
 * with bit-identical Rc and Rt, and the receiver's NIC receives the same
 * frames at the same times. Only events that changed nothing disappear, so
 * "sleep" executes strictly fewer events.
 *
 * For the comparison to mean something the scenario must make a sleeping
 * timer matter: the incast must cut the rates (CNPs > 0, decreases > 0), and
 * at least one message after an idle gap must start below line rate, i.e.
 * its rate was still being raised by the timer while the sender was idle.
 */
class DcqcnIdleTimersEquivalenceTestCase : public TestCase
{
  public:
    /**
     * \param name the case
     * \param preset DCQCN preset
     * \param senders each sender's messages and gaps
     */
    DcqcnIdleTimersEquivalenceTestCase(const std::string& name,
                                       const std::string& preset,
                                       const std::vector<IdleSender>& senders)
        : TestCase("DCQCN IdleTimers sleep = run: " + name),
          m_preset(preset),
          m_senders(senders)
    {
    }

  private:
    void DoRun() override
    {
        IdleRun run = RunIdle(m_preset, m_senders, "run");
        IdleRun sleep = RunIdle(m_preset, m_senders, "sleep");
        uint32_t messages = 0;
        for (const auto& s : m_senders)
        {
            messages += s.rounds;
        }
        // The scenario exercises what it should.
        NS_TEST_ASSERT_MSG_EQ(run.completions.size(), messages, "every message completes (run)");
        NS_TEST_ASSERT_MSG_GT(run.cnpFrames, 0u, "the incast is congested");
        NS_TEST_ASSERT_MSG_GT(run.belowLineAfterGap,
                              0u,
                              "a message after an idle gap starts below line rate");
        // Identical in everything observable.
        NS_TEST_ASSERT_MSG_EQ(sleep.completions.size(), run.completions.size(), "messages");
        NS_TEST_ASSERT_MSG_EQ((sleep.completions == run.completions), true, "completion times");
        NS_TEST_ASSERT_MSG_EQ(sleep.cnpFrames, run.cnpFrames, "CNP frames");
        NS_TEST_ASSERT_MSG_EQ((sleep.decreases == run.decreases), true, "rate decreases");
        NS_TEST_ASSERT_MSG_EQ(sleep.sendTimes.size(), run.sendTimes.size(), "data frames sent");
        NS_TEST_ASSERT_MSG_EQ((sleep.sendTimes == run.sendTimes), true, "data frame times");
        for (std::size_t i = 0; i < std::min(sleep.sendRates.size(), run.sendRates.size()); ++i)
        {
            // Bit-identical: the same arithmetic in the same order.
            NS_TEST_ASSERT_MSG_EQ(sleep.sendRates[i], run.sendRates[i], "Rc at data frame " << i);
            NS_TEST_ASSERT_MSG_EQ(sleep.sendTargets[i],
                                  run.sendTargets[i],
                                  "Rt at data frame " << i);
            if (sleep.sendRates[i] != run.sendRates[i] ||
                sleep.sendTargets[i] != run.sendTargets[i])
            {
                break;
            }
        }
        NS_TEST_ASSERT_MSG_EQ((sleep.rxWire == run.rxWire), true, "receiver's frame times");
        NS_TEST_ASSERT_MSG_EQ((sleep.rxSizes == run.rxSizes), true, "receiver's frame sizes");
        NS_TEST_ASSERT_MSG_LT(sleep.events, run.events, "sleeping timers save events");
    }

    std::string m_preset;              //!< DCQCN preset
    std::vector<IdleSender> m_senders; //!< the senders' work
};

/**
 * \ingroup rocev2
 * DCQCN idle-timer suite.
 */
class RoceDcqcnIdleTestSuite : public TestSuite
{
  public:
    RoceDcqcnIdleTestSuite()
        : TestSuite("rocev2-dcqcn-idle", Type::SYSTEM)
    {
        AddTestCase(new DcqcnIdleTimersHooksTestCase, RoceTestDuration::QUICK);
        // paper-2015: 55 us timer, so a 200 us gap holds three skipped expiries.
        AddTestCase(new DcqcnIdleTimersEquivalenceTestCase(
                        "2 MB, 200 us idle, 2 MB again, next to a 2 x 1 MB sender (paper-2015)",
                        "paper-2015",
                        {{2000000, 3, MicroSeconds(200)}, {1000000, 2, MicroSeconds(500)}}),
                    RoceTestDuration::QUICK);
        // hpcc-sim: 900 us timer; 2 ms gaps hold two skipped expiries each.
        AddTestCase(new DcqcnIdleTimersEquivalenceTestCase(
                        "2-sender incast, 2 x 2 MB each with 2 ms idle (hpcc-sim)",
                        "hpcc-sim",
                        {{2000000, 2, MilliSeconds(2)}, {2000000, 2, MicroSeconds(2100)}}),
                    RoceTestDuration::QUICK);
    }
};

static RoceDcqcnIdleTestSuite g_roceDcqcnIdleTestSuite; //!< static instance
