/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FLOW_PIN_TABLE_H
#define ROCE_FLOW_PIN_TABLE_H

#include "ns3/roce-hash.h"

#include <cstdint>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The fields that identify a flow to a pinned forwarding entry: source
 * and destination IPv4 address, UDP source and destination port, and the BTH
 * destination QP.
 */
struct RoceFlowKey
{
    uint32_t srcIp{0};  //!< source address, host order
    uint32_t dstIp{0};  //!< destination address, host order
    uint16_t sport{0};  //!< UDP source port
    uint16_t dport{0};  //!< UDP destination port
    uint32_t destQp{0}; //!< BTH destination QP (0 for a frame without BTH)

    /** \param o another key \return true if every field is equal */
    bool operator==(const RoceFlowKey& o) const
    {
        return srcIp == o.srcIp && dstIp == o.dstIp && sport == o.sport && dport == o.dport &&
               destQp == o.destQp;
    }

    /** \param o another key \return field-wise ordering */
    bool operator<(const RoceFlowKey& o) const
    {
        return std::tie(srcIp, dstIp, sport, dport, destQp) <
               std::tie(o.srcIp, o.dstIp, o.sport, o.dport, o.destQp);
    }

    /** \return a well-spread 64-bit hash of the fields */
    uint64_t Hash() const
    {
        uint64_t h = RoceHash::Mix64((uint64_t(srcIp) << 32) | dstIp);
        h = RoceHash::Mix64(h ^ ((uint64_t(sport) << 48) | (uint64_t(dport) << 32) | destQp));
        return h;
    }
};

/**
 * \ingroup rocev2
 * \brief Per-flow forwarding entries (flow -> egress port) of a switch, as a
 * central traffic-engineering pass installs them.
 *
 * A flat open-addressing table (linear probing, power-of-two size, at most
 * half full): a lookup hashes the key once and compares a few slots, with no
 * allocation and no pointer chasing. Entries are added (or replaced) and
 * cleared, never removed one by one. Pure logic, no simulator calls.
 */
class RoceFlowPinTable
{
  public:
    /**
     * \brief Pin a flow to a port, or re-pin it.
     * \param key the flow
     * \param port the egress port index
     * \return true if the flow was not pinned before
     */
    bool Add(const RoceFlowKey& key, uint32_t port)
    {
        if (m_slots.empty())
        {
            m_slots.assign(16, Slot{});
        }
        Slot& s = Probe(m_slots, key);
        if (s.portPlusOne != 0)
        {
            s.portPlusOne = port + 1;
            return false;
        }
        s.key = key;
        s.portPlusOne = port + 1;
        if (2 * ++m_used > m_slots.size())
        {
            Grow();
        }
        return true;
    }

    /**
     * \param key a flow
     * \return its pinned port, or -1
     */
    int32_t Find(const RoceFlowKey& key) const
    {
        if (m_used == 0)
        {
            return -1;
        }
        uint32_t mask = static_cast<uint32_t>(m_slots.size() - 1);
        for (uint32_t i = static_cast<uint32_t>(key.Hash()) & mask;; i = (i + 1) & mask)
        {
            const Slot& s = m_slots[i];
            if (s.portPlusOne == 0)
            {
                return -1;
            }
            if (s.key == key)
            {
                return static_cast<int32_t>(s.portPlusOne - 1);
            }
        }
    }

    /** \brief Remove every entry. */
    void Clear()
    {
        m_slots.clear();
        m_used = 0;
    }

    /** \return number of pinned flows */
    uint32_t GetSize() const
    {
        return m_used;
    }

  private:
    /** One entry: portPlusOne 0 marks an empty slot. */
    struct Slot
    {
        RoceFlowKey key;         //!< the flow
        uint32_t portPlusOne{0}; //!< egress port + 1
    };

    /**
     * \param slots a table \param key a flow
     * \return its slot, or the empty slot it would take
     */
    static Slot& Probe(std::vector<Slot>& slots, const RoceFlowKey& key)
    {
        uint32_t mask = static_cast<uint32_t>(slots.size() - 1);
        for (uint32_t i = static_cast<uint32_t>(key.Hash()) & mask;; i = (i + 1) & mask)
        {
            Slot& s = slots[i];
            if (s.portPlusOne == 0 || s.key == key)
            {
                return s;
            }
        }
    }

    /** \brief Double the table and re-insert its entries. */
    void Grow()
    {
        std::vector<Slot> old;
        old.swap(m_slots);
        m_slots.assign(old.size() * 2, Slot{});
        for (const Slot& s : old)
        {
            if (s.portPlusOne != 0)
            {
                Probe(m_slots, s.key) = s;
            }
        }
    }

    std::vector<Slot> m_slots; //!< power-of-two size (empty until the first Add)
    uint32_t m_used{0};        //!< entries in use
};

} // namespace ns3

#endif /* ROCE_FLOW_PIN_TABLE_H */
