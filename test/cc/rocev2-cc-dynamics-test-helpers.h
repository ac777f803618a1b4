/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The scenario of the congestion-control dynamics suites (rocev2-cc-dynamics,
 * rocev2-cc-rtt-unfairness): N senders and one receiver on one switch, flows
 * that join and leave, throughput sampled at the receivers; and each
 * algorithm's model (CcModel): its configuration and the fluid-model time to
 * reach the share, derived from its published increase rule.
 */
#ifndef ROCEV2_CC_DYNAMICS_TEST_HELPERS_H
#define ROCEV2_CC_DYNAMICS_TEST_HELPERS_H

#include "../rocev2-jain.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/node-container.h"
#include "ns3/queue-size.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

// ---------------------------------------------------------------------------
// The fabric: N senders and one receiver on one switch, 100 Gb/s links. The
// switch's port to the receiver is the bottleneck.

/// Link rate, bit/s (DCQCN runs at the 40 Gb/s of its paper: see Dcqcn()).
constexpr double LINK_BPS = 100e9;
/// Payload MTU (the NIC default).
constexpr uint32_t MTU = 1024;
/// Wire bytes of a full data packet beyond its payload (RoceNetDevice::DATA_WIRE_OVERHEAD).
constexpr uint32_t OVERHEAD = 82;
/// Wire bytes of an ACK: Ethernet, IPv4, UDP, BTH, AETH, ICRC, FCS, preamble and gap.
constexpr uint32_t ACK_WIRE = 86;

/**
 * \param linkBps a link rate, bit/s
 * \return the payload goodput of the link fully used, bit/s (92.6 Gb/s at 100 Gb/s)
 */
inline double
Goodput(double linkBps)
{
    return linkBps * MTU / (MTU + OVERHEAD);
}

/// Propagation delay of the receiver's link and of every short-RTT sender's link.
const Time LINK_DELAY = MicroSeconds(1);
/// A flow's throughput is "at its share" within this fraction of the mean per-flow throughput.
constexpr double SHARE_TOLERANCE = 0.2;
/// The measured convergence time may exceed the fluid-model estimate by this factor.
constexpr double SLACK = 2.0;

/**
 * \param senderDelay propagation delay of the sender's link
 * \param linkBps the link rate, bit/s
 * \return the unloaded RTT of a flow: its two links crossed twice, a data
 *         packet serialised at the sender and at the switch, its ACK at the
 *         receiver and at the switch (4.19 us with 1 us links at 100 Gb/s;
 *         measured 4.19 us)
 */
inline Time
BaseRtt(Time senderDelay, double linkBps = LINK_BPS)
{
    double serialise = 2.0 * (MTU + OVERHEAD + ACK_WIRE) * 8 / linkBps;
    return 2 * (senderDelay + LINK_DELAY) + Seconds(serialise);
}

/**
 * \param rtt the unloaded RTT wanted \param linkBps the link rate, bit/s
 * \return the sender's link delay that gives it
 */
inline Time
SenderDelayFor(Time rtt, double linkBps)
{
    return (rtt - BaseRtt(Time(0), linkBps)) / 2;
}

/// One long flow: a sender that keeps `depth` messages posted while it is active.
struct DynFlow
{
    Time join;                    //!< when it starts posting
    Time leave{Time::Max()};      //!< when it stops posting (it then drains what it posted)
    Time access{MicroSeconds(1)}; //!< propagation delay of its sender's link
};

/// N senders to one receiver through one switch.
struct DynScenario
{
    std::vector<DynFlow> flows;                                    //!< the flows
    Time end;                                                      //!< stop the simulation
    double linkBps{LINK_BPS};                                      //!< link rate, bit/s
    Time sample{MicroSeconds(10)};                                 //!< sampling period
    uint64_t chunk{65536};                                         //!< bytes per message
    uint32_t depth{8};                                             //!< messages posted at once
    std::function<void(RoceHelper&, RoceSwitchHelper&)> configure; //!< congestion control
};

/// What a DynScenario run measured.
struct DynRun
{
    std::vector<Time> t;                   //!< sample times (k x sample period)
    std::vector<std::vector<uint64_t>> rx; //!< [sample][flow] bytes delivered
    std::vector<Time> gone;                //!< when a leaving flow's last message completed
    RoceFabricStats stats;                 //!< fabric counters

    /**
     * \param flow a flow \param a first sample \param b last sample
     * \return the flow's throughput between the two samples, bit/s
     */
    double Rate(std::size_t flow, std::size_t a, std::size_t b) const
    {
        return (rx[b][flow] - rx[a][flow]) * 8.0 / (t[b] - t[a]).GetSeconds();
    }

    /** \param at a time \return the index of the first sample at or after it */
    std::size_t SampleFrom(Time at) const
    {
        return std::lower_bound(t.begin(), t.end(), at) - t.begin();
    }

    /** \param at a time \return the index of the last sample at or before it */
    std::size_t SampleTo(Time at) const
    {
        std::size_t i = std::upper_bound(t.begin(), t.end(), at) - t.begin();
        return i == 0 ? 0 : i - 1;
    }
};

/// A sender's posting state.
struct FlowSource
{
    Ptr<RoceQueuePair> qp; //!< its queue pair
    uint64_t chunk{0};     //!< bytes per message
    bool active{false};    //!< posting
    uint32_t posted{0};    //!< messages not yet completed
    Time gone;             //!< when it finished after leaving
};

inline void PostChunk(FlowSource* f);

/**
 * \param f the sender \param c the completed message
 */
inline void
ChunkDone(FlowSource* f, const RoceCompletion& c)
{
    --f->posted;
    if (f->active)
    {
        PostChunk(f);
    }
    else if (f->posted == 0)
    {
        f->gone = c.completed;
    }
}

/** \param f the sender: post one more message */
inline void
PostChunk(FlowSource* f)
{
    ++f->posted;
    f->qp->PostWrite(f->chunk, Callback<void, const RoceCompletion&>([f](const RoceCompletion& c) {
                         ChunkDone(f, c);
                     }));
}

/**
 * Run a scenario.
 * \param sc the scenario
 * \return what it measured
 */
inline DynRun
RunDynamics(const DynScenario& sc)
{
    const uint32_t n = sc.flows.size();
    NodeContainer sw(1);
    NodeContainer hosts(n + 1);
    RoceSwitchHelper switches;
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate(sc.linkBps)));
    roce.SetQpAttribute("RetransmitTimeout", TimeValue(MilliSeconds(1)));
    sc.configure(roce, switches);
    switches.Install(sw);
    NetDeviceContainer nics;
    roce.SetChannelAttribute("Delay", TimeValue(LINK_DELAY));
    nics.Add(roce.Install(hosts.Get(0), sw.Get(0)).Get(0)); // port 0 faces the receiver
    for (uint32_t s = 0; s < n; ++s)
    {
        roce.SetChannelAttribute("Delay", TimeValue(sc.flows[s].access));
        nics.Add(roce.Install(hosts.Get(s + 1), sw.Get(0)).Get(0));
    }
    RoceSwitchHelper::PopulateRoutes();
    RoceSwitchHelper::AssignStreams(100);

    std::vector<FlowSource> src(n);
    std::vector<Ptr<RoceQueuePair>> rx;
    for (uint32_t s = 0; s < n; ++s)
    {
        auto qps = roce.CreateQp(nics.Get(s + 1), nics.Get(0));
        src[s].qp = qps.first;
        src[s].chunk = sc.chunk;
        rx.push_back(qps.second);
        FlowSource* f = &src[s];
        uint32_t depth = sc.depth;
        Simulator::Schedule(sc.flows[s].join, [f, depth]() {
            f->active = true;
            for (uint32_t i = 0; i < depth; ++i)
            {
                PostChunk(f);
            }
        });
        if (sc.flows[s].leave < sc.end)
        {
            Simulator::Schedule(sc.flows[s].leave, [f]() { f->active = false; });
        }
    }
    DynRun r;
    for (Time at = Time(0); at <= sc.end; at += sc.sample)
    {
        Simulator::Schedule(at, [&r, &rx]() {
            r.t.push_back(Simulator::Now());
            std::vector<uint64_t> bytes;
            for (const auto& q : rx)
            {
                bytes.push_back(q->GetStats().bytesDelivered);
            }
            r.rx.push_back(bytes);
        });
    }
    Simulator::Stop(sc.end + NanoSeconds(1));
    Simulator::Run();
    r.stats = RoceFabricStats::Collect();
    for (uint32_t s = 0; s < n; ++s)
    {
        r.gone.push_back(src[s].gone);
    }
    Simulator::Destroy();
    return r;
}

// ---------------------------------------------------------------------------
// What each algorithm's published rules say about how fast it converges.

/**
 * One algorithm under test: how to configure it, how to measure it, and the
 * time its published rules need to reach the max-min share after a flow
 * joins or leaves, derived from the attributes it is configured with.
 */
struct CcModel
{
    std::string name;                                              //!< for messages
    double linkBps{LINK_BPS};                                      //!< link rate, bit/s
    std::function<void(RoceHelper&, RoceSwitchHelper&)> configure; //!< both halves
    Time sample;                                                   //!< sampling period
    Time window;        //!< throughput is measured over windows this long
    double utilisation; //!< aggregate goodput at the share, fraction of Goodput()
    /// The fluid-model time to reach the share once k flows share the link
    /// (after a join, or after a leave), before SLACK and the window.
    std::function<Time(uint32_t k, bool join)> estimate;
    std::string rule; //!< what the estimate is, for messages

    /**
     * \param k flows sharing the link after the change \param join a flow joined (else one left)
     * \return the bound: SLACK x the estimate, plus one measurement window
     */
    Time Bound(uint32_t k, bool join) const
    {
        return estimate(k, join) * SLACK + window;
    }

    /** \return the goodput of the fully used bottleneck, bit/s */
    double Goodput() const
    {
        return ::Goodput(linkBps);
    }

    /** \return the base RTT of a flow on 1 us links */
    Time Rtt() const
    {
        return BaseRtt(LINK_DELAY, linkBps);
    }
};

/**
 * \param configure a congestion-control choice
 * \return the congestion-control prototype it gives the NICs
 */
inline Ptr<RoceCongestionOps>
Prototype(const std::function<void(RoceHelper&, RoceSwitchHelper&)>& configure)
{
    RoceHelper roce;
    RoceSwitchHelper switches;
    configure(roce, switches);
    return roce.CreateCongestionControl();
}

/**
 * \param cc an object \param name one of its attributes
 * \return the attribute's value as a double (DoubleValue)
 */
inline double
GetDouble(Ptr<Object> cc, const std::string& name)
{
    DoubleValue v;
    cc->GetAttribute(name, v);
    return v.Get();
}

/**
 * \param cc an object \param name one of its attributes
 * \return the attribute's value (UintegerValue)
 */
inline uint64_t
GetUint(Ptr<Object> cc, const std::string& name)
{
    UintegerValue v;
    cc->GetAttribute(name, v);
    return v.Get();
}

/**
 * \param cc an object \param name one of its attributes
 * \return the attribute's value in bit/s (DataRateValue)
 */
inline double
GetBps(Ptr<Object> cc, const std::string& name)
{
    DataRateValue v;
    cc->GetAttribute(name, v);
    return static_cast<double>(v.Get().GetBitRate());
}

/**
 * \param cc an object \param name one of its attributes
 * \return the attribute's value (TimeValue)
 */
inline Time
GetTime(Ptr<Object> cc, const std::string& name)
{
    TimeValue v;
    cc->GetAttribute(name, v);
    return v.Get();
}

/**
 * \param k flows after a join
 * \param newcomerShare the newcomer's share of the aggregate once the first
 *        (multiplicative, common) cut has preserved the ratios
 * \return how many times the newcomer's distance from the fair share must
 *         shrink before it is within SHARE_TOLERANCE of it (at least 1)
 */
inline double
JoinContraction(uint32_t k, double newcomerShare)
{
    return std::max(1.0, (k * newcomerShare - 1.0) / SHARE_TOLERANCE);
}

/**
 * HPCC (Li et al., SIGCOMM 2019). Once per RTT every flow sets
 * W = Wc eta / U + W_AI, with one factor eta / U for all flows on the
 * bottleneck: the factor keeps the ratio of the windows, and only the common
 * W_AI moves them together. With the aggregate at its target S = eta W_init
 * (W_init = B T, so U = eta), the factor is 1 - k W_AI / S, and it shrinks
 * any difference between two windows by that much per RTT. A newcomer starts
 * at W_init, so the first common cut leaves it 1 / (1 + eta) of S; its
 * distance from S / k must shrink by JoinContraction(k, 1 / (1 + eta)).
 * After a leave, U falls below eta: maxStage additive RTTs, then one
 * multiplicative increase by eta / U restores the aggregate with the ratios
 * unchanged. Add 3 RTTs: one for the INT to come back, one for the window to
 * fill the pipe, one for U's moving average. One update per base RTT (HPCC
 * keeps no standing queue).
 * \return the model
 */
inline CcModel
Hpcc()
{
    CcModel m;
    m.name = "hpcc";
    m.configure = [](RoceHelper& roce, RoceSwitchHelper& switches) {
        RoceCcHelper cc("hpcc");
        // W_AI for up to 16 flows (the largest case here): W_init (1 - eta) / 16.
        cc.SetAttribute("ExpectedFlows", UintegerValue(16));
        cc.Configure(roce, switches);
    };
    m.sample = MicroSeconds(10);
    m.window = MicroSeconds(50);
    Ptr<RoceCongestionOps> p = Prototype(m.configure);
    const double eta = GetDouble(p, "Eta");
    const uint32_t maxStage = GetUint(p, "MaxStage");
    QueueSizeValue wai;
    p->GetAttribute("Wai", wai);
    const Time rtt = BaseRtt(LINK_DELAY);
    const double wInit = LINK_BPS * rtt.GetSeconds() / 8;
    const double ai = wai.Get().GetValue() == 0
                          ? (1 - eta) / GetUint(p, "ExpectedFlows")
                          : (wai.Get().GetUnit() == QueueSizeUnit::PACKETS
                                 ? wai.Get().GetValue() * double(MTU + OVERHEAD)
                                 : double(wai.Get().GetValue())) /
                                wInit; // W_AI / W_init
    // U = eta holds the wire at eta, less the INT record each packet carries.
    m.utilisation = eta - 0.05;
    m.estimate = [=](uint32_t k, bool join) {
        double updates = maxStage + 3.0;
        if (join)
        {
            double factor = 1 - k * ai / eta;
            updates = std::log(JoinContraction(k, 1 / (1 + eta))) / -std::log(factor) + 3;
        }
        return rtt * updates;
    };
    std::ostringstream rule;
    rule << "W_AI = " << ai << " W_init, eta " << eta << ", maxStage " << maxStage
         << ", one update per RTT";
    m.rule = rule.str();
    return m;
}

/**
 * DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257), window-based: TCP's
 * congestion avoidance, about one MSS per RTT on the unmarked ACKs
 * (RFC 8257 section 3.4), and W (1 - alpha/2) at most once per window of
 * data on an ECN echo (section 3.3); the switch marks arriving packets
 * above K (the paper's section 3.1). In steady state (the paper's section
 * 3.3) each of k flows holds W* = (C RTT + K) / k packets, alpha =
 * sqrt(2 / W*), and one sawtooth of (W* + 1) alpha / 2 RTTs ends in a cut by
 * alpha / 2 that shrinks any difference between two windows by that factor:
 * per RTT by 1 / (W* + 1). After a join the windows start at most (k - 1) W*
 * apart (one flow holding all), so the difference must shrink
 * (k - 1) / tolerance times: (W* + 1) ln((k - 1) / tolerance) RTTs. A
 * newcomer starts with alpha = InitialAlpha = 1; add the ln(1 / tolerance) / g
 * RTTs its alpha needs to come within tolerance of the others'. After a
 * leave the others keep their windows, so they keep the spread they had:
 * up to the half of the mean the starvation check allows, which must shrink
 * to the tolerance, (W* + 1) ln(0.5 / tolerance) RTTs; and if their windows no
 * longer fill the pipe they first grow by k MSS per RTT together. One update
 * per RTT of base RTT + K / C (the queue DCTCP holds at K).
 * \return the model
 */
inline CcModel
Dctcp()
{
    CcModel m;
    m.name = "dctcp";
    m.configure = [](RoceHelper& roce, RoceSwitchHelper& switches) {
        RoceCcHelper("dctcp").Configure(roce, switches);
    };
    m.sample = MicroSeconds(10);
    m.window = MicroSeconds(50);
    Ptr<RoceCongestionOps> p = Prototype(m.configure);
    const double g = GetDouble(p, "G");
    const double k0 = RoceCcHelper::DCTCP_K_BYTES; // at 100 Gb/s
    const Time base = BaseRtt(LINK_DELAY);
    const double bdp = LINK_BPS * base.GetSeconds() / 8 * MTU / (MTU + OVERHEAD); // payload
    const Time rtt = base + Seconds(k0 * 8 / LINK_BPS);
    // K > C RTT / 7 keeps the queue from emptying: the link stays full.
    m.utilisation = 0.95;
    m.estimate = [=](uint32_t k, bool join) {
        double updates;
        if (join)
        {
            double w = (bdp + k0) / k / MTU; // W*, packets
            updates = (w + 1) * std::log(std::max(1.0, (k - 1) / SHARE_TOLERANCE)) +
                      std::log(1 / SHARE_TOLERANCE) / g;
        }
        else
        {
            double w = (bdp + k0) / k / MTU; // W*, packets
            double deficit = std::max(0.0, bdp - (bdp + k0) * k / (k + 1));
            updates = deficit / (k * MTU) + (w + 1) * std::log(0.5 / SHARE_TOLERANCE) + 3;
        }
        return rtt * updates;
    };
    std::ostringstream rule;
    rule << "one MSS per RTT, K " << k0 << " B, g " << g << ", one update per " << rtt.As(Time::US);
    m.rule = rule.str();
    return m;
}

/**
 * TIMELY (Mittal et al., SIGCOMM 2015), rate-based on the RTT gradient: one
 * update per RTT sample (one per RTT), +Delta when the gradient is negative
 * or the RTT below T_low, a multiplicative cut 1 - beta g otherwise. The cut
 * is one factor for all flows (they see the same gradient), so only the
 * common Delta moves rates together: with the aggregate at the goodput G,
 * a difference shrinks by k Delta / G per update. A newcomer at line rate
 * keeps about half the aggregate after the first cut:
 * JoinContraction(k, 1/2). Add G / (k Delta) updates, the additive climb of
 * the aggregate from nothing (a cut can take every flow to MinRate). After a
 * leave each flow climbs G / (k (k + 1)) by Delta per update. One update per
 * T_low: TIMELY increases while the RTT is below it.
 * \return the model
 */
inline CcModel
Timely()
{
    CcModel m;
    m.name = "timely";
    m.configure = [](RoceHelper& roce, RoceSwitchHelper& switches) {
        RoceCcHelper cc("timely");
        // As rocev2-cc-window: T_low and T_high scaled to 100 Gb/s and a 4 us RTT.
        cc.SetAttribute("Tlow", TimeValue(MicroSeconds(10)));
        cc.SetAttribute("Thigh", TimeValue(MicroSeconds(100)));
        cc.SetAttribute("Delta", DataRateValue(DataRate("500Mbps")));
        cc.Configure(roce, switches);
    };
    m.sample = MicroSeconds(10);
    // 20 updates: TIMELY's per-sample steps make 16 flows' shares noisy in shorter windows.
    m.window = MicroSeconds(200);
    Ptr<RoceCongestionOps> p = Prototype(m.configure);
    const double delta = GetBps(p, "Delta");
    const Time tLow = GetTime(p, "Tlow");
    const double goodput = m.Goodput();
    // At overload TIMELY saws from near MinRate to the link rate (rocev2-cc-window).
    m.utilisation = 0.5;
    m.estimate = [=](uint32_t k, bool join) {
        double updates;
        if (join)
        {
            double perUpdate = k * delta / goodput;
            updates = std::log(JoinContraction(k, 0.5)) / perUpdate + 1 / perUpdate;
        }
        else
        {
            updates = goodput / (k * (k + 1.0)) / delta + 3;
        }
        return tLow * updates;
    };
    std::ostringstream rule;
    rule << "Delta " << delta / 1e6 << " Mb/s per RTT sample, one per T_low " << tLow.As(Time::US);
    m.rule = rule.str();
    return m;
}

/**
 * DCQCN (Zhu et al., SIGCOMM 2015), rate-based and timer-driven. A CNP cuts
 * every flow by 1 - alpha/2 and fast recovery moves it back towards its own
 * earlier rate: both keep the ratio of the rates. Only the additive increase
 * R_AI per rate-increase period T moves the rates together, so it alone
 * decides how fast they converge. In the long run the aggregate returns to
 * the goodput G after every cut, i.e. cuts remove what the k flows add,
 * k R_AI / T per second; a common proportional cut removing that much from
 * G shrinks a difference between two rates at the rate k R_AI / (T G): one
 * e-fold takes tau = G T / (k R_AI), whatever alpha is. (The byte counter's
 * and hyper increases add more per second: they only make it faster.) A
 * newcomer at line rate keeps about half the aggregate after the first cuts:
 * JoinContraction(k, 1/2) e-folds, plus half an e-fold for the aggregate to
 * climb back from a halving, plus F periods of fast recovery. After a leave
 * each flow climbs G / (k (k + 1)) at R_AI per period. The others keep the
 * spread they had before it: up to the half of the mean the starvation check
 * allows, shrunk by k / (k + 1) as the additive climb raises the mean, which
 * the cuts must then contract to the tolerance at one e-fold per tau.
 *
 * Since tau grows with G, the paper's parameter set (paper-2015) runs at the
 * paper's 40 Gb/s: at 100 Gb/s the same convergence takes 2.5 times as long
 * in simulated time with 2.5 times the packets per second.
 * \param preset the DCQCN preset
 * \param linkBps the link rate, bit/s
 * \return the model
 */
inline CcModel
Dcqcn(const std::string& preset, double linkBps)
{
    CcModel m;
    m.name = "dcqcn " + preset + " at " + std::to_string(int(linkBps / 1e9)) + " Gbps";
    m.linkBps = linkBps;
    m.configure = [preset](RoceHelper& roce, RoceSwitchHelper& switches) {
        RoceCcHelper("dcqcn", preset).Configure(roce, switches);
    };
    m.sample = MicroSeconds(100);
    m.window = MilliSeconds(1);
    Ptr<RoceCongestionOps> p = Prototype(m.configure);
    const double rai = GetBps(p, "RateAi");
    const Time period = GetTime(p, "RateIncreaseTimer");
    const uint32_t f = GetUint(p, "FastRecoveryStages");
    const double goodput = m.Goodput();
    // Kmin keeps a queue: the link stays busy once the aggregate is back.
    m.utilisation = 0.9;
    m.estimate = [=](uint32_t k, bool join) {
        double periods;
        if (join)
        {
            double tau = goodput / (k * rai); // periods per e-fold
            periods = tau * (std::log(JoinContraction(k, 0.5)) + 0.5) + f;
        }
        else
        {
            periods = goodput / (k * (k + 1.0)) / rai + f;
            if (k > 1)
            {
                double tau = goodput / (k * rai);
                double spread = 0.5 * k / (k + 1.0);
                periods += tau * std::log(std::max(1.0, spread / SHARE_TOLERANCE));
            }
        }
        return period * periods;
    };
    std::ostringstream rule;
    rule << "R_AI " << rai / 1e6 << " Mb/s per " << period.As(Time::US) << ", F " << f;
    m.rule = rule.str();
    return m;
}

} // namespace

#endif /* ROCEV2_CC_DYNAMICS_TEST_HELPERS_H */
