/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_H
#define ROCE_SWITCH_H

#include "roce-route-table.h"
#include "roce-shared-buffer-mmu.h"
#include "roce-switch-port.h"

#include "ns3/ipv4-address.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

class Node;

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
     * \brief A port received a frame.
     * \param in the ingress port
     * \param p the frame
     * \param frame its parsed fields
     */
    void Receive(RoceSwitchPort* in, Ptr<Packet> p, const RoceFrame& frame);

    /** \return bytes the MMU still counts (0 once drained) */
    uint64_t GetBufferedBytes() const;

    /** \return frames dropped for want of a route */
    uint64_t GetNoRouteDrops() const;

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

    TracedCallback<Ptr<const Packet>, const char*> m_dropTrace;
};

} // namespace ns3

#endif /* ROCE_SWITCH_H */
