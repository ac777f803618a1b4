/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ROCE_AI_ZONE_HELPER_H
#define ROCE_AI_ZONE_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch-helper.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A fabric built by RoceAiZoneHelper: the nodes of each tier, the NIC
 * of every GPU and the counts of the layout.
 *
 * GPU g lives on server g / G, in rack (g / (S*G)) % R of zone g / (R*S*G),
 * with address 10.zone.rack.nic where nic = g % (S*G).
 */
class RoceAiZone
{
  public:
    NodeContainer servers; //!< one node per server, G NICs each (NIC i = GPU i of the server)
    NodeContainer rtsw;    //!< rack switches, zone-major (index = zone * R + rack)
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
    double oversubscription{1}; //!< CTSW down:up capacity built (3 tiers; the requested ratio
                                //!< rounded to whole CTSW-ATSW links)
    DataRate linkRate;          //!< every link's rate
    uint64_t links{0};          //!< links built, all tiers
    std::vector<Ptr<RoceNetDevice>> nics; //!< the NIC of every GPU, by GPU index

    /** \return number of GPUs (= NICs) */
    uint32_t GetNGpus() const;
    /** \return NICs under one RTSW (S * G) */
    uint32_t GetNicsPerRack() const;
    /** \param gpu a GPU index \return its NIC */
    Ptr<RoceNetDevice> GetNic(uint32_t gpu) const;
    /** \param gpu a GPU index \return its NIC's address, 10.zone.rack.nic */
    Ipv4Address GetAddress(uint32_t gpu) const;
    /** \param gpu a GPU index \return its zone */
    uint32_t GetZone(uint32_t gpu) const;
    /** \param gpu a GPU index \return its rack within its zone */
    uint32_t GetRack(uint32_t gpu) const;
    /**
     * \param a a GPU index \param b another
     * \return switches a packet from a to b crosses (1 in a rack, 3 in a
     *         zone, 5 between zones)
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
    /** \return the zone's down:up ratio at the RTSW (S*G / U) */
    double GetRackOversubscription() const;
    /** \param os where to print a table of the counts per tier */
    void PrintSummary(std::ostream& os) const;
    /**
     * \param os where to write the summary as a JSON object
     * \param buildSeconds wall time of Build(), reported as build_seconds
     */
    void WriteJson(std::ostream& os, double buildSeconds) const;
};

/**
 * \ingroup rocev2
 * \brief Builds Meta-style AI Zone fabrics (2-tier RTSW/CTSW Clos, or 3
 * tiers with ATSWs joining zones) with addresses and hierarchical
 * forwarding filled in.
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
 * Forwarding never runs RoceSwitchHelper::PopulateRoutes(): an RTSW gets one
 * /32 per NIC of its rack and 0/0 to its uplinks; a CTSW one /24 per rack of
 * its zone and, in 3 tiers, 0/0 to its ATSW links; an ATSW one /16 per zone.
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
    /** \param atsws A, ATSWs (0: one per CTSW uplink, the default) */
    void SetAtsws(uint32_t atsws);
    /** \param ratio O, CTSW downlink capacity : uplink capacity (3 tiers); the
     *  CTSW-ATSW link count is rounded to the nearest whole number */
    void SetOversubscription(double ratio);
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
     * \brief The RoceHelper the links and NICs are made with: set NIC, QP and
     * congestion-control attributes on it before Build() (the link rate and
     * delays are set by this helper).
     * \return the helper
     */
    RoceHelper& GetRoceHelper();

    /**
     * \brief Check the parameters (aborting with the name and value of a bad
     * one), create the nodes, links and NICs, assign the addresses and fill
     * every switch's forwarding table.
     * \return the fabric
     */
    RoceAiZone Build();

  private:
    /** \brief Abort with a message naming a parameter that cannot be built. */
    void Check() const;
    /** \return racks per zone, from the GPU count */
    uint32_t RacksPerZone() const;
    /** \return CTSW-to-ATSW links of one CTSW */
    uint32_t CtswUplinks() const;
    /** \return RTSW-CTSW links per CTSW (racks per zone x uplinks / CTSWs) */
    uint32_t CtswDownlinks() const;

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
    double m_oversub{7};
    DataRate m_rate{"400Gbps"};
    Time m_delay[3];
};

} // namespace ns3

#endif /* ROCE_AI_ZONE_HELPER_H */
