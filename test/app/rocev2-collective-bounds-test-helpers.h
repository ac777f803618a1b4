/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Closed-form bounds of collectives on rail-optimised AI Zones of 8-GPU
 * servers, and the loss model of a lossy fabric, for
 * rocev2-collective-bounds-test-suite.cc. Everything here is computed from
 * the rates, delays and frame format the suite sets (doc/rocev2.rst, "Wire
 * format"), never read back from the model under test.
 */

#ifndef ROCEV2_COLLECTIVE_BOUNDS_TEST_HELPERS_H
#define ROCEV2_COLLECTIVE_BOUNDS_TEST_HELPERS_H

#include "ns3/data-rate.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-ai-zone.h"
#include "ns3/roce-collective.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace rocev2bounds
{

/// GPUs per server, m: one NIC per GPU, each on its own rail.
constexpr uint32_t GPUS = 8;
/// Every link, bit/s (the AI Zone default, set explicitly).
constexpr double LINK_BPS = 400e9;
/// NVLink port rate per GPU and direction, bit/s: H100 NVLink4, 450 GB/s.
constexpr double NVLINK_BPS = 3600e9;
/// RoceNvlinkDomain Latency (its default): a copy arrives this long after its last byte left.
constexpr double NVLINK_LATENCY = 1e-6;
/// One-way link delays of the AI Zone (RoceAiZoneHelper defaults): host-leaf, leaf-CTSW, CTSW-ATSW.
constexpr double HOST_DELAY = 1.5e-6;
constexpr double CTSW_DELAY = 4e-6;
constexpr double ATSW_DELAY = 4e-6;
/// Payload bytes per packet (the AI Zone's PayloadMtu).
constexpr double MTU = 4096;
/// Wire bytes of a data frame beyond its payload: Ethernet 14, IPv4 20, UDP 8, BTH 12,
/// ICRC 4 (58), then FCS 4, preamble and SFD 8, inter-frame gap 12 (24). A WRITE's first
/// frame carries 16 more (RETH).
constexpr double DATA_EXTRA = 58 + 24;
/// Frame bytes of a data frame as a receiver's error model sees it (no FCS), at most:
/// a full first WRITE frame, 4096 + 58 + 16.
constexpr double DATA_FRAME_MAX = 4096 + 58 + 16;
/// Wire bytes of an ACK or NAK (62-byte frame + 24).
constexpr double ACK_WIRE = 62 + 24;
/// Frame bytes of an ACK or NAK as an error model sees it.
constexpr double ACK_FRAME = 62;
/// Wire bytes per payload byte of full frames: a lower bound on every message's.
constexpr double WIRE = (MTU + DATA_EXTRA) / MTU;
/// ACK wire bytes per data wire byte on the reverse direction (AckInterval 1: one ACK
/// per data packet).
constexpr double ACK_SHARE = ACK_WIRE / (MTU + DATA_EXTRA);

/**
 * \brief A rail-optimised AI Zone of `servers` 8-GPU servers, one server per
 * rack, each GPU's NIC on its own rail switch (SetRailOptimized), one uplink
 * per rail switch to the zone's one CTSW, so that every NIC-to-NIC path is
 * unique (no ECMP choice anywhere):
 *
 * - 2 tiers: NIC - rail switch - CTSW - rail switch - NIC (4 links, 3
 *   switches); a rail switch serves one NIC, so flows share a link only where
 *   they leave or enter the same NIC;
 * - 3 tiers: one zone per server, the CTSW's 8 downlinks over 1 ATSW link
 *   (8:1, Meta's CTSW-ATSW oversubscription is 7:1): NIC - rail - CTSW -
 *   ATSW - CTSW - rail - NIC (6 links, 5 switches); the 8 rails of a server
 *   share that link.
 *
 * \param tiers 2 or 3 \param servers n
 * \return the fabric
 */
inline RoceAiZone
RailZone(uint32_t tiers, uint32_t servers)
{
    RoceAiZoneHelper h;
    h.SetTiers(tiers);
    h.SetGpusPerServer(GPUS);
    h.SetServersPerRack(1);
    h.SetRailOptimized(true);
    h.SetUplinks(1);
    h.SetCtsws(1);
    if (tiers == 3)
    {
        h.SetZones(servers);
        h.SetOversubscription(GPUS); // 8 downlinks per CTSW over 1 uplink
    }
    h.SetGpus(servers * GPUS);
    h.SetLinkRate(DataRate(static_cast<uint64_t>(LINK_BPS)));
    h.SetNvlinkAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(NVLINK_BPS))));
    return h.Build();
}

/// \return propagation of a NIC-to-NIC path across servers (2 tiers: 11 us; 3 tiers: 19 us)
inline double
PathPropagation(uint32_t tiers)
{
    return 2 * (HOST_DELAY + CTSW_DELAY) + (tiers == 3 ? 2 * ATSW_DELAY : 0);
}

/**
 * \return alpha of a NIC-to-NIC message: the propagation, and a store-and-forward of a
 * full frame at each of the 3 (5) switches
 */
inline double
NicAlpha(uint32_t tiers)
{
    const double switches = tiers == 3 ? 5 : 3;
    return PathPropagation(tiers) + switches * (MTU + DATA_EXTRA) * 8 / LINK_BPS;
}

/**
 * \brief NCCL's binary tree over n members (src/graph/trees.cc, ncclGetBtree): the
 * parent of member v is (v ^ b) | 2b, or v ^ b past the end, b the lowest set bit of v;
 * member 0 is the root. The second tree of the double binary tree (ncclGetDtree) is the
 * mirror v -> n-1-v for even n, the shift v -> v+1 for odd n.
 * \param n members \param second the second tree
 * \return each member's parent (-1: the root)
 */
inline std::vector<int32_t>
NcclTreeParents(uint32_t n, bool second)
{
    auto btree = [n](uint32_t v) -> int32_t {
        if (v == 0)
        {
            return -1;
        }
        const uint32_t bit = v & (~v + 1);
        uint32_t up = (v ^ bit) | (bit << 1);
        return up >= n ? int32_t(v ^ bit) : int32_t(up);
    };
    std::vector<int32_t> parent(n);
    for (uint32_t v = 0; v < n; ++v)
    {
        if (!second)
        {
            parent[v] = btree(v);
        }
        else if (n % 2 == 0)
        {
            const int32_t u = btree(n - 1 - v);
            parent[v] = u < 0 ? -1 : int32_t(n - 1 - u);
        }
        else
        {
            const int32_t u = btree((v + n - 1) % n);
            parent[v] = u < 0 ? -1 : int32_t((u + 1) % n);
        }
    }
    return parent;
}

/**
 * What an AllReduce of S on n servers x m GPUs, C channels (C a multiple of m), moves
 * through each resource, from the algorithm alone (payload bytes), and how many
 * dependent hops of each kind one chunk takes at start-up and drain:
 *
 * - *ring* (RoceCollective RING; Patarasuk & Yuan 2009, Thakur, Rabenseifner & Gropp
 *   2005): each channel's ring of p = n m ranks moves 2(p-1)/p S/C over each of its
 *   edges; within a server its m-1 edges are NVLink copies, between servers 1 edge
 *   per server goes over the channel's rail NIC. A NIC carries C/m channels, a GPU's
 *   NVLink port the C - C/m channels in which it is not its server's last rank.
 *   Pipeline: the NIC edges send step 0 at once; after the last NIC message the ring
 *   drains through at most m-1 NVLink edges: hops (m-1) NVLink + 2 NIC (its first and
 *   last message).
 * - *tree* (NCCL double binary tree, Sanders, Speck & Traeff 2009): per channel two
 *   trees, each over the servers (NcclTreeParents) with a chain of the m ranks in each
 *   server, each moving S_c/2 up and down every edge. A server head's NIC sends S_c/2
 *   per tree edge it touches; a GPU's NVLink port S_c/2 up (not the head) and S_c/2 down
 *   (not the chain's tail) per tree, 2(m-1)/m S over all channels. Pipeline: up and
 *   down the depth: 2(m-1) NVLink + 2 x depth NIC hops.
 * - *hd* (recursive halving-doubling, Rabenseifner 2004; Thakur et al. 2005, section
 *   4.4): partners at distance d = p/2 ... 1 exchange S d / p (reduce-scatter) and back
 *   (all-gather); d >= m crosses servers over the rank's own NIC: 2 S (p-m)/p per NIC,
 *   2 S (m-1)/p per NVLink port. Pipeline: 2 log2 m NVLink + 2 log2 n NIC steps.
 * - *hier* (hierarchical: NVLink reduce-scatter in each server, ring AllReduce of S/m
 *   per rail over the n servers, NVLink all-gather; e.g. Cho et al., BlueConnect, 2019):
 *   2(m-1)/m S per NVLink port, 2(n-1)/n S/m per rail NIC. Pipeline: 2(m-1) NVLink +
 *   2(n-1) NIC steps.
 */
struct Loads
{
    double nic{0};          //!< payload bytes the busiest NIC sends
    double nvlink{0};       //!< payload bytes the busiest GPU's NVLink port sends
    uint32_t nicPeers{1};   //!< connections a NIC sends on at once (tree: its peer servers)
    uint32_t nvlinkHops{0}; //!< dependent NVLink hops of a chunk at start-up and drain
    uint32_t nicHops{0};    //!< dependent NIC hops of a chunk at start-up and drain
    std::string bottleneck; //!< filled by Bounds()
};

/// \return log2 of a power of two
inline uint32_t
Log2(uint32_t x)
{
    uint32_t l = 0;
    while ((1u << l) < x)
    {
        ++l;
    }
    return l;
}

/**
 * \param algo RING, TREE, HALVING_DOUBLING or HIERARCHICAL
 * \param S bytes \param n servers \param m GPUs per server \param C channels
 * \return what the AllReduce moves (see Loads)
 */
inline Loads
AllReduceLoads(RoceCollective::Algorithm algo, double S, uint32_t n, uint32_t m, uint32_t C)
{
    const double p = double(n) * m;
    Loads l;
    switch (algo)
    {
    case RoceCollective::RING: {
        const double edge = 2 * (p - 1) / p * S / C;
        l.nic = edge * C / m;
        l.nvlink = edge * (C - C / m);
        l.nvlinkHops = m - 1;
        l.nicHops = 2;
        break;
    }
    case RoceCollective::TREE: {
        uint32_t degree = 0; // tree edges of the busiest server, both trees
        uint32_t peers = 0;  // the servers it exchanges with
        uint32_t depth = 0;
        const std::vector<int32_t> t1 = NcclTreeParents(n, false);
        const std::vector<int32_t> t2 = NcclTreeParents(n, true);
        for (uint32_t v = 0; v < n; ++v)
        {
            uint32_t d = 0;
            std::vector<bool> peer(n, false);
            for (const auto* t : {&t1, &t2})
            {
                for (uint32_t u = 0; u < n; ++u)
                {
                    // v's parent, or v's child u
                    const bool edge = int32_t(u) == (*t)[v] || (*t)[u] == int32_t(v);
                    d += edge ? 1 : 0;
                    peer[u] = peer[u] || edge;
                }
                uint32_t k = 0;
                for (int32_t x = v; (*t)[x] >= 0; x = (*t)[x])
                {
                    ++k;
                }
                depth = std::max(depth, k);
            }
            degree = std::max(degree, d);
            peers = std::max<uint32_t>(peers, std::count(peer.begin(), peer.end(), true));
        }
        l.nic = degree * S / C / 2 * C / m;
        l.nvlink = 2 * (m - 1.0) / m * S;
        l.nicPeers = peers;
        l.nvlinkHops = 2 * (m - 1);
        l.nicHops = 2 * depth;
        break;
    }
    case RoceCollective::HALVING_DOUBLING:
        l.nic = 2 * S * (p - m) / p;
        l.nvlink = 2 * S * (m - 1) / p;
        l.nvlinkHops = 2 * Log2(m);
        l.nicHops = 2 * Log2(n);
        break;
    default:
        l.nic = 2 * (n - 1.0) / n * S / m;
        l.nvlink = 2 * (m - 1.0) / m * S;
        l.nvlinkHops = 2 * (m - 1);
        l.nicHops = 2 * (n - 1);
    }
    return l;
}

/** The bounds of one run. */
struct Bound
{
    double lower{0};        //!< no run can be faster (s)
    double bandwidth{0};    //!< the bottleneck's busy time with ACKs (s)
    double fill{0};         //!< start-up and drain (s)
    double upper{0};        //!< bandwidth + fill (s)
    std::string bottleneck; //!< which resource sets the lower bound
};

/**
 * \brief The lower and upper bounds of an AllReduce on a RailZone.
 *
 * Lower bound: every resource must carry its bytes at its rate, and the last byte
 * must still reach its receiver:
 *   NIC link (2 tiers):   nic W 8 / R + path propagation,
 *   CTSW-ATSW link (3 tiers, m rails share it): m nic W 8 / R + its remaining
 *                         propagation (ATSW, CTSW, rail and host links),
 *   NVLink port:          nvlink 8 / B_nv + Latency,
 * W = (4096 + 82) / 4096 the wire bytes per payload byte of full frames (a
 * message's partial last frame and RETH only add); the lower bound is the largest.
 *
 * Upper bound (where the model should run at line rate): the bottleneck is busy
 * without a gap except at start-up and drain, with the reverse direction's ACKs
 * (one 86-byte ACK per data frame, share ACK_SHARE) on it:
 *   T <= max(resource busy time incl. ACKs) + F,
 *   F = hops_nv (Latency + tau_nv) + hops_nic (alpha_nic + tau_nic),
 * tau_nv = C c 8 / B_nv (a chunk c when every channel has one on the port),
 * tau_nic = k c W 8 / R (k flows share the bottleneck link: the NIC's peers, times m
 * rails on the 3-tier CTSW-ATSW link), alpha_nic = NicAlpha. In between the
 * bottleneck never waits: each algorithm keeps C channels x Steps chunks in flight,
 * more than a chunk's round through the other resources.
 *
 * \param tiers 2 or 3 \param l the loads \param C channels \param chunk c
 * \return the bounds
 */
inline Bound
Bounds(uint32_t tiers, const Loads& l, uint32_t C, double chunk)
{
    Bound b;
    const double nicTime = l.nic * WIRE * 8 / LINK_BPS;
    const double nvTime = l.nvlink * 8 / NVLINK_BPS;
    double linkTime = nicTime;
    double linkTrail = PathPropagation(tiers);
    uint32_t flows = l.nicPeers;
    std::string link = "NIC link";
    if (tiers == 3)
    {
        linkTime = GPUS * nicTime;
        linkTrail = ATSW_DELAY + ATSW_DELAY + CTSW_DELAY + HOST_DELAY;
        flows *= GPUS;
        link = "CTSW-ATSW link";
    }
    const double linkLower = linkTime + linkTrail;
    const double nvLower = nvTime + NVLINK_LATENCY;
    b.lower = std::max(linkLower, nvLower);
    b.bottleneck = linkLower >= nvLower ? link : "NVLink port";
    b.bandwidth = std::max(linkTime * (1 + ACK_SHARE), nvTime);
    const double tauNv = C * chunk * 8 / NVLINK_BPS;
    const double tauNic = flows * chunk * WIRE * 8 / LINK_BPS;
    b.fill = l.nvlinkHops * (NVLINK_LATENCY + tauNv) + l.nicHops * (NicAlpha(tiers) + tauNic);
    b.upper = b.bandwidth + b.fill;
    return b;
}

/**
 * \brief Losses on a path of `links` lossy links of bit error rate `ber`: a frame of
 * L bytes is lost on a link with probability 1 - (1 - ber)^(8 L) (ns-3's
 * RateErrorModel, unit bit, over the frame without FCS), on the path with
 * q = 1 - (1 - p)^links.
 * \param ber bit error rate \param frameBytes L \param links lossy links on the path
 * \return q
 */
inline double
PathLoss(double ber, double frameBytes, uint32_t links)
{
    const double p = 1 - std::pow(1 - ber, 8 * frameBytes);
    return 1 - std::pow(1 - p, links);
}

/**
 * \brief Expected failed attempts when N packets must each get through a path that
 * loses an attempt with probability q: every packet needs a geometric number of
 * attempts, so the failures number N q / (1 - q) on average (variance N q / (1 - q)^2).
 * At small q this is BER x bits; at BER 1e-5 and 4 KiB frames q is 0.49 on a 2-link
 * path and the retransmissions' own losses double it.
 * \param n N \param q q \param sigmas how many standard deviations above the mean
 * \return the mean plus that many standard deviations
 */
inline double
Failures(double n, double q, double sigmas)
{
    return n * q / (1 - q) + sigmas * std::sqrt(n * q) / (1 - q);
}

} // namespace rocev2bounds
} // namespace ns3

#endif /* ROCEV2_COLLECTIVE_BOUNDS_TEST_HELPERS_H */
