/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The ECMP flow hash (model/switch/roce-ecmp-hash.h): fixed values, spread over paths,
// independence between switch seeds, E-ECMP, avalanche and Select().
//
// All random inputs come straight from std::mt19937_64, whose output sequence
// the C++ standard fixes, and are cut into fields with shifts and masks (no
// std::uniform_int_distribution, whose output differs between standard
// libraries), so every statistic below is the same on every platform.

#include "ns3/roce-ecmp-hash.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint16_t ROCE_PORT = 4791; //!< RoCEv2 UDP destination port
constexpr uint8_t UDP = 17;          //!< IP protocol number of UDP

/** One flow as the switch hashes it. */
struct Flow
{
    uint32_t srcIp;
    uint32_t dstIp;
    uint16_t sport;
    uint16_t dport;
    uint8_t proto;
    uint32_t destQp;
};

uint64_t
HashFlow(uint64_t seed, const Flow& f, bool useQp)
{
    return RoceEcmpHash::Hash(seed, f.srcIp, f.dstIp, f.sport, f.dport, f.proto, useQp, f.destQp);
}

/** Random RoCEv2 flows: hosts in 10.0.0.0/8, any source port, 24-bit QPs. */
std::vector<Flow>
RandomFlows(uint32_t n, uint64_t rngSeed)
{
    std::mt19937_64 rng(rngSeed);
    std::vector<Flow> flows;
    flows.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        uint64_t a = rng();
        uint64_t b = rng();
        Flow f;
        f.srcIp = 0x0A000000u | static_cast<uint32_t>(a & 0xFFFFFF);
        f.dstIp = 0x0A000000u | static_cast<uint32_t>((a >> 24) & 0xFFFFFF);
        f.sport = static_cast<uint16_t>(b);
        f.dport = ROCE_PORT;
        f.proto = UDP;
        f.destQp = static_cast<uint32_t>(b >> 16) & 0xFFFFFF;
        flows.push_back(f);
    }
    return flows;
}

/** The QPs of one host pair: consecutive UDP source ports, as QP scaling produces. */
std::vector<Flow>
SequentialPortFlows(uint32_t n)
{
    std::vector<Flow> flows;
    flows.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        flows.push_back(Flow{0x0A000101u,
                             0x0A000202u,
                             static_cast<uint16_t>(49152 + i),
                             ROCE_PORT,
                             UDP,
                             0x000100u + i});
    }
    return flows;
}

/** Loads of `bins` paths after placing every flow. */
std::vector<uint32_t>
BinLoads(const std::vector<Flow>& flows, uint64_t seed, uint32_t bins, bool useQp)
{
    std::vector<uint32_t> load(bins, 0);
    for (const auto& f : flows)
    {
        uint32_t b = RoceEcmpHash::Select(HashFlow(seed, f, useQp), bins);
        EXPECT_LT(b, bins);
        if (b < bins)
        {
            ++load[b];
        }
    }
    return load;
}

double
ChiSquare(const std::vector<uint32_t>& load, double expected)
{
    double chi2 = 0;
    for (uint32_t o : load)
    {
        chi2 += (o - expected) * (o - expected) / expected;
    }
    return chi2;
}

// Balls into bins, 1000 flows over 16 paths.
constexpr uint32_t N_FLOWS = 1000;
constexpr uint32_t N_BINS = 16;
// Chi-square critical value for 15 degrees of freedom at the 99.9 % level.
constexpr double CHI2_15_999 = 37.70;
// A bin's load is Binomial(1000, 1/16): mean 62.5, standard deviation
// sqrt(1000 * 1/16 * 15/16) = 7.65. A load of 1.6 x mean = 100 is 4.9 standard
// deviations above the mean; the binomial tail P(X >= 100) is about 2e-6, so
// by the union bound the fullest of 16 bins reaches it with probability below
// 1e-4 for a uniform hash. Typical maxima are 1.2-1.35 x mean.
constexpr double MAX_OVER_MEAN = 1.6;

void
ExpectBalanced(const std::vector<uint32_t>& load, uint32_t nFlows, const char* what)
{
    double mean = static_cast<double>(nFlows) / load.size();
    uint32_t total = 0;
    for (uint32_t o : load)
    {
        total += o;
    }
    EXPECT_EQ(total, nFlows) << what;
    EXPECT_LT(ChiSquare(load, mean), CHI2_15_999) << what;
    uint32_t maxLoad = *std::max_element(load.begin(), load.end());
    EXPECT_LE(maxLoad, MAX_OVER_MEAN * mean) << what;
    uint32_t minLoad = *std::min_element(load.begin(), load.end());
    EXPECT_GT(minLoad, 0u) << what;
}

} // namespace

// fmix64 is a published function: these values pin it. Mix64(1) is the value
// of MurmurHash3's reference fmix64.
TEST(EcmpHashTest, Mix64MatchesFmix64)
{
    EXPECT_EQ(RoceHash::Mix64(0), 0x0000000000000000ULL);
    EXPECT_EQ(RoceHash::Mix64(1), 0xb456bcfc34c2cb2cULL);
    EXPECT_EQ(RoceHash::Mix64(0xFFFFFFFFFFFFFFFFULL), 0x64b5720b4b825f21ULL);
    EXPECT_EQ(RoceHash::Mix64(0x0123456789ABCDEFULL), 0x87cbfbfe89022ceaULL);
}

// The same flow must take the same path on every run and platform: these
// constants change only if the hash function itself changes. They agree with
// an independent Python evaluation of the formula in roce-ecmp-hash.h (see the
// snippet in DifferentSeedsChooseIndependently), Select() as (h >> 32) * n >> 32.
TEST(EcmpHashTest, PinnedValues)
{
    struct Case
    {
        uint64_t seed;
        Flow flow;
        bool useQp;
        uint64_t hash;
        uint32_t select16;
        uint32_t select7;
    };

    const std::array<Case, 5> cases{{
        {0, {0, 0, 0, 0, 0, 0}, false, 0x365afc61535b3920ULL, 3, 1},
        {1,
         {0x0A000001, 0x0A000002, 49152, ROCE_PORT, UDP, 0},
         false,
         0xf42d698e66b3149bULL,
         15,
         6},
        {1,
         {0x0A000001, 0x0A000002, 49152, ROCE_PORT, UDP, 0x123456},
         true,
         0x400c0e94fc59879dULL,
         4,
         1},
        {0xDEADBEEFCAFEF00DULL,
         {0xC0A80101, 0xC0A80202, 65535, ROCE_PORT, UDP, 0},
         false,
         0xe23b8902ed5f5ec8ULL,
         14,
         6},
        {0xDEADBEEFCAFEF00DULL,
         {0xC0A80101, 0xC0A80202, 65535, ROCE_PORT, UDP, 0xFFFFFF},
         true,
         0x767643355666b269ULL,
         7,
         3},
    }};
    for (const auto& c : cases)
    {
        uint64_t h = HashFlow(c.seed, c.flow, c.useQp);
        EXPECT_EQ(h, c.hash) << "seed " << c.seed << " sport " << c.flow.sport;
        EXPECT_EQ(RoceEcmpHash::Select(h, 16), c.select16);
        EXPECT_EQ(RoceEcmpHash::Select(h, 7), c.select7);
        // Every field the hash covers matters: flipping one bit of any of
        // them (or of the seed) gives another hash; the destination QP
        // matters exactly when E-ECMP is on.
        auto changed = [&c, h](Flow f, uint64_t seed) { return HashFlow(seed, f, c.useQp) != h; };
        Flow f = c.flow;
        f.srcIp ^= 1u << 7;
        EXPECT_TRUE(changed(f, c.seed)) << "srcIp ignored";
        f = c.flow;
        f.dstIp ^= 1u << 31;
        EXPECT_TRUE(changed(f, c.seed)) << "dstIp ignored";
        f = c.flow;
        f.sport ^= 1u;
        EXPECT_TRUE(changed(f, c.seed)) << "sport ignored";
        f = c.flow;
        f.dport ^= 1u << 15;
        EXPECT_TRUE(changed(f, c.seed)) << "dport ignored";
        f = c.flow;
        f.proto ^= 1u << 2;
        EXPECT_TRUE(changed(f, c.seed)) << "proto ignored";
        EXPECT_TRUE(changed(c.flow, c.seed ^ (1ULL << 63))) << "seed ignored";
        f = c.flow;
        f.destQp ^= 1u << 23;
        EXPECT_EQ(changed(f, c.seed), c.useQp) << "destQp hashed iff E-ECMP";
    }
}

TEST(EcmpHashTest, RandomFlowsSpreadEvenly)
{
    auto flows = RandomFlows(N_FLOWS, 20240601);
    for (uint64_t seed : {0ULL, 1ULL, 0x5eed0000000000a1ULL})
    {
        ExpectBalanced(BinLoads(flows, seed, N_BINS, false), N_FLOWS, "random 5-tuples");
    }
}

// QP scaling gives one host pair many flows that differ only in consecutive
// source ports: the structured input a weak hash would map onto few paths.
TEST(EcmpHashTest, SequentialSourcePortsSpreadEvenly)
{
    auto flows = SequentialPortFlows(N_FLOWS);
    for (uint64_t seed : {0ULL, 1ULL, 0x5eed0000000000a1ULL})
    {
        ExpectBalanced(BinLoads(flows, seed, N_BINS, false), N_FLOWS, "sequential sports");
    }
}

// Switches with different seeds must choose independently (a shared seed
// polarises a multi-tier fabric): for the same flows, two seeds agree on the
// path about 1/16 of the time. Over 4000 flows the agreement has standard
// deviation sqrt(1/16 * 15/16 / 4000) = 0.0038, so [0.03, 0.10] is far outside
// chance for independent choices and far from any correlated hash.
TEST(EcmpHashTest, DifferentSeedsChooseIndependently)
{
    constexpr uint32_t n = 4000;
    auto flows = RandomFlows(n, 77);
    auto seq = SequentialPortFlows(n);
    const std::array<std::pair<uint64_t, uint64_t>, 4> seedPairs{{
        {1, 2},
        {0, 0x8000000000000000ULL},
        {0x1234, 0x1235},
        {42, 42 ^ (1ULL << 32)},
    }};
    for (const auto& [a, b] : seedPairs)
    {
        for (const auto* set : {&flows, &seq})
        {
            uint32_t agree = 0;
            for (const auto& f : *set)
            {
                agree += RoceEcmpHash::Select(HashFlow(a, f, false), N_BINS) ==
                                 RoceEcmpHash::Select(HashFlow(b, f, false), N_BINS)
                             ? 1
                             : 0;
            }
            double frac = static_cast<double>(agree) / n;
            EXPECT_GE(frac, 0.03) << "seeds " << a << " / " << b;
            EXPECT_LE(frac, 0.10) << "seeds " << a << " / " << b;
        }
    }
    // Known answer for seed 9, computed outside the model with Python's
    // arbitrary-precision integers from the formula in roce-ecmp-hash.h:
    //   m = (1 << 64) - 1
    //   fmix(x): x ^= x >> 33; x = x * 0xff51afd7ed558ccd & m; x ^= x >> 33;
    //            x = x * 0xc4ceb9fe1a85ec53 & m; x ^= x >> 33
    //   h = fmix(9 ^ 0x9e3779b97f4a7c15); h = fmix(h ^ (src << 32 | dst))
    //   h = fmix(h ^ (sport << 32 | dport << 8 | proto))
    //   h = fmix(h ^ (qp | 1 << 40))
    EXPECT_EQ(HashFlow(9, Flow{0x0A000001, 0x0A000002, 49152, ROCE_PORT, UDP, 0x123456}, true),
              0xa213fefb9bfd2053ULL);
    // A seed differing in one bit changes the hash of every flow.
    for (const auto& f : flows)
    {
        ASSERT_NE(HashFlow(9, f, false), HashFlow(9 ^ (1ULL << 40), f, false));
    }
}

// E-ECMP: flows that differ only in the BTH destination QP spread over the
// paths when the QP is hashed, and all share one path when it is not.
TEST(EcmpHashTest, DestQpSpreadsOnlyWithEEcmp)
{
    std::vector<Flow> flows;
    for (uint32_t i = 0; i < N_FLOWS; ++i)
    {
        flows.push_back(Flow{0x0A000101u, 0x0A000202u, 50000, ROCE_PORT, UDP, 0x000010u + i});
    }
    ExpectBalanced(BinLoads(flows, 3, N_BINS, true), N_FLOWS, "E-ECMP over dest QPs");

    auto plain = BinLoads(flows, 3, N_BINS, false);
    EXPECT_EQ(*std::max_element(plain.begin(), plain.end()), N_FLOWS);
    uint64_t first = HashFlow(3, flows.front(), false);
    for (const auto& f : flows)
    {
        ASSERT_EQ(HashFlow(3, f, false), first) << "dest QP leaked into the plain hash";
    }
    // Hashing the QP changes the hash even for QP 0.
    Flow f0 = flows.front();
    f0.destQp = 0;
    EXPECT_NE(HashFlow(3, f0, true), HashFlow(3, f0, false));
}

// Each field must reach the hash: change one field, keep the rest.
TEST(EcmpHashTest, EveryFieldMatters)
{
    const Flow base{0x0A000001, 0x0A000002, 49152, ROCE_PORT, UDP, 0x42};
    const uint64_t h = HashFlow(5, base, true);
    Flow f = base;
    f.srcIp ^= 1;
    EXPECT_NE(HashFlow(5, f, true), h);
    f = base;
    f.dstIp ^= 1;
    EXPECT_NE(HashFlow(5, f, true), h);
    f = base;
    f.sport ^= 1;
    EXPECT_NE(HashFlow(5, f, true), h);
    f = base;
    f.dport ^= 1;
    EXPECT_NE(HashFlow(5, f, true), h);
    f = base;
    f.proto = 6;
    EXPECT_NE(HashFlow(5, f, true), h);
    f = base;
    f.destQp ^= 1;
    EXPECT_NE(HashFlow(5, f, true), h);
    EXPECT_NE(HashFlow(6, base, true), h);
    // Swapping source and destination is a different flow (the reverse path).
    f = base;
    std::swap(f.srcIp, f.dstIp);
    EXPECT_NE(HashFlow(5, f, true), h);
}

// Avalanche: flipping any single input bit (seed, addresses, ports, protocol,
// dest QP) flips each output bit with probability close to 1/2. Over 256
// random base inputs the mean number of flipped bits per input bit has
// standard deviation 4 / sqrt(256) = 0.25 bit, so 45-55 % (28.8-35.2 of 64)
// is more than 12 standard deviations wide. Per (input bit, output bit) pair
// the flip rate has standard deviation 0.031; [0.30, 0.70] is 6.4 of them.
TEST(EcmpHashTest, SingleBitFlipsAvalanche)
{
    constexpr uint32_t samples = 256;
    // Input bits: 64 seed, 32 src, 32 dst, 16 sport, 16 dport, 8 proto, 24 QP.
    constexpr uint32_t inputBits = 64 + 32 + 32 + 16 + 16 + 8 + 24;
    std::mt19937_64 rng(0xA5A5);
    std::vector<std::array<uint32_t, 64>> flips(inputBits);
    std::vector<uint64_t> flippedBits(inputBits, 0);
    for (uint32_t s = 0; s < samples; ++s)
    {
        const uint64_t seed = rng();
        const uint64_t r1 = rng();
        const uint64_t r2 = rng();
        const Flow base{static_cast<uint32_t>(r1),
                        static_cast<uint32_t>(r1 >> 32),
                        static_cast<uint16_t>(r2),
                        static_cast<uint16_t>(r2 >> 16),
                        static_cast<uint8_t>(r2 >> 32),
                        static_cast<uint32_t>(r2 >> 40) & 0xFFFFFF};
        const uint64_t h = HashFlow(seed, base, true);
        for (uint32_t bit = 0; bit < inputBits; ++bit)
        {
            uint64_t sd = seed;
            Flow f = base;
            uint32_t b = bit;
            if (b < 64)
            {
                sd ^= 1ULL << b;
            }
            else if ((b -= 64) < 32)
            {
                f.srcIp ^= 1u << b;
            }
            else if ((b -= 32) < 32)
            {
                f.dstIp ^= 1u << b;
            }
            else if ((b -= 32) < 16)
            {
                f.sport ^= static_cast<uint16_t>(1u << b);
            }
            else if ((b -= 16) < 16)
            {
                f.dport ^= static_cast<uint16_t>(1u << b);
            }
            else if ((b -= 16) < 8)
            {
                f.proto ^= static_cast<uint8_t>(1u << b);
            }
            else
            {
                b -= 8;
                f.destQp ^= 1u << b;
            }
            const uint64_t diff = h ^ HashFlow(sd, f, true);
            flippedBits[bit] += std::bitset<64>(diff).count();
            for (uint32_t o = 0; o < 64; ++o)
            {
                flips[bit][o] += (diff >> o) & 1;
            }
        }
    }
    for (uint32_t bit = 0; bit < inputBits; ++bit)
    {
        double meanFraction = static_cast<double>(flippedBits[bit]) / samples / 64.0;
        EXPECT_GT(meanFraction, 0.45) << "input bit " << bit;
        EXPECT_LT(meanFraction, 0.55) << "input bit " << bit;
        for (uint32_t o = 0; o < 64; ++o)
        {
            double p = static_cast<double>(flips[bit][o]) / samples;
            EXPECT_GT(p, 0.30) << "input bit " << bit << " output bit " << o;
            EXPECT_LT(p, 0.70) << "input bit " << bit << " output bit " << o;
        }
    }
}

TEST(EcmpHashTest, SelectStaysInRange)
{
    const std::array<uint32_t, 9> ns{1, 2, 3, 7, 16, 64, 1000, 65537, 0xFFFFFFFFu};
    const std::array<uint64_t, 6> edges{0,
                                        1,
                                        0x00000000FFFFFFFFULL,
                                        0xFFFFFFFF00000000ULL,
                                        0x8000000000000000ULL,
                                        0xFFFFFFFFFFFFFFFFULL};
    for (uint32_t n : ns)
    {
        for (uint64_t h : edges)
        {
            EXPECT_LT(RoceEcmpHash::Select(h, n), n) << "h " << h << " n " << n;
        }
        EXPECT_EQ(RoceEcmpHash::Select(0, n), 0u);
        EXPECT_EQ(RoceEcmpHash::Select(0xFFFFFFFFFFFFFFFFULL, n), n - 1);
        EXPECT_EQ(RoceEcmpHash::Select(0x8000000000000000ULL, n), n / 2);
    }
    std::mt19937_64 rng(11);
    for (uint32_t i = 0; i < 20000; ++i)
    {
        uint64_t h = rng();
        uint32_t n = 1 + static_cast<uint32_t>(rng() % 512);
        ASSERT_LT(RoceEcmpHash::Select(h, n), n);
        ASSERT_EQ(RoceEcmpHash::Select(h, 1), 0u);
    }
}

// Select() over uniform hashes is uniform, also for a path count that is not
// a power of two. Chi-square critical values at 99.9 %: 6 dof 22.46,
// 15 dof 37.70.
TEST(EcmpHashTest, SelectIsUniform)
{
    std::mt19937_64 rng(12);
    for (auto [n, critical] : {std::pair<uint32_t, double>{7, 22.46}, {16, 37.70}})
    {
        constexpr uint32_t draws = 70000;
        std::vector<uint32_t> load(n, 0);
        for (uint32_t i = 0; i < draws; ++i)
        {
            ++load[RoceEcmpHash::Select(rng(), n)];
        }
        EXPECT_LT(ChiSquare(load, static_cast<double>(draws) / n), critical) << "n " << n;
    }
    // Uniform on its own: consecutive hash values split evenly, i.e. no path
    // is favoured by the mapping itself (multiply-high gives every path
    // either floor or ceil of 2^32 / n upper-word values).
    constexpr uint32_t n = 3;
    std::array<uint64_t, n> firstOf{};
    for (uint32_t k = 1; k < n; ++k)
    {
        // Smallest upper word mapping to path k: ceil(k * 2^32 / n).
        firstOf[k] = ((static_cast<uint64_t>(k) << 32) + n - 1) / n;
        EXPECT_EQ(RoceEcmpHash::Select(firstOf[k] << 32, n), k);
        EXPECT_EQ(RoceEcmpHash::Select((firstOf[k] - 1) << 32, n), k - 1);
    }
}
