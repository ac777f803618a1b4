/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ROCE_AI_ZONE_H
#define ROCE_AI_ZONE_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/node-container.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <ostream>
#include <vector>

namespace ns3
{

class RoceNetDevice;
class RoceNvlinkDomain;

/**
 * \ingroup rocev2
 * \brief A fabric built by RoceAiZoneHelper: the nodes of each tier, the NIC
 * of every GPU and the counts of the layout.
 *
 * GPU g lives on server g / G, in rack (g / (S*G)) % R of zone g / (R*S*G).
 * Its NIC hangs off a leaf switch (the RTSW tier): the rack's RTSW, or in the
 * rail-optimised variant rail switch g % G of the rack's group of servers.
 * The address encodes the place, 10.zone.leaf.host: leaf = rack (or rack x G
 * + g % G) and host = the NIC's port on that leaf, g % (S*G) (or the server
 * within the group, (g / G) % S).
 */
class RoceAiZone
{
  public:
    NodeContainer servers; //!< one node per server, G NICs each (NIC i = GPU i of the server)
    NodeContainer rtsw;    //!< leaf switches (RTSWs, or rail switches), zone-major
                           //!< (index = zone * leaves per zone + leaf)
    NodeContainer ctsw;    //!< cluster switches, zone-major (index = zone * C + c)
    NodeContainer atsw;    //!< aggregation switches (3 tiers only)

    uint32_t tiers{2};          //!< 2 or 3
    uint32_t zones{1};          //!< Z
    uint32_t racksPerZone{0};   //!< R
    uint32_t serversPerRack{0}; //!< S
    uint32_t gpusPerServer{0};  //!< G
    uint32_t uplinksPerRtsw{0}; //!< U
    uint32_t ctswsPerZone{0};   //!< C
    uint32_t atswCount{0};      //!< A (0 in 2 tiers)
    uint32_t uplinksPerCtsw{0}; //!< CTSW-to-ATSW links of one CTSW (0 in 2 tiers)
    uint32_t atswPlanes{1};     //!< P: CTSW c links to the A / P ATSWs of plane c % P
    double oversubscription{1}; //!< CTSW down:up capacity built (3 tiers; the requested ratio
                                //!< rounded to whole CTSW-ATSW links)
    bool railOptimized{false};  //!< NIC i of every server of a rack's group on rail switch i
    uint32_t fatTreeK{0};       //!< k when built by SetFatTree(k), else 0
    DataRate linkRate;          //!< every link's rate
    uint64_t links{0};          //!< links built, all tiers
    /// The NIC of every GPU, by GPU index: its RoceNetDevice, or across MPI
    /// ranks, for a GPU of another rank whose link this rank did not build,
    /// the RoceAbsentDevice that stands in for it (its address and QP numbers)
    std::vector<Ptr<NetDevice>> nics;

    /**
     * \param zone zone \param leaf leaf switch within the zone \param host
     *        NIC port on the leaf
     * \return the address 10.zone.leaf.host
     */
    static Ipv4Address MakeAddress(uint32_t zone, uint32_t leaf, uint32_t host);
    /** \return number of GPUs (= NICs) */
    uint32_t GetNGpus() const;
    /** \return NICs under one RTSW (S * G) */
    uint32_t GetNicsPerRack() const;
    /**
     * \param gpu a GPU index
     * \return its NIC; a RoceError across MPI ranks for a GPU whose NIC this
     *         rank stands in for (use GetNicDevice)
     */
    Ptr<RoceNetDevice> GetNic(uint32_t gpu) const;
    /**
     * \param gpu a GPU index
     * \return its NIC, or the device that stands in for it on this MPI rank:
     *         what RoceCommunicator::AddRank, RoceFlowApp and
     *         RoceHelper::CreateQp take
     */
    Ptr<NetDevice> GetNicDevice(uint32_t gpu) const;
    /** \return leaf switches (RTSWs or rail switches) per zone: R, or R x G with rails */
    uint32_t GetLeavesPerZone() const;
    /** \return NICs under one leaf switch: S x G, or S with rails */
    uint32_t GetNicsPerLeaf() const;
    /** \param gpu a GPU index \return its leaf switch's index within its zone */
    uint32_t GetLeaf(uint32_t gpu) const;
    /** \param gpu a GPU index \return the node of its leaf switch */
    Ptr<Node> GetLeafSwitch(uint32_t gpu) const;
    /** \param gpu a GPU index \return its server's node */
    Ptr<Node> GetServer(uint32_t gpu) const;
    /**
     * \param gpu a GPU index
     * \return the scale-up (NVLink) domain of its server, where the GPU is
     *         index GetLocalGpu(gpu)
     */
    Ptr<RoceNvlinkDomain> GetNvlink(uint32_t gpu) const;
    /** \param gpu a GPU index \return its index within its server (g % G), also its NIC's */
    uint32_t GetLocalGpu(uint32_t gpu) const;
    /** \param gpu a GPU index \return its NIC's address, 10.zone.leaf.host */
    Ipv4Address GetAddress(uint32_t gpu) const;
    /** \param gpu a GPU index \return its zone */
    uint32_t GetZone(uint32_t gpu) const;
    /** \param gpu a GPU index \return its rack within its zone */
    uint32_t GetRack(uint32_t gpu) const;
    /**
     * \param a a GPU index \param b another
     * \return switches a packet from a to b crosses (1 under one leaf, 3
     *         in a zone, 5 between zones)
     */
    uint32_t GetSwitchHops(uint32_t a, uint32_t b) const;
    /** \return the most switches any NIC-to-NIC path crosses */
    uint32_t GetMaxSwitchHops() const;
    /** \return number of switches of all tiers */
    uint32_t GetNSwitches() const;
    /** \return forwarding entries of all switches */
    uint64_t GetNRoutes() const;
    /**
     * \return the bisection bandwidth in bit/s: the capacity that crosses
     *         the cut between two halves of the zones (or of the racks, in
     *         one zone), limited at every tier
     */
    double GetBisectionBps() const;
    /** \return the down:up ratio at a leaf switch (NICs per leaf / U) */
    double GetRackOversubscription() const;
    /** \param os where to print a table of the counts per tier */
    void PrintSummary(std::ostream& os) const;
    /**
     * \param os where to write the summary as a JSON object
     * \param buildSeconds wall time of Build(), reported as build_seconds
     * \param initSeconds wall time of initializing the nodes (the first
     *        event of Simulator::Run(), where every switch port sets up its
     *        queues), reported as init_seconds when not negative
     */
    void WriteJson(std::ostream& os, double buildSeconds, double initSeconds = -1) const;
    /**
     * \brief Write the fabric as a graphviz graph, one node per server and
     * switch, tiers in rows, parallel links drawn once with their count.
     * Render it with `dot -Tpng zone.dot -o zone.png`.
     * \param os where to write it
     * Aborts for fabrics of more than MAX_DOT_NODES nodes, which no picture
     * shows legibly.
     */
    void WriteDot(std::ostream& os) const;
    /**
     * \brief Print the partition (RoceAiZoneHelper::SetPartition): per rank
     * its servers, switches, GPUs and links, the links on the cut and the
     * smallest cut delay (the lookahead); one line per rank.
     * \param os where to print
     */
    void PrintPartition(std::ostream& os) const;

    static constexpr uint32_t MAX_DOT_NODES = 200; //!< largest fabric WriteDot() draws
};

} // namespace ns3

#endif // ROCE_AI_ZONE_H
