/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_ROUTE_TABLE_H
#define ROCE_ROUTE_TABLE_H

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A switch's IPv4 longest-prefix-match table: prefix -> ECMP group index.
 *
 * One flat open-addressing hash table per prefix length in use (linear
 * probing, multiplicative hash, at most half full), searched longest length
 * first. A lookup touches one or two cache lines per length in use, with no
 * division and no pointer chasing; AI Zone and HPCC fabrics use one to three
 * lengths. Routes are added and cleared, never removed one by one.
 */
class RoceRouteTable
{
  public:
    /**
     * \brief Add a route, or replace the group of an existing one.
     * \param len prefix length (0..32)
     * \param network the network, host order (bits beyond len are ignored)
     * \param group the ECMP group index
     * \return true if the route is new
     */
    bool Add(uint8_t len, uint32_t network, uint32_t group)
    {
        uint32_t key = network & Mask(len);
        Table& t = m_tables[len];
        if (t.slots.empty())
        {
            t.slots.assign(16, Slot{});
            t.shift = 32 - 4;
            m_lengths.push_back(len);
            std::sort(m_lengths.rbegin(), m_lengths.rend());
        }
        Slot& s = Probe(t, key);
        if (s.groupPlusOne != 0)
        {
            s.groupPlusOne = group + 1;
            return false;
        }
        s.key = key;
        s.groupPlusOne = group + 1;
        if (2 * ++t.used > t.slots.size())
        {
            Grow(t);
        }
        return true;
    }

    /**
     * \param dst destination address, host order
     * \return the group of the longest matching prefix, or -1
     */
    int32_t Find(uint32_t dst) const
    {
        for (uint8_t len : m_lengths)
        {
            const Table& t = m_tables[len];
            uint32_t key = dst & Mask(len);
            uint32_t mask = static_cast<uint32_t>(t.slots.size() - 1);
            for (uint32_t i = Hash(key, t.shift);; i = (i + 1) & mask)
            {
                const Slot& s = t.slots[i];
                if (s.groupPlusOne == 0)
                {
                    break;
                }
                if (s.key == key)
                {
                    return static_cast<int32_t>(s.groupPlusOne - 1);
                }
            }
        }
        return -1;
    }

    /** \brief Remove every route. */
    void Clear()
    {
        for (uint8_t len : m_lengths)
        {
            m_tables[len] = Table{};
        }
        m_lengths.clear();
    }

  private:
    /** One entry: groupPlusOne 0 marks an empty slot. */
    struct Slot
    {
        uint32_t key{0};          //!< the prefix, masked
        uint32_t groupPlusOne{0}; //!< group index + 1
    };

    /** The routes of one prefix length. */
    struct Table
    {
        std::vector<Slot> slots; //!< power-of-two size
        uint32_t shift{32};      //!< 32 - log2(size)
        uint32_t used{0};        //!< slots in use
    };

    /** \param len prefix length \return its network mask, host order */
    static uint32_t Mask(uint8_t len)
    {
        return len == 0 ? 0 : ~uint32_t(0) << (32 - len);
    }

    /** \param key a prefix \param shift 32 - log2(size) \return its home slot */
    static uint32_t Hash(uint32_t key, uint32_t shift)
    {
        return static_cast<uint32_t>((key * 0x9E3779B1u) >> shift);
    }

    /** \param t a table \param key a prefix \return its slot, or the empty slot it would take */
    static Slot& Probe(Table& t, uint32_t key)
    {
        uint32_t mask = static_cast<uint32_t>(t.slots.size() - 1);
        for (uint32_t i = Hash(key, t.shift);; i = (i + 1) & mask)
        {
            Slot& s = t.slots[i];
            if (s.groupPlusOne == 0 || s.key == key)
            {
                return s;
            }
        }
    }

    /** \brief Double a table's size and re-insert its routes. \param t the table */
    static void Grow(Table& t)
    {
        std::vector<Slot> old;
        old.swap(t.slots);
        t.slots.assign(old.size() * 2, Slot{});
        --t.shift;
        for (const Slot& s : old)
        {
            if (s.groupPlusOne != 0)
            {
                Probe(t, s.key) = s;
            }
        }
    }

    std::array<Table, 33> m_tables; //!< by prefix length
    std::vector<uint8_t> m_lengths; //!< lengths in use, longest first
};

} // namespace ns3

#endif /* ROCE_ROUTE_TABLE_H */
