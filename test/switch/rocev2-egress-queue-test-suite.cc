/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The egress queue on its own: FIFO rings per priority, STRICT and DWRR
 * order, paused priorities, counters, trace sources, configuration checks;
 * and the in-place frame rewrites (ECN CE mark, INT stamp) against the bytes
 * typed headers give.
 */
#include "../rocev2-test-child.h"

#include "ns3/boolean.h"
#include "ns3/ipv4-header.h"
#include "ns3/mac48-address.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-encap-header.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-raw-header.h"
#include "ns3/roce-raw-trailer.h"
#include "ns3/roce-shared-buffer-mmu.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t PAYLOAD = 1000; //!< payload bytes of the test frames

/**
 * \param payload payload bytes
 * \param dscp DSCP
 * \param ecn ECN codepoint
 * \param intRequest BTH INT request bit
 * \param psn the BTH PSN (tells frames apart)
 * \return a RoCEv2 frame built as a NIC builds it: Ethernet/IPv4/UDP in one
 *         RoceEncapHeader, BTH, payload, ICRC
 */
Ptr<Packet>
RoceFrameBytes(uint32_t payload, uint8_t dscp, uint8_t ecn, bool intRequest, uint32_t psn = 7)
{
    std::vector<uint8_t> data(payload);
    for (uint32_t i = 0; i < payload; ++i)
    {
        data[i] = static_cast<uint8_t>(i * 37 + psn);
    }
    Ptr<Packet> p = Create<Packet>(data.data(), payload);
    RoceBthHeader bth;
    bth.SetOpcode(RoceBthHeader::WRITE_ONLY);
    bth.SetDestQp(0x123456);
    bth.SetPsn(psn);
    bth.SetIntRequest(intRequest);
    p->AddHeader(bth);
    RoceIcrcTrailer icrc;
    icrc.SetIcrc(0xA1B2C3D4);
    p->AddTrailer(icrc);
    RoceEncapHeader encap;
    encap.SetMacs(Mac48Address("00:00:00:00:00:01"), Mac48Address("00:00:00:00:00:02"));
    encap.SetAddresses(Ipv4Address("10.0.3.7"), Ipv4Address("10.200.1.9"));
    encap.SetDscp(dscp);
    encap.SetEcn(ecn);
    encap.SetSourcePort(49999);
    p->AddHeader(encap);
    return p;
}

/// \param p a packet \return its bytes
std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

/**
 * \param p a frame
 * \return its IPv4 header, deserialised with checksum verification on
 */
Ipv4Header
Ipv4Of(Ptr<const Packet> p)
{
    Ptr<Packet> copy = p->Copy();
    copy->RemoveAtStart(14);
    Ipv4Header ip;
    ip.EnableChecksum();
    copy->RemoveHeader(ip);
    return ip;
}

/**
 * \param scheduler "Strict" or "Dwrr"
 * \param mmu the MMU
 * \return a 100 Gb/s queue, ECN off, initialised
 */
Ptr<RoceEgressQueueDisc>
MakeQueue(const std::string& scheduler, Ptr<RoceSharedBufferMmu> mmu)
{
    Ptr<RoceEgressQueueDisc> q = CreateObject<RoceEgressQueueDisc>();
    q->SetAttribute("Scheduler", StringValue(scheduler));
    q->SetAttribute("EcnEnabled", BooleanValue(false));
    q->Setup(mmu, DataRate("100Gbps"));
    q->Initialize();
    return q;
}

/// \return a configured MMU for one 100 Gb/s port
Ptr<RoceSharedBufferMmu>
MakeMmu()
{
    Ptr<RoceSharedBufferMmu> mmu = CreateObject<RoceSharedBufferMmu>();
    mmu->Configure({{DataRate("100Gbps"), MicroSeconds(1)}});
    return mmu;
}

/// \param q a queue \param prio a priority \param psn frame tag \return the frame queued
Ptr<Packet>
Push(Ptr<RoceEgressQueueDisc> q, uint8_t prio, uint32_t psn)
{
    Ptr<Packet> p = RoceFrameBytes(PAYLOAD, 26, 0, false, psn);
    q->Enqueue(p, 0, prio, false);
    return p;
}

} // namespace

/**
 * \ingroup rocev2
 * Each priority is FIFO, also when its ring grows past its initial capacity
 * while wrapped; the counters follow every step.
 */
class EgressFifoRingTestCase : public TestCase
{
  public:
    EgressFifoRingTestCase()
        : TestCase("Egress queue: FIFO per priority, ring growth keeps order, counters")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RoceSharedBufferMmu> mmu = MakeMmu();
        Ptr<RoceEgressQueueDisc> q = MakeQueue("Strict", mmu);
        const uint32_t cap = RoceEgressQueueDisc::INITIAL_RING_CAPACITY;
        const uint32_t frame =
            static_cast<uint32_t>(RoceFrameBytes(PAYLOAD, 26, 0, false)->GetSize());
        std::vector<Ptr<Packet>> expect3; // priority 3, in order
        uint32_t tag = 0;
        // Wrap the ring: fill it, take half, then push 5 * cap more (it
        // doubles three times while its head is not slot 0).
        for (uint32_t i = 0; i < cap; ++i)
        {
            expect3.push_back(Push(q, 3, tag++));
        }
        for (uint32_t i = 0; i < cap / 2; ++i)
        {
            Ptr<Packet> p = q->Dequeue();
            NS_TEST_ASSERT_MSG_EQ(p, expect3.front(), "FIFO before growth, frame " << i);
            expect3.erase(expect3.begin());
        }
        std::vector<Ptr<Packet>> expect1;
        for (uint32_t i = 0; i < 5 * cap; ++i)
        {
            expect3.push_back(Push(q, 3, tag++));
            if (i % 3 == 0)
            {
                expect1.push_back(Push(q, 1, tag++));
            }
        }
        const uint32_t n3 = static_cast<uint32_t>(expect3.size());
        const uint32_t n1 = static_cast<uint32_t>(expect1.size());
        NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(3), n3, "packets in priority 3");
        NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(1), n1, "packets in priority 1");
        NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), n3 + n1, "packets in all");
        NS_TEST_ASSERT_MSG_EQ(q->GetQueueBytes(3), uint64_t(n3) * frame, "bytes in priority 3");
        NS_TEST_ASSERT_MSG_EQ(q->GetNBytes(), uint64_t(n3 + n1) * frame, "bytes in all");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetTotalBytes(), uint64_t(n3 + n1) * frame, "MMU holds them");
        NS_TEST_ASSERT_MSG_EQ(q->GetMaxQueueBytes(3), uint64_t(n3) * frame, "max of priority 3");
        // Strict: all of priority 3 in order, then all of priority 1.
        for (uint32_t i = 0; i < n3; ++i)
        {
            uint8_t prio = 99;
            uint8_t telemetry = 99;
            Ptr<Packet> p = q->Dequeue(&prio, &telemetry);
            NS_TEST_ASSERT_MSG_EQ(p, expect3[i], "priority 3 out of order at " << i);
            NS_TEST_ASSERT_MSG_EQ(+prio, 3, "reported priority");
            NS_TEST_ASSERT_MSG_EQ(+telemetry, +RoceEgressQueueDisc::TELEMETRY_NONE, "telemetry");
        }
        for (uint32_t i = 0; i < n1; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(q->Dequeue(), expect1[i], "priority 1 out of order at " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(q->Dequeue(), Ptr<Packet>(), "empty queue gives null");
        NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), 0, "drained");
        NS_TEST_ASSERT_MSG_EQ(q->GetNBytes(), 0, "drained bytes");
        NS_TEST_ASSERT_MSG_EQ(q->GetQueueBytes(3), 0, "drained priority 3");
        NS_TEST_ASSERT_MSG_EQ(q->GetMaxQueueBytes(3), uint64_t(n3) * frame, "max stays");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetTotalBytes(), 0, "MMU released everything");
        // The telemetry code and priority come back with the frame.
        Ptr<Packet> p = RoceFrameBytes(PAYLOAD, 26, 0, true);
        q->Enqueue(p, 0, 6, false, RoceEgressQueueDisc::TELEMETRY_INT);
        uint8_t prio = 0;
        uint8_t telemetry = 0;
        NS_TEST_ASSERT_MSG_EQ(q->Dequeue(&prio, &telemetry), p, "the frame");
        NS_TEST_ASSERT_MSG_EQ(+prio, 6, "its priority");
        NS_TEST_ASSERT_MSG_EQ(+telemetry, +RoceEgressQueueDisc::TELEMETRY_INT, "its telemetry");
        q->Dispose();
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * STRICT serves the highest ready priority; DWRR with weights 1 and 2 and a
 * quantum of one frame serves 1, 2, 2, 1, 2, 2, ...; a paused priority is
 * skipped and keeps its frames.
 */
class EgressSchedulingTestCase : public TestCase
{
  public:
    EgressSchedulingTestCase()
        : TestCase("Egress queue: STRICT and DWRR order, paused priorities skipped")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RoceSharedBufferMmu> mmu = MakeMmu();
        uint8_t prio = 0;

        // STRICT.
        Ptr<RoceEgressQueueDisc> q = MakeQueue("Strict", mmu);
        Push(q, 2, 1);
        Push(q, 5, 2);
        Push(q, 0, 3);
        Push(q, 5, 4);
        const uint8_t strict[] = {5, 5, 2, 0};
        for (uint8_t want : strict)
        {
            NS_TEST_ASSERT_MSG_NE(q->Dequeue(&prio), Ptr<Packet>(), "a frame");
            NS_TEST_ASSERT_MSG_EQ(+prio, +want, "strict order");
        }

        // Paused priorities are skipped, keep their frames, and come back.
        Ptr<Packet> a = Push(q, 5, 10);
        Ptr<Packet> b = Push(q, 3, 11);
        q->SetPausedMask(1u << 5);
        NS_TEST_ASSERT_MSG_EQ(q->Dequeue(&prio), b, "priority 5 paused: 3 goes");
        q->SetPausedMask((1u << 5) | (1u << 3));
        NS_TEST_ASSERT_MSG_EQ(q->Dequeue(), Ptr<Packet>(), "only a paused priority holds frames");
        NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(5), 1, "the paused frame stays");
        NS_TEST_ASSERT_MSG_EQ(q->HasUnpausedData(1u << 5), false, "only priority 5 holds data");
        NS_TEST_ASSERT_MSG_EQ(q->HasUnpausedData(1u << 3), true, "priority 5 not paused");
        q->SetPausedMask(0);
        NS_TEST_ASSERT_MSG_EQ(q->Dequeue(), a, "resumed");
        NS_TEST_ASSERT_MSG_EQ(q->HasUnpausedData(0), false, "empty");
        q->Dispose();

        // DWRR: priority 1 weight 1, priority 2 weight 2, quantum = one frame.
        const uint32_t frame =
            static_cast<uint32_t>(RoceFrameBytes(PAYLOAD, 26, 0, false)->GetSize());
        q = CreateObject<RoceEgressQueueDisc>();
        q->SetAttribute("Scheduler", StringValue("Dwrr"));
        q->SetAttribute("EcnEnabled", BooleanValue(false));
        q->SetAttribute("DwrrQuantum", UintegerValue(frame));
        q->SetAttribute("DwrrWeights", StringValue("1,1,2,1,1,1,1,1"));
        q->Setup(mmu, DataRate("100Gbps"));
        q->Initialize();
        for (uint32_t i = 0; i < 20; ++i)
        {
            Push(q, 1, 100 + i);
            Push(q, 2, 200 + i);
        }
        const uint8_t dwrr[] = {1, 2, 2, 1, 2, 2, 1, 2, 2, 1, 2, 2};
        for (uint32_t i = 0; i < sizeof(dwrr); ++i)
        {
            NS_TEST_ASSERT_MSG_NE(q->Dequeue(&prio), Ptr<Packet>(), "a frame");
            NS_TEST_ASSERT_MSG_EQ(+prio, +dwrr[i], "DWRR order at " << i);
        }
        // Pausing priority 2 leaves priority 1 alone on the link.
        q->SetPausedMask(1u << 2);
        for (uint32_t i = 0; i < 4; ++i)
        {
            NS_TEST_ASSERT_MSG_NE(q->Dequeue(&prio), Ptr<Packet>(), "a frame");
            NS_TEST_ASSERT_MSG_EQ(+prio, 1, "priority 2 paused");
        }
        q->Dispose();
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * The trace sources fire with the right frame, priority and reason, and the
 * counters agree with them: Enqueue, Dequeue, Mark (ECN at dequeue above
 * Kmax), Drop (a lossy MMU whose buffer is full).
 */
class EgressTracesTestCase : public TestCase
{
  public:
    EgressTracesTestCase()
        : TestCase("Egress queue: Enqueue, Dequeue, Mark and Drop traces and counters")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RoceSharedBufferMmu> mmu = CreateObject<RoceSharedBufferMmu>();
        mmu->SetAttribute("PfcEnabled", BooleanValue(false));
        mmu->SetAttribute("BufferSize", QueueSizeValue(QueueSize("40KB")));
        mmu->Configure({{DataRate("100Gbps"), MicroSeconds(1)}});
        Ptr<RoceEgressQueueDisc> q = CreateObject<RoceEgressQueueDisc>();
        q->SetAttribute("EcnKmin", QueueSizeValue(QueueSize("1KB")));
        q->SetAttribute("EcnKmax", QueueSizeValue(QueueSize("1KB")));
        q->SetAttribute("EcnThresholdRate", DataRateValue(DataRate(0)));
        q->Setup(mmu, DataRate("100Gbps"));
        q->Initialize();

        std::vector<std::pair<Ptr<const Packet>, uint8_t>> enq;
        std::vector<std::pair<Ptr<const Packet>, uint8_t>> deq;
        std::vector<std::pair<Ptr<const Packet>, uint8_t>> marks;
        std::vector<std::string> dropReasons;
        std::vector<Ptr<const Packet>> dropped;
        using PacketCb = Callback<void, Ptr<const Packet>, uint8_t>;
        q->TraceConnectWithoutContext(
            "Enqueue",
            PacketCb([&enq](Ptr<const Packet> p, uint8_t prio) { enq.emplace_back(p, prio); }));
        q->TraceConnectWithoutContext(
            "Dequeue",
            PacketCb([&deq](Ptr<const Packet> p, uint8_t prio) { deq.emplace_back(p, prio); }));
        q->TraceConnectWithoutContext("Mark", PacketCb([&marks](Ptr<const Packet> p, uint8_t prio) {
                                          marks.emplace_back(p, prio);
                                      }));
        q->TraceConnectWithoutContext(
            "Drop",
            Callback<void, Ptr<const Packet>, uint8_t, const char*>(
                [&](Ptr<const Packet> p, uint8_t prio, const char* reason) {
                    NS_TEST_EXPECT_MSG_EQ(+prio, 4, "dropped priority");
                    dropped.push_back(p);
                    dropReasons.emplace_back(reason);
                }));

        // ECN-capable frames of priority 4 until the buffer refuses some.
        std::vector<Ptr<Packet>> sent;
        uint32_t accepted = 0;
        for (uint32_t i = 0; i < 60; ++i)
        {
            Ptr<Packet> p = RoceFrameBytes(PAYLOAD, 26, Ipv4Header::ECN_ECT0, false, i);
            sent.push_back(p);
            accepted += q->Enqueue(p, 0, 4, true) ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_GT(accepted, 0, "some frames admitted");
        NS_TEST_ASSERT_MSG_LT(accepted, 60, "some frames dropped");
        NS_TEST_ASSERT_MSG_EQ(enq.size(), accepted, "Enqueue fired per admitted frame");
        NS_TEST_ASSERT_MSG_EQ(dropped.size(), 60 - accepted, "Drop fired per refused frame");
        NS_TEST_ASSERT_MSG_EQ(q->GetDrops(4), 60 - accepted, "drop counter");
        for (uint32_t i = 0; i < accepted; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(enq[i].first, sent[i], "Enqueue frame " << i);
            NS_TEST_ASSERT_MSG_EQ(+enq[i].second, 4, "Enqueue priority");
        }
        NS_TEST_ASSERT_MSG_EQ(dropped.front(), sent[accepted], "the first refused frame");
        for (const auto& r : dropReasons)
        {
            bool known = r == RoceSharedBufferMmu::DROP_THRESHOLD ||
                         r == RoceSharedBufferMmu::DROP_BUFFER_FULL;
            NS_TEST_ASSERT_MSG_EQ(known, true, "drop reason '" << r << "' is the MMU's");
        }
        // Dequeue: the queue a frame sees includes itself (1042 B), above
        // Kmax = 1 KB, so every frame is marked.
        uint32_t out = 0;
        while (Ptr<Packet> p = q->Dequeue())
        {
            NS_TEST_ASSERT_MSG_EQ(p, sent[out], "dequeue order");
            NS_TEST_ASSERT_MSG_EQ(deq.back().first, p, "Dequeue frame");
            NS_TEST_ASSERT_MSG_EQ(+deq.back().second, 4, "Dequeue priority");
            NS_TEST_ASSERT_MSG_EQ(Ipv4Of(p).GetEcn(), Ipv4Header::ECN_CE, "marked");
            ++out;
        }
        NS_TEST_ASSERT_MSG_EQ(out, accepted, "all admitted frames leave");
        NS_TEST_ASSERT_MSG_EQ(deq.size(), accepted, "Dequeue fired per frame");
        NS_TEST_ASSERT_MSG_EQ(marks.size(), accepted, "Mark fired per marked frame");
        NS_TEST_ASSERT_MSG_EQ(q->GetEcnMarks(4), accepted, "mark counter");
        NS_TEST_ASSERT_MSG_EQ(marks.front().first, sent[0], "Mark frame");
        NS_TEST_ASSERT_MSG_EQ(+marks.front().second, 4, "Mark priority");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetTotalBytes(), 0, "MMU released everything");
        q->Dispose();
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * The CE mark rewrites the ECN bits and the IPv4 checksum, and nothing else:
 * for ECT(0) and ECT(1) frames of several DSCPs, the checksum is valid
 * (Ipv4Header deserialised with checksum checks), it equals a full
 * recomputation, and every other byte is unchanged. The incremental checksum
 * agrees with a full one over random headers and changes.
 */
class EcnMarkInPlaceTestCase : public TestCase
{
  public:
    EcnMarkInPlaceTestCase()
        : TestCase("CE mark in place: ECN = 3, valid IPv4 checksum, every other byte unchanged")
    {
    }

  private:
    void DoRun() override
    {
        for (uint8_t dscp : {0, 3, 26, 46, 63})
        {
            for (uint8_t ecn : {Ipv4Header::ECN_ECT0, Ipv4Header::ECN_ECT1})
            {
                Ptr<Packet> p = RoceFrameBytes(PAYLOAD, dscp, ecn, true);
                NS_TEST_ASSERT_MSG_EQ(Ipv4Of(p).IsChecksumOk(), true, "frame built valid");
                std::vector<uint8_t> before = Bytes(p);
                NS_TEST_ASSERT_MSG_EQ(RoceRawHeader::SetCe(*p), true, "marked");
                std::vector<uint8_t> after = Bytes(p);
                NS_TEST_ASSERT_MSG_EQ(after.size(), before.size(), "size unchanged");
                Ipv4Header ip = Ipv4Of(p);
                NS_TEST_ASSERT_MSG_EQ(ip.IsChecksumOk(), true, "checksum after the mark");
                NS_TEST_ASSERT_MSG_EQ(ip.GetEcn(), Ipv4Header::ECN_CE, "ECN = CE");
                NS_TEST_ASSERT_MSG_EQ(+ip.GetDscp(), +dscp, "DSCP kept");
                uint16_t full = RoceEncapHeader::IpChecksum(after.data() + 14);
                NS_TEST_ASSERT_MSG_EQ(((after[24] << 8) | after[25]),
                                      full,
                                      "incremental = full checksum");
                NS_TEST_ASSERT_MSG_EQ(after[15], (before[15] | 0x3), "TOS byte");
                for (std::size_t i = 0; i < after.size(); ++i)
                {
                    if (i != 15 && i != 24 && i != 25)
                    {
                        NS_TEST_ASSERT_MSG_EQ(+after[i], +before[i], "byte " << i << " changed");
                    }
                }
                // Marking again changes nothing.
                NS_TEST_ASSERT_MSG_EQ(RoceRawHeader::SetCe(*p), true, "marked again");
                NS_TEST_ASSERT_MSG_EQ((Bytes(p) == after), true, "second mark is a no-op");
            }
        }
        // Not an IPv4 frame: left alone.
        Ptr<Packet> shortFrame = Create<Packet>(20);
        NS_TEST_ASSERT_MSG_EQ(RoceRawHeader::SetCe(*shortFrame), false, "short frame");

        // RFC 1624 against a full recomputation.
        std::mt19937 rng(12345);
        for (uint32_t t = 0; t < 20000; ++t)
        {
            uint8_t ip[20];
            for (uint8_t& b : ip)
            {
                b = static_cast<uint8_t>(rng());
            }
            ip[10] = 0;
            ip[11] = 0;
            uint16_t c = RoceEncapHeader::IpChecksum(ip);
            ip[10] = c >> 8;
            ip[11] = c & 0xFF;
            uint32_t w = 2 * (rng() % 10);
            if (w == 10)
            {
                w = 0;
            }
            uint16_t old = static_cast<uint16_t>((ip[w] << 8) | ip[w + 1]);
            uint16_t neu = static_cast<uint16_t>(rng());
            ip[w] = neu >> 8;
            ip[w + 1] = neu & 0xFF;
            uint16_t incremental = RoceRawHeader::UpdateChecksum(c, old, neu);
            uint16_t full = RoceEncapHeader::IpChecksum(ip);
            NS_TEST_ASSERT_MSG_EQ(incremental, full, "trial " << t);
        }
    }
};

/**
 * \ingroup rocev2
 * The INT stamp in place gives byte for byte what the typed headers give:
 * remove RoceEncapHeader and RoceBthHeader, put the record before the ICRC,
 * count it in BTH, add the headers back (which rewrites the lengths and the
 * checksum). Checked over several hops, with CE set, and at the hop cap.
 */
class IntStampInPlaceTestCase : public TestCase
{
  public:
    IntStampInPlaceTestCase()
        : TestCase("INT stamp in place: the same bytes as re-serialising the headers")
    {
    }

  private:
    /// The link rates INT's 3-bit rate code encodes, Mb/s.
    static constexpr uint32_t RATES[8] =
        {10000, 25000, 40000, 50000, 100000, 200000, 400000, 800000};

    /**
     * The reference: the frame rebuilt from typed headers.
     * \param p the frame
     * \param r the record (its hop is set from the frame)
     */
    static void StampTyped(Ptr<Packet> p, RoceIntRecord r)
    {
        RoceEncapHeader encap;
        p->RemoveHeader(encap);
        RoceBthHeader bth;
        p->RemoveHeader(bth);
        uint8_t hops = bth.GetIntHops();
        if (hops < RoceIntRecord::MAX_HOPS)
        {
            RoceIcrcTrailer icrc;
            p->RemoveTrailer(icrc);
            r.hop = hops;
            uint8_t word[RoceIntRecord::SIZE];
            r.Write(word);
            p->AddTrailer(RoceRawTrailer(word, sizeof(word)));
            p->AddTrailer(icrc);
            bth.SetIntHops(hops + 1);
        }
        p->AddHeader(bth);
        p->AddHeader(encap);
    }

    void DoRun() override
    {
        for (uint8_t ecn : {Ipv4Header::ECN_ECT0, Ipv4Header::ECN_CE})
        {
            Ptr<Packet> typed = RoceFrameBytes(PAYLOAD, 26, ecn, true);
            Ptr<Packet> raw = typed->Copy();
            for (uint32_t hop = 0; hop < RoceIntRecord::MAX_HOPS + 2; ++hop)
            {
                RoceIntRecord r;
                r.rateMbps = RATES[hop % 8];
                r.queueBytes = 123456789ULL * (hop + 1);
                r.txBytes = 0x0102030405060708ULL + hop;
                r.timestampNs = 987654321ULL + 1000 * hop;
                StampTyped(typed, r);
                bool stamped = RoceRawHeader::StampInt(*raw, r);
                bool expectStamp = hop < RoceIntRecord::MAX_HOPS;
                NS_TEST_ASSERT_MSG_EQ(stamped, expectStamp, "hop " << hop);
                if (stamped)
                {
                    NS_TEST_ASSERT_MSG_EQ(+r.hop, hop, "record's hop");
                }
                NS_TEST_ASSERT_MSG_EQ(raw->GetSize(), typed->GetSize(), "size at hop " << hop);
                std::vector<uint8_t> a = Bytes(raw);
                std::vector<uint8_t> b = Bytes(typed);
                bool same = a == b;
                NS_TEST_ASSERT_MSG_EQ(same, true, "bytes differ after hop " << hop);
                NS_TEST_ASSERT_MSG_EQ(Ipv4Of(raw).IsChecksumOk(), true, "checksum, hop " << hop);
            }
            NS_TEST_ASSERT_MSG_EQ(raw->GetSize(),
                                  RoceFrameBytes(PAYLOAD, 26, ecn, true)->GetSize() +
                                      RoceIntRecord::MAX_HOPS * RoceIntRecord::SIZE,
                                  "MAX_HOPS records, no more");
            // The records read back from the end, last hop first, ICRC kept.
            RoceIcrcTrailer icrc;
            Ptr<Packet> copy = raw->Copy();
            copy->PeekTrailer(icrc);
            NS_TEST_ASSERT_MSG_EQ(icrc.GetIcrc(), 0xA1B2C3D4, "ICRC kept last");
            copy->RemoveAtEnd(RoceIcrcTrailer::SIZE);
            RoceRawTrailer lastBytes;
            lastBytes.SetSize(RoceIntRecord::SIZE);
            copy->PeekTrailer(lastBytes);
            RoceIntRecord last;
            last.Read(lastBytes.GetBytes());
            // The hop index is not on the wire: a reader counts records.
            NS_TEST_ASSERT_MSG_EQ(last.rateMbps,
                                  RATES[(RoceIntRecord::MAX_HOPS - 1) % 8],
                                  "its rate");
        }
        // Golden bytes of one stamp on a small frame (8 B payload): the header
        // fields that change, checked against constants.
        Ptr<Packet> p = RoceFrameBytes(8, 26, Ipv4Header::ECN_ECT0, true);
        RoceIntRecord r;
        r.rateMbps = 100000;
        r.queueBytes = 2048;
        r.txBytes = 4096;
        r.timestampNs = 5000;
        RoceRawHeader::StampInt(*p, r);
        std::vector<uint8_t> b = Bytes(p);
        // 42 encapsulation + 12 BTH + 8 payload + 8 INT + 4 ICRC = 74
        NS_TEST_ASSERT_MSG_EQ(b.size(), 74, "frame size");
        NS_TEST_ASSERT_MSG_EQ(((b[16] << 8) | b[17]), 74 - 14, "IPv4 total length");
        NS_TEST_ASSERT_MSG_EQ(((b[38] << 8) | b[39]), 74 - 34, "UDP length");
        NS_TEST_ASSERT_MSG_EQ(+b[46], 0x21, "BTH: INT request, 1 hop");
        // Rate code 4 (100 Gb/s) << 61 | 5000 ns << 37 | 4096/128 = 32 units
        // << 17 | 2048/80 = 25 units (rounded down).
        const uint8_t record[8] = {0x80, 0x02, 0x71, 0x00, 0x00, 0x40, 0x00, 0x19};
        NS_TEST_ASSERT_MSG_EQ(std::memcmp(b.data() + 62, record, 8), 0, "the record");
        const uint8_t icrcBytes[4] = {0xA1, 0xB2, 0xC3, 0xD4};
        NS_TEST_ASSERT_MSG_EQ(std::memcmp(b.data() + 70, icrcBytes, 4), 0, "the ICRC");
        NS_TEST_ASSERT_MSG_EQ(Ipv4Of(p).IsChecksumOk(), true, "IPv4 checksum");
    }
};

/**
 * \ingroup rocev2
 * Misconfigurations abort with a message naming the attribute and its value
 * (checked when the queue is initialised, as a switch starts).
 */
class EgressConfigCheckTestCase : public TestCase
{
  public:
    EgressConfigCheckTestCase()
        : TestCase("Egress queue: bad EcnKmin or EcnKmax aborts naming the attribute")
    {
    }

  private:
    void DoRun() override
    {
#ifdef ROCEV2_TEST_CAN_FORK
        struct Bad
        {
            std::string kmin;   //!< EcnKmin
            std::string kmax;   //!< EcnKmax
            std::string expect; //!< text the message must hold
        };

        const Bad cases[] = {
            {"500KB", "400KB", "EcnKmin=500000B exceeds EcnKmax=400000B"},
            {"100p", "400KB", "EcnKmin=100p must be in bytes"},
            {"100KB", "400p", "EcnKmax=400p must be in bytes"},
        };
        for (const Bad& bad : cases)
        {
            std::string err;
            bool aborted = rocev2test::RunInChild(
                [&bad]() {
                    Ptr<RoceEgressQueueDisc> q = CreateObject<RoceEgressQueueDisc>();
                    q->SetAttribute("EcnKmin", QueueSizeValue(QueueSize(bad.kmin)));
                    q->SetAttribute("EcnKmax", QueueSizeValue(QueueSize(bad.kmax)));
                    q->Setup(MakeMmu(), DataRate("100Gbps"));
                    q->Initialize();
                },
                err);
            NS_TEST_ASSERT_MSG_EQ(aborted, true, bad.kmin << "/" << bad.kmax << " did not abort");
            NS_TEST_ASSERT_MSG_NE(err.find(bad.expect),
                                  std::string::npos,
                                  "abort message lacks '" << bad.expect << "': " << err);
        }
        std::string err;
        bool aborted =
            rocev2test::RunInChild([]() { CreateObject<RoceEgressQueueDisc>()->Initialize(); },
                                   err);
        NS_TEST_ASSERT_MSG_EQ(aborted, true, "no MMU did not abort");
        NS_TEST_ASSERT_MSG_NE(err.find("Setup not called"), std::string::npos, err);
#endif
    }
};

/**
 * \ingroup rocev2
 * rocev2-egress-queue suite.
 */
class RoceEgressQueueTestSuite : public TestSuite
{
  public:
    RoceEgressQueueTestSuite()
        : TestSuite("rocev2-egress-queue", Type::UNIT)
    {
        AddTestCase(new EgressFifoRingTestCase, RoceTestDuration::QUICK);
        AddTestCase(new EgressSchedulingTestCase, RoceTestDuration::QUICK);
        AddTestCase(new EgressTracesTestCase, RoceTestDuration::QUICK);
        AddTestCase(new EcnMarkInPlaceTestCase, RoceTestDuration::QUICK);
        AddTestCase(new IntStampInPlaceTestCase, RoceTestDuration::QUICK);
        AddTestCase(new EgressConfigCheckTestCase, RoceTestDuration::QUICK);
    }
};

static RoceEgressQueueTestSuite g_egressQueueTestSuite; //!< static instance
