/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceAiZoneHelper refuses fabrics it cannot build, with a message that
 * names the parameter and its value.
 */

#include "roce-gtest-error.h"

#include "ns3/node-list.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-resource-guard.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cstdlib>
#include <functional>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

/** Build a small 2-tier fabric (4 racks of 16 NICs) after `tweak`. */
void
BuildWith(const std::function<void(RoceAiZoneHelper&)>& tweak)
{
    RoceAiZoneHelper h;
    h.SetGpus(64);
    tweak(h);
    h.Build();
    Simulator::Destroy();
}

} // namespace

TEST(AiZoneHelperErrorTest, GpusNotWholeRacks)
{
    // 16 NICs per rack (2 servers x 8 GPUs): 72 is 4.5 racks.
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetGpus(72); }),
                      "gpus=72 is not a multiple");
    // 3 zones of whole racks need a multiple of 48.
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) {
                          h.SetTiers(3);
                          h.SetZones(3);
                          h.SetGpus(64);
                      }),
                      "gpus=64 is not a multiple of zones x NICs per rack = 48");
}

TEST(AiZoneHelperErrorTest, UplinksNotDivisibleOverCtsws)
{
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) {
                          h.SetUplinks(12);
                          h.SetCtsws(8);
                      }),
                      "uplinks=12 is not a positive multiple of ctsws=8");
}

TEST(AiZoneHelperErrorTest, BadOversubscription)
{
    auto threeTier = [](double o) {
        return [o](RoceAiZoneHelper& h) {
            h.SetTiers(3);
            h.SetZones(2);
            h.SetGpus(128); // 4 racks per zone: 4 x 16/16 = 4 downlinks per CTSW
            h.SetOversubscription(o);
        };
    };
    EXPECT_ROCE_ERROR(BuildWith(threeTier(0)), "oversubscription=0 \\(must be > 0\\)");
    EXPECT_ROCE_ERROR(BuildWith(threeTier(-7)), "oversubscription=-7 \\(must be > 0\\)");
    // 4 downlinks / 8 is less than one link.
    EXPECT_ROCE_ERROR(BuildWith(threeTier(8)), "oversubscription=8 gives 0.5");
    // 4 / 2 = 2 links, and 4 / 3 rounds to 1 link: accepted.
    BuildWith(threeTier(2));
    BuildWith(threeTier(3));
}

TEST(AiZoneHelperErrorTest, AddressFieldsOverflow)
{
    // 10.zone.rack.nic: at most 256 racks per zone and 256 NICs per rack.
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetGpus(257 * 16); }),
                      "racks per zone=257");
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) {
                          h.SetServersPerRack(33);
                          h.SetGpus(33 * 8);
                      }),
                      "NICs per rack=264");
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) {
                          h.SetTiers(3);
                          h.SetZones(257);
                      }),
                      "zones=257");
    // 2 tiers are one zone.
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetZones(2); }),
                      "zones=2 needs tiers=3");
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetTiers(4); }), "tiers=4");
}

TEST(AiZoneHelperErrorTest, AtswsMustDivideCtswUplinks)
{
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) {
                          h.SetTiers(3);
                          h.SetZones(2);
                          h.SetGpus(128);
                          h.SetOversubscription(1); // 4 ATSW links per CTSW
                          h.SetAtsws(3);
                      }),
                      "atsws=3 does not divide the 4");
}

TEST(AiZoneHelperErrorTest, FatTreeRadix)
{
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetFatTree(5); }),
                      "fat-tree k=5 \\(must be even and 2..256\\)");
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetFatTree(0); }), "fat-tree k=0");
}

TEST(AiZoneHelperErrorTest, UnknownPresetNamesTheKnownOnes)
{
    EXPECT_ROCE_ERROR(
        BuildWith([](RoceAiZoneHelper& h) { h.SetPreset("meta-zone-4k"); }),
        "preset \"meta-zone-4k\" is unknown \\(known: meta-zone-3072, meta-cluster-24k\\)");
}

TEST(AiZoneHelperErrorTest, AtswPlanesMustDivide)
{
    auto threeTier = [](uint32_t planes, uint32_t atsws) {
        return [planes, atsws](RoceAiZoneHelper& h) {
            h.SetTiers(3);
            h.SetZones(2);
            h.SetGpus(128);
            h.SetOversubscription(1); // 4 ATSW links per CTSW, 16 CTSWs
            h.SetAtswPlanes(planes);
            h.SetAtsws(atsws);
        };
    };
    EXPECT_ROCE_ERROR(BuildWith(threeTier(3, 0)), "atswPlanes=3 does not divide ctsws=16");
    EXPECT_ROCE_ERROR(BuildWith(threeTier(0, 0)), "atswPlanes=0 does not divide ctsws=16");
    EXPECT_ROCE_ERROR(BuildWith(threeTier(4, 6)), "atswPlanes=4 does not divide atsws=6");
    // 4 planes of 3 ATSWs: a CTSW's 4 links do not spread evenly over 3.
    EXPECT_ROCE_ERROR(BuildWith(threeTier(4, 12)),
                      "atsws=12 does not divide the 4 ATSW links of a "
                      "CTSW over its plane");
}

TEST(AiZoneHelperErrorTest, RailSwitchesPerZone)
{
    // 33 racks x 8 rails = 264 rail switches: more than 10.zone.rail fits.
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) {
                          h.SetRailOptimized(true);
                          h.SetGpus(33 * 16);
                      }),
                      "rail switches per zone=264");
}

TEST(AiZoneHelperErrorTest, PictureOfALargeFabric)
{
    // 1024 GPUs: 128 servers + 64 RTSWs + 16 CTSWs = 208 nodes.
    EXPECT_ROCE_ERROR(
        {
            RoceAiZoneHelper h;
            std::ostringstream os;
            h.Build().WriteDot(os);
        },
        "the fabric has 208 nodes");
}

TEST(AiZoneHelperErrorTest, RouteToAMissingPortNamesThePrefix)
{
    EXPECT_ROCE_ERROR(
        {
            NodeContainer n;
            n.Create(1);
            RoceSwitchHelper().Install(n);
            n.Get(0)->GetObject<RoceSwitch>()->AddRoute(Ipv4Address("10.1.0.0"),
                                                        Ipv4Mask("255.255.0.0"),
                                                        {3});
        },
        "route to 10.1.0.0/16 names port 3, but the switch has 0 ports");
}

TEST(AiZoneHelperErrorTest, NvlinkGpusComeFromTheServer)
{
    EXPECT_ROCE_ERROR(
        BuildWith([](RoceAiZoneHelper& h) { h.SetNvlinkAttribute("NGpus", UintegerValue(4)); }),
        "NVLink attribute NGpus is the GPUs per server \\(SetGpusPerServer\\)");
    EXPECT_ROCE_ERROR(
        BuildWith([](RoceAiZoneHelper& h) { h.SetNvlinkAttribute("Bandwidth", UintegerValue(4)); }),
        "Bandwidth");
}

TEST(AiZoneHelperErrorTest, MemoryGuardRefusesBeforeBuilding)
{
    // 1,024 GPUs: 2,048 links x 12.6 KB + 12 MB = 37.8 MB, over a 20 MB limit;
    // 64 GPUs (128 links, 13.6 MB) fit, and 0 turns the guard off.
    setenv("ROCEV2_MEMORY_LIMIT", "20MB", 1);
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetGpus(1024); }),
                      "RoceAiZoneHelper: 1024 GPUs: the scenario needs about 0.04 GB of memory "
                      "\\(2048 links x 12600 B \\+ 0 QPs x 4800 B \\+ 12 MB\\), more than the "
                      "0.02 GB ROCEV2_MEMORY_LIMIT allows");
    EXPECT_EQ(NodeList::GetNNodes(), 0u) << "nothing is built before the refusal";
    BuildWith([](RoceAiZoneHelper&) {});
    setenv("ROCEV2_MEMORY_LIMIT", "0", 1);
    BuildWith([](RoceAiZoneHelper& h) { h.SetGpus(1024); });
    setenv("ROCEV2_MEMORY_LIMIT", "lots", 1);
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper&) {}),
                      "ROCEV2_MEMORY_LIMIT=lots is not a byte count");
    unsetenv("ROCEV2_MEMORY_LIMIT");
    EXPECT_GT(RoceResourceGuard::GetLimit(), 0u) << "MemAvailable of /proc/meminfo";
}

TEST(AiZoneHelperErrorTest, PartitionRefusals)
{
    // 64 GPUs: 4 racks, 16 CTSWs. A racks partition over 2 ranks cuts
    // RTSW-CTSW links: with a delay of 0 it has no lookahead.
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) {
                          h.SetPartition("racks", 2);
                          h.SetLinkDelay(RoceAiZoneHelper::CTSW, Seconds(0));
                      }),
                      "partition: the link between node [0-9]+ \\(rank [01]\\) and node [0-9]+ "
                      "\\(rank [01]\\) is on the cut with a delay of 0; a link between ranks "
                      "needs a positive delay");
    Simulator::Destroy();
    // In a one-process run, a node on rank 1 cannot run.
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetPartition("racks", 2); }),
                      "is on rank 1 but the run has 1 rank");
    Simulator::Destroy();
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetPartition("halves"); }),
                      "partition 'halves' is unknown; use none, racks, zones, auto or map");
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetPartition("racks", 8); }),
                      "partition 'racks' needs at least as many racks as ranks; got 4 rack\\(s\\) "
                      "for 8 ranks");
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetPartition("zones", 2); }),
                      "partition 'zones' needs a 3-tier fabric with at least as many zones as "
                      "ranks; got 1 zone\\(s\\) for 2 ranks");
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetPartition("map:0,1,x,1", 2); }),
                      "partition map item 3 'x' is not a rank number");
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetPartition("map:0,1,1", 2); }),
                      "partition map names 3 racks; the fabric has 4");
    EXPECT_ROCE_ERROR(BuildWith([](RoceAiZoneHelper& h) { h.SetPartition("map:0,1,2,1", 2); }),
                      "partition map gives rack 2 rank 2 but the run has 2 ranks");
    Simulator::Destroy();
    // Any partition on one rank is every node on rank 0.
    BuildWith([](RoceAiZoneHelper& h) { h.SetPartition("racks"); });
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        EXPECT_EQ(NodeList::GetNode(n)->GetSystemId(), 0u);
    }
}
