/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_HELPER_H
#define ROCE_SWITCH_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/queue-size.h"
#include "ns3/roce-switch.h"

#include <functional>
#include <string>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Turns nodes into RoCE switches and fills their forwarding tables.
 *
 * Install() aggregates a RoceSwitch (with its RoceSharedBufferMmu) to each node;
 * links made afterwards with RoceHelper::Install() give it ports.
 * PopulateRoutes() then computes, for every NIC address, the shortest paths
 * from every switch over switch-to-switch links and installs all equal-cost
 * next hops as one ECMP group. Host routes that share their group within a
 * /24 (a rack's prefix) collapse into one /24 entry, so tables grow with
 * racks rather than hosts.
 */
class RoceSwitchHelper
{
  public:
    RoceSwitchHelper();

    /**
     * \brief Set a RoceSwitch attribute (EcmpSeed, EcmpUseQp).
     * \param name attribute name \param value value
     */
    void SetSwitchAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set a RoceSharedBufferMmu attribute (BufferSize, Mode, Alpha, ...).
     * \param name attribute name \param value value
     */
    void SetMmuAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set a RoceEgressQueueDisc attribute (EcnKmin, Scheduler, ...).
     * \param name attribute name \param value value
     */
    void SetQueueDiscAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief DCTCP-style step marking on every egress queue disc installed
     * from now on: every ECN-capable packet is marked on arrival while its
     * queue holds more than K bytes (RED with Kmin = Kmax = K and Pmax = 1,
     * EcnMarkAt Enqueue, as in the DCTCP paper's section 3.1).
     * \param k the threshold K at `atRate`
     * \param atRate the link rate K is given for; K scales linearly with each
     *        port's rate (0: K as given at every rate)
     */
    void SetEcnStepMarking(QueueSize k, DataRate atRate);

    /**
     * \brief Make a node a switch.
     * \param node the node
     * \return the switch
     */
    Ptr<RoceSwitch> Install(Ptr<Node> node);

    /**
     * \brief Make nodes switches.
     * \param nodes the nodes
     */
    void Install(NodeContainer nodes);

    /**
     * \brief Fill the forwarding table of every RoceSwitch in the simulation
     * with shortest-path ECMP routes to every RoceNetDevice address.
     * Existing routes are replaced.
     */
    static void PopulateRoutes();

    /** Which links routing may use: true for a link that routing sees up. */
    using LinkFilter = std::function<bool(Ptr<RoceChannel>)>;

    /**
     * \brief PopulateRoutes over the links `routable` accepts (the others are
     * treated as down). RoceFaultHelper uses it so that routing learns a
     * link change only after its detection delay.
     * \param routable the filter
     */
    static void PopulateRoutes(const LinkFilter& routable);

    /**
     * \brief Fix the random streams of every switch (the RED marking coins of
     * their egress queue discs, then each switch's packet-spraying stream),
     * in node order, so that runs in one process repeat exactly.
     * \param stream first stream index
     * \return the number of streams used
     */
    static int64_t AssignStreams(int64_t stream);

    /** \return bytes still counted by the MMUs of all switches (0 when drained) */
    static uint64_t GetBufferedBytes();

  private:
    ObjectFactory m_switchFactory;
    ObjectFactory m_mmuFactory;
    ObjectFactory m_qdiscFactory;
};

} // namespace ns3

#endif /* ROCE_SWITCH_HELPER_H */
