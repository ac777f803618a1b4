/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_INT_RECORD_H
#define ROCE_INT_RECORD_H

#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief One hop's in-band telemetry (INT), as HPCC reads it: the egress
 * queue length, the port's cumulative transmitted bytes, a timestamp and the
 * link rate (32 bytes).
 *
 * A sender asks for INT by setting the INT-request bit in BTH byte 4 (bit 5,
 * a reserved bit of the IBTA layout); BTH byte 4 bits 4-0 count the records
 * the packet carries. Each switch egress that forwards such a packet appends
 * its record just before the ICRC and increments the count; the receiver
 * strips the records and echoes them on its next ACK, where the sender's
 * congestion control reads them.
 */
class RoceIntRecord : public Trailer
{
  public:
    static constexpr uint32_t SIZE = 32;    //!< serialized size in bytes
    static constexpr uint8_t MAX_HOPS = 31; //!< the BTH count field holds 5 bits

    RoceIntRecord();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator end) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;

    uint8_t hop{0};          //!< hop index along the path (0 = first switch)
    uint32_t rateMbps{0};    //!< egress link rate in Mb/s
    uint64_t queueBytes{0};  //!< bytes queued in the packet's egress queue when it left
    uint64_t txBytes{0};     //!< bytes the egress port had transmitted before this packet
    uint64_t timestampNs{0}; //!< when the packet left the egress queue, ns
};

} // namespace ns3

#endif /* ROCE_INT_RECORD_H */
