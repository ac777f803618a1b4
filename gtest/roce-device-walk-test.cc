/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceForEachDevice and RoceForEachNodeObject: every device of the class
 * asked for, nodes by id and devices by interface index, and every node
 * that aggregates the object asked for.
 */

#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/roce-absent-device.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <utility>
#include <vector>

using namespace ns3;

TEST(RoceDeviceWalk, VisitsNodesByIdAndDevicesByIndex)
{
    Simulator::Destroy(); // an empty NodeList
    NodeContainer nodes(3);
    // Node 0: two NICs. Node 1: a switch with no NIC. Node 2: a stand-in,
    // then a NIC.
    nodes.Get(0)->AddDevice(CreateObject<RoceNetDevice>());
    nodes.Get(0)->AddDevice(CreateObject<RoceNetDevice>());
    nodes.Get(1)->AggregateObject(CreateObject<RoceSwitch>());
    nodes.Get(1)->AddDevice(CreateObject<RoceAbsentDevice>());
    nodes.Get(2)->AddDevice(CreateObject<RoceAbsentDevice>());
    nodes.Get(2)->AddDevice(CreateObject<RoceNetDevice>());

    std::vector<std::pair<uint32_t, uint32_t>> nics;
    RoceForEachDevice<RoceNetDevice>([&](const Ptr<Node>& node, const Ptr<RoceNetDevice>& nic) {
        EXPECT_EQ(nic->GetNode(), node);
        nics.emplace_back(node->GetId(), nic->GetIfIndex());
    });
    const std::vector<std::pair<uint32_t, uint32_t>> expectedNics = {{0, 0}, {0, 1}, {2, 1}};
    EXPECT_EQ(nics, expectedNics);

    std::vector<std::pair<uint32_t, uint32_t>> all;
    RoceForEachDevice<NetDevice>([&](const Ptr<Node>& node, const Ptr<NetDevice>& dev) {
        all.emplace_back(node->GetId(), dev->GetIfIndex());
    });
    const std::vector<std::pair<uint32_t, uint32_t>> expectedAll = {{0, 0},
                                                                    {0, 1},
                                                                    {1, 0},
                                                                    {2, 0},
                                                                    {2, 1}};
    EXPECT_EQ(all, expectedAll);

    std::vector<uint32_t> switches;
    RoceForEachNodeObject<RoceSwitch>([&](const Ptr<Node>& node, const Ptr<RoceSwitch>& sw) {
        EXPECT_EQ(node->GetObject<RoceSwitch>(), sw);
        switches.push_back(node->GetId());
    });
    EXPECT_EQ(switches, std::vector<uint32_t>{1});
    Simulator::Destroy();
}
