/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceFlowEngine::GetPath follows pinned routes (RoceSwitch::AddPinnedRoute)
 * as the packet model's frames do, at every tier of a 3-tier zone. The
 * recorder and the comparison are rocev2-flow-path's
 * (rocev2-flow-path-helpers.h).
 */
#include "rocev2-flow-path-helpers.h"

using namespace ns3;

namespace
{
/**
 * \ingroup rocev2
 * Pinned routes: 96 QPs (every NIC to its twin in the other zone, its place
 * in the next rack and the other server of its rack) send a frame; then 4
 * cross-zone QPs are pinned to another port of the ECMP group they took, one
 * per tier (RTSW up to another CTSW, CTSW up to another ATSW, ATSW down to
 * another CTSW, CTSW down over the other parallel link to the same RTSW), and
 * every QP sends again. Both times a fresh engine's paths are the frames';
 * the pinned QPs' frames left by the pinned ports (4 frames forwarded by a
 * pin in all) and the others kept their paths.
 */
class PinnedPathTestCase : public FlowPathTestCase
{
  public:
    PinnedPathTestCase()
        : FlowPathTestCase("pinned routes: GetPath follows a pin at each tier as the frames do")
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
        const uint32_t n = z.GetNGpus();
        for (uint32_t a = 0; a < n; ++a)
        {
            pairs.emplace_back(a, (a + n / 2) % n);
            pairs.emplace_back(a, OtherRack(z, a, 1));
            // The same place on the other server of the rack.
            const uint32_t g = z.gpusPerServer;
            const uint32_t rackBase = a / z.GetNicsPerRack() * z.GetNicsPerRack();
            pairs.emplace_back(a, rackBase + (a - rackBase + g) % z.GetNicsPerRack());
        }
        std::vector<Flow> flows = CreateFlows(z, zh.GetRoceHelper(), pairs, 1);
        PostAndRun(flows);
        const std::vector<Path> before = Compare(z, flows, rec, "before the pins");

        // Pin the first 4 QPs from zone 0 to zone 1, QP k at switch k + 1 of
        // its path, to another port of the group its frame took there.
        struct Pin
        {
            std::size_t flow;                 //!< index of the QP
            uint32_t hop;                     //!< position of the pinned port in the path
            const RocePfcNetDevice* port;     //!< the port it is pinned to
            const RocePfcNetDevice* ecmpTook; //!< the port it took before
        };

        std::vector<Pin> pins;
        for (std::size_t i = 0; i < flows.size() && pins.size() < 4; ++i)
        {
            const Flow& f = flows[i];
            if (z.GetZone(f.src) != 0 || z.GetSwitchHops(f.src, f.dst) != 5)
            {
                continue;
            }
            const uint32_t hop = static_cast<uint32_t>(pins.size()) + 1;
            NS_TEST_ASSERT_MSG_EQ(before[i].size(), 6u, "a cross-zone path");
            const auto* took = dynamic_cast<const RoceSwitchPort*>(before[i][hop]);
            NS_TEST_ASSERT_MSG_NE(took, nullptr, "a switch port");
            Ptr<RoceSwitch> sw = took->GetNode()->GetObject<RoceSwitch>();
            const RoceFlowKey key = KeyOf(f.qp);
            const std::vector<uint32_t> group = sw->Lookup(Ipv4Address(key.dstIp));
            NS_TEST_ASSERT_MSG_GT(group.size(), 1u, "an ECMP group at hop " << hop);
            Ptr<Node> wasNext = PeerNode(sw->GetPort(took->GetPortIndex()));
            int32_t alt = -1;
            for (uint32_t p : group)
            {
                if (p == took->GetPortIndex())
                {
                    continue;
                }
                // The last choice is between parallel links to one RTSW: the
                // pin must pick the right one of two ports to one node.
                // Elsewhere move the frame to another switch.
                const bool sameNext = PeerNode(sw->GetPort(p)) == wasNext;
                if (sameNext == (hop == 4))
                {
                    alt = static_cast<int32_t>(p);
                    break;
                }
            }
            NS_TEST_ASSERT_MSG_GT_OR_EQ(alt, 0, "another port of the group at hop " << hop);
            sw->AddPinnedRoute(key, static_cast<uint32_t>(alt));
            pins.push_back({i, hop, PeekPointer(sw->GetPort(alt)), before[i][hop]});
        }
        NS_TEST_ASSERT_MSG_EQ(pins.size(), 4u, "pinned QPs");

        rec.Clear();
        PostAndRun(flows);
        const std::vector<Path> after = Compare(z, flows, rec, "with the pins");
        uint64_t pinnedFrames = 0;
        for (const Ptr<RoceSwitch>& sw : AllSwitches(z))
        {
            pinnedFrames += sw->GetPinnedFrames();
        }
        NS_TEST_EXPECT_MSG_EQ(pinnedFrames, pins.size(), "frames forwarded by a pin");
        std::set<std::size_t> pinned;
        for (const Pin& p : pins)
        {
            pinned.insert(p.flow);
            const Path& path = after[p.flow];
            NS_TEST_ASSERT_MSG_EQ(path.size(), 6u, "pinned QP's path length");
            NS_TEST_EXPECT_MSG_EQ((path[p.hop] == p.port),
                                  true,
                                  "the frame of the QP pinned at hop "
                                      << p.hop << " left by" << Describe({path[p.hop]})
                                      << ", not the pinned" << Describe({p.port}));
            NS_TEST_EXPECT_MSG_EQ((path[p.hop] != p.ecmpTook), true, "the pin moved no frame");
            NS_TEST_EXPECT_MSG_EQ((Path(path.begin(), path.begin() + p.hop) ==
                                   Path(before[p.flow].begin(), before[p.flow].begin() + p.hop)),
                                  true,
                                  "the hops before the pin changed");
        }
        uint32_t moved = 0;
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            moved += pinned.count(i) == 0 && after[i] != before[i] ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(moved, 0u, "QPs that were not pinned changed path");
        std::cout << "rocev2-flow-path, pinned routes: " << flows.size() << " QPs, " << pins.size()
                  << " pinned (one per tier), " << pinnedFrames << " frames forwarded by a pin, "
                  << moved << " others moved" << std::endl;
        Simulator::Destroy();
    }
};

} // namespace

/**
 * \ingroup rocev2
 * RoceFlowEngine::GetPath against the frames of the packet model, with pins.
 */
class RoceFlowPinTestSuite : public TestSuite
{
  public:
    RoceFlowPinTestSuite()
        : TestSuite("rocev2-flow-pin", Type::UNIT)
    {
        AddTestCase(new PinnedPathTestCase, RoceTestDuration::QUICK);
    }
};

static RoceFlowPinTestSuite g_roceFlowPinTestSuite; //!< static instance
