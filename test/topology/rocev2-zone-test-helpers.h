/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the AI Zone test suites share: the peer of a link, every switch of a
 * fabric, a hop counter on real packets and the next-hop table of every
 * switch towards every NIC.
 */

#ifndef ROCEV2_ZONE_TEST_HELPERS_H
#define ROCEV2_ZONE_TEST_HELPERS_H

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace rocev2test
{

/// RoceAiZoneHelper's payload MTU.
constexpr uint32_t ZONE_MTU = 4096;

/**
 * \param z a built zone
 * \return every switch node of the zone with the name of its tier
 */
inline std::map<Ptr<Node>, std::string>
TierOf(const RoceAiZone& z)
{
    std::map<Ptr<Node>, std::string> tierOf;
    for (auto [c, name] : {std::make_pair(&z.rtsw, "RTSW"),
                           std::make_pair(&z.ctsw, "CTSW"),
                           std::make_pair(&z.atsw, "ATSW")})
    {
        for (auto it = c->Begin(); it != c->End(); ++it)
        {
            tierOf[*it] = name;
        }
    }
    return tierOf;
}

/** \return the node at the other end of a device's link */
inline Ptr<Node>
PeerNode(Ptr<NetDevice> dev)
{
    Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(dev->GetChannel());
    Ptr<RocePfcNetDevice> me = DynamicCast<RocePfcNetDevice>(dev);
    return ch->GetPeer(PeekPointer(me))->GetNode();
}

/** \return every switch of a fabric, leaves first */
inline std::vector<Ptr<RoceSwitch>>
AllSwitches(const RoceAiZone& z)
{
    std::vector<Ptr<RoceSwitch>> sws;
    for (const NodeContainer* c : {&z.rtsw, &z.ctsw, &z.atsw})
    {
        for (auto it = c->Begin(); it != c->End(); ++it)
        {
            sws.push_back((*it)->GetObject<RoceSwitch>());
        }
    }
    return sws;
}

/** \return the ECMP group of every (switch, NIC) pair, switch-major */
inline std::vector<std::vector<uint32_t>>
NextHopTable(const RoceAiZone& z)
{
    std::vector<std::vector<uint32_t>> t;
    for (auto& sw : AllSwitches(z))
    {
        for (uint32_t g = 0; g < z.GetNGpus(); ++g)
        {
            t.push_back(sw->Lookup(z.GetNic(g)->GetIpv4Address()));
        }
    }
    return t;
}

/**
 * \return (switch, NIC) pairs whose next hops differ between the fabric's
 * own routes and RoceSwitchHelper::PopulateRoutes() (which it then runs)
 */
inline uint32_t
CountRoutesUnlikePopulate(const RoceAiZone& z)
{
    auto hierarchical = NextHopTable(z);
    RoceSwitchHelper::PopulateRoutes();
    auto searched = NextHopTable(z);
    uint32_t differ = hierarchical.size() != searched.size() ? 1 : 0;
    for (size_t i = 0; i < hierarchical.size() && i < searched.size(); ++i)
    {
        differ += hierarchical[i] != searched[i] ? 1 : 0;
    }
    return differ;
}

/**
 * Sends one 64-byte WRITE per NIC pair and counts, per (source, destination)
 * address pair, the switches that received its data frame (MacRx of every
 * switch port).
 */
class HopCounter
{
  public:
    /** \param z the fabric whose switch ports to watch */
    explicit HopCounter(const RoceAiZone& z)
        : m_zone(z)
    {
        for (auto& sw : AllSwitches(z))
        {
            for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
            {
                sw->GetPort(i)->TraceConnectWithoutContext(
                    "MacRx",
                    MakeCallback(&HopCounter::SwitchRx, this));
            }
        }
    }

    /**
     * \param pairs GPU pairs, one message each (distinct pairs)
     * \return messages acknowledged within 1 ms (a routing loop ends there,
     *         as switches keep no TTL)
     */
    uint32_t Run(const std::vector<std::pair<uint32_t, uint32_t>>& pairs)
    {
        RoceHelper roce;
        for (auto [a, b] : pairs)
        {
            auto qp = roce.CreateQp(m_zone.GetNic(a), m_zone.GetNic(b));
            qp.first->PostWrite(64, MakeCallback(&HopCounter::Done, this));
        }
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        return m_done;
    }

    /** \param a a GPU \param b another \return switches that received a's data frames to b */
    uint32_t Hops(uint32_t a, uint32_t b)
    {
        return m_hops[{m_zone.GetNic(a)->GetIpv4Address().Get(),
                       m_zone.GetNic(b)->GetIpv4Address().Get()}];
    }

  private:
    void Done(const RoceCompletion& c)
    {
        m_done += c.success ? 1 : 0;
    }

    void SwitchRx(Ptr<const Packet> p)
    {
        RoceFrame f = RoceFrame::Parse(*p);
        if (f.isRoce && f.opcode <= 0x0A) // data, not ACK
        {
            ++m_hops[{f.srcIp, f.dstIp}];
        }
    }

    const RoceAiZone& m_zone;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_hops;
    uint32_t m_done{0};
};

} // namespace rocev2test
} // namespace ns3

#endif /* ROCEV2_ZONE_TEST_HELPERS_H */
