/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup rocev2
 * HPCC-PINT's digest: the logarithmic encoding is unbiased (base^p is the
 * scaled utilization in expectation), each code lies on one of the two
 * powers of the base around it, the two bytes are big-endian, and the
 * deterministic ACK sampling reads the share of ACKs it is asked to.
 */

#include "ns3/roce-cc-hpcc-pint.h"
#include "ns3/roce-pint-digest.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace ns3;

TEST(PintDigest, EncodingIsUnbiased)
{
    // Stratified draws u_i = (i + 1/2) / N cover U[0, 1) evenly, so the mean
    // of base^p over them is the expectation within 1/N of the rounding
    // probability's range: relative error below (base - 1) / N.
    const int n = 100000;
    for (double base : {1.01, 1.05})
    {
        for (double u : {0.004, 0.3, 0.95, 1.0, 1.7, 40.0})
        {
            const double x = std::max(1.0, std::ceil(u * RocePintDigest::SCALE));
            double sum = 0;
            for (int i = 0; i < n; ++i)
            {
                const uint16_t p = RocePintDigest::Encode(u, base, (i + 0.5) / n);
                const double v = std::pow(base, p);
                // One of the two powers of the base around x.
                EXPECT_LE(v, x * base * (1 + 1e-12)) << "u " << u << " base " << base;
                EXPECT_GE(v, x / base * (1 - 1e-12)) << "u " << u << " base " << base;
                sum += v;
            }
            EXPECT_NEAR(sum / n / x, 1.0, (base - 1) / n + 1e-9) << "u " << u << " base " << base;
        }
    }
}

TEST(PintDigest, DecodeAndBytes)
{
    EXPECT_DOUBLE_EQ(RocePintDigest::Decode(0, 1.01), 1.0 / 512);
    // 1.01^627 = 512.0 to within 0.5 %: U = 1.
    EXPECT_NEAR(RocePintDigest::Decode(627, 1.01), 1.0, 0.005);
    uint8_t b[2];
    RocePintDigest::Write(b, 0x1234);
    EXPECT_EQ(b[0], 0x12);
    EXPECT_EQ(b[1], 0x34);
    EXPECT_EQ(RocePintDigest::Read(b), 0x1234);
    // Utilizations of up to 128 (a queue of 127 bandwidth-delay products)
    // fit in 16 bits even at the finest base the global value allows here.
    EXPECT_LT(RocePintDigest::Encode(128.0, 1.001, 0.999), 65535);
}

TEST(PintDigest, SamplingReadsItsShareOfAcks)
{
    // Over n consecutive snd_una values the share read is binomial-like:
    // within 5 standard deviations sqrt(p (1 - p) / n) of p.
    const int n = 100000;
    for (double p : {1.0, 0.5, 0.1})
    {
        int read = 0;
        for (int i = 1; i <= n; ++i)
        {
            read += RoceCcHpccPint::Sampled(static_cast<uint64_t>(i) * 1000, p) ? 1 : 0;
        }
        EXPECT_NEAR(static_cast<double>(read) / n, p, 5 * std::sqrt(p * (1 - p) / n) + 1e-12)
            << "p " << p;
    }
}
