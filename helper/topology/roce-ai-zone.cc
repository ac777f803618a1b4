/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RoceAiZone: the queries, summary, JSON and picture of a fabric built by
// RoceAiZoneHelper (roce-ai-zone-helper.cc builds it).

#include "roce-ai-zone.h"

#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-absent-device.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-error.h"
#include "ns3/roce-mpi-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-nvlink-domain.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-switch.h"

#include <iomanip>
#include <map>
#include <set>

namespace ns3
{

Ipv4Address
RoceAiZone::MakeAddress(uint32_t zone, uint32_t leaf, uint32_t host)
{
    return Ipv4Address((10u << 24) | (zone << 16) | (leaf << 8) | host);
}

Ptr<RoceNvlinkDomain>
RoceAiZone::GetNvlink(uint32_t gpu) const
{
    return GetServer(gpu)->GetObject<RoceNvlinkDomain>();
}

uint32_t
RoceAiZone::GetLocalGpu(uint32_t gpu) const
{
    return gpu % gpusPerServer;
}

uint32_t
RoceAiZone::GetNGpus() const
{
    return static_cast<uint32_t>(nics.size());
}

uint32_t
RoceAiZone::GetNicsPerRack() const
{
    return serversPerRack * gpusPerServer;
}

uint32_t
RoceAiZone::GetLeavesPerZone() const
{
    return racksPerZone * (railOptimized ? gpusPerServer : 1);
}

uint32_t
RoceAiZone::GetNicsPerLeaf() const
{
    return railOptimized ? serversPerRack : GetNicsPerRack();
}

uint32_t
RoceAiZone::GetLeaf(uint32_t gpu) const
{
    return railOptimized ? GetRack(gpu) * gpusPerServer + gpu % gpusPerServer : GetRack(gpu);
}

Ptr<Node>
RoceAiZone::GetLeafSwitch(uint32_t gpu) const
{
    return rtsw.Get(GetZone(gpu) * GetLeavesPerZone() + GetLeaf(gpu));
}

Ptr<Node>
RoceAiZone::GetServer(uint32_t gpu) const
{
    return GetNicDevice(gpu)->GetNode();
}

Ptr<RoceNetDevice>
RoceAiZone::GetNic(uint32_t gpu) const
{
    Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(GetNicDevice(gpu));
    ROCE_ERROR_IF(!nic,
                  "RoceAiZone: GPU " << gpu << " runs on MPI rank "
                                     << nics[gpu]->GetNode()->GetSystemId() << ", not this rank "
                                     << RoceMpiHelper::GetRank()
                                     << ", which holds only its address and QP numbers "
                                        "(GetNicDevice)");
    return nic;
}

Ptr<NetDevice>
RoceAiZone::GetNicDevice(uint32_t gpu) const
{
    ROCE_ERROR_IF(gpu >= nics.size(),
                  "RoceAiZone: GPU " << gpu << " out of range (" << nics.size() << " GPUs)");
    return nics[gpu];
}

Ipv4Address
RoceAiZone::GetAddress(uint32_t gpu) const
{
    const uint32_t host =
        railOptimized ? (gpu / gpusPerServer) % serversPerRack : gpu % GetNicsPerRack();
    return MakeAddress(GetZone(gpu), GetLeaf(gpu), host);
}

uint32_t
RoceAiZone::GetZone(uint32_t gpu) const
{
    return gpu / (GetNicsPerRack() * racksPerZone);
}

uint32_t
RoceAiZone::GetRack(uint32_t gpu) const
{
    return (gpu / GetNicsPerRack()) % racksPerZone;
}

uint32_t
RoceAiZone::GetSwitchHops(uint32_t a, uint32_t b) const
{
    if (GetZone(a) != GetZone(b))
    {
        return 5;
    }
    return GetLeaf(a) == GetLeaf(b) ? 1 : 3;
}

uint32_t
RoceAiZone::GetMaxSwitchHops() const
{
    if (zones > 1)
    {
        return 5;
    }
    return GetLeavesPerZone() > 1 ? 3 : 1;
}

uint32_t
RoceAiZone::GetNSwitches() const
{
    return rtsw.GetN() + ctsw.GetN() + atsw.GetN();
}

uint64_t
RoceAiZone::GetNRoutes() const
{
    uint64_t n = 0;
    for (const NodeContainer* c : {&rtsw, &ctsw, &atsw})
    {
        for (auto it = c->Begin(); it != c->End(); ++it)
        {
            n += (*it)->GetObject<RoceSwitch>()->GetNRoutes();
        }
    }
    return n;
}

double
RoceAiZone::GetBisectionBps() const
{
    const double rate = static_cast<double>(linkRate.GetBitRate());
    // What one leaf can send out of itself: its NICs or its uplinks.
    const double leafOut = std::min(GetNicsPerLeaf(), uplinksPerRtsw) * rate;
    if (zones > 1)
    {
        // Half of the zones send to the other half; each zone is limited by
        // its leaves' uplinks and by its CTSWs' links to the ATSWs.
        const double zoneOut =
            std::min(GetLeavesPerZone() * leafOut, double(ctswsPerZone) * uplinksPerCtsw * rate);
        return (zones / 2) * zoneOut;
    }
    // Half of the racks (each with all of its leaves) send to the other half.
    return (racksPerZone / 2) * (GetLeavesPerZone() / racksPerZone) * leafOut;
}

double
RoceAiZone::GetRackOversubscription() const
{
    return double(GetNicsPerLeaf()) / uplinksPerRtsw;
}

void
RoceAiZone::PrintSummary(std::ostream& os) const
{
    if (fatTreeK > 0)
    {
        os << "k-ary fat-tree, k=" << fatTreeK << " (RTSW=edge, CTSW=aggregation, ATSW=core): ";
    }
    else
    {
        os << "AI Zone fabric" << (railOptimized ? " (rail-optimised)" : "") << ": ";
    }
    os << tiers << " tiers, " << zones << " zone(s) x " << racksPerZone << " racks x "
       << serversPerRack << " servers x " << gpusPerServer << " GPUs, "
       << linkRate.GetBitRate() / 1e9 << " Gb/s links\n";
    os << std::left << std::setw(8) << "tier" << std::right << std::setw(10) << "switches"
       << std::setw(12) << "ports each" << std::setw(14) << "routes each"
       << "\n";
    auto row = [&os](const char* name, const NodeContainer& c) {
        if (c.GetN() == 0)
        {
            return;
        }
        Ptr<RoceSwitch> sw = c.Get(0)->GetObject<RoceSwitch>();
        os << std::left << std::setw(8) << name << std::right << std::setw(10) << c.GetN()
           << std::setw(12) << sw->GetNPorts() << std::setw(14) << sw->GetNRoutes() << "\n";
    };
    row(railOptimized ? "rail" : "RTSW", rtsw);
    row("CTSW", ctsw);
    row("ATSW", atsw);
    os << "GPUs/NICs " << GetNGpus() << ", servers " << servers.GetN() << ", links " << links
       << ", forwarding entries " << GetNRoutes() << "\n";
    os << "bisection " << GetBisectionBps() / 1e9 << " Gb/s, leaf oversubscription "
       << GetRackOversubscription() << ":1";
    if (tiers == 3)
    {
        os << ", CTSW-ATSW oversubscription " << oversubscription << ":1";
    }
    os << ", max switch hops " << GetMaxSwitchHops() << "\n";
}

void
RoceAiZone::WriteJson(std::ostream& os, double buildSeconds, double initSeconds) const
{
    os << "{\n"
       << "  \"tiers\": " << tiers << ",\n"
       << "  \"zones\": " << zones << ",\n"
       << "  \"racks_per_zone\": " << racksPerZone << ",\n"
       << "  \"rail_optimized\": " << (railOptimized ? "true" : "false") << ",\n"
       << "  \"fat_tree_k\": " << fatTreeK << ",\n"
       << "  \"gpus\": " << GetNGpus() << ",\n"
       << "  \"nics\": " << GetNGpus() << ",\n"
       << "  \"servers\": " << servers.GetN() << ",\n"
       << "  \"switches\": {\"rtsw\": " << rtsw.GetN() << ", \"ctsw\": " << ctsw.GetN()
       << ", \"atsw\": " << atsw.GetN() << "},\n"
       << "  \"links\": " << links << ",\n"
       << "  \"forwarding_entries\": " << GetNRoutes() << ",\n"
       << "  \"bisection_gbps\": " << GetBisectionBps() / 1e9 << ",\n"
       << "  \"oversubscription\": " << (tiers == 3 ? oversubscription : 1.0) << ",\n"
       << "  \"rack_oversubscription\": " << GetRackOversubscription() << ",\n"
       << "  \"max_switch_hops\": " << GetMaxSwitchHops() << ",\n"
       << "  \"build_seconds\": " << buildSeconds;
    if (initSeconds >= 0)
    {
        os << ",\n  \"init_seconds\": " << initSeconds;
    }
    os << "\n}\n";
}

void
RoceAiZone::WriteDot(std::ostream& os) const
{
    const uint32_t nodes = servers.GetN() + GetNSwitches();
    ROCE_ERROR_IF(nodes > MAX_DOT_NODES,
                  "RoceAiZone::WriteDot: the fabric has " << nodes << " nodes (servers and "
                                                          << "switches); a picture is drawn "
                                                          << "for at most " << MAX_DOT_NODES);
    // Node id -> DOT name; tiers bottom to top.
    std::map<uint32_t, std::string> names;
    os << "graph fabric {\n  rankdir=BT; splines=false; nodesep=0.15;\n"
       << "  node [fontname=\"Helvetica\", fontsize=10];\n";
    auto tier = [&](const NodeContainer& c, const char* prefix, const char* shape) {
        if (c.GetN() == 0)
        {
            return;
        }
        os << "  { rank=same;\n";
        std::string chain;
        for (uint32_t i = 0; i < c.GetN(); ++i)
        {
            std::string name = std::string(prefix) + std::to_string(i);
            names[c.Get(i)->GetId()] = name;
            os << "    " << name << " [shape=" << shape << "];\n";
            chain += (i ? " -- " : "") + name;
        }
        // An invisible chain keeps each row in index order.
        os << "    " << chain << " [style=invis];\n  }\n";
    };
    tier(servers, "srv", "box");
    tier(rtsw, railOptimized ? "rail" : "rtsw", "ellipse");
    tier(ctsw, "ctsw", "ellipse");
    tier(atsw, "atsw", "ellipse");
    // Parallel links counted once per node pair, from the lower-numbered end.
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> edges;
    for (const NodeContainer* c : {&servers, &rtsw, &ctsw, &atsw})
    {
        for (auto it = c->Begin(); it != c->End(); ++it)
        {
            Ptr<Node> n = *it;
            for (uint32_t d = 0; d < n->GetNDevices(); ++d)
            {
                Ptr<RocePfcNetDevice> dev = DynamicCast<RocePfcNetDevice>(n->GetDevice(d));
                Ptr<RoceChannel> ch = dev ? DynamicCast<RoceChannel>(dev->GetChannel()) : nullptr;
                if (!ch)
                {
                    continue;
                }
                const uint32_t peer = ch->GetPeer(PeekPointer(dev))->GetNode()->GetId();
                if (n->GetId() < peer)
                {
                    ++edges[{n->GetId(), peer}];
                }
            }
        }
    }
    for (const auto& [ends, count] : edges)
    {
        os << "  " << names[ends.first] << " -- " << names[ends.second];
        if (count > 1)
        {
            os << " [label=\"x" << count << "\", penwidth=2]";
        }
        os << ";\n";
    }
    os << "}\n";
}

void
RoceAiZone::PrintPartition(std::ostream& os) const
{
    struct Part
    {
        uint32_t servers{0};
        uint32_t switches{0};
        uint32_t gpus{0};
        uint32_t links{0};
        uint32_t cut{0};
    };

    std::map<uint32_t, Part> parts;
    for (auto it = servers.Begin(); it != servers.End(); ++it)
    {
        parts[(*it)->GetSystemId()].servers++;
        parts[(*it)->GetSystemId()].gpus += gpusPerServer;
    }
    // Every link once, from its end with the smaller (node, interface); a
    // link that this MPI rank did not build counts too (RoceLinkEnd).
    Time lookahead = Time::Max();
    for (const NodeContainer* tier : {&rtsw, &ctsw, &atsw, &servers})
    {
        for (auto it = tier->Begin(); it != tier->End(); ++it)
        {
            const uint32_t me = (*it)->GetSystemId();
            if (tier != &servers)
            {
                parts[me].switches++;
            }
            for (uint32_t d = 0; d < (*it)->GetNDevices(); ++d)
            {
                RoceLinkEnd end;
                if (!RoceLinkEnd::Of((*it)->GetDevice(d), &end) ||
                    std::make_pair(end.peerNode, end.peerIf) < std::make_pair((*it)->GetId(), d))
                {
                    continue;
                }
                const uint32_t peer = NodeList::GetNode(end.peerNode)->GetSystemId();
                parts[me].links++;
                if (peer != me)
                {
                    parts[peer].links++;
                    parts[me].cut++;
                    parts[peer].cut++;
                    lookahead = std::min(lookahead, end.delay);
                }
            }
        }
    }
    uint64_t cut = 0;
    for (const auto& [r, p] : parts)
    {
        cut += p.cut;
    }
    os << "# partition: " << parts.size() << " rank(s), " << cut / 2 << " of " << links
       << " links on the cut";
    if (cut > 0)
    {
        os << ", lookahead " << lookahead.GetNanoSeconds() << " ns";
    }
    os << "\n";
    for (const auto& [r, p] : parts)
    {
        os << "#   rank " << r << ": " << p.gpus << " GPUs, " << p.servers << " servers, "
           << p.switches << " switches, " << p.links << " links (" << p.cut << " on the cut)\n";
    }
}

} // namespace ns3
