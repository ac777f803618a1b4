/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceFlowEngine::GetPath against the packet model: the devices the engine
 * says a queue pair's data frames leave by are the ones its frames leave by.
 */

// What is checked. A 3-tier AI Zone (2 zones of 4 racks of 2 servers of 2
// NICs; 4 uplinks per RTSW over 2 CTSWs, so 2 parallel links per RTSW-CTSW
// pair; 4 ATSWs) carries one 64-byte RDMA WRITE (one data frame) on each of
// hundreds of queue pairs between NICs of different servers: under one RTSW
// (1 switch), across racks of a zone (3) and across zones (5). Every data
// frame is recorded where it is put on a wire (the MacTx trace of every NIC
// and every switch port), keyed by its flow as parsed from its bytes (source
// and destination address, UDP ports, BTH destination QP: with one source
// port, two QPs of a NIC towards two NICs may have the same destination QP
// number, so the source alone does not tell them apart). After the run, a
// RoceFlowEngine made for the purpose and attached to no NIC gives
// GetPath(qp) for every queue pair; its first device must be the QP's NIC
// and the rest, in order, the switch ports the frame left by. The cases:
// - ECMP: 960 QPs, one per ordered pair of NICs of different servers;
// - QP scaling: 8 QPs per NIC pair (source ports derived from the QP
//   numbers), 64 pairs;
// - E-ECMP: the same with one source port for every QP and EcmpUseQp=true
//   (Config::SetDefault before Build, restored after), so that only the
//   destination QP tells a pair's QPs apart; and the control, EcmpUseQp=false
//   with that one source port, where a pair's QPs must share one path;
// - pinned routes: 4 cross-zone QPs are pinned (RoceSwitch::AddPinnedRoute)
//   to another port of the ECMP group they took, one at each tier of the path
//   (RTSW up, CTSW up, ATSW down, CTSW down over the parallel link); the
//   frames are sent again and the engine's paths must follow the pins as the
//   frames do, while the other QPs keep their paths.
// Each case also checks the run was clean (every message completed, no drop,
// no retransmission, one data frame per QP on every hop: the recorded path
// has the zone's switch count for the pair) and that ECMP actually spread the
// QPs (more than one uplink per RTSW, more than one path per QP-scaling or
// E-ECMP pair, exactly one per pair in the control), so that equal paths are
// not equal by there being only one path to take.
//
// Why the oracle is independent. The recorded path is what the packet
// model did: the sending NIC built the headers from the QP's state, each
// switch parsed the frame's bytes (RoceFrame) and forwarded it in
// RoceSwitch::Receive (SelectEgress, or SelectEgressBalanced once flows are
// pinned), and the channels carried it to the next device. The engine instead
// makes up a frame from the QP's accessors, looks the pin up itself
// (GetPinnedPort), calls SelectEgress and walks the channels by itself. A
// mistake in any of these (a field of the made-up frame: source port, remote
// QP number, UDP ports, protocol, the QP-hash flag; pin precedence; which
// device is the peer; which of two parallel links a port index names; the
// order of the hops) gives a different path for some QP here. What both
// share is the hash of RoceSwitch::SelectEgress and the route table: a bad
// hash would pass here and is the business of rocev2-ai-zone-ecmp.
//
// The comparison bites: changing every switch's EcmpSeed, or flipping its
// EcmpUseQp, between the packet run and the engine's walk made 471 to 852 of
// a case's QPs differ, and clearing the pins made the 4 pinned QPs differ
// (each case alone).

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
bool
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
void
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
RoceFlowKey
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
std::string
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
Path
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
uint32_t
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
std::vector<std::pair<uint32_t, uint32_t>>
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
std::vector<std::set<Path>>
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

/**
 * \ingroup rocev2
 * ECMP: one QP from every NIC to every NIC of another server (960 QPs, over
 * 1, 3 and 5 switches); the engine's path of each is its frame's; every
 * RTSW spread the QPs leaving its rack over more than one uplink.
 */
class EcmpPathTestCase : public FlowPathTestCase
{
  public:
    EcmpPathTestCase()
        : FlowPathTestCase("ECMP: GetPath = the frame's ports for 960 QPs over 1, 3 and 5 "
                           "switches of a 3-tier zone")
    {
    }

  private:
    void DoRun() override
    {
        RoceAiZoneHelper zh;
        ShapeZone(zh);
        RoceAiZone z = zh.Build();
        PathRecorder rec(z);
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        for (uint32_t a = 0; a < z.GetNGpus(); ++a)
        {
            for (uint32_t b = 0; b < z.GetNGpus(); ++b)
            {
                if (z.GetServer(a) != z.GetServer(b))
                {
                    pairs.emplace_back(a, b);
                }
            }
        }
        std::vector<Flow> flows = CreateFlows(z, zh.GetRoceHelper(), pairs, 1);
        NS_TEST_ASSERT_MSG_EQ(flows.size(), 960u, "QPs");
        PostAndRun(flows);
        std::vector<Path> paths = Compare(z, flows, rec, "ECMP");

        std::map<uint32_t, uint32_t> byHops;
        std::map<const Node*, std::set<const RocePfcNetDevice*>> uplinks; // per RTSW
        std::set<Path> routes;
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            const uint32_t hops = z.GetSwitchHops(flows[i].src, flows[i].dst);
            ++byHops[hops];
            if (hops > 1 && paths[i].size() > 1)
            {
                uplinks[PeekPointer(paths[i][1]->GetNode())].insert(paths[i][1]);
            }
            routes.insert(SwitchPart(paths[i]));
        }
        NS_TEST_EXPECT_MSG_EQ(byHops[1], 64u, "QPs under one RTSW");
        NS_TEST_EXPECT_MSG_EQ(byHops[3], 384u, "QPs across racks of a zone");
        NS_TEST_EXPECT_MSG_EQ(byHops[5], 512u, "QPs across zones");
        NS_TEST_EXPECT_MSG_EQ(uplinks.size(), z.rtsw.GetN(), "RTSWs that sent QPs up");
        uint32_t fewest = z.uplinksPerRtsw;
        for (const auto& [node, ports] : uplinks)
        {
            fewest = std::min<uint32_t>(fewest, ports.size());
        }
        // About 108 QPs leave each rack over 4 uplinks.
        NS_TEST_EXPECT_MSG_GT(fewest, 1u, "an RTSW sent every QP leaving its rack up one uplink");
        NS_TEST_EXPECT_MSG_GT(routes.size(), 1u, "every QP took the same switch ports");
        std::cout << "rocev2-flow-path, ECMP: " << flows.size() << " QPs, " << routes.size()
                  << " distinct switch-port sequences, at least " << fewest
                  << " uplinks used per RTSW" << std::endl;
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * QP scaling and E-ECMP: 8 QPs per NIC pair (64 pairs: every NIC to its
 * twin in the other zone and to its place in the next rack; 512 QPs). The
 * engine's path of each is its frame's, and:
 * - "scaling": source ports from the QP numbers, plain ECMP: every pair's
 *   QPs take more than one path;
 * - "E-ECMP": one source port for all, EcmpUseQp=true: every pair's QPs
 *   take more than one path (only the destination QP differs);
 * - "control": one source port for all, EcmpUseQp=false: every pair's QPs
 *   take one path (their frames' 5-tuples are equal).
 */
class QpScalingPathTestCase : public FlowPathTestCase
{
  public:
    /** How a pair's QPs differ. */
    enum Mode
    {
        SCALING, //!< source ports, plain ECMP
        E_ECMP,  //!< destination QP only, EcmpUseQp=true
        CONTROL, //!< destination QP only, EcmpUseQp=false
    };

    /** \param mode the variant */
    explicit QpScalingPathTestCase(Mode mode)
        : FlowPathTestCase(std::string(Name(mode)) + ": GetPath = the frame's ports for " +
                           std::to_string(QPS_PER_PAIR) + " QPs per NIC pair, 64 pairs; " +
                           (mode == CONTROL ? "one path" : "several paths") + " per pair"),
          m_mode(mode)
    {
    }

  private:
    /** \param mode a variant \return its name */
    static const char* Name(Mode mode)
    {
        return mode == SCALING ? "QP scaling" : mode == E_ECMP ? "E-ECMP" : "E-ECMP control";
    }

    void DoRun() override
    {
        const bool useQp = m_mode == E_ECMP;
        // Before Build: the switches take the default when they are created.
        DefaultGuard guard("ns3::RoceSwitch", "EcmpUseQp", BooleanValue(useQp));
        RoceAiZoneHelper zh;
        ShapeZone(zh);
        if (m_mode != SCALING)
        {
            zh.GetRoceHelper().SetQpAttribute("SourcePort", UintegerValue(FIXED_SPORT));
        }
        RoceAiZone z = zh.Build();
        for (const Ptr<RoceSwitch>& sw : AllSwitches(z))
        {
            BooleanValue v;
            sw->GetAttribute("EcmpUseQp", v);
            NS_TEST_ASSERT_MSG_EQ(v.Get(), useQp, Name(m_mode) << ": a switch's EcmpUseQp");
        }
        PathRecorder rec(z);
        const std::vector<std::pair<uint32_t, uint32_t>> pairs = ScalingPairs(z);
        std::vector<Flow> flows = CreateFlows(z, zh.GetRoceHelper(), pairs, QPS_PER_PAIR);
        NS_TEST_ASSERT_MSG_EQ(flows.size(), 512u, "QPs");
        std::set<uint16_t> sports;
        for (const Flow& f : flows)
        {
            sports.insert(f.qp->GetSourcePort());
        }
        if (m_mode == SCALING)
        {
            NS_TEST_EXPECT_MSG_GT(sports.size(),
                                  400u,
                                  "QP scaling: QPs with their own source "
                                  "port");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ(sports.size(), 1u, "one source port for all QPs");
        }
        PostAndRun(flows);
        std::vector<Path> paths = Compare(z, flows, rec, Name(m_mode));

        std::vector<std::set<Path>> routes = RoutesPerPair(flows, paths, pairs.size());
        uint32_t onePath = 0;
        std::size_t total = 0;
        for (const auto& r : routes)
        {
            onePath += r.size() == 1 ? 1 : 0;
            total += r.size();
        }
        std::cout << "rocev2-flow-path, " << Name(m_mode) << ": " << flows.size() << " QPs, "
                  << total << " distinct paths over " << pairs.size() << " pairs, " << onePath
                  << " pairs on one path" << std::endl;
        if (m_mode == CONTROL)
        {
            // Equal 5-tuples and the destination QP not hashed: one path per pair.
            NS_TEST_EXPECT_MSG_EQ(onePath,
                                  pairs.size(),
                                  "control: a pair's QPs with one source port took several "
                                  "paths without EcmpUseQp");
        }
        else
        {
            // 8 QPs over 8 (same zone) or 64 (across zones) equal-cost paths:
            // all on one has probability 8^-7 or 64^-7 per pair.
            NS_TEST_EXPECT_MSG_EQ(onePath,
                                  0u,
                                  Name(m_mode) << ": pairs whose " << QPS_PER_PAIR
                                               << " QPs all took one path");
        }
        Simulator::Destroy();
    }

    Mode m_mode; //!< the variant
};

/**
 * \ingroup rocev2
 * Pinned routes: 96 QPs (every NIC to its twin in the other zone, its place
 * in the next rack and the other server of its rack) send a frame; then 4
 * cross-zone QPs are pinned to another port of the ECMP group they took, one
 * per tier (RTSW up to another CTSW, CTSW up to another ATSW, ATSW down to
 * another CTSW, CTSW down over the other parallel link to the same RTSW), and
 * every QP sends again. Both times a fresh engine's paths are the frames';
 * the pinned QPs' frames left by the pinned ports (4 frames forwarded by a
 * pin in all) and the others kept their paths.
 */
class PinnedPathTestCase : public FlowPathTestCase
{
  public:
    PinnedPathTestCase()
        : FlowPathTestCase("pinned routes: GetPath follows a pin at each tier as the frames do")
    {
    }

  private:
    void DoRun() override
    {
        RoceAiZoneHelper zh;
        ShapeZone(zh);
        RoceAiZone z = zh.Build();
        PathRecorder rec(z);
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        const uint32_t n = z.GetNGpus();
        for (uint32_t a = 0; a < n; ++a)
        {
            pairs.emplace_back(a, (a + n / 2) % n);
            pairs.emplace_back(a, OtherRack(z, a, 1));
            // The same place on the other server of the rack.
            const uint32_t g = z.gpusPerServer;
            const uint32_t rackBase = a / z.GetNicsPerRack() * z.GetNicsPerRack();
            pairs.emplace_back(a, rackBase + (a - rackBase + g) % z.GetNicsPerRack());
        }
        std::vector<Flow> flows = CreateFlows(z, zh.GetRoceHelper(), pairs, 1);
        PostAndRun(flows);
        const std::vector<Path> before = Compare(z, flows, rec, "before the pins");

        // Pin the first 4 QPs from zone 0 to zone 1, QP k at switch k + 1 of
        // its path, to another port of the group its frame took there.
        struct Pin
        {
            std::size_t flow;                 //!< index of the QP
            uint32_t hop;                     //!< position of the pinned port in the path
            const RocePfcNetDevice* port;     //!< the port it is pinned to
            const RocePfcNetDevice* ecmpTook; //!< the port it took before
        };

        std::vector<Pin> pins;
        for (std::size_t i = 0; i < flows.size() && pins.size() < 4; ++i)
        {
            const Flow& f = flows[i];
            if (z.GetZone(f.src) != 0 || z.GetSwitchHops(f.src, f.dst) != 5)
            {
                continue;
            }
            const uint32_t hop = static_cast<uint32_t>(pins.size()) + 1;
            NS_TEST_ASSERT_MSG_EQ(before[i].size(), 6u, "a cross-zone path");
            const auto* took = dynamic_cast<const RoceSwitchPort*>(before[i][hop]);
            NS_TEST_ASSERT_MSG_NE(took, nullptr, "a switch port");
            Ptr<RoceSwitch> sw = took->GetNode()->GetObject<RoceSwitch>();
            const RoceFlowKey key = KeyOf(f.qp);
            const std::vector<uint32_t> group = sw->Lookup(Ipv4Address(key.dstIp));
            NS_TEST_ASSERT_MSG_GT(group.size(), 1u, "an ECMP group at hop " << hop);
            Ptr<Node> wasNext = PeerNode(sw->GetPort(took->GetPortIndex()));
            int32_t alt = -1;
            for (uint32_t p : group)
            {
                if (p == took->GetPortIndex())
                {
                    continue;
                }
                // The last choice is between parallel links to one RTSW: the
                // pin must pick the right one of two ports to one node.
                // Elsewhere move the frame to another switch.
                const bool sameNext = PeerNode(sw->GetPort(p)) == wasNext;
                if (sameNext == (hop == 4))
                {
                    alt = static_cast<int32_t>(p);
                    break;
                }
            }
            NS_TEST_ASSERT_MSG_GT_OR_EQ(alt, 0, "another port of the group at hop " << hop);
            sw->AddPinnedRoute(key, static_cast<uint32_t>(alt));
            pins.push_back({i, hop, PeekPointer(sw->GetPort(alt)), before[i][hop]});
        }
        NS_TEST_ASSERT_MSG_EQ(pins.size(), 4u, "pinned QPs");

        rec.Clear();
        PostAndRun(flows);
        const std::vector<Path> after = Compare(z, flows, rec, "with the pins");
        uint64_t pinnedFrames = 0;
        for (const Ptr<RoceSwitch>& sw : AllSwitches(z))
        {
            pinnedFrames += sw->GetPinnedFrames();
        }
        NS_TEST_EXPECT_MSG_EQ(pinnedFrames, pins.size(), "frames forwarded by a pin");
        std::set<std::size_t> pinned;
        for (const Pin& p : pins)
        {
            pinned.insert(p.flow);
            const Path& path = after[p.flow];
            NS_TEST_ASSERT_MSG_EQ(path.size(), 6u, "pinned QP's path length");
            NS_TEST_EXPECT_MSG_EQ((path[p.hop] == p.port),
                                  true,
                                  "the frame of the QP pinned at hop "
                                      << p.hop << " left by" << Describe({path[p.hop]})
                                      << ", not the pinned" << Describe({p.port}));
            NS_TEST_EXPECT_MSG_EQ((path[p.hop] != p.ecmpTook), true, "the pin moved no frame");
            NS_TEST_EXPECT_MSG_EQ((Path(path.begin(), path.begin() + p.hop) ==
                                   Path(before[p.flow].begin(), before[p.flow].begin() + p.hop)),
                                  true,
                                  "the hops before the pin changed");
        }
        uint32_t moved = 0;
        for (std::size_t i = 0; i < flows.size(); ++i)
        {
            moved += pinned.count(i) == 0 && after[i] != before[i] ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(moved, 0u, "QPs that were not pinned changed path");
        std::cout << "rocev2-flow-path, pinned routes: " << flows.size() << " QPs, " << pins.size()
                  << " pinned (one per tier), " << pinnedFrames << " frames forwarded by a pin, "
                  << moved << " others moved" << std::endl;
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * RoceFlowEngine::GetPath against the frames of the packet model.
 */
class RoceFlowPathTestSuite : public TestSuite
{
  public:
    RoceFlowPathTestSuite()
        : TestSuite("rocev2-flow-path", Type::UNIT)
    {
        AddTestCase(new EcmpPathTestCase, RoceTestDuration::QUICK);
        AddTestCase(new QpScalingPathTestCase(QpScalingPathTestCase::SCALING),
                    RoceTestDuration::QUICK);
        AddTestCase(new QpScalingPathTestCase(QpScalingPathTestCase::E_ECMP),
                    RoceTestDuration::QUICK);
        AddTestCase(new QpScalingPathTestCase(QpScalingPathTestCase::CONTROL),
                    RoceTestDuration::QUICK);
        AddTestCase(new PinnedPathTestCase, RoceTestDuration::QUICK);
    }
};

static RoceFlowPathTestSuite g_roceFlowPathTestSuite; //!< static instance
