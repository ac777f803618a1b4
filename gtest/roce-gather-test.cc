/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What rank 0 makes of every rank's results (RoceMpiHelper::Gather): the
 * flow records and monitor rows of several ranks merged into the order one
 * process gives, whatever the split; sums of the counts; exact numbers; and
 * malformed text refused with its part and line.
 */
#include "roce-gtest-error.h"

#include "ns3/object.h"
#include "ns3/roce-fct-stats.h"
#include "ns3/roce-monitor-helper.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \param sip sender address (host order) \param sport source port
 * \param startNs posting time \param fctNs FCT
 * \return a record
 */
RoceFctRecord
Record(uint32_t sip, uint16_t sport, int64_t startNs, int64_t fctNs)
{
    RoceFctRecord r;
    r.sip = Ipv4Address(sip);
    r.dip = Ipv4Address(0x0a000001);
    r.sport = sport;
    r.dport = 100;
    r.bytes = 4096 + sport;
    r.start = NanoSeconds(startNs);
    r.fct = NanoSeconds(fctNs);
    r.idealFct = NanoSeconds(fctNs / 2);
    return r;
}

} // namespace

TEST(Gather, FctRecordsMergeInCompletionOrderWithSummedCounts)
{
    Ptr<RoceFctStats> a = CreateObject<RoceFctStats>();
    Ptr<RoceFctStats> b = CreateObject<RoceFctStats>();
    a->AddExpected(3);
    b->AddExpected(2);
    // Rank a: completions at 5000 (two, a tie broken by address) and 9000.
    a->Add(Record(0x0a000203, 10001, 1000, 8000));
    a->Add(Record(0x0a000201, 10000, 0, 5000));
    RoceFctRecord failed = Record(0x0a000202, 10002, 2000, 3000);
    failed.failed = true;
    a->Add(failed);
    // Rank b: completion at 3000, and one flow unfinished.
    b->Add(Record(0x0a000101, 10000, 1000, 2000));
    Ptr<RoceFctStats> merged = CreateObject<RoceFctStats>();
    merged->Merge({a->Pack(), b->Pack()});
    ASSERT_EQ(merged->GetRecords().size(), 4u);
    EXPECT_EQ(merged->GetExpected(), 5u);
    EXPECT_EQ(merged->GetCompleted(), 3u);
    EXPECT_EQ(merged->GetFailed(), 1u);
    std::vector<std::pair<uint32_t, int64_t>> order;
    for (const RoceFctRecord& r : merged->GetRecords())
    {
        order.emplace_back(r.sip.Get(), (r.start + r.fct).GetNanoSeconds());
    }
    const std::vector<std::pair<uint32_t, int64_t>> want{{0x0a000101, 3000},
                                                         {0x0a000201, 5000},
                                                         {0x0a000202, 5000},
                                                         {0x0a000203, 9000}};
    EXPECT_EQ(order, want);
    // Every field survives, and the split does not matter.
    const RoceFctRecord& r = merged->GetRecords()[3];
    EXPECT_EQ(r.sport, 10001);
    EXPECT_EQ(r.dport, 100);
    EXPECT_EQ(r.bytes, 4096u + 10001);
    EXPECT_EQ(r.idealFct, NanoSeconds(4000));
    EXPECT_TRUE(merged->GetRecords()[2].failed);
    Ptr<RoceFctStats> swapped = CreateObject<RoceFctStats>();
    swapped->Merge({b->Pack(), a->Pack()});
    EXPECT_EQ(swapped->Pack(), merged->Pack());
}

TEST(Gather, FctMergeRefusesMalformedText)
{
    Ptr<RoceFctStats> s = CreateObject<RoceFctStats>();
    EXPECT_ROCE_ERROR(s->Merge({"1 0\n", ""}), "part 1 has no counts");
    EXPECT_ROCE_ERROR(s->Merge({"2 2\n1 2 3 4 5 6 7 8 0\n1 2 3\n"}),
                      "part 0, record 1 is malformed");
    EXPECT_ROCE_ERROR(s->Merge({"1 1\n1 2 70000 4 5 6 7 8 0\n"}), "part 0, record 0 is malformed");
}

TEST(Gather, MonitorRowsMergeInOneProcessOrder)
{
    // Two ranks' rows, each in its own order.
    const std::string rank0 = "P 300 7 1 3 1 1\n"
                              "R 300 2 0 3 1 0\n"
                              "Q 100 7 1 3 5000\n"
                              "L 100 7 1 9000 3 0.10000000000000001\n"
                              "C 7 4 10001 167772417 0 2\n"
                              "M 7 1 12000 5000\n";
    const std::string rank1 = "P 300 5 2 3 1 1\n"
                              "P 200 5 2 3 0 1\n"
                              "Q 100 5 0 3 1000\n"
                              "Q 100 5 0 1 700\n"
                              "L 100 5 0 8000 2 0.33333333333333331\n"
                              "T 100 5 2 25000000000 0\n"
                              "C 5 2 10000 167772161 3 0\n"
                              "M 5 0 3000 1000\n";
    Ptr<RoceMonitor> m = CreateObject<RoceMonitor>();
    m->Merge({rank0, rank1});
    ASSERT_EQ(m->GetPfcLog().size(), 3u);
    EXPECT_EQ(m->GetPfcLog()[0].timeNs, 200);
    EXPECT_FALSE(m->GetPfcLog()[0].xoff);
    EXPECT_EQ(m->GetPfcLog()[1].node, 5u);
    EXPECT_EQ(m->GetPfcLog()[2].node, 7u);
    ASSERT_EQ(m->GetPfcRxLog().size(), 1u);
    EXPECT_FALSE(m->GetPfcRxLog()[0].isSwitch);
    ASSERT_EQ(m->GetQueueSamples().size(), 3u);
    EXPECT_EQ(m->GetQueueSamples()[0].priority, 1);
    EXPECT_EQ(m->GetQueueSamples()[1].bytes, 1000u);
    EXPECT_EQ(m->GetQueueSamples()[2].node, 7u);
    ASSERT_EQ(m->GetLinkSamples().size(), 2u);
    EXPECT_EQ(m->GetLinkSamples()[0].node, 5u);
    // Utilisations come back as the very same doubles.
    EXPECT_EQ(m->GetLinkSamples()[0].util, 1.0 / 3);
    EXPECT_EQ(m->GetLinkSamples()[1].util, 0.1);
    ASSERT_EQ(m->GetRateSamples().size(), 1u);
    EXPECT_EQ(m->GetRateSamples()[0].rateBps, 25e9);
    ASSERT_EQ(m->GetCnpCounts().size(), 2u);
    EXPECT_EQ(m->GetCnpCounts()[0].node, 5u);
    EXPECT_EQ(m->GetCnpCounts()[0].cnpSent, 3u);
    EXPECT_EQ(m->GetCnpCounts()[1].cnpReceived, 2u);
    ASSERT_EQ(m->GetPortMaxQueues().size(), 2u);
    EXPECT_EQ(m->GetPortMaxQueues()[0].maxBytes, 3000u);
    EXPECT_EQ(m->GetPortMaxQueues()[1].maxSampled, 5000u);
    // The merged rows pack alike whatever the order of the parts.
    Ptr<RoceMonitor> swapped = CreateObject<RoceMonitor>();
    swapped->Merge({rank1, rank0});
    EXPECT_EQ(swapped->Pack(), m->Pack());
}

TEST(Gather, MonitorMergeRefusesMalformedText)
{
    Ptr<RoceMonitor> m = CreateObject<RoceMonitor>();
    EXPECT_ROCE_ERROR(m->Merge({"Q 1 2 3 4 5\n", "Q 1 2\n"}),
                      "part 1, line 1: a missing or malformed integer");
    EXPECT_ROCE_ERROR(m->Merge({"L 1 2 3 4 5 x\n"}), "part 0, line 1: 'x' is not a number");
    EXPECT_ROCE_ERROR(m->Merge({"\nZ 1\n"}), "part 0, line 2: unknown row 'Z'");
}
