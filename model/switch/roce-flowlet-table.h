/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FLOWLET_TABLE_H
#define ROCE_FLOWLET_TABLE_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A switch's flowlet table: a fixed-size array indexed by flow hash.
 *
 * Each slot remembers, for the flow that last used it, when its last packet
 * passed (in simulator time steps), the egress port it took, the ECMP group
 * that port belongs to, and a tag (the hash's upper 32 bits) that tells
 * flows sharing the slot apart. A packet continues its flow's current
 * flowlet when the slot holds its tag and group and the flow has been idle
 * for at most the flowlet gap; otherwise it starts a new flowlet, which may
 * take a new port. A flow that takes over a slot from another (a collision)
 * starts a new flowlet, so a stored port is never used for a group it is not
 * in.
 *
 * No keys are stored and nothing is allocated per packet: a lookup is one
 * multiply-high and one array access. Pure logic, no simulator calls.
 */
class RoceFlowletTable
{
  public:
    /** One slot. */
    struct Entry
    {
        int64_t lastSeen{0};  //!< when the flow's last packet passed, time steps
        uint32_t tag{0};      //!< upper 32 bits of the flow hash of the flow using the slot
        uint32_t group{0};    //!< ECMP group of the port
        int32_t port{-1};     //!< egress port of the current flowlet (-1: slot unused)
        uint32_t flowlets{0}; //!< flowlets started in this slot (entropy for new choices)
    };

    /**
     * \brief Size the table and empty it.
     * \param size number of slots (> 0)
     */
    void Resize(uint32_t size)
    {
        m_entries.assign(size, Entry{});
    }

    /** \brief Forget every flowlet (keeps the size). */
    void Clear()
    {
        m_entries.assign(m_entries.size(), Entry{});
    }

    /** \return number of slots (0 before Resize) */
    uint32_t GetSize() const
    {
        return static_cast<uint32_t>(m_entries.size());
    }

    /**
     * \param hash a flow hash
     * \return its slot: the multiply-high of the hash's lower 32 bits by the size
     */
    uint32_t Index(uint64_t hash) const
    {
        return static_cast<uint32_t>(((hash & 0xFFFFFFFFULL) * m_entries.size()) >> 32);
    }

    /**
     * \param hash a flow hash
     * \return the slot the flow uses
     */
    Entry& Find(uint64_t hash)
    {
        return m_entries[Index(hash)];
    }

    /**
     * \param e the flow's slot
     * \param hash the flow hash
     * \param group the ECMP group the packet is routed to
     * \param now the packet's arrival, time steps
     * \param gap the flowlet gap, time steps
     * \return true if the packet continues the flow's current flowlet
     */
    static bool Continues(const Entry& e, uint64_t hash, uint32_t group, int64_t now, int64_t gap)
    {
        return e.port >= 0 && e.tag == Tag(hash) && e.group == group && now - e.lastSeen <= gap;
    }

    /**
     * \brief Start a new flowlet in a slot.
     * \param e the flow's slot
     * \param hash the flow hash
     * \param group the ECMP group
     * \param port the port the flowlet takes
     */
    static void Start(Entry& e, uint64_t hash, uint32_t group, int32_t port)
    {
        e.tag = Tag(hash);
        e.group = group;
        e.port = port;
        ++e.flowlets;
    }

    /**
     * \param hash a flow hash
     * \return the tag that identifies the flow within its slot
     */
    static uint32_t Tag(uint64_t hash)
    {
        return static_cast<uint32_t>(hash >> 32);
    }

  private:
    std::vector<Entry> m_entries;
};

} // namespace ns3

#endif /* ROCE_FLOWLET_TABLE_H */
