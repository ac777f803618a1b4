/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-size-cdf.h"

#include "ns3/roce-error.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ns3
{

namespace
{

/**
 * \param text a field
 * \param value set to its value
 * \return true if the whole field is a finite number
 */
bool
ParseNumber(const std::string& text, double& value)
{
    const char* begin = text.c_str();
    char* end = nullptr;
    value = std::strtod(begin, &end);
    return end != begin && *end == '\0' && std::isfinite(value);
}

} // namespace

RoceSizeCdf
RoceSizeCdf::Read(const std::string& path)
{
    std::ifstream in(path);
    ROCE_ERROR_IF(!in, path << ": cannot be read");
    return Parse(in, path);
}

RoceSizeCdf
RoceSizeCdf::Parse(std::istream& in, const std::string& name)
{
    RoceSizeCdf cdf;
    std::string error = TryParse(in, name, cdf);
    ROCE_ERROR_IF(!error.empty(), error);
    return cdf;
}

std::string
RoceSizeCdf::TryParse(std::istream& in, const std::string& name, RoceSizeCdf& cdf)
{
    std::vector<std::pair<double, double>> points;
    std::string line;
    uint32_t lineNo = 0;
    uint32_t lastLine = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        std::istringstream fields(line);
        std::vector<std::string> f;
        std::string word;
        while (fields >> word)
        {
            f.push_back(word);
        }
        if (f.empty() || f[0][0] == '#')
        {
            continue;
        }
        std::ostringstream where;
        where << name << ":" << lineNo << ": ";
        if (f.size() != 2)
        {
            return where.str() + "expected 2 fields (bytes percent), found " +
                   std::to_string(f.size());
        }
        double bytes = 0;
        double percent = 0;
        if (!ParseNumber(f[0], bytes) || bytes < 0)
        {
            return where.str() + "bytes '" + f[0] + "' is not a number >= 0";
        }
        if (!ParseNumber(f[1], percent))
        {
            return where.str() + "percent '" + f[1] + "' is not a number";
        }
        if (percent < 0 || percent > 100)
        {
            return where.str() + "percent '" + f[1] + "' is not in [0, 100]";
        }
        if (!points.empty() && bytes < points.back().first)
        {
            return where.str() + "bytes '" + f[0] +
                   "' is below the line before: a CDF is not monotone";
        }
        if (!points.empty() && percent < points.back().second)
        {
            return where.str() + "percent '" + f[1] +
                   "' is below the line before: a CDF is not monotone";
        }
        points.emplace_back(bytes, percent);
        lastLine = lineNo;
    }
    if (points.empty())
    {
        return name + ": empty CDF (no 'bytes percent' lines)";
    }
    if (points.back().second != 100)
    {
        std::ostringstream os;
        os << name << ":" << lastLine << ": the last percent is " << points.back().second
           << ", not 100";
        return os.str();
    }
    cdf.m_points = std::move(points);
    return "";
}

double
RoceSizeCdf::Mean() const
{
    if (m_points.empty())
    {
        return 0;
    }
    double mean = m_points[0].second / 100 * std::max(1.0, std::round(m_points[0].first));
    for (std::size_t i = 1; i < m_points.size(); ++i)
    {
        double p = (m_points[i].second - m_points[i - 1].second) / 100;
        mean += p * (m_points[i - 1].first + m_points[i].first) / 2;
    }
    return mean;
}

uint64_t
RoceSizeCdf::Sample(double u) const
{
    ROCE_ERROR_IF(m_points.empty(), "RoceSizeCdf::Sample: no distribution read");
    double percent = u * 100;
    std::size_t i = 0;
    while (i + 1 < m_points.size() && m_points[i].second <= percent)
    {
        ++i;
    }
    double bytes = m_points[i].first;
    if (i > 0 && m_points[i].second > m_points[i - 1].second && percent >= m_points[i - 1].second)
    {
        const auto& a = m_points[i - 1];
        const auto& b = m_points[i];
        bytes = a.first + (b.first - a.first) * (percent - a.second) / (b.second - a.second);
    }
    double rounded = std::round(bytes);
    return rounded < 1 ? 1 : static_cast<uint64_t>(rounded);
}

const std::vector<std::pair<double, double>>&
RoceSizeCdf::GetPoints() const
{
    return m_points;
}

} // namespace ns3
