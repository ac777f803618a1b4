/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_QUEUE_PAIR_REORDER_H
#define ROCE_QUEUE_PAIR_REORDER_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The selective-repeat receive window of a queue pair: which packets
 * ahead of the expected PSN have arrived, and what the receiver must know
 * about each to account for it once the gap before it fills.
 *
 * The receiver accepts sequence numbers in (expected, expected + window].
 * Presence is a bitmap over a power-of-two ring of more than `window` slots,
 * indexed by sequence number modulo its size, so two accepted packets never
 * share a slot; next to it, each slot keeps the packet's payload bytes
 * and opcode (the cumulative ACK is sent when the gap fills). The ring is allocated when the first
 * packet is held, so a queue pair that never sees reordering pays nothing but the window. Pure
 * logic, no simulator calls.
 */
class RoceReorderWindow
{
  public:
    /** What the receiver keeps of a packet held ahead of a gap. */
    struct Held
    {
        uint32_t payload{0}; //!< payload bytes (RETH, pad and ICRC excluded)
        uint8_t opcode{0};   //!< BTH opcode
    };

    /** \param window packets the receiver may hold ahead of the expected one (> 0) */
    explicit RoceReorderWindow(uint32_t window)
        : m_window(window)
    {
    }

    /** \return the window, in packets */
    uint32_t GetWindow() const
    {
        return m_window;
    }

    /** \return packets held */
    uint32_t GetCount() const
    {
        return m_count;
    }

    /**
     * \param ahead how far a packet is ahead of the expected one (> 0)
     * \return true if the window can hold it
     */
    bool InWindow(uint32_t ahead) const
    {
        return ahead <= m_window;
    }

    /**
     * \param seq a sequence number within the window
     * \return true if that packet is held
     */
    bool Has(uint64_t seq) const
    {
        if (m_count == 0)
        {
            return false;
        }
        uint32_t i = static_cast<uint32_t>(seq) & m_mask;
        return (m_bits[i >> 6] >> (i & 63)) & 1;
    }

    /**
     * \brief Hold a packet.
     * \param seq its sequence number, within the window
     * \param held what to keep of it
     * \return false if it was already held (a duplicate), true otherwise
     */
    bool Insert(uint64_t seq, const Held& held)
    {
        if (m_slots.empty())
        {
            uint32_t size = 64;
            while (size <= m_window)
            {
                size *= 2;
            }
            m_slots.assign(size, Held{});
            m_bits.assign(size / 64, 0);
            m_mask = size - 1;
        }
        uint32_t i = static_cast<uint32_t>(seq) & m_mask;
        uint64_t bit = 1ULL << (i & 63);
        if (m_bits[i >> 6] & bit)
        {
            return false;
        }
        m_bits[i >> 6] |= bit;
        m_slots[i] = held;
        ++m_count;
        return true;
    }

    /**
     * \brief Release a held packet (its gap has filled).
     * \param seq its sequence number; Has(seq) must be true
     * \return what was kept of it
     */
    Held Take(uint64_t seq)
    {
        uint32_t i = static_cast<uint32_t>(seq) & m_mask;
        m_bits[i >> 6] &= ~(1ULL << (i & 63));
        --m_count;
        return m_slots[i];
    }

  private:
    uint32_t m_window;            //!< packets the receiver may hold ahead
    uint32_t m_count{0};          //!< packets held
    uint32_t m_mask{0};           //!< ring size - 1
    std::vector<uint64_t> m_bits; //!< presence bitmap, one bit per ring slot
    std::vector<Held> m_slots;    //!< per ring slot, valid where the bit is set
};

} // namespace ns3

#endif /* ROCE_QUEUE_PAIR_REORDER_H */
