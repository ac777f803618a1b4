/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ROCE_AI_ZONE_HELPER_H
#define ROCE_AI_ZONE_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/roce-ai-zone.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-nvlink-domain.h"
#include "ns3/roce-switch-helper.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Builds Meta-style AI Zone fabrics (2-tier RTSW/CTSW Clos, or 3
 * tiers with ATSWs joining zones) with addresses and hierarchical
 * forwarding filled in.
 *
 * Every server gets a RoceNvlinkDomain of its G GPUs (the scale-up domain
 * collectives use between the GPUs of one server).
 *
 * Defaults follow Meta's published layout (doc/rocev2.rst, "AI Zone
 * topologies"): 8 GPUs per server, 2 servers per rack, 16 uplinks per RTSW
 * over 16 CTSWs, 400 Gb/s links, 4096-byte payload MTU, 1:7 CTSW-to-ATSW
 * oversubscription. The link delays default to 1.5 us host-RTSW, 4 us
 * RTSW-CTSW and 4 us CTSW-ATSW: they lump cable, optics, switch pipeline and
 * NIC latency, and give the ~22 us idle RTT through a CTSW that Meta reports,
 * 2 * (2 * 1.5 + 2 * 4) us = 22 us plus the serialization of one small
 * frame and its ACK at 4 hops each (~20 ns at 400 Gb/s).
 *
 * Forwarding never runs RoceSwitchHelper::PopulateRoutes(): a leaf switch
 * gets one /32 per NIC below it and 0/0 to its uplinks; a CTSW one /24 per
 * leaf of its zone and, in 3 tiers, 0/0 to its ATSW links; an ATSW one /16
 * per zone.
 *
 * Variants: SetRailOptimized() (G rail switches per rack group instead of one
 * RTSW), SetFatTree(k) (the k-ary fat-tree as a 3-tier fabric: pods as zones,
 * edge / aggregation / core switches as RTSW / CTSW / ATSW, cores in k/2
 * planes) and SetPreset() for Meta's published layouts.
 */
class RoceAiZoneHelper
{
  public:
    /** Switch tiers, for per-tier settings. */
    enum Tier
    {
        RTSW = 0,
        CTSW = 1,
        ATSW = 2,
    };

    /**
     * The first random stream Build() gives the switches
     * (RoceSwitchHelper::AssignStreams): above the small stream numbers that
     * placements, workloads and faults take.
     */
    static constexpr int64_t AI_ZONE_STREAMS = 1000000;

    RoceAiZoneHelper();

    /** \param tiers 2 (one zone of RTSWs and CTSWs) or 3 (zones joined by ATSWs) */
    void SetTiers(uint32_t tiers);
    /** \param gpus total GPUs; must fill whole racks in every zone */
    void SetGpus(uint32_t gpus);
    /** \param zones Z (3 tiers; 1 in 2 tiers) */
    void SetZones(uint32_t zones);
    /** \param servers S, servers per rack */
    void SetServersPerRack(uint32_t servers);
    /** \param gpus G, GPUs (NICs) per server */
    void SetGpusPerServer(uint32_t gpus);
    /** \param uplinks U, uplinks per RTSW */
    void SetUplinks(uint32_t uplinks);
    /** \param ctsws C, CTSWs per zone; U must be a multiple of C */
    void SetCtsws(uint32_t ctsws);
    /** \param atsws A, ATSWs (0, the default: one per CTSW uplink in each plane) */
    void SetAtsws(uint32_t atsws);
    /** \param ratio O, CTSW downlink capacity : uplink capacity (3 tiers); the
     *  CTSW-ATSW link count is rounded to the nearest whole number */
    void SetOversubscription(double ratio);
    /** \param planes P, ATSW planes: CTSW c (within its zone) links only to
     *  the A / P ATSWs of plane c % P (1, the default: to every ATSW) */
    void SetAtswPlanes(uint32_t planes);
    /**
     * \param rail true: each rack's S servers form a rail group with G rail
     *        switches in place of the RTSW; NIC i of every server of the
     *        group links to rail switch i, which has S downlinks and U
     *        uplinks. Traffic between NICs of one rail and group stays on the
     *        rail switch; other traffic goes up.
     */
    void SetRailOptimized(bool rail);
    /**
     * \brief Configure the k-ary fat-tree: k pods (zones) of k/2 edge
     * (RTSW) and k/2 aggregation (CTSW) switches, (k/2)^2 core (ATSW)
     * switches in k/2 planes, k^3/4 hosts of one NIC each, k/2 per edge; every
     * switch has k ports and the tree is non-blocking.
     * \param k the switch radix, even and 2..256 (aborts otherwise)
     */
    void SetFatTree(uint32_t k);
    /**
     * \brief Configure one of Meta's published layouts [Meta24]:
     * "meta-zone-3072" (one 2-tier AI zone of 192 racks x 16 GPUs) or
     * "meta-cluster-24k" (8 such zones joined by ATSWs at 1:7). It sets the
     * shape (tiers, zones, GPUs, servers, uplinks, CTSWs, ATSWs,
     * oversubscription) and keeps link, NIC, buffer and NVLink settings.
     * Aborts with the known names for any other name.
     * \param name the preset
     */
    void SetPreset(const std::string& name);
    /** \return the names SetPreset() knows */
    static std::vector<std::string> GetPresetNames();
    /** \param rate the rate of every link */
    void SetLinkRate(DataRate rate);
    /**
     * \param tier the upper end of the links (RTSW: host-RTSW links, CTSW:
     *        RTSW-CTSW links, ATSW: CTSW-ATSW links)
     * \param delay their one-way delay
     */
    void SetLinkDelay(Tier tier, Time delay);
    /** \param tier a tier \return its links' delay */
    Time GetLinkDelay(Tier tier) const;
    /**
     * \brief Set a RoceSharedBufferMmu attribute of one tier's switches.
     * \param tier the tier \param name attribute \param value value
     */
    void SetMmuAttribute(Tier tier, std::string name, const AttributeValue& value);
    /**
     * \brief Set a RoceSwitch attribute (EcmpSeed, EcmpUseQp) of every switch.
     * \param name attribute \param value value
     */
    void SetSwitchAttribute(std::string name, const AttributeValue& value);
    /**
     * \brief Set a RoceNvlinkDomain attribute (DataRate, Latency) of every
     * server's scale-up domain.
     * \param name attribute \param value value
     */
    void SetNvlinkAttribute(std::string name, const AttributeValue& value);
    /**
     * \brief The RoceHelper the links and NICs are made with: set NIC, QP and
     * congestion-control attributes on it before Build() (the link rate and
     * delays are set by this helper).
     * \return the helper
     */
    RoceHelper& GetRoceHelper();
    /**
     * \param tier RTSW, CTSW or ATSW
     * \return the helper that makes that tier's switches, for settings this
     *         helper has no call for (RoceCcHelper::Configure sets the ECN
     *         marking of every tier through it)
     */
    RoceSwitchHelper& GetSwitchHelper(Tier tier);

    /**
     * \brief Check the parameters (aborting with the name and value of a bad
     * one), create the nodes, links and NICs, assign the addresses and fill
     * every switch's forwarding table.
     * \return the fabric
     */
    RoceAiZone Build();

    /**
     * \brief Split the fabric over MPI ranks (RoceMpiHelper): Build() gives
     * every node a rank (its ns-3 system id) and cuts the links between
     * ranks. Modes:
     * - "none" (the default): every node on rank 0;
     * - "racks": contiguous groups of racks (zone-major), each with its
     *   servers and leaf switches; CTSWs and ATSWs round-robin over the
     *   ranks. The cut is RTSW-CTSW links (delay GetLinkDelay(CTSW));
     * - "zones" (3 tiers): whole zones per rank; ATSWs round-robin; the
     *   cut is CTSW-ATSW links;
     * - "auto": "zones" when there are at least as many zones as ranks,
     *   else "racks";
     * - "map:R0,R1,...": the rank of every rack, zone-major (a user's map);
     *   CTSWs and ATSWs round-robin.
     * A link on the cut must have a positive delay (the lookahead); Build()
     * refuses one of 0, naming its nodes and ranks.
     * \param mode the mode
     * \param ranks ranks to split over (0: RoceMpiHelper::GetSize())
     */
    void SetPartition(const std::string& mode, uint32_t ranks = 0);

    /**
     * \brief Choose how Build()'s fabric carries the messages of its queue
     * pairs: "packet" (the default: frames, PFC, congestion control) or
     * "flow" (a RoceFlowEngine attached to every NIC of the simulation: each
     * message a fluid flow at max-min fair rates on the path its frames
     * would take). Other names, and "flow" with SetPartition, are RoceErrors.
     * \param fidelity packet or flow
     */
    void SetFidelity(const std::string& fidelity);

    /** \return the SetFidelity() choice */
    const std::string& GetFidelity() const;

  private:
    /** \return the rank of every node Build() creates, in creation order */
    std::vector<uint32_t> PartitionRanks() const;
    /** \brief Abort with a message naming a parameter that cannot be built. */
    void Check() const;
    /** \return racks per zone, from the GPU count */
    uint32_t RacksPerZone() const;
    /** \return ATSWs (3 tiers) */
    uint32_t AtswCount() const;
    /** \return CTSW-to-ATSW links of one CTSW */
    uint32_t CtswUplinks() const;
    /** \return leaf switches per zone */
    uint32_t LeavesPerZone() const;
    /** \return RTSW-CTSW links per CTSW (leaves per zone x uplinks / CTSWs) */
    uint32_t CtswDownlinks() const;
    /** \brief Create the host-leaf and leaf-CTSW links and their NICs. */
    void BuildZoneLinks(RoceAiZone& z);
    /** \brief Create the CTSW-ATSW links. */
    void BuildAtswLinks(RoceAiZone& z);
    /** \brief Fill every switch's forwarding table. */
    static void FillRoutes(const RoceAiZone& z);

    RoceHelper m_roce;
    RoceSwitchHelper m_switch[3];
    uint32_t m_tiers{2};
    uint32_t m_gpus{1024};
    uint32_t m_zones{1};
    uint32_t m_servers{2};
    uint32_t m_gpusPerServer{8};
    uint32_t m_uplinks{16};
    uint32_t m_ctsws{16};
    uint32_t m_atsws{0};
    uint32_t m_planes{1};
    bool m_rail{false};
    uint32_t m_fatTreeK{0}; //!< k of SetFatTree(); every later shape setter clears it
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_nvlinkAttributes;
    double m_oversub{7};
    DataRate m_rate{"400Gbps"};
    Time m_delay[3];
    std::string m_partition{"none"};  //!< SetPartition() mode
    uint32_t m_partitionRanks{0};     //!< SetPartition() ranks (0: the run's)
    std::string m_fidelity{"packet"}; //!< SetFidelity()
};

} // namespace ns3

#endif /* ROCE_AI_ZONE_HELPER_H */
