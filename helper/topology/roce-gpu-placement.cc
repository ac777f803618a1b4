/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-gpu-placement.h"

#include "roce-ai-zone-helper.h"

#include "ns3/log.h"
#include "ns3/roce-error.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceGpuPlacement");

RoceGpuPlacement::RoceGpuPlacement(const RoceAiZone& zone)
    : m_nGpus(zone.GetNGpus()),
      m_gpusPerServer(zone.gpusPerServer),
      m_serversPerRack(zone.serversPerRack),
      m_nFree(m_nGpus)
{
    NS_LOG_FUNCTION(this << m_nGpus << m_gpusPerServer << m_serversPerRack);
    ROCE_ERROR_IF(m_gpusPerServer == 0, "RoceGpuPlacement: gpusPerServer=0 (must be > 0)");
    ROCE_ERROR_IF(m_serversPerRack == 0, "RoceGpuPlacement: serversPerRack=0 (must be > 0)");
    ROCE_ERROR_IF(m_nGpus == 0, "RoceGpuPlacement: the zone has no GPUs");
    ROCE_ERROR_IF(m_nGpus % (m_serversPerRack * m_gpusPerServer) != 0,
                  "RoceGpuPlacement: " << m_nGpus << " GPUs are not whole racks of "
                                       << m_serversPerRack * m_gpusPerServer << " GPUs");
    m_taken.assign(m_nGpus, false);
    m_freeOfServer.assign(m_nGpus / m_gpusPerServer, m_gpusPerServer);
}

bool
RoceGpuPlacement::WholeServers(uint32_t n) const
{
    return n % m_gpusPerServer == 0;
}

bool
RoceGpuPlacement::UnitFree(uint32_t unit, bool whole) const
{
    return whole ? m_freeOfServer[unit] == m_gpusPerServer : !m_taken[unit];
}

void
RoceGpuPlacement::CheckCount(const char* what, uint32_t n) const
{
    ROCE_ERROR_IF(n == 0, "RoceGpuPlacement::" << what << ": n=0 (must be > 0)");
    ROCE_ERROR_IF(n > m_nFree,
                  "RoceGpuPlacement::" << what << ": n=" << n << " exceeds the " << m_nFree
                                       << " free GPUs");
    if (WholeServers(n))
    {
        auto wholeFree = static_cast<uint32_t>(
            std::count(m_freeOfServer.begin(), m_freeOfServer.end(), m_gpusPerServer));
        ROCE_ERROR_IF(n / m_gpusPerServer > wholeFree,
                      "RoceGpuPlacement::" << what << ": n=" << n << " needs "
                                           << n / m_gpusPerServer << " servers of "
                                           << m_gpusPerServer << " free GPUs, only " << wholeFree
                                           << " are wholly free");
    }
}

void
RoceGpuPlacement::CheckGpu(const char* what, uint32_t gpu) const
{
    ROCE_ERROR_IF(gpu >= m_nGpus,
                  "RoceGpuPlacement::" << what << ": gpu=" << gpu
                                       << " is out of range (the zone has " << m_nGpus << " GPUs)");
}

std::vector<uint32_t>
RoceGpuPlacement::Take(const std::vector<uint32_t>& units, bool whole)
{
    std::vector<uint32_t> gpus;
    gpus.reserve(whole ? units.size() * m_gpusPerServer : units.size());
    for (uint32_t u : units)
    {
        if (whole)
        {
            for (uint32_t i = 0; i < m_gpusPerServer; ++i)
            {
                gpus.push_back(u * m_gpusPerServer + i);
            }
        }
        else
        {
            gpus.push_back(u);
        }
    }
    std::sort(gpus.begin(), gpus.end());
    MarkTaken(gpus);
    return gpus;
}

std::vector<uint32_t>
RoceGpuPlacement::Contiguous(uint32_t n)
{
    NS_LOG_FUNCTION(this << n);
    CheckCount("Contiguous", n);
    const bool whole = WholeServers(n);
    const uint32_t k = whole ? n / m_gpusPerServer : n;
    const uint32_t units = whole ? m_nGpus / m_gpusPerServer : m_nGpus;
    uint32_t run = 0;
    uint32_t longest = 0;
    for (uint32_t u = 0; u < units; ++u)
    {
        run = UnitFree(u, whole) ? run + 1 : 0;
        longest = std::max(longest, run);
        if (run == k)
        {
            std::vector<uint32_t> block(k);
            for (uint32_t i = 0; i < k; ++i)
            {
                block[i] = u + 1 - k + i;
            }
            return Take(block, whole);
        }
    }
    ROCE_ERROR("RoceGpuPlacement::Contiguous: n="
               << n << " finds no run of " << k << " free " << (whole ? "servers" : "GPUs")
               << " (longest: " << longest << "); Fragmented or Random can place it");
    return {};
}

std::vector<uint32_t>
RoceGpuPlacement::Fragmented(uint32_t n, uint32_t perRack)
{
    NS_LOG_FUNCTION(this << n << perRack);
    CheckCount("Fragmented", n);
    const uint32_t rackGpus = m_serversPerRack * m_gpusPerServer;
    ROCE_ERROR_IF(perRack == 0, "RoceGpuPlacement::Fragmented: perRack=0 (must be > 0)");
    ROCE_ERROR_IF(perRack >= rackGpus,
                  "RoceGpuPlacement::Fragmented: perRack="
                      << perRack << " is not less than a rack (" << rackGpus
                      << " GPUs), so no rack would be left partly used");
    const bool whole = WholeServers(n);
    ROCE_ERROR_IF(whole && perRack < m_gpusPerServer,
                  "RoceGpuPlacement::Fragmented: perRack="
                      << perRack << " is less than one server (" << m_gpusPerServer
                      << " GPUs), and n=" << n << " is placed in whole servers");
    const uint32_t unitsPerRack = whole ? m_serversPerRack : rackGpus;
    const uint32_t perRackUnits = whole ? perRack / m_gpusPerServer : perRack;
    const uint32_t racks = m_nGpus / rackGpus;

    uint32_t remaining = whole ? n / m_gpusPerServer : n;
    std::vector<uint32_t> chosen;
    chosen.reserve(remaining);
    std::vector<uint32_t> freeInRack;
    freeInRack.reserve(unitsPerRack);
    for (uint32_t r = 0; r < racks && remaining > 0; ++r)
    {
        const uint32_t want = std::min(perRackUnits, remaining);
        freeInRack.clear();
        for (uint32_t u = r * unitsPerRack; u < (r + 1) * unitsPerRack; ++u)
        {
            if (UnitFree(u, whole))
            {
                freeInRack.push_back(u);
            }
        }
        if (freeInRack.size() >= want)
        {
            chosen.insert(chosen.end(), freeInRack.begin(), freeInRack.begin() + want);
            remaining -= want;
        }
    }
    ROCE_ERROR_IF(remaining > 0,
                  "RoceGpuPlacement::Fragmented: n="
                      << n << " perRack=" << perRack << " finds too few racks with "
                      << perRackUnits * (whole ? m_gpusPerServer : 1) << " free GPUs ("
                      << (whole ? remaining * m_gpusPerServer : remaining)
                      << " GPUs left unplaced)");
    return Take(chosen, whole);
}

std::vector<uint32_t>
RoceGpuPlacement::Random(uint32_t n, Ptr<UniformRandomVariable> rng)
{
    NS_LOG_FUNCTION(this << n << rng);
    ROCE_ERROR_IF(!rng, "RoceGpuPlacement::Random: rng is null");
    CheckCount("Random", n);
    const bool whole = WholeServers(n);
    const uint32_t k = whole ? n / m_gpusPerServer : n;
    const uint32_t units = whole ? m_nGpus / m_gpusPerServer : m_nGpus;
    std::vector<uint32_t> candidates;
    candidates.reserve(units);
    for (uint32_t u = 0; u < units; ++u)
    {
        if (UnitFree(u, whole))
        {
            candidates.push_back(u);
        }
    }
    // Partial Fisher-Yates shuffle: after step i, candidates[0..i] is a
    // uniformly random (i+1)-subset of the free units.
    const auto m = static_cast<uint32_t>(candidates.size());
    for (uint32_t i = 0; i < k; ++i)
    {
        std::swap(candidates[i], candidates[rng->GetInteger(i, m - 1)]);
    }
    candidates.resize(k);
    return Take(candidates, whole);
}

std::vector<uint32_t>
RoceGpuPlacement::Random(uint32_t n, int64_t stream)
{
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(stream);
    return Random(n, rng);
}

void
RoceGpuPlacement::MarkTaken(const std::vector<uint32_t>& gpus)
{
    for (uint32_t g : gpus)
    {
        CheckGpu("MarkTaken", g);
        ROCE_ERROR_IF(m_taken[g], "RoceGpuPlacement::MarkTaken: gpu=" << g << " is already taken");
        m_taken[g] = true;
        --m_freeOfServer[g / m_gpusPerServer];
        --m_nFree;
    }
}

void
RoceGpuPlacement::Release(const std::vector<uint32_t>& gpus)
{
    for (uint32_t g : gpus)
    {
        CheckGpu("Release", g);
        ROCE_ERROR_IF(!m_taken[g], "RoceGpuPlacement::Release: gpu=" << g << " is free");
        m_taken[g] = false;
        ++m_freeOfServer[g / m_gpusPerServer];
        ++m_nFree;
    }
}

uint32_t
RoceGpuPlacement::GetNFree() const
{
    return m_nFree;
}

bool
RoceGpuPlacement::IsFree(uint32_t gpu) const
{
    CheckGpu("IsFree", gpu);
    return !m_taken[gpu];
}

uint32_t
RoceGpuPlacement::GetNGpus() const
{
    return m_nGpus;
}

} // namespace ns3
