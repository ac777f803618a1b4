/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceGpuPlacement: contiguous, fragmented and random jobs get the GPUs the
 * design says (lists written out by formula here, never by the helper), in
 * whole servers when the job is a multiple of a server, never a taken GPU,
 * and the random choice is uniform and reproducible per seed, run and stream.
 */

#include "ns3/rng-seed-manager.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-gpu-placement.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/** Counts of a fabric: zones, racks per zone, servers per rack, GPUs per server. */
struct Fabric
{
    uint32_t zones;
    uint32_t racks;
    uint32_t servers; //!< S
    uint32_t gpus;    //!< G

    uint32_t RackGpus() const
    {
        return servers * gpus;
    }

    uint32_t Total() const
    {
        return zones * racks * RackGpus();
    }

    std::string Name() const
    {
        std::ostringstream os;
        os << "Z=" << zones << " R=" << racks << " S=" << servers << " G=" << gpus;
        return os.str();
    }
};

/** A RoceAiZone with the counts of f filled in (no nodes: placement needs none). */
RoceAiZone
MakeZone(const Fabric& f)
{
    RoceAiZone z;
    z.zones = f.zones;
    z.racksPerZone = f.racks;
    z.serversPerRack = f.servers;
    z.gpusPerServer = f.gpus;
    z.nics.resize(f.Total()); // GetNGpus() counts the NIC slots
    return z;
}

/** \return first, first+1, ..., first+n-1 */
std::vector<uint32_t>
Range(uint32_t first, uint32_t n)
{
    std::vector<uint32_t> v(n);
    std::iota(v.begin(), v.end(), first);
    return v;
}

/** \return a followed by b */
std::vector<uint32_t>
Cat(std::vector<uint32_t> a, const std::vector<uint32_t>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

/** \return v as "a b c", so a failed comparison prints both lists */
std::string
Str(const std::vector<uint32_t>& v)
{
    std::ostringstream os;
    for (uint32_t x : v)
    {
        os << x << ' ';
    }
    return os.str();
}

/** \return whether v is strictly ascending (so also free of duplicates) */
bool
StrictlyAscending(const std::vector<uint32_t>& v)
{
    return std::adjacent_find(v.begin(), v.end(), [](uint32_t a, uint32_t b) { return a >= b; }) ==
           v.end();
}

/** \return whether every server v touches is in v with all its g GPUs */
bool
WholeServers(const std::vector<uint32_t>& v, uint32_t g)
{
    std::map<uint32_t, uint32_t> perServer;
    for (uint32_t x : v)
    {
        ++perServer[x / g];
    }
    return std::all_of(perServer.begin(), perServer.end(), [g](const auto& kv) {
        return kv.second == g;
    });
}

/** Fabrics of several shapes, single GPU servers and one-server racks included. */
const std::vector<Fabric> FABRICS = {
    {1, 4, 2, 8},  // the 64-GPU 2-tier zone of the brief
    {1, 3, 4, 2},  // many small servers
    {2, 2, 3, 4},  // two zones, racks of 3 servers
    {1, 8, 1, 8},  // one server per rack
    {3, 2, 4, 1},  // one GPU per server
    {1, 16, 2, 8}, // 256 GPUs
};

/**
 * Contiguous: an empty fabric gives 0..n-1 in servers and in GPUs; later
 * jobs take the lowest free run, skipping partly used servers for whole-
 * server jobs and filling holes left by released jobs first.
 */
class ContiguousTestCase : public TestCase
{
  public:
    ContiguousTestCase()
        : TestCase("Contiguous: 0..n-1 on an empty fabric, first fit after earlier jobs")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint32_t> got; // a placement's answer, asserted once
        for (const Fabric& f : FABRICS)
        {
            const uint32_t g = f.gpus;
            const uint32_t n = f.Total();
            for (uint32_t job : {g, 3 * g, g + 1, 2 * f.RackGpus() - 1, n})
            {
                RoceGpuPlacement p(MakeZone(f));
                got = p.Contiguous(job);
                NS_TEST_ASSERT_MSG_EQ(Str(got),
                                      Str(Range(0, job)),
                                      f.Name() << " empty fabric, n=" << job);
                NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), n - job, f.Name());
            }

            // A sequence of jobs; the fabrics have at least 8 servers.
            RoceGpuPlacement p(MakeZone(f));
            got = p.Contiguous(2 * g);
            NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(0, 2 * g)), f.Name());
            auto b = p.Contiguous(3 * g);
            NS_TEST_ASSERT_MSG_EQ((b == Range(2 * g, 3 * g)), true, f.Name() << " second job");
            if (g > 1)
            {
                // One GPU: a GPU job takes the first free GPU, in server 5 ...
                got = p.Contiguous(1);
                NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(5 * g, 1)), f.Name());
                // ... so a one-server job skips server 5, now partly used ...
                got = p.Contiguous(g);
                NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(6 * g, g)), f.Name());
                // ... and G-1 GPUs fill server 5.
                got = p.Contiguous(g - 1);
                NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(5 * g + 1, g - 1)), f.Name());
            }
            else
            {
                got = p.Contiguous(2);
                NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(5, 2)), f.Name());
            }
            NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), n - 7 * g, f.Name());
            // Release the 3-server job: the hole (servers 2..4) is the first fit
            // for 2 servers, then for 1.
            p.Release(b);
            got = p.Contiguous(2 * g);
            NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(2 * g, 2 * g)), f.Name() << " hole");
            got = p.Contiguous(g);
            NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(4 * g, g)), f.Name() << " hole");
            // The fabric is full up to server 7: the next server job is server 7.
            got = p.Contiguous(g);
            NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(7 * g, g)), f.Name());
        }
    }
};

/**
 * Fragmented: at most perRack GPUs per rack, racks in order, so exactly
 * ceil(n / perRack) racks; the list is written out by that formula on an
 * empty fabric, and by hand on a busy one.
 */
class FragmentedTestCase : public TestCase
{
  public:
    FragmentedTestCase()
        : TestCase(
              "Fragmented: ceil(n over perRack) racks, at most perRack each, skipping full racks")
    {
    }

  private:
    /** \return the list on an empty fabric: rack r gives its first min(per, n - r*per) GPUs */
    static std::vector<uint32_t> Expected(const Fabric& f, uint32_t n, uint32_t per)
    {
        std::vector<uint32_t> v;
        for (uint32_t r = 0; r * per < n; ++r)
        {
            v = Cat(v, Range(r * f.RackGpus(), std::min(per, n - r * per)));
        }
        return v;
    }

    void Check(const Fabric& f, uint32_t n, uint32_t perRack, uint32_t per)
    {
        RoceGpuPlacement p(MakeZone(f));
        auto v = p.Fragmented(n, perRack);
        std::ostringstream ctx;
        ctx << f.Name() << " n=" << n << " perRack=" << perRack;
        NS_TEST_ASSERT_MSG_EQ((v == Expected(f, n, per)), true, ctx.str());
        std::map<uint32_t, uint32_t> perRackCount;
        for (uint32_t gpu : v)
        {
            ++perRackCount[gpu / f.RackGpus()];
        }
        NS_TEST_ASSERT_MSG_EQ(perRackCount.size(), (n + per - 1) / per, ctx.str() << ": racks");
        for (const auto& [rack, count] : perRackCount)
        {
            NS_TEST_ASSERT_MSG_EQ((count <= per), true, ctx.str() << " rack " << rack);
            NS_TEST_ASSERT_MSG_EQ((count < f.RackGpus()), true, ctx.str() << " rack " << rack);
        }
        NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), f.Total() - n, ctx.str());
    }

    void DoRun() override
    {
        std::vector<uint32_t> got; // a placement's answer, asserted once
        for (const Fabric& f : FABRICS)
        {
            const uint32_t g = f.gpus;
            const uint32_t racks = f.zones * f.racks;
            // Whole servers, perRack a multiple of G below a rack.
            for (uint32_t per = g; per < f.RackGpus(); per += g)
            {
                for (uint32_t n : {g, per, per + g, racks * per - g, racks * per})
                {
                    if (n > 0 && n <= racks * per)
                    {
                        Check(f, n, per, per);
                    }
                }
                // perRack not a multiple of G is rounded down to whole servers.
                if (g > 1)
                {
                    Check(f, 2 * g, per + g / 2, per);
                }
            }
            // Single GPUs: n not a multiple of G, perRack in GPUs.
            if (g > 1 && f.RackGpus() > 3)
            {
                Check(f, 7, 3, 3); // 3 + 3 + 1 over 3 racks
                Check(f, 1, 3, 3);
                if (2 * g + 1 <= racks * 3)
                {
                    Check(f, 2 * g + 1, 3, 3);
                }
            }
        }

        // A busy fabric: 4 racks of 2 servers of 8 GPUs.
        Fabric f{1, 4, 2, 8};
        RoceGpuPlacement p(MakeZone(f));
        p.MarkTaken(Range(0, 12)); // rack 0: server 0 and half of server 1
        p.MarkTaken(Range(16, 8)); // rack 1: server 2
        // Whole servers, one per rack: rack 0 has no wholly free server, rack 1
        // gives server 3, rack 2 server 4.
        got = p.Fragmented(16, 8);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(24, 16)), "busy, servers");
        // Two GPUs per rack: rack 0 gives 12,13; rack 1 is full; rack 2 gives 40,41.
        got = p.Fragmented(4, 2);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(std::vector<uint32_t>{12, 13, 40, 41}), "busy, GPUs");
        // Now servers 0, 2, 3, 4 are taken and 1, 5 partly: one server per
        // rack finds a wholly free server only in rack 3 (server 6).
        got = p.Fragmented(8, 8);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(48, 8)), "busy, rack 3");
        // Two GPUs per rack: rack 0 gives 14, 15; rack 1 is full; rack 2 gives 42.
        got = p.Fragmented(3, 2);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(std::vector<uint32_t>{14, 15, 42}), "busy, GPUs 2");
        NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), 64 - 12 - 8 - 16 - 4 - 8 - 3, "busy, free");

        // A rack with some free, but fewer than a rack's share, is skipped
        // (not used partly): in GPUs, rack 0 has 2 free of the 3 asked ...
        RoceGpuPlacement q(MakeZone(f));
        q.MarkTaken(Range(0, 14));
        got = q.Fragmented(5, 3);
        NS_TEST_ASSERT_MSG_EQ(Str(got),
                              Str(std::vector<uint32_t>{16, 17, 18, 32, 33}),
                              "rack 0 has 2 of 3 free");
        // ... and in servers (4 servers of 2 GPUs per rack), rack 0 has one
        // wholly free server of the 2 asked.
        RoceGpuPlacement r(MakeZone({1, 4, 4, 2}));
        r.MarkTaken(Range(0, 6));
        got = r.Fragmented(8, 4);
        NS_TEST_ASSERT_MSG_EQ(Str(got),
                              Str(Cat(Range(8, 4), Range(16, 4))),
                              "rack 0 has 1 of 2 servers free");
    }
};

/**
 * Random: the list is reproducible for one seed, run and stream and changes
 * with the stream or the run; it has n distinct GPUs, ascending, in whole
 * servers when n is a multiple of G, all free before and taken after.
 */
class RandomTestCase : public TestCase
{
  public:
    RandomTestCase()
        : TestCase("Random: reproducible per seed, run and stream, distinct, free, whole servers")
    {
    }

  private:
    /** 256 GPUs (32 servers of 8); servers 0 and 1 taken by an earlier job. */
    static const Fabric F;

    static RoceGpuPlacement Busy()
    {
        RoceGpuPlacement p(MakeZone(F));
        p.MarkTaken(Range(0, 16));
        return p;
    }

    void CheckList(const RoceGpuPlacement& p, const std::vector<uint32_t>& v, uint32_t n)
    {
        NS_TEST_ASSERT_MSG_EQ(v.size(), n, "size");
        NS_TEST_ASSERT_MSG_EQ(StrictlyAscending(v), true, "distinct and ascending");
        NS_TEST_ASSERT_MSG_EQ((v.front() >= 16), true, "the earlier job's GPUs are not free");
        NS_TEST_ASSERT_MSG_EQ((v.back() < F.Total()), true, "in range");
        for (uint32_t gpu : v)
        {
            NS_TEST_ASSERT_MSG_EQ(p.IsFree(gpu), false, "gpu " << gpu << " taken after");
        }
        NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), F.Total() - 16 - n, "free count");
    }

    void DoRun() override
    {
        std::vector<uint32_t> got; // a placement's answer, asserted once
        // 8 of the 30 free servers. Two different draws give the same list
        // with probability 1 / C(30, 8) = 1.7e-7, so "differs" below fails
        // only if the stream or run is ignored.
        const uint32_t n = 64;
        auto p1 = Busy();
        auto a = p1.Random(n, 5);
        CheckList(p1, a, n);
        NS_TEST_ASSERT_MSG_EQ(WholeServers(a, F.gpus), true, "whole servers");

        auto p2 = Busy();
        got = p2.Random(n, 5);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(a), "same seed, run and stream");
        auto p3 = Busy();
        got = p3.Random(n, 6);
        NS_TEST_ASSERT_MSG_NE(Str(got), Str(a), "another stream");
        const uint64_t run = RngSeedManager::GetRun();
        RngSeedManager::SetRun(run + 1);
        auto p4 = Busy();
        auto d = p4.Random(n, 5);
        RngSeedManager::SetRun(run);
        NS_TEST_ASSERT_MSG_EQ((d == a), false, "another run");

        // A second random job on the same fabric avoids the first.
        auto b = p1.Random(n, 7);
        std::vector<uint32_t> both;
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
        NS_TEST_ASSERT_MSG_EQ(both.size(), 0, "two jobs share no GPU");
        NS_TEST_ASSERT_MSG_EQ(WholeServers(b, F.gpus), true, "whole servers");

        // Single GPUs (n not a multiple of G): free GPUs, any server.
        auto p5 = Busy();
        auto c = p5.Random(13, 3);
        CheckList(p5, c, 13);

        // Taking every free server leaves nothing to chance: the list is
        // exactly the free servers.
        auto p6 = Busy();
        got = p6.Random(F.Total() - 16, 9);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(16, F.Total() - 16)), "all free servers");
        NS_TEST_ASSERT_MSG_EQ(p6.GetNFree(), 0, "fabric full");
        // Partly used servers are not candidates for a whole-server job: with
        // one GPU taken in each server but 16..31, the only choice is 16..31.
        auto p7 = Busy();
        for (uint32_t s = 4; s < F.Total() / F.gpus; ++s)
        {
            p7.MarkTaken({s * F.gpus + s % F.gpus});
        }
        got = p7.Random(16, 11);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(16, 16)), "wholly free servers");
    }
};

const Fabric RandomTestCase::F{1, 16, 2, 8};

/**
 * Random draws are uniform over the free servers (and GPUs): in 200 draws of
 * one server out of 16, each is chosen at least once and the counts pass a
 * chi-square test.
 */
class RandomHistogramTestCase : public TestCase
{
  public:
    RandomHistogramTestCase()
        : TestCase("Random: every free server or GPU is chosen, counts uniform (chi-square)")
    {
    }

  private:
    /**
     * Draw one unit (a job of `job` GPUs) 200 times from a fabric of 16
     * candidate units (plus the GPUs `taken` beforehand), with the random
     * stream `stream`, releasing it each time.
     */
    void Histogram(const Fabric& f,
                   uint32_t job,
                   const std::vector<uint32_t>& taken,
                   int64_t stream)
    {
        RoceGpuPlacement p(MakeZone(f));
        p.MarkTaken(taken);
        const uint32_t units = f.Total() / job;
        const uint32_t candidates = units - static_cast<uint32_t>(taken.size()) / job;
        const uint32_t draws = 200;
        Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
        rng->SetStream(stream);
        std::vector<uint32_t> count(units, 0);
        for (uint32_t i = 0; i < draws; ++i)
        {
            auto v = p.Random(job, rng);
            NS_TEST_ASSERT_MSG_EQ(v.size(), job, "size");
            NS_TEST_ASSERT_MSG_EQ(v.front() % job, 0, "aligned to a server");
            ++count[v.front() / job];
            p.Release(v);
        }
        // P(a given unit is never chosen) = (1 - 1/16)^200 = 2.5e-6, so by the
        // union bound a uniform draw fails "each >= 1" with probability <= 16 x
        // 2.5e-6 = 4e-5.  Chi-square with 15 degrees of freedom (expected
        // 12.5 per unit, well above 5): 37.70 is the 0.1% critical value.
        const double expected = static_cast<double>(draws) / candidates;
        double chi2 = 0;
        for (uint32_t u = 0; u < units; ++u)
        {
            const bool isTaken = std::find(taken.begin(), taken.end(), u * job) != taken.end();
            if (isTaken)
            {
                NS_TEST_ASSERT_MSG_EQ(count[u], 0, f.Name() << " taken unit " << u << " chosen");
                continue;
            }
            NS_TEST_ASSERT_MSG_GT(count[u], 0, f.Name() << " unit " << u << " never chosen");
            chi2 += (count[u] - expected) * (count[u] - expected) / expected;
        }
        NS_TEST_ASSERT_MSG_LT(chi2, 37.70, f.Name() << " job " << job << ": chi-square");
    }

    void DoRun() override
    {
        // 16 servers of 8 GPUs, whole-server jobs.
        Histogram({1, 8, 2, 8}, 8, {}, 1);
        // 16 single GPUs (job of 1 GPU, G = 4).
        Histogram({1, 2, 2, 4}, 1, {}, 2);
        // 17 servers of which server 5 is taken: 16 candidates, 5 never chosen.
        Histogram({1, 17, 1, 2}, 2, {10, 11}, 3);
    }
};

/** Release gives GPUs back: they are free, counted, and placed again. */
class ReleaseTestCase : public TestCase
{
  public:
    ReleaseTestCase()
        : TestCase("Release and MarkTaken: free counts, IsFree, released GPUs are placed again")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint32_t> got; // a placement's answer, asserted once
        Fabric f{1, 4, 2, 8};
        RoceGpuPlacement p(MakeZone(f));
        NS_TEST_ASSERT_MSG_EQ(p.GetNGpus(), 64, "GPUs");
        NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), 64, "all free");
        auto a = p.Contiguous(24);
        auto b = p.Contiguous(16);
        NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), 64 - 24 - 16, "after two jobs");
        for (uint32_t g = 0; g < 64; ++g)
        {
            NS_TEST_ASSERT_MSG_EQ(p.IsFree(g), (g >= 40), "gpu " << g);
        }
        p.Release(a);
        NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), 64 - 16, "after release");
        for (uint32_t g = 0; g < 64; ++g)
        {
            NS_TEST_ASSERT_MSG_EQ(p.IsFree(g), (g < 24 || g >= 40), "gpu " << g);
        }
        // The released servers are the first fit again.
        got = p.Contiguous(24);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(a), "placed again");
        // Releasing server 1 makes it the first fit for one server; releasing
        // GPUs 3 and 4 leaves server 0 partly used, so a server job goes past
        // the second job (servers 3, 4) to server 5, and a 2-GPU job fits.
        p.Release(Range(8, 8));
        got = p.Contiguous(8);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(8, 8)), "server 1 again");
        p.Release(Range(3, 2));
        got = p.Contiguous(8);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(40, 8)), "server 0 is partly used");
        got = p.Contiguous(2);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(3, 2)), "GPUs 3, 4 again");
        // MarkTaken of scattered GPUs: whole-server jobs avoid their servers.
        p.Release(b);
        p.MarkTaken({25, 39});
        got = p.Contiguous(8);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(48, 8)), "servers 3, 4 partly used");
        got = p.Contiguous(7);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(26, 7)), "GPUs after 25");
        // Taken: 0..23, 25, 39, 40..47, 48..55, 26..32.
        NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), 64 - 24 - 2 - 8 - 8 - 7, "free count");
    }
};

/**
 * Fabrics of several shapes fill up exactly: one-server jobs get servers
 * 0, 1, 2, ... until no GPU is free, and the GPU count is Z x R x S x G.
 */
class FabricSizesTestCase : public TestCase
{
  public:
    FabricSizesTestCase()
        : TestCase("Fabric sizes: several Z, R, S, G fill up server by server")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint32_t> got; // a placement's answer, asserted once
        for (const Fabric& f : FABRICS)
        {
            RoceGpuPlacement p(MakeZone(f));
            NS_TEST_ASSERT_MSG_EQ(p.GetNGpus(), f.Total(), f.Name());
            std::vector<std::vector<uint32_t>> jobs;
            for (uint32_t s = 0; s < f.Total() / f.gpus; ++s)
            {
                jobs.push_back(p.Random(f.gpus, int64_t(s)));
            }
            NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), 0, f.Name() << ": full");
            std::set<uint32_t> seen;
            for (const auto& j : jobs)
            {
                NS_TEST_ASSERT_MSG_EQ(WholeServers(j, f.gpus), true, f.Name());
                seen.insert(j.begin(), j.end());
            }
            NS_TEST_ASSERT_MSG_EQ(seen.size(), f.Total(), f.Name() << ": every GPU once");
            for (const auto& j : jobs)
            {
                p.Release(j);
            }
            NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), f.Total(), f.Name() << ": all released");
            for (uint32_t s = 0; s < f.Total() / f.gpus; ++s)
            {
                got = p.Contiguous(f.gpus);
                NS_TEST_ASSERT_MSG_EQ(Str(got),
                                      Str(Range(s * f.gpus, f.gpus)),
                                      f.Name() << " server " << s);
            }
            NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), 0, f.Name() << ": full again");
        }
    }
};

/**
 * On a fabric built by RoceAiZoneHelper, a fragmented job of one server per
 * rack takes the first server of each of its 4 racks.
 */
class BuiltZoneTestCase : public TestCase
{
  public:
    BuiltZoneTestCase()
        : TestCase("A zone built by RoceAiZoneHelper: counts and racks of the placement")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint32_t> got; // a placement's answer, asserted once
        RoceAiZoneHelper h;
        h.SetGpus(64);
        h.SetServersPerRack(2);
        h.SetGpusPerServer(8);
        h.SetUplinks(4);
        h.SetCtsws(4);
        RoceAiZone zone = h.Build();
        RoceGpuPlacement p(zone);
        NS_TEST_ASSERT_MSG_EQ(p.GetNGpus(), 64, "4 racks x 2 servers x 8 GPUs");
        NS_TEST_ASSERT_MSG_EQ(p.GetNFree(), 64, "all free");
        auto v = p.Fragmented(32, 8);
        NS_TEST_ASSERT_MSG_EQ(
            (v == Cat(Cat(Range(0, 8), Range(16, 8)), Cat(Range(32, 8), Range(48, 8)))),
            true,
            "first server of each rack");
        std::set<uint32_t> racks;
        for (uint32_t gpu : v)
        {
            racks.insert(gpu / 16); // rack = g / (S * G)
        }
        NS_TEST_ASSERT_MSG_EQ(racks.size(), 4, "one server in each of the 4 racks");
        // Every rack is left partly used: server 1 is the first free one.
        got = p.Contiguous(8);
        NS_TEST_ASSERT_MSG_EQ(Str(got), Str(Range(8, 8)), "server 1");
        Simulator::Destroy();
    }
};

} // namespace

/** \ingroup rocev2 \brief RoceGpuPlacement: job placement on an AI Zone. */
class RoceGpuPlacementTestSuite : public TestSuite
{
  public:
    RoceGpuPlacementTestSuite()
        : TestSuite("rocev2-gpu-placement", Type::UNIT)
    {
        AddTestCase(new ContiguousTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FragmentedTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RandomTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RandomHistogramTestCase, RoceTestDuration::QUICK);
        AddTestCase(new ReleaseTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FabricSizesTestCase, RoceTestDuration::QUICK);
        AddTestCase(new BuiltZoneTestCase, RoceTestDuration::QUICK);
    }
};

static RoceGpuPlacementTestSuite g_gpuPlacementTestSuite; //!< the suite
