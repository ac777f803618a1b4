/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNvlinkDomain: completion times of transfers inside one server's scale-up
 * domain equal the fluid max-min formulas worked out by hand in each case
 * (one transfer, fan-out, incast, disjoint pairs, water-filling, a start
 * half-way, all-to-all, ring step, a long run of rate changes), the byte
 * counters add up, and the Config path and traces work.
 *
 * Every expected time is Latency + (bits through the bottleneck) / rate in
 * exact arithmetic; the model delivers at the first simulator tick (1 ns) at
 * or after that, so each check accepts [expected, expected + 1 ns).
 */

#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-nvlink-domain.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t GPUS = 8;             //!< an H100 server
constexpr double NVLINK4_BPS = 3600e9;   //!< 450 GB/s per GPU per direction
constexpr double LATENCY_NS = 1000;      //!< the Latency the tests set (1 us)
constexpr uint64_t BYTES_PER_US = 450e3; //!< bytes at NVLINK4_BPS in 1 us

/** \return nanoseconds to move `bytes` at `bps` */
double
SerializeNs(double bytes, double bps)
{
    return bytes * 8 / bps * 1e9;
}

/** A domain with the given rate and latency; not on a node. */
Ptr<RoceNvlinkDomain>
MakeDomain(double bps = NVLINK4_BPS, double latencyNs = LATENCY_NS, uint32_t gpus = GPUS)
{
    Ptr<RoceNvlinkDomain> d = CreateObject<RoceNvlinkDomain>();
    d->SetAttribute("NGpus", UintegerValue(gpus));
    d->SetAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(bps))));
    d->SetAttribute("Latency", TimeValue(NanoSeconds(latencyNs)));
    return d;
}

/** Records when each transfer's done callback ran. */
struct Completions
{
    std::map<uint64_t, Time> at;          //!< id -> delivery time
    std::map<uint64_t, uint32_t> context; //!< id -> simulator context of the delivery

    /** \return a done callback that records into `at` and `context` */
    Callback<void, uint64_t> Cb()
    {
        return Callback<void, uint64_t>([this](uint64_t id) {
            at[id] = Simulator::Now();
            context[id] = Simulator::GetContext();
        });
    }
};

/** Base: the check of a delivery time against a formula. */
class NvlinkTestCase : public TestCase
{
  public:
    /** \param name the case's name */
    explicit NvlinkTestCase(const std::string& name)
        : TestCase(name)
    {
    }

  protected:
    /**
     * \brief Check that a transfer was delivered at `expectedNs`, rounded up
     * to the next 1 ns tick (the model's resolution): within [expected,
     * expected + 1 ns). 1e-6 ns absorbs the double rounding of the formula.
     * \param c the completions \param id the transfer \param expectedNs the formula
     * \param what the transfer, for the message
     */
    void CheckAt(const Completions& c, uint64_t id, double expectedNs, const std::string& what)
    {
        auto it = c.at.find(id);
        if (it == c.at.end())
        {
            NS_TEST_EXPECT_MSG_EQ(true, false, what << ": never delivered");
            return;
        }
        const double ns = static_cast<double>(it->second.GetNanoSeconds());
        NS_TEST_EXPECT_MSG_GT_OR_EQ(ns + 1e-6,
                                    expectedNs,
                                    what << ": delivered at " << ns << " ns, before the formula "
                                         << expectedNs << " ns");
        NS_TEST_EXPECT_MSG_LT(ns,
                              expectedNs + 1,
                              what << ": delivered at " << ns << " ns, formula " << expectedNs
                                   << " ns (+1 ns rounding)");
    }
};

/**
 * One transfer alone: delivered at Latency + bytes * 8 / rate, for two sizes
 * (a 4 KiB chunk, 1 MB) and two rates (NVLink4 3600 Gb/s, NVLink3 2400 Gb/s);
 * its bytes are counted once at each end. A 0-byte transfer takes Latency.
 */
class NvlinkSingleTestCase : public NvlinkTestCase
{
  public:
    NvlinkSingleTestCase()
        : NvlinkTestCase("One transfer: Latency + 8*bytes over rate")
    {
    }

  private:
    void DoRun() override
    {
        for (double bps : {NVLINK4_BPS, 2400e9})
        {
            for (uint64_t bytes : {uint64_t{4096}, uint64_t{1000000}})
            {
                Ptr<RoceNvlinkDomain> d = MakeDomain(bps);
                Completions c;
                const uint64_t id = d->Send(3, 5, bytes, c.Cb());
                NS_TEST_EXPECT_MSG_EQ(d->GetNActive(), 1, "one transfer under way");
                Simulator::Run();
                CheckAt(c,
                        id,
                        LATENCY_NS + SerializeNs(bytes, bps),
                        std::to_string(bytes) + " B at " + std::to_string(bps / 1e9) + " Gb/s");
                NS_TEST_EXPECT_MSG_EQ(d->GetTxBytes(3), bytes, "source counted the bytes");
                NS_TEST_EXPECT_MSG_EQ(d->GetRxBytes(5), bytes, "destination counted the bytes");
                NS_TEST_EXPECT_MSG_EQ(d->GetTxBytes(5) + d->GetRxBytes(3), 0, "nothing else");
                NS_TEST_EXPECT_MSG_EQ(d->GetNActive(), 0, "nothing left under way");
                Simulator::Destroy();
            }
        }
        // Zero bytes: Latency alone, and it occupies no port: a 1 MB transfer
        // on the same pair at the same time is not slowed.
        Ptr<RoceNvlinkDomain> d = MakeDomain();
        Completions c;
        const uint64_t big = d->Send(0, 1, 1000000, c.Cb());
        const uint64_t empty = d->Send(0, 1, 0, c.Cb());
        Simulator::Run();
        CheckAt(c, empty, LATENCY_NS, "0 B");
        CheckAt(c, big, LATENCY_NS + SerializeNs(1e6, NVLINK4_BPS), "1 MB beside 0 B");
        Simulator::Destroy();
    }
};

/**
 * Fan-out: 0->1 and 0->2, B each, started together, share GPU 0's egress
 * port: each runs at rate/2, so both finish at Latency + 2 B * 8 / rate.
 */
class NvlinkFanOutTestCase : public NvlinkTestCase
{
  public:
    NvlinkFanOutTestCase()
        : NvlinkTestCase("Two transfers from one GPU: Latency + 2*8*B over rate each")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t b = 1000000;
        Ptr<RoceNvlinkDomain> d = MakeDomain();
        Completions c;
        const uint64_t a = d->Send(0, 1, b, c.Cb());
        const uint64_t e = d->Send(0, 2, b, c.Cb());
        Simulator::Run();
        const double expected = LATENCY_NS + SerializeNs(2.0 * b, NVLINK4_BPS);
        CheckAt(c, a, expected, "0->1");
        CheckAt(c, e, expected, "0->2");
        NS_TEST_EXPECT_MSG_EQ(d->GetTxBytes(0), 2 * b, "GPU 0 sent both");
        Simulator::Destroy();
    }
};

/**
 * Incast: GPUs 1..7 send B each to GPU 0, whose ingress port is the only
 * bottleneck (rate/7 each): all finish at Latency + 7 B * 8 / rate. Disjoint
 * pairs 0->1 and 2->3 share no port (the switch is non-blocking), so each
 * runs at the full rate: Latency + B * 8 / rate.
 */
class NvlinkIncastTestCase : public NvlinkTestCase
{
  public:
    NvlinkIncastTestCase()
        : NvlinkTestCase("Incast 7 to 1 at rate over 7; disjoint pairs at full rate")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t b = 1000000;
        {
            Ptr<RoceNvlinkDomain> d = MakeDomain();
            Completions c;
            std::vector<uint64_t> ids;
            for (uint32_t g = 1; g < GPUS; ++g)
            {
                ids.push_back(d->Send(g, 0, b, c.Cb()));
            }
            Simulator::Run();
            for (uint32_t i = 0; i < ids.size(); ++i)
            {
                CheckAt(c,
                        ids[i],
                        LATENCY_NS + SerializeNs(7.0 * b, NVLINK4_BPS),
                        "incast from GPU " + std::to_string(i + 1));
            }
            NS_TEST_EXPECT_MSG_EQ(d->GetRxBytes(0), 7 * b, "GPU 0 received all");
            Simulator::Destroy();
        }
        {
            Ptr<RoceNvlinkDomain> d = MakeDomain();
            Completions c;
            const uint64_t a = d->Send(0, 1, b, c.Cb());
            const uint64_t e = d->Send(2, 3, b, c.Cb());
            Simulator::Run();
            CheckAt(c, a, LATENCY_NS + SerializeNs(b, NVLINK4_BPS), "0->1 beside 2->3");
            CheckAt(c, e, LATENCY_NS + SerializeNs(b, NVLINK4_BPS), "2->3 beside 0->1");
            Simulator::Destroy();
        }
    }
};

/**
 * Max-min fairness (water-filling), C = rate, S = 300 ns of data at C,
 * X = 1000 ns at C.
 *
 * Case 1: a = 0->1 (X), b = 0->2 (S), c = 3->2 (S). Egress 0 {a, b} and
 * ingress 2 {b, c} both offer C/2, so a, b, c all run at C/2 (an egress-only
 * model would run c at C). b and c end at 2S; a has sent S and then runs at C:
 * it ends at 2S + (X - S) = X + S.
 *
 * Case 2: add d = 4->2 (S). Ingress 2 offers C/3 to {b, c, d}: the tightest
 * bottleneck, so b, c, d run at C/3; egress 0 then has C - C/3 left for a,
 * which runs at 2C/3 (not C/2). b, c, d end at 3S, when a has sent 2S; a
 * then runs at C and ends at 3S + (X - 2S) = X + S.
 */
class NvlinkMaxMinTestCase : public NvlinkTestCase
{
  public:
    NvlinkMaxMinTestCase()
        : NvlinkTestCase("Water-filling over egress and ingress ports")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t s = 300 * BYTES_PER_US / 1000;  // 300 ns at C
        const uint64_t x = 1000 * BYTES_PER_US / 1000; // 1000 ns at C
        const double sNs = 300;
        const double xNs = 1000;
        {
            Ptr<RoceNvlinkDomain> d = MakeDomain();
            Completions c;
            const uint64_t a = d->Send(0, 1, x, c.Cb());
            const uint64_t b = d->Send(0, 2, s, c.Cb());
            const uint64_t e = d->Send(3, 2, s, c.Cb());
            Simulator::Run();
            CheckAt(c, b, LATENCY_NS + 2 * sNs, "case 1: 0->2 at C/2");
            CheckAt(c, e, LATENCY_NS + 2 * sNs, "case 1: 3->2 at C/2 (ingress 2)");
            CheckAt(c, a, LATENCY_NS + xNs + sNs, "case 1: 0->1 at C/2 then C");
            Simulator::Destroy();
        }
        {
            Ptr<RoceNvlinkDomain> d = MakeDomain();
            Completions c;
            const uint64_t a = d->Send(0, 1, x, c.Cb());
            std::vector<uint64_t> small;
            small.push_back(d->Send(0, 2, s, c.Cb()));
            small.push_back(d->Send(3, 2, s, c.Cb()));
            small.push_back(d->Send(4, 2, s, c.Cb()));
            Simulator::Run();
            for (auto id : small)
            {
                CheckAt(c, id, LATENCY_NS + 3 * sNs, "case 2: small into GPU 2 at C/3");
            }
            CheckAt(c, a, LATENCY_NS + xNs + sNs, "case 2: 0->1 at 2C/3 then C");
            Simulator::Destroy();
        }
    }
};

/**
 * A start half-way: a = 0->1 of B (T = B * 8 / C = 1 us alone) starts at 0,
 * b = 0->2 of B at T/2. From T/2 both run at C/2: a's remaining B/2 takes T,
 * so a's last byte leaves at 3T/2; b has sent B/2 by then and ends at full
 * rate T/2 later, at 2T. A transfer started at T/2 on a disjoint pair
 * (2->3) changes nothing for a.
 */
class NvlinkMidwayTestCase : public NvlinkTestCase
{
  public:
    NvlinkMidwayTestCase()
        : NvlinkTestCase("A start half-way re-shares the rates at that instant")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t b = BYTES_PER_US; // T = 1 us
        const double tNs = 1000;
        {
            Ptr<RoceNvlinkDomain> d = MakeDomain();
            Completions c;
            const uint64_t a = d->Send(0, 1, b, c.Cb());
            Simulator::Schedule(NanoSeconds(tNs / 2), [d, &c]() { d->Send(0, 2, b, c.Cb()); });
            Simulator::Run();
            CheckAt(c, a, LATENCY_NS + 1.5 * tNs, "0->1 shared from T/2");
            CheckAt(c, a + 1, LATENCY_NS + 2 * tNs, "0->2 started at T/2");
            Simulator::Destroy();
        }
        {
            Ptr<RoceNvlinkDomain> d = MakeDomain();
            Completions c;
            const uint64_t a = d->Send(0, 1, b, c.Cb());
            Simulator::Schedule(NanoSeconds(tNs / 2), [d, &c]() { d->Send(2, 3, b, c.Cb()); });
            Simulator::Run();
            CheckAt(c, a, LATENCY_NS + tNs, "0->1 beside a disjoint start");
            CheckAt(c, a + 1, LATENCY_NS + 1.5 * tNs, "2->3 started at T/2");
            Simulator::Destroy();
        }
    }
};

/**
 * All-to-all of B per ordered pair on 8 GPUs: 56 transfers; every egress and
 * every ingress port carries 7 of them at C/7, so all end at
 * Latency + 7 B * 8 / C, and each GPU sends and receives exactly 7 B.
 */
class NvlinkAllToAllTestCase : public NvlinkTestCase
{
  public:
    NvlinkAllToAllTestCase()
        : NvlinkTestCase("8-GPU all-to-all: Latency + 7*8*B over rate, 7*B per GPU")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t b = 1000000;
        Ptr<RoceNvlinkDomain> d = MakeDomain();
        Completions c;
        for (uint32_t s = 0; s < GPUS; ++s)
        {
            for (uint32_t r = 0; r < GPUS; ++r)
            {
                if (s != r)
                {
                    d->Send(s, r, b, c.Cb());
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(d->GetNActive(), GPUS * (GPUS - 1), "56 under way");
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(c.at.size(), GPUS * (GPUS - 1), "56 delivered");
        for (uint64_t id = 0; id < GPUS * (GPUS - 1); ++id)
        {
            CheckAt(c,
                    id,
                    LATENCY_NS + SerializeNs(7.0 * b, NVLINK4_BPS),
                    "all-to-all transfer " + std::to_string(id));
        }
        for (uint32_t g = 0; g < GPUS; ++g)
        {
            NS_TEST_EXPECT_MSG_EQ(d->GetTxBytes(g), 7 * b, "GPU " << g << " sent 7 B");
            NS_TEST_EXPECT_MSG_EQ(d->GetRxBytes(g), 7 * b, "GPU " << g << " received 7 B");
        }
        NS_TEST_EXPECT_MSG_EQ(d->GetNActive(), 0, "all delivered");
        Simulator::Destroy();
    }
};

/**
 * A ring step: GPU i sends B to i+1 mod 8, all at once. Each GPU uses its
 * egress once and its ingress once, so every transfer runs at the full rate:
 * Latency + B * 8 / C.
 */
class NvlinkRingTestCase : public NvlinkTestCase
{
  public:
    NvlinkRingTestCase()
        : NvlinkTestCase("Ring step i to i+1: Latency + 8*B over rate each")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t b = 4000000;
        Ptr<RoceNvlinkDomain> d = MakeDomain();
        Completions c;
        for (uint32_t g = 0; g < GPUS; ++g)
        {
            d->Send(g, (g + 1) % GPUS, b, c.Cb());
        }
        Simulator::Run();
        for (uint64_t id = 0; id < GPUS; ++id)
        {
            CheckAt(c,
                    id,
                    LATENCY_NS + SerializeNs(b, NVLINK4_BPS),
                    "ring " + std::to_string(id) + "->" + std::to_string((id + 1) % GPUS));
        }
        Simulator::Destroy();
    }
};

/**
 * No drift over many rate changes. A big transfer 0->1 of X bytes runs while
 * N = 1000 small ones 0->2 of S = 1000 B start every P = 7 ns. Each small one
 * runs at C/2 beside the big one for D = 2 S * 8 / C = 4.44 ns (not a whole
 * tick, so every end is rounded) and is delivered at k P + D + Latency.
 * GPU 0's egress is busy throughout, so the big one's last byte leaves when
 * the port has sent X + N S bytes: Latency + (X + N S) * 8 / C, whatever the
 * rounding of the 2000 intermediate events.
 */
class NvlinkNoDriftTestCase : public NvlinkTestCase
{
  public:
    NvlinkNoDriftTestCase()
        : NvlinkTestCase("2000 rate changes: no drift from rounding to ticks")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t x = 4000000;
        const uint64_t s = 1000;
        const uint32_t n = 1000;
        const double pNs = 7;
        Ptr<RoceNvlinkDomain> d = MakeDomain();
        Completions c;
        const uint64_t big = d->Send(0, 1, x, c.Cb());
        for (uint32_t k = 0; k < n; ++k)
        {
            Simulator::Schedule(NanoSeconds(k * pNs), [d, &c]() { d->Send(0, 2, s, c.Cb()); });
        }
        Simulator::Run();
        const double dNs = SerializeNs(2.0 * s, NVLINK4_BPS);
        for (uint32_t k = 0; k < n; ++k)
        {
            CheckAt(c, big + 1 + k, LATENCY_NS + k * pNs + dNs, "small " + std::to_string(k));
        }
        CheckAt(c,
                big,
                LATENCY_NS + SerializeNs(static_cast<double>(x + n * s), NVLINK4_BPS),
                "big transfer");
        NS_TEST_EXPECT_MSG_EQ(d->GetTxBytes(0), x + n * s, "GPU 0 sent exactly X + N S");
        NS_TEST_EXPECT_MSG_EQ(d->GetRxBytes(2), n * s, "GPU 2 received exactly N S");
        Simulator::Destroy();
    }
};

/** One Tx or Rx trace call: context, src, dst, bytes, id, time. */
using TraceCall = std::tuple<std::string, uint32_t, uint32_t, uint64_t, uint64_t, Time>;

/**
 * Config paths and traces. Two servers (NGpus 8 and 4) get a domain each with
 * RoceNvlinkDomain::Install; Config::Set on /NodeList/x/$ns3::RoceNvlinkDomain/
 * DataRate and Latency reaches both, and transfers finish by the new values
 * (900 Gb/s, 2 us). A DataRate set half-way through a transfer (T at 900 Gb/s)
 * to 450 Gb/s leaves B/2 at half the rate: the last byte leaves at
 * T/2 + T = 3T/2. The Tx trace fires at the start and Rx at the delivery, each
 * with (src, dst, bytes, id) of the transfer and the server's Config
 * context; done callbacks run in the server's simulator context.
 */
class NvlinkConfigTestCase : public NvlinkTestCase
{
  public:
    NvlinkConfigTestCase()
        : NvlinkTestCase("Config path sets DataRate and Latency; Tx and Rx traces")
    {
    }

  private:
    std::vector<TraceCall> m_tx; //!< Tx trace calls
    std::vector<TraceCall> m_rx; //!< Rx trace calls

    /** \brief Tx sink */
    void Tx(std::string ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t id)
    {
        m_tx.emplace_back(ctx, src, dst, bytes, id, Simulator::Now());
    }

    /** \brief Rx sink */
    void Rx(std::string ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t id)
    {
        m_rx.emplace_back(ctx, src, dst, bytes, id, Simulator::Now());
    }

    void DoRun() override
    {
        NodeContainer servers(2);
        Ptr<RoceNvlinkDomain> d0 = RoceNvlinkDomain::Install(servers.Get(0), 8);
        Ptr<RoceNvlinkDomain> d1 = RoceNvlinkDomain::Install(servers.Get(1), 4);
        NS_TEST_EXPECT_MSG_EQ(servers.Get(1)->GetObject<RoceNvlinkDomain>(), d1, "aggregated");
        NS_TEST_EXPECT_MSG_EQ(d1->GetNGpus(), 4, "Install set NGpus");

        const std::string path = "/NodeList/*/$ns3::RoceNvlinkDomain/";
        Config::Set(path + "DataRate", DataRateValue(DataRate("900Gbps")));
        Config::Set(path + "Latency", TimeValue(MicroSeconds(2)));
        NS_TEST_EXPECT_MSG_EQ(d0->GetDataRate(), DataRate("900Gbps"), "server 0 rate");
        NS_TEST_EXPECT_MSG_EQ(d1->GetDataRate(), DataRate("900Gbps"), "server 1 rate");
        Config::Connect(path + "Tx", MakeCallback(&NvlinkConfigTestCase::Tx, this));
        Config::Connect(path + "Rx", MakeCallback(&NvlinkConfigTestCase::Rx, this));

        const double bps = 900e9;
        const double latNs = 2000;
        const uint64_t b = 1125000; // T = 10 us at 900 Gb/s
        const double tNs = SerializeNs(b, bps);
        Completions c0;
        Completions c1;
        const uint64_t id0 = d0->Send(6, 7, b, c0.Cb());
        const uint64_t id1 = d1->Send(3, 0, b, c1.Cb());
        // Server 1 only: half the rate at T/2.
        Simulator::Schedule(NanoSeconds(tNs / 2), []() {
            Config::Set("/NodeList/1/$ns3::RoceNvlinkDomain/DataRate",
                        DataRateValue(DataRate("450Gbps")));
        });
        Simulator::Run();
        Simulator::Destroy();
        CheckAt(c0, id0, latNs + tNs, "server 0 at 900 Gb/s, 2 us");
        CheckAt(c1, id1, latNs + 1.5 * tNs, "server 1 halved at T/2");
        // Send was called from outside any node; the deliveries are events of
        // the server that holds the domain.
        NS_TEST_EXPECT_MSG_EQ(c0.context[id0], servers.Get(0)->GetId(), "server 0's context");
        NS_TEST_EXPECT_MSG_EQ(c1.context[id1], servers.Get(1)->GetId(), "server 1's context");

        NS_TEST_EXPECT_MSG_EQ(m_tx.size(), 2, "one Tx per transfer");
        NS_TEST_EXPECT_MSG_EQ(m_rx.size(), 2, "one Rx per transfer");
        const TraceCall tx0{"/NodeList/0/$ns3::RoceNvlinkDomain/Tx", 6, 7, b, id0, Time(0)};
        const TraceCall tx1{"/NodeList/1/$ns3::RoceNvlinkDomain/Tx", 3, 0, b, id1, Time(0)};
        NS_TEST_EXPECT_MSG_EQ((m_tx.size() > 0 && m_tx[0] == tx0),
                              true,
                              "Tx of server 0: ctx, src, dst, bytes, id");
        NS_TEST_EXPECT_MSG_EQ((m_tx.size() > 1 && m_tx[1] == tx1),
                              true,
                              "Tx of server 1: ctx, src, dst, bytes, id");
        const TraceCall rx0{"/NodeList/0/$ns3::RoceNvlinkDomain/Rx", 6, 7, b, id0, c0.at[id0]};
        const TraceCall rx1{"/NodeList/1/$ns3::RoceNvlinkDomain/Rx", 3, 0, b, id1, c1.at[id1]};
        NS_TEST_EXPECT_MSG_EQ((m_rx.size() > 0 && m_rx[0] == rx0),
                              true,
                              "Rx of server 0 at its delivery");
        NS_TEST_EXPECT_MSG_EQ((m_rx.size() > 1 && m_rx[1] == rx1),
                              true,
                              "Rx of server 1 at its delivery");
    }
};

} // namespace

/** The scale-up (NVLink) domain of a server. */
class RoceNvlinkTestSuite : public TestSuite
{
  public:
    RoceNvlinkTestSuite()
        : TestSuite("rocev2-nvlink", Type::UNIT)
    {
        AddTestCase(new NvlinkSingleTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NvlinkFanOutTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NvlinkIncastTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NvlinkMaxMinTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NvlinkMidwayTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NvlinkAllToAllTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NvlinkRingTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NvlinkNoDriftTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NvlinkConfigTestCase, RoceTestDuration::QUICK);
    }
};

/** The suite's instance. */
static RoceNvlinkTestSuite g_nvlinkTestSuite;
