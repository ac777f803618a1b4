/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer harness of the HPCC-lineage flow file reader
 * (RoceHpccFormat::ReadFlows), against the topology of
 * examples/hpcc/tiny-topology.txt (hosts 0 to 5, switches 6, 7 and 8). An
 * accepted flow must run between two distinct hosts of that topology, at a
 * priority of 0 to 7, with a positive size and a start time that is not
 * negative.
 */

#include "rocev2-fuzz-hpcc.h"

#include "ns3/roce-hpcc-format.h"

using namespace ns3;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    RoceFuzz::PlantedBug(data, size);
    static const RoceFuzz::RoceFuzzTempFile file("hpcc-flows", ".txt");
    const RoceHpccFormat::Topology& t = RoceFuzz::TinyTopology();
    std::vector<RoceHpccFormat::Flow> flows;
    if (!RoceFuzz::Accepts([&] { flows = RoceHpccFormat::ReadFlows(file.Write(data, size), t); }))
    {
        return 0;
    }
    for (const auto& f : flows)
    {
        ROCE_FUZZ_CHECK(f.src < t.nodes && f.dst < t.nodes && f.src != f.dst &&
                            !t.isSwitch[f.src] && !t.isSwitch[f.dst],
                        "line " << f.line << ": " << f.src << " -> " << f.dst);
        ROCE_FUZZ_CHECK(f.priority <= 7, "line " << f.line);
        ROCE_FUZZ_CHECK(f.bytes > 0, "line " << f.line);
        ROCE_FUZZ_CHECK(!f.start.IsStrictlyNegative(), "line " << f.line << ": start " << f.start);
    }
    return 0;
}
