/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the flow-path suites share (rocev2-flow-path, rocev2-flow-pin): a
 * zone's shape, a recorder of the switch ports each queue pair's data frames
 * leave by at packet level, and a test case that compares them with
 * RoceFlowEngine::GetPath. Read rocev2-flow-path-test-suite.cc's header for
 * what is checked and why the oracle is independent.
 */
#ifndef ROCEV2_FLOW_PATH_HELPERS_H
#define ROCEV2_FLOW_PATH_HELPERS_H

#include "../topology/rocev2-zone-test-helpers.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-flow-engine.h"
#include "ns3/roce-flow-pin-table.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;
using namespace ns3::rocev2test;

namespace
{

/// The devices a data frame was put on the wire by, in order.
using Path = std::vector<const RocePfcNetDevice*>;

/// Payload of the one-frame message every QP sends.
constexpr uint64_t MESSAGE = 64;

/// QPs per NIC pair in the QP-scaling and E-ECMP cases.
constexpr uint32_t QPS_PER_PAIR = 8;

/// The source port every QP takes in the E-ECMP case.
constexpr uint16_t FIXED_SPORT = 0xC0DE;

/**
 * \param opcode a BTH opcode
 * \return true for the RC RDMA WRITE opcodes (IBTA vol. 1, table 38:
 *         0x06..0x0B), the data frames of a PostWrite
 */
inline bool
IsWrite(uint8_t opcode)
{
    return opcode >= RoceBthHeader::WRITE_FIRST && opcode <= RoceBthHeader::WRITE_ONLY + 1;
}

/**
 * \brief Shape the zone every case builds: 3 tiers, 2 zones of 4 racks of 2
 * servers of 2 NICs (32 NICs), 4 uplinks per RTSW over 2 CTSWs (2 parallel
 * links per pair), 4 CTSW-ATSW links per CTSW (1:2), one to each of 4 ATSWs.
 * A cross-zone QP has 4 x 4 x 2 x 2 = 64 equal-cost paths.
 * \param zh the helper
 */
inline void
ShapeZone(RoceAiZoneHelper& zh)
{
    zh.SetTiers(3);
    zh.SetZones(2);
    zh.SetGpus(32);
    zh.SetServersPerRack(2);
    zh.SetGpusPerServer(2);
    zh.SetUplinks(4);
    zh.SetCtsws(2);
    zh.SetOversubscription(2);
}

/**
 * \param qp a connected QP
 * \return the flow of its data frames, from its state
 */
inline RoceFlowKey
KeyOf(Ptr<RoceQueuePair> qp)
{
    return {qp->GetNic()->GetIpv4Address().Get(),
            qp->GetRemoteAddress().Get(),
            qp->GetSourcePort(),
            RoceFrame::ROCEV2_UDP_PORT,
            qp->GetRemoteQpn()};
}

/**
 * \param path devices
 * \return them as "nic N" / "sw N:P" (node id, port index)
 */
inline std::string
Describe(const Path& path)
{
    std::ostringstream os;
    for (const RocePfcNetDevice* d : path)
    {
        if (const auto* port = dynamic_cast<const RoceSwitchPort*>(d))
        {
            os << " sw " << d->GetNode()->GetId() << ":" << port->GetPortIndex();
        }
        else
        {
            os << " nic " << d->GetNode()->GetId() << "/" << d->GetIfIndex();
        }
    }
    return os.str();
}

/**
 * \param path a path, its NIC first
 * \return its switch ports only
 */
inline Path
SwitchPart(const Path& path)
{
    return path.empty() ? Path() : Path(path.begin() + 1, path.end());
}

/**
 * Records, per data flow (as parsed from the frames), the devices that put
 * its frames on a wire: every NIC and every switch port of a zone (MacTx).
 */
class PathRecorder
{
  public:
    /** \param z the zone whose NICs and switch ports to watch */
    explicit PathRecorder(const RoceAiZone& z)
    {
        for (const Ptr<NetDevice>& nic : z.nics)
        {
            Watch(DynamicCast<RocePfcNetDevice>(nic));
        }
        for (const Ptr<RoceSwitch>& sw : AllSwitches(z))
        {
            for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
            {
                Watch(sw->GetPort(i));
            }
        }
    }

    /** \brief Forget what was recorded. */
    void Clear()
    {
        m_paths.clear();
    }

    /** \param key a flow \return its devices in transmission order, or null */
    const Path* Find(const RoceFlowKey& key) const
    {
        auto it = m_paths.find(key);
        return it == m_paths.end() ? nullptr : &it->second;
    }

    /** \return data flows seen */
    std::size_t GetNFlows() const
    {
        return m_paths.size();
    }

  private:
    /** \param dev a device whose MacTx to record */
    void Watch(Ptr<RocePfcNetDevice> dev)
    {
        // A raw pointer: a Ptr held by the device's own trace would be a cycle.
        const RocePfcNetDevice* d = PeekPointer(dev);
        dev->TraceConnectWithoutContext(
            "MacTx",
            Callback<void, Ptr<const Packet>>([this, d](Ptr<const Packet> p) {
                RoceFrame f = RoceFrame::Parse(*p);
                if (f.isRoce && IsWrite(f.opcode))
                {
                    m_paths[{f.srcIp, f.dstIp, f.sport, f.dport, f.destQp}].push_back(d);
                }
            }));
    }

    std::map<RoceFlowKey, Path> m_paths;
};

/// A QP of a case.
struct Flow
{
    Ptr<RoceQueuePair> qp; //!< the sending end
    uint32_t src{0};       //!< its GPU
    uint32_t dst{0};       //!< the peer's GPU
    uint32_t pair{0};      //!< index of its NIC pair
};

/**
 * \param z a zone
 * \param a a GPU
 * \param shift racks to move by, within a's zone
 * \return the GPU at a's place in the rack `shift` racks on (same zone)
 */
inline uint32_t
OtherRack(const RoceAiZone& z, uint32_t a, uint32_t shift)
{
    const uint32_t perZone = z.racksPerZone * z.GetNicsPerRack();
    const uint32_t zoneBase = a / perZone * perZone;
    return zoneBase + (a - zoneBase + shift * z.GetNicsPerRack()) % perZone;
}

/**
 * \param z a zone
 * \return for every GPU a, its twin in the other zone and its place in the
 *         next rack of its zone
 */
inline std::vector<std::pair<uint32_t, uint32_t>>
ScalingPairs(const RoceAiZone& z)
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    const uint32_t n = z.GetNGpus();
    for (uint32_t a = 0; a < n; ++a)
    {
        pairs.emplace_back(a, (a + n / 2) % n);
        pairs.emplace_back(a, OtherRack(z, a, 1));
    }
    return pairs;
}

/**
 * \param flows QPs
 * \param paths their recorded paths
 * \param pairs NIC pairs
 * \return for every pair, the distinct switch-port sequences its QPs took
 */
inline std::vector<std::set<Path>>
RoutesPerPair(const std::vector<Flow>& flows, const std::vector<Path>& paths, std::size_t pairs)
{
    std::vector<std::set<Path>> routes(pairs);
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        routes[flows[i].pair].insert(SwitchPart(paths[i]));
    }
    return routes;
}

/**
 * Sets an attribute default for its lifetime and puts the previous one back
 * (also when a test case returns early on a failed assertion).
 */
class DefaultGuard
{
  public:
    /**
     * \param tidName the TypeId \param attribute its attribute
     * \param value the default while the guard lives
     */
    DefaultGuard(const std::string& tidName,
                 const std::string& attribute,
                 const AttributeValue& value)
        : m_path(tidName + "::" + attribute)
    {
        TypeId::AttributeInformation info;
        TypeId::LookupByName(tidName).LookupAttributeByName(attribute, &info);
        m_old = info.initialValue->Copy();
        Config::SetDefault(m_path, value);
    }

    ~DefaultGuard()
    {
        Config::SetDefault(m_path, *m_old);
    }

    DefaultGuard(const DefaultGuard&) = delete;
    DefaultGuard& operator=(const DefaultGuard&) = delete;

  private:
    std::string m_path;
    Ptr<AttributeValue> m_old;
};

} // namespace

/**
 * \ingroup rocev2
 * What every case does: create QPs, send one frame on each, and compare the
 * engine's paths with the frames'.
 */
class FlowPathTestCase : public TestCase
{
  protected:
    /** \param name the case's name */
    explicit FlowPathTestCase(const std::string& name)
        : TestCase(name)
    {
    }

    /**
     * \param z the zone
     * \param roce the helper that makes the QPs
     * \param pairs GPU pairs (source, destination)
     * \param qps QPs per pair
     * \return the QPs, pair-major
     */
    std::vector<Flow> CreateFlows(const RoceAiZone& z,
                                  RoceHelper& roce,
                                  const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                                  uint32_t qps)
    {
        std::vector<Flow> flows;
        for (uint32_t p = 0; p < pairs.size(); ++p)
        {
            for (uint32_t q = 0; q < qps; ++q)
            {
                auto [a, b] = pairs[p];
                flows.push_back({roce.CreateQp(z.GetNic(a), z.GetNic(b)).first, a, b, p});
            }
        }
        return flows;
    }

    /**
     * \brief Post one one-frame WRITE on every QP (all at once) and run the
     * simulation until it is idle.
     * \param flows the QPs
     */
    void PostAndRun(const std::vector<Flow>& flows)
    {
        m_completed = 0;
        for (const Flow& f : flows)
        {
            f.qp->PostWrite(MESSAGE, MakeCallback(&FlowPathTestCase::Done, this));
        }
        Simulator::Run();
    }

    /**
     * \brief Check the run was clean and compare, for every QP, a fresh
     * engine's GetPath with the devices its data frame left by.
     * \param z the zone \param flows the QPs \param rec what the frames did
     * \param label names the run in messages
     * \return every QP's recorded path (empty if none was recorded)
     */
    std::vector<Path> Compare(const RoceAiZone& z,
                              const std::vector<Flow>& flows,
                              const PathRecorder& rec,
                              const std::string& label)
    {
        const RoceFabricStats stats = RoceFabricStats::Collect();
        NS_TEST_EXPECT_MSG_EQ(m_completed, flows.size(), label << ": messages completed");
        NS_TEST_EXPECT_MSG_EQ(stats.drops, 0u, label << ": frames dropped");
        NS_TEST_EXPECT_MSG_EQ(stats.retransmits, 0u, label << ": data frames resent");
        NS_TEST_EXPECT_MSG_EQ(rec.GetNFlows(),
                              flows.size(),
                              label << ": data flows on the wire (one per QP)");

        Ptr<RoceFlowEngine> engine = CreateObject<RoceFlowEngine>();
        std::vector<Path> paths(flows.size());
        uint32_t missing = 0;
        uint32_t badLength = 0;
        uint32_t notNic = 0;
        uint32_t differ = 0;
        std::ostringstream first;
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            const Flow& f = flows[i];
            const Path* seen = rec.Find(KeyOf(f.qp));
            if (!seen)
            {
                ++missing;
                continue;
            }
            paths[i] = *seen;
            // One frame, sent once: the NIC, then one port per switch.
            if (seen->size() != 1 + z.GetSwitchHops(f.src, f.dst))
            {
                ++badLength;
            }
            Path computed;
            for (const Ptr<RocePfcNetDevice>& d : engine->GetPath(f.qp))
            {
                computed.push_back(PeekPointer(d));
            }
            if (computed.empty() || computed.front() != PeekPointer(f.qp->GetNic()) ||
                seen->front() != PeekPointer(f.qp->GetNic()))
            {
                ++notNic;
            }
            if (SwitchPart(computed) != SwitchPart(*seen))
            {
                if (differ++ < 5)
                {
                    first << "\n  QP " << f.qp->GetQpn() << " GPU " << f.src << " -> " << f.dst
                          << " sport " << f.qp->GetSourcePort() << " dest QP "
                          << f.qp->GetRemoteQpn() << "\n    frames:" << Describe(*seen)
                          << "\n    engine:" << Describe(computed);
                }
            }
        }
        engine->Dispose();
        NS_TEST_EXPECT_MSG_EQ(missing, 0u, label << ": QPs whose data frame was not seen");
        NS_TEST_EXPECT_MSG_EQ(badLength,
                              0u,
                              label << ": QPs whose frame did not cross the zone's switch count "
                                       "once each");
        NS_TEST_EXPECT_MSG_EQ(notNic, 0u, label << ": paths not starting at the QP's NIC");
        NS_TEST_EXPECT_MSG_EQ(differ,
                              0u,
                              label << ": of " << flows.size()
                                    << " QPs, these took other switch ports than "
                                       "RoceFlowEngine::GetPath gives:"
                                    << first.str());
        return paths;
    }

  private:
    /** \param c a completion */
    void Done(const RoceCompletion& c)
    {
        m_completed += c.success ? 1 : 0;
    }

    uint64_t m_completed{0}; //!< messages completed successfully in the last run
};

#endif // ROCEV2_FLOW_PATH_HELPERS_H
