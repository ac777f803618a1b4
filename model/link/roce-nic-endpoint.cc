/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-nic-endpoint.h"

#include "ns3/net-device.h"

namespace ns3
{

RoceNicEndpoint::~RoceNicEndpoint() = default;

RoceNicEndpoint*
RoceNicEndpoint::Of(NetDevice* device)
{
    auto* end = dynamic_cast<RoceNicEndpoint*>(device);
    return end && end->IsNicEndpoint() ? end : nullptr;
}

const RoceNicEndpoint*
RoceNicEndpoint::Of(const NetDevice* device)
{
    const auto* end = dynamic_cast<const RoceNicEndpoint*>(device);
    return end && end->IsNicEndpoint() ? end : nullptr;
}

} // namespace ns3
