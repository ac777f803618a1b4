/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_WIRE_FRAME_H
#define ROCE_WIRE_FRAME_H

#include "roce-raw-trailer.h"

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <memory>

namespace ns3
{

class RoceHeaderBlock;
class RoceIntRecord;
class RoceWireFrame;

/**
 * \ingroup rocev2
 * The owner of a frame on its way through the fabric: one owner at a time
 * (a queue, an event in flight, the function handling it), and the frame's
 * memory goes back to its free list when the last owner lets it go.
 */
using RoceFramePtr = std::unique_ptr<RoceWireFrame>;

/**
 * \ingroup rocev2
 * \brief A frame between the module's devices, in one of two forms.
 *
 * **Compact**: the frame's leading bytes (Ethernet, IPv4, UDP, BTH and its
 * extension header), a count of zero bytes (the payload and its pad, which
 * the module never fills), and its trailing bytes (any PINT digest or INT
 * records, and the ICRC). A queue pair's data frames and ACKs are built so.
 * Nothing in the frame is allocated apart from the object itself, which
 * comes from a free list; forwarding reads and patches the bytes in place.
 *
 * **Packet**: an `ns3::Packet` holds the bytes. A frame takes this form for
 * good the first time something outside the module looks at it (GetPacket():
 * a connected trace source or pcap sniffer, a receive error model, a frame
 * leaving for another MPI rank or delivered to a protocol above), and a
 * frame that entered the module as a Packet (FromPacket) starts in it. From
 * then on every change (CE mark, INT record, PINT digest) is made to that
 * same Packet, exactly as the module made it before frames had a compact
 * form, so what a trace holds sees the frame change as it travels.
 *
 * Both forms give the same bytes: GetPacket() on a compact frame makes the
 * Packet of its head, its zero bytes and its tail, which is the frame the
 * sender would have built as a Packet. Which form a frame is in changes
 * nothing the simulation does: only the cost.
 */
class RoceWireFrame
{
  public:
    /// Most leading bytes a compact frame holds: Ethernet, IPv4, UDP, BTH, RETH (70) and room.
    static constexpr uint32_t HEAD_CAPACITY = 80;
    /// Most trailing bytes a compact frame holds: a PINT digest, or up to 11 INT
    /// records, and the ICRC. A frame whose tail grows beyond takes its Packet form.
    static constexpr uint32_t TAIL_CAPACITY = 96;

    RoceWireFrame(const RoceWireFrame&) = delete;
    RoceWireFrame& operator=(const RoceWireFrame&) = delete;
    ~RoceWireFrame() = default;

    /**
     * \brief A compact frame.
     * \param head the leading bytes (at most HEAD_CAPACITY)
     * \param headBytes how many
     * \param zeros zero bytes after them
     * \param tail the trailing bytes (at most RoceRawTrailer::MAX_SIZE), or null for zeros
     * \param tailBytes how many (beyond TAIL_CAPACITY the frame is made in Packet form)
     * \return the frame
     */
    static RoceFramePtr Make(const uint8_t* head,
                             uint32_t headBytes,
                             uint32_t zeros,
                             const uint8_t* tail,
                             uint32_t tailBytes);

    /**
     * \brief A compact RoCEv2 frame: a header block (its lengths set for
     * the frame), zero bytes, and trailing bytes.
     * \param headers Ethernet to BTH and any RETH or AETH
     * \param zeros zero bytes after them (payload and pad)
     * \param tail the trailing bytes (at most RoceRawTrailer::MAX_SIZE), or null for zeros
     * \param tailBytes how many (beyond TAIL_CAPACITY the frame is made in Packet form)
     * \return the frame
     */
    static RoceFramePtr Make(const RoceHeaderBlock& headers,
                             uint32_t zeros,
                             const uint8_t* tail,
                             uint32_t tailBytes);

    /**
     * \brief A frame in Packet form holding this packet (not a copy).
     * \param p the frame, Ethernet header first
     * \return the frame
     */
    static RoceFramePtr FromPacket(Ptr<Packet> p);

    /**
     * \brief A compact frame of a packet's bytes (the packet is not kept):
     * for control frames the module builds from header classes. A frame too
     * long for the compact form is kept in Packet form.
     * \param p the frame, Ethernet header first
     * \return the frame
     */
    static RoceFramePtr CopyOf(Ptr<Packet> p);

    /** \return the frame's size in bytes (no FCS) */
    uint32_t GetSize() const
    {
        return m_packet ? m_packet->GetSize() : m_headBytes + m_zeros + m_tailBytes;
    }

    /**
     * \brief The frame as an ns-3 Packet: made from the compact bytes the
     * first time and kept (the frame is in Packet form from then on).
     * \return the packet
     */
    const Ptr<Packet>& GetPacket();

    /** \return true if the frame is in Packet form */
    bool IsPacket() const
    {
        return m_packet != nullptr;
    }

    /**
     * \brief Copy the frame's first bytes.
     * \param buffer where to
     * \param size how many at most
     * \return how many were copied (less if the frame is shorter)
     */
    uint32_t CopyData(uint8_t* buffer, uint32_t size) const;

    /**
     * \brief Set ECN to CE in the frame's IPv4 header (RoceRawHeader::SetCe).
     * \return false (the frame unchanged) if it is not Ethernet II and IPv4
     */
    bool SetCe();

    /**
     * \brief Append an INT record before the ICRC (RoceRawHeader::StampInt).
     * \param record the record; its hop field is set to the frame's hop count
     * \return false (the frame unchanged) if it holds MAX_HOPS records or is too short
     */
    bool StampInt(RoceIntRecord& record);

    /**
     * \brief Raise the PINT digest (the two bytes before the ICRC) to p2 if
     * it is lower (RocePintDigest::Raise).
     * \param p2 the digest
     */
    void RaisePint(uint16_t p2);

    /**
     * \brief The frame's last bytes, for reading. A compact frame whose
     * tail is shorter takes its Packet form.
     * \param size how many (at most RoceRawTrailer::MAX_SIZE and the frame's size)
     * \param scratch where to copy them if the frame is in Packet form
     * \return the bytes
     */
    const uint8_t* PeekTail(uint32_t size, RoceRawTrailer& scratch);

    /** \param size the object's size \return memory from the frames' free list */
    static void* operator new(std::size_t size);
    /** \param block an object's memory, back to the free list */
    static void operator delete(void* block);

  private:
    RoceWireFrame() = default;

    /**
     * \brief A new compact frame with its zero bytes and tail set, and no head yet.
     * \param zeros zero bytes
     * \param tail trailing bytes (at most TAIL_CAPACITY), or null for zeros
     * \param tailBytes how many
     * \return the frame
     */
    static RoceFramePtr WithTail(uint32_t zeros, const uint8_t* tail, uint32_t tailBytes);

    /**
     * \brief A frame in Packet form of these bytes (a tail too long for the compact form).
     * \param head leading bytes \param headBytes how many \param zeros zero bytes
     * \param tail trailing bytes, or null for zeros \param tailBytes how many
     * \return the frame
     */
    static RoceFramePtr Assembled(const uint8_t* head,
                                  uint32_t headBytes,
                                  uint32_t zeros,
                                  const uint8_t* tail,
                                  uint32_t tailBytes);

    /**
     * \brief The Packet of these bytes, its zero bytes in ns-3's zero area.
     * \param head leading bytes (at most RoceRawHeader::MAX_SIZE) \param headBytes how many
     * \param zeros zero bytes
     * \param tail trailing bytes (at most RoceRawTrailer::MAX_SIZE), or null for zeros
     * \param tailBytes how many
     * \return the packet
     */
    static Ptr<Packet> BuildPacket(const uint8_t* head,
                                   uint32_t headBytes,
                                   uint32_t zeros,
                                   const uint8_t* tail,
                                   uint32_t tailBytes);

    /** \brief Turn a compact frame into its Packet form (GetPacket). */
    void MakePacket();

    Ptr<Packet> m_packet;          //!< the Packet form, or null while compact
    uint32_t m_zeros{0};           //!< zero bytes between head and tail
    uint8_t m_headBytes{0};        //!< leading bytes held
    uint16_t m_tailBytes{0};       //!< trailing bytes held
    uint8_t m_head[HEAD_CAPACITY]; //!< the leading bytes
    uint8_t m_tail[TAIL_CAPACITY]; //!< the trailing bytes
};

} // namespace ns3

#endif /* ROCE_WIRE_FRAME_H */
