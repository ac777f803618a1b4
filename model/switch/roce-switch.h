/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_H
#define ROCE_SWITCH_H

#include "roce-flow-pin-table.h"
#include "roce-flowlet-table.h"
#include "roce-route-table.h"
#include "roce-shared-buffer-mmu.h"
#include "roce-switch-port.h"

#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <string>
#include <vector>

namespace ns3
{

class Node;
class UniformRandomVariable;

/**
 * \ingroup rocev2
 * \brief A PFC-capable RoCE switch, aggregated to a Node. It never touches
 * the ns-3 IP stack.
 *
 * Per packet: the ingress port parses the frame's first bytes once
 * (RoceFrame). Receive() looks the destination up in a prefix table (one hash
 * lookup per distinct prefix length, so state grows with racks, not hosts),
 * picks an egress port of the matching ECMP group by RoceEcmpHash over the
 * 5-tuple (plus the destination QP with E-ECMP) and this switch's seed, and
 * enqueues the frame on that port's RoceEgressQueueDisc, which asks the
 * RoceSharedBufferMmu for admission. No header is rewritten.
 *
 * Load balancing beyond ECMP (the LoadBalancing attribute) replaces the hash
 * choice within the group: "flowlet" keeps a flow on its port while its
 * packets follow each other within FlowletGap and lets a new flowlet take a
 * new port (RoceFlowletTable; FlowletChoice "hash" or "least-loaded"),
 * "spray" picks a port per packet (SprayMode "random" or "round-robin"),
 * "adaptive" sends each packet to the group's port with the fewest bytes
 * queued in the packet's priority. Per-flow pinned entries
 * (AddPinnedRoute, installed by RoceTeHelper) are consulted before the
 * prefix table. With "ecmp" and no pinned entry, forwarding costs what it
 * did without these features: one more predictable branch per packet.
 *
 * The MMU decides PFC and the switch acts on it: the switch gives the MMU a
 * PFC callback, and when a (port, PG) crosses into XOFF or back to XON the
 * switch has that port send the pause or resume frame.
 *
 * Config paths: the ports are the ObjectVector attribute PortList and the MMU
 * the Pointer attribute Mmu, so e.g.
 * /NodeList/N/$ns3::RoceSwitch/PortList/P/EgressQueueDisc/EcnKmin and
 * /NodeList/N/$ns3::RoceSwitch/Mmu/Alpha reach them.
 */
class RoceSwitch : public Object
{
  public:
    static constexpr const char* DROP_NO_ROUTE = "no-route"; //!< no forwarding entry
    static constexpr const char* DROP_NOT_IPV4 = "not-ipv4"; //!< not an IPv4 frame

    /** How a switch chooses among the ports of an ECMP group (LoadBalancing attribute). */
    enum LoadBalancing : uint8_t
    {
        LB_ECMP,     //!< "ecmp": flow hash, one port per flow
        LB_FLOWLET,  //!< "flowlet": a new choice after an idle gap
        LB_SPRAY,    //!< "spray": a choice per packet, random or round robin
        LB_ADAPTIVE, //!< "adaptive": the least-loaded port, per packet
    };

    /**
     * TracedCallback signature of NewFlowlet.
     * \param flowHash the flow's ECMP hash
     * \param port the egress port the new flowlet takes
     */
    typedef void (*NewFlowletTracedCallback)(uint64_t flowHash, uint32_t port);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceSwitch();
    ~RoceSwitch() override;

    /**
     * \brief Add a port. Its egress queue disc is created from the switch's
     * queue-disc factory.
     * \param port the port (already added to the node)
     * \return its index
     */
    uint32_t AddPort(Ptr<RoceSwitchPort> port);

    /** \return number of ports */
    uint32_t GetNPorts() const;

    /** \param i port index \return the port */
    Ptr<RoceSwitchPort> GetPort(uint32_t i) const;

    /** \param mmu the buffer model */
    void SetMmu(Ptr<RoceSharedBufferMmu> mmu);

    /** \return the buffer model */
    Ptr<RoceSharedBufferMmu> GetMmu() const;

    /** \param factory the factory egress queue discs are made from */
    void SetQueueDiscFactory(const ObjectFactory& factory);

    /**
     * \brief Add a forwarding entry.
     * \param network destination prefix
     * \param mask prefix mask
     * \param ports egress port indices (the ECMP group); each must exist
     */
    void AddRoute(Ipv4Address network, Ipv4Mask mask, const std::vector<uint32_t>& ports);

    /** \brief Remove every forwarding entry. */
    void ClearRoutes();

    /** \return number of forwarding entries */
    uint32_t GetNRoutes() const;

    /**
     * \param dst a destination address
     * \return the egress port indices of the longest matching prefix (empty if none)
     */
    std::vector<uint32_t> Lookup(Ipv4Address dst) const;

    /**
     * \brief The egress port ECMP chooses for a flow.
     * \param frame the flow's fields
     * \return the port index, or -1 without a route
     */
    int32_t SelectEgress(const RoceFrame& frame) const;

    /** \return the 64-bit seed this switch hashes with */
    uint64_t GetEcmpSeed() const;

    /** \param seed the EcmpSeed attribute (0 = derive from node id and run) */
    void SetEcmpSeed(uint32_t seed);

    /** \return the EcmpSeed attribute */
    uint32_t GetEcmpSeedAttribute() const;

    /**
     * \brief Select the load balancing by name (LoadBalancing attribute).
     * \param name "ecmp", "flowlet", "spray" or "adaptive"; other names abort
     */
    void SetLoadBalancing(const std::string& name);

    /** \return the LoadBalancing attribute */
    std::string GetLoadBalancing() const;

    /** \return the load balancing mode */
    LoadBalancing GetLoadBalancingMode() const;

    /** \return the names LoadBalancing accepts */
    static std::vector<std::string> GetLoadBalancingNames();

    /** \param gap the FlowletGap attribute (> 0) */
    void SetFlowletGap(Time gap);

    /** \return the FlowletGap attribute */
    Time GetFlowletGap() const;

    /** \param size the FlowletTableSize attribute (1..2^24 slots) */
    void SetFlowletTableSize(uint32_t size);

    /** \return the FlowletTableSize attribute */
    uint32_t GetFlowletTableSize() const;

    /** \param name the FlowletChoice attribute: "hash" or "least-loaded" */
    void SetFlowletChoice(const std::string& name);

    /** \return the FlowletChoice attribute */
    std::string GetFlowletChoice() const;

    /** \param name the SprayMode attribute: "random" or "round-robin" */
    void SetSprayMode(const std::string& name);

    /** \return the SprayMode attribute */
    std::string GetSprayMode() const;

    /**
     * \brief Pin a flow to an egress port: its frames leave by that port
     * whatever the route table, ECMP or load balancing would choose.
     * \param key the flow (source and destination address, UDP ports,
     *        destination QP)
     * \param port the egress port index; must exist
     */
    void AddPinnedRoute(const RoceFlowKey& key, uint32_t port);

    /** \brief Remove every pinned entry. */
    void ClearPinnedRoutes();

    /** \return number of pinned flows */
    uint32_t GetNPinnedRoutes() const;

    /**
     * \param key a flow
     * \return the port it is pinned to, or -1
     */
    int32_t GetPinnedPort(const RoceFlowKey& key) const;

    /** \return frames forwarded by a pinned entry */
    uint64_t GetPinnedFrames() const;

    /** \return flowlets started (LoadBalancing "flowlet") */
    uint64_t GetFlowletsStarted() const;

    /**
     * \brief Fix the random stream of packet spraying (SprayMode "random").
     * \param stream the stream index
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * \brief A port received a frame.
     * \param in the ingress port
     * \param p the frame
     * \param frame its parsed fields
     */
    void Receive(RoceSwitchPort* in, RoceFramePtr p, const RoceFrame& frame);

    /** \return bytes the MMU still counts (0 once drained) */
    uint64_t GetBufferedBytes() const;

    /** \return frames dropped for want of a route */
    uint64_t GetNoRouteDrops() const;
    /** \return frames the switch dropped before queueing them (no route, not IPv4), per reason */
    const RoceDropCounts& GetDropCounts() const;

    /** \brief Size the MMU for the current ports (done on first use if not earlier). */
    void Configure();

  protected:
    void DoDispose() override;
    void DoInitialize() override;

  private:
    /**
     * \brief The MMU's PFC callback: have an ingress port pause or resume its peer.
     * \param port the ingress port index
     * \param pg the priority group
     * \param xoff true to pause, false to resume
     */
    void SendPfc(uint32_t port, uint8_t pg, bool xoff);

    /**
     * \param dst destination address, host order
     * \return the ECMP group of the longest matching prefix, or -1
     */
    int32_t FindGroup(uint32_t dst) const;

    /**
     * \param f a frame's fields
     * \return its flow hash: the 5-tuple (plus the destination QP with
     *         E-ECMP) under this switch's seed
     */
    uint64_t FlowHash(const RoceFrame& f) const;

    /**
     * \brief The egress port when load balancing other than ECMP is selected
     * or flows are pinned (roce-switch-lb.cc).
     * \param frame the frame's fields
     * \param priority its priority
     * \return the port index, or -1 without a route
     */
    int32_t SelectEgressBalanced(const RoceFrame& frame, uint8_t priority);

    /**
     * \param group the ports of an ECMP group (more than one)
     * \param priority the packet's priority
     * \param hash where to start looking, and so how ties are broken
     * \return the port with the fewest bytes queued in that priority; among
     *         equals, the first from the hash's position on, in group order
     */
    uint32_t LeastLoaded(const std::vector<uint32_t>& group, uint8_t priority, uint64_t hash) const;

    /**
     * \brief Allocate what the selected load balancing needs (flowlet table,
     * spray random variable) and decide whether the balanced path is taken.
     */
    void PrepareLoadBalancing();

    std::vector<Ptr<RoceSwitchPort>> m_ports;
    Ptr<RoceSharedBufferMmu> m_mmu;
    ObjectFactory m_qdiscFactory;
    bool m_configured{false};
    uint32_t m_seedAttr{0};
    mutable uint64_t m_seed{0};
    mutable bool m_seedSet{false};
    bool m_useQp{false};

    RoceRouteTable m_routes; //!< prefix -> ECMP group index
    std::vector<std::vector<uint32_t>> m_groupIndices;
    uint32_t m_nRoutes{0};
    uint64_t m_noRouteDrops{0};
    RoceDropCounts m_dropCounts; //!< drops before queueing, per reason

    // Load balancing beyond ECMP and pinned flows (roce-switch-lb.cc)
    bool m_balanced{false}; //!< take SelectEgressBalanced: not ECMP, or flows pinned
    LoadBalancing m_lb{LB_ECMP};
    bool m_flowletLeastLoaded{false}; //!< FlowletChoice "least-loaded"
    bool m_sprayRoundRobin{false};    //!< SprayMode "round-robin"
    int64_t m_flowletGap{0};          //!< FlowletGap, time steps
    uint32_t m_flowletTableSize{4096};
    RoceFlowletTable m_flowlets;                //!< sized when flowlet is selected
    RoceFlowPinTable m_pins;                    //!< pinned flows
    std::vector<uint32_t> m_rrNext;             //!< round-robin position per ECMP group
    std::vector<RoceEgressQueueDisc*> m_qdiscs; //!< per port, for adaptive choices
    Ptr<UniformRandomVariable> m_sprayRng;      //!< SprayMode "random"
    int64_t m_sprayStream{-1};                  //!< AssignStreams' stream, -1 if none
    uint64_t m_pinnedFrames{0};
    uint64_t m_flowletsStarted{0};

    TracedCallback<Ptr<const Packet>, const char*> m_dropTrace;
    TracedCallback<uint64_t, uint32_t> m_newFlowletTrace;
};

} // namespace ns3

#endif /* ROCE_SWITCH_H */
