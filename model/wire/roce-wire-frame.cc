/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-wire-frame.h"

#include "roce-header-block.h"
#include "roce-icrc-trailer.h"
#include "roce-int-record.h"
#include "roce-pint-digest.h"
#include "roce-raw-header.h"

#include "ns3/roce-error.h"
#include "ns3/roce-pooled-event.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

namespace
{

/// Ethernet, IPv4, UDP and BTH: the leading bytes an INT record changes fields of.
constexpr uint32_t INT_STAMP_BYTES = 14 + 20 + 8 + 12;
/// BTH byte 4: INT request (bit 5) and hop count (bits 4-0).
constexpr uint32_t INT_FLAGS_OFFSET = 14 + 20 + 8 + 4;

/// \return the frames' free list (never destroyed: a frame freed at exit finds it)
RoceEventFreeList&
FrameList()
{
    static RoceEventFreeList* list = new RoceEventFreeList(sizeof(RoceWireFrame));
    return *list;
}

} // namespace

static_assert(sizeof(RoceWireFrame) <= 192, "a compact frame fits three cache lines");
static_assert(RoceWireFrame::HEAD_CAPACITY <= RoceRawHeader::MAX_SIZE,
              "a compact frame's leading bytes fit one RoceRawHeader");

void*
RoceWireFrame::operator new(std::size_t /* size */)
{
    return FrameList().Take();
}

void
RoceWireFrame::operator delete(void* block)
{
    FrameList().Give(block);
}

RoceFramePtr
RoceWireFrame::Make(const uint8_t* head,
                    uint32_t headBytes,
                    uint32_t zeros,
                    const uint8_t* tail,
                    uint32_t tailBytes)
{
    ROCE_ERROR_IF(headBytes > HEAD_CAPACITY || tailBytes > RoceRawTrailer::MAX_SIZE,
                  "RoceWireFrame: " << headBytes << " leading and " << tailBytes
                                    << " trailing bytes; a frame built so holds at most "
                                    << HEAD_CAPACITY << " and " << RoceRawTrailer::MAX_SIZE);
    if (tailBytes > TAIL_CAPACITY)
    {
        return Assembled(head, headBytes, zeros, tail, tailBytes);
    }
    RoceFramePtr f = WithTail(zeros, tail, tailBytes);
    std::memcpy(f->m_head, head, headBytes);
    f->m_headBytes = static_cast<uint8_t>(headBytes);
    return f;
}

RoceFramePtr
RoceWireFrame::Make(const RoceHeaderBlock& headers,
                    uint32_t zeros,
                    const uint8_t* tail,
                    uint32_t tailBytes)
{
    const uint32_t headBytes = headers.GetSerializedSize();
    if (tailBytes > TAIL_CAPACITY)
    {
        uint8_t head[RoceHeaderBlock::MAX_BYTES];
        headers.Write(head, headBytes + zeros + tailBytes);
        return Make(head, headBytes, zeros, tail, tailBytes);
    }
    RoceFramePtr f = WithTail(zeros, tail, tailBytes);
    headers.Write(f->m_head, headBytes + zeros + tailBytes);
    f->m_headBytes = static_cast<uint8_t>(headBytes);
    return f;
}

RoceFramePtr
RoceWireFrame::WithTail(uint32_t zeros, const uint8_t* tail, uint32_t tailBytes)
{
    RoceFramePtr f(new RoceWireFrame);
    f->m_zeros = zeros;
    if (tail != nullptr)
    {
        std::memcpy(f->m_tail, tail, tailBytes);
    }
    else
    {
        std::memset(f->m_tail, 0, tailBytes);
    }
    f->m_tailBytes = static_cast<uint16_t>(tailBytes);
    return f;
}

RoceFramePtr
RoceWireFrame::Assembled(const uint8_t* head,
                         uint32_t headBytes,
                         uint32_t zeros,
                         const uint8_t* tail,
                         uint32_t tailBytes)
{
    return FromPacket(BuildPacket(head, headBytes, zeros, tail, tailBytes));
}

Ptr<Packet>
RoceWireFrame::BuildPacket(const uint8_t* head,
                           uint32_t headBytes,
                           uint32_t zeros,
                           const uint8_t* tail,
                           uint32_t tailBytes)
{
    // The zero bytes stay ns-3's zero area (not stored, not serialized: a
    // frame sent to another MPI rank is as short as before compact frames);
    // the tail and the head are one trailer and one header.
    Ptr<Packet> p = Create<Packet>(zeros);
    if (tailBytes > 0)
    {
        if (tail != nullptr)
        {
            p->AddTrailer(RoceRawTrailer(tail, tailBytes));
        }
        else
        {
            p->AddPaddingAtEnd(tailBytes);
        }
    }
    p->AddHeader(RoceRawHeader(head, headBytes));
    return p;
}

RoceFramePtr
RoceWireFrame::FromPacket(Ptr<Packet> p)
{
    RoceFramePtr f(new RoceWireFrame);
    f->m_packet = std::move(p);
    return f;
}

RoceFramePtr
RoceWireFrame::CopyOf(Ptr<Packet> p)
{
    const uint32_t size = p->GetSize();
    const uint32_t tail = std::min(size, RoceIcrcTrailer::SIZE);
    if (size - tail > HEAD_CAPACITY)
    {
        return FromPacket(std::move(p));
    }
    uint8_t b[HEAD_CAPACITY + RoceIcrcTrailer::SIZE];
    p->CopyData(b, size);
    return Make(b, size - tail, 0, b + size - tail, tail);
}

uint32_t
RoceWireFrame::CopyData(uint8_t* buffer, uint32_t size) const
{
    if (m_packet)
    {
        return m_packet->CopyData(buffer, size);
    }
    uint32_t n = std::min<uint32_t>(size, m_headBytes);
    std::memcpy(buffer, m_head, n);
    if (n == size)
    {
        return n;
    }
    const uint32_t z = std::min(size - n, m_zeros);
    std::memset(buffer + n, 0, z);
    n += z;
    const uint32_t t = std::min<uint32_t>(size - n, m_tailBytes);
    std::memcpy(buffer + n, m_tail, t);
    return n + t;
}

void
RoceWireFrame::MakePacket()
{
    m_packet = BuildPacket(m_head, m_headBytes, m_zeros, m_tail, m_tailBytes);
}

const Ptr<Packet>&
RoceWireFrame::GetPacket()
{
    if (!m_packet)
    {
        MakePacket();
    }
    return m_packet;
}

bool
RoceWireFrame::SetCe()
{
    if (!m_packet)
    {
        if (m_headBytes >= RoceRawHeader::ECN_MARK_BYTES)
        {
            return RoceRawHeader::SetCe(m_head, m_headBytes);
        }
        MakePacket();
    }
    return RoceRawHeader::SetCe(*m_packet);
}

bool
RoceWireFrame::StampInt(RoceIntRecord& record)
{
    if (!m_packet)
    {
        if (m_headBytes >= INT_STAMP_BYTES && m_tailBytes >= RoceIcrcTrailer::SIZE &&
            m_tailBytes + RoceIntRecord::SIZE <= TAIL_CAPACITY)
        {
            const uint8_t hops = m_head[INT_FLAGS_OFFSET] & 0x1F;
            if (hops >= RoceIntRecord::MAX_HOPS)
            {
                return false;
            }
            record.hop = hops;
            // The record takes the ICRC's place and the ICRC moves behind it.
            uint8_t* icrc = m_tail + m_tailBytes - RoceIcrcTrailer::SIZE;
            std::memmove(icrc + RoceIntRecord::SIZE, icrc, RoceIcrcTrailer::SIZE);
            record.Write(icrc);
            m_tailBytes += RoceIntRecord::SIZE;
            m_head[INT_FLAGS_OFFSET] =
                static_cast<uint8_t>((m_head[INT_FLAGS_OFFSET] & 0xE0) | (hops + 1));
            RoceRawHeader::GrowIpv4Udp(m_head, RoceIntRecord::SIZE);
            return true;
        }
        MakePacket();
    }
    return RoceRawHeader::StampInt(*m_packet, record);
}

void
RoceWireFrame::RaisePint(uint16_t p2)
{
    constexpr uint32_t TAIL = RocePintDigest::SIZE + RoceIcrcTrailer::SIZE;
    if (!m_packet)
    {
        if (m_tailBytes >= TAIL)
        {
            uint8_t* digest = m_tail + m_tailBytes - TAIL;
            if (p2 > RocePintDigest::Read(digest))
            {
                RocePintDigest::Write(digest, p2);
            }
            return;
        }
        MakePacket();
    }
    RocePintDigest::Raise(*m_packet, p2);
}

const uint8_t*
RoceWireFrame::PeekTail(uint32_t size, RoceRawTrailer& scratch)
{
    if (!m_packet)
    {
        if (size <= m_tailBytes)
        {
            return m_tail + m_tailBytes - size;
        }
        MakePacket();
    }
    scratch.SetSize(size);
    m_packet->PeekTrailer(scratch);
    return scratch.GetBytes();
}

} // namespace ns3
