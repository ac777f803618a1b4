/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-ai-zone-helper.h"

#include "ns3/enum.h"
#include "ns3/node.h"
#include "ns3/queue-size.h"
#include "ns3/roce-absent-device.h"
#include "ns3/roce-error.h"
#include "ns3/roce-flow-engine.h"
#include "ns3/roce-mpi-helper.h"
#include "ns3/roce-resource-guard.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

RoceAiZoneHelper::RoceAiZoneHelper()
{
    m_delay[RTSW] = NanoSeconds(1500);
    m_delay[CTSW] = MicroSeconds(4);
    m_delay[ATSW] = MicroSeconds(4);
    m_roce.SetNicAttribute("PayloadMtu", UintegerValue(4096));
    // RTSW: shallow shared buffer with a dynamic threshold (tens of MB).
    m_switch[RTSW].SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("32MB")));
    m_switch[RTSW].SetMmuAttribute("Mode", EnumValue(RoceSharedBufferMmu::DYNAMIC));
    // CTSW and ATSW: deep (HBM) buffer statically partitioned over the ports.
    for (Tier t : {CTSW, ATSW})
    {
        m_switch[t].SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("2000MB")));
        m_switch[t].SetMmuAttribute("Mode", EnumValue(RoceSharedBufferMmu::PARTITIONED));
    }
}

void
RoceAiZoneHelper::SetTiers(uint32_t tiers)
{
    m_tiers = tiers;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetGpus(uint32_t gpus)
{
    m_gpus = gpus;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetZones(uint32_t zones)
{
    m_zones = zones;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetServersPerRack(uint32_t servers)
{
    m_servers = servers;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetGpusPerServer(uint32_t gpus)
{
    m_gpusPerServer = gpus;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetUplinks(uint32_t uplinks)
{
    m_uplinks = uplinks;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetCtsws(uint32_t ctsws)
{
    m_ctsws = ctsws;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetAtsws(uint32_t atsws)
{
    m_atsws = atsws;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetOversubscription(double ratio)
{
    m_oversub = ratio;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetAtswPlanes(uint32_t planes)
{
    m_planes = planes;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetRailOptimized(bool rail)
{
    m_rail = rail;
    m_fatTreeK = 0;
}

void
RoceAiZoneHelper::SetFatTree(uint32_t k)
{
    ROCE_ERROR_IF(k < 2 || k % 2 != 0 || k > 256,
                  "RoceAiZoneHelper: fat-tree k=" << k << " (must be even and 2..256)");
    const uint32_t h = k / 2;
    m_fatTreeK = k;
    m_tiers = 3;
    m_zones = k;         // pods
    m_gpus = k * h * h;  // k^3/4 hosts
    m_servers = h;       // hosts per edge switch
    m_gpusPerServer = 1; // one NIC per host
    m_uplinks = h;       // edge: one link to each aggregation switch
    m_ctsws = h;         // aggregation switches per pod
    m_oversub = 1;       // aggregation: k/2 down, k/2 up
    m_atsws = h * h;     // cores
    m_planes = h;        // aggregation switch i links to cores [i h, (i + 1) h)
    m_rail = false;
}

void
RoceAiZoneHelper::SetPreset(const std::string& name)
{
    // [Meta24]: an AI zone is 2 tiers of RTSWs and CTSWs, 3,072 GPUs with
    // 16 per rack (two 8-GPU servers) and non-blocking racks; the 24k-GPU
    // cluster joins 8 zones by ATSWs at 1:7.
    if (name == "meta-zone-3072" || name == "meta-cluster-24k")
    {
        // The shape only: link, NIC, buffer and NVLink settings are kept.
        const bool cluster = name == "meta-cluster-24k";
        m_tiers = cluster ? 3 : 2;
        m_zones = cluster ? 8 : 1;
        m_gpus = 3072 * m_zones;
        m_servers = 2;
        m_gpusPerServer = 8;
        m_uplinks = 16;
        m_ctsws = 16;
        m_atsws = 0;
        m_planes = 1;
        m_oversub = 7;
        m_rail = false;
        m_fatTreeK = 0;
        return;
    }
    std::string known;
    for (const auto& n : GetPresetNames())
    {
        known += (known.empty() ? "" : ", ") + n;
    }
    ROCE_ERROR("RoceAiZoneHelper: preset \"" << name << "\" is unknown (known: " << known << ")");
}

std::vector<std::string>
RoceAiZoneHelper::GetPresetNames()
{
    return {"meta-zone-3072", "meta-cluster-24k"};
}

void
RoceAiZoneHelper::SetLinkRate(DataRate rate)
{
    m_rate = rate;
}

void
RoceAiZoneHelper::SetLinkDelay(Tier tier, Time delay)
{
    m_delay[tier] = delay;
}

Time
RoceAiZoneHelper::GetLinkDelay(Tier tier) const
{
    return m_delay[tier];
}

void
RoceAiZoneHelper::SetMmuAttribute(Tier tier, std::string name, const AttributeValue& value)
{
    m_switch[tier].SetMmuAttribute(name, value);
}

void
RoceAiZoneHelper::SetSwitchAttribute(std::string name, const AttributeValue& value)
{
    for (auto& s : m_switch)
    {
        s.SetSwitchAttribute(name, value);
    }
}

RoceSwitchHelper&
RoceAiZoneHelper::GetSwitchHelper(Tier tier)
{
    ROCE_ERROR_IF(tier > ATSW, "RoceAiZoneHelper: no switch tier " << tier);
    return m_switch[tier];
}

void
RoceAiZoneHelper::SetNvlinkAttribute(std::string name, const AttributeValue& value)
{
    ROCE_ERROR_IF(name == "NGpus",
                  "RoceAiZoneHelper: NVLink attribute NGpus is the GPUs per server "
                  "(SetGpusPerServer)");
    // Checked now, so that a wrong name or value is reported where it is set.
    Ptr<RoceNvlinkDomain> probe = CreateObject<RoceNvlinkDomain>();
    RoceSetAttribute(*probe, name, value);
    m_nvlinkAttributes.emplace_back(name, value.Copy());
}

RoceHelper&
RoceAiZoneHelper::GetRoceHelper()
{
    return m_roce;
}

uint32_t
RoceAiZoneHelper::RacksPerZone() const
{
    return m_gpus / (m_zones * m_servers * m_gpusPerServer);
}

uint32_t
RoceAiZoneHelper::LeavesPerZone() const
{
    return RacksPerZone() * (m_rail ? m_gpusPerServer : 1);
}

uint32_t
RoceAiZoneHelper::CtswDownlinks() const
{
    return LeavesPerZone() * (m_uplinks / m_ctsws);
}

uint32_t
RoceAiZoneHelper::AtswCount() const
{
    // Default: each CTSW links once to every ATSW of its plane.
    return m_atsws == 0 ? CtswUplinks() * m_planes : m_atsws;
}

uint32_t
RoceAiZoneHelper::CtswUplinks() const
{
    // CTSW downlink capacity / O / link rate, with the rate cancelling out,
    // rounded to the nearest whole link: 192 or 256 downlinks at Meta's 1:7
    // give 27 or 37 links (7.1:1 and 6.9:1; the summary reports the ratio built).
    return static_cast<uint32_t>(std::llround(CtswDownlinks() / m_oversub));
}

void
RoceAiZoneHelper::Check() const
{
    ROCE_ERROR_IF(m_fidelity == "flow" && m_partition != "none",
                  "RoceAiZoneHelper: fidelity flow with partition "
                      << m_partition << ": flow level runs in one process");
    ROCE_ERROR_IF(m_tiers != 2 && m_tiers != 3,
                  "RoceAiZoneHelper: tiers=" << m_tiers << " (must be 2 or 3)");
    ROCE_ERROR_IF(m_zones == 0 || m_zones > 256,
                  "RoceAiZoneHelper: zones=" << m_zones << " (must be 1..256)");
    ROCE_ERROR_IF(m_tiers == 2 && m_zones != 1,
                  "RoceAiZoneHelper: zones=" << m_zones
                                             << " needs tiers=3 (a 2-tier fabric is one zone)");
    ROCE_ERROR_IF(m_servers == 0,
                  "RoceAiZoneHelper: serversPerRack=" << m_servers << " (must be >= 1)");
    ROCE_ERROR_IF(m_gpusPerServer == 0,
                  "RoceAiZoneHelper: gpusPerServer=" << m_gpusPerServer << " (must be >= 1)");
    const uint32_t perRack = m_servers * m_gpusPerServer;
    ROCE_ERROR_IF(!m_rail && perRack > 256,
                  "RoceAiZoneHelper: NICs per rack=" << perRack
                                                     << " (serversPerRack x gpusPerServer "
                                                        "must be <= 256: 10.zone.rack.nic)");
    ROCE_ERROR_IF(m_gpus == 0 || m_gpus % (m_zones * perRack) != 0,
                  "RoceAiZoneHelper: gpus=" << m_gpus << " is not a multiple of zones x NICs per "
                                            << "rack = " << m_zones * perRack);
    ROCE_ERROR_IF(!m_rail && RacksPerZone() > 256,
                  "RoceAiZoneHelper: racks per zone=" << RacksPerZone() << " for gpus=" << m_gpus
                                                      << " (must be <= 256: 10.zone.rack.nic)");
    ROCE_ERROR_IF(m_rail && m_servers > 256,
                  "RoceAiZoneHelper: serversPerRack="
                      << m_servers << " with rails (must be <= 256: 10.zone.rail.server)");
    ROCE_ERROR_IF(m_rail && LeavesPerZone() > 256,
                  "RoceAiZoneHelper: rail switches per zone="
                      << LeavesPerZone() << " (racks " << RacksPerZone() << " x gpusPerServer "
                      << m_gpusPerServer << ") for gpus=" << m_gpus
                      << " (must be <= 256: 10.zone.rail.server)");
    ROCE_ERROR_IF(m_ctsws == 0, "RoceAiZoneHelper: ctsws=" << m_ctsws << " (must be >= 1)");
    ROCE_ERROR_IF(m_uplinks == 0 || m_uplinks % m_ctsws != 0,
                  "RoceAiZoneHelper: uplinks=" << m_uplinks << " is not a positive multiple of "
                                               << "ctsws=" << m_ctsws);
    ROCE_ERROR_IF(m_rate.GetBitRate() == 0, "RoceAiZoneHelper: link rate is 0");
    if (m_tiers == 3)
    {
        ROCE_ERROR_IF(!(m_oversub > 0),
                      "RoceAiZoneHelper: oversubscription=" << m_oversub << " (must be > 0)");
        const double down = CtswDownlinks();
        const double up = down / m_oversub;
        ROCE_ERROR_IF(up < 1,
                      "RoceAiZoneHelper: oversubscription="
                          << m_oversub << " gives " << up << " CTSW-ATSW links per CTSW (" << down
                          << " downlinks / " << m_oversub << "); at least one is needed");
        ROCE_ERROR_IF(m_planes == 0 || m_ctsws % m_planes != 0,
                      "RoceAiZoneHelper: atswPlanes=" << m_planes
                                                      << " does not divide ctsws=" << m_ctsws);
        ROCE_ERROR_IF(m_atsws % m_planes != 0,
                      "RoceAiZoneHelper: atswPlanes=" << m_planes
                                                      << " does not divide atsws=" << m_atsws);
        const uint32_t perPlane = AtswCount() / m_planes;
        ROCE_ERROR_IF(CtswUplinks() % perPlane != 0,
                      "RoceAiZoneHelper: atsws=" << m_atsws << " does not divide the "
                                                 << CtswUplinks() << " ATSW links of a CTSW"
                                                 << (m_planes > 1 ? " over its plane" : ""));
    }
}

RoceAiZone
RoceAiZoneHelper::Build()
{
    Check();
    RoceAiZone z;
    z.tiers = m_tiers;
    z.zones = m_zones;
    z.racksPerZone = RacksPerZone();
    z.serversPerRack = m_servers;
    z.gpusPerServer = m_gpusPerServer;
    z.uplinksPerRtsw = m_uplinks;
    z.ctswsPerZone = m_ctsws;
    z.linkRate = m_rate;
    z.railOptimized = m_rail;
    z.fatTreeK = m_fatTreeK;
    z.oversubscription = m_tiers == 3 ? double(CtswDownlinks()) / CtswUplinks() : 1.0;
    if (m_tiers == 3)
    {
        z.uplinksPerCtsw = CtswUplinks();
        z.atswCount = AtswCount();
        z.atswPlanes = m_planes;
    }

    // Refuse, before building, a fabric the machine cannot hold: one link per
    // NIC, the leaves' uplinks, the CTSWs' uplinks to the ATSWs.
    const uint64_t links = uint64_t(m_zones) * z.racksPerZone * m_servers * m_gpusPerServer +
                           uint64_t(m_zones) * z.GetLeavesPerZone() * m_uplinks +
                           (m_tiers == 3 ? uint64_t(m_zones) * m_ctsws * CtswUplinks() : 0);
    RoceResourceGuard::Check(
        "RoceAiZoneHelper: " +
            std::to_string(uint64_t(m_zones) * z.racksPerZone * m_servers * m_gpusPerServer) +
            " GPUs",
        links,
        0);
    // Every node gets its rank (system id) as it is created, in this order.
    const std::vector<uint32_t> ranks = PartitionRanks();
    std::size_t next = 0;
    for (NodeContainer* tier : {&z.servers, &z.rtsw, &z.ctsw, &z.atsw})
    {
        const uint32_t n = tier == &z.servers ? m_zones * z.racksPerZone * m_servers
                           : tier == &z.rtsw  ? m_zones * z.GetLeavesPerZone()
                           : tier == &z.ctsw  ? m_zones * m_ctsws
                                              : z.atswCount;
        for (uint32_t i = 0; i < n; ++i)
        {
            tier->Create(1, ranks[next++]);
        }
    }
    m_switch[RTSW].Install(z.rtsw);
    m_switch[CTSW].Install(z.ctsw);
    m_switch[ATSW].Install(z.atsw);
    for (auto it = z.servers.Begin(); it != z.servers.End(); ++it)
    {
        Ptr<RoceNvlinkDomain> nvlink = RoceNvlinkDomain::Install(*it, m_gpusPerServer);
        for (const auto& [name, value] : m_nvlinkAttributes)
        {
            nvlink->SetAttribute(name, *value);
        }
    }
    m_roce.SetDeviceAttribute("DataRate", DataRateValue(m_rate));
    BuildZoneLinks(z);
    BuildAtswLinks(z);
    FillRoutes(z);
    // The switches' random streams (ECN marking, spraying) get fixed numbers,
    // so the same seed and run give the same results however many scenarios
    // the process has built before (ns-3 hands out unassigned streams from a
    // process-wide counter).
    RoceSwitchHelper::AssignStreams(AI_ZONE_STREAMS);
    if (m_fidelity == "flow")
    {
        RoceFlowEngine::Install();
    }
    return z;
}

void
RoceAiZoneHelper::SetFidelity(const std::string& fidelity)
{
    ROCE_ERROR_IF(fidelity != "packet" && fidelity != "flow",
                  "RoceAiZoneHelper: fidelity " << fidelity << " (must be packet or flow)");
    m_fidelity = fidelity;
}

const std::string&
RoceAiZoneHelper::GetFidelity() const
{
    return m_fidelity;
}

void
RoceAiZoneHelper::BuildZoneLinks(RoceAiZone& z)
{
    const uint32_t R = z.racksPerZone;
    const uint32_t LZ = z.GetLeavesPerZone();
    const uint32_t G = m_gpusPerServer;
    z.nics.reserve(m_zones * R * z.GetNicsPerRack());
    // Host-leaf links, GPU by GPU. A leaf's ports come in host order: port
    // s x G + g of the RTSW is GPU g of server s; with rails, port s of rail
    // switch g is GPU g of server s.
    m_roce.SetChannelAttribute("Delay", TimeValue(m_delay[RTSW]));
    for (uint32_t zone = 0; zone < m_zones; ++zone)
    {
        for (uint32_t r = 0; r < R; ++r)
        {
            for (uint32_t s = 0; s < m_servers; ++s)
            {
                Ptr<Node> server = z.servers.Get((zone * R + r) * m_servers + s);
                for (uint32_t g = 0; g < G; ++g)
                {
                    const uint32_t leaf = m_rail ? r * G + g : r;
                    const uint32_t host = m_rail ? s : s * G + g;
                    NetDeviceContainer d = m_roce.Install(server, z.rtsw.Get(zone * LZ + leaf));
                    const Ipv4Address address = RoceAiZone::MakeAddress(zone, leaf, host);
                    if (Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(d.Get(0)))
                    {
                        nic->SetIpv4Address(address);
                    }
                    else
                    {
                        DynamicCast<RoceAbsentDevice>(d.Get(0))->SetIpv4Address(address);
                    }
                    z.nics.push_back(d.Get(0));
                    ++z.links;
                }
            }
        }
    }
    // Leaf-CTSW links: leaf uplink u goes to CTSW u % C; the CTSW's ports are
    // leaf-major, U / C per leaf.
    m_roce.SetChannelAttribute("Delay", TimeValue(m_delay[CTSW]));
    for (uint32_t l = 0; l < z.rtsw.GetN(); ++l)
    {
        const uint32_t zone = l / LZ;
        for (uint32_t u = 0; u < m_uplinks; ++u)
        {
            m_roce.Install(z.rtsw.Get(l), z.ctsw.Get(zone * m_ctsws + u % m_ctsws));
            ++z.links;
        }
    }
}

void
RoceAiZoneHelper::BuildAtswLinks(RoceAiZone& z)
{
    // CTSW-ATSW links: CTSW c of a zone is in plane c % P, and its uplink j
    // goes to ATSW j % (A / P) of that plane. CTSWs are visited zone-major,
    // so an ATSW's ports are zone-major too, C L / A per zone.
    const uint32_t L = z.uplinksPerCtsw;
    const uint32_t perPlane = z.atswCount / std::max(z.atswPlanes, 1u);
    m_roce.SetChannelAttribute("Delay", TimeValue(m_delay[ATSW]));
    for (uint32_t c = 0; c < z.ctsw.GetN() && L > 0; ++c)
    {
        const uint32_t plane = (c % m_ctsws) % z.atswPlanes;
        for (uint32_t j = 0; j < L; ++j)
        {
            m_roce.Install(z.ctsw.Get(c), z.atsw.Get(plane * perPlane + j % perPlane));
            ++z.links;
        }
    }
}

void
RoceAiZoneHelper::FillRoutes(const RoceAiZone& z)
{
    const Ipv4Address zero("0.0.0.0");
    const Ipv4Mask any("0.0.0.0");
    const Ipv4Mask host("255.255.255.255");
    const Ipv4Mask leafMask("255.255.255.0");
    const Ipv4Mask zoneMask("255.255.0.0");
    const uint32_t LZ = z.GetLeavesPerZone();
    const uint32_t N = z.GetNicsPerLeaf();
    const uint32_t U = z.uplinksPerRtsw;
    const uint32_t C = z.ctswsPerZone;
    const uint32_t perCtsw = U / C; // leaf-CTSW links per (leaf, CTSW)
    const uint32_t L = z.uplinksPerCtsw;
    auto range = [](uint32_t first, uint32_t n) {
        std::vector<uint32_t> ports(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            ports[i] = first + i;
        }
        return ports;
    };
    // Leaf: /32 per NIC below it (port = host index), 0/0 over its uplinks.
    // Across MPI ranks, only this rank's switches forward.
    auto skip = [](Ptr<Node> node) {
        return RoceMpiHelper::GetSize() > 1 && !RoceMpiHelper::IsLocal(node);
    };
    const std::vector<uint32_t> leafUp = range(N, U);
    for (uint32_t l = 0; l < z.rtsw.GetN(); ++l)
    {
        if (skip(z.rtsw.Get(l)))
        {
            continue;
        }
        Ptr<RoceSwitch> sw = z.rtsw.Get(l)->GetObject<RoceSwitch>();
        for (uint32_t i = 0; i < N; ++i)
        {
            sw->AddRoute(RoceAiZone::MakeAddress(l / LZ, l % LZ, i), host, {i});
        }
        sw->AddRoute(zero, any, leafUp);
    }
    // CTSW: /24 per leaf of its zone, 0/0 over its ATSW links.
    const std::vector<uint32_t> ctswUp = range(LZ * perCtsw, L);
    for (uint32_t c = 0; c < z.ctsw.GetN(); ++c)
    {
        if (skip(z.ctsw.Get(c)))
        {
            continue;
        }
        Ptr<RoceSwitch> sw = z.ctsw.Get(c)->GetObject<RoceSwitch>();
        for (uint32_t l = 0; l < LZ; ++l)
        {
            sw->AddRoute(RoceAiZone::MakeAddress(c / C, l, 0),
                         leafMask,
                         range(l * perCtsw, perCtsw));
        }
        if (L > 0)
        {
            sw->AddRoute(zero, any, ctswUp);
        }
    }
    // ATSW: /16 per zone.
    const uint32_t perZone = C * L / std::max(z.atswCount, 1u);
    for (uint32_t a = 0; a < z.atsw.GetN(); ++a)
    {
        if (skip(z.atsw.Get(a)))
        {
            continue;
        }
        Ptr<RoceSwitch> sw = z.atsw.Get(a)->GetObject<RoceSwitch>();
        for (uint32_t zone = 0; zone < z.zones; ++zone)
        {
            sw->AddRoute(RoceAiZone::MakeAddress(zone, 0, 0),
                         zoneMask,
                         range(zone * perZone, perZone));
        }
    }
}

} // namespace ns3
