/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The comma-list parser every list-valued string attribute uses
// (model/util/roce-spec-list.h): splitting, trimming, blank items, and
// integers that must be the whole item.

#include "ns3/roce-spec-list.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(RoceSpecListTest, SplitsAtCommasAndTrimsBlanks)
{
    std::vector<std::string> want{"3", "24:5", "a b"};
    EXPECT_EQ(RoceSpecList::Split("3, 24:5 ,\ta b\t"), want);
}

TEST(RoceSpecListTest, BlankItemsStayAsEmptyStrings)
{
    EXPECT_EQ(RoceSpecList::Split(""), std::vector<std::string>{""});
    std::vector<std::string> three{"1", "", "2"};
    EXPECT_EQ(RoceSpecList::Split("1,,2"), three);
    std::vector<std::string> trailing{"1", ""};
    EXPECT_EQ(RoceSpecList::Split("1, "), trailing);
    std::vector<std::string> leading{"", "7"};
    EXPECT_EQ(RoceSpecList::Split(" ,7"), leading);
}

TEST(RoceSpecListTest, UnsignedMustBeTheWholeItemAndInRange)
{
    uint32_t v = 99;
    EXPECT_TRUE(RoceSpecList::ParseUnsigned("0", 7, v));
    EXPECT_EQ(v, 0u);
    EXPECT_TRUE(RoceSpecList::ParseUnsigned("65535", 65535, v));
    EXPECT_EQ(v, 65535u);
    v = 99;
    EXPECT_FALSE(RoceSpecList::ParseUnsigned("8", 7, v));
    EXPECT_FALSE(RoceSpecList::ParseUnsigned("", 7, v));
    EXPECT_FALSE(RoceSpecList::ParseUnsigned("-1", 7, v));
    EXPECT_FALSE(RoceSpecList::ParseUnsigned("3x", 7, v));
    EXPECT_FALSE(RoceSpecList::ParseUnsigned("1 2", 7, v));
    EXPECT_FALSE(RoceSpecList::ParseUnsigned("9999999999", UINT32_MAX, v)); // 10 digits
    EXPECT_EQ(v, 99u) << "a rejected item must leave the value alone";
}
