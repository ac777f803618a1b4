/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Workloads and flow completion times: the generators (Poisson load, size
 * and destination draws; permutation; incast; the HPCC flow file they
 * write), the FCTs RoceFlowApp measures against the ideal FCT of a lone flow
 * derived here from the wire format, two flows sharing a bottleneck, the
 * percentiles and the HPCC FCT output.
 */
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/node-container.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-fct-stats.h"
#include "ns3/roce-flow-app.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-hpcc-format.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-workload-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

const uint32_t g_mtu = 1024;          //!< RoCE payload MTU
const Time g_delay = MicroSeconds(1); //!< every link's propagation delay
/// Frame bytes of a data packet beyond its payload (FCS excluded): Ethernet
/// 14, IPv4 20, UDP 8, BTH 12, ICRC 4; the first WRITE packet adds RETH 16.
const uint32_t g_dataOverhead = 58;
const uint32_t g_reth = 16;
/// An ACK frame: Ethernet 14, IPv4 20, UDP 8, BTH 12, AETH 4, ICRC 4.
const uint32_t g_ackFrame = 62;

/**
 * \param frame frame bytes without FCS
 * \return wire bytes: padded to the 60-byte minimum, + FCS 4 + preamble,
 *         SFD and IFG 20
 */
double
WireBytes(uint64_t frame)
{
    return static_cast<double>(std::max<uint64_t>(frame, 60) + 24);
}

/**
 * The FCT of a lone flow, packet by packet: packet k leaves hop i at
 * D(k,i) = max(D(k,i-1) + d, D(k-1,i)) + w_k 8 / R_i; the last packet reaches
 * the receiver at D(N,H) + d, whose ACK (86 wire bytes) returns over the same
 * hops store-and-forward.
 * \param rates link rates from sender to receiver (same both ways)
 * \param bytes flow size
 * \return the FCT in seconds
 */
double
LoneFct(const std::vector<DataRate>& rates, uint64_t bytes)
{
    const uint64_t n = (bytes + g_mtu - 1) / g_mtu;
    const std::size_t h = rates.size();
    const double d = g_delay.GetSeconds();
    std::vector<double> prev(h, 0.0); // D(k-1, i)
    for (uint64_t k = 0; k < n; ++k)
    {
        uint64_t payload = std::min<uint64_t>(g_mtu, bytes - k * g_mtu);
        double w = WireBytes(payload + g_dataOverhead + (k == 0 ? g_reth : 0));
        double ready = 0; // when packet k is at hop i's sender
        for (std::size_t i = 0; i < h; ++i)
        {
            double done = std::max(ready, prev[i]) + w * 8 / rates[i].GetBitRate();
            prev[i] = done;
            ready = done + d;
        }
    }
    double fct = prev[h - 1] + d;
    for (std::size_t i = 0; i < h; ++i)
    {
        fct += WireBytes(g_ackFrame) * 8 / rates[i].GetBitRate() + d;
    }
    return fct;
}

/**
 * \return the web-search size distribution (data/cdf/websearch.txt, inline so
 *         the suite runs from any directory)
 */
RoceSizeCdf
WebSearch()
{
    std::istringstream in("0 0\n10000 15\n20000 20\n30000 30\n50000 40\n80000 53\n"
                          "200000 60\n1000000 70\n2000000 80\n5000000 90\n10000000 97\n"
                          "30000000 100\n");
    return RoceSizeCdf::Parse(in, "websearch");
}

/**
 * A chain: host -- sw1 -- ... -- swK -- host, with `extra` more hosts on sw1
 * and on swK. Host links at hostRate, switch-switch links at fabricRate.
 */
struct Chain
{
    NodeContainer hosts;        //!< hosts on sw1 (first), then on swK
    NodeContainer switches;     //!< sw1..swK
    std::vector<DataRate> path; //!< rates from hosts.Get(0) to the first host on swK

    /**
     * \param k switches (1: both hosts on one switch)
     * \param hostRate host link rate \param fabricRate switch-switch rate
     * \param perSide hosts on sw1 and on swK (with k == 1 the same switch)
     */
    Chain(uint32_t k, DataRate hostRate, DataRate fabricRate, uint32_t perSide)
        : switches(k)
    {
        RoceSwitchHelper sh;
        sh.Install(switches);
        RoceHelper roce;
        roce.SetChannelAttribute("Delay", TimeValue(g_delay));
        roce.SetNicAttribute("PayloadMtu", UintegerValue(g_mtu));
        roce.SetDeviceAttribute("DataRate", DataRateValue(fabricRate));
        for (uint32_t i = 0; i + 1 < k; ++i)
        {
            roce.Install(switches.Get(i), switches.Get(i + 1));
        }
        roce.SetDeviceAttribute("DataRate", DataRateValue(hostRate));
        hosts.Create(2 * perSide);
        for (uint32_t h = 0; h < 2 * perSide; ++h)
        {
            roce.Install(hosts.Get(h), switches.Get(h < perSide ? 0 : k - 1));
        }
        RoceSwitchHelper::PopulateRoutes();
        path.push_back(hostRate);
        for (uint32_t i = 0; i + 1 < k; ++i)
        {
            path.push_back(fabricRate);
        }
        path.push_back(hostRate);
    }
};

/**
 * A lone flow's FCT equals the packet-by-packet FCT derived from the wire
 * format, and RoceFctStats::IdealFct (the closed form) agrees with both.
 */
class LoneFlowTestCase : public TestCase
{
  public:
    /**
     * \param k switches \param hostRate host links \param fabricRate switch links
     * \param bytes flow size
     */
    LoneFlowTestCase(uint32_t k, DataRate hostRate, DataRate fabricRate, uint64_t bytes)
        : TestCase("lone flow of " + std::to_string(bytes) + " B through " + std::to_string(k) +
                   " switches, hosts " + std::to_string(hostRate.GetBitRate() / 1000000000) +
                   " Gbps, fabric " + std::to_string(fabricRate.GetBitRate() / 1000000000) +
                   " Gbps: slowdown 1"),
          m_k(k),
          m_hostRate(hostRate),
          m_fabricRate(fabricRate),
          m_bytes(bytes)
    {
    }

  private:
    void DoRun() override
    {
        Chain c(m_k, m_hostRate, m_fabricRate, 1);
        Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
        uint32_t done = 0;
        stats->SetAllDoneCallback(Callback<void>([&done]() { ++done; }));
        RoceFlowSpec f;
        f.src = 0;
        f.dst = 1;
        f.bytes = m_bytes;
        f.start = MicroSeconds(10);
        RoceWorkloadHelper().Install(c.hosts, {f}, stats);
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(stats->GetCompleted(), 1, "the flow completed");
        NS_TEST_ASSERT_MSG_EQ(done, 1, "the all-done callback fired once");
        const RoceFctRecord& r = stats->GetRecords().at(0);
        NS_TEST_ASSERT_MSG_EQ(r.start, f.start, "posted at its start");
        const double expected = LoneFct(c.path, m_bytes);
        // The closed form and the recurrence are the same quantity; Seconds()
        // rounds to the 1 ns time step.
        NS_TEST_EXPECT_MSG_EQ_TOL(r.idealFct.GetSeconds(),
                                  expected,
                                  1e-9,
                                  "IdealFct = the packet-by-packet FCT");
        NS_TEST_EXPECT_MSG_EQ_TOL(RoceFctStats::IdealFct(RoceHelper::GetNic(c.hosts.Get(0)),
                                                         RoceHelper::GetNic(c.hosts.Get(1)),
                                                         m_bytes)
                                      .GetSeconds(),
                                  expected,
                                  1e-9,
                                  "the static IdealFct agrees");
        // Each device rounds a frame's serialization to the 1 ns time step
        // with a carry: the simulated FCT is within 1 ns per device the data
        // and the ACK cross (2 per hop), + 1 ns of rounding here.
        const double tol = (2.0 * c.path.size() + 1) * 1e-9;
        NS_TEST_EXPECT_MSG_EQ_TOL(r.fct.GetSeconds(), expected, tol, "FCT = derived FCT");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.fct.GetSeconds() / r.idealFct.GetSeconds(),
                                  1.0,
                                  0.01,
                                  "slowdown of a lone flow is 1");
        Simulator::Destroy();
    }

    uint32_t m_k;
    DataRate m_hostRate;
    DataRate m_fabricRate;
    uint64_t m_bytes;
};

/**
 * Two flows of equal size start together from two hosts to one receiver,
 * without congestion control: the receiver's link carries both, so each
 * FCT is the lone FCT plus the other flow's wire bytes at the link rate.
 */
class SharedBottleneckTestCase : public TestCase
{
  public:
    SharedBottleneckTestCase()
        : TestCase("two flows into one receiver each take twice the transfer time")
    {
    }

  private:
    void DoRun() override
    {
        const DataRate rate("100Gbps");
        const uint64_t bytes = 1000000;
        Chain c(1, rate, rate, 2); // hosts 0, 1 and 2, 3 on one switch
        Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
        std::vector<RoceFlowSpec> flows = RoceWorkloadHelper::Incast({0, 1}, 2, bytes, Time(0));
        RoceWorkloadHelper().Install(c.hosts, flows, stats);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(stats->GetCompleted(), 2, "both completed");

        const double lone = LoneFct(c.path, bytes);
        // Transfer part: every wire byte of one flow through the receiver's link.
        const uint64_t n = (bytes + g_mtu - 1) / g_mtu;
        double wire = 0;
        for (uint64_t k = 0; k < n; ++k)
        {
            uint64_t payload = std::min<uint64_t>(g_mtu, bytes - k * g_mtu);
            wire += WireBytes(payload + g_dataOverhead + (k == 0 ? g_reth : 0));
        }
        const double transfer = wire * 8 / rate.GetBitRate();
        // The link is busy from the first packet's arrival until both flows'
        // bytes have crossed it, so the later flow ends at lone + transfer;
        // the switch interleaves the two, so the earlier one ends at most a
        // few packets before. Tolerance: 2 largest packets at the line rate.
        const double packet = WireBytes(g_mtu + g_dataOverhead + g_reth) * 8 / rate.GetBitRate();
        double later = 0;
        for (const auto& r : stats->GetRecords())
        {
            later = std::max(later, r.fct.GetSeconds());
            NS_TEST_EXPECT_MSG_EQ_TOL(r.fct.GetSeconds(),
                                      lone + transfer,
                                      2 * packet,
                                      "each FCT is about twice the transfer time");
            NS_TEST_EXPECT_MSG_EQ_TOL(r.fct.GetSeconds() / r.idealFct.GetSeconds(),
                                      (lone + transfer) / lone,
                                      0.01,
                                      "slowdown about 2");
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(later, lone + transfer, 10e-9, "the later flow: link never idle");
        Simulator::Destroy();
    }
};

/**
 * The HPCC FCT file has one line per completed flow with
 * `sip dip sport dport size start_ns fct_ns standalone_fct_ns`, the
 * addresses as 8 hex digits; each line matches its flow.
 */
class FctFileTestCase : public TestCase
{
  public:
    FctFileTestCase()
        : TestCase("HPCC FCT file: one parseable line per flow, in completion order")
    {
    }

  private:
    void DoRun() override
    {
        const DataRate rate("100Gbps");
        Chain c(1, rate, rate, 2);
        Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
        std::vector<RoceFlowSpec> flows(4);
        const uint32_t src[] = {0, 0, 1, 3};
        const uint32_t dst[] = {2, 3, 2, 0};
        const uint64_t size[] = {50000, 1000, 20000, 3000};
        for (uint32_t i = 0; i < 4; ++i)
        {
            flows[i].src = src[i];
            flows[i].dst = dst[i];
            flows[i].bytes = size[i];
            flows[i].dport = static_cast<uint16_t>(100 + i);
            flows[i].priority = static_cast<uint8_t>(i + 1);
            flows[i].start = NanoSeconds(1000 + 777 * i);
        }
        RoceWorkloadHelper().Install(c.hosts, flows, stats);
        Simulator::Run();
        std::ostringstream os;
        stats->WriteHpccFct(os);

        std::istringstream in(os.str());
        std::string line;
        uint32_t lines = 0;
        int64_t lastEnd = 0;
        std::set<uint32_t> seen;
        while (std::getline(in, line))
        {
            std::istringstream f(line);
            std::string sip;
            std::string dip;
            uint32_t sport = 0;
            uint32_t dport = 0;
            uint64_t bytes = 0;
            int64_t startNs = 0;
            int64_t fctNs = 0;
            int64_t idealNs = 0;
            std::string rest;
            f >> sip >> dip >> sport >> dport >> bytes >> startNs >> fctNs >> idealNs;
            NS_TEST_ASSERT_MSG_EQ(bool(f), true, "8 fields: " << line);
            NS_TEST_EXPECT_MSG_EQ(bool(f >> rest), false, "no ninth field: " << line);
            NS_TEST_EXPECT_MSG_EQ(sip.size(), 8, "sip is 8 hex digits");
            NS_TEST_EXPECT_MSG_EQ(dip.size(), 8, "dip is 8 hex digits");
            uint32_t i = dport - 100;
            NS_TEST_ASSERT_MSG_LT(i, 4, "dport names a flow");
            seen.insert(i);
            Ipv4Address s(static_cast<uint32_t>(std::stoul(sip, nullptr, 16)));
            Ipv4Address d(static_cast<uint32_t>(std::stoul(dip, nullptr, 16)));
            NS_TEST_EXPECT_MSG_EQ(s,
                                  RoceHelper::GetNic(c.hosts.Get(src[i]))->GetIpv4Address(),
                                  "sip");
            NS_TEST_EXPECT_MSG_EQ(d,
                                  RoceHelper::GetNic(c.hosts.Get(dst[i]))->GetIpv4Address(),
                                  "dip");
            NS_TEST_EXPECT_MSG_EQ(bytes, size[i], "size");
            NS_TEST_EXPECT_MSG_EQ(startNs, flows[i].start.GetNanoSeconds(), "start_ns");
            // host 0 sends two flows: ports 10000 and 10001 in start order
            uint32_t expectedSport = (i == 1) ? 10001 : 10000;
            NS_TEST_EXPECT_MSG_EQ(sport, expectedSport, "sport counts from 10000 per host");
            // the flow's queue pair on the sender carries the flow's priority
            Ptr<RoceNetDevice> nic = RoceHelper::GetNic(c.hosts.Get(src[i]));
            uint32_t found = 0;
            for (uint32_t q = 0; q < nic->GetNQps(); ++q)
            {
                Ptr<RoceQueuePair> qp = nic->GetQpByIndex(q);
                if (qp->GetSourcePort() == sport && qp->GetRemoteAddress() == d)
                {
                    ++found;
                    NS_TEST_EXPECT_MSG_EQ(unsigned(qp->GetPriority()), i + 1, "QP priority");
                }
            }
            NS_TEST_EXPECT_MSG_EQ(found, 1, "one QP per flow on its sender");
            NS_TEST_EXPECT_MSG_EQ_TOL(double(idealNs),
                                      LoneFct(c.path, bytes) * 1e9,
                                      1.0,
                                      "standalone_fct_ns is the lone FCT");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(fctNs, idealNs - 5, "no flow beats its ideal");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(startNs + fctNs, lastEnd, "completion order");
            lastEnd = startNs + fctNs;
            ++lines;
        }
        NS_TEST_EXPECT_MSG_EQ(lines, 4, "one line per flow");
        NS_TEST_EXPECT_MSG_EQ(seen.size(), 4, "every flow once");
        Simulator::Destroy();
    }
};

/**
 * Poisson arrivals: the bytes offered over a long window are within 5% of
 * load x rate x hosts x duration; the mean gap is 1/lambda; src != dst;
 * every host sends and receives its share.
 */
class PoissonLoadTestCase : public TestCase
{
  public:
    PoissonLoadTestCase()
        : TestCase("Poisson workload offers the requested load")
    {
    }

  private:
    void DoRun() override
    {
        RoceSizeCdf cdf = WebSearch();
        // Mean of the piecewise-uniform web-search distribution, from the
        // file's points: sum (p_i - p_{i-1}) (x_{i-1} + x_i) / 2.
        const double mean = 1711250.0;
        NS_TEST_ASSERT_MSG_EQ_TOL(cdf.Mean(), mean, 1.0, "web-search mean size");
        const uint32_t hosts = 64;
        const DataRate rate("100Gbps");
        const double load = 0.5;
        const Time duration = Seconds(0.5);
        auto flows = RoceWorkloadHelper::Poisson(hosts, cdf, load, rate, Seconds(1), duration, 7);
        // Offered bytes are a compound Poisson sum: relative standard
        // deviation sqrt(E[S^2] / E[S]^2 / (lambda T)). For web search
        // E[S^2]/E[S]^2 = 6.37 and lambda T = 116,900 flows here, so 0.74%:
        // 5% is 6.8 sigma, whatever the seed.
        const double offered = load * rate.GetBitRate() * hosts * duration.GetSeconds() / 8;
        const double lambda = load * rate.GetBitRate() * hosts / (8 * mean);
        double bytes = 0;
        std::vector<uint32_t> sent(hosts, 0);
        std::vector<uint32_t> received(hosts, 0);
        Time prev = Seconds(1);
        bool ordered = true;
        bool distinct = true;
        for (const auto& f : flows)
        {
            bytes += f.bytes;
            distinct = distinct && f.src != f.dst;
            ordered = ordered && f.start >= prev && f.start < Seconds(1.5);
            prev = f.start;
            sent.at(f.src)++;
            received.at(f.dst)++;
        }
        NS_TEST_EXPECT_MSG_EQ(distinct, true, "src != dst for every flow");
        NS_TEST_EXPECT_MSG_EQ(ordered, true, "starts in order within [start, start + duration)");
        NS_TEST_EXPECT_MSG_EQ_TOL(bytes, offered, 0.05 * offered, "offered load within 5%");
        // Flow count: Poisson, relative sd 1/sqrt(lambda T) = 0.29%; 2% is 7 sigma.
        const double n = static_cast<double>(flows.size());
        NS_TEST_EXPECT_MSG_EQ_TOL(n, lambda * duration.GetSeconds(), 0.02 * n, "flow count");
        // Mean gap between starts (last - first over n - 1): 1/lambda within 2%.
        const double gap = (flows.back().start - flows.front().start).GetSeconds() / (n - 1);
        NS_TEST_EXPECT_MSG_EQ_TOL(gap, 1 / lambda, 0.02 / lambda, "mean inter-arrival 1/lambda");
        // Each host sends and receives n/64 = 1,830 flows on average (binomial,
        // sd 2.3%): within 15% (6.5 sigma).
        for (uint32_t h = 0; h < hosts; ++h)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(double(sent[h]), n / hosts, 0.15 * n / hosts, "host sends");
            NS_TEST_EXPECT_MSG_EQ_TOL(double(received[h]),
                                      n / hosts,
                                      0.15 * n / hosts,
                                      "host receives");
        }
        // Deterministic for a stream and run; another run gives other flows.
        auto again = RoceWorkloadHelper::Poisson(hosts, cdf, load, rate, Seconds(1), duration, 7);
        NS_TEST_EXPECT_MSG_EQ(again.size(), flows.size(), "same stream, same flows");
        NS_TEST_EXPECT_MSG_EQ((again.size() > 10 && again[10].bytes == flows[10].bytes &&
                               again[10].start == flows[10].start),
                              true,
                              "same stream, same flows");
        uint32_t run = RngSeedManager::GetRun();
        RngSeedManager::SetRun(run + 1);
        auto other = RoceWorkloadHelper::Poisson(hosts, cdf, load, rate, Seconds(1), duration, 7);
        RngSeedManager::SetRun(run);
        NS_TEST_EXPECT_MSG_EQ((other[0].start != flows[0].start), true, "RngRun changes them");
    }
};

/** Permutation is a derangement; incast has its shape. */
class PatternsTestCase : public TestCase
{
  public:
    PatternsTestCase()
        : TestCase("permutation is a derangement; incast shape")
    {
    }

  private:
    void DoRun() override
    {
        for (uint32_t n : {2u, 3u, 16u, 320u})
        {
            auto flows = RoceWorkloadHelper::Permutation(n, 5000, MicroSeconds(3), 11);
            NS_TEST_ASSERT_MSG_EQ(flows.size(), n, "one flow per host");
            std::vector<uint32_t> in(n, 0);
            std::vector<uint32_t> out(n, 0);
            for (const auto& f : flows)
            {
                NS_TEST_EXPECT_MSG_NE(f.src, f.dst, "no host sends to itself");
                NS_TEST_EXPECT_MSG_EQ(f.bytes, 5000, "size");
                NS_TEST_EXPECT_MSG_EQ(f.start, MicroSeconds(3), "start");
                out.at(f.src)++;
                in.at(f.dst)++;
            }
            for (uint32_t h = 0; h < n; ++h)
            {
                NS_TEST_EXPECT_MSG_EQ(out[h], 1, "host " << h << " sends once");
                NS_TEST_EXPECT_MSG_EQ(in[h], 1, "host " << h << " receives once");
            }
        }
        auto incast = RoceWorkloadHelper::Incast({1, 2, 5, 7}, 3, 4096, MicroSeconds(2));
        NS_TEST_ASSERT_MSG_EQ(incast.size(), 4, "one flow per sender");
        const uint32_t senders[] = {1, 2, 5, 7};
        for (uint32_t i = 0; i < 4; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(incast[i].src, senders[i], "sender");
            NS_TEST_EXPECT_MSG_EQ(incast[i].dst, 3, "receiver");
            NS_TEST_EXPECT_MSG_EQ(incast[i].bytes, 4096, "size");
            NS_TEST_EXPECT_MSG_EQ(incast[i].start, MicroSeconds(2), "start");
        }
    }
};

/** Flows written as an HPCC flow file read back identical, to the ns. */
class FlowFileRoundTripTestCase : public TestCase
{
  public:
    FlowFileRoundTripTestCase()
        : TestCase("HPCC flow file written and read back gives the same flows")
    {
    }

  private:
    void DoRun() override
    {
        RoceSizeCdf cdf = WebSearch();
        const uint32_t hosts = 8;
        auto flows = RoceWorkloadHelper::Poisson(hosts,
                                                 cdf,
                                                 0.3,
                                                 DataRate("100Gbps"),
                                                 Seconds(2),
                                                 MilliSeconds(5),
                                                 3);
        flows[0].priority = 5;
        flows[0].dport = 4242;
        const std::string topo = "/tmp/rocev2-workload-topology.txt";
        const std::string path = "/tmp/rocev2-workload-flows.txt";
        {
            std::ofstream t(topo);
            t << hosts + 1 << " 1 " << hosts << "\n" << hosts << "\n";
            for (uint32_t h = 0; h < hosts; ++h)
            {
                t << h << " " << hosts << " 100Gbps 1000ns 0\n";
            }
            std::ofstream f(path);
            RoceWorkloadHelper::WriteHpccFlowFile(f, flows);
        }
        auto read = RoceWorkloadHelper::FromHpcc(
            RoceHpccFormat::ReadFlows(path, RoceHpccFormat::ReadTopology(topo)));
        NS_TEST_ASSERT_MSG_EQ(read.size(), flows.size(), "same count");
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(read[i].src, flows[i].src, "src " << i);
            NS_TEST_EXPECT_MSG_EQ(read[i].dst, flows[i].dst, "dst " << i);
            NS_TEST_EXPECT_MSG_EQ(unsigned(read[i].priority), unsigned(flows[i].priority), "prio");
            NS_TEST_EXPECT_MSG_EQ(read[i].dport, flows[i].dport, "dport " << i);
            NS_TEST_EXPECT_MSG_EQ(read[i].bytes, flows[i].bytes, "bytes " << i);
            NS_TEST_EXPECT_MSG_EQ(read[i].start, flows[i].start, "start to the ns " << i);
        }
        std::remove(topo.c_str());
        std::remove(path.c_str());
    }
};

/**
 * Nearest-rank percentiles and size buckets on records with known
 * slowdowns 1..100; the all-done callback fires once all are in.
 */
class PercentileTestCase : public TestCase
{
  public:
    PercentileTestCase()
        : TestCase("nearest-rank slowdown percentiles, overall and by size")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
        stats->SetSizeBuckets({1000, 100000});
        stats->AddExpected(101);
        uint32_t done = 0;
        stats->SetAllDoneCallback(Callback<void>([&done]() { ++done; }));
        for (uint32_t i = 100; i >= 1; --i)
        {
            RoceFctRecord r;
            r.bytes = i <= 20 ? 500 : 50000; // 20 small flows, 80 mid-size ones
            r.idealFct = MicroSeconds(10);
            r.fct = MicroSeconds(10 * i);
            stats->Add(r);
        }
        NS_TEST_EXPECT_MSG_EQ(done, 0, "not done with 100 of 101");
        RoceFctRecord failed;
        failed.bytes = 7;
        failed.failed = true;
        stats->Add(failed);
        NS_TEST_EXPECT_MSG_EQ(done, 1, "done once 101 of 101 finished");
        NS_TEST_EXPECT_MSG_EQ(stats->GetCompleted(), 100, "completed");
        NS_TEST_EXPECT_MSG_EQ(stats->GetFailed(), 1, "failed");
        // rank ceil(p/100 * 100) of 1..100 is p itself
        NS_TEST_EXPECT_MSG_EQ_TOL(stats->GetSlowdownPercentile(50), 50.0, 1e-9, "p50");
        NS_TEST_EXPECT_MSG_EQ_TOL(stats->GetSlowdownPercentile(95), 95.0, 1e-9, "p95");
        NS_TEST_EXPECT_MSG_EQ_TOL(stats->GetSlowdownPercentile(99), 99.0, 1e-9, "p99");
        NS_TEST_EXPECT_MSG_EQ_TOL(stats->GetSlowdownPercentile(99.5), 100.0, 1e-9, "p99.5");
        NS_TEST_EXPECT_MSG_EQ(stats->GetFctPercentile(50), MicroSeconds(500), "FCT p50");
        auto b = stats->GetBuckets();
        NS_TEST_ASSERT_MSG_EQ(b.size(), 3, "two edges, three buckets");
        NS_TEST_EXPECT_MSG_EQ(b[0].flows, 20, "small flows");
        // slowdowns 1..20: ranks ceil(0.5*20)=10, ceil(0.95*20)=19, ceil(0.99*20)=20
        NS_TEST_EXPECT_MSG_EQ_TOL(b[0].p50, 10.0, 1e-9, "small p50");
        NS_TEST_EXPECT_MSG_EQ_TOL(b[0].p95, 19.0, 1e-9, "small p95");
        NS_TEST_EXPECT_MSG_EQ_TOL(b[0].p99, 20.0, 1e-9, "small p99");
        NS_TEST_EXPECT_MSG_EQ(b[1].flows, 80, "mid-size flows");
        // slowdowns 21..100: rank 40 -> 60, rank 76 -> 96, rank 80 -> 100
        NS_TEST_EXPECT_MSG_EQ_TOL(b[1].p50, 60.0, 1e-9, "mid p50");
        NS_TEST_EXPECT_MSG_EQ_TOL(b[1].p95, 96.0, 1e-9, "mid p95");
        NS_TEST_EXPECT_MSG_EQ_TOL(b[1].p99, 100.0, 1e-9, "mid p99");
        NS_TEST_EXPECT_MSG_EQ(b[2].flows, 0, "no large flows");
        std::ostringstream json;
        stats->WriteJsonMembers(json, 2);
        const std::string j = json.str();
        for (const char* key : {"\"flows_total\": 101",
                                "\"flows_completed\": 100",
                                "\"flows_failed\": 1",
                                "\"slowdown_p50\": 50",
                                "\"slowdown_p99\": 99",
                                "\"fct_p50_us\": 500",
                                "{\"max_bytes\": 1000, \"flows\": 20, \"p50\": 10, \"p95\": 19, "
                                "\"p99\": 20}"})
        {
            NS_TEST_EXPECT_MSG_NE(j.find(key), std::string::npos, "JSON has " << key << ":\n" << j);
        }
        NS_TEST_EXPECT_MSG_EQ(j.find("\"max_bytes\": 18446744073709551615"),
                              std::string::npos,
                              "empty buckets are left out");
    }
};

/**
 * A Poisson workload on a 2-tier fabric runs to completion: every flow
 * completes, none faster than its ideal FCT.
 */
class PoissonRunTestCase : public TestCase
{
  public:
    PoissonRunTestCase()
        : TestCase("Poisson web-search workload on a leaf-spine completes; no flow beats its ideal")
    {
    }

  private:
    void DoRun() override
    {
        // 2 spines, 4 leaves x 4 hosts; 100 Gb/s hosts, 400 Gb/s fabric.
        NodeContainer spines(2);
        NodeContainer leaves(4);
        NodeContainer hosts(16);
        RoceSwitchHelper sh;
        sh.Install(spines);
        sh.Install(leaves);
        RoceHelper roce;
        roce.SetChannelAttribute("Delay", TimeValue(g_delay));
        roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate("400Gbps")));
        for (uint32_t l = 0; l < 4; ++l)
        {
            for (uint32_t s = 0; s < 2; ++s)
            {
                roce.Install(leaves.Get(l), spines.Get(s));
            }
        }
        roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        for (uint32_t h = 0; h < 16; ++h)
        {
            roce.Install(hosts.Get(h), leaves.Get(h / 4));
        }
        RoceSwitchHelper::PopulateRoutes();
        RoceSizeCdf cdf = WebSearch();
        auto flows = RoceWorkloadHelper::Poisson(16,
                                                 cdf,
                                                 0.3,
                                                 DataRate("100Gbps"),
                                                 MicroSeconds(10),
                                                 MicroSeconds(500),
                                                 1);
        Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
        bool allDone = false;
        stats->SetAllDoneCallback(Callback<void>([&allDone]() {
            allDone = true;
            Simulator::Stop();
        }));
        RoceWorkloadHelper().Install(hosts, flows, stats);
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT(flows.size(), 10, "a workload of some size");
        NS_TEST_EXPECT_MSG_EQ(allDone, true, "all flows done");
        NS_TEST_EXPECT_MSG_EQ(stats->GetCompleted(), flows.size(), "every flow completed");
        for (const auto& r : stats->GetRecords())
        {
            // a host-leaf-spine-leaf-host path: 4 hops, 8 devices there and
            // back rounding by < 1 ns each, + 1 ns for Seconds() in IdealFct
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r.fct + NanoSeconds(9),
                                        r.idealFct,
                                        "flow of " << r.bytes << " B beats its ideal FCT");
        }
        NS_TEST_EXPECT_MSG_GT_OR_EQ(stats->GetSlowdownPercentile(0) + 1e-3,
                                    1.0,
                                    "smallest slowdown is at least 1");
        Simulator::Destroy();
    }
};

} // namespace

/** The workload suite. */
class RoceWorkloadTestSuite : public TestSuite
{
  public:
    RoceWorkloadTestSuite()
        : TestSuite("rocev2-workload", Type::UNIT)
    {
        const DataRate g100("100Gbps");
        const DataRate g25("25Gbps");
        const DataRate g40("40Gbps");
        for (uint64_t bytes : {500ull, 1500ull, 100000ull})
        {
            AddTestCase(new LoneFlowTestCase(1, g100, g100, bytes), RoceTestDuration::QUICK);
            AddTestCase(new LoneFlowTestCase(3, g25, g100, bytes), RoceTestDuration::QUICK);
            AddTestCase(new LoneFlowTestCase(3, g100, g40, bytes), RoceTestDuration::QUICK);
        }
        AddTestCase(new LoneFlowTestCase(1, g100, g100, 10000000), RoceTestDuration::QUICK);
        AddTestCase(new LoneFlowTestCase(3, g25, g100, 10000000), RoceTestDuration::EXTENSIVE);
        AddTestCase(new LoneFlowTestCase(3, g100, g40, 10000000), RoceTestDuration::EXTENSIVE);
        AddTestCase(new SharedBottleneckTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FctFileTestCase, RoceTestDuration::QUICK);
        AddTestCase(new PoissonLoadTestCase, RoceTestDuration::QUICK);
        AddTestCase(new PatternsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FlowFileRoundTripTestCase, RoceTestDuration::QUICK);
        AddTestCase(new PercentileTestCase, RoceTestDuration::QUICK);
        AddTestCase(new PoissonRunTestCase, RoceTestDuration::QUICK);
    }
};

/** Static instance. */
static RoceWorkloadTestSuite g_workloadTestSuite;
