/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_RAW_HEADER_H
#define ROCE_RAW_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

class Packet;
class RoceIntRecord;

/**
 * \ingroup rocev2
 * \brief A frame's leading bytes, carried verbatim: how a switch rewrites a
 * few header fields without parsing and re-serialising the headers.
 *
 * A switch that changes a field of a forwarded frame (ECN CE, the INT hop
 * count and the lengths an INT record grows) copies the frame's first bytes
 * with Packet::CopyData, patches them, removes them with
 * Packet::RemoveAtStart and adds them back as one RoceRawHeader. The IPv4
 * header checksum is updated incrementally (RFC 1624, eqn. 3), which gives
 * the same value as computing it again over the whole header.
 *
 * RemoveAtStart, unlike RemoveHeader of a typed header, does not depend on
 * which header classes the sender built the frame with, so the rewrite is
 * also safe with Packet::EnableChecking().
 */
class RoceRawHeader : public Header
{
  public:
    /// Most bytes one header holds: a compact frame's leading bytes (RoceWireFrame).
    static constexpr uint32_t MAX_SIZE = 80;
    /** Bytes SetCe rewrites: Ethernet II and IPv4 without options. */
    static constexpr uint32_t ECN_MARK_BYTES = 14 + 20;

    RoceRawHeader();
    /**
     * \param bytes the bytes to carry
     * \param size how many (at most MAX_SIZE)
     */
    RoceRawHeader(const uint8_t* bytes, uint32_t size);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /** Reads GetSerializedSize() bytes (the size given at construction or by SetSize). */
    uint32_t Deserialize(Buffer::Iterator start) override;
    /** Reads the bytes from start to end (at most MAX_SIZE). */
    uint32_t Deserialize(Buffer::Iterator start, Buffer::Iterator end) override;

    /** \param size bytes Deserialize reads (at most MAX_SIZE) */
    void SetSize(uint32_t size);
    /** \return the bytes carried */
    const uint8_t* GetBytes() const;

    /**
     * \brief RFC 1624 eqn. 3: the Internet checksum after one 16-bit word of
     * the data it covers changed.
     * \param checksum the checksum field before the change
     * \param oldWord the word before
     * \param newWord the word after
     * \return the checksum field after
     */
    static uint16_t UpdateChecksum(uint16_t checksum, uint16_t oldWord, uint16_t newWord);

    /**
     * \brief Set ECN to CE (3) in a frame's IPv4 header in place, updating
     * the header checksum. Every other byte of the frame is unchanged.
     * \param p a frame: Ethernet II, then IPv4 without options
     * \return false (and the frame unchanged) if it is shorter than
     *         ECN_MARK_BYTES or not such a frame
     */
    static bool SetCe(Packet& p);

    /**
     * \brief SetCe on a frame's leading bytes held in memory.
     * \param frame the bytes
     * \param size how many (at least ECN_MARK_BYTES for a mark)
     * \return false (and the bytes unchanged) if they are too few or not
     *         Ethernet II and IPv4 without options
     */
    static bool SetCe(uint8_t* frame, uint32_t size);

    /**
     * \brief Lengthen the IPv4 total length and UDP length of a frame's
     * leading bytes, and update the IPv4 header checksum.
     * \param frame at least 14 + 20 + 8 bytes: Ethernet II, IPv4 without
     *        options, UDP
     * \param extra bytes the frame grew by
     */
    static void GrowIpv4Udp(uint8_t* frame, uint16_t extra);

    /**
     * \brief Append an INT record to a RoCEv2 frame, just before its ICRC,
     * and count it in BTH.
     *
     * The frame's first bytes (Ethernet, IPv4, UDP, BTH) are patched in
     * place: the BTH hop count grows by one, the IPv4 total length (with its
     * header checksum) and the UDP length by RoceIntRecord::SIZE. The result
     * is byte for byte what removing and re-adding RoceEncapHeader and
     * RoceBthHeader around the new trailer gives.
     * \param p a RoCEv2 frame: Ethernet II, IPv4 without options, UDP, BTH,
     *        ..., ICRC
     * \param record the record; its hop field is set to the frame's hop count
     * \return false (and the frame unchanged) if the frame already carries
     *         RoceIntRecord::MAX_HOPS records or is too short
     */
    static bool StampInt(Packet& p, RoceIntRecord& record);

  private:
    uint8_t m_bytes[MAX_SIZE];
    uint32_t m_size{0};
};

} // namespace ns3

#endif /* ROCE_RAW_HEADER_H */
