/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-ai-zone-helper.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/node.h"
#include "ns3/queue-size.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <iomanip>

namespace ns3
{

namespace
{

/**
 * \param zone zone \param rack rack \param nic NIC within the rack
 * \return 10.zone.rack.nic
 */
Ipv4Address
ZoneAddress(uint32_t zone, uint32_t rack, uint32_t nic)
{
    return Ipv4Address((10u << 24) | (zone << 16) | (rack << 8) | nic);
}

} // namespace

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

Ptr<RoceNetDevice>
RoceAiZone::GetNic(uint32_t gpu) const
{
    NS_ABORT_MSG_IF(gpu >= nics.size(),
                    "RoceAiZone: GPU " << gpu << " out of range (" << nics.size() << " GPUs)");
    return nics[gpu];
}

Ipv4Address
RoceAiZone::GetAddress(uint32_t gpu) const
{
    return ZoneAddress(GetZone(gpu), GetRack(gpu), gpu % GetNicsPerRack());
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
    return GetRack(a) == GetRack(b) ? 1 : 3;
}

uint32_t
RoceAiZone::GetMaxSwitchHops() const
{
    if (zones > 1)
    {
        return 5;
    }
    return racksPerZone > 1 ? 3 : 1;
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
    // What one rack can send out of itself: its NICs or its uplinks.
    const double rackOut = std::min(GetNicsPerRack(), uplinksPerRtsw) * rate;
    if (zones > 1)
    {
        // Half of the zones send to the other half; each zone is limited by
        // its racks' uplinks and by its CTSWs' links to the ATSWs.
        const double zoneOut =
            std::min(racksPerZone * rackOut, double(ctswsPerZone) * uplinksPerCtsw * rate);
        return (zones / 2) * zoneOut;
    }
    return (racksPerZone / 2) * rackOut;
}

double
RoceAiZone::GetRackOversubscription() const
{
    return double(GetNicsPerRack()) / uplinksPerRtsw;
}

void
RoceAiZone::PrintSummary(std::ostream& os) const
{
    os << "AI Zone fabric: " << tiers << " tiers, " << zones << " zone(s) x " << racksPerZone
       << " racks x " << serversPerRack << " servers x " << gpusPerServer << " GPUs, "
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
    row("RTSW", rtsw);
    row("CTSW", ctsw);
    row("ATSW", atsw);
    os << "GPUs/NICs " << GetNGpus() << ", servers " << servers.GetN() << ", links " << links
       << ", forwarding entries " << GetNRoutes() << "\n";
    os << "bisection " << GetBisectionBps() / 1e9 << " Gb/s, rack oversubscription "
       << GetRackOversubscription() << ":1";
    if (tiers == 3)
    {
        os << ", CTSW-ATSW oversubscription " << oversubscription << ":1";
    }
    os << ", max switch hops " << GetMaxSwitchHops() << "\n";
}

void
RoceAiZone::WriteJson(std::ostream& os, double buildSeconds) const
{
    os << "{\n"
       << "  \"tiers\": " << tiers << ",\n"
       << "  \"zones\": " << zones << ",\n"
       << "  \"racks_per_zone\": " << racksPerZone << ",\n"
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
       << "  \"build_seconds\": " << buildSeconds << "\n"
       << "}\n";
}

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
}

void
RoceAiZoneHelper::SetGpus(uint32_t gpus)
{
    m_gpus = gpus;
}

void
RoceAiZoneHelper::SetZones(uint32_t zones)
{
    m_zones = zones;
}

void
RoceAiZoneHelper::SetServersPerRack(uint32_t servers)
{
    m_servers = servers;
}

void
RoceAiZoneHelper::SetGpusPerServer(uint32_t gpus)
{
    m_gpusPerServer = gpus;
}

void
RoceAiZoneHelper::SetUplinks(uint32_t uplinks)
{
    m_uplinks = uplinks;
}

void
RoceAiZoneHelper::SetCtsws(uint32_t ctsws)
{
    m_ctsws = ctsws;
}

void
RoceAiZoneHelper::SetAtsws(uint32_t atsws)
{
    m_atsws = atsws;
}

void
RoceAiZoneHelper::SetOversubscription(double ratio)
{
    m_oversub = ratio;
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
RoceAiZoneHelper::CtswDownlinks() const
{
    return RacksPerZone() * (m_uplinks / m_ctsws);
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
    NS_ABORT_MSG_IF(m_tiers != 2 && m_tiers != 3,
                    "RoceAiZoneHelper: tiers=" << m_tiers << " (must be 2 or 3)");
    NS_ABORT_MSG_IF(m_zones == 0 || m_zones > 256,
                    "RoceAiZoneHelper: zones=" << m_zones << " (must be 1..256)");
    NS_ABORT_MSG_IF(m_tiers == 2 && m_zones != 1,
                    "RoceAiZoneHelper: zones=" << m_zones
                                               << " needs tiers=3 (a 2-tier fabric is one zone)");
    NS_ABORT_MSG_IF(m_servers == 0,
                    "RoceAiZoneHelper: serversPerRack=" << m_servers << " (must be >= 1)");
    NS_ABORT_MSG_IF(m_gpusPerServer == 0,
                    "RoceAiZoneHelper: gpusPerServer=" << m_gpusPerServer << " (must be >= 1)");
    const uint32_t perRack = m_servers * m_gpusPerServer;
    NS_ABORT_MSG_IF(perRack > 256,
                    "RoceAiZoneHelper: NICs per rack=" << perRack
                                                       << " (serversPerRack x gpusPerServer "
                                                          "must be <= 256: 10.zone.rack.nic)");
    NS_ABORT_MSG_IF(m_gpus == 0 || m_gpus % (m_zones * perRack) != 0,
                    "RoceAiZoneHelper: gpus=" << m_gpus << " is not a multiple of zones x NICs per "
                                              << "rack = " << m_zones * perRack);
    NS_ABORT_MSG_IF(RacksPerZone() > 256,
                    "RoceAiZoneHelper: racks per zone=" << RacksPerZone() << " for gpus=" << m_gpus
                                                        << " (must be <= 256: 10.zone.rack.nic)");
    NS_ABORT_MSG_IF(m_ctsws == 0, "RoceAiZoneHelper: ctsws=" << m_ctsws << " (must be >= 1)");
    NS_ABORT_MSG_IF(m_uplinks == 0 || m_uplinks % m_ctsws != 0,
                    "RoceAiZoneHelper: uplinks=" << m_uplinks << " is not a positive multiple of "
                                                 << "ctsws=" << m_ctsws);
    NS_ABORT_MSG_IF(m_rate.GetBitRate() == 0, "RoceAiZoneHelper: link rate is 0");
    if (m_tiers == 3)
    {
        NS_ABORT_MSG_IF(!(m_oversub > 0),
                        "RoceAiZoneHelper: oversubscription=" << m_oversub << " (must be > 0)");
        const double down = CtswDownlinks();
        const double up = down / m_oversub;
        NS_ABORT_MSG_IF(up < 1,
                        "RoceAiZoneHelper: oversubscription="
                            << m_oversub << " gives " << up << " CTSW-ATSW links per CTSW (" << down
                            << " downlinks / " << m_oversub << "); at least one is needed");
        const uint32_t a = m_atsws == 0 ? CtswUplinks() : m_atsws;
        NS_ABORT_MSG_IF(CtswUplinks() % a != 0,
                        "RoceAiZoneHelper: atsws=" << m_atsws << " does not divide the "
                                                   << CtswUplinks() << " ATSW links of a CTSW");
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
    z.oversubscription = m_tiers == 3 ? double(CtswDownlinks()) / CtswUplinks() : 1.0;
    const uint32_t Z = m_zones;
    const uint32_t R = z.racksPerZone;
    const uint32_t N = z.GetNicsPerRack();
    const uint32_t C = m_ctsws;
    const uint32_t perCtsw = m_uplinks / C; // RTSW-CTSW links per (rack, CTSW)
    if (m_tiers == 3)
    {
        z.uplinksPerCtsw = CtswUplinks();
        z.atswCount = m_atsws == 0 ? z.uplinksPerCtsw : m_atsws;
    }
    const uint32_t L = z.uplinksPerCtsw;
    const uint32_t A = z.atswCount;

    z.servers.Create(Z * R * m_servers);
    z.rtsw.Create(Z * R);
    z.ctsw.Create(Z * C);
    z.atsw.Create(A);
    m_switch[RTSW].Install(z.rtsw);
    m_switch[CTSW].Install(z.ctsw);
    m_switch[ATSW].Install(z.atsw);
    z.nics.reserve(Z * R * N);
    m_roce.SetDeviceAttribute("DataRate", DataRateValue(m_rate));

    // Host-RTSW links: RTSW port i is NIC i of its rack.
    m_roce.SetChannelAttribute("Delay", TimeValue(m_delay[RTSW]));
    for (uint32_t zone = 0; zone < Z; ++zone)
    {
        for (uint32_t r = 0; r < R; ++r)
        {
            Ptr<Node> tor = z.rtsw.Get(zone * R + r);
            for (uint32_t s = 0; s < m_servers; ++s)
            {
                Ptr<Node> server = z.servers.Get((zone * R + r) * m_servers + s);
                for (uint32_t g = 0; g < m_gpusPerServer; ++g)
                {
                    NetDeviceContainer d = m_roce.Install(server, tor);
                    Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(d.Get(0));
                    nic->SetIpv4Address(ZoneAddress(zone, r, s * m_gpusPerServer + g));
                    z.nics.push_back(nic);
                    ++z.links;
                }
            }
        }
    }
    // RTSW-CTSW links: RTSW uplink u goes to CTSW u % C; the CTSW's ports are
    // rack-major, perCtsw per rack.
    m_roce.SetChannelAttribute("Delay", TimeValue(m_delay[CTSW]));
    std::vector<uint32_t> ports;
    for (uint32_t zone = 0; zone < Z; ++zone)
    {
        for (uint32_t r = 0; r < R; ++r)
        {
            Ptr<Node> tor = z.rtsw.Get(zone * R + r);
            for (uint32_t u = 0; u < m_uplinks; ++u)
            {
                m_roce.Install(tor, z.ctsw.Get(zone * C + u % C));
                ++z.links;
            }
        }
    }
    // CTSW-ATSW links: CTSW uplink j goes to ATSW j % A; an ATSW's ports are
    // zone-major, so zone z's are [z * C * L / A, (z + 1) * C * L / A).
    m_roce.SetChannelAttribute("Delay", TimeValue(m_delay[ATSW]));
    for (uint32_t c = 0; c < z.ctsw.GetN(); ++c)
    {
        for (uint32_t j = 0; j < L; ++j)
        {
            m_roce.Install(z.ctsw.Get(c), z.atsw.Get(j % A));
            ++z.links;
        }
    }

    // Forwarding.
    const Ipv4Mask any("0.0.0.0");
    const Ipv4Mask host("255.255.255.255");
    const Ipv4Mask rack("255.255.255.0");
    const Ipv4Mask zoneMask("255.255.0.0");
    for (uint32_t zone = 0; zone < Z; ++zone)
    {
        for (uint32_t r = 0; r < R; ++r)
        {
            Ptr<RoceSwitch> sw = z.rtsw.Get(zone * R + r)->GetObject<RoceSwitch>();
            for (uint32_t i = 0; i < N; ++i)
            {
                sw->AddRoute(ZoneAddress(zone, r, i), host, {i});
            }
            ports.clear();
            for (uint32_t u = 0; u < m_uplinks; ++u)
            {
                ports.push_back(N + u);
            }
            sw->AddRoute(Ipv4Address("0.0.0.0"), any, ports);
        }
        for (uint32_t c = 0; c < C; ++c)
        {
            Ptr<RoceSwitch> sw = z.ctsw.Get(zone * C + c)->GetObject<RoceSwitch>();
            for (uint32_t r = 0; r < R; ++r)
            {
                ports.clear();
                for (uint32_t k = 0; k < perCtsw; ++k)
                {
                    ports.push_back(r * perCtsw + k);
                }
                sw->AddRoute(ZoneAddress(zone, r, 0), rack, ports);
            }
            if (L > 0)
            {
                ports.clear();
                for (uint32_t j = 0; j < L; ++j)
                {
                    ports.push_back(R * perCtsw + j);
                }
                sw->AddRoute(Ipv4Address("0.0.0.0"), any, ports);
            }
        }
    }
    const uint32_t perZone = C * L / std::max(A, 1u); // ATSW ports per zone
    for (uint32_t a = 0; a < A; ++a)
    {
        Ptr<RoceSwitch> sw = z.atsw.Get(a)->GetObject<RoceSwitch>();
        for (uint32_t zone = 0; zone < Z; ++zone)
        {
            ports.clear();
            for (uint32_t k = 0; k < perZone; ++k)
            {
                ports.push_back(zone * perZone + k);
            }
            sw->AddRoute(ZoneAddress(zone, 0, 0), zoneMask, ports);
        }
    }
    return z;
}

} // namespace ns3
