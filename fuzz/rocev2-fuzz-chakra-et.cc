/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer harness of the Chakra execution-trace reader
 * (RoceChakraTrace::Read, rocev2-chakra-replay --et=FILE) and of the
 * conversion of an accepted trace into a replay graph
 * (RoceChakraReplayHelper::MakeGraph), as the trace of rank 0 and as a
 * trace replicated on every rank. An accepted trace must have unique node
 * ids and data dependencies on nodes of the file only; a graph must have the
 * trace's nodes, each with the trace's duration, and a critical path
 * (RoceReplayGraph::LongestPath over the durations) that is not negative.
 */

#include "rocev2-fuzz-common.h"

#include "ns3/roce-chakra-replay-helper.h"
#include "ns3/roce-chakra-trace.h"

#include <set>

using namespace ns3;

namespace
{

/** \brief Check an accepted trace. \param t the trace */
void
CheckTrace(const RoceChakraTrace& t)
{
    std::set<uint64_t> ids;
    size_t unresolved = 0;
    for (size_t i = 0; i < t.nodes.size(); ++i)
    {
        const RoceChakraNode& n = t.nodes[i];
        ROCE_FUZZ_CHECK(ids.insert(n.id).second, "node " << i << ": id " << n.id << " twice");
        ROCE_FUZZ_CHECK(t.IndexOf(n.id) == i, "node " << i << ": IndexOf(" << n.id << ")");
        ROCE_FUZZ_CHECK(n.type < RoceChakraNode::TYPE_COUNT, "node " << i);
        unresolved += n.unresolvedCtrlDeps.size();
    }
    for (const RoceChakraNode& n : t.nodes)
    {
        for (uint64_t d : n.dataDeps)
        {
            ROCE_FUZZ_CHECK(ids.count(d), "node id " << n.id << ": data dependency " << d);
        }
        for (uint64_t d : n.ctrlDeps)
        {
            ROCE_FUZZ_CHECK(ids.count(d), "node id " << n.id << ": control dependency " << d);
        }
    }
    ROCE_FUZZ_CHECK(unresolved == t.unresolvedCtrlDeps, unresolved << " unresolved");
}

/** \brief Check a replay graph of a trace. \param t the trace \param g its graph */
void
CheckGraph(const RoceChakraTrace& t, const Ptr<RoceReplayGraph>& g)
{
    ROCE_FUZZ_CHECK(g, "MakeGraph returned no graph");
    ROCE_FUZZ_CHECK(g->GetNNodes() == t.nodes.size(), g->GetNNodes() << " graph nodes");
    for (uint32_t i = 0; i < g->GetNNodes(); ++i)
    {
        ROCE_FUZZ_CHECK(!g->GetNode(i).duration.IsStrictlyNegative() &&
                            static_cast<uint64_t>(g->GetNode(i).duration.GetMicroSeconds()) ==
                                t.nodes[i].durationMicros,
                        "node id " << t.nodes[i].id << ": duration " << g->GetNode(i).duration
                                   << " (duration_micros " << t.nodes[i].durationMicros << ")");
    }
    const Time longest = g->LongestPath([&g](uint32_t i) { return g->GetNode(i).duration; });
    ROCE_FUZZ_CHECK(!longest.IsStrictlyNegative(), "longest path " << longest);
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    RoceFuzz::PlantedBug(data, size);
    static const RoceFuzz::RoceFuzzTempFile file("chakra-et", ".et");
    const std::string& path = file.Write(data, size);
    RoceChakraTrace t;
    if (!RoceFuzz::Accepts([&] { t = RoceChakraTrace::Read(path); }))
    {
        return 0;
    }
    CheckTrace(t);
    // The strict reading refuses exactly the traces with unresolved control dependencies.
    RoceChakraTrace strict;
    ROCE_FUZZ_CHECK(RoceChakraTrace::Read(path, strict, nullptr, true) ==
                        (t.unresolvedCtrlDeps == 0),
                    t.unresolvedCtrlDeps << " unresolved control dependencies");

    const std::pair<int32_t, RoceChakraReplayHelper::CtrlDeps> runs[] = {
        {0, RoceChakraReplayHelper::CTRL_AUTO},
        {-1, RoceChakraReplayHelper::CTRL_IGNORE}};
    for (const auto& run : runs)
    {
        Ptr<RoceReplayGraph> g;
        std::string note;
        const int32_t rank = run.first;
        if (RoceFuzz::Accepts([&] {
                g = RoceChakraReplayHelper::MakeGraph(t, path, rank, run.second, rank == 0, &note);
            }))
        {
            CheckGraph(t, g);
        }
    }
    return 0;
}
