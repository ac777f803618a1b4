/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_PFC_HEADER_H
#define ROCE_PFC_HEADER_H

#include "roce-frame.h"

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief IEEE 802.1Qbb priority-based flow control frame body.
 *
 * Follows an Ethernet header with destination 01:80:C2:00:00:01 and EtherType
 * 0x8808: opcode 0x0101, class-enable vector (bit i = priority i), eight
 * 16-bit pause times in quanta of 512 bit times, then zero padding up to the
 * 60-byte minimum frame (64 with FCS). Quanta 0 resumes (XON).
 */
class RocePfcHeader : public Header
{
  public:
    static constexpr uint16_t ETHERTYPE = 0x8808;     //!< MAC control EtherType
    static constexpr uint16_t OPCODE = 0x0101;        //!< PFC opcode
    static constexpr uint32_t BODY_SIZE = 20;         //!< opcode + vector + 8 quanta
    static constexpr uint32_t SIZE = 46;              //!< body plus padding to 60 B with L2 header
    static constexpr uint32_t BITS_PER_QUANTUM = 512; //!< one pause quantum

    RocePfcHeader();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * \brief Enable priority p with the given pause time.
     * \param priority 0..7
     * \param quanta pause time in quanta (0 = resume)
     */
    void SetPause(uint8_t priority, uint16_t quanta);
    /** \return the class-enable vector */
    uint16_t GetClassEnable() const;
    /**
     * \param priority 0..7
     * \return true if the priority's class-enable bit is set
     */
    bool IsEnabled(uint8_t priority) const;
    /**
     * \param priority 0..7
     * \return the pause time of the priority in quanta
     */
    uint16_t GetQuanta(uint8_t priority) const;
    /** \return the opcode read from the wire (0x0101 for PFC) */
    uint16_t GetOpcode() const;

  private:
    uint16_t m_opcode{OPCODE};
    uint16_t m_classEnable{0};
    std::array<uint16_t, ROCE_NUM_PRIORITIES> m_quanta{};
};

} // namespace ns3

#endif /* ROCE_PFC_HEADER_H */
