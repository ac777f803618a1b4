/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Jain's fairness index, the fairness measure of the congestion-control
 * suites (rocev2-cc, rocev2-cc-dynamics, rocev2-cc-rtt-unfairness).
 */
#ifndef ROCEV2_JAIN_H
#define ROCEV2_JAIN_H

#include <numeric>
#include <vector>

namespace
{

/**
 * \param x per-flow throughputs
 * \return Jain's fairness index (sum x)^2 / (n sum x^2) (Jain, Chiu and
 *         Hawe 1984): 1 when all are equal, 1/n when one flow has it all
 */
inline double
Jain(const std::vector<double>& x)
{
    double s = std::accumulate(x.begin(), x.end(), 0.0);
    double s2 = 0;
    for (double v : x)
    {
        s2 += v * v;
    }
    return s2 > 0 ? s * s / (x.size() * s2) : 0;
}

} // namespace

#endif /* ROCEV2_JAIN_H */
