/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fabrics the collective test suites share.
 */

#ifndef ROCEV2_COLLECTIVE_TEST_HELPERS_H
#define ROCEV2_COLLECTIVE_TEST_HELPERS_H

#include "ns3/roce-ai-zone-helper.h"

#include <numeric>
#include <vector>

namespace ns3
{
namespace rocev2test
{

/**
 * \return a non-blocking 2-tier zone of `servers` servers with `gpus` GPUs
 * each, one server per rack (4 uplinks over 4 CTSWs): with one GPU per
 * server every ring edge crosses a CTSW and no two flows share a link
 */
inline RoceAiZone
SmallZone(uint32_t servers, uint32_t gpus)
{
    RoceAiZoneHelper h;
    h.SetGpusPerServer(gpus);
    h.SetServersPerRack(1);
    h.SetGpus(servers * gpus);
    h.SetUplinks(4);
    h.SetCtsws(4);
    return h.Build();
}

/** \return 0, 1, ..., n-1: every GPU of the fabric, in rank order */
inline std::vector<uint32_t>
AllGpus(const RoceAiZone& z)
{
    std::vector<uint32_t> v(z.GetNGpus());
    std::iota(v.begin(), v.end(), 0);
    return v;
}

} // namespace rocev2test
} // namespace ns3

#endif /* ROCEV2_COLLECTIVE_TEST_HELPERS_H */
