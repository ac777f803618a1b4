/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-pint-digest.h"

#include "ns3/double.h"
#include "ns3/global-value.h"

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
                          MakeDoubleChecker<double>(1.0 + 1e-9, 2.0));

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

double
RocePintDigest::GetLogBase()
{
    DoubleValue v;
    g_pintLogBase.GetValue(v);
    return v.Get();
}

} // namespace ns3
