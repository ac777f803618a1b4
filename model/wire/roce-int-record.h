/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_INT_RECORD_H
#define ROCE_INT_RECORD_H

#include <cstdint>
#include <ostream>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief One hop's in-band telemetry (INT), as HPCC reads it: the link
 * rate, a timestamp, the port's cumulative transmitted bytes and the egress
 * queue length, packed into 8 bytes, the per-hop size of the HPCC paper's
 * INT (Li et al., SIGCOMM 2019: 8 bytes per hop) with the field
 * widths of the HPCC simulator's INT header.
 *
 * A sender asks for INT by setting the INT-request bit in BTH byte 4 (bit 5,
 * a reserved bit of the IBTA layout); BTH byte 4 bits 4-0 count the records
 * the packet carries. Each switch egress that forwards such a packet appends
 * its record just before the ICRC and increments the count; the receiver
 * strips the records and echoes them on its next ACK, where the sender's
 * congestion control reads them.
 *
 * Wire layout, one big-endian 64-bit word, most significant bits first:
 *   - bits 63-61: rate code, 0..7 = 10, 25, 40, 50, 100, 200, 400, 800 Gb/s;
 *   - bits 60-37: timestamp, ns modulo 2^24 (wraps every 16.78 ms);
 *   - bits 36-17: transmitted bytes in units of 128 M bytes, modulo 2^20;
 *   - bits 16-0:  queue length in units of 80 M bytes, saturating at 2^17 - 1;
 * M is the unit multiplier, the global value RoceIntUnitMultiplier (the
 * HPCC simulator's INT_MULTI; 1 by default). It is not on the wire: the
 * record's unitMultiplier holds it, which the switch port that writes a
 * record and the NIC that reads one set from the global value (read once per
 * device), and an ACK's echo keeps. A record read off the wire
 * holds what the wire carries: the timestamp modulo 2^24, the bytes rounded
 * down to whole units modulo the field's range, the queue rounded down.
 * Readers take differences with TimeDeltaNs() and TxBytesDelta(), which are
 * exact for a record never serialised and modulo the field's range
 * otherwise: a difference beyond 16.78 ms or 2^20 units aliases, as it
 * would in a switch ASIC.
 *
 * A record is a plain value (copied, never constructed on the heap): switches
 * write it into a frame's bytes with Write(), NICs read it back with Read(),
 * and congestion control sees it in RoceAckEvent::intRecords.
 */
class RoceIntRecord
{
  public:
    static constexpr uint32_t SIZE = 8;         //!< serialized size in bytes
    static constexpr uint8_t MAX_HOPS = 31;     //!< the BTH count field holds 5 bits
    static constexpr uint32_t TIME_BITS = 24;   //!< width of the timestamp field
    static constexpr uint32_t BYTES_BITS = 20;  //!< width of the transmitted-bytes field
    static constexpr uint32_t QLEN_BITS = 17;   //!< width of the queue-length field
    static constexpr uint32_t BYTES_UNIT = 128; //!< bytes per transmitted-bytes unit, M = 1
    static constexpr uint32_t QLEN_UNIT = 80;   //!< bytes per queue-length unit, M = 1

    /**
     * \brief Print the record's fields.
     * \param os where
     */
    void Print(std::ostream& os) const;

    /**
     * \brief Write the record's 8 bytes (the wire layout above).
     * \param b where
     */
    void Write(uint8_t* b) const;
    /**
     * \brief Read a record's 8 bytes, in this record's unitMultiplier.
     * \param b from where
     */
    void Read(const uint8_t* b);

    /** \return the global value RoceIntUnitMultiplier (M) */
    static uint32_t GetUnitMultiplier();
    /**
     * \param rateMbps a link rate in Mb/s
     * \return its 3-bit rate code (aborts naming the rate if it has none)
     */
    static uint8_t RateCode(uint32_t rateMbps);
    /**
     * \param cur a hop's record
     * \param prev the same hop's record from an earlier packet
     * \return ns between them, modulo 2^24
     */
    static uint64_t TimeDeltaNs(const RoceIntRecord& cur, const RoceIntRecord& prev);
    /**
     * \param cur a hop's record
     * \param prev the same hop's record from an earlier packet
     * \return bytes transmitted between them, modulo 2^20 units of 128 M
     * bytes (M: cur's unitMultiplier)
     */
    static uint64_t TxBytesDelta(const RoceIntRecord& cur, const RoceIntRecord& prev);

    uint8_t hop{0};             //!< hop index along the path (0 = first switch; not on the wire)
    uint32_t rateMbps{0};       //!< egress link rate in Mb/s
    uint64_t queueBytes{0};     //!< bytes queued at the egress port when the packet left
    uint64_t txBytes{0};        //!< bytes the egress port had transmitted before this packet
    uint64_t timestampNs{0};    //!< when the packet left the egress queue, ns
    uint32_t unitMultiplier{1}; //!< M, the fields' unit multiplier (not on the wire)
};

/**
 * \param os where
 * \param r a record
 * \return os
 */
std::ostream& operator<<(std::ostream& os, const RoceIntRecord& r);

} // namespace ns3

#endif /* ROCE_INT_RECORD_H */
