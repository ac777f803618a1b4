/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fault soak's scenario, shared by the rocev2-fault-soak example and the
 * rocev2-fault-soak test suite: one seed of a randomized faulty AI Zone.
 *
 * A 2-tier AI Zone runs a ring AllReduce over every GPU and Poisson
 * WebSearch flows between random GPUs, while faults drawn from the seed's
 * own random stream hit it: link flaps on fabric links, bit errors on one
 * link, a slow receiver, a PFC storm from a NIC (every switch port runs a
 * PFC watchdog) and a switch that fails and comes back. The run goes on
 * until nothing is left to do (or a generous limit), and then the soak
 * checks that
 *
 *  - the run ended before the limit ("ended");
 *  - no posted message is pending ("drained");
 *  - every flow completed or failed, and the AllReduce finished or lost a
 *    queue pair to the error state ("accounted");
 *  - the end-of-run invariants hold, RoceInvariants::Check(true)
 *    ("invariants");
 *  - per queue pair, the receiver accepted in order exactly the bytes and
 *    messages the sender had acknowledged when every message completed, no
 *    fewer bytes than it had acknowledged when one failed, and a flow's
 *    bytes when it completed; a finished AllReduce's ranks received every
 *    byte that was sent ("exactly-once").
 */
#ifndef ROCEV2_FAULT_SOAK_H
#define ROCEV2_FAULT_SOAK_H

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-command-line.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-fct-stats.h"
#include "ns3/roce-flow-app.h"
#include "ns3/roce-invariants.h"
#include "ns3/roce-pfc-watchdog.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-size-cdf.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/roce-workload-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Settings of the fault soak's scenario.
 *
 * Time scales: the faults fall within the first `duration`; queue pairs time
 * out after `rto` and give up after `retryCount` timeouts without progress,
 * routing learns a link change after `detection`, and the watchdog fires on
 * a queue stalled for `watchdogTimeout`. With the defaults a retry budget
 * is 8 x 100 us of no progress: queue pairs ride out link flaps, storms and
 * a spine outage, while a leaf outage (up to half of `duration`) can outlast
 * it, and then the queue pairs of the leaf's GPUs fail their messages with
 * a reason (retries exhausted).
 */
struct RoceFaultSoakConfig
{
    uint32_t gpus{32};                       //!< GPUs of the zone (whole racks of 16)
    uint32_t uplinks{8};                     //!< uplinks per RTSW
    uint32_t ctsws{4};                       //!< CTSWs (uplinks is a multiple of it)
    Time duration{MilliSeconds(2)};          //!< background arrivals and fault window
    double load{0.2};                        //!< WebSearch load per GPU, share of its link
    std::string cc{"dcqcn"};                 //!< none, dcqcn, hpcc, timely, dctcp
    std::string dcqcnPreset;                 //!< DCQCN preset ("": nvidia-cx)
    uint64_t collectiveBytes{4 << 20};       //!< AllReduce size
    uint32_t channels{2};                    //!< AllReduce rings
    std::string cdfPath;                     //!< WebSearch flow-size CDF file
    Time rto{MicroSeconds(100)};             //!< RoceQueuePair::RetransmitTimeout
    uint32_t retryCount{7};                  //!< RoceQueuePair::RetryCount
    Time detection{MicroSeconds(100)};       //!< RoceFaultInjector::DetectionDelay
    Time watchdogTimeout{MicroSeconds(100)}; //!< RocePfcWatchdog::Timeout (and RecoveryTime)
    Time watchdogInterval{MicroSeconds(20)}; //!< RocePfcWatchdog::Interval
    Time limit{MilliSeconds(500)};           //!< a run still busy then did not end
    /// Called after each run, before Simulator::Destroy (e.g. to print the fault log).
    std::function<void(const RoceFaultHelper&)> afterRun;
};

/**
 * \ingroup rocev2
 * \brief What one seed of the soak did, and which properties it broke.
 */
struct RoceFaultSoakResult
{
    uint32_t seed{0};                        //!< RngRun
    uint32_t linkFlaps{0};                   //!< flapping fabric links
    uint32_t bitErrorLinks{0};               //!< links with bit errors
    uint32_t slowReceivers{0};               //!< slow receivers
    uint32_t pfcStorms{0};                   //!< PFC storms
    uint32_t switchFailures{0};              //!< switches failed (and back)
    double ber{0};                           //!< the bit error rate drawn
    std::string switchName;                  //!< the switch that failed
    uint64_t faultEvents{0};                 //!< fault log lines (applied changes, reroutes)
    std::map<std::string, uint64_t> applied; //!< fault log lines by kind
    uint64_t flows{0};                       //!< background flows
    uint64_t flowsCompleted{0};              //!< completed
    uint64_t flowsFailed{0};                 //!< failed (queue pair error state)
    bool collectiveFinished{false};          //!< the AllReduce finished
    bool collectiveFailed{false};            //!< a queue pair of the AllReduce failed
    uint64_t bytesDelivered{0};              //!< payload accepted in order, every receiver
    uint64_t messagesPosted{0};              //!< every QP
    uint64_t messagesCompleted{0};           //!< completed
    uint64_t messagesFailed{0};              //!< failed
    uint64_t messagesPending{0};             //!< neither
    uint64_t retransmits{0};                 //!< data packets sent again
    uint64_t timeouts{0};                    //!< retransmission timer expiries
    uint64_t watchdogTriggers{0};            //!< PFC watchdog firings, every switch port
    uint64_t watchdogDrops{0};               //!< frames the watchdogs dropped
    uint64_t qpPairs{0};                     //!< queue pairs checked for exactly-once
    bool ended{false};                       //!< the run ended before the limit
    double simMs{0};                         //!< simulated time at the end
    double wallSeconds{0};                   //!< wall time of the seed
    RoceInvariantReport invariants;          //!< RoceInvariants::Check(true)
    std::vector<std::string> broken;         //!< "property: detail", one per broken property

    /** \return true if every property held */
    bool Ok() const
    {
        return broken.empty();
    }
};

namespace RoceFaultSoak
{

/// First random stream of the background flows (RoceWorkloadHelper::Poisson takes 4).
constexpr int64_t WORKLOAD_STREAM = 1;
/// Random stream the faults are drawn from.
constexpr int64_t FAULT_DRAW_STREAM = 10;
/// First random stream of the bit-error models.
constexpr int64_t LOSS_STREAM = 20;
/// How often the run checks whether its work is done.
const Time POLL_INTERVAL = MicroSeconds(20);
/// Most lines of one property kept per seed.
constexpr std::size_t MAX_DETAILS = 4;

/** The faults one seed draws, before they are scheduled. */
struct RoceFaultDraw
{
    Ptr<UniformRandomVariable> u; //!< the seed's fault stream

    /** \return uniform in [a, b) */
    double Real(double a, double b)
    {
        return u->GetValue(a, b);
    }

    /** \return uniform integer in [a, b] */
    uint32_t Int(uint32_t a, uint32_t b)
    {
        return u->GetInteger(a, b);
    }

    /** \return a share of d, uniform in [a, b) */
    Time Share(Time d, double a, double b)
    {
        return NanoSeconds(static_cast<int64_t>(d.GetNanoSeconds() * Real(a, b)));
    }
};

/**
 * \param zone the fabric \param d the draws
 * \return a random RTSW-CTSW link
 */
inline Ptr<RoceChannel>
RandomFabricLink(const RoceAiZone& zone, RoceFaultDraw& d)
{
    Ptr<Node> rtsw = zone.rtsw.Get(d.Int(0, zone.rtsw.GetN() - 1));
    Ptr<Node> ctsw = zone.ctsw.Get(d.Int(0, zone.ctsw.GetN() - 1));
    std::vector<Ptr<RoceChannel>> links = RoceFaultHelper::LinksBetween(rtsw, ctsw);
    NS_ABORT_MSG_IF(links.empty(), "rocev2-fault-soak: an RTSW without a link to a CTSW");
    return links[d.Int(0, links.size() - 1)];
}

/**
 * \brief Draw the seed's faults and schedule them.
 * \param zone the fabric \param cfg the settings \param faults the helper
 * \param r where the counts go
 */
inline void
ScheduleFaults(const RoceAiZone& zone,
               const RoceFaultSoakConfig& cfg,
               RoceFaultHelper& faults,
               RoceFaultSoakResult& r)
{
    RoceFaultDraw d{CreateObject<UniformRandomVariable>()};
    d.u->SetStream(FAULT_DRAW_STREAM);
    const Time w = cfg.duration;
    const uint32_t nGpus = zone.GetNGpus();

    // 1-3 flapping fabric links.
    r.linkFlaps = d.Int(1, 3);
    for (uint32_t i = 0; i < r.linkFlaps; ++i)
    {
        Ptr<RoceChannel> link = RandomFabricLink(zone, d);
        const Time start = d.Share(w, 0, 0.6);
        const Time period = d.Share(w, 0.025, 0.1);
        faults.LinkFlap(start, link, period, d.Real(0.2, 0.6), start + d.Share(w, 0.1, 0.4));
    }

    // Bit errors on a fabric link or a GPU's host link, BER log-uniform in [1e-7, 1e-4].
    Ptr<RoceChannel> lossy;
    if (d.Int(0, 1) == 0)
    {
        lossy = RandomFabricLink(zone, d);
    }
    else
    {
        lossy = DynamicCast<RoceChannel>(zone.GetNic(d.Int(0, nGpus - 1))->GetChannel());
    }
    r.ber = std::pow(10.0, d.Real(-7, -4));
    const Time lossAt = d.Share(w, 0, 0.5);
    faults.LinkLoss(lossAt, lossy, r.ber, true, lossAt + d.Share(w, 0.1, 0.4));
    r.bitErrorLinks = 1;

    // A slow receiver.
    const Time slowAt = d.Share(w, 0, 0.6);
    faults.SlowReceiver(slowAt,
                        zone.GetNic(d.Int(0, nGpus - 1)),
                        DataRate(static_cast<uint64_t>(d.Real(10, 100) * 1e9)),
                        d.Share(w, 0.05, 0.25));
    r.slowReceivers = 1;

    // A PFC storm from a NIC, longer than the watchdog's timeout.
    const Time stormAt = d.Share(w, 0, 0.6);
    const Time storm = std::max(d.Share(w, 0.1, 0.3), 2 * cfg.watchdogTimeout);
    faults.PfcStorm(stormAt, zone.GetNic(d.Int(0, nGpus - 1)), 3, storm);
    r.pfcStorms = 1;

    // A leaf or spine fails, and comes back.
    const uint32_t nSwitches = zone.rtsw.GetN() + zone.ctsw.GetN();
    const uint32_t s = d.Int(0, nSwitches - 1);
    Ptr<Node> sw = s < zone.rtsw.GetN() ? zone.rtsw.Get(s) : zone.ctsw.Get(s - zone.rtsw.GetN());
    r.switchName = s < zone.rtsw.GetN() ? "rtsw" + std::to_string(s)
                                        : "ctsw" + std::to_string(s - zone.rtsw.GetN());
    const Time downAt = d.Share(w, 0.1, 0.6);
    faults.SwitchDown(downAt, sw);
    faults.SwitchUp(downAt + d.Share(w, 0.05, 0.5), sw);
    r.switchFailures = 1;
}

/**
 * \brief Turn the PFC watchdog on at every switch port of the zone.
 * \param zone the fabric \param cfg the settings
 */
inline void
EnableWatchdogs(const RoceAiZone& zone, const RoceFaultSoakConfig& cfg)
{
    for (const NodeContainer* tier : {&zone.rtsw, &zone.ctsw, &zone.atsw})
    {
        for (uint32_t i = 0; i < tier->GetN(); ++i)
        {
            Ptr<RoceSwitch> sw = tier->Get(i)->GetObject<RoceSwitch>();
            for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
            {
                Ptr<RocePfcWatchdog> wd = sw->GetPort(p)->GetPfcWatchdog();
                wd->SetAttribute("Enabled", BooleanValue(true));
                wd->SetAttribute("Timeout", TimeValue(cfg.watchdogTimeout));
                wd->SetAttribute("Interval", TimeValue(cfg.watchdogInterval));
                wd->SetAttribute("RecoveryTime", TimeValue(cfg.watchdogTimeout));
            }
        }
    }
}

/**
 * \brief Sum the watchdogs' triggers and dropped frames over every switch port.
 * \param zone the fabric \param r where they go
 */
inline void
CountWatchdogs(const RoceAiZone& zone, RoceFaultSoakResult& r)
{
    for (const NodeContainer* tier : {&zone.rtsw, &zone.ctsw, &zone.atsw})
    {
        for (uint32_t i = 0; i < tier->GetN(); ++i)
        {
            Ptr<RoceSwitch> sw = tier->Get(i)->GetObject<RoceSwitch>();
            for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
            {
                const RocePfcWatchdog::Stats s = sw->GetPort(p)->GetPfcWatchdogStats();
                r.watchdogTriggers += std::accumulate(s.triggers.begin(), s.triggers.end(), 0ULL);
                r.watchdogDrops +=
                    std::accumulate(s.droppedFrames.begin(), s.droppedFrames.end(), 0ULL);
            }
        }
    }
}

/** Adds "property: detail" lines to a result, at most MAX_DETAILS per property. */
struct RoceSoakBreaks
{
    RoceFaultSoakResult& r;               //!< the result
    std::map<std::string, std::size_t> n; //!< lines per property

    /** \param property its name \param detail what broke */
    void Add(const std::string& property, const std::string& detail)
    {
        if (++n[property] <= MAX_DETAILS)
        {
            r.broken.push_back(property + ": " + detail);
        }
        else if (n[property] == MAX_DETAILS + 1)
        {
            r.broken.push_back(property + ": ... and more");
        }
    }
};

/// A flow's sender queue pair: its NIC's address, the peer's, its source port.
typedef std::tuple<uint32_t, uint32_t, uint16_t> RoceFlowQpKey;

/**
 * \param stats the flows' records
 * \return the sender queue pair of every finished flow, with its record
 */
inline std::map<RoceFlowQpKey, const RoceFctRecord*>
FinishedFlows(Ptr<RoceFctStats> stats)
{
    std::map<RoceFlowQpKey, const RoceFctRecord*> flows;
    for (const RoceFctRecord& rec : stats->GetRecords())
    {
        flows[{rec.sip.Get(), rec.dip.Get(), rec.sport}] = &rec;
    }
    return flows;
}

/**
 * \param zone the fabric \param stats the flows' records (all flows finished)
 * \return true if a queue pair that carries no flow (one of the AllReduce) failed a message
 */
inline bool
CollectiveQpFailed(const RoceAiZone& zone, Ptr<RoceFctStats> stats)
{
    const std::map<RoceFlowQpKey, const RoceFctRecord*> flows = FinishedFlows(stats);
    for (uint32_t g = 0; g < zone.GetNGpus(); ++g)
    {
        Ptr<RoceNetDevice> nic = zone.GetNic(g);
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            Ptr<RoceQueuePair> qp = nic->GetQpByIndex(q);
            if (qp->GetStats().messagesFailed > 0 && flows.count({nic->GetIpv4Address().Get(),
                                                                  qp->GetRemoteAddress().Get(),
                                                                  qp->GetSourcePort()}) == 0)
            {
                return true;
            }
        }
    }
    return false;
}

/**
 * \param zone the fabric \param stats the flows' records \param app the AllReduce
 * \return true once every flow has completed or failed, the AllReduce has
 *         finished or lost a queue pair, and no message is outstanding
 */
inline bool
WorkDone(const RoceAiZone& zone, Ptr<RoceFctStats> stats, Ptr<RoceCollectiveApp> app)
{
    if (stats->GetCompleted() + stats->GetFailed() < stats->GetExpected())
    {
        return false;
    }
    for (uint32_t g = 0; g < zone.GetNGpus(); ++g)
    {
        Ptr<RoceNetDevice> nic = zone.GetNic(g);
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            const RoceQueuePair::Stats& s = nic->GetQpByIndex(q)->GetStats();
            if (s.messagesCompleted + s.messagesFailed < s.messagesPosted)
            {
                return false;
            }
        }
    }
    return app->IsFinished() || CollectiveQpFailed(zone, stats);
}

/**
 * \brief The exactly-once check of every queue pair that posted a message,
 * against its peer at the other NIC; also tells flows from the AllReduce.
 * \param zone the fabric \param stats the flows' records
 * \param r the result (collectiveFailed, qpPairs) \param b broken properties
 */
inline void
CheckQueuePairs(const RoceAiZone& zone,
                Ptr<RoceFctStats> stats,
                RoceFaultSoakResult& r,
                RoceSoakBreaks& b)
{
    std::map<uint32_t, Ptr<RoceNetDevice>> byAddress;
    for (uint32_t g = 0; g < zone.GetNGpus(); ++g)
    {
        Ptr<RoceNetDevice> nic = zone.GetNic(g);
        byAddress[nic->GetIpv4Address().Get()] = nic;
    }
    const std::map<RoceFlowQpKey, const RoceFctRecord*> flows = FinishedFlows(stats);
    for (uint32_t g = 0; g < zone.GetNGpus(); ++g)
    {
        Ptr<RoceNetDevice> nic = zone.GetNic(g);
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            Ptr<RoceQueuePair> qa = nic->GetQpByIndex(q);
            const RoceQueuePair::Stats& sa = qa->GetStats();
            if (sa.messagesPosted == 0)
            {
                continue;
            }
            std::ostringstream where;
            where << nic->GetIpv4Address() << " QP " << qa->GetQpn() << " -> "
                  << qa->GetRemoteAddress() << " QP " << qa->GetRemoteQpn();
            auto peer = byAddress.find(qa->GetRemoteAddress().Get());
            Ptr<RoceQueuePair> qb =
                peer == byAddress.end() ? nullptr : peer->second->GetQp(qa->GetRemoteQpn());
            if (!qb)
            {
                b.Add("exactly-once", where.str() + ": no peer queue pair");
                continue;
            }
            ++r.qpPairs;
            const RoceQueuePair::Stats& sb = qb->GetStats();
            std::ostringstream counts;
            counts << ": sender acknowledged " << sa.bytesAcked << " B in " << sa.messagesCompleted
                   << " of " << sa.messagesPosted << " message(s) (" << sa.messagesFailed
                   << " failed), receiver accepted " << sb.bytesDelivered << " B in "
                   << sb.messagesReceived;
            if (sb.bytesDelivered < sa.bytesAcked)
            {
                b.Add("exactly-once", where.str() + counts.str() + " (bytes acknowledged, lost)");
            }
            if (sa.messagesFailed == 0 &&
                (sb.bytesDelivered != sa.bytesAcked || sb.messagesReceived != sa.messagesCompleted))
            {
                b.Add("exactly-once", where.str() + counts.str());
            }
            if (sb.messagesReceived < sa.messagesCompleted ||
                sb.messagesReceived > sa.messagesPosted)
            {
                b.Add("exactly-once", where.str() + counts.str() + " (message count)");
            }
            auto flow = flows.find(
                {nic->GetIpv4Address().Get(), qa->GetRemoteAddress().Get(), qa->GetSourcePort()});
            if (flow == flows.end())
            {
                r.collectiveFailed = r.collectiveFailed || sa.messagesFailed > 0;
                continue;
            }
            const RoceFctRecord& rec = *flow->second;
            if (!rec.failed && (sa.bytesAcked != rec.bytes || sb.bytesDelivered != rec.bytes))
            {
                b.Add("exactly-once",
                      where.str() + counts.str() + ", flow of " + std::to_string(rec.bytes) + " B");
            }
            if (rec.failed && sb.bytesDelivered > rec.bytes)
            {
                b.Add("exactly-once",
                      where.str() + counts.str() + ", failed flow of " + std::to_string(rec.bytes) +
                          " B");
            }
        }
    }
}

/**
 * \brief Run one seed: build, load, fault, run, check; Simulator::Destroy at the end.
 * \param cfg the settings \param seed the run number (RngRun)
 * \return what happened
 */
inline RoceFaultSoakResult
RunSeed(const RoceFaultSoakConfig& cfg, uint32_t seed)
{
    const auto wall0 = std::chrono::steady_clock::now();
    RngSeedManager::SetRun(seed);
    RoceFaultSoakResult r;
    r.seed = seed;
    RoceSoakBreaks b{r, {}};

    RoceAiZoneHelper zoneHelper;
    zoneHelper.SetTiers(2);
    zoneHelper.SetGpus(cfg.gpus);
    zoneHelper.SetUplinks(cfg.uplinks);
    zoneHelper.SetCtsws(cfg.ctsws);
    RoceCli::MakeCongestionControl(cfg.cc, cfg.dcqcnPreset).Configure(zoneHelper);
    RoceAiZone zone = zoneHelper.Build();
    EnableWatchdogs(zone, cfg);

    // The AllReduce over every GPU.
    std::vector<uint32_t> ranks(zone.GetNGpus());
    std::iota(ranks.begin(), ranks.end(), 0);
    RoceCollectiveHelper coll;
    coll.SetQpAttribute("RetransmitTimeout", TimeValue(cfg.rto));
    coll.SetQpAttribute("RetryCount", UintegerValue(cfg.retryCount));
    coll.SetCollectiveAttribute("Channels", UintegerValue(cfg.channels));
    coll.SetAppAttribute("Operation", StringValue("allreduce"));
    Ptr<RoceCommunicator> comm = coll.CreateCommunicator(zone, ranks);
    Ptr<RoceCollectiveApp> app = coll.Install(comm, {cfg.collectiveBytes});

    // WebSearch flows between random GPUs, one RoceFlowApp per sending GPU.
    const RoceSizeCdf cdf = RoceSizeCdf::Read(cfg.cdfPath);
    std::vector<RoceFlowSpec> specs = RoceWorkloadHelper::Poisson(zone.GetNGpus(),
                                                                  cdf,
                                                                  cfg.load,
                                                                  zone.linkRate,
                                                                  MicroSeconds(1),
                                                                  cfg.duration,
                                                                  WORKLOAD_STREAM);
    ObjectFactory qpFactory("ns3::RoceQueuePair");
    qpFactory.Set("RetransmitTimeout", TimeValue(cfg.rto));
    qpFactory.Set("RetryCount", UintegerValue(cfg.retryCount));
    Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
    std::map<uint32_t, Ptr<RoceFlowApp>> apps;
    for (const RoceFlowSpec& f : specs)
    {
        Ptr<RoceFlowApp>& flowApp = apps[f.src];
        if (!flowApp)
        {
            flowApp = CreateObject<RoceFlowApp>();
            flowApp->Setup(zone.GetNic(f.src), stats);
            flowApp->SetQpFactory(qpFactory);
            zone.GetServer(f.src)->AddApplication(flowApp);
        }
        flowApp->AddFlow(f, zone.GetNic(f.dst));
    }
    stats->AddExpected(specs.size());
    r.flows = specs.size();

    RoceFaultHelper faults;
    faults.AddNames(zone);
    faults.SetDetectionDelay(cfg.detection);
    ScheduleFaults(zone, cfg, faults, r);
    faults.AssignStreams(LOSS_STREAM);

    // Run until the work is done: every flow completed or failed, the
    // AllReduce finished or lost a queue pair, and no queue pair has a
    // message outstanding; a run still busy at the limit did not end.
    std::function<void()> poll = [&]() {
        if (WorkDone(zone, stats, app))
        {
            r.ended = true;
            Simulator::Stop();
        }
        else if (Simulator::Now() >= cfg.limit)
        {
            Simulator::Stop();
        }
        else
        {
            Simulator::Schedule(POLL_INTERVAL, poll);
        }
    };
    Simulator::Schedule(POLL_INTERVAL, poll);
    Simulator::Run();
    r.simMs = Simulator::Now().GetSeconds() * 1e3;
    if (cfg.afterRun)
    {
        cfg.afterRun(faults);
    }

    for (const std::string& line : faults.GetLog())
    {
        ++r.faultEvents;
        // "TIME KIND ...": count by kind.
        std::istringstream in(line);
        std::string time;
        std::string kind;
        in >> time >> kind;
        ++r.applied[kind];
    }
    r.invariants = RoceInvariants::Check(true);
    const RoceFabricStats fabric = RoceFabricStats::Collect();
    r.bytesDelivered = fabric.bytesDelivered;
    r.retransmits = fabric.retransmits;
    r.timeouts = fabric.timeouts;
    r.messagesPosted = r.invariants.messagesPosted;
    r.messagesCompleted = r.invariants.messagesCompleted;
    r.messagesFailed = r.invariants.messagesFailed;
    r.messagesPending = r.invariants.messagesPending;
    r.flowsCompleted = stats->GetCompleted();
    r.flowsFailed = stats->GetFailed();
    r.collectiveFinished = app->IsFinished();
    CountWatchdogs(zone, r);
    CheckQueuePairs(zone, stats, r, b);

    if (!r.ended)
    {
        b.Add("ended",
              "still running at the limit of " + std::to_string(cfg.limit.GetSeconds()) +
                  " s (simulated)");
    }
    if (r.messagesPending > 0)
    {
        b.Add("drained",
              std::to_string(r.messagesPending) + " message(s) neither completed nor failed");
    }
    if (r.flowsCompleted + r.flowsFailed != r.flows)
    {
        b.Add("accounted",
              std::to_string(r.flows - r.flowsCompleted - r.flowsFailed) + " of " +
                  std::to_string(r.flows) + " flow(s) neither completed nor failed");
    }
    if (!r.collectiveFinished && !r.collectiveFailed)
    {
        b.Add("accounted", "the AllReduce did not finish and none of its queue pairs failed");
    }
    if (r.collectiveFinished)
    {
        uint64_t sent = 0;
        uint64_t received = 0;
        for (uint32_t k = 0; k < comm->GetNRanks(); ++k)
        {
            sent += comm->GetBytesSent(k);
            received += comm->GetBytesReceived(k);
        }
        if (sent != received)
        {
            b.Add("exactly-once",
                  "the AllReduce's ranks sent " + std::to_string(sent) + " B and received " +
                      std::to_string(received) + " B");
        }
    }
    for (const std::string& v : r.invariants.violations)
    {
        b.Add("invariants", v);
    }
    Simulator::Destroy();
    r.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return r;
}

} // namespace RoceFaultSoak
} // namespace ns3

#endif // ROCEV2_FAULT_SOAK_H
