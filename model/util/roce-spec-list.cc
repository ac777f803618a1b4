/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-spec-list.h"

namespace ns3
{
namespace RoceSpecList
{

std::vector<std::string>
Split(const std::string& spec)
{
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true)
    {
        std::size_t comma = spec.find(',', start);
        std::size_t end = comma == std::string::npos ? spec.size() : comma;
        std::size_t first = spec.find_first_not_of(" \t", start);
        std::size_t last = spec.find_last_not_of(" \t", end == 0 ? 0 : end - 1);
        if (first == std::string::npos || first >= end || last == std::string::npos || last < first)
        {
            items.emplace_back();
        }
        else
        {
            items.push_back(spec.substr(first, last - first + 1));
        }
        if (comma == std::string::npos)
        {
            break;
        }
        start = comma + 1;
    }
    return items;
}

bool
ParseUnsigned(const std::string& item, uint32_t max, uint32_t& value)
{
    if (item.empty() || item.size() > 9 ||
        item.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    uint64_t v = std::stoull(item);
    if (v > max)
    {
        return false;
    }
    value = static_cast<uint32_t>(v);
    return true;
}

} // namespace RoceSpecList
} // namespace ns3
