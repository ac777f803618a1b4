/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-hpcc-format.h"

#include "../formats/roce-field-reader.h"

#include "ns3/roce-error.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace ns3
{

RoceHpccFormat::Topology
RoceHpccFormat::ReadTopology(const std::string& path)
{
    RoceFieldReader in(path);
    std::vector<std::string> f;
    ROCE_ERROR_IF(!in.Next(f), path << ": empty (expected 'nodes switches links' on line 1)");
    in.Expect(f, 3, "nodes switches links");
    Topology t;
    t.nodes = in.Unsigned(f[0], "nodes", 1u << 24);
    // Without a node, every id below would be out of range (nodes - 1 wraps around).
    ROCE_ERROR_IF(t.nodes == 0, in.Where() << "nodes '" << f[0] << "': a topology needs a node");
    const uint32_t nSwitches = in.Unsigned(f[1], "switches", t.nodes);
    const uint32_t nLinks = in.Unsigned(f[2], "links", 1u << 28);
    t.isSwitch.assign(t.nodes, false);
    ROCE_ERROR_IF(nSwitches > 0 && !in.Next(f),
                  path << ": ends before the line of the " << nSwitches << " switch ids");
    if (nSwitches > 0)
    {
        ROCE_ERROR_IF(f.size() != nSwitches,
                      in.Where() << "expected the " << nSwitches << " switch ids, found "
                                 << f.size());
        for (const std::string& s : f)
        {
            const uint32_t id = in.Unsigned(s, "switch id", t.nodes - 1);
            ROCE_ERROR_IF(t.isSwitch[id], in.Where() << "switch id " << id << " listed twice");
            t.isSwitch[id] = true;
            t.switches.push_back(id);
        }
    }
    while (in.Next(f))
    {
        in.Expect(f, 5, "a b rate delay error_rate");
        Link l;
        l.line = in.Line();
        l.a = in.Unsigned(f[0], "link end a", t.nodes - 1);
        l.b = in.Unsigned(f[1], "link end b", t.nodes - 1);
        ROCE_ERROR_IF(l.a == l.b, in.Where() << "link from node " << l.a << " to itself");
        l.rate = in.Rate(f[2], "rate");
        l.delay = in.Delay(f[3], "delay");
        // WriteTopology writes the delay as a whole number of time steps,
        // which reads back exactly up to 2^53 (a double's integers): 104 days
        // in nanoseconds, a bound no link comes near.
        ROCE_ERROR_IF(l.delay.GetTimeStep() > (int64_t{1} << 53),
                      in.Where() << "delay '" << f[3] << "' is longer than 2^53 time steps");
        l.errorRate = in.Real(f[4], "error_rate");
        ROCE_ERROR_IF(l.errorRate < 0 || l.errorRate >= 1,
                      in.Where() << "error_rate '" << f[4] << "' is not in [0, 1)");
        t.links.push_back(l);
    }
    ROCE_ERROR_IF(t.links.size() != nLinks,
                  path << ": line 1 announces " << nLinks << " links, the file has "
                       << t.links.size());
    return t;
}

void
RoceHpccFormat::WriteTopology(std::ostream& os, const Topology& t)
{
    os << t.nodes << " " << t.switches.size() << " " << t.links.size() << "\n";
    for (size_t i = 0; i < t.switches.size(); ++i)
    {
        os << (i ? " " : "") << t.switches[i];
    }
    os << "\n";
    for (const Link& l : t.links)
    {
        // The error rate as short as reads back exactly: 0.001, not 0.00100000000000000002.
        std::ostringstream error;
        error << l.errorRate;
        if (std::stod(error.str()) != l.errorRate)
        {
            error.str("");
            error << std::setprecision(std::numeric_limits<double>::max_digits10) << l.errorRate;
        }
        os << l.a << " " << l.b << " " << l.rate.GetBitRate() << "bps " << l.delay.GetTimeStep()
           << (Time::GetResolution() == Time::NS ? "ns " : "ps ") << error.str() << "\n";
    }
}

std::vector<uint32_t>
RoceHpccFormat::Hosts(const Topology& topology)
{
    std::vector<uint32_t> hosts;
    for (uint32_t i = 0; i < topology.nodes; ++i)
    {
        if (!topology.isSwitch[i])
        {
            hosts.push_back(i);
        }
    }
    return hosts;
}

std::vector<RoceHpccFormat::Flow>
RoceHpccFormat::ReadFlows(const std::string& path, const Topology& topology)
{
    RoceFieldReader in(path);
    std::vector<std::string> f;
    ROCE_ERROR_IF(!in.Next(f), path << ": empty (expected the number of flows on line 1)");
    in.Expect(f, 1, "the number of flows");
    const uint64_t n = in.Unsigned(f[0], "flows", 1ull << 32);
    std::vector<Flow> flows;
    // Line 1 may announce more flows than the file holds (an error found at
    // its end): reserve no more than a file of a million flows needs.
    flows.reserve(std::min<uint64_t>(n, 1u << 20));
    ROCE_ERROR_IF(topology.nodes == 0, path << ": the topology has no nodes");
    while (in.Next(f))
    {
        in.Expect(f, 6, "src dst priority dport bytes start_seconds");
        Flow fl;
        fl.line = in.Line();
        fl.src = in.Unsigned(f[0], "src", topology.nodes - 1);
        fl.dst = in.Unsigned(f[1], "dst", topology.nodes - 1);
        ROCE_ERROR_IF(topology.isSwitch[fl.src],
                      in.Where() << "src " << fl.src << " is a switch, not a host");
        ROCE_ERROR_IF(topology.isSwitch[fl.dst],
                      in.Where() << "dst " << fl.dst << " is a switch, not a host");
        ROCE_ERROR_IF(fl.src == fl.dst, in.Where() << "src and dst are both " << fl.src);
        fl.priority = in.Unsigned(f[2], "priority", 7);
        fl.dport = in.Unsigned(f[3], "dport", 65535);
        fl.bytes = in.Unsigned(f[4], "bytes", 1ull << 62);
        ROCE_ERROR_IF(fl.bytes == 0, in.Where() << "bytes '" << f[4] << "' must be positive");
        const double start = in.Real(f[5], "start_seconds");
        ROCE_ERROR_IF(start < 0, in.Where() << "start_seconds '" << f[5] << "' is negative");
        // Beyond the simulator's time range, the rounding below wraps around.
        ROCE_ERROR_IF(start >= Time::Max().GetSeconds(),
                      in.Where() << "start_seconds '" << f[5] << "' is beyond the simulator's "
                                 << Time::Max().GetSeconds() << " s");
        // Nanoseconds, rounded: the files give 9 decimals.
        fl.start = NanoSeconds(static_cast<int64_t>(std::llround(start * 1e9)));
        flows.push_back(fl);
    }
    ROCE_ERROR_IF(flows.size() != n,
                  path << ": line 1 announces " << n << " flows, the file has " << flows.size());
    return flows;
}

} // namespace ns3
