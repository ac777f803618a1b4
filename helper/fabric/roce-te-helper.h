/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_TE_HELPER_H
#define ROCE_TE_HELPER_H

#include "ns3/ptr.h"
#include "ns3/roce-flow-pin-table.h"

#include <cstdint>
#include <ostream>
#include <vector>

namespace ns3
{

class RoceNetDevice;
class RoceQueuePair;

/**
 * \ingroup rocev2
 * \brief One flow of a traffic matrix for RoceTeHelper.
 */
struct RoceTeFlow
{
    Ptr<RoceNetDevice> src; //!< the sending NIC
    Ptr<RoceNetDevice> dst; //!< the receiving NIC
    uint16_t sport{0};      //!< UDP source port of the flow (its queue pair's SourcePort)
    uint16_t dport{4791};   //!< UDP destination port
    uint32_t destQp{0};     //!< BTH destination QP (the receiving queue pair's number)
    double demand{0};       //!< bytes, or a rate: any unit, the same for every flow
};

/**
 * \ingroup rocev2
 * \brief Centralised traffic engineering: pins each flow of a known traffic
 * matrix to one of its equal-cost shortest paths, as Meta's fabric does for
 * its training jobs.
 *
 * Given the flows (AddFlow), Compute() enumerates for each flow the
 * equal-cost shortest paths from the switch its source NIC is linked to, to
 * the switch of its destination NIC, over the switch-to-switch links (found
 * through the channels, as RoceSwitchHelper::PopulateRoutes does; at most
 * MaxPaths per flow, in port order). A greedy pass then takes the flows by
 * decreasing demand and puts each on the path whose most-loaded link would be
 * the least loaded with the flow added (ties: the smaller sum of link loads
 * along the path, then the first path). A link is one direction of a cable,
 * named by the switch and egress port it leaves from; the last hop, from the
 * destination's switch to the NIC, counts too. Install() then adds a pinned
 * entry (RoceSwitch::AddPinnedRoute) for the flow on every switch of its path,
 * so the flow's data frames follow it whatever ECMP would choose. The
 * acknowledgements, which travel the other way with other addresses, are not
 * pinned.
 *
 * The computed link loads (GetLinkLoads, GetMaxLinkLoad) are in the unit of
 * the demands: with demands in frame bytes they are the bytes each link will
 * carry.
 */
class RoceTeHelper
{
  public:
    /** One hop of a path: a switch (node id) and the egress port it leaves by. */
    struct Hop
    {
        uint32_t node{0}; //!< the switch's node id
        uint32_t port{0}; //!< the egress port index on that switch

        /** \param o another hop \return ordering by (node, port) */
        bool operator<(const Hop& o) const
        {
            return node < o.node || (node == o.node && port < o.port);
        }

        /** \param o another hop \return true if the same */
        bool operator==(const Hop& o) const
        {
            return node == o.node && port == o.port;
        }
    };

    /** The load the assignment puts on a link. */
    struct LinkLoad
    {
        Hop link;       //!< the link (switch and egress port)
        double load{0}; //!< the sum of the demands of the flows pinned over it
    };

    RoceTeHelper();

    /**
     * \param maxPaths the most equal-cost paths enumerated per flow (>= 1;
     *        default 1024); fabrics with more paths than that see the first ones
     *        in port order
     */
    void SetMaxPaths(uint32_t maxPaths);

    /**
     * \brief Add a flow.
     * \param flow the flow; its NICs must be linked to switches
     * \return its index
     */
    uint32_t AddFlow(const RoceTeFlow& flow);

    /**
     * \brief Add the flow a connected queue pair sends.
     * \param qp the sending queue pair
     * \param demand its bytes (or rate)
     * \return its index
     */
    uint32_t AddFlow(Ptr<RoceQueuePair> qp, double demand);

    /** \return number of flows */
    uint32_t GetNFlows() const;

    /**
     * \brief Enumerate the paths and assign each flow one (no switch is changed).
     * \return the largest link load of the assignment
     */
    double Compute();

    /**
     * \brief Compute() if not done since the last AddFlow, then pin every flow
     * on every switch of its path.
     * \return the largest link load of the assignment
     */
    double Install();

    /** \return the largest link load of the last Compute() */
    double GetMaxLinkLoad() const;

    /**
     * \return the load of every link on any flow's candidate paths (0 where
     *         no flow was put), sorted by (node, port)
     */
    std::vector<LinkLoad> GetLinkLoads() const;

    /**
     * \param flow a flow index
     * \return the hops of the path it was assigned, first switch first
     */
    const std::vector<Hop>& GetPath(uint32_t flow) const;

    /**
     * \param flow a flow index
     * \return the number of equal-cost paths it had to choose from
     */
    uint32_t GetNCandidatePaths(uint32_t flow) const;

    /**
     * \param flow a flow index
     * \return the key its pinned entries match
     */
    RoceFlowKey GetFlowKey(uint32_t flow) const;

    /**
     * \brief Write one line per link: node, port, load.
     * \param os the stream
     */
    void PrintLinkLoads(std::ostream& os) const;

    /** \brief Remove the pinned entries of every RoceSwitch in the simulation. */
    static void ClearPinnedRoutes();

  private:
    /**
     * \brief The equal-cost shortest paths of a flow.
     * \param flow the flow
     * \return the paths, at most m_maxPaths
     */
    std::vector<std::vector<Hop>> EnumeratePaths(const RoceTeFlow& flow) const;

    std::vector<RoceTeFlow> m_flows;
    uint32_t m_maxPaths{1024};
    bool m_computed{false};
    std::vector<std::vector<Hop>> m_paths; //!< per flow, the assigned path
    std::vector<uint32_t> m_nCandidates;   //!< per flow, paths it had
    std::vector<LinkLoad> m_loads;         //!< sorted by link
    double m_maxLoad{0};
};

} // namespace ns3

#endif /* ROCE_TE_HELPER_H */
