/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_RESOURCE_GUARD_H
#define ROCE_RESOURCE_GUARD_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Refuses, before anything is built, a scenario whose memory would
 * exceed the machine's, instead of letting it run into swap.
 *
 * The estimate is linear in the fabric's links and queue pairs, with the
 * costs measured on AI Zones (maximum RSS, `/usr/bin/time -v`): 12 MB of
 * process, 12.6 KB per link (its two devices, the NIC or switch port and
 * routes: 1,024 GPUs / 2,048 links 37.6 MB, 4,096 / 8,192 115 MB, the 24k
 * preset's 52,608 links 669 MB) and 4.8 KB per queue pair (an AllToAll on 256
 * GPUs: 63,488 QPs, 305 MB more than an AllReduce's 256).
 *
 * The limit is the machine's available memory (MemAvailable of /proc/meminfo),
 * or the environment variable ROCEV2_MEMORY_LIMIT (bytes, or with a unit:
 * 512MB, 4GB; 0 turns the guard off).
 */
class RoceResourceGuard
{
  public:
    static constexpr uint64_t BASE_BYTES = 12000000;  //!< the process, the module
    static constexpr uint64_t BYTES_PER_LINK = 12600; //!< a link and its two ends
    static constexpr uint64_t BYTES_PER_QP = 4800;    //!< a queue pair

    /**
     * \param links links of the fabric \param qps queue pairs
     * \return the estimated memory in bytes
     */
    static uint64_t Estimate(uint64_t links, uint64_t qps);

    /**
     * \return the memory a scenario may use: ROCEV2_MEMORY_LIMIT if set, else
     * the available memory; 0 when unknown or turned off
     */
    static uint64_t GetLimit();

    /**
     * \brief Refuse (RoceError) a scenario whose estimate exceeds the limit;
     * the message gives the estimate, its parts and the limit.
     * \param what the scenario ("RoceAiZoneHelper: 32768 GPUs")
     * \param links its links \param qps its queue pairs
     */
    static void Check(const std::string& what, uint64_t links, uint64_t qps);
};

} // namespace ns3

#endif /* ROCE_RESOURCE_GUARD_H */
