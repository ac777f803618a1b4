/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <array>

namespace ns3
{

class RocePfcNetDevice;
class Packet;

/**
 * \ingroup rocev2
 * \brief A full-duplex point-to-point Ethernet link between two PfcNetDevices.
 *
 * The sending device computes the serialization time (frame + FCS + preamble,
 * SFD and IFG); the channel adds the propagation delay and schedules one
 * receive event at the peer. A hop therefore costs one receive event here,
 * plus one transmit-complete event at the sender only when another frame
 * waits there to follow it.
 */
class RoceChannel : public Channel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceChannel();

    /**
     * \brief Attach a device to one end of the link.
     * \param device the device; at most two may be attached
     */
    void Attach(Ptr<RocePfcNetDevice> device);

    /**
     * \brief Put a frame on the wire.
     * \param p the frame (Ethernet header included, FCS excluded)
     * \param src the sending device
     * \param txTime the serialization time of the frame
     */
    void Transmit(Ptr<Packet> p, const RocePfcNetDevice* src, Time txTime);

    /** \return the propagation delay */
    Time GetDelay() const;

    /**
     * \brief Take the link down or bring it up: both ends at once (see
     * RocePfcNetDevice::SetLinkUp).
     * \param up the new state
     */
    void SetLinkUp(bool up);

    /** \return true unless the link is down */
    bool IsLinkUp() const;

    /**
     * \param device one end of the link
     * \return the device at the other end, or nullptr
     */
    Ptr<RocePfcNetDevice> GetPeer(const RocePfcNetDevice* device) const;

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    Time m_delay;                                   //!< propagation delay
    std::array<Ptr<RocePfcNetDevice>, 2> m_devices; //!< the two ends
    std::size_t m_nDevices{0};                      //!< ends attached
    bool m_up{true};                                //!< the link is up
};

} // namespace ns3

#endif /* ROCE_CHANNEL_H */
