/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer harness of the HPCC-lineage topology file reader
 * (RoceHpccFormat::ReadTopology). An accepted topology must be consistent
 * (ids in range, no link to itself, a positive rate, a delay that is not
 * negative, an error rate in [0, 1)), must survive WriteTopology and a second
 * read unchanged, and must give a base RTT (RoceHpccConfig::MaxBaseRtt, as
 * rocev2-hpcc-compat computes it, for up to 1000 nodes) that is not negative.
 */

#include "rocev2-fuzz-common.h"

#include "ns3/roce-hpcc-config.h"
#include "ns3/roce-hpcc-format.h"

#include <sstream>

using namespace ns3;

namespace
{

/** \brief Check what an accepted topology holds. \param t the topology */
void
CheckTopology(const RoceHpccFormat::Topology& t)
{
    ROCE_FUZZ_CHECK(t.nodes > 0, "a topology without nodes");
    ROCE_FUZZ_CHECK(t.isSwitch.size() == t.nodes, t.isSwitch.size() << " flags");
    for (uint32_t s : t.switches)
    {
        ROCE_FUZZ_CHECK(s < t.nodes && t.isSwitch[s], "switch id " << s);
    }
    for (const auto& l : t.links)
    {
        ROCE_FUZZ_CHECK(l.a < t.nodes && l.b < t.nodes && l.a != l.b,
                        "line " << l.line << ": link " << l.a << " " << l.b);
        ROCE_FUZZ_CHECK(l.rate.GetBitRate() > 0, "line " << l.line);
        ROCE_FUZZ_CHECK(!l.delay.IsStrictlyNegative(), "line " << l.line << ": delay " << l.delay);
        ROCE_FUZZ_CHECK(l.errorRate >= 0 && l.errorRate < 1,
                        "line " << l.line << ": error rate " << l.errorRate);
    }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    RoceFuzz::PlantedBug(data, size);
    static const RoceFuzz::RoceFuzzTempFile file("hpcc-topology", ".txt");
    static const RoceFuzz::RoceFuzzTempFile again("hpcc-topology-again", ".txt");
    RoceHpccFormat::Topology t;
    if (!RoceFuzz::Accepts([&] { t = RoceHpccFormat::ReadTopology(file.Write(data, size)); }))
    {
        return 0;
    }
    CheckTopology(t);

    // Written and read back: the same topology.
    std::ostringstream text;
    RoceHpccFormat::WriteTopology(text, t);
    const std::string written = text.str();
    RoceHpccFormat::Topology u;
    const bool reread = RoceFuzz::Accepts([&] {
        u = RoceHpccFormat::ReadTopology(
            again.Write(reinterpret_cast<const uint8_t*>(written.data()), written.size()));
    });
    ROCE_FUZZ_CHECK(reread, "WriteTopology wrote a file ReadTopology refuses:\n" << written);
    ROCE_FUZZ_CHECK(u.nodes == t.nodes && u.switches == t.switches &&
                        u.links.size() == t.links.size(),
                    "round trip changed the counts:\n"
                        << written);
    for (size_t i = 0; i < t.links.size(); ++i)
    {
        const auto& a = t.links[i];
        const auto& b = u.links[i];
        ROCE_FUZZ_CHECK(a.a == b.a && a.b == b.b && a.rate == b.rate && a.delay == b.delay &&
                            a.errorRate == b.errorRate,
                        "round trip changed link " << i << " (line " << a.line << "):\n"
                                                   << written);
    }

    // The base RTT that an HPCC config derives from the topology: a search
    // from every host, quadratic in the nodes, so only for small topologies.
    if (t.nodes > 1000)
    {
        return 0;
    }
    RoceHpccConfig config;
    Time rtt;
    RoceFuzz::Accepts([&] { rtt = config.MaxBaseRtt(t); });
    ROCE_FUZZ_CHECK(!rtt.IsStrictlyNegative(), "MaxBaseRtt " << rtt);
    return 0;
}
