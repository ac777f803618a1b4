/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceChakraReplayHelper on forged traces: how each node type and comm_type
 * maps, control dependencies (auto, use, ignore) and stream order, and the
 * errors, each naming the file and the node: a truncated trace, an unknown
 * or invalid node type, a pg_name missing from the groups file, a bad groups
 * file (FILE:LINE:COLUMN), point-to-point nodes in a replicated trace, a
 * trace that sends as another rank; and a send without a matching receive,
 * reported after the run instead of hanging.
 */

#include "roce-chakra-forge.h"
#include "roce-gtest-error.h"

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-chakra-replay-helper.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <numeric>
#include <sys/stat.h>

using namespace ns3;
using namespace ns3::chakraforge;

namespace
{

const std::string SYNTHETIC = "data/chakra/synthetic-8/chakra.";

/** \return an attribute field (AttributeProto in Node.attr = 10) of an int64 value */
std::string
IntAttr(const std::string& name, int64_t v)
{
    return Field(10, Field(1, name) + VarintField(9, static_cast<uint64_t>(v)));
}

/** \return an attribute field of an int32 value */
std::string
Int32Attr(const std::string& name, int32_t v)
{
    return Field(10, Field(1, name) + VarintField(7, static_cast<uint64_t>(int64_t(v))));
}

/** \return an attribute field of a string value */
std::string
StringAttr(const std::string& name, const std::string& v)
{
    return Field(10, Field(1, name) + Field(29, v));
}

/** \return an attribute field of a bool value */
std::string
BoolAttr(const std::string& name, bool v)
{
    return Field(10, Field(1, name) + VarintField(27, v ? 1 : 0));
}

/** \return the framed metadata message of the synthetic traces */
std::string
Metadata()
{
    const std::string file = Bytes(SYNTHETIC + "0.et");
    return file.substr(0, Frames(file)[1].prefix);
}

/** \return a framed GPU-side collective node */
std::string
Collective(uint64_t id,
           int64_t commType,
           int64_t bytes,
           const std::string& pg = "",
           const std::vector<uint64_t>& deps = {})
{
    return ForgedNode(id,
                      RoceChakraNode::COMM_COLL,
                      deps,
                      {},
                      IntAttr("comm_type", commType) + IntAttr("comm_size", bytes) +
                          (pg.empty() ? "" : StringAttr("pg_name", pg)));
}

/** \return a framed GPU kernel of `us` microseconds */
std::string
Kernel(uint64_t id, uint64_t us, const std::vector<uint64_t>& deps = {})
{
    std::string m = VarintField(1, id) + Field(2, "kernel") + VarintField(3, RoceChakraNode::COMP) +
                    VarintField(7, us);
    std::string packed;
    for (uint64_t d : deps)
    {
        packed += Varint(d);
    }
    m += deps.empty() ? "" : Field(5, packed);
    return Varint(m.size()) + m;
}

/** A folder of per-rank traces (chakra.<r>.et), removed at the end of the test. */
class TempTraceSet
{
  public:
    /** \param files the content of each rank's file */
    explicit TempTraceSet(const std::vector<std::string>& files)
    {
        static int count = 0;
        m_dir =
            "/tmp/rocev2-chakra-set-" + std::to_string(getpid()) + "-" + std::to_string(count++);
        mkdir(m_dir.c_str(), 0755);
        for (std::size_t r = 0; r < files.size(); ++r)
        {
            m_files.push_back(m_dir + "/chakra." + std::to_string(r) + ".et");
            std::ofstream(m_files.back(), std::ios::binary) << files[r];
        }
    }

    ~TempTraceSet()
    {
        for (const std::string& f : m_files)
        {
            std::remove(f.c_str());
        }
        rmdir(m_dir.c_str());
    }

    /** \return the folder */
    const std::string& Dir() const
    {
        return m_dir;
    }

    /** \return the files, in rank order */
    const std::vector<std::string>& Files() const
    {
        return m_files;
    }

  private:
    std::string m_dir;
    std::vector<std::string> m_files;
};

/** A text file in the temporary folder, removed at the end of the test. */
class TempText
{
  public:
    /** \param text its content */
    explicit TempText(const std::string& text)
    {
        static int count = 0;
        m_path = "/tmp/rocev2-groups-" + std::to_string(getpid()) + "-" + std::to_string(count++) +
                 ".json";
        std::ofstream(m_path) << text;
    }

    ~TempText()
    {
        std::remove(m_path.c_str());
    }

    /** \return its path */
    const std::string& Path() const
    {
        return m_path;
    }

  private:
    std::string m_path;
};

/** \return a non-blocking zone of `gpus` one-GPU servers */
RoceAiZone
Zone(uint32_t gpus)
{
    RoceAiZoneHelper h;
    h.SetGpusPerServer(1);
    h.SetServersPerRack(1);
    h.SetGpus(gpus);
    h.SetUplinks(4);
    h.SetCtsws(4);
    return h.Build();
}

/** \return 0, 1, ..., n-1 */
std::vector<uint32_t>
Ranks(uint32_t n)
{
    std::vector<uint32_t> v(n);
    std::iota(v.begin(), v.end(), 0);
    return v;
}

/** \brief Install a replay of these traces (and groups file) on one-GPU servers. */
void
Install(const std::vector<std::string>& paths, uint32_t ranks, const std::string& groups = "")
{
    RoceAiZone z = Zone(ranks);
    RoceChakraReplayHelper replay;
    replay.SetGroupsFile(groups);
    replay.Install(z, Ranks(ranks), paths);
}

} // namespace

TEST(ChakraReplay, EveryCommTypeRuns)
{
    // One node of each comm_type 0..9 in a chain, replicated on 4 ranks.
    std::string file = Metadata();
    for (int t = 0; t <= 9; ++t)
    {
        file += Collective(100 + t,
                           t,
                           1000 + t,
                           "",
                           t == 0 ? std::vector<uint64_t>{} : std::vector<uint64_t>{99u + t});
    }
    TempTrace trace(file);
    RoceAiZone z = Zone(4);
    RoceChakraReplayHelper replay;
    Ptr<RoceReplayJob> job = replay.Install(z, Ranks(4), {trace.Path()});
    Simulator::Run();
    EXPECT_TRUE(job->IsFinished());
    const std::vector<RoceReplayJob::CollectiveResult> c = job->GetCollectives();
    ASSERT_EQ(c.size(), 10u);
    const RoceCollective::Op op[] = {RoceCollective::ALL_REDUCE,
                                     RoceCollective::BROADCAST,
                                     RoceCollective::ALL_GATHER,
                                     RoceCollective::ALL_GATHER,
                                     RoceCollective::REDUCE_SCATTER,
                                     RoceCollective::BROADCAST,
                                     RoceCollective::ALL_TO_ALL,
                                     RoceCollective::REDUCE_SCATTER,
                                     RoceCollective::REDUCE_SCATTER,
                                     RoceCollective::ALL_REDUCE};
    for (int t = 0; t <= 9; ++t)
    {
        SCOPED_TRACE("comm_type " + std::to_string(t));
        EXPECT_EQ(c[t].commType, t);
        EXPECT_EQ(c[t].op, op[t]);
        EXPECT_GT(c[t].finish, c[t].start);
        // A chain: each starts once the previous one has finished.
        EXPECT_TRUE(t == 0 || c[t].start >= c[t - 1].finish);
    }
    EXPECT_EQ(c[9].bytes, 0u) << "a barrier moves no data of its own";
    EXPECT_EQ(c[9].runBytes, 4u) << "it runs as an AllReduce of one byte per rank";
    EXPECT_EQ(c[2].runBytes, 1004u) << "an AllGather of 1002 B on 4 ranks runs 4 x 251 B";
    Simulator::Destroy();
}

TEST(ChakraReplay, ControlDependenciesAndStreamOrder)
{
    // A kernel, then a collective whose only dependency is a control one
    // back to a later kernel that depends on it: a cycle through control.
    const std::string file = Metadata() + Kernel(1, 50) +
                             ForgedNode(2,
                                        RoceChakraNode::COMM_COLL,
                                        {},
                                        {3},
                                        IntAttr("comm_type", 0) + IntAttr("comm_size", 4096)) +
                             Kernel(3, 20, {2});
    TempTrace trace(file);
    const RoceChakraTrace t = RoceChakraTrace::Read(trace.Path());
    std::string note;
    Ptr<RoceReplayGraph> g = RoceChakraReplayHelper::MakeGraph(t,
                                                               trace.Path(),
                                                               -1,
                                                               RoceChakraReplayHelper::CTRL_AUTO,
                                                               true,
                                                               &note);
    EXPECT_EQ(note,
              trace.Path() + ": control dependencies left out, as the dependencies make a "
                             "cycle: id 2 -> id 3 -> id 2 (2 nodes can never run) (converted "
                             "PyTorch traces name each operator's enclosing operator in them)");
    // Stream order: the collective waits for the kernel before it.
    ASSERT_EQ(g->GetNDeps(1), 1u);
    EXPECT_EQ(*g->DependantsBegin(0), 1u);
    Ptr<RoceReplayGraph> free =
        RoceChakraReplayHelper::MakeGraph(t,
                                          trace.Path(),
                                          -1,
                                          RoceChakraReplayHelper::CTRL_IGNORE,
                                          false,
                                          &note);
    EXPECT_EQ(free->GetNDeps(1), 0u) << "no stream order: the collective waits for nothing";
    EXPECT_ROCE_ERROR(RoceChakraReplayHelper::MakeGraph(t,
                                                        trace.Path(),
                                                        -1,
                                                        RoceChakraReplayHelper::CTRL_USE,
                                                        true,
                                                        nullptr),
                      "the dependencies make a cycle: id 2 -> id 3 -> id 2 .*with control "
                      "dependencies left out \\(ignore\\) the trace may still replay");
}

TEST(ChakraReplay, UnmatchedSendIsReportedAfterTheRun)
{
    // synthetic-8 with one more send on rank 3 (to rank 4, tag 9) that no
    // receive matches.
    std::vector<std::string> files;
    for (int r = 0; r < 8; ++r)
    {
        files.push_back(Bytes(SYNTHETIC + std::to_string(r) + ".et"));
    }
    files[3] += ForgedNode(11,
                           RoceChakraNode::COMM_SEND,
                           {10},
                           {},
                           Int32Attr("comm_src", 3) + Int32Attr("comm_dst", 4) +
                               Int32Attr("comm_tag", 9) + IntAttr("comm_size", 4096));
    TempTraceSet set(files);
    EXPECT_EQ(RoceChakraReplayHelper::CountTraces(set.Dir()), 8u);
    RoceAiZone z = Zone(8);
    RoceChakraReplayHelper replay;
    Ptr<RoceReplayJob> job =
        replay.Install(z, Ranks(8), RoceChakraReplayHelper::TracePaths(set.Dir(), 8, false));
    Simulator::Run();
    EXPECT_FALSE(job->IsFinished());
    const std::vector<std::string> p = job->GetProblems();
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0],
              "unmatched send: rank 3 node id 11 'forged' sends 4096 B to rank 4 with tag 9; "
              "rank 4 never had a matching receive ready");
    EXPECT_EQ(p[1],
              "rank 3: 1 of 11 nodes never completed; first in flight: rank 3 node id 11 "
              "'forged' (SEND)");
    for (uint32_t r = 0; r < 8; ++r)
    {
        EXPECT_EQ(job->GetApp(r)->GetNodesExecuted(), 10u) << "rank " << r;
    }
    Simulator::Destroy();
}

TEST(ChakraReplayErrorTest, ErrorsNameTheFileAndTheNode)
{
    const std::string file = Bytes(SYNTHETIC + "0.et");
    const std::vector<Frame> f = Frames(file);

    // Truncated inside node 4.
    TempTrace cut(file.substr(0, f[5].payload + 3));
    EXPECT_ROCE_ERROR(Install({cut.Path()}, 2),
                      cut.Path() + ": node 4 at byte offset " + std::to_string(f[5].prefix) +
                          ": message length [0-9]+ at byte [0-9]+ runs past the end of the file");

    // An unknown node type, and the invalid one.
    TempTrace type42(Metadata() + ForgedNode(1, 42));
    EXPECT_ROCE_ERROR(Install({type42.Path()}, 2), "node id 1 has unknown node type 42");
    TempTrace invalid(Metadata() + ForgedNode(1, RoceChakraNode::INVALID));
    EXPECT_ROCE_ERROR(Install({invalid.Path()}, 2),
                      invalid.Path() +
                          ": node 0 \\(id 1 'forged'\\): node type INVALID_NODE \\(0\\) cannot be "
                          "replayed");

    // comm_type out of range, and a collective without comm_size.
    TempTrace type12(Metadata() + Collective(1, 12, 100));
    EXPECT_ROCE_ERROR(Install({type12.Path()}, 2), "comm_type UNKNOWN\\(12\\) cannot be replayed");
    TempTrace noSize(Metadata() +
                     ForgedNode(1, RoceChakraNode::COMM_COLL, {}, {}, IntAttr("comm_type", 0)));
    EXPECT_ROCE_ERROR(Install({noSize.Path()}, 2), "COMM_COLL_NODE without comm_size");

    // A pg_name the groups file does not define.
    TempTrace tp(Metadata() + Collective(1, 0, 4096, "tp"));
    TempText groups("{\n  \"dp\": [0, 1]\n}\n");
    EXPECT_ROCE_ERROR(Install({tp.Path()}, 2, groups.Path()),
                      tp.Path() + ": pg_name 'tp' is not a group of " + groups.Path() +
                          " \\(it defines: dp\\)");
    // A groups file with a rank outside the job, with its line and column.
    TempText badRank("{\n  \"tp\": [0,\n         5]\n}\n");
    EXPECT_ROCE_ERROR(Install({tp.Path()}, 2, badRank.Path()),
                      badRank.Path() + ":3:10: field \"tp\" \\(/tp\\): rank 5 is not a rank of the "
                                       "2-rank job \\(0 to 1\\)");

    // Point-to-point nodes in a replicated trace; a trace sending as another rank.
    const std::string send =
        ForgedNode(1,
                   RoceChakraNode::COMM_SEND,
                   {},
                   {},
                   Int32Attr("comm_src", 0) + Int32Attr("comm_dst", 1) + IntAttr("comm_size", 64));
    TempTrace p2p(Metadata() + send);
    EXPECT_ROCE_ERROR(Install({p2p.Path()}, 2),
                      "COMM_SEND_NODE: point-to-point nodes name fixed ranks, so a trace with them "
                      "cannot be replicated");
    TempTraceSet wrongRank({Metadata(), Metadata() + send});
    EXPECT_ROCE_ERROR(
        Install(wrongRank.Files(), 2),
        "chakra.1.et: node 0 \\(id 1 'forged'\\): comm_src 0 but this is the trace of "
        "rank 1");

    // A rank's file missing from a set; a CPU-side send is only a CPU operator.
    EXPECT_ROCE_ERROR(RoceChakraReplayHelper::TracePaths(wrongRank.Dir(), 3, false),
                      "chakra.2.et: no trace for rank 2 of 3");
    TempTrace cpuSend(
        Metadata() + ForgedNode(1, RoceChakraNode::COMM_SEND, {}, {}, BoolAttr("is_cpu_op", true)));
    const RoceChakraTrace t = RoceChakraTrace::Read(cpuSend.Path());
    EXPECT_EQ(RoceChakraReplayHelper::MakeGraph(t,
                                                cpuSend.Path(),
                                                -1,
                                                RoceChakraReplayHelper::CTRL_AUTO,
                                                true,
                                                nullptr)
                  ->GetNode(0)
                  .kind,
              RoceReplayGraph::CPU);
}

TEST(ChakraReplayErrorTest, GroupsFileNumberBeyondADouble)
{
    // Found by fuzzing (fuzz/corpus/chakra-groups/bad-number-beyond-a-double*.json):
    // nlohmann-json's out_of_range for a number beyond a double escaped the
    // groups file reader instead of a RoceError naming the file and position.
    TempTrace tp(Metadata() + Collective(1, 0, 4096, "tp"));
    TempText groups("{\"tp\": [0,\n  1e999]}\n");
    EXPECT_ROCE_ERROR(Install({tp.Path()}, 2, groups.Path()),
                      groups.Path() + ":2:3: JSON value out of range: .*number overflow parsing "
                                      "'1e999'");
}

TEST(ChakraReplayErrorTest, DurationsBeyondTheTimeRange)
{
    // Found by fuzzing (fuzz/corpus/chakra-et/bad-duration*.et): a duration
    // beyond ns-3's time range wrapped around when made a Time, and durations
    // that add up beyond it overflowed the critical path
    // (RoceReplayGraph::LongestPath, undefined behaviour).
    const uint64_t quarter = (uint64_t{1} << 62) / 1000; // 4.6e15 us: three pass 2^63 ns
    TempTrace chain(Metadata() + Kernel(1, quarter) + Kernel(2, quarter, {1}) +
                    Kernel(3, quarter, {2}));
    const RoceChakraTrace c = RoceChakraTrace::Read(chain.Path());
    EXPECT_ROCE_ERROR(
        RoceChakraReplayHelper::MakeGraph(c,
                                          chain.Path(),
                                          0,
                                          RoceChakraReplayHelper::CTRL_AUTO,
                                          true,
                                          nullptr),
        "node 2 \\(id 3 'kernel'\\): duration_micros 4611686018427387 takes the trace's "
        "durations beyond the simulator's");
    TempTrace one(Metadata() + Kernel(1, uint64_t{1} << 62));
    const RoceChakraTrace o = RoceChakraTrace::Read(one.Path());
    EXPECT_ROCE_ERROR(RoceChakraReplayHelper::MakeGraph(o,
                                                        one.Path(),
                                                        -1,
                                                        RoceChakraReplayHelper::CTRL_IGNORE,
                                                        false,
                                                        nullptr),
                      "node 0 \\(id 1 'kernel'\\): duration_micros 4611686018427387904");
}
