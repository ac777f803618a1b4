/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceHpccFormat reads the HPCC paper's fat-tree and web-search flow file
 * (data/hpcc-format, facts from data/README.md) and refuses malformed files
 * with file:line and the field.
 */

#include "roce-gtest-error.h"

#include "ns3/roce-hpcc-format.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace ns3;

namespace
{

const std::string TOPOLOGY = "data/hpcc-format/fat-tree-320.txt";
const std::string FLOWS = "data/hpcc-format/websearch-320-30pct-10ms.txt";

/** \return the path of a temporary file holding text */
std::string
Write(const std::string& name, const std::string& text)
{
    // One file per process: ctest runs tests in parallel processes,
    // and several of them write the same names.
    const std::string path =
        "/tmp/rocev2-hpcc-format-" + std::to_string(getpid()) + "-" + name + ".txt";
    std::ofstream(path) << text;
    return path;
}

/** A 2-host, 1-switch topology. */
const std::string SMALL = "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n";

} // namespace

TEST(HpccFormat, ReadsTheHpccFatTree)
{
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(TOPOLOGY);
    EXPECT_EQ(t.nodes, 376u);
    ASSERT_EQ(t.switches.size(), 56u);
    EXPECT_EQ(t.switches.front(), 320u);
    EXPECT_EQ(t.switches.back(), 375u);
    ASSERT_EQ(t.links.size(), 480u);
    uint32_t hostLinks = 0;
    uint32_t switchLinks = 0;
    for (const auto& l : t.links)
    {
        const bool host = !t.isSwitch[l.a] || !t.isSwitch[l.b];
        // 320 hosts at 100 Gb/s; 400 Gb/s between switches; 1 us per link.
        EXPECT_EQ(l.rate.GetBitRate(), host ? 100000000000ull : 400000000000ull) << l.line;
        EXPECT_EQ(l.delay, NanoSeconds(1000)) << l.line;
        EXPECT_EQ(l.errorRate, 0.0);
        hostLinks += host ? 1 : 0;
        switchLinks += host ? 0 : 1;
    }
    EXPECT_EQ(hostLinks, 320u);
    EXPECT_EQ(switchLinks, 160u);
    EXPECT_EQ(t.links[0].line, 3u);
}

TEST(HpccFormat, HostsAreTheNodesThatAreNotSwitches)
{
    // Switches 1 and 3 among five nodes: the hosts are 0, 2 and 4.
    const std::string path = Write("hosts",
                                   "5 2 4\n1 3\n0 1 100Gbps 1000ns 0\n2 1 100Gbps 1000ns 0\n"
                                   "2 3 100Gbps 1000ns 0\n4 3 100Gbps 1000ns 0\n");
    EXPECT_EQ(RoceHpccFormat::Hosts(RoceHpccFormat::ReadTopology(path)),
              (std::vector<uint32_t>{0, 2, 4}));
    std::remove(path.c_str());
    // The fat-tree lists its 56 switches after its 320 hosts.
    const std::vector<uint32_t> fatTree =
        RoceHpccFormat::Hosts(RoceHpccFormat::ReadTopology(TOPOLOGY));
    ASSERT_EQ(fatTree.size(), 320u);
    EXPECT_EQ(fatTree.front(), 0u);
    EXPECT_EQ(fatTree.back(), 319u);
}

TEST(HpccFormat, ReadsTheWebSearchFlows)
{
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(TOPOLOGY);
    const auto flows = RoceHpccFormat::ReadFlows(FLOWS, t);
    ASSERT_EQ(flows.size(), 6635u);
    // Line 2 of the file: "288 259 3 100 1295359 2.000001507".
    EXPECT_EQ(flows[0].src, 288u);
    EXPECT_EQ(flows[0].dst, 259u);
    EXPECT_EQ(flows[0].priority, 3u);
    EXPECT_EQ(flows[0].dport, 100u);
    EXPECT_EQ(flows[0].bytes, 1295359u);
    EXPECT_EQ(flows[0].start, NanoSeconds(2000001507));
    EXPECT_EQ(flows[0].line, 2u);
    uint64_t bytes = 0;
    for (const auto& f : flows)
    {
        EXPECT_LT(f.src, 320u);
        EXPECT_LT(f.dst, 320u);
        // 10 ms of arrivals from t = 2.0 s.
        EXPECT_GE(f.start, Seconds(2.0));
        EXPECT_LE(f.start, Seconds(2.01));
        bytes += f.bytes;
    }
    // 11.7 GB in all (data/README.md, to 3 digits).
    EXPECT_NEAR(bytes / 1e9, 11.7, 0.05);
}

TEST(HpccFormat, TopologyRoundTrip)
{
    // The HPCC fat-tree written and read back gives the same nodes, switches
    // and links (rates, delays and error rates to the bit).
    const RoceHpccFormat::Topology a = RoceHpccFormat::ReadTopology(TOPOLOGY);
    std::ostringstream text;
    RoceHpccFormat::WriteTopology(text, a);
    const RoceHpccFormat::Topology b = RoceHpccFormat::ReadTopology(Write("roundtrip", text.str()));
    EXPECT_EQ(b.nodes, a.nodes);
    EXPECT_EQ(b.switches, a.switches);
    ASSERT_EQ(b.links.size(), a.links.size());
    for (size_t i = 0; i < a.links.size(); ++i)
    {
        EXPECT_EQ(b.links[i].a, a.links[i].a);
        EXPECT_EQ(b.links[i].b, a.links[i].b);
        EXPECT_EQ(b.links[i].rate, a.links[i].rate);
        EXPECT_EQ(b.links[i].delay, a.links[i].delay);
        EXPECT_EQ(b.links[i].errorRate, a.links[i].errorRate);
    }
    // An error rate survives too.
    const auto c =
        RoceHpccFormat::ReadTopology(Write("err-rt", "3 1 1\n2\n0 2 25Gbps 1500ns 0.001\n"));
    std::ostringstream again;
    RoceHpccFormat::WriteTopology(again, c);
    EXPECT_EQ(again.str(), "3 1 1\n2\n0 2 25000000000bps 1500ns 0.001\n");
}

TEST(HpccFormatErrorTest, MalformedTopologies)
{
    EXPECT_ROCE_ERROR(
        RoceHpccFormat::ReadTopology(Write("fields", "3 1 2\n2\n0 2 100Gbps 1000ns\n")),
        "fields.txt:3: expected 5 fields \\(a b rate delay error_rate\\), found 4");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadTopology(Write("rate", "3 1 1\n2\n0 2 fast 1000ns 0\n")),
                      "rate.txt:3: rate 'fast' is not a positive rate");
    EXPECT_ROCE_ERROR(
        RoceHpccFormat::ReadTopology(Write("delay", "3 1 1\n2\n0 2 100Gbps soon 0\n")),
        "delay.txt:3: delay 'soon' is not a time");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadTopology(Write("err", "3 1 1\n2\n0 2 100Gbps 1us 1.5\n")),
                      "err.txt:3: error_rate '1.5' is not in \\[0, 1\\)");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadTopology(Write("end", "3 1 1\n2\n0 7 100Gbps 1us 0\n")),
                      "end.txt:3: link end b '7' is not a whole number of at most 2");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadTopology(Write("count", "3 1 3\n2\n0 2 100Gbps 1us 0\n")),
                      "count.txt: line 1 announces 3 links, the file has 1");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadTopology(Write("twice", "4 2 0\n2 2\n")),
                      "twice.txt:2: switch id 2 listed twice");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadTopology("/nonexistent/topology.txt"),
                      "/nonexistent/topology.txt: cannot be read");
    // The smallest good file reads.
    EXPECT_EQ(RoceHpccFormat::ReadTopology(Write("small", SMALL)).links.size(), 2u);
}

TEST(HpccFormatErrorTest, MalformedFlows)
{
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(Write("small", SMALL));
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadFlows(Write("sw", "1\n0 2 3 100 1000 2.0\n"), t),
                      "sw.txt:2: dst 2 is a switch, not a host");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadFlows(Write("self", "1\n1 1 3 100 1000 2.0\n"), t),
                      "self.txt:2: src and dst are both 1");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadFlows(Write("bytes", "1\n0 1 3 100 1e3 2.0\n"), t),
                      "bytes.txt:2: bytes '1e3' is not a whole number");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadFlows(Write("zero", "1\n0 1 3 100 0 2.0\n"), t),
                      "zero.txt:2: bytes '0' must be positive");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadFlows(Write("start", "1\n0 1 3 100 10 -1\n"), t),
                      "start.txt:2: start_seconds '-1' is negative");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadFlows(Write("prio", "1\n0 1 9 100 10 2\n"), t),
                      "prio.txt:2: priority '9' is not a whole number of at most 7");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadFlows(Write("n", "2\n0 1 3 100 10 2\n"), t),
                      "n.txt: line 1 announces 2 flows, the file has 1");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadFlows(Write("short", "1\n\n0 1 3 100 10\n"), t),
                      "short.txt:3: expected 6 fields");
    const auto ok = RoceHpccFormat::ReadFlows(Write("ok", "1\n\n0 1 3 100 10 2.5\n"), t);
    ASSERT_EQ(ok.size(), 1u);
    EXPECT_EQ(ok[0].start, MilliSeconds(2500));
    EXPECT_EQ(ok[0].line, 3u);
}

TEST(HpccFormatErrorTest, TopologyWithoutNodes)
{
    // Found by fuzzing (fuzz/corpus/hpcc-topology/bad-zero-nodes*.txt): with 0
    // nodes the id bound nodes - 1 wrapped around, so any link end was
    // accepted and the topology's users indexed past their per-node vectors.
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadTopology(Write("nonodes", "0 0 1\n\n5 6 1Gbps 1ns 0\n")),
                      "nonodes.txt:1: nodes '0': a topology needs a node");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadTopology(Write("nothing", "0 0 0\n")),
                      "nothing.txt:1: nodes '0'");
}

TEST(HpccFormatErrorTest, FlowCountBeyondMemory)
{
    // Found by fuzzing (fuzz/corpus/hpcc-flows/bad-flow-count-beyond-memory*.txt):
    // the vector was reserved for the count line 1 announces, 2^32 flows of
    // 40 bytes, before a line was read; it must be refused at the end instead.
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(Write("small", SMALL));
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadFlows(Write("huge", "4294967296\n0 1 3 100 10 2\n"), t),
                      "huge.txt: line 1 announces 4294967296 flows, the file has 1");
}

TEST(HpccFormatErrorTest, LongFieldsAndTimesBeyondRange)
{
    // Found by fuzzing: std::regex overflowed the stack on a delay field of
    // some 10^5 characters; a start time beyond ns-3's range wrapped around
    // to a negative time.
    const std::string delay(1000000, '1');
    EXPECT_ROCE_ERROR(
        RoceHpccFormat::ReadTopology(Write("longdelay", "3 1 1\n2\n0 2 1Gbps " + delay + "ns 0\n")),
        "longdelay.txt:3: delay '1+\\.\\.\\.' is not a time");
    EXPECT_ROCE_ERROR(
        RoceHpccFormat::ReadTopology(Write("bigdelay", "3 1 1\n2\n0 2 1Gbps 1e30s 0\n")),
        "bigdelay.txt:3: delay '1e30s' is beyond the simulator's");
    const RoceHpccFormat::Topology t = RoceHpccFormat::ReadTopology(Write("small", SMALL));
    EXPECT_ROCE_ERROR(
        RoceHpccFormat::ReadFlows(Write("late", "1\n0 1 3 100 2000 129500015870\n"), t),
        "late.txt:2: start_seconds '129500015870' is beyond the simulator's");
}

TEST(HpccFormatErrorTest, RoundTripIsExact)
{
    // Found by fuzzing (fuzz/corpus/hpcc-topology/bad-delay-beyond-exact-round-trip*.txt,
    // error-rate-nine-digits.txt): WriteTopology wrote error rates to 6
    // digits, and delays beyond 2^53 ns that ReadTopology reads back through
    // a double, so the topology read back differed.
    const auto t =
        RoceHpccFormat::ReadTopology(Write("nine", "3 1 1\n2\n0 2 1Gbps 1us 0.123456789\n"));
    std::ostringstream text;
    RoceHpccFormat::WriteTopology(text, t);
    const auto u = RoceHpccFormat::ReadTopology(Write("nine-again", text.str()));
    EXPECT_EQ(u.links[0].errorRate, 0.123456789) << text.str();
    EXPECT_ROCE_ERROR(
        RoceHpccFormat::ReadTopology(
            Write("longdelay", "3 1 1\n1\n0 2 1bps 1777777777777777us 0.5\n")),
        "longdelay.txt:3: delay '1777777777777777us' is longer than 2\\^53 time steps");
    EXPECT_ROCE_ERROR(RoceHpccFormat::ReadTopology(
                          Write("fastrate", "3 1 1\n2\n0 2 99999999999999999bps 1us 0\n")),
                      "fastrate.txt:3: rate '99999999999999999bps' is above 2\\^53 bit/s");
}
