/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceAiZoneHelper refuses fabrics it cannot build, with a message that
 * names the parameter and its value.
 */

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/simulator.h"

#include <functional>
#include <gtest/gtest.h>

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

TEST(AiZoneHelperDeathTest, GpusNotWholeRacks)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // 16 NICs per rack (2 servers x 8 GPUs): 72 is 4.5 racks.
    EXPECT_DEATH(BuildWith([](RoceAiZoneHelper& h) { h.SetGpus(72); }),
                 "gpus=72 is not a multiple");
    // 3 zones of whole racks need a multiple of 48.
    EXPECT_DEATH(BuildWith([](RoceAiZoneHelper& h) {
                     h.SetTiers(3);
                     h.SetZones(3);
                     h.SetGpus(64);
                 }),
                 "gpus=64 is not a multiple of zones x NICs per rack = 48");
}

TEST(AiZoneHelperDeathTest, UplinksNotDivisibleOverCtsws)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(BuildWith([](RoceAiZoneHelper& h) {
                     h.SetUplinks(12);
                     h.SetCtsws(8);
                 }),
                 "uplinks=12 is not a positive multiple of ctsws=8");
}

TEST(AiZoneHelperDeathTest, BadOversubscription)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto threeTier = [](double o) {
        return [o](RoceAiZoneHelper& h) {
            h.SetTiers(3);
            h.SetZones(2);
            h.SetGpus(128); // 4 racks per zone: 4 x 16/16 = 4 downlinks per CTSW
            h.SetOversubscription(o);
        };
    };
    EXPECT_DEATH(BuildWith(threeTier(0)), "oversubscription=0 \\(must be > 0\\)");
    EXPECT_DEATH(BuildWith(threeTier(-7)), "oversubscription=-7 \\(must be > 0\\)");
    // 4 downlinks / 8 is less than one link.
    EXPECT_DEATH(BuildWith(threeTier(8)), "oversubscription=8 gives 0.5");
    // 4 / 2 = 2 links, and 4 / 3 rounds to 1 link: accepted.
    BuildWith(threeTier(2));
    BuildWith(threeTier(3));
}

TEST(AiZoneHelperDeathTest, AddressFieldsOverflow)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // 10.zone.rack.nic: at most 256 racks per zone and 256 NICs per rack.
    EXPECT_DEATH(BuildWith([](RoceAiZoneHelper& h) { h.SetGpus(257 * 16); }), "racks per zone=257");
    EXPECT_DEATH(BuildWith([](RoceAiZoneHelper& h) {
                     h.SetServersPerRack(33);
                     h.SetGpus(33 * 8);
                 }),
                 "NICs per rack=264");
    EXPECT_DEATH(BuildWith([](RoceAiZoneHelper& h) {
                     h.SetTiers(3);
                     h.SetZones(257);
                 }),
                 "zones=257");
    // 2 tiers are one zone.
    EXPECT_DEATH(BuildWith([](RoceAiZoneHelper& h) { h.SetZones(2); }), "zones=2 needs tiers=3");
    EXPECT_DEATH(BuildWith([](RoceAiZoneHelper& h) { h.SetTiers(4); }), "tiers=4");
}

TEST(AiZoneHelperDeathTest, AtswsMustDivideCtswUplinks)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(BuildWith([](RoceAiZoneHelper& h) {
                     h.SetTiers(3);
                     h.SetZones(2);
                     h.SetGpus(128);
                     h.SetOversubscription(1); // 4 ATSW links per CTSW
                     h.SetAtsws(3);
                 }),
                 "atsws=3 does not divide the 4");
}
