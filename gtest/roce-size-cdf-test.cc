/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceSizeCdf reads flow-size CDF files (data/cdf), samples them by inverse
 * transform with linear interpolation, and refuses malformed files with
 * file:line and the field.
 */

#include "roce-gtest-error.h"

#include "ns3/roce-size-cdf.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/** \return the error TryParse gives for text, named "t.txt" */
std::string
ErrorOf(const std::string& text)
{
    std::istringstream in(text);
    RoceSizeCdf cdf;
    return RoceSizeCdf::TryParse(in, "t.txt", cdf);
}

} // namespace

TEST(SizeCdf, ReadsWebSearch)
{
    const RoceSizeCdf cdf = RoceSizeCdf::Read("data/cdf/websearch.txt");
    ASSERT_EQ(cdf.GetPoints().size(), 12u);
    EXPECT_EQ(cdf.GetPoints()[1].first, 10000);
    EXPECT_EQ(cdf.GetPoints()[1].second, 15);
    EXPECT_EQ(cdf.GetPoints().back().first, 30000000);
    // Trapezoids of the file's points, by hand:
    // .15*5000 + .05*15000 + .10*25000 + .10*40000 + .13*65000 + .07*140000
    // + .10*600000 + .10*1500000 + .10*3500000 + .07*7500000 + .03*20000000
    EXPECT_NEAR(cdf.Mean(), 1711250.0, 1e-6);
}

TEST(SizeCdf, ReadsFbHadoop)
{
    const RoceSizeCdf cdf = RoceSizeCdf::Read("data/cdf/fb-hadoop.txt");
    EXPECT_GT(cdf.GetPoints().size(), 2u);
    EXPECT_EQ(cdf.GetPoints().back().second, 100);
}

TEST(SizeCdf, SamplesByLinearInterpolation)
{
    std::istringstream in("# bytes percent\n100 0\n1100 50\n\n3100 100\n");
    const RoceSizeCdf cdf = RoceSizeCdf::Parse(in, "t");
    // Quantile u: 100 + 2000u below the median, 1100 + 4000(u - 0.5) above.
    EXPECT_EQ(cdf.Sample(0.0), 100u);
    EXPECT_EQ(cdf.Sample(0.25), 600u);
    EXPECT_EQ(cdf.Sample(0.5), 1100u);
    EXPECT_EQ(cdf.Sample(0.75), 2100u);
    EXPECT_EQ(cdf.Sample(0.999999), 3100u);
    // mean = .5 (100 + 1100)/2 + .5 (1100 + 3100)/2
    EXPECT_DOUBLE_EQ(cdf.Mean(), 1350.0);
}

TEST(SizeCdf, PointMassAndSmallestSize)
{
    // 30% of flows are exactly 64 bytes; sizes round to at least 1 byte.
    std::istringstream in("64 30\n64 30\n1064 100\n");
    const RoceSizeCdf cdf = RoceSizeCdf::Parse(in, "t");
    EXPECT_EQ(cdf.Sample(0.0), 64u);
    EXPECT_EQ(cdf.Sample(0.29), 64u);
    EXPECT_EQ(cdf.Sample(0.65), 564u);
    EXPECT_DOUBLE_EQ(cdf.Mean(), 0.3 * 64 + 0.7 * 564);
    std::istringstream zero("0 0\n1 100\n");
    EXPECT_EQ(RoceSizeCdf::Parse(zero, "z").Sample(0.1), 1u);
}

TEST(SizeCdf, MeanIsTheMeanOfTheSamples)
{
    // Quadrature of the inverse CDF over a fine uniform grid of quantiles:
    // another way to the mean, independent of Mean()'s trapezoids. Rounding
    // to whole bytes moves each sample by at most 0.5 B.
    const RoceSizeCdf cdf = RoceSizeCdf::Read("data/cdf/websearch.txt");
    const int n = 1000000;
    double sum = 0;
    for (int i = 0; i < n; ++i)
    {
        sum += static_cast<double>(cdf.Sample((i + 0.5) / n));
    }
    EXPECT_NEAR(sum / n, cdf.Mean(), 0.5 + 1e-6 * cdf.Mean());
}

TEST(SizeCdf, MalformedFilesNameLineAndField)
{
    EXPECT_EQ(ErrorOf(""), "t.txt: empty CDF (no 'bytes percent' lines)");
    EXPECT_EQ(ErrorOf("# only a comment\n\n"), "t.txt: empty CDF (no 'bytes percent' lines)");
    EXPECT_EQ(ErrorOf("0 0\n10 50 7\n"), "t.txt:2: expected 2 fields (bytes percent), found 3");
    EXPECT_EQ(ErrorOf("0 0\nten 50\n"), "t.txt:2: bytes 'ten' is not a number >= 0");
    EXPECT_EQ(ErrorOf("-5 0\n"), "t.txt:1: bytes '-5' is not a number >= 0");
    EXPECT_EQ(ErrorOf("0 0\n10 5O\n"), "t.txt:2: percent '5O' is not a number");
    EXPECT_EQ(ErrorOf("0 0\n10 101\n"), "t.txt:2: percent '101' is not in [0, 100]");
    EXPECT_EQ(ErrorOf("0 -1\n10 100\n"), "t.txt:1: percent '-1' is not in [0, 100]");
    EXPECT_EQ(ErrorOf("0 0\n100 50\n\n90 100\n"),
              "t.txt:4: bytes '90' is below the line before: a CDF is not monotone");
    EXPECT_EQ(ErrorOf("0 0\n100 50\n200 40\n300 100\n"),
              "t.txt:3: percent '40' is below the line before: a CDF is not monotone");
    EXPECT_EQ(ErrorOf("0 0\n100 50\n200 97\n\n"), "t.txt:3: the last percent is 97, not 100");
    EXPECT_EQ(ErrorOf("0 0\n100 50\n200 100\n"), "");
}

TEST(SizeCdf, MalformedFileIsFatal)
{
    const std::string path = "/tmp/rocev2-size-cdf-bad.txt";
    std::ofstream(path) << "0 0\n100 50\n200 97\n";
    EXPECT_ROCE_ERROR(RoceSizeCdf::Read(path), "rocev2-size-cdf-bad.txt:3: the last percent is 97");
    EXPECT_ROCE_ERROR(RoceSizeCdf::Read("/nonexistent/cdf.txt"),
                      "/nonexistent/cdf.txt: cannot be read");
    std::remove(path.c_str());
}
