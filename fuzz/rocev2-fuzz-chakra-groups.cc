/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer harness of the process-group file reader of the Chakra replay
 * (RoceChakraReplayHelper::SetGroupsFile, rocev2-chakra-replay
 * --groups=FILE: {"dp": [0, 1, 2, 3], ...}). The reader is private to the
 * helper, so each input goes through RoceChakraReplayHelper::Install, which
 * reads the group file first, for a job of RANKS ranks on a zone of RANKS
 * one-GPU servers built once, with a trace that holds its metadata only (so
 * nothing else is read or built but one replay application per rank). The
 * zone is built again, after Simulator::Destroy, every REBUILD_EVERY inputs,
 * which drops the applications the inputs before added.
 */

#include "rocev2-fuzz-common.h"

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-chakra-replay-helper.h"
#include "ns3/simulator.h"

#include <memory>

using namespace ns3;

namespace
{

/** The ranks of the job: groups must name ranks 0 to RANKS - 1. */
constexpr uint32_t RANKS = 4;

/** Inputs between two rebuilds of the zone. */
constexpr uint32_t REBUILD_EVERY = 1000;

/** \return a zone of RANKS one-GPU servers, one per rack */
std::unique_ptr<RoceAiZone>
BuildZone()
{
    RoceAiZoneHelper h;
    h.SetGpusPerServer(1);
    h.SetServersPerRack(1);
    h.SetGpus(RANKS);
    h.SetUplinks(2);
    h.SetCtsws(2);
    return std::make_unique<RoceAiZone>(h.Build());
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    RoceFuzz::PlantedBug(data, size);
    static const RoceFuzz::RoceFuzzTempFile groups("chakra-groups", ".json");
    // A trace of one empty GlobalMetadata message (length 0) and no node.
    static const RoceFuzz::RoceFuzzTempFile trace("chakra-groups-trace", ".et");
    static const uint8_t metadataOnly[] = {0};
    static const std::string tracePath = trace.Write(metadataOnly, sizeof(metadataOnly));
    static std::unique_ptr<RoceAiZone> zone;
    static uint32_t inputs = 0;
    if (!zone || ++inputs % REBUILD_EVERY == 0)
    {
        zone.reset();
        Simulator::Destroy();
        zone = BuildZone();
    }
    std::vector<uint32_t> gpus(RANKS);
    for (uint32_t r = 0; r < RANKS; ++r)
    {
        gpus[r] = r;
    }
    RoceChakraReplayHelper replay;
    replay.SetGroupsFile(groups.Write(data, size));
    RoceFuzz::Accepts([&] { replay.Install(*zone, gpus, {tracePath}); });
    return 0;
}
