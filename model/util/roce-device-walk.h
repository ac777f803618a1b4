/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_DEVICE_WALK_H
#define ROCE_DEVICE_WALK_H

#include "ns3/net-device.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Visit every device of class T in the simulation.
 *
 * Nodes are visited in NodeList order (by node id), and on each node its
 * devices by interface index. The order is part of the contract: what
 * depends on it (random stream numbers, the order of report lines and
 * monitor rows) stays the same from run to run.
 *
 * Not for a packet's path: it walks every device of every node.
 *
 * \tparam T a NetDevice class (RocePfcNetDevice, RoceNetDevice, RoceSwitchPort, ...)
 * \tparam Visit a callable
 * \param visit called as visit(const Ptr<Node>& node, const Ptr<T>& device)
 *        for each device that is a T
 */
template <typename T, typename Visit>
inline void
RoceForEachDevice(Visit&& visit)
{
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        const Ptr<Node>& node = *it;
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (const Ptr<T> device = DynamicCast<T>(node->GetDevice(d)))
            {
                visit(node, device);
            }
        }
    }
}

/**
 * \ingroup rocev2
 * \brief Visit every node that has an object of class T aggregated, in
 * NodeList order: RoceForEachNodeObject<RoceSwitch> visits the switches.
 *
 * \tparam T an Object class aggregated to nodes
 * \tparam Visit a callable
 * \param visit called as visit(const Ptr<Node>& node, const Ptr<T>& object)
 */
template <typename T, typename Visit>
inline void
RoceForEachNodeObject(Visit&& visit)
{
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        if (const Ptr<T> object = (*it)->GetObject<T>())
        {
            visit(*it, object);
        }
    }
}

} // namespace ns3

#endif /* ROCE_DEVICE_WALK_H */
