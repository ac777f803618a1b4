/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_DROP_COUNTS_H
#define ROCE_DROP_COUNTS_H

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Frames dropped by one device, switch or queue, counted per reason.
 *
 * Reasons are the devices' DROP_* constants. Drops are rare, so a short list
 * searched on each drop costs nothing on the forwarding path, and an object
 * that never drops holds an empty vector. RoceInvariants reads the counts to
 * tell drops a fault explains (link-down, rx-error, pfc-watchdog) from drops a
 * lossless fabric must never have (headroom, rx-buffer-full, ...).
 */
class RoceDropCounts
{
  public:
    /** One reason and its count. */
    using Entry = std::pair<const char*, uint64_t>;

    /**
     * \brief Count one drop.
     * \param reason a DROP_* constant (compared by address, then by text)
     */
    void Add(const char* reason)
    {
        for (Entry& e : m_entries)
        {
            if (e.first == reason || std::strcmp(e.first, reason) == 0)
            {
                ++e.second;
                return;
            }
        }
        m_entries.emplace_back(reason, 1);
    }

    /** \return the reasons seen, in the order of their first drop */
    const std::vector<Entry>& Get() const
    {
        return m_entries;
    }

  private:
    std::vector<Entry> m_entries; //!< reason, count
};

} // namespace ns3

#endif /* ROCE_DROP_COUNTS_H */
