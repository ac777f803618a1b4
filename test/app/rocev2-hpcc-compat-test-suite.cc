/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * HPCC-lineage files against the helpers: a small topology and flow file,
 * generated here, run through RoceHpccFormat::Build and RoceWorkloadHelper,
 * give every flow the same FCT as the same fabric built link by link with
 * RoceHelper and RoceSwitchHelper and the same flows posted on queue pairs
 * made with RoceHelper::CreateQp. The fabric has one path per host pair, so
 * the two runs must agree to the nanosecond whatever the congestion control.
 */
#include "../rocev2-repo-file.h"

#include "ns3/node-container.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-fct-stats.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-hpcc-format.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-size-cdf.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-workload-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/**
 * Hosts 0-2 on leaf 6, hosts 3-5 on leaf 7, both leaves on spine 8: 25 Gb/s
 * host links, 100 Gb/s and a longer delay between the switches.
 */
const char* TOPOLOGY = "9 3 8\n"
                       "6 7 8\n"
                       "0 6 25Gbps 1000ns 0\n"
                       "1 6 25Gbps 1000ns 0\n"
                       "2 6 25Gbps 1000ns 0\n"
                       "3 7 25Gbps 1000ns 0\n"
                       "4 7 25Gbps 1000ns 0\n"
                       "5 7 25Gbps 1000ns 0\n"
                       "6 8 100Gbps 2000ns 0\n"
                       "7 8 100Gbps 2000ns 0\n";

/** \return a temporary file holding text */
std::string
WriteFile(const std::string& name, const std::string& text)
{
    const std::string path = "/tmp/rocev2-hpcc-compat-" + name;
    std::ofstream(path) << text;
    return path;
}

/**
 * Runs the same flows both ways and compares every FCT.
 */
class SameFctsTestCase : public TestCase
{
  public:
    /** \param cc the congestion control of both runs */
    explicit SameFctsTestCase(const std::string& cc)
        : TestCase("HPCC files and the helpers give the same FCTs, cc " + cc),
          m_cc(cc)
    {
    }

  private:
    void DoRun() override;

    /** \return FCT by start time, from the files */
    std::map<int64_t, Time> RunFiles(const std::string& topo, const std::string& flows);

    /** \return FCT by start time, from the helpers */
    std::map<int64_t, Time> RunHelpers(const RoceHpccFormat::Topology& t,
                                       const std::vector<RoceFlowSpec>& flows);

    std::string m_cc;
};

std::map<int64_t, Time>
SameFctsTestCase::RunFiles(const std::string& topo, const std::string& flowFile)
{
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(topo);
    RoceHelper roce;
    roce.SetCongestionControl(m_cc);
    RoceSwitchHelper switches;
    NodeContainer nodes = RoceHpccFormat::Build(t, roce, switches);
    RoceSwitchHelper::AssignStreams(100); // the same ECN coins in both runs
    const auto flows = RoceWorkloadHelper::FromHpcc(RoceHpccFormat::ReadFlows(flowFile, t));
    Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
    RoceWorkloadHelper().Install(nodes, flows, stats);
    Simulator::Run();
    NS_TEST_EXPECT_MSG_EQ(stats->GetCompleted(), flows.size(), "every flow completes");
    std::map<int64_t, Time> fct;
    for (const auto& r : stats->GetRecords())
    {
        fct[r.start.GetNanoSeconds()] = r.fct;
    }
    Simulator::Destroy();
    return fct;
}

std::map<int64_t, Time>
SameFctsTestCase::RunHelpers(const RoceHpccFormat::Topology& t,
                             const std::vector<RoceFlowSpec>& flows)
{
    RoceHelper roce;
    roce.SetCongestionControl(m_cc);
    roce.SetQpAttribute("Priority", UintegerValue(3)); // every flow's, as generated
    RoceSwitchHelper switches;
    NodeContainer nodes;
    nodes.Create(9);
    for (uint32_t s = 6; s <= 8; ++s)
    {
        switches.Install(nodes.Get(s));
    }
    for (const auto& l : t.links)
    {
        roce.SetDeviceAttribute("DataRate", DataRateValue(l.rate));
        roce.SetChannelAttribute("Delay", TimeValue(l.delay));
        roce.Install(nodes.Get(l.a), nodes.Get(l.b));
    }
    RoceSwitchHelper::PopulateRoutes();
    RoceSwitchHelper::AssignStreams(100);
    std::map<int64_t, Time> fct;
    for (const auto& f : flows)
    {
        Simulator::Schedule(f.start, [&roce, &fct, &nodes, f]() {
            auto qp = roce.CreateQp(RoceHelper::GetNic(nodes.Get(f.src)),
                                    RoceHelper::GetNic(nodes.Get(f.dst)))
                          .first;
            const Time start = Simulator::Now();
            qp->PostWrite(f.bytes, [&fct, start](const RoceCompletion&) {
                fct[start.GetNanoSeconds()] = Simulator::Now() - start;
            });
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    return fct;
}

void
SameFctsTestCase::DoRun()
{
    const std::string topo = WriteFile("topology-" + m_cc + ".txt", TOPOLOGY);
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(topo);
    // Flows: an incast into host 3 from both leaves, a permutation, and
    // Poisson arrivals of 1 KB to 1 MB at 60% load for 100 us; start times
    // made distinct so that both runs order their events alike.
    std::vector<RoceFlowSpec> flows =
        RoceWorkloadHelper::Incast({0, 1, 4}, 3, 300000, MicroSeconds(1));
    for (const auto& f : RoceWorkloadHelper::Permutation(6, 50000, MicroSeconds(30), 7))
    {
        flows.push_back(f);
    }
    std::istringstream sizes("1000 0\n10000 40\n100000 80\n1000000 100\n");
    const RoceSizeCdf cdf = RoceSizeCdf::Parse(sizes, "sizes");
    for (const auto& f : RoceWorkloadHelper::Poisson(6,
                                                     cdf,
                                                     0.6,
                                                     DataRate("25Gbps"),
                                                     MicroSeconds(50),
                                                     MicroSeconds(100),
                                                     11))
    {
        flows.push_back(f);
    }
    for (size_t i = 0; i < flows.size(); ++i)
    {
        flows[i].start += NanoSeconds(i); // distinct starts
    }
    std::ostringstream file;
    RoceWorkloadHelper::WriteHpccFlowFile(file, flows);
    const std::string flowFile = WriteFile("flows-" + m_cc + ".txt", file.str());

    const auto fromFiles = RunFiles(topo, flowFile);
    const auto fromHelpers = RunHelpers(t, flows);
    NS_TEST_ASSERT_MSG_GT(flows.size(), 12u, "incast, permutation and some Poisson flows");
    NS_TEST_ASSERT_MSG_EQ(fromFiles.size(), flows.size(), "one FCT per flow from the files");
    NS_TEST_ASSERT_MSG_EQ(fromHelpers.size(), flows.size(), "one FCT per flow from the helpers");
    for (const auto& [start, fct] : fromHelpers)
    {
        auto it = fromFiles.find(start);
        NS_TEST_ASSERT_MSG_EQ((it != fromFiles.end()), true, "flow starting at " << start);
        NS_TEST_EXPECT_MSG_EQ(it->second, fct, "FCT of the flow starting at " << start << " ns");
    }
}

/**
 * The HPCC paper's fat-tree (320 hosts at 100 Gb/s, 400 Gb/s between its 56
 * switches) with DCQCN hpcc-sim and 1000 B payloads, run until the fabric is
 * idle: every flow completes, every byte is delivered once, nothing is
 * dropped, the switch buffers drain to zero and no flow beats its ideal FCT.
 * The EXTENSIVE case offers 100 us of web-search arrivals at 30 % load; the
 * TAKES_FOREVER one runs the paper's 6,635-flow file.
 */
class HpccFatTreeTestCase : public TestCase
{
  public:
    /** \param file run the web-search flow file (else a generated load) */
    explicit HpccFatTreeTestCase(bool file)
        : TestCase(std::string("HPCC fat-tree-320 with DCQCN hpcc-sim runs to completion: ") +
                   (file ? "the 6,635 web-search flows" : "100 us of web-search at 30 % load")),
          m_file(file)
    {
    }

  private:
    void DoRun() override
    {
        const RoceHpccFormat::Topology t =
            RoceHpccFormat::ReadTopology(Rocev2RepoFile("data/hpcc-format/fat-tree-320.txt"));
        RoceHelper roce;
        RoceSwitchHelper switches;
        RoceCcHelper("dcqcn", "hpcc-sim").Configure(roce, switches);
        roce.SetNicAttribute("PayloadMtu", UintegerValue(1000));
        NodeContainer nodes = RoceHpccFormat::Build(t, roce, switches);
        RoceSwitchHelper::AssignStreams(1);
        std::vector<RoceFlowSpec> flows;
        if (m_file)
        {
            flows = RoceWorkloadHelper::FromHpcc(RoceHpccFormat::ReadFlows(
                Rocev2RepoFile("data/hpcc-format/websearch-320-30pct-10ms.txt"),
                t));
        }
        else
        {
            const RoceSizeCdf cdf = RoceSizeCdf::Read(Rocev2RepoFile("data/cdf/websearch.txt"));
            flows = RoceWorkloadHelper::Poisson(RoceHpccFormat::Hosts(t),
                                                cdf,
                                                0.3,
                                                DataRate("100Gbps"),
                                                MicroSeconds(10),
                                                MicroSeconds(100),
                                                5);
        }
        uint64_t bytes = 0;
        for (const auto& f : flows)
        {
            bytes += f.bytes;
        }
        Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
        RoceWorkloadHelper().Install(nodes, flows, stats);
        Simulator::Run();

        const RoceFabricStats fabric = RoceFabricStats::Collect();
        NS_TEST_ASSERT_MSG_GT(flows.size(), 20u, "a load worth the name");
        NS_TEST_EXPECT_MSG_EQ(stats->GetCompleted(), flows.size(), "every flow completes");
        NS_TEST_EXPECT_MSG_EQ(fabric.bytesDelivered, bytes, "every byte delivered once");
        NS_TEST_EXPECT_MSG_EQ(fabric.drops, 0u, "lossless: no drop");
        NS_TEST_EXPECT_MSG_EQ(fabric.bufferedBytes, 0u, "the switch buffers drain");
        for (const auto& r : stats->GetRecords())
        {
            // The ideal is exact to the nanosecond per hop (rocev2-workload).
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r.fct + NanoSeconds(2 * 6 + 1),
                                        r.idealFct,
                                        "a flow of " << r.bytes << " B beat its ideal FCT");
        }
        Simulator::Destroy();
    }

    bool m_file; //!< the flow file, or a generated load
};

/**
 * The suite.
 */
class RoceHpccCompatTestSuite : public TestSuite
{
  public:
    RoceHpccCompatTestSuite()
        : TestSuite("rocev2-hpcc-compat", Type::UNIT)
    {
        AddTestCase(new SameFctsTestCase("none"), RoceTestDuration::QUICK);
        AddTestCase(new SameFctsTestCase("hpcc"), RoceTestDuration::QUICK);
        AddTestCase(new SameFctsTestCase("dctcp"), RoceTestDuration::QUICK);
        AddTestCase(new HpccFatTreeTestCase(false), RoceTestDuration::EXTENSIVE);
        AddTestCase(new HpccFatTreeTestCase(true), RoceTestDuration::TAKES_FOREVER);
    }
};

/// The suite's instance.
RoceHpccCompatTestSuite g_roceHpccCompatTestSuite;

} // namespace
