/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceChakraTrace reads Chakra execution traces (data/chakra): the synthetic
 * 8-rank traces and a real PyTorch data-parallel iteration parse with the
 * node counts, types, sizes and dependencies read off the files, and
 * truncated, corrupted or forged files are refused with the file, the node
 * index and the byte offset.
 */

#include "roce-chakra-forge.h"
#include "roce-gtest-error.h"

#include "ns3/roce-chakra-trace.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::chakraforge;

namespace
{

const std::string SYNTHETIC = "data/chakra/synthetic-8/chakra.";
const std::string PYTORCH = "data/chakra/pytorch-ddp/chakra.0.et";

} // namespace

TEST(ChakraTrace, SyntheticEightRanks)
{
    for (int r = 0; r < 8; ++r)
    {
        SCOPED_TRACE("rank " + std::to_string(r));
        const RoceChakraTrace t = RoceChakraTrace::Read(SYNTHETIC + std::to_string(r) + ".et");
        EXPECT_EQ(t.version, "0.0.4");
        ASSERT_EQ(t.nodes.size(), 10u);
        EXPECT_EQ(t.CountType(RoceChakraNode::COMM_SEND), 2u);
        EXPECT_EQ(t.CountType(RoceChakraNode::COMM_RECV), 2u);
        EXPECT_EQ(t.CountType(RoceChakraNode::COMP), 2u);
        EXPECT_EQ(t.CountType(RoceChakraNode::COMM_COLL), 4u);
        EXPECT_EQ(t.unresolvedCtrlDeps, 0u);
        for (int it = 0; it < 2; ++it)
        {
            // Per iteration: send, recv, comp (after both), AllReduce 4 MiB, AllReduce 16 MiB.
            const uint64_t base = 1 + 5 * it;
            const RoceChakraNode* send = t.Find(base);
            const RoceChakraNode* recv = t.Find(base + 1);
            const RoceChakraNode* comp = t.Find(base + 2);
            const RoceChakraNode* ar4 = t.Find(base + 3);
            const RoceChakraNode* ar16 = t.Find(base + 4);
            ASSERT_TRUE(send && recv && comp && ar4 && ar16);
            EXPECT_EQ(send->type, RoceChakraNode::COMM_SEND);
            EXPECT_EQ(send->commSrc, r);
            EXPECT_EQ(send->commDst, (r + 1) % 8);
            EXPECT_EQ(send->commTag, it);
            EXPECT_EQ(send->commSize, 1 << 20);
            EXPECT_EQ(recv->type, RoceChakraNode::COMM_RECV);
            EXPECT_EQ(recv->commSrc, (r + 7) % 8);
            EXPECT_EQ(recv->commDst, r);
            EXPECT_EQ(recv->commTag, it);
            EXPECT_EQ(recv->commSize, 1 << 20);
            EXPECT_EQ(comp->type, RoceChakraNode::COMP);
            EXPECT_EQ(comp->durationMicros, 200u);
            EXPECT_EQ(comp->dataDeps, (std::vector<uint64_t>{base, base + 1}));
            EXPECT_EQ(ar4->commType, RoceChakraNode::ALL_REDUCE);
            EXPECT_EQ(ar4->commSize, 4 << 20);
            EXPECT_EQ(ar4->dataDeps, std::vector<uint64_t>{base + 2});
            EXPECT_EQ(ar16->commType, RoceChakraNode::ALL_REDUCE);
            EXPECT_EQ(ar16->commSize, 16 << 20);
            EXPECT_EQ(ar16->dataDeps, std::vector<uint64_t>{base + 3});
            EXPECT_EQ(send->dataDeps, it == 0 ? std::vector<uint64_t>{} : std::vector<uint64_t>{5});
        }
        for (const RoceChakraNode& n : t.nodes)
        {
            EXPECT_FALSE(n.isCpuOp);
            for (uint64_t d : n.dataDeps)
            {
                EXPECT_NE(t.IndexOf(d), RoceChakraTrace::NPOS) << "node " << n.id << " dep " << d;
                EXPECT_LT(t.IndexOf(d), t.IndexOf(n.id)) << "dependencies come first";
            }
        }
    }
}

TEST(ChakraTrace, PytorchDataParallelIteration)
{
    const RoceChakraTrace t = RoceChakraTrace::Read(PYTORCH);
    ASSERT_EQ(t.nodes.size(), 3664u);
    EXPECT_EQ(t.CountType(RoceChakraNode::COMP), 3643u);
    EXPECT_EQ(t.CountType(RoceChakraNode::COMM_COLL), 21u);
    ASSERT_TRUE(t.Find(216));
    EXPECT_EQ(t.Find(216)->name, "aten::flatten_dense_tensors(0)");
    EXPECT_EQ(t.attrs.size(), 5u);

    std::size_t gpuComp = 0;
    std::size_t cpuColl = 0;
    uint64_t gpuComputeUs = 0;
    std::vector<int64_t> allReduce;
    std::vector<int64_t> broadcast;
    for (const RoceChakraNode& n : t.nodes)
    {
        for (uint64_t d : n.dataDeps)
        {
            EXPECT_NE(t.IndexOf(d), RoceChakraTrace::NPOS) << "node " << n.id << " dep " << d;
        }
        for (uint64_t d : n.ctrlDeps)
        {
            EXPECT_NE(t.IndexOf(d), RoceChakraTrace::NPOS) << "node " << n.id << " ctrl " << d;
        }
        if (n.type == RoceChakraNode::COMP && !n.isCpuOp)
        {
            ++gpuComp;
            gpuComputeUs += n.durationMicros;
        }
        if (n.type != RoceChakraNode::COMM_COLL)
        {
            continue;
        }
        if (n.isCpuOp)
        {
            ++cpuColl;
            continue;
        }
        EXPECT_TRUE(n.FindAttribute("involved_dim")) << "unknown attributes are kept";
        if (n.commType == RoceChakraNode::ALL_REDUCE)
        {
            allReduce.push_back(n.commSize);
        }
        else if (n.commType == RoceChakraNode::BROADCAST)
        {
            broadcast.push_back(n.commSize);
        }
        else
        {
            ADD_FAILURE() << "GPU-side collective " << n.id << " of type " << n.commType;
        }
    }
    EXPECT_EQ(gpuComp, 1209u);
    EXPECT_EQ(gpuComputeUs, 292828u); // ~293 ms of GPU kernels (data/README.md)
    EXPECT_EQ(cpuColl, 14u);
    EXPECT_EQ(allReduce, (std::vector<int64_t>{8196000, 31502336, 26255360, 26550272, 9724160}));
    int64_t total = 0;
    for (int64_t s : allReduce)
    {
        total += s;
    }
    EXPECT_EQ(total, 102228128);
    EXPECT_EQ(broadcast, (std::vector<int64_t>{212480, 424}));

    // The converter leaves out the parent operators that some control
    // dependencies name: 1,277 of them, none a data dependency.
    EXPECT_EQ(t.unresolvedCtrlDeps, 1277u);
    ASSERT_EQ(t.nodes[0].unresolvedCtrlDeps, std::vector<uint64_t>{3});
    EXPECT_TRUE(t.nodes[0].ctrlDeps.empty());
    RoceChakraTrace strict;
    std::string error;
    EXPECT_FALSE(RoceChakraTrace::Read(PYTORCH, strict, &error, true));
    EXPECT_EQ(error,
              PYTORCH + ": node 0 at byte offset 95: node id 216 has a control dependency on "
                        "node id 3, which is not in the file");
}

TEST(ChakraTrace, TruncatedFiles)
{
    const std::string file = Bytes(SYNTHETIC + "0.et");
    const std::vector<Frame> f = Frames(file);
    ASSERT_EQ(f.size(), 11u);

    // Inside the length varint of a node: a file ending in a continuation byte.
    TempTrace varint(file + "\x80");
    EXPECT_EQ(varint.Error(),
              varint.Path() + ": node 10 at byte offset " + std::to_string(file.size()) +
                  ": truncated length varint (file ends at byte " +
                  std::to_string(file.size() + 1) + ")");

    // Inside a message, at several places.
    for (std::size_t k : {1, 4, 9})
    {
        const Frame& fr = f[k + 1];
        const std::size_t cut = fr.payload + fr.length / 2;
        TempTrace t(file.substr(0, cut));
        EXPECT_EQ(t.Error(),
                  t.Path() + ": node " + std::to_string(k) + " at byte offset " +
                      std::to_string(fr.prefix) + ": message length " + std::to_string(fr.length) +
                      " at byte " + std::to_string(fr.payload) +
                      " runs past the end of the file (" + std::to_string(cut) + " bytes)");
    }
    // Inside the metadata, and empty.
    TempTrace meta(file.substr(0, 3));
    EXPECT_EQ(meta.Error().rfind(meta.Path() + ": metadata at byte offset 0: message length ", 0),
              0u)
        << meta.Error();
    TempTrace empty("");
    EXPECT_EQ(empty.Error(),
              empty.Path() + ": metadata at byte offset 0: empty file: no "
                             "GlobalMetadata");
    // A metadata-only file reads, with no node.
    TempTrace metaOnly(file.substr(0, f[1].prefix));
    EXPECT_EQ(metaOnly.Error(), "");

    // The real trace, cut inside a two-byte length varint.
    const std::string real = Bytes(PYTORCH);
    const std::vector<Frame> rf = Frames(real);
    ASSERT_EQ(rf.size(), 3665u);
    std::size_t k = 1;
    while (rf[k].payload - rf[k].prefix < 2)
    {
        ++k;
    }
    TempTrace realVarint(real.substr(0, rf[k].prefix + 1));
    EXPECT_EQ(realVarint.Error(),
              realVarint.Path() + ": node " + std::to_string(k - 1) + " at byte offset " +
                  std::to_string(rf[k].prefix) + ": truncated length varint (file ends at byte " +
                  std::to_string(rf[k].prefix + 1) + ")");
}

TEST(ChakraTrace, CorruptedMessage)
{
    std::string file = Bytes(SYNTHETIC + "0.et");
    const std::vector<Frame> f = Frames(file);
    // Node 2's first tag byte becomes field 0 with wire type 7: no valid message has it.
    file[f[3].payload] = '\x07';
    TempTrace t(file);
    EXPECT_EQ(t.Error(),
              t.Path() + ": node 2 at byte offset " + std::to_string(f[3].prefix) +
                  ": not a valid Node message (" + std::to_string(f[3].length) + " bytes)");
    // And the metadata's.
    std::string meta = Bytes(SYNTHETIC + "0.et");
    meta[f[0].payload] = '\x07';
    TempTrace m(meta);
    EXPECT_EQ(m.Error(),
              m.Path() +
                  ": metadata at byte offset 0: not a valid GlobalMetadata "
                  "message (" +
                  std::to_string(f[0].length) + " bytes)");
}

TEST(ChakraTrace, ForgedNodes)
{
    const std::string file = Bytes(SYNTHETIC + "0.et");
    const std::string at = " at byte offset " + std::to_string(file.size()) + ": ";

    TempTrace type99(file + ForgedNode(11, 99));
    EXPECT_EQ(type99.Error(),
              type99.Path() + ": node 10" + at +
                  "node id 11 has unknown node type 99 (known: 0..7)");

    TempTrace missing(file + ForgedNode(11, RoceChakraNode::COMP, {3, 42}));
    EXPECT_EQ(missing.Error(),
              missing.Path() + ": node 10" + at +
                  "node id 11 has a data dependency on node id 42, which is "
                  "not in the file");

    TempTrace duplicate(file + ForgedNode(3, RoceChakraNode::COMP));
    EXPECT_EQ(duplicate.Error(),
              duplicate.Path() + ": node 10" + at + "duplicate node id 3 (first at node 2)");

    // comm_size given as a string.
    const std::string badAttr = Field(10, Field(1, "comm_size") + Field(29, "big"));
    TempTrace kind(file + ForgedNode(11, RoceChakraNode::COMM_COLL, {}, {}, badAttr));
    EXPECT_EQ(kind.Error(),
              kind.Path() + ": node 10" + at +
                  "node id 11: attribute 'comm_size' is a string, expected an "
                  "integer");

    // A control dependency on an absent id: kept aside, or an error if strict.
    TempTrace ctrl(file + ForgedNode(11, RoceChakraNode::COMP, {10}, {5, 77}));
    EXPECT_EQ(ctrl.Error(), "");
    EXPECT_EQ(ctrl.Error(true),
              ctrl.Path() + ": node 10" + at +
                  "node id 11 has a control dependency on node id 77, which "
                  "is not in the file");
    const RoceChakraTrace t = RoceChakraTrace::Read(ctrl.Path());
    EXPECT_EQ(t.unresolvedCtrlDeps, 1u);
    EXPECT_EQ(t.nodes.back().ctrlDeps, std::vector<uint64_t>{5});
    EXPECT_EQ(t.nodes.back().unresolvedCtrlDeps, std::vector<uint64_t>{77});

    // Unknown attributes and unknown fields are kept or skipped, not errors.
    const std::string extra = Field(10, Field(1, "my_attr") + VarintField(13, 7)) +
                              Field(10, Field(1, "comm_src") + VarintField(7, 3)) +
                              VarintField(50, 1);
    TempTrace unknown(file + ForgedNode(11, RoceChakraNode::COMM_SEND, {}, {}, extra));
    const RoceChakraTrace u = RoceChakraTrace::Read(unknown.Path());
    const RoceChakraValue* v = u.nodes.back().FindAttribute("my_attr");
    ASSERT_TRUE(v);
    EXPECT_EQ(std::get<uint64_t>(*v), 7u);
    EXPECT_EQ(u.nodes.back().commSrc, 3);
    EXPECT_EQ(u.nodes.back().commDst, -1);
}

TEST(ChakraTraceErrorTest, ReadAbortsNamingFileNodeAndOffset)
{
    const std::string file = Bytes(SYNTHETIC + "0.et");
    TempTrace type99(file + ForgedNode(11, 99));
    EXPECT_ROCE_ERROR(RoceChakraTrace::Read(type99.Path()),
                      "node 10 at byte offset 748: node id 11 has unknown node type 99");
    EXPECT_ROCE_ERROR(RoceChakraTrace::Read("data/chakra/no-such.et"),
                      "data/chakra/no-such.et: cannot be read");
}
