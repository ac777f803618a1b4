/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RoceWireFrame: a frame in compact form (leading bytes, a count of zero
// bytes, trailing bytes) must be, byte for byte, the ns3::Packet the same
// headers give when added to a packet of zeros; CE marks, INT records and
// PINT digests must change both forms the same way; a frame that something
// outside the module has looked at keeps that Packet and changes it in place.
// The oracles are ns-3's Packet and Buffer (Create<Packet>, AddHeader,
// AddTrailer) and ns-3's own Ipv4Header/UdpHeader decoders with checksum
// verification, not the compact form's code.

#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-encap-header.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-header-block.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-pint-digest.h"
#include "ns3/roce-pooled-event.h"
#include "ns3/roce-raw-header.h"
#include "ns3/roce-raw-trailer.h"
#include "ns3/roce-wire-frame.h"
#include "ns3/udp-header.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

using Bytes = std::vector<uint8_t>;

Bytes
BytesOf(const Packet& p)
{
    Bytes out(p.GetSize());
    p.CopyData(out.data(), p.GetSize());
    return out;
}

Bytes
BytesOf(const RoceWireFrame& f)
{
    Bytes out(f.GetSize());
    EXPECT_EQ(f.CopyData(out.data(), f.GetSize()), f.GetSize());
    return out;
}

/// A queue pair's header block for a frame of opcode op (RETH for a WRITE_FIRST).
RoceHeaderBlock
Block(uint8_t op, bool intRequest = false, bool pint = false)
{
    RoceEncapHeader encap;
    encap.SetMacs(Mac48Address("02:00:00:00:00:01"), Mac48Address("02:00:00:00:00:02"));
    encap.SetAddresses(Ipv4Address("10.0.0.1"), Ipv4Address("10.0.1.7"));
    encap.SetDscp(26);
    encap.SetEcn(Ipv4Header::ECN_ECT0);
    encap.SetSourcePort(49321);
    RoceBthHeader bth;
    bth.SetDestQp(0x123456);
    RoceHeaderBlock h;
    h.SetEncap(encap);
    h.SetBth(bth);
    h.SetOpcode(op);
    h.SetPsn(0xABCDEF);
    h.SetIntRequest(intRequest);
    h.SetPintRequest(pint);
    if (op == RoceBthHeader::WRITE_FIRST)
    {
        h.SetReth(0x1122334455667788ULL, 0x99AABBCC, 1 << 20);
    }
    else
    {
        h.ClearExtension();
    }
    return h;
}

/// The frame as ns-3 builds it: zeros and the tail's bytes as the payload, then the block.
Ptr<Packet>
AsPacket(const RoceHeaderBlock& h, uint32_t zeros, const Bytes& tail)
{
    Bytes payload(zeros, 0);
    payload.insert(payload.end(), tail.begin(), tail.end());
    Ptr<Packet> p = Create<Packet>(payload.data(), static_cast<uint32_t>(payload.size()));
    p->AddHeader(h);
    return p;
}

/// IPv4 and UDP decoded by ns-3 from a frame's bytes (checksum verified).
struct Decoded
{
    Ipv4Header ip;
    UdpHeader udp;
};

Decoded
Decode(const Bytes& frame)
{
    Ptr<Packet> p = Create<Packet>(frame.data() + 14, static_cast<uint32_t>(frame.size() - 14));
    Decoded d;
    d.ip.EnableChecksum();
    p->RemoveHeader(d.ip);
    p->RemoveHeader(d.udp);
    return d;
}

RoceIntRecord
Record(uint32_t i)
{
    RoceIntRecord r;
    r.unitMultiplier = RoceIntRecord::GetUnitMultiplier();
    r.rateMbps = 100000;
    r.queueBytes = 1000 * (i + 1);
    r.txBytes = 123456 * (i + 1);
    r.timestampNs = 5000 + 700 * i;
    return r;
}

} // namespace

TEST(RoceWireFrame, DataFrameIsThePacketItsHeadersMake)
{
    for (uint8_t op : {RoceBthHeader::WRITE_FIRST, RoceBthHeader::WRITE_MIDDLE})
    {
        RoceHeaderBlock h = Block(op);
        const Bytes icrc(RoceIcrcTrailer::SIZE, 0);
        RoceFramePtr f = RoceWireFrame::Make(h, 1000, nullptr, RoceIcrcTrailer::SIZE);
        Ptr<Packet> oracle = AsPacket(h, 1000, icrc);
        EXPECT_FALSE(f->IsPacket());
        ASSERT_EQ(f->GetSize(), oracle->GetSize());
        EXPECT_EQ(BytesOf(*f), BytesOf(*oracle));
        // ns-3's decoder agrees on the lengths and the checksum.
        Decoded d = Decode(BytesOf(*f));
        EXPECT_TRUE(d.ip.IsChecksumOk());
        EXPECT_EQ(d.ip.GetPayloadSize() + 20, f->GetSize() - 14);
        EXPECT_EQ(d.ip.GetEcn(), Ipv4Header::ECN_ECT0);
        EXPECT_EQ(d.udp.GetDestinationPort(), 4791);
        // The Packet form has the same bytes, and is kept.
        const Ptr<Packet>& p = f->GetPacket();
        EXPECT_TRUE(f->IsPacket());
        EXPECT_EQ(BytesOf(*p), BytesOf(*oracle));
        EXPECT_EQ(PeekPointer(f->GetPacket()), PeekPointer(p));
    }
}

TEST(RoceWireFrame, ParseReadsTheSameFieldsInBothForms)
{
    RoceHeaderBlock h = Block(RoceBthHeader::SEND_ONLY);
    RoceFramePtr f = RoceWireFrame::Make(h, 2, nullptr, RoceIcrcTrailer::SIZE);
    RoceFrame a = RoceFrame::Parse(*f);
    RoceFrame b = RoceFrame::Parse(*AsPacket(h, 2, Bytes(4, 0)));
    EXPECT_TRUE(a.isRoce);
    EXPECT_EQ(a.destQp, b.destQp);
    EXPECT_EQ(a.psn, b.psn);
    EXPECT_EQ(a.sport, b.sport);
    EXPECT_EQ(a.dscp, b.dscp);
    // Two payload bytes then the ICRC: the 4 bytes after the BTH cross from
    // the zeros into the tail.
    EXPECT_EQ(a.hasAeth, b.hasAeth);
    EXPECT_EQ(a.aeth, b.aeth);
}

TEST(RoceWireFrame, CeMarkIsTheSameInBothFormsWithAValidChecksum)
{
    RoceHeaderBlock h = Block(RoceBthHeader::WRITE_MIDDLE);
    RoceFramePtr compact = RoceWireFrame::Make(h, 1024, nullptr, RoceIcrcTrailer::SIZE);
    Ptr<Packet> oracle = AsPacket(h, 1024, Bytes(4, 0));
    RoceFramePtr packetForm = RoceWireFrame::FromPacket(oracle->Copy());
    ASSERT_TRUE(compact->SetCe());
    ASSERT_TRUE(packetForm->SetCe());
    EXPECT_FALSE(compact->IsPacket());
    EXPECT_EQ(BytesOf(*compact), BytesOf(*packetForm));
    Decoded d = Decode(BytesOf(*compact));
    EXPECT_TRUE(d.ip.IsChecksumOk());
    EXPECT_EQ(d.ip.GetEcn(), Ipv4Header::ECN_CE);
    EXPECT_EQ(d.ip.GetDscp(), Ipv4Header::DscpType(26));
}

TEST(RoceWireFrame, IntRecordsGoBeforeTheIcrcInBothForms)
{
    RoceHeaderBlock h = Block(RoceBthHeader::WRITE_MIDDLE, true);
    RoceFramePtr compact = RoceWireFrame::Make(h, 1000, nullptr, RoceIcrcTrailer::SIZE);
    RoceFramePtr packetForm =
        RoceWireFrame::FromPacket(AsPacket(h, 1000, Bytes(RoceIcrcTrailer::SIZE, 0)));
    // Up to 11 records the compact form holds them; the 12th turns it into
    // its Packet form; the 32nd does not fit the BTH's 5-bit count.
    for (uint32_t i = 0; i < RoceIntRecord::MAX_HOPS; ++i)
    {
        RoceIntRecord a = Record(i);
        RoceIntRecord b = Record(i);
        ASSERT_TRUE(compact->StampInt(a)) << "record " << i;
        ASSERT_TRUE(packetForm->StampInt(b)) << "record " << i;
        EXPECT_EQ(a.hop, i);
        EXPECT_EQ(b.hop, i);
        EXPECT_EQ(compact->IsPacket(),
                  RoceIcrcTrailer::SIZE + (i + 1) * RoceIntRecord::SIZE >
                      RoceWireFrame::TAIL_CAPACITY)
            << "record " << i;
        ASSERT_EQ(BytesOf(*compact), BytesOf(*packetForm)) << "after record " << i;
        Decoded d = Decode(BytesOf(*compact));
        EXPECT_TRUE(d.ip.IsChecksumOk());
        EXPECT_EQ(d.ip.GetPayloadSize() + 20, compact->GetSize() - 14);
        EXPECT_EQ(RoceFrame::Parse(*compact).bthByte4 & 0x1F, i + 1);
    }
    RoceIntRecord extra = Record(99);
    EXPECT_FALSE(compact->StampInt(extra));
    EXPECT_FALSE(packetForm->StampInt(extra));
}

TEST(RoceWireFrame, IntRecordsAreReadBackFromTheTail)
{
    RoceHeaderBlock h = Block(RoceBthHeader::WRITE_MIDDLE, true);
    RoceFramePtr f = RoceWireFrame::Make(h, 512, nullptr, RoceIcrcTrailer::SIZE);
    for (uint32_t i = 0; i < 3; ++i)
    {
        RoceIntRecord r = Record(i);
        ASSERT_TRUE(f->StampInt(r));
    }
    const uint32_t tail = 3 * RoceIntRecord::SIZE + RoceIcrcTrailer::SIZE;
    RoceRawTrailer scratch;
    const uint8_t* t = f->PeekTail(tail, scratch);
    Bytes all = BytesOf(*f);
    EXPECT_EQ(Bytes(t, t + tail), Bytes(all.end() - tail, all.end()));
    RoceIntRecord second;
    second.unitMultiplier = RoceIntRecord::GetUnitMultiplier();
    second.Read(t + RoceIntRecord::SIZE);
    EXPECT_EQ(second.queueBytes, Record(1).queueBytes);
    // A tail longer than the compact frame holds is read from its Packet form.
    const uint8_t* longer = f->PeekTail(tail + 10, scratch);
    EXPECT_TRUE(f->IsPacket());
    EXPECT_EQ(Bytes(longer, longer + tail + 10), Bytes(all.end() - tail - 10, all.end()));
}

TEST(RoceWireFrame, PintDigestIsRaisedNeverLoweredInBothForms)
{
    RoceHeaderBlock h = Block(RoceBthHeader::WRITE_MIDDLE, false, true);
    const uint32_t tail = RocePintDigest::SIZE + RoceIcrcTrailer::SIZE;
    RoceFramePtr compact = RoceWireFrame::Make(h, 1000, nullptr, tail);
    RoceFramePtr packetForm = RoceWireFrame::FromPacket(AsPacket(h, 1000, Bytes(tail, 0)));
    for (uint16_t v : {300, 200, 4000, 4000, 17})
    {
        compact->RaisePint(v);
        packetForm->RaisePint(v);
        ASSERT_EQ(BytesOf(*compact), BytesOf(*packetForm)) << "after " << v;
    }
    RoceRawTrailer scratch;
    EXPECT_EQ(RocePintDigest::Read(compact->PeekTail(tail, scratch)), 4000);
    EXPECT_FALSE(compact->IsPacket());
}

TEST(RoceWireFrame, AnObservedFrameChangesItsPacketInPlace)
{
    // What a trace sink kept sees the frame change later on its path, as it
    // did when every frame was a Packet.
    RoceHeaderBlock h = Block(RoceBthHeader::WRITE_MIDDLE, true);
    RoceFramePtr f = RoceWireFrame::Make(h, 1000, nullptr, RoceIcrcTrailer::SIZE);
    Ptr<const Packet> seen = f->GetPacket();
    const uint32_t before = seen->GetSize();
    ASSERT_TRUE(f->SetCe());
    RoceIntRecord r = Record(0);
    ASSERT_TRUE(f->StampInt(r));
    EXPECT_EQ(seen->GetSize(), before + RoceIntRecord::SIZE);
    EXPECT_EQ(Decode(BytesOf(*seen)).ip.GetEcn(), Ipv4Header::ECN_CE);
    EXPECT_EQ(BytesOf(*seen), BytesOf(*f));
}

TEST(RoceWireFrame, APacketGivenIsKeptAsItIs)
{
    Ptr<Packet> p = AsPacket(Block(RoceBthHeader::SEND_ONLY), 100, Bytes(4, 0));
    RoceFramePtr f = RoceWireFrame::FromPacket(p);
    EXPECT_TRUE(f->IsPacket());
    EXPECT_EQ(PeekPointer(f->GetPacket()), PeekPointer(p));
    EXPECT_EQ(f->GetSize(), p->GetSize());
}

TEST(RoceWireFrame, AShortControlFrameIsCopiedCompact)
{
    // A CNP: headers, 16 reserved bytes, the ICRC.
    Ptr<Packet> cnp = AsPacket(Block(RoceBthHeader::CNP), 16, Bytes(4, 0));
    RoceFramePtr f = RoceWireFrame::CopyOf(cnp);
    EXPECT_FALSE(f->IsPacket());
    EXPECT_EQ(BytesOf(*f), BytesOf(*cnp));
    // Too long for the compact form: the packet itself is kept.
    Ptr<Packet> data = AsPacket(Block(RoceBthHeader::SEND_ONLY), 1000, Bytes(4, 0));
    RoceFramePtr g = RoceWireFrame::CopyOf(data);
    EXPECT_TRUE(g->IsPacket());
    EXPECT_EQ(PeekPointer(g->GetPacket()), PeekPointer(data));
}

TEST(RoceWireFrame, ATailBeyondTheCompactFormMakesAPacketFormFrame)
{
    // An ACK echoing 31 INT records.
    RoceHeaderBlock h = Block(RoceBthHeader::ACKNOWLEDGE);
    h.SetAeth(0, 77);
    Bytes tail(RoceRawTrailer::MAX_SIZE - RocePintDigest::SIZE, 0);
    for (uint32_t i = 0; i < tail.size(); ++i)
    {
        tail[i] = static_cast<uint8_t>(i * 7 + 1);
    }
    RoceFramePtr f = RoceWireFrame::Make(h, 0, tail.data(), static_cast<uint32_t>(tail.size()));
    EXPECT_TRUE(f->IsPacket());
    EXPECT_EQ(BytesOf(*f), BytesOf(*AsPacket(h, 0, tail)));
    // One that fits stays compact and has the same bytes.
    RoceFramePtr g = RoceWireFrame::Make(h, 0, tail.data(), RoceWireFrame::TAIL_CAPACITY);
    EXPECT_FALSE(g->IsPacket());
    EXPECT_EQ(
        BytesOf(*g),
        BytesOf(*AsPacket(h, 0, Bytes(tail.begin(), tail.begin() + RoceWireFrame::TAIL_CAPACITY))));
}

TEST(RoceWireFrame, AFreedFrameIsReusedFirst)
{
    RoceHeaderBlock h = Block(RoceBthHeader::SEND_ONLY);
    RoceFramePtr f = RoceWireFrame::Make(h, 10, nullptr, 4);
    const RoceWireFrame* first = f.get();
    f.reset();
    RoceFramePtr g = RoceWireFrame::Make(h, 10, nullptr, 4);
#ifndef ROCE_ASAN
    EXPECT_EQ(g.get(), first);
#else
    (void)first; // AddressSanitizer builds allocate every frame
#endif
    EXPECT_EQ(BytesOf(*g), BytesOf(*AsPacket(h, 10, Bytes(4, 0))));
}

TEST(RoceWireFrame, APacketMadeFromACompactFrameDoesNotCarryItsZeroBytes)
{
    // A frame sent to another MPI rank is serialized whole (Packet::Serialize)
    // into a message of at most 2,000 bytes (ns-3's MPI interfaces): the
    // payload's zero bytes must stay ns-3's zero area, as they were when the
    // queue pair built Packets, or a 4 KiB payload overflows the message.
    RoceHeaderBlock h = Block(RoceBthHeader::WRITE_MIDDLE, true);
    RoceFramePtr f = RoceWireFrame::Make(h, 4096, nullptr, RoceIcrcTrailer::SIZE);
    RoceIntRecord r = Record(0);
    ASSERT_TRUE(f->StampInt(r));
    const Ptr<Packet>& p = f->GetPacket();
    EXPECT_GT(p->GetSize(), 4096u);
    EXPECT_LT(p->GetSerializedSize(), 2000u);
    RoceFramePtr g = RoceWireFrame::FromPacket(AsPacket(h, 4096, Bytes(4, 0)));
    RoceIntRecord s = Record(0);
    ASSERT_TRUE(g->StampInt(s));
    EXPECT_EQ(BytesOf(*p), BytesOf(*g));
}
