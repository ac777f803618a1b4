/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fabrics the collective test suites share.
 */

#ifndef ROCEV2_COLLECTIVE_TEST_HELPERS_H
#define ROCEV2_COLLECTIVE_TEST_HELPERS_H

#include "ns3/roce-ai-zone-helper.h"

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace ns3
{
namespace rocev2test
{

/**
 * \return a non-blocking 2-tier zone of `servers` servers with `gpus` GPUs
 * each, one server per rack (4 uplinks over 4 CTSWs): with one GPU per
 * server every ring edge crosses a CTSW and no two flows share a link;
 * linkRate (bit/s; 0: the default 400 Gb/s) sets every link's rate
 */
inline RoceAiZone
SmallZone(uint32_t servers, uint32_t gpus, double linkRate = 0)
{
    RoceAiZoneHelper h;
    if (linkRate > 0)
    {
        h.SetLinkRate(DataRate(static_cast<uint64_t>(linkRate)));
    }
    h.SetGpusPerServer(gpus);
    h.SetServersPerRack(1);
    h.SetGpus(servers * gpus);
    h.SetUplinks(4);
    h.SetCtsws(4);
    return h.Build();
}

/**
 * \brief The alpha-beta time of one WRITE of `bytes` from a NIC to a NIC
 * across a CTSW of a SmallZone (4 links, 2 x 1.5 us + 2 x 4 us), with
 * nothing else on its links: n = ceil(bytes / 4096) packets, the last byte
 * arrives after (bytes + n (58 + 24) + 16) 8 / R of serialization at the NIC,
 * 3 more store-and-forward times of the last frame and 11 us of propagation.
 * A ring step of a collective with one chunk per slice takes this time for
 * its slice.
 * \param bytes the message \param rate R, bit/s
 * \return seconds
 */
inline double
WriteSeconds(double bytes, double rate = 400e9)
{
    const double mtu = 4096;
    const double n = std::ceil(bytes / mtu);
    const double lastPayload = bytes - (n - 1) * mtu;
    const double wire = 58 + 24;
    return (bytes + n * wire + 16) * 8 / rate + 3 * (lastPayload + wire) * 8 / rate + 2 * 1.5e-6 +
           2 * 4e-6;
}

/**
 * \param bytes S \param p ranks \param rate R, bit/s
 * \return the alpha-beta time of a ring AllReduce of S on p one-GPU servers
 *         of a SmallZone, 1 channel, one chunk per slice: 2(p-1) steps of a
 *         slice S/p each
 */
inline double
RingAllReduceSeconds(double bytes, uint32_t p, double rate = 400e9)
{
    return 2 * (p - 1) * WriteSeconds(bytes / p, rate);
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
