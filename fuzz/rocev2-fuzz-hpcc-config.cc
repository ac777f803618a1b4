/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer harness of the HPCC-lineage config file reader
 * (RoceHpccConfig::Read), and of what rocev2-hpcc-compat does next with an
 * accepted config before any simulation: its warning, its congestion control,
 * the ECN thresholds by link speed, and Apply() to fresh helpers for the
 * topology of examples/hpcc/tiny-topology.txt. The times it gives must not be
 * negative, its error rate must be in [0, 1), and each ECN triple must have
 * Kmin <= Kmax and Pmax in [0, 1].
 */

#include "rocev2-fuzz-hpcc.h"

#include "ns3/roce-helper.h"
#include "ns3/roce-hpcc-config.h"
#include "ns3/roce-hpcc-format.h"
#include "ns3/roce-switch-helper.h"

using namespace ns3;

namespace
{

/** \brief Check the ECN thresholds of a config at one rate. */
void
CheckEcn(const RoceHpccConfig& c, uint64_t bps)
{
    const auto [k, p] = c.EcnAt(DataRate(bps));
    ROCE_FUZZ_CHECK(k.first <= k.second, bps << " bit/s: Kmin " << k.first << " Kmax " << k.second);
    ROCE_FUZZ_CHECK(p >= 0 && p <= 1, bps << " bit/s: Pmax " << p);
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    RoceFuzz::PlantedBug(data, size);
    static const RoceFuzz::RoceFuzzTempFile file("hpcc-config", ".txt");
    const RoceHpccFormat::Topology& t = RoceFuzz::TinyTopology();
    RoceHpccConfig c;
    if (!RoceFuzz::Accepts([&] { c = RoceHpccConfig::Read(file.Write(data, size)); }))
    {
        return 0;
    }
    ROCE_FUZZ_CHECK(!c.topologyFile.empty() && !c.flowFile.empty(), "files");
    ROCE_FUZZ_CHECK(!c.stopTime.IsStrictlyNegative(), "SIMULATOR_STOP_TIME " << c.stopTime);
    ROCE_FUZZ_CHECK(!c.qlenStart.IsStrictlyNegative(), "QLEN_MON_START " << c.qlenStart);
    ROCE_FUZZ_CHECK(!c.qlenEnd.IsStrictlyNegative(), "QLEN_MON_END " << c.qlenEnd);
    const double errorRate = c.GetErrorRatePerLink();
    ROCE_FUZZ_CHECK(errorRate >= 0 && errorRate < 1, "ERROR_RATE_PER_LINK " << errorRate);
    c.GetWarning();
    ROCE_FUZZ_CHECK(!c.GetCcName().empty(), "CC_MODE " << c.ccMode);
    c.Resolve(c.topologyFile);

    // The ECN thresholds at the speeds the maps list, and at common ones.
    for (const auto* m : {&c.kmin, &c.kmax, &c.pmax})
    {
        for (const auto& [bps, value] : *m)
        {
            CheckEcn(c, bps);
        }
    }
    for (uint64_t gbps : {1, 25, 100, 400})
    {
        CheckEcn(c, gbps * 1000000000);
    }

    // Applied to the helpers of a fabric (which is not built).
    RoceFuzz::Accepts([&] {
        ROCE_FUZZ_CHECK(!c.MaxBaseRtt(t).IsStrictlyNegative(), "MaxBaseRtt");
        RoceHelper roce;
        RoceSwitchHelper switches;
        c.Apply(roce, switches, t);
    });
    return 0;
}
