/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HELPER_H
#define ROCE_HELPER_H

#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/trace-helper.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class RocePfcNetDevice;

/**
 * \ingroup rocev2
 * \brief Builds RoCEv2 links, NICs and queue pairs, in the style of
 * PointToPointHelper.
 *
 * Install(a, b) joins two nodes with a RoceChannel. Each end becomes a
 * RoceNetDevice (NIC) on a host, or a switch port on a node that carries a
 * RoceSwitch (see RoceSwitchHelper). NICs receive IPv4 addresses from the
 * helper's address generator. CreateQp() connects two NICs with an RC queue
 * pair. Pcap output goes through the usual EnablePcap() calls (link type
 * Ethernet; Wireshark decodes RoCEv2 BTH and PFC frames).
 */
class RoceHelper : public PcapHelperForDevice
{
  public:
    RoceHelper();

    /**
     * \brief Set an attribute of every port created: NICs and switch ports
     * (RocePfcNetDevice attributes such as DataRate, PauseQuanta, ReceiveErrorModel).
     * \param name attribute name
     * \param value attribute value
     */
    void SetDeviceAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of the NICs only (RoceNetDevice attributes such as
     * PayloadMtu, CongestionControl, RxDrainRate).
     * \param name attribute name
     * \param value attribute value
     */
    void SetNicAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of the links (RoceChannel, e.g. Delay).
     * \param name attribute name
     * \param value attribute value
     */
    void SetChannelAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Select the congestion control every NIC installed from now on
     * gives its queue pairs.
     * \param name a short name (none, dcqcn, hpcc, timely, dctcp) or a
     *        RoceCongestionOps TypeId name; unknown names are fatal
     *
     * This is the NIC half of a choice only, with the algorithm's own
     * attribute defaults. RoceCcHelper applies a whole choice: the NICs'
     * algorithm and parameters (a DCQCN preset) and the switches' marking
     * that goes with them.
     */
    void SetCongestionControl(const std::string& name);

    /**
     * \brief Set an attribute of the selected congestion control (e.g. "G"
     * for DCQCN, "Eta" for HPCC, "BaseRtt" for any).
     * \param name attribute name \param value its value
     */
    void SetCongestionControlAttribute(std::string name, const AttributeValue& value);

    /**
     * \return a congestion-control object configured as SetCongestionControl,
     * and SetCongestionControlAttribute said (the prototype
     * each installed NIC gets), or nullptr if none was selected
     */
    Ptr<RoceCongestionOps> CreateCongestionControl() const;

    /**
     * \brief Set an attribute of the queue pairs CreateQp makes (RoceQueuePair,
     * e.g. Priority, RetransmitTimeout).
     * \param name attribute name
     * \param value attribute value
     */
    void SetQpAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Where NIC addresses come from.
     * \param network the network
     * \param mask its mask
     * \param base the first host part to use
     */
    void SetAddressBase(Ipv4Address network,
                        Ipv4Mask mask,
                        Ipv4Address base = Ipv4Address("0.0.0.1"));

    /**
     * \brief Join two nodes with a link.
     * \param a first node
     * \param b second node
     * \return the two ends (a's first)
     */
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);

    /**
     * \brief Join the two nodes of a container with a link.
     * \param c exactly two nodes
     * \return the two ends
     */
    NetDeviceContainer Install(NodeContainer c);

    /**
     * \brief Create a connected RC queue pair between two NICs.
     * \param a the first NIC
     * \param b the second NIC
     * \return the QP on a and the QP on b; across MPI ranks, null for a NIC
     *         of another rank (its rank holds that QP; here only its number
     *         is reserved, RoceNetDevice::ConnectPair)
     */
    std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>> CreateQp(Ptr<NetDevice> a, Ptr<NetDevice> b);

    /**
     * \brief Create a QP between the first NICs of two nodes.
     * \param a first node
     * \param b second node
     * \return the QP on a and the QP on b
     */
    std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>> CreateQpOnNodes(Ptr<Node> a, Ptr<Node> b);

    /**
     * \brief Create a QP from a NIC to the NIC that owns an address.
     * \param a the local NIC
     * \param remote the remote NIC's IPv4 address
     * \return the QP on a and the QP on the remote NIC
     */
    std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>> CreateQp(Ptr<NetDevice> a,
                                                               Ipv4Address remote);

    /**
     * \param node a node
     * \param index which NIC (0 = first)
     * \return the node's index-th RoceNetDevice; aborts with a clear message if none
     */
    static Ptr<RoceNetDevice> GetNic(Ptr<Node> node, uint32_t index = 0);

    /**
     * \param node a node
     * \param index which NIC (0 = first)
     * \return the node's index-th NIC: its RoceNetDevice, or across MPI
     *         ranks, on a node of another rank whose link this rank did not
     *         build, the RoceAbsentDevice that stands in for it (what
     *         CreateQp, RoceCommunicator::AddRank and RoceWorkloadHelper
     *         take); aborts with a clear message if none
     */
    static Ptr<NetDevice> GetNicDevice(Ptr<Node> node, uint32_t index = 0);

    /**
     * \param address an IPv4 address
     * \return the NIC that owns it, or nullptr
     */
    static Ptr<RoceNetDevice> FindNic(Ipv4Address address);

  private:
    /**
     * \brief Create one end of a link on a node.
     * \param node the node
     * \return the device
     */
    Ptr<RocePfcNetDevice> CreateEnd(Ptr<Node> node);

    /**
     * \brief Stand in for a link whose two nodes run on other MPI ranks: a
     * RoceAbsentDevice at each end, with what the link is (at a host also
     * the NIC's IPv4 address, for QPs to it).
     * \param a one node \param b the other
     * \return the two ends
     */
    NetDeviceContainer InstallAbsent(Ptr<Node> a, Ptr<Node> b);

    /** \return the delay the channel factory gives */
    Time ChannelDelay();

    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    ObjectFactory m_nicFactory;
    ObjectFactory m_portFactory;
    ObjectFactory m_channelFactory;
    ObjectFactory m_qpFactory;
    ObjectFactory m_ccFactory; //!< congestion control; TypeId unset until selected
    uint32_t m_network;
    uint32_t m_mask;
    uint32_t m_nextHost;
    Time m_channelDelay{-1}; //!< ChannelDelay(), -1 until read (SetChannelAttribute resets it)
};

} // namespace ns3

#endif /* ROCE_HELPER_H */
