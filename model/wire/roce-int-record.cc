/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-int-record.h"

#include "ns3/global-value.h"
#include "ns3/roce-error.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>

namespace ns3
{

namespace
{

/** The link rate of each 3-bit rate code, Mb/s. */
constexpr std::array<uint32_t, 8> RATES_MBPS =
    {10000, 25000, 40000, 50000, 100000, 200000, 400000, 800000};

/** M: the INT fields' unit multiplier (the HPCC simulator's INT_MULTI). */
GlobalValue g_intUnitMultiplier(
    "RoceIntUnitMultiplier",
    "INT unit multiplier M: a record counts transmitted bytes in units of 128 M bytes and "
    "queue length in units of 80 M bytes (the HPCC simulator's INT_MULTI), so a larger M "
    "covers deeper queues at a coarser grain.",
    UintegerValue(1),
    MakeUintegerChecker<uint32_t>(1, 1u << 16));

} // namespace

void
RoceIntRecord::Print(std::ostream& os) const
{
    os << "INT hop=" << +hop << " rate=" << rateMbps << "Mbps qlen=" << queueBytes
       << " tx=" << txBytes << " ts=" << timestampNs << "ns";
}

std::ostream&
operator<<(std::ostream& os, const RoceIntRecord& r)
{
    r.Print(os);
    return os;
}

uint32_t
RoceIntRecord::GetUnitMultiplier()
{
    UintegerValue v;
    g_intUnitMultiplier.GetValue(v);
    return static_cast<uint32_t>(v.Get());
}

uint8_t
RoceIntRecord::RateCode(uint32_t rateMbps)
{
    for (uint8_t c = 0; c < RATES_MBPS.size(); ++c)
    {
        if (RATES_MBPS[c] == rateMbps)
        {
            return c;
        }
    }
    ROCE_ERROR("RoceIntRecord: a link of "
               << rateMbps
               << " Mb/s has no INT rate code (the 3-bit field "
                  "encodes 10, 25, 40, 50, 100, 200, 400 and 800 Gb/s)");
}

uint64_t
RoceIntRecord::TimeDeltaNs(const RoceIntRecord& cur, const RoceIntRecord& prev)
{
    return (cur.timestampNs - prev.timestampNs) & ((uint64_t{1} << TIME_BITS) - 1);
}

uint64_t
RoceIntRecord::TxBytesDelta(const RoceIntRecord& cur, const RoceIntRecord& prev)
{
    // The field's range in bytes; records read off the wire hold multiples
    // of the unit below it, records never serialised hold exact counts.
    const uint64_t range = (uint64_t{1} << BYTES_BITS) * BYTES_UNIT * cur.unitMultiplier;
    const uint64_t c = cur.txBytes % range;
    const uint64_t p = prev.txBytes % range;
    return c >= p ? c - p : c + range - p;
}

void
RoceIntRecord::Write(uint8_t* b) const
{
    const uint64_t m = unitMultiplier;
    const uint64_t qlenMax = (uint64_t{1} << QLEN_BITS) - 1;
    const uint64_t word =
        (uint64_t{RateCode(rateMbps)} << (TIME_BITS + BYTES_BITS + QLEN_BITS)) |
        ((timestampNs & ((uint64_t{1} << TIME_BITS) - 1)) << (BYTES_BITS + QLEN_BITS)) |
        (((txBytes / (BYTES_UNIT * m)) & ((uint64_t{1} << BYTES_BITS) - 1)) << QLEN_BITS) |
        std::min(queueBytes / (QLEN_UNIT * m), qlenMax);
    for (int i = 7; i >= 0; --i)
    {
        b[7 - i] = static_cast<uint8_t>(word >> (8 * i));
    }
}

void
RoceIntRecord::Read(const uint8_t* b)
{
    uint64_t word = 0;
    for (int i = 0; i < 8; ++i)
    {
        word = (word << 8) | b[i];
    }
    const uint64_t m = unitMultiplier;
    rateMbps = RATES_MBPS[word >> (TIME_BITS + BYTES_BITS + QLEN_BITS)];
    timestampNs = (word >> (BYTES_BITS + QLEN_BITS)) & ((uint64_t{1} << TIME_BITS) - 1);
    txBytes = ((word >> QLEN_BITS) & ((uint64_t{1} << BYTES_BITS) - 1)) * BYTES_UNIT * m;
    queueBytes = (word & ((uint64_t{1} << QLEN_BITS) - 1)) * QLEN_UNIT * m;
}

} // namespace ns3
