/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-resource-guard.h"

#include "ns3/roce-error.h"

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <regex>
#include <sstream>

namespace ns3
{

namespace
{

/** \return bytes as "1.23 GB" */
std::string
Gb(uint64_t bytes)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(2) << bytes / 1e9 << " GB";
    return os.str();
}

} // namespace

uint64_t
RoceResourceGuard::Estimate(uint64_t links, uint64_t qps)
{
    return BASE_BYTES + links * BYTES_PER_LINK + qps * BYTES_PER_QP;
}

uint64_t
RoceResourceGuard::GetLimit()
{
    if (const char* env = std::getenv("ROCEV2_MEMORY_LIMIT"))
    {
        static const std::regex form(R"(\s*([0-9]+)\s*(|B|KB|MB|GB|TB)\s*)");
        std::cmatch m;
        ROCE_ERROR_IF(!std::regex_match(env, m, form),
                      "ROCEV2_MEMORY_LIMIT=" << env
                                             << " is not a byte count (e.g. 4GB, 512MB, 0 for "
                                                "no limit)");
        const std::string unit = m[2].str();
        uint64_t scale = 1;
        for (const char* u : {"KB", "MB", "GB", "TB"})
        {
            scale *= 1000;
            if (unit == u)
            {
                break;
            }
        }
        scale = unit.empty() || unit == "B" ? 1 : scale;
        return std::strtoull(m[1].str().c_str(), nullptr, 10) * scale;
    }
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (meminfo >> key >> kb >> unit)
    {
        if (key == "MemAvailable:")
        {
            return kb * 1024;
        }
    }
    return 0;
}

void
RoceResourceGuard::Check(const std::string& what, uint64_t links, uint64_t qps)
{
    const uint64_t limit = GetLimit();
    const uint64_t estimate = Estimate(links, qps);
    ROCE_ERROR_IF(limit > 0 && estimate > limit,
                  what << ": the scenario needs about " << Gb(estimate) << " of memory (" << links
                       << " links x " << BYTES_PER_LINK << " B + " << qps << " QPs x "
                       << BYTES_PER_QP << " B + " << BASE_BYTES / 1000000 << " MB), more than the "
                       << Gb(limit) << " "
                       << (std::getenv("ROCEV2_MEMORY_LIMIT") ? "ROCEV2_MEMORY_LIMIT allows"
                                                              : "this machine has available")
                       << "; build a smaller fabric, or raise ROCEV2_MEMORY_LIMIT (0: no limit)");
}

} // namespace ns3
