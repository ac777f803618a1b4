/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-pint-digest.h"

#include "roce-icrc-trailer.h"
#include "roce-raw-trailer.h"

#include "ns3/double.h"
#include "ns3/global-value.h"
#include "ns3/packet.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{

/** The digest's logarithm base (the HPCC simulator's PINT_LOG_BASE). */
GlobalValue g_pintLogBase("RocePintLogBase",
                          "Base of HPCC-PINT's logarithmic utilization digest (> 1): a "
                          "smaller base gives finer steps and larger exponents (the HPCC "
                          "simulator's PINT_LOG_BASE; its run.py uses 1.01).",
                          DoubleValue(1.01),
                          // From 1.001 the 16 bits hold any utilization up to
                          // 1.001^65535 / 512, so no code saturates.
                          MakeDoubleChecker<double>(1.001, 2.0));

/** Bytes of the digest and the ICRC behind it. */
constexpr uint32_t TAIL = RocePintDigest::SIZE + RoceIcrcTrailer::SIZE;

} // namespace

uint16_t
RocePintDigest::Encode(double u, double base, double uniform)
{
    const double x = std::max(1.0, std::ceil(u * SCALE));
    const double power = std::log(x) / std::log(base);
    double lo = std::floor(power);
    double hi = lo + 1;
    const double vLo = std::pow(base, lo);
    const double vHi = std::pow(base, hi);
    // Up with probability (x - base^lo) / (base^hi - base^lo): E[base^p] = x.
    const double p = uniform < (x - vLo) / (vHi - vLo) ? hi : lo;
    return static_cast<uint16_t>(std::min(p, 65535.0));
}

double
RocePintDigest::Decode(uint16_t p, double base)
{
    return std::pow(base, p) / SCALE;
}

void
RocePintDigest::Raise(Packet& p, uint16_t p2)
{
    RoceRawTrailer tail;
    tail.SetSize(TAIL);
    p.PeekTrailer(tail);
    if (p2 <= Read(tail.GetBytes()))
    {
        return;
    }
    Write(tail.GetBytes(), p2);
    p.RemoveAtEnd(TAIL);
    p.AddTrailer(tail);
}

double
RocePintDigest::GetLogBase()
{
    DoubleValue v;
    g_pintLogBase.GetValue(v);
    return v.Get();
}

} // namespace ns3
