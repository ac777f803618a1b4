/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_ABSENT_DEVICE_H
#define ROCE_ABSENT_DEVICE_H

#include "roce-nic-endpoint.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief What a link is, seen from one of its ends: the node and interface
 * at the other end, both ends' rates and the propagation delay.
 */
struct RoceLinkEnd
{
    uint32_t peerNode{0}; //!< node id at the other end
    uint32_t peerIf{0};   //!< interface index of the device there
    DataRate rate;        //!< this end's rate (its sending direction)
    DataRate peerRate;    //!< the other end's rate
    Time delay;           //!< propagation delay

    /**
     * \param device a device of a RoCE fabric: a RocePfcNetDevice on a
     *        RoceChannel or a RoceAbsentDevice
     * \param end where to put its link
     * \return false if the device has no link (not a RoCE device, or detached)
     */
    static bool Of(Ptr<const NetDevice> device, RoceLinkEnd* end);
};

/**
 * \ingroup rocev2
 * \brief In place of a switch port or a NIC that this MPI rank does not build.
 *
 * A rank of a fabric split over MPI ranks builds the links of its own
 * nodes and the links on the cut (RoceHelper::Install). Of a link whose two
 * nodes run on other ranks it keeps a RoceAbsentDevice at each end, so that:
 * - every node's devices keep the interface numbers of the whole fabric
 *   (frames between ranks address their receiving device by them);
 * - what the link is (RoceLinkEnd) stays known to those who walk the fabric
 *   (RoceFctStats' ideal path, PrintPartition);
 * - a NIC of another rank keeps what this rank's QPs to it need: its IPv4
 *   address and the QP numbers its own rank gives (ReserveQpn, as
 *   RoceNetDevice::ConnectPair uses it). Programs and collectives address
 *   such a GPU by this device (RoceAiZone::nics, RoceCommunicator::AddRank).
 *   It is then a RoceNicEndpoint, as a RoceNetDevice is; a port's stand-in
 *   (no IPv4 address set) is none.
 *
 * It never sends or receives, and costs about a hundred bytes instead of a
 * port with its queues (1.5 KB and more) or a NIC (2.5 KB).
 */
class RoceAbsentDevice : public NetDevice, public RoceNicEndpoint
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /** \param link the link this end stands for */
    void SetLink(const RoceLinkEnd& link);
    /** \return the link this end stands for */
    const RoceLinkEnd& GetLink() const;

    /** \param address the IPv4 address of the NIC this device stands in for */
    void SetIpv4Address(Ipv4Address address);
    /** \return the IPv4 address of the NIC this device stands in for (unset for a port) */
    Ipv4Address GetIpv4Address() const override;
    /**
     * \brief Take the NIC's next QP number: what its own rank gives the QP
     * that a connection from this rank adds there.
     * \return the QP number; a RoceError for a port's stand-in
     */
    uint32_t ReserveQpn() override;
    /** \return QP numbers taken with ReserveQpn */
    uint32_t GetNReservedQpns() const;

    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;
    /** \return whether it stands in for a NIC: its IPv4 address is set */
    bool IsNicEndpoint() const override;

  private:
    RoceLinkEnd m_link;         //!< the link
    Ptr<Node> m_node;           //!< its node
    Mac48Address m_address;     //!< the MAC address the device would have had
    uint32_t m_ifIndex{0};      //!< its interface index
    Ipv4Address m_ipv4;         //!< the NIC's IPv4 address
    uint32_t m_reservedQpns{0}; //!< QP numbers taken (a NIC)
};

} // namespace ns3

#endif /* ROCE_ABSENT_DEVICE_H */
