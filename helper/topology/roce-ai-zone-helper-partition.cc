/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RoceAiZoneHelper::SetPartition: which MPI rank runs each node of an AI
// Zone, and the partition report.
#include "roce-ai-zone-helper.h"

#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-absent-device.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-error.h"
#include "ns3/roce-mpi-helper.h"
#include "ns3/roce-pfc-net-device.h"

#include <map>
#include <set>

namespace ns3
{

void
RoceAiZoneHelper::SetPartition(const std::string& mode, uint32_t ranks)
{
    const bool known = mode == "none" || mode == "racks" || mode == "zones" || mode == "auto" ||
                       mode.rfind("map:", 0) == 0;
    ROCE_ERROR_IF(!known,
                  "RoceAiZoneHelper: partition '" << mode
                                                  << "' is unknown; use none, racks, zones, auto "
                                                     "or map:R0,R1,... (a rank per rack)");
    m_partition = mode;
    m_partitionRanks = ranks;
}

std::vector<uint32_t>
RoceAiZoneHelper::PartitionRanks() const
{
    const uint32_t R = RacksPerZone();
    const uint32_t LZ = LeavesPerZone();
    const uint32_t racks = m_zones * R;
    const uint32_t nServers = racks * m_servers;
    const uint32_t nLeaves = m_zones * LZ;
    const uint32_t nCtsws = m_zones * m_ctsws;
    const uint32_t nAtsws = m_tiers == 3 ? AtswCount() : 0;
    std::vector<uint32_t> rank(nServers + nLeaves + nCtsws + nAtsws, 0);
    const uint32_t size = m_partitionRanks > 0 ? m_partitionRanks : RoceMpiHelper::GetSize();
    std::string mode = m_partition;
    if (mode == "none" || size == 1)
    {
        return rank;
    }
    if (mode == "auto")
    {
        mode = (m_tiers == 3 && m_zones >= size) ? "zones" : "racks";
    }

    // The rank of every rack, zone-major.
    std::vector<uint32_t> rackRank(racks, 0);
    if (mode == "zones")
    {
        ROCE_ERROR_IF(m_tiers != 3 || m_zones < size,
                      "RoceAiZoneHelper: partition 'zones' needs a 3-tier fabric with at least "
                      "as many zones as ranks; got "
                          << m_zones << " zone(s) for " << size << " ranks");
        for (uint32_t r = 0; r < racks; ++r)
        {
            rackRank[r] = uint32_t(uint64_t(r / R) * size / m_zones);
        }
    }
    else if (mode == "racks")
    {
        ROCE_ERROR_IF(racks < size,
                      "RoceAiZoneHelper: partition 'racks' needs at least as many racks as ranks; "
                      "got "
                          << racks << " rack(s) for " << size << " ranks");
        for (uint32_t r = 0; r < racks; ++r)
        {
            rackRank[r] = uint32_t(uint64_t(r) * size / racks);
        }
    }
    else // map:R0,R1,...
    {
        const std::string list = mode.substr(4);
        std::size_t pos = 0;
        uint32_t r = 0;
        while (pos <= list.size())
        {
            const std::size_t comma = std::min(list.find(',', pos), list.size());
            const std::string item = list.substr(pos, comma - pos);
            ROCE_ERROR_IF(item.empty() ||
                              item.find_first_not_of("0123456789") != std::string::npos ||
                              item.size() > 9,
                          "RoceAiZoneHelper: partition map item " << r + 1 << " '" << item
                                                                  << "' is not a rank number");
            ROCE_ERROR_IF(r >= racks,
                          "RoceAiZoneHelper: partition map names more than the " << racks
                                                                                 << " racks");
            const uint32_t value = uint32_t(std::stoul(item));
            ROCE_ERROR_IF(value >= size,
                          "RoceAiZoneHelper: partition map gives rack "
                              << r << " rank " << value << " but the run has " << size << " ranks");
            rackRank[r++] = value;
            pos = comma + 1;
        }
        ROCE_ERROR_IF(r != racks,
                      "RoceAiZoneHelper: partition map names " << r << " racks; the fabric has "
                                                               << racks);
    }

    std::size_t i = 0;
    for (uint32_t s = 0; s < nServers; ++s)
    {
        rank[i++] = rackRank[s / m_servers];
    }
    for (uint32_t l = 0; l < nLeaves; ++l)
    {
        const uint32_t zone = l / LZ;
        const uint32_t leaf = l % LZ;
        rank[i++] = rackRank[zone * R + (m_rail ? leaf / m_gpusPerServer : leaf)];
    }
    for (uint32_t c = 0; c < nCtsws; ++c)
    {
        // Zones partition: a CTSW with its zone; racks: round-robin.
        rank[i++] = mode == "zones" ? rackRank[(c / m_ctsws) * R] : (c % m_ctsws) % size;
    }
    for (uint32_t a = 0; a < nAtsws; ++a)
    {
        rank[i++] = a % size;
    }
    return rank;
}

} // namespace ns3
