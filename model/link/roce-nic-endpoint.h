/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NIC_ENDPOINT_H
#define ROCE_NIC_ENDPOINT_H

#include "ns3/ipv4-address.h"

#include <cstdint>

namespace ns3
{

class NetDevice;

/**
 * \ingroup rocev2
 * \brief What a NIC is to the other end of a queue pair: its IPv4 address
 * and the QP numbers it gives.
 *
 * Two devices are NICs in that sense: a RoceNetDevice, and a
 * RoceAbsentDevice that stands in for the NIC of a GPU whose link another
 * MPI rank builds (it keeps the NIC's address and numbers QPs as the NIC's
 * own rank does). A RoceAbsentDevice that stands in for a switch port is
 * none: it has no address and no QPs.
 *
 * Code that connects QPs or addresses a GPU (RoceNetDevice::ConnectPair,
 * IsNic, AddressOf) looks the interface up once with Of() instead of asking
 * for each device class. Nothing on a packet's path calls through it.
 */
class RoceNicEndpoint
{
  public:
    virtual ~RoceNicEndpoint();

    /**
     * \param device a device, or nullptr
     * \return the device as a NIC end, or nullptr if it is none (not a NIC,
     *         a switch port's stand-in, or null)
     */
    static RoceNicEndpoint* Of(NetDevice* device);

    /**
     * \param device a device, or nullptr
     * \return the device as a NIC end, or nullptr if it is none
     */
    static const RoceNicEndpoint* Of(const NetDevice* device);

    /** \return the NIC's IPv4 address */
    virtual Ipv4Address GetIpv4Address() const = 0;

    /**
     * \brief Take the NIC's next QP number without a queue pair in this
     * process: what the NIC's own MPI rank gives the QP that a connection
     * from this rank adds there.
     * \return the QP number
     */
    virtual uint32_t ReserveQpn() = 0;

  protected:
    /**
     * \return whether the device is a NIC end; false for a stand-in of a
     *         switch port (the one device class that can be either)
     */
    virtual bool IsNicEndpoint() const = 0;
};

} // namespace ns3

#endif /* ROCE_NIC_ENDPOINT_H */
