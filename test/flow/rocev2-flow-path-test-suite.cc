/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceFlowEngine::GetPath against the packet model: the devices the engine
 * says a queue pair's data frames leave by are the ones its frames leave by.
 */

// What is checked. A 3-tier AI Zone (2 zones of 4 racks of 2 servers of 2
// NICs; 4 uplinks per RTSW over 2 CTSWs, so 2 parallel links per RTSW-CTSW
// pair; 4 ATSWs) carries one 64-byte RDMA WRITE (one data frame) on each of
// hundreds of queue pairs between NICs of different servers: under one RTSW
// (1 switch), across racks of a zone (3) and across zones (5). Every data
// frame is recorded where it is put on a wire (the MacTx trace of every NIC
// and every switch port), keyed by its flow as parsed from its bytes (source
// and destination address, UDP ports, BTH destination QP: with one source
// port, two QPs of a NIC towards two NICs may have the same destination QP
// number, so the source alone does not tell them apart). After the run, a
// RoceFlowEngine made for the purpose and attached to no NIC gives
// GetPath(qp) for every queue pair; its first device must be the QP's NIC
// and the rest, in order, the switch ports the frame left by. The cases:
// - ECMP: 960 QPs, one per ordered pair of NICs of different servers;
// - QP scaling: 8 QPs per NIC pair (source ports derived from the QP
//   numbers), 64 pairs;
// - E-ECMP: the same with one source port for every QP and EcmpUseQp=true
//   (Config::SetDefault before Build, restored after), so that only the
//   destination QP tells a pair's QPs apart; and the control, EcmpUseQp=false
//   with that one source port, where a pair's QPs must share one path;
// - pinned routes: 4 cross-zone QPs are pinned (RoceSwitch::AddPinnedRoute)
//   to another port of the ECMP group they took, one at each tier of the path
//   (RTSW up, CTSW up, ATSW down, CTSW down over the parallel link); the
//   frames are sent again and the engine's paths must follow the pins as the
//   frames do, while the other QPs keep their paths.
// Each case also checks the run was clean (every message completed, no drop,
// no retransmission, one data frame per QP on every hop: the recorded path
// has the zone's switch count for the pair) and that ECMP actually spread the
// QPs (more than one uplink per RTSW, more than one path per QP-scaling or
// E-ECMP pair, exactly one per pair in the control), so that equal paths are
// not equal by there being only one path to take.
//
// Why the oracle is independent. The recorded path is what the packet
// model did: the sending NIC built the headers from the QP's state, each
// switch parsed the frame's bytes (RoceFrame) and forwarded it in
// RoceSwitch::Receive (SelectEgress, or SelectEgressBalanced once flows are
// pinned), and the channels carried it to the next device. The engine instead
// makes up a frame from the QP's accessors, looks the pin up itself
// (GetPinnedPort), calls SelectEgress and walks the channels by itself. A
// mistake in any of these (a field of the made-up frame: source port, remote
// QP number, UDP ports, protocol, the QP-hash flag; pin precedence; which
// device is the peer; which of two parallel links a port index names; the
// order of the hops) gives a different path for some QP here. What both
// share is the hash of RoceSwitch::SelectEgress and the route table: a bad
// hash would pass here and is the business of rocev2-ai-zone-ecmp.
//
// The comparison bites: changing every switch's EcmpSeed, or flipping its
// EcmpUseQp, between the packet run and the engine's walk made 471 to 852 of
// a case's QPs differ, and clearing the pins made the 4 pinned QPs differ
// (each case alone).

#include "rocev2-flow-path-helpers.h"

using namespace ns3;

namespace
{
/**
 * \ingroup rocev2
 * ECMP: one QP from every NIC to every NIC of another server (960 QPs, over
 * 1, 3 and 5 switches); the engine's path of each is its frame's; every
 * RTSW spread the QPs leaving its rack over more than one uplink.
 */
class EcmpPathTestCase : public FlowPathTestCase
{
  public:
    EcmpPathTestCase()
        : FlowPathTestCase("ECMP: GetPath = the frame's ports for 960 QPs over 1, 3 and 5 "
                           "switches of a 3-tier zone")
    {
    }

  private:
    void DoRun() override
    {
        RoceAiZoneHelper zh;
        ShapeZone(zh);
        RoceAiZone z = zh.Build();
        PathRecorder rec(z);
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        for (uint32_t a = 0; a < z.GetNGpus(); ++a)
        {
            for (uint32_t b = 0; b < z.GetNGpus(); ++b)
            {
                if (z.GetServer(a) != z.GetServer(b))
                {
                    pairs.emplace_back(a, b);
                }
            }
        }
        std::vector<Flow> flows = CreateFlows(z, zh.GetRoceHelper(), pairs, 1);
        NS_TEST_ASSERT_MSG_EQ(flows.size(), 960u, "QPs");
        PostAndRun(flows);
        std::vector<Path> paths = Compare(z, flows, rec, "ECMP");

        std::map<uint32_t, uint32_t> byHops;
        std::map<const Node*, std::set<const RocePfcNetDevice*>> uplinks; // per RTSW
        std::set<Path> routes;
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            const uint32_t hops = z.GetSwitchHops(flows[i].src, flows[i].dst);
            ++byHops[hops];
            if (hops > 1 && paths[i].size() > 1)
            {
                uplinks[PeekPointer(paths[i][1]->GetNode())].insert(paths[i][1]);
            }
            routes.insert(SwitchPart(paths[i]));
        }
        NS_TEST_EXPECT_MSG_EQ(byHops[1], 64u, "QPs under one RTSW");
        NS_TEST_EXPECT_MSG_EQ(byHops[3], 384u, "QPs across racks of a zone");
        NS_TEST_EXPECT_MSG_EQ(byHops[5], 512u, "QPs across zones");
        NS_TEST_EXPECT_MSG_EQ(uplinks.size(), z.rtsw.GetN(), "RTSWs that sent QPs up");
        uint32_t fewest = z.uplinksPerRtsw;
        for (const auto& [node, ports] : uplinks)
        {
            fewest = std::min<uint32_t>(fewest, ports.size());
        }
        // About 108 QPs leave each rack over 4 uplinks.
        NS_TEST_EXPECT_MSG_GT(fewest, 1u, "an RTSW sent every QP leaving its rack up one uplink");
        NS_TEST_EXPECT_MSG_GT(routes.size(), 1u, "every QP took the same switch ports");
        std::cout << "rocev2-flow-path, ECMP: " << flows.size() << " QPs, " << routes.size()
                  << " distinct switch-port sequences, at least " << fewest
                  << " uplinks used per RTSW" << std::endl;
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * QP scaling and E-ECMP: 8 QPs per NIC pair (64 pairs: every NIC to its
 * twin in the other zone and to its place in the next rack; 512 QPs). The
 * engine's path of each is its frame's, and:
 * - "scaling": source ports from the QP numbers, plain ECMP: every pair's
 *   QPs take more than one path;
 * - "E-ECMP": one source port for all, EcmpUseQp=true: every pair's QPs
 *   take more than one path (only the destination QP differs);
 * - "control": one source port for all, EcmpUseQp=false: every pair's QPs
 *   take one path (their frames' 5-tuples are equal).
 */
class QpScalingPathTestCase : public FlowPathTestCase
{
  public:
    /** How a pair's QPs differ. */
    enum Mode
    {
        SCALING, //!< source ports, plain ECMP
        E_ECMP,  //!< destination QP only, EcmpUseQp=true
        CONTROL, //!< destination QP only, EcmpUseQp=false
    };

    /** \param mode the variant */
    explicit QpScalingPathTestCase(Mode mode)
        : FlowPathTestCase(std::string(Name(mode)) + ": GetPath = the frame's ports for " +
                           std::to_string(QPS_PER_PAIR) + " QPs per NIC pair, 64 pairs; " +
                           (mode == CONTROL ? "one path" : "several paths") + " per pair"),
          m_mode(mode)
    {
    }

  private:
    /** \param mode a variant \return its name */
    static const char* Name(Mode mode)
    {
        return mode == SCALING ? "QP scaling" : mode == E_ECMP ? "E-ECMP" : "E-ECMP control";
    }

    void DoRun() override
    {
        const bool useQp = m_mode == E_ECMP;
        // Before Build: the switches take the default when they are created.
        DefaultGuard guard("ns3::RoceSwitch", "EcmpUseQp", BooleanValue(useQp));
        RoceAiZoneHelper zh;
        ShapeZone(zh);
        if (m_mode != SCALING)
        {
            zh.GetRoceHelper().SetQpAttribute("SourcePort", UintegerValue(FIXED_SPORT));
        }
        RoceAiZone z = zh.Build();
        for (const Ptr<RoceSwitch>& sw : AllSwitches(z))
        {
            BooleanValue v;
            sw->GetAttribute("EcmpUseQp", v);
            NS_TEST_ASSERT_MSG_EQ(v.Get(), useQp, Name(m_mode) << ": a switch's EcmpUseQp");
        }
        PathRecorder rec(z);
        const std::vector<std::pair<uint32_t, uint32_t>> pairs = ScalingPairs(z);
        std::vector<Flow> flows = CreateFlows(z, zh.GetRoceHelper(), pairs, QPS_PER_PAIR);
        NS_TEST_ASSERT_MSG_EQ(flows.size(), 512u, "QPs");
        std::set<uint16_t> sports;
        for (const Flow& f : flows)
        {
            sports.insert(f.qp->GetSourcePort());
        }
        if (m_mode == SCALING)
        {
            NS_TEST_EXPECT_MSG_GT(sports.size(),
                                  400u,
                                  "QP scaling: QPs with their own source "
                                  "port");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ(sports.size(), 1u, "one source port for all QPs");
        }
        PostAndRun(flows);
        std::vector<Path> paths = Compare(z, flows, rec, Name(m_mode));

        std::vector<std::set<Path>> routes = RoutesPerPair(flows, paths, pairs.size());
        uint32_t onePath = 0;
        std::size_t total = 0;
        for (const auto& r : routes)
        {
            onePath += r.size() == 1 ? 1 : 0;
            total += r.size();
        }
        std::cout << "rocev2-flow-path, " << Name(m_mode) << ": " << flows.size() << " QPs, "
                  << total << " distinct paths over " << pairs.size() << " pairs, " << onePath
                  << " pairs on one path" << std::endl;
        if (m_mode == CONTROL)
        {
            // Equal 5-tuples and the destination QP not hashed: one path per pair.
            NS_TEST_EXPECT_MSG_EQ(onePath,
                                  pairs.size(),
                                  "control: a pair's QPs with one source port took several "
                                  "paths without EcmpUseQp");
        }
        else
        {
            // 8 QPs over 8 (same zone) or 64 (across zones) equal-cost paths:
            // all on one has probability 8^-7 or 64^-7 per pair.
            NS_TEST_EXPECT_MSG_EQ(onePath,
                                  0u,
                                  Name(m_mode) << ": pairs whose " << QPS_PER_PAIR
                                               << " QPs all took one path");
        }
        Simulator::Destroy();
    }

    Mode m_mode; //!< the variant
};

} // namespace

/**
 * \ingroup rocev2
 * RoceFlowEngine::GetPath against the frames of the packet model.
 */
class RoceFlowPathTestSuite : public TestSuite
{
  public:
    RoceFlowPathTestSuite()
        : TestSuite("rocev2-flow-path", Type::UNIT)
    {
        AddTestCase(new EcmpPathTestCase, RoceTestDuration::QUICK);
        AddTestCase(new QpScalingPathTestCase(QpScalingPathTestCase::SCALING),
                    RoceTestDuration::QUICK);
        AddTestCase(new QpScalingPathTestCase(QpScalingPathTestCase::E_ECMP),
                    RoceTestDuration::QUICK);
        AddTestCase(new QpScalingPathTestCase(QpScalingPathTestCase::CONTROL),
                    RoceTestDuration::QUICK);
    }
};

static RoceFlowPathTestSuite g_roceFlowPathTestSuite; //!< static instance
