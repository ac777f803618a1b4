/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-collective-schedule.h"

#include "ns3/roce-error.h"

#include <limits>

namespace ns3
{

void
RoceCollectiveSchedule::Clear()
{
    m_transfers.clear();
    m_lanes.clear();
    m_laneIndex.clear();
    m_wait.clear();
    m_succStart.clear();
    m_succ.clear();
}

uint32_t
RoceCollectiveSchedule::Add(uint32_t channel, uint32_t src, uint32_t dst, uint64_t bytes)
{
    ROCE_ERROR_IF(src == dst,
                  "RoceCollectiveSchedule: a transfer from rank " << src << " to itself");
    ROCE_ERROR_IF(m_transfers.size() >= std::numeric_limits<uint32_t>::max() - 1,
                  "RoceCollectiveSchedule: too many transfers: raise ChunkSize");
    const uint64_t key = (uint64_t(channel) << 48) | (uint64_t(src) << 24) | dst;
    auto it = m_laneIndex.emplace(key, m_lanes.size()).first;
    if (it->second == m_lanes.size())
    {
        m_lanes.emplace_back();
    }
    m_transfers.push_back(Transfer{src, dst, bytes, it->second, 0});
    return m_transfers.size() - 1;
}

void
RoceCollectiveSchedule::After(uint32_t before, uint32_t after)
{
    ++m_transfers.at(after).waiting;
    m_wait.emplace_back(before, after);
}

void
RoceCollectiveSchedule::Finalize()
{
    // Successor lists, grouped by transfer (a counting sort of the waits).
    m_succStart.assign(m_transfers.size() + 1, 0);
    for (const auto& w : m_wait)
    {
        ++m_succStart[w.first + 1];
    }
    for (size_t i = 1; i < m_succStart.size(); ++i)
    {
        m_succStart[i] += m_succStart[i - 1];
    }
    m_succ.assign(m_wait.size(), 0);
    std::vector<uint32_t> fill(m_succStart.begin(), m_succStart.end() - 1);
    for (const auto& w : m_wait)
    {
        m_succ[fill[w.first]++] = w.second;
    }
    m_wait.clear();
    m_wait.shrink_to_fit();
    m_laneIndex.clear();
}

} // namespace ns3
