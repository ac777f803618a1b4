/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-hpcc-format.h"

#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/pointer.h"
#include "ns3/roce-error.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-resource-guard.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/string.h"

namespace ns3
{

Ipv4Address
RoceHpccFormat::HostAddress(uint32_t id)
{
    return Ipv4Address(0x0b000001u + (id / 256) * 0x10000u + (id % 256) * 0x100u);
}

NodeContainer
RoceHpccFormat::Build(const Topology& topology,
                      RoceHelper& roce,
                      RoceSwitchHelper& switches,
                      double errorRate,
                      int64_t stream)
{
    ROCE_ERROR_IF(topology.nodes == 0, "RoceHpccFormat::Build: the topology has no nodes");
    ROCE_ERROR_IF(topology.nodes > 65536,
                  "RoceHpccFormat::Build: " << topology.nodes
                                            << " nodes exceed the 65,536 addresses of 11.x.y.1");
    RoceResourceGuard::Check("RoceHpccFormat::Build: " + std::to_string(topology.nodes) + " nodes",
                             topology.links.size(),
                             0);
    NodeContainer nodes;
    nodes.Create(topology.nodes);
    for (uint32_t id : topology.switches)
    {
        switches.Install(nodes.Get(id));
    }
    std::vector<uint32_t> hostLine(topology.nodes, 0);
    int64_t next = stream;
    for (const Link& l : topology.links)
    {
        roce.SetDeviceAttribute("DataRate", DataRateValue(l.rate));
        roce.SetChannelAttribute("Delay", TimeValue(l.delay));
        NetDeviceContainer d = roce.Install(nodes.Get(l.a), nodes.Get(l.b));
        const double e = l.errorRate > 0 ? l.errorRate : errorRate;
        for (uint32_t end = 0; end < 2; ++end)
        {
            const uint32_t id = end == 0 ? l.a : l.b;
            if (!topology.isSwitch[id])
            {
                ROCE_ERROR_IF(hostLine[id] != 0,
                              "RoceHpccFormat::Build: line " << l.line << ": host " << id
                                                             << " has a second link (the first "
                                                                "on line "
                                                             << hostLine[id] << ")");
                hostLine[id] = l.line;
                DynamicCast<RoceNetDevice>(d.Get(end))->SetIpv4Address(HostAddress(id));
            }
            if (e > 0)
            {
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetAttribute("ErrorRate", DoubleValue(e));
                em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
                next += em->AssignStreams(next);
                d.Get(end)->SetAttribute("ReceiveErrorModel", PointerValue(em));
            }
        }
    }
    for (uint32_t id = 0; id < topology.nodes; ++id)
    {
        ROCE_ERROR_IF(!topology.isSwitch[id] && hostLine[id] == 0,
                      "RoceHpccFormat::Build: host " << id << " has no link");
    }
    RoceSwitchHelper::PopulateRoutes();
    return nodes;
}

} // namespace ns3
