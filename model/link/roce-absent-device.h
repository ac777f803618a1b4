/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_ABSENT_DEVICE_H
#define ROCE_ABSENT_DEVICE_H

#include "ns3/data-rate.h"
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
     *        RoceChannel, a RoceAbsentDevice, or a NIC of another MPI rank
     *        whose link this rank did not build
     * \param end where to put its link
     * \return false if the device has no link (not a RoCE device, or detached)
     */
    static bool Of(Ptr<const NetDevice> device, RoceLinkEnd* end);
};

/**
 * \ingroup rocev2
 * \brief The link of a NIC of another MPI rank, aggregated to that NIC when
 * this rank did not build the NIC's link (see RoceAbsentDevice).
 */
class RoceAbsentLink : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    RoceLinkEnd link; //!< the NIC's link
};

/**
 * \ingroup rocev2
 * \brief In place of a switch port that this MPI rank does not build.
 *
 * A rank of a fabric split over MPI ranks builds the links of its own
 * nodes and the links on the cut (RoceHelper::Install). Of a link whose two
 * nodes run on other ranks it keeps, at each end, a RoceAbsentDevice (at a
 * switch) or a NIC without a link (at a host, for its address and QP
 * numbers; RoceAbsentLink), so that:
 * - every node's devices keep the interface numbers of the whole fabric
 *   (frames between ranks address their receiving device by them);
 * - what the link is (RoceLinkEnd) stays known to those who walk the fabric
 *   (RoceFctStats' ideal path, PrintPartition).
 *
 * It never sends or receives, and costs a few dozen bytes instead of a
 * port with its queues.
 */
class RoceAbsentDevice : public NetDevice
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /** \param link the link this end stands for */
    void SetLink(const RoceLinkEnd& link);
    /** \return the link this end stands for */
    const RoceLinkEnd& GetLink() const;

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

  private:
    RoceLinkEnd m_link;     //!< the link
    Ptr<Node> m_node;       //!< its node
    Mac48Address m_address; //!< the MAC address the port would have had
    uint32_t m_ifIndex{0};  //!< its interface index
};

} // namespace ns3

#endif /* ROCE_ABSENT_DEVICE_H */
