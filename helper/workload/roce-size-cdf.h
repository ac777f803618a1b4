/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SIZE_CDF_H
#define ROCE_SIZE_CDF_H

#include <cstdint>
#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A flow-size distribution given as an empirical CDF, as the
 * HPCC-lineage traffic generator reads it (data/cdf/websearch.txt).
 *
 * File format: one point per line, `bytes cumulative-percent`; blank lines
 * and lines starting with '#' are skipped. Both columns never decrease, the
 * percents lie in [0, 100] and the last one is 100. A first point with a
 * percent above 0 is a point mass: that share of flows has exactly its size.
 *
 * Sampling is by inverse transform with linear interpolation between points
 * (the method of that lineage's traffic_gen.py): draw u uniform in [0, 1),
 * find the first point whose percent reaches 100 u, and interpolate the size
 * linearly between it and the point before. Sizes are rounded to whole
 * bytes, at least 1. The distribution sampled is therefore piecewise uniform,
 * and its mean is
 *   mean = p_0 x_0 + sum_i (p_i - p_{i-1}) (x_{i-1} + x_i) / 2
 * with p as fractions (Mean()).
 *
 * Malformed files are fatal errors naming file:line and the field.
 */
class RoceSizeCdf
{
  public:
    RoceSizeCdf() = default;

    /**
     * \param path a CDF file
     * \return its distribution (fatal error on malformed input)
     */
    static RoceSizeCdf Read(const std::string& path);

    /**
     * \param in a CDF text
     * \param name its name in error messages (a file name)
     * \return its distribution (fatal error on malformed input)
     */
    static RoceSizeCdf Parse(std::istream& in, const std::string& name);

    /**
     * \param in a CDF text
     * \param name its name in error messages
     * \param cdf set to the distribution if the text is valid
     * \return empty if valid, else the error message ("name:line: ...")
     */
    static std::string TryParse(std::istream& in, const std::string& name, RoceSizeCdf& cdf);

    /** \return the mean flow size in bytes of the distribution Sample() draws */
    double Mean() const;

    /**
     * \param u a number in [0, 1) (a uniform random draw)
     * \return the flow size at quantile u, in bytes (at least 1)
     */
    uint64_t Sample(double u) const;

    /** \return the points (bytes, percent) */
    const std::vector<std::pair<double, double>>& GetPoints() const;

  private:
    std::vector<std::pair<double, double>> m_points; //!< (bytes, cumulative percent)
};

} // namespace ns3

#endif /* ROCE_SIZE_CDF_H */
