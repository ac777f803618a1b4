/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Collectives on rails and NVLink against closed-form bandwidth bounds, and collectives under loss
 * and link flaps.
 *
 * Bounds: ring, tree, halving-doubling and hierarchical AllReduce on 2 (and 4) servers of 8 GPUs,
 * one rail NIC per GPU, on a 2-tier and a 3-tier AI Zone (rocev2-collective-bounds-test-helpers.h).
 * Each run moves exactly the bytes its algorithm dictates through every NIC and NVLink port, is no
 * faster than its busiest resource allows (lower bound) and no slower than that resource kept busy
 * plus the algorithm's start-up and drain (upper bound).
 *
 * Loss: a ring AllReduce and an AllToAll on the 2-tier fabric, under a bit error rate of 1e-5 on
 * every fabric link, and under a flapping fabric link, with go-back-N and with selective repeat:
 * each completes, every byte arrives exactly once (counted at the receiving queue pairs and at the
 * ranks), and the time stays below the loss-free time plus a recovery per expected loss (BER) or
 * plus the flap (flap).
 */

#include "rocev2-collective-bounds-test-helpers.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/roce-ai-zone.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-collective.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-nvlink-domain.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::rocev2bounds;

namespace
{

/// Chunk size and channels of every run (RoceCollective's defaults, set explicitly).
constexpr uint64_t CHUNK = 512 * 1024;
constexpr uint32_t CHANNELS = 8;

/**
 * Relative slack of the lower bound. Serialization is exact in picoseconds (a frame of
 * w wire bytes takes 20 w ps at 400 Gb/s) and carried across frames, so a device's
 * cumulative transmit time lags the exact one by less than one 1 ns tick; the NVLink
 * fluid model runs in long double and rounds its events up to the next tick. A run
 * can thus beat the exact bound by a few ns over its few store-and-forward stages:
 * below 1e-5 of any time here (> 300 us).
 */
constexpr double EPSILON = 1e-5;

/// \return microseconds, 1 decimal, as text
std::string
Us(double seconds)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(1) << seconds * 1e6 << " us";
    return os.str();
}

/// \return every GPU of a fabric, in rank order
std::vector<uint32_t>
AllGpus(const RoceAiZone& z)
{
    std::vector<uint32_t> v(z.GetNGpus());
    std::iota(v.begin(), v.end(), 0);
    return v;
}

/// \return payload bytes the queue pairs of GPU g's NIC sent / delivered
uint64_t
NicPayload(const RoceAiZone& z, uint32_t g, bool delivered)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < z.GetNic(g)->GetNQps(); ++i)
    {
        const RoceQueuePair::Stats& s = z.GetNic(g)->GetQpByIndex(i)->GetStats();
        b += delivered ? s.bytesDelivered : s.payloadBytesSent;
    }
    return b;
}

} // namespace

/**
 * One AllReduce on a RailZone against its bounds (rocev2-collective-bounds-test-helpers.h): it
 * moves exactly the algorithm's bytes through the busiest NIC and NVLink port, and
 * lower bound x (1 - 1e-5) <= T <= upper bound.
 *
 * Measured (S = 64 MiB, hd 16 MiB; 8 channels, 512 KiB chunks), lower bound (its
 * resource) and upper bound (bottleneck busy + start-up and drain), in us:
 *
 *     n  tiers  algo     T       lower               upper
 *     2  2      ring    338.5    331.9 NIC link      443.6 = 327.5 + 116.1
 *     2  2      tree    340.5    262.0 NVLink port   449.4 = 261.0 + 188.4
 *     2  2      hd      360.3    353.3 NIC link      455.1 = 349.3 + 105.8
 *     2  2      hier    375.1    262.0 NVLink port   449.4 = 261.0 + 188.4
 *     2  3      ring   2625.8   2580.5 CTSW-ATSW    2902.0 = 2619.8 + 282.2
 *     2  3      tree   1556.7   1382.5 CTSW-ATSW    1751.7 = 1397.2 + 354.5
 *     2  3      hd     2786.2   2751.6 CTSW-ATSW    3066.3 = 2794.5 + 271.9
 *     2  3      hier   1555.4   1382.5 CTSW-ATSW    1751.7 = 1397.2 + 354.5
 *     4  2      ring    349.4    342.6 NIC link      454.5
 *     4  2      tree    530.2    353.3 NIC link      667.1
 *     4  2      hd      535.0    524.4 NIC link      673.7
 *     4  2      hier    502.5    267.7 NIC link      538.1
 *     4  3      ring   2720.0   2666.0 CTSW-ATSW    2989.3
 *     4  3      tree   3038.1   2751.6 CTSW-ATSW    4043.4
 *     4  3      hd     4185.1   4120.6 CTSW-ATSW    4673.5
 *     4  3      hier   2267.2   2067.1 CTSW-ATSW    2870.2
 *
 * The ring and hd run at the wire-limited rate of their bottleneck link (within 2.1 %
 * of the lower bound; 400 x 4096/4178 Gb/s of payload); on 2 servers the tree and
 * hier, which move 1.75 S through every NVLink port and S/8 through every NIC, are
 * NVLink bound and spend the pipeline's fill on top. On 3 tiers the 8 rails of a
 * server share its zone's CTSW-ATSW link, which carries 2(p-1)/p S (ring), S (tree,
 * hier; 2 S and 1.5 S on 4 servers) or 8 S (hd; 12 S). The hierarchical cost with
 * nothing overlapped, NVLink reduce-scatter + rails + NVLink all-gather, is 130.5 +
 * 171.1 + 130.5 = 432 us on 2 servers (2 tiers): the phases of different chunks
 * overlap (375 us).
 */
class RailBoundsTestCase : public TestCase
{
  public:
    /**
     * \param tiers 2 or 3 \param servers n \param algo the AllReduce algorithm
     * \param size S
     */
    RailBoundsTestCase(uint32_t tiers,
                       uint32_t servers,
                       RoceCollective::Algorithm algo,
                       uint64_t size)
        : TestCase(RoceCollective::GetAlgorithmName(algo) + " AllReduce of " +
                   std::to_string(size >> 20) + " MiB on " + std::to_string(servers) +
                   " x 8 GPUs with rails, " + std::to_string(tiers) +
                   " tiers, within its bandwidth bounds"),
          m_tiers(tiers),
          m_servers(servers),
          m_algo(algo),
          m_size(size)
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = m_servers;
        const std::string name = RoceCollective::GetAlgorithmName(m_algo) + " on " +
                                 std::to_string(n) + " servers, " + std::to_string(m_tiers) +
                                 " tiers";
        RoceAiZone z = RailZone(m_tiers, n);
        if (m_tiers == 3)
        {
            // The premise of the bound: one CTSW-ATSW link per zone, one ATSW.
            NS_TEST_ASSERT_MSG_EQ(z.uplinksPerCtsw, 1, "one CTSW-ATSW link per zone");
            NS_TEST_ASSERT_MSG_EQ(z.atswCount, 1, "one ATSW");
        }
        Ptr<RoceCommunicator> comm = RoceCollectiveHelper().CreateCommunicator(z, AllGpus(z));
        Ptr<RoceCollective> coll = CreateObject<RoceCollective>();
        coll->SetAttribute("Channels", UintegerValue(CHANNELS));
        coll->SetAttribute("ChunkSize", UintegerValue(CHUNK));
        coll->SetCommunicator(comm);
        bool done = false;
        coll->Start(RoceCollective::ALL_REDUCE, m_algo, m_size, Callback<void>([&done]() {
                        done = true;
                    }));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(done, true, name << " finished");
        const double t = (coll->GetFinishTime() - coll->GetStartTime()).GetSeconds();

        // The bytes the bound is computed from, per NIC and per NVLink port.
        const Loads l = AllReduceLoads(m_algo, double(m_size), n, GPUS, CHANNELS);
        uint64_t nicMax = 0;
        uint64_t nvMax = 0;
        uint64_t delivered = 0;
        for (uint32_t g = 0; g < z.GetNGpus(); ++g)
        {
            nicMax = std::max(nicMax, NicPayload(z, g, false));
            delivered += NicPayload(z, g, true);
            nvMax = std::max(nvMax, z.GetNvlink(g)->GetTxBytes(z.GetLocalGpu(g)));
        }
        NS_TEST_EXPECT_MSG_EQ(nicMax, uint64_t(l.nic), name << ": bytes the busiest NIC sends");
        NS_TEST_EXPECT_MSG_EQ(nvMax,
                              uint64_t(l.nvlink),
                              name << ": bytes the busiest NVLink port sends");
        NS_TEST_EXPECT_MSG_EQ(delivered, comm->GetNicBytes(), name << ": NIC bytes all arrived");

        const Bound b = Bounds(m_tiers, l, CHANNELS, CHUNK);
        NS_TEST_EXPECT_MSG_GT_OR_EQ(t,
                                    b.lower * (1 - EPSILON),
                                    name << ": " << Us(t) << " is below the " << b.bottleneck
                                         << "'s lower bound " << Us(b.lower));
        NS_TEST_EXPECT_MSG_LT_OR_EQ(t,
                                    b.upper,
                                    name << ": " << Us(t) << " exceeds the upper bound "
                                         << Us(b.upper) << " (bottleneck busy " << Us(b.bandwidth)
                                         << " + start-up and drain " << Us(b.fill) << ")");
        Simulator::Destroy();
    }

    uint32_t m_tiers;
    uint32_t m_servers;
    RoceCollective::Algorithm m_algo;
    uint64_t m_size;
};

namespace
{

/// The faults of a loss run.
enum Fault
{
    NO_FAULT,
    BER,  //!< bit errors on every fabric link
    FLAP, //!< one fabric link flaps
};

/// Bit error rate of the BER runs.
constexpr double LOSS_BER = 1e-5;
/// Retransmission timeout of the loss runs (as the fault soak).
const Time RTO = MicroSeconds(100);
/**
 * RetryCount of the loss runs. A QP fails after RetryCount timeouts in a row without
 * progress. Under BER 1e-5 a retransmitted packet is lost with q = 0.49, so k timeouts
 * in a row have probability q^k: 7 (the IB maximum, the fault soak's) is reached about
 * once in 300 recoveries, and a run has hundreds; 32 makes it 1e-10. The flap's longest
 * outage, 50 us, is half an RTO.
 */
constexpr uint32_t RETRIES = 32;
/// ReceiveWindow of the selective-repeat runs (packets).
constexpr uint32_t WINDOW = 1024;
/// The flap: from FLAP_START, down half of every FLAP_PERIOD, up for good at FLAP_STOP.
const Time FLAP_START = MicroSeconds(20);
const Time FLAP_PERIOD = MicroSeconds(100);
const Time FLAP_STOP = MicroSeconds(320);

/// Deliveries of one receiving queue pair.
struct QpLog
{
    bool any{false};        //!< delivered something
    uint32_t next{0};       //!< the PSN it must deliver next
    uint64_t bytes{0};      //!< payload delivered
    uint64_t outOfOrder{0}; //!< deliveries of another PSN than the next (a duplicate or a gap)
};

/**
 * Deliver trace sink: the queue pair handed the application one packet.
 * \param log its log \param psn the packet's PSN \param bytes its payload
 */
void
OnDeliver(QpLog* log, uint32_t psn, uint32_t bytes)
{
    if (log->any && psn != log->next)
    {
        ++log->outOfOrder;
    }
    log->any = true;
    log->next = (psn + 1) & 0xFFFFFF;
    log->bytes += bytes;
}

/// Drop trace sink: counts frames dropped for one reason.
void
OnDrop(std::pair<const char*, uint64_t>* count, Ptr<const Packet>, const char* reason)
{
    count->second += std::strcmp(reason, count->first) == 0 ? 1 : 0;
}

/// What a loss run measured.
struct LossRun
{
    bool done{false};               //!< the done callback ran
    uint32_t doneCalls{0};          //!< times it ran
    std::vector<uint32_t> rankDone; //!< per rank: times its rank-done callback ran
    double seconds{0};              //!< duration
    std::vector<uint64_t> received; //!< per rank: bytes that arrived
    uint64_t qpDelivered{0};        //!< payload the receiving QPs delivered
    uint64_t outOfOrder{0};         //!< deliveries out of PSN order (duplicates)
    uint64_t posted{0};             //!< messages posted on QPs
    uint64_t completed{0};          //!< messages completed (acknowledged)
    uint64_t failed{0};             //!< messages failed
    uint64_t messagesReceived{0};   //!< messages received in full
    uint64_t retransmitted{0};      //!< packets sent again
    uint64_t recoveries{0};         //!< timeouts + NAKs received
    uint64_t drops{0};              //!< frames dropped by the fault
    bool sameQps{true};             //!< no QP was made after the traces were connected
};

/**
 * \brief Run one operation on a RailZone of 2 servers (2 tiers) with the loss runs'
 * queue-pair settings, and a fault.
 * \param op ALL_REDUCE (ring) or ALL_TO_ALL (direct) \param size S
 * \param fault the fault \param window ReceiveWindow (0: go-back-N)
 * \param limit simulated time after which the run stops, done or not
 * \return what it measured (the simulator is destroyed)
 */
LossRun
RunLossy(RoceCollective::Op op, uint64_t size, Fault fault, uint32_t window, Time limit)
{
    RoceAiZone z = RailZone(2, 2);
    RoceCollectiveHelper h;
    h.SetQpAttribute("RetransmitTimeout", TimeValue(RTO));
    h.SetQpAttribute("RetryCount", UintegerValue(RETRIES));
    h.SetQpAttribute("ReceiveWindow", UintegerValue(window));
    Ptr<RoceCommunicator> comm = h.CreateCommunicator(z, AllGpus(z));
    const uint32_t p = comm->GetNRanks();
    Ptr<RoceCollective> coll = CreateObject<RoceCollective>();
    coll->SetAttribute("Channels", UintegerValue(CHANNELS));
    coll->SetAttribute("ChunkSize", UintegerValue(CHUNK));
    coll->SetCommunicator(comm);
    RoceFaultHelper faults;
    // The rail switch has one uplink: there is no other path to move a flow to.
    faults.SetReroute(false);
    std::pair<const char*, uint64_t> drops{RocePfcNetDevice::DROP_RX_ERROR, 0};
    if (fault == BER)
    {
        for (uint32_t l = 0; l < z.rtsw.GetN(); ++l)
        {
            for (const auto& link : RoceFaultHelper::LinksBetween(z.rtsw.Get(l), z.ctsw.Get(0)))
            {
                faults.LinkLoss(Seconds(0), link, LOSS_BER, true, Time::Max());
            }
        }
    }
    else if (fault == FLAP)
    {
        // Rail 0 of server 0: channel 0's ring edges and GPU 0's AllToAll flows.
        drops.first = RocePfcNetDevice::DROP_LINK_DOWN;
        for (const auto& link : RoceFaultHelper::LinksBetween(z.rtsw.Get(0), z.ctsw.Get(0)))
        {
            faults.LinkFlap(FLAP_START, link, FLAP_PERIOD, 0.5, FLAP_STOP);
        }
    }
    faults.AssignStreams(1);
    Config::ConnectWithoutContextFailSafe("/NodeList/*/DeviceList/*/$ns3::RocePfcNetDevice/Drop",
                                          MakeBoundCallback(&OnDrop, &drops));
    LossRun r;
    r.rankDone.assign(p, 0);
    coll->SetRankDoneCallback(
        Callback<void, uint32_t>([&r](uint32_t rank) { ++r.rankDone.at(rank); }));
    coll->Start(op, RoceCollective::DefaultAlgorithm(op), size, Callback<void>([&r]() {
                    r.done = true;
                    ++r.doneCalls;
                }));
    // Every connection is made when the operation starts (step 0 of every ring edge,
    // every AllToAll chunk): watch each QP's in-order deliveries from here on.
    std::vector<std::unique_ptr<QpLog>> logs;
    uint32_t qps = 0;
    for (uint32_t g = 0; g < z.GetNGpus(); ++g)
    {
        for (uint32_t i = 0; i < z.GetNic(g)->GetNQps(); ++i)
        {
            logs.push_back(std::make_unique<QpLog>());
            z.GetNic(g)->GetQpByIndex(i)->TraceConnectWithoutContext(
                "Deliver",
                MakeBoundCallback(&OnDeliver, logs.back().get()));
            ++qps;
        }
    }
    Simulator::Stop(limit);
    Simulator::Run();
    // Not done: it took at least until the run was stopped.
    r.seconds =
        ((r.done ? coll->GetFinishTime() : Simulator::Now()) - coll->GetStartTime()).GetSeconds();
    for (uint32_t rank = 0; rank < p; ++rank)
    {
        r.received.push_back(comm->GetBytesReceived(rank));
    }
    uint32_t after = 0;
    for (uint32_t g = 0; g < z.GetNGpus(); ++g)
    {
        for (uint32_t i = 0; i < z.GetNic(g)->GetNQps(); ++i)
        {
            const RoceQueuePair::Stats& s = z.GetNic(g)->GetQpByIndex(i)->GetStats();
            r.posted += s.messagesPosted;
            r.completed += s.messagesCompleted;
            r.failed += s.messagesFailed;
            r.messagesReceived += s.messagesReceived;
            r.retransmitted += s.retransmittedPackets;
            r.recoveries += s.timeouts + s.naksReceived;
            ++after;
        }
    }
    r.sameQps = after == qps;
    for (const auto& log : logs)
    {
        r.qpDelivered += log->bytes;
        r.outOfOrder += log->outOfOrder;
    }
    r.drops = drops.second;
    Simulator::Destroy();
    return r;
}

} // namespace

/**
 * A collective under loss or a link flap completes with every byte delivered once,
 * in bounded time.
 *
 * The fabric is RailZone(2, 2): 2 servers of 8 GPUs, every flow on its own rail, each
 * NIC-to-NIC path over 2 fabric links (rail switch - CTSW - rail switch). The
 * operation is a ring AllReduce (8 channels) or an AllToAll of S (1 MiB under BER,
 * 8 MiB under the flap), with go-back-N or with selective repeat (ReceiveWindow 1024).
 * "Every byte once":
 *
 * - each rank receives exactly 2(p-1)/p S (AllReduce) or (p-1)/p S (AllToAll), and
 *   its rank-done callback and the operation's done callback run once;
 * - the receiving queue pairs deliver exactly the bytes that must cross NICs,
 *   2 x 2(p-1)/p S (the 2 server-crossing edges of each channel's ring) or (p-m) S
 *   (every rank to the 8 ranks of the other server), each packet in PSN order and
 *   none twice (a Deliver trace per queue pair);
 * - every posted message is received once and acknowledged, none failed.
 *
 * Bounded time, from the loss-free run's time T0 of the same operation. One
 * recovery costs at most c = RTO + 2 alpha + one frame (+ selective repeat's resend of
 * what the receiver holds, at most one connection's bytes): the receiver NAKs a gap
 * at its next packet, or the sender's timer fires RTO after its last progress (the
 * ACK of the packet before the lost one, alpha after the loss), and the packet goes
 * again.
 *
 * - BER: a data frame of at most L = 4170 bytes (as the error model sees it, without
 *   FCS) is lost on a link with probability p = 1 - (1 - 1e-5)^(8 L) = 0.28
 *   (RateErrorModel, per bit), on the 2-link path with q = 1 - (1 - p)^2 = 0.49.
 *   Each of the N data packets the operation must deliver (its messages'
 *   ceil(bytes / 4096) packets, from S) takes a geometric number of attempts, so the
 *   failed attempts number E[F] = N q / (1 - q) on average (BER x bits would count
 *   only the first attempts' losses: at q = 0.49 the retransmissions' own losses
 *   double them), sigma_F = sqrt(N q) / (1 - q); the ACKs (62-byte frames, q = 0.01)
 *   add theirs. Summing every failure as if all were on the critical path, 5 sigma
 *   above the mean:
 *       T <= T0 + (E[F] + 5 sigma_F) c.
 *   With go-back-N every failure costs one recovery (a NAK or a timeout), so there
 *   are at least E[F] - 5 sigma_F of them: the loss was as strong as the bound assumes.
 * - Flap: rail 0 of server 0's uplink is down half of every 100 us from 20 us to
 *   320 us. The run is no slower than one frozen over the whole flap and resumed when
 *   its stalled queue pairs recover, at most c after the link is up for good:
 *       T <= T0 + (stop - start) + c.
 *   Routes are left alone (the rail switch has one uplink, nothing to reroute to).
 *
 * Measured against the bounds: AllReduce under BER 5.23 ms (go-back-N) and 2.20 ms
 * (selective repeat) against 140.6 and 146.4 ms (T0 72.5 us, E[F] + 5 sigma = 1147
 * failures of 960 packets, 908 recoveries with go-back-N); AllToAll 2.46 and 1.16 ms
 * against 281 and 284 ms (T0 22.6 us, 2294 failures of 2048 packets); under the
 * flap AllReduce 394 us against 507 (547) us, T0 84.7 us, and AllToAll 396 (400) us
 * against 522 (532) us, T0 99.0 us. The BER bound is loose (a sum over all failures,
 * as the flows recover in parallel); it bounds the time, and the byte counts check
 * the delivery.
 *
 * The run also stops at the bound (plus 1 ms), so a transport that never recovers
 * fails here instead of hanging.
 */
class CollectiveLossTestCase : public TestCase
{
  public:
    /**
     * \param op ALL_REDUCE or ALL_TO_ALL \param fault BER or FLAP
     * \param window ReceiveWindow (0: go-back-N)
     */
    CollectiveLossTestCase(RoceCollective::Op op, Fault fault, uint32_t window)
        : TestCase(RoceCollective::GetOpName(op) +
                   (fault == BER ? " under BER 1e-5" : " under a link flap") +
                   (window ? " (selective repeat)" : " (go-back-N)") +
                   ": every byte delivered once, in bounded time"),
          m_op(op),
          m_fault(fault),
          m_window(window)
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 2;
        const uint32_t m = GPUS;
        const uint32_t p = n * m;
        const uint64_t S = m_fault == BER ? 1 << 20 : 8 << 20;
        const bool allReduce = m_op == RoceCollective::ALL_REDUCE;
        const std::string name = RoceCollective::GetOpName(m_op) +
                                 (m_fault == BER ? " under BER" : " under a flap") +
                                 (m_window ? " (SR)" : " (GBN)");

        // What must cross: messages, bytes and packets, from S.
        uint64_t perRank;
        uint64_t nicBytes;
        uint64_t flowBytes; // what one connection carries
        double packets;
        if (allReduce)
        {
            // Each channel's ring: n NIC edges (one connection each: a rail carries one
            // channel), 2(p-1) steps of one slice in chunks.
            const uint64_t slice = S / CHANNELS / p;
            const uint64_t chunks = (slice + CHUNK - 1) / CHUNK;
            perRank = 2 * (p - 1) * S / p;
            nicBytes = n * 2 * (p - 1) * S / p;
            flowBytes = 2 * (p - 1) * slice;
            packets = double(n) * CHANNELS * 2 * (p - 1) * chunks *
                      std::ceil(double(slice) / chunks / MTU);
        }
        else
        {
            // Every rank sends S/p to each of the m ranks of the other server.
            const uint64_t pair = S / p;
            const uint64_t chunks = (pair + CHUNK - 1) / CHUNK;
            perRank = (p - 1) * S / p;
            nicBytes = (p - m) * S;
            flowBytes = pair;
            packets = double(p) * (p - m) * chunks * std::ceil(double(pair) / chunks / MTU);
        }

        const LossRun clean = RunLossy(m_op, S, NO_FAULT, m_window, Seconds(1));
        NS_TEST_ASSERT_MSG_EQ(clean.done, true, name << ": the loss-free run finished");
        const double t0 = clean.seconds;

        // The bound.
        // One recovery: the timer fires at most RTO after the last progress (the ACK of
        // the packet before the lost one, alpha after the loss) or a NAK comes back
        // sooner; the packet goes again (a frame, alpha). Selective repeat resends what
        // the receiver already holds, at most one connection's bytes.
        const double alpha = NicAlpha(2);
        const double recovery = RTO.GetSeconds() + 2 * alpha +
                                (MTU + DATA_EXTRA + 16) * 8 / LINK_BPS +
                                (m_window > 0 ? flowBytes * WIRE * 8 / LINK_BPS : 0);
        double bound;
        double fewestRecoveries = 0;
        std::ostringstream why;
        if (m_fault == BER)
        {
            const double q = PathLoss(LOSS_BER, DATA_FRAME_MAX, 2);
            const double qAck = PathLoss(LOSS_BER, ACK_FRAME, 2);
            const double failures = Failures(packets, q, 5) + Failures(packets, qAck, 5);
            fewestRecoveries = m_window == 0 ? Failures(packets, q, -5) : 0;
            bound = t0 + failures * recovery;
            why << "T0 " << Us(t0) << " + " << std::lround(failures) << " failures (q = " << q
                << ", " << packets << " packets) x " << Us(recovery);
        }
        else
        {
            bound = t0 + (FLAP_STOP - FLAP_START).GetSeconds() + recovery;
            why << "T0 " << Us(t0) << " + flap " << Us((FLAP_STOP - FLAP_START).GetSeconds())
                << " + " << Us(recovery);
        }

        const LossRun r = RunLossy(m_op, S, m_fault, m_window, Seconds(bound) + MilliSeconds(1));
        NS_TEST_EXPECT_MSG_EQ(r.done, true, name << ": finished");
        NS_TEST_EXPECT_MSG_EQ(r.doneCalls, (r.done ? 1 : 0), name << ": done called once");
        for (uint32_t rank = 0; rank < p; ++rank)
        {
            NS_TEST_EXPECT_MSG_EQ(r.rankDone[rank], 1, name << ": rank " << rank << " done once");
            NS_TEST_EXPECT_MSG_EQ(r.received[rank],
                                  perRank,
                                  name << ": bytes that arrived at rank " << rank);
        }
        NS_TEST_EXPECT_MSG_EQ(r.sameQps, true, name << ": every QP was watched");
        NS_TEST_EXPECT_MSG_EQ(r.qpDelivered,
                              nicBytes,
                              name << ": bytes the receiving queue pairs delivered");
        NS_TEST_EXPECT_MSG_EQ(r.outOfOrder,
                              0,
                              name << ": deliveries out of PSN order (a packet delivered twice)");
        NS_TEST_EXPECT_MSG_EQ(r.failed, 0, name << ": messages failed");
        NS_TEST_EXPECT_MSG_EQ(r.messagesReceived, r.posted, name << ": messages received once");
        NS_TEST_EXPECT_MSG_EQ(r.completed, r.posted, name << ": messages acknowledged");
        NS_TEST_EXPECT_MSG_EQ(clean.qpDelivered, nicBytes, name << ": loss-free bytes");
        NS_TEST_EXPECT_MSG_EQ(clean.retransmitted, 0, name << ": loss-free retransmissions");
        // The fault was there and the transport recovered from it.
        NS_TEST_EXPECT_MSG_GT(r.drops, 0, name << ": frames the fault dropped");
        NS_TEST_EXPECT_MSG_GT(r.retransmitted, 0, name << ": retransmitted packets");
        NS_TEST_EXPECT_MSG_GT(r.recoveries, 0, name << ": timeouts and NAKs");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(r.recoveries,
                                    uint64_t(fewestRecoveries),
                                    name << ": timeouts and NAKs, one per failed attempt");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.seconds,
                                    bound,
                                    name << ": " << Us(r.seconds) << " exceeds the bound "
                                         << Us(bound) << " = " << why.str());
    }

    RoceCollective::Op m_op;
    Fault m_fault;
    uint32_t m_window;
};

/**
 * Collectives on rails and NVLink against closed-form bandwidth bounds, and collectives under loss
 * and link flaps.
 */
class RoceCollectiveBoundsTestSuite : public TestSuite
{
  public:
    RoceCollectiveBoundsTestSuite()
        : TestSuite("rocev2-collective-bounds", Type::SYSTEM)
    {
        // 2 servers on 2 tiers: 2 s; on 3 tiers: 3 s; 4 servers: 19 s.
        const uint64_t S = 64 << 20;
        for (uint32_t servers : {2u, 4u})
        {
            for (uint32_t tiers : {2u, 3u})
            {
                const RoceTestDuration d = servers == 4 ? RoceTestDuration::TAKES_FOREVER
                                           : tiers == 3 ? RoceTestDuration::EXTENSIVE
                                                        : RoceTestDuration::QUICK;
                for (auto algo : {RoceCollective::RING,
                                  RoceCollective::TREE,
                                  RoceCollective::HALVING_DOUBLING,
                                  RoceCollective::HIERARCHICAL})
                {
                    // hd moves 4 to 8 times the others' bytes over the NICs: a quarter of S.
                    const uint64_t size = algo == RoceCollective::HALVING_DOUBLING ? S / 4 : S;
                    AddTestCase(new RailBoundsTestCase(tiers, servers, algo, size), d);
                }
            }
        }
        for (auto op : {RoceCollective::ALL_REDUCE, RoceCollective::ALL_TO_ALL})
        {
            for (uint32_t window : {0u, WINDOW})
            {
                AddTestCase(new CollectiveLossTestCase(op, BER, window), RoceTestDuration::QUICK);
                AddTestCase(new CollectiveLossTestCase(op, FLAP, window), RoceTestDuration::QUICK);
            }
        }
    }
};

static RoceCollectiveBoundsTestSuite g_roceCollectiveBoundsTestSuite; //!< static instance
