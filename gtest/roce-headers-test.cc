/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Byte layouts of the RoCEv2 transport headers and the PFC frame body, as
// serialized into an ns3::Packet: network byte order, field offsets from the
// IBTA specification (BTH, RETH, AETH) and IEEE 802.1Qbb (PFC), so that
// Wireshark decodes the module's pcaps.

#include "ns3/packet.h"
#include "ns3/roce-aeth-header.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-pfc-header.h"
#include "ns3/roce-raw-header.h"
#include "ns3/roce-raw-trailer.h"
#include "ns3/roce-reth-header.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

using Bytes = std::vector<uint8_t>;

/** The bytes of a packet, front to back. */
Bytes
WireBytes(Ptr<const Packet> p)
{
    Bytes out(p->GetSize());
    p->CopyData(out.data(), static_cast<uint32_t>(out.size()));
    return out;
}

template <class H>
Bytes
Serialized(const H& h)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    EXPECT_EQ(p->GetSize(), h.GetSerializedSize());
    return WireBytes(p);
}

template <class H>
H
Parsed(const Bytes& bytes)
{
    Ptr<Packet> p = Create<Packet>(bytes.data(), static_cast<uint32_t>(bytes.size()));
    H h;
    EXPECT_EQ(p->RemoveHeader(h), bytes.size());
    EXPECT_EQ(p->GetSize(), 0u);
    return h;
}

} // namespace

TEST(RoceHeadersTest, BthWriteFirstWithAckReq)
{
    RoceBthHeader bth;
    bth.SetOpcode(RoceBthHeader::WRITE_FIRST);
    bth.SetDestQp(0x123456);
    bth.SetPsn(0xABCDEF);
    bth.SetAckReq(true);
    // OpCode | SE M PadCnt TVer | P_Key | resv | DestQP | A resv | PSN
    const Bytes expected{0x06, 0x00, 0xFF, 0xFF, 0x00, 0x12, 0x34, 0x56, 0x80, 0xAB, 0xCD, 0xEF};
    EXPECT_EQ(RoceBthHeader::SIZE, 12u);
    EXPECT_EQ(Serialized(bth), expected);
}

TEST(RoceHeadersTest, BthFlagBitsAndPkey)
{
    RoceBthHeader bth;
    bth.SetOpcode(RoceBthHeader::SEND_ONLY);
    bth.SetSolicitedEvent(true);
    bth.SetMigReq(true);
    bth.SetPadCount(3);
    bth.SetPkey(0x1234);
    bth.SetFecn(true);
    bth.SetBecn(true);
    bth.SetDestQp(0xFFFFFF);
    bth.SetPsn(0x000001);
    EXPECT_EQ(Serialized(bth),
              (Bytes{0x04, 0xF0, 0x12, 0x34, 0xC0, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01}));

    // Each flag on its own sits at its own bit.
    RoceBthHeader se;
    se.SetSolicitedEvent(true);
    EXPECT_EQ(Serialized(se)[1], 0x80);
    RoceBthHeader m;
    m.SetMigReq(true);
    EXPECT_EQ(Serialized(m)[1], 0x40);
    RoceBthHeader pad;
    pad.SetPadCount(2);
    EXPECT_EQ(Serialized(pad)[1], 0x20);
    EXPECT_EQ(pad.GetTver(), 0);
    RoceBthHeader fecn;
    fecn.SetFecn(true);
    EXPECT_EQ(Serialized(fecn)[4], 0x80);
    RoceBthHeader becn;
    becn.SetBecn(true);
    EXPECT_EQ(Serialized(becn)[4], 0x40);
    becn.SetBecn(false);
    EXPECT_EQ(Serialized(becn)[4], 0x00);
}

TEST(RoceHeadersTest, BthIntRequestIsBit5OfByte4)
{
    // Byte 4 of the BTH (reserved in the IBTA layout) carries FECN (0x80),
    // BECN (0x40), the INT request (0x20) and the INT hop count (0x1F).
    RoceBthHeader bth;
    EXPECT_FALSE(bth.GetIntRequest());
    bth.SetIntHops(5);
    bth.SetIntRequest(true);
    EXPECT_TRUE(bth.GetIntRequest());
    EXPECT_EQ(Serialized(bth)[4], 0x25);
    bth.SetIntRequest(false);
    EXPECT_FALSE(bth.GetIntRequest());
    EXPECT_EQ(Serialized(bth)[4], 0x05);

    const Bytes request{0x0A, 0x00, 0xFF, 0xFF, 0x20, 0x00, 0x00, 0x02, 0x80, 0x00, 0x00, 0x01};
    const RoceBthHeader asked = Parsed<RoceBthHeader>(request);
    EXPECT_TRUE(asked.GetIntRequest());
    EXPECT_EQ(asked.GetIntHops(), 0);
    EXPECT_FALSE(asked.GetFecn());
    EXPECT_FALSE(asked.GetBecn());
    Bytes others = request;
    others[4] = 0xDF; // every bit of byte 4 but the request
    const RoceBthHeader notAsked = Parsed<RoceBthHeader>(others);
    EXPECT_FALSE(notAsked.GetIntRequest());
    EXPECT_EQ(notAsked.GetIntHops(), 31);
    EXPECT_TRUE(notAsked.GetFecn());
    EXPECT_TRUE(notAsked.GetBecn());
}

TEST(RoceHeadersTest, BthMasksQpAndPsnTo24Bits)
{
    RoceBthHeader bth;
    bth.SetOpcode(RoceBthHeader::ACKNOWLEDGE);
    bth.SetDestQp(0xFF123456);
    bth.SetPsn(0x01ABCDEF);
    EXPECT_EQ(bth.GetDestQp(), 0x123456u);
    EXPECT_EQ(bth.GetPsn(), 0xABCDEFu);
    EXPECT_EQ(Serialized(bth),
              (Bytes{0x11, 0x00, 0xFF, 0xFF, 0x00, 0x12, 0x34, 0x56, 0x00, 0xAB, 0xCD, 0xEF}));
}

TEST(RoceHeadersTest, BthOpcodeValues)
{
    EXPECT_EQ(RoceBthHeader::SEND_FIRST, 0x00);
    EXPECT_EQ(RoceBthHeader::SEND_MIDDLE, 0x01);
    EXPECT_EQ(RoceBthHeader::SEND_LAST, 0x02);
    EXPECT_EQ(RoceBthHeader::SEND_ONLY, 0x04);
    EXPECT_EQ(RoceBthHeader::WRITE_FIRST, 0x06);
    EXPECT_EQ(RoceBthHeader::WRITE_MIDDLE, 0x07);
    EXPECT_EQ(RoceBthHeader::WRITE_LAST, 0x08);
    EXPECT_EQ(RoceBthHeader::WRITE_ONLY, 0x0A);
    EXPECT_EQ(RoceBthHeader::READ_REQUEST, 0x0C);
    EXPECT_EQ(RoceBthHeader::ACKNOWLEDGE, 0x11);
    EXPECT_EQ(RoceBthHeader::CNP, 0x81);

    for (uint8_t op : {0x00, 0x01, 0x02, 0x04, 0x06, 0x07, 0x08, 0x0A})
    {
        EXPECT_TRUE(RoceBthHeader::IsData(op)) << +op;
    }
    for (uint8_t op : {0x03, 0x05, 0x09, 0x0C, 0x11, 0x81})
    {
        EXPECT_FALSE(RoceBthHeader::IsData(op)) << +op;
    }
    EXPECT_TRUE(RoceBthHeader::IsFirst(RoceBthHeader::WRITE_ONLY));
    EXPECT_TRUE(RoceBthHeader::IsLast(RoceBthHeader::WRITE_ONLY));
    EXPECT_TRUE(RoceBthHeader::IsFirst(RoceBthHeader::SEND_FIRST));
    EXPECT_FALSE(RoceBthHeader::IsLast(RoceBthHeader::SEND_FIRST));
    EXPECT_FALSE(RoceBthHeader::IsFirst(RoceBthHeader::WRITE_MIDDLE));
    EXPECT_FALSE(RoceBthHeader::IsLast(RoceBthHeader::WRITE_MIDDLE));
    EXPECT_TRUE(RoceBthHeader::IsLast(RoceBthHeader::SEND_LAST));
}

TEST(RoceHeadersTest, BthParsesWireBytes)
{
    // A CNP to QP 0x00ABCD with FECN and BECN set and every reserved bit of
    // the AckReq byte set: only bit 7 is AckReq.
    const Bytes wire{0x81, 0x00, 0xFF, 0xFF, 0xC0, 0x00, 0xAB, 0xCD, 0x7F, 0xFE, 0xDC, 0xBA};
    auto bth = Parsed<RoceBthHeader>(wire);
    EXPECT_EQ(bth.GetOpcode(), RoceBthHeader::CNP);
    EXPECT_EQ(bth.GetPkey(), 0xFFFF);
    EXPECT_TRUE(bth.GetFecn());
    EXPECT_TRUE(bth.GetBecn());
    EXPECT_EQ(bth.GetDestQp(), 0x00ABCDu);
    EXPECT_FALSE(bth.GetAckReq());
    EXPECT_EQ(bth.GetPsn(), 0xFEDCBAu);

    const Bytes flags{0x0A, 0xB0, 0x80, 0x01, 0x00, 0x01, 0x02, 0x03, 0x80, 0x00, 0x00, 0x00};
    auto w = Parsed<RoceBthHeader>(flags);
    EXPECT_EQ(w.GetOpcode(), RoceBthHeader::WRITE_ONLY);
    EXPECT_TRUE(w.GetSolicitedEvent());
    EXPECT_FALSE(w.GetMigReq());
    EXPECT_EQ(w.GetPadCount(), 3);
    EXPECT_EQ(w.GetPkey(), 0x8001);
    EXPECT_EQ(w.GetDestQp(), 0x010203u);
    EXPECT_TRUE(w.GetAckReq());
    EXPECT_EQ(w.GetPsn(), 0u);
    // Serializing what was parsed gives the same bytes back.
    EXPECT_EQ(Serialized(w), flags);
}

TEST(RoceHeadersTest, RethLayout)
{
    RoceRethHeader reth;
    reth.SetVirtualAddress(0x0102030405060708ULL);
    reth.SetRkey(0xA1B2C3D4);
    reth.SetDmaLength(0x00100000);
    const Bytes expected{0x01,
                         0x02,
                         0x03,
                         0x04,
                         0x05,
                         0x06,
                         0x07,
                         0x08,
                         0xA1,
                         0xB2,
                         0xC3,
                         0xD4,
                         0x00,
                         0x10,
                         0x00,
                         0x00};
    EXPECT_EQ(RoceRethHeader::SIZE, 16u);
    EXPECT_EQ(Serialized(reth), expected);
    auto back = Parsed<RoceRethHeader>(expected);
    EXPECT_EQ(back.GetVirtualAddress(), 0x0102030405060708ULL);
    EXPECT_EQ(back.GetRkey(), 0xA1B2C3D4u);
    EXPECT_EQ(back.GetDmaLength(), 0x00100000u);
}

// A whole WRITE_FIRST transport packet: BTH, RETH, payload, ICRC.
TEST(RoceHeadersTest, WriteFirstPacketOrder)
{
    const Bytes payload{0xDE, 0xAD, 0xBE, 0xEF};
    Ptr<Packet> p = Create<Packet>(payload.data(), static_cast<uint32_t>(payload.size()));
    RoceRethHeader reth;
    reth.SetVirtualAddress(0x10);
    reth.SetRkey(0x20);
    reth.SetDmaLength(4);
    p->AddHeader(reth);
    RoceBthHeader bth;
    bth.SetOpcode(RoceBthHeader::WRITE_FIRST);
    bth.SetDestQp(0x000007);
    bth.SetPsn(0x000100);
    p->AddHeader(bth);
    RoceIcrcTrailer icrc;
    icrc.SetIcrc(0x11223344);
    p->AddTrailer(icrc);

    const Bytes expected{
        0x06, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x01, 0x00, // BTH
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20, // RETH
        0x00, 0x00, 0x00, 0x04,                                                 //
        0xDE, 0xAD, 0xBE, 0xEF,                                                 // payload
        0x11, 0x22, 0x33, 0x44,                                                 // ICRC
    };
    EXPECT_EQ(p->GetSize(), 12u + 16u + 4u + 4u);
    EXPECT_EQ(WireBytes(p), expected);
}

TEST(RoceHeadersTest, AethSyndromeAndMsn)
{
    EXPECT_EQ(RoceAethHeader::SIZE, 4u);

    RoceAethHeader nak;
    nak.SetType(RoceAethHeader::NAK, RoceAethHeader::PSN_SEQUENCE_ERROR);
    nak.SetMsn(0x010203);
    EXPECT_EQ(Serialized(nak), (Bytes{0x60, 0x01, 0x02, 0x03}));
    EXPECT_TRUE(nak.IsNak());

    RoceAethHeader ack;
    ack.SetType(RoceAethHeader::ACK, 0x1F);
    ack.SetMsn(0xFFFFFF);
    EXPECT_EQ(Serialized(ack), (Bytes{0x1F, 0xFF, 0xFF, 0xFF}));
    EXPECT_FALSE(ack.IsNak());

    RoceAethHeader rnr;
    rnr.SetType(RoceAethHeader::RNR_NAK, 0x0E);
    EXPECT_EQ(Serialized(rnr), (Bytes{0x2E, 0x00, 0x00, 0x00}));
    EXPECT_FALSE(rnr.IsNak());

    RoceAethHeader remote;
    remote.SetType(RoceAethHeader::NAK, RoceAethHeader::REMOTE_ACCESS_ERROR);
    EXPECT_EQ(Serialized(remote)[0], 0x62);

    // The MSN is 24 bits; the code field 5 bits.
    RoceAethHeader wide;
    wide.SetType(RoceAethHeader::ACK, 0xFF);
    wide.SetMsn(0x12345678);
    EXPECT_EQ(wide.GetType(), RoceAethHeader::ACK);
    EXPECT_EQ(wide.GetCode(), 0x1F);
    EXPECT_EQ(wide.GetMsn(), 0x345678u);
    EXPECT_EQ(Serialized(wide), (Bytes{0x1F, 0x34, 0x56, 0x78}));
}

TEST(RoceHeadersTest, AethParsesWireBytes)
{
    auto a = Parsed<RoceAethHeader>(Bytes{0x63, 0xAB, 0xCD, 0xEF});
    EXPECT_EQ(a.GetSyndrome(), 0x63);
    EXPECT_EQ(a.GetType(), RoceAethHeader::NAK);
    EXPECT_EQ(a.GetCode(), RoceAethHeader::REMOTE_OPERATIONAL_ERROR);
    EXPECT_TRUE(a.IsNak());
    EXPECT_EQ(a.GetMsn(), 0xABCDEFu);
}

// An ACK packet: BTH (opcode 0x11) followed by the AETH.
TEST(RoceHeadersTest, AckPacketOrder)
{
    Ptr<Packet> p = Create<Packet>();
    RoceAethHeader aeth;
    aeth.SetType(RoceAethHeader::NAK, RoceAethHeader::PSN_SEQUENCE_ERROR);
    aeth.SetMsn(0x000042);
    p->AddHeader(aeth);
    RoceBthHeader bth;
    bth.SetOpcode(RoceBthHeader::ACKNOWLEDGE);
    bth.SetDestQp(0x000033);
    bth.SetPsn(0xFFFFFF);
    p->AddHeader(bth);
    EXPECT_EQ(WireBytes(p),
              (Bytes{0x11,
                     0x00,
                     0xFF,
                     0xFF,
                     0x00,
                     0x00,
                     0x00,
                     0x33,
                     0x00,
                     0xFF,
                     0xFF,
                     0xFF,
                     0x60,
                     0x00,
                     0x00,
                     0x42}));
}

TEST(RoceHeadersTest, PfcFrameBody)
{
    EXPECT_EQ(RocePfcHeader::ETHERTYPE, 0x8808);
    EXPECT_EQ(RocePfcHeader::OPCODE, 0x0101);
    // 14 B Ethernet header + 46 B = the 60-byte minimum frame before the FCS.
    EXPECT_EQ(RocePfcHeader::SIZE + 14u, 60u);

    RocePfcHeader pfc;
    pfc.SetPause(3, 0xFFFF);
    pfc.SetPause(0, 0x0010);
    Bytes expected{0x01, 0x01, // opcode
                   0x00, 0x09, // class-enable vector: priorities 0 and 3
                   0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF,  // quanta 0-3
                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}; // quanta 4-7
    expected.resize(46, 0x00);                                      // padding
    EXPECT_EQ(Serialized(pfc), expected);
    EXPECT_EQ(pfc.GetClassEnable(), 0x0009);
    EXPECT_TRUE(pfc.IsEnabled(0));
    EXPECT_TRUE(pfc.IsEnabled(3));
    EXPECT_FALSE(pfc.IsEnabled(1));
    EXPECT_FALSE(pfc.IsEnabled(8));
    EXPECT_EQ(pfc.GetQuanta(3), 0xFFFF);
}

TEST(RoceHeadersTest, PfcXonAndAllPriorities)
{
    // XON: the class is enabled with a pause time of zero.
    RocePfcHeader xon;
    xon.SetPause(3, 0);
    auto bytes = Serialized(xon);
    ASSERT_EQ(bytes.size(), 46u);
    EXPECT_EQ(bytes[0], 0x01);
    EXPECT_EQ(bytes[1], 0x01);
    EXPECT_EQ(bytes[2], 0x00);
    EXPECT_EQ(bytes[3], 0x08);
    for (size_t i = 4; i < bytes.size(); ++i)
    {
        EXPECT_EQ(bytes[i], 0x00) << "byte " << i;
    }

    // Priority 7 is the last quantum; bit 7 of the vector.
    RocePfcHeader all;
    for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
    {
        all.SetPause(p, static_cast<uint16_t>(0x0100 + p));
    }
    bytes = Serialized(all);
    EXPECT_EQ(bytes[2], 0x00);
    EXPECT_EQ(bytes[3], 0xFF);
    for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
    {
        EXPECT_EQ(bytes[4 + 2 * p], 0x01) << "priority " << +p;
        EXPECT_EQ(bytes[5 + 2 * p], p) << "priority " << +p;
    }
}

TEST(RoceHeadersTest, PfcParsesWireBytes)
{
    Bytes wire{0x01, 0x01, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
               0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0x00, 0xAB, 0xCD};
    wire.resize(46, 0x00);
    auto pfc = Parsed<RocePfcHeader>(wire);
    EXPECT_EQ(pfc.GetOpcode(), 0x0101);
    EXPECT_EQ(pfc.GetClassEnable(), 0x0090);
    EXPECT_TRUE(pfc.IsEnabled(4));
    EXPECT_TRUE(pfc.IsEnabled(7));
    EXPECT_FALSE(pfc.IsEnabled(3));
    EXPECT_EQ(pfc.GetQuanta(4), 0x1234);
    EXPECT_EQ(pfc.GetQuanta(7), 0xABCD);
    EXPECT_EQ(pfc.GetQuanta(0), 0);
}

TEST(RoceHeadersTest, RawBytesReadAcrossTheZeroArea)
{
    // 3 header bytes, 7 zero bytes ns-3 keeps virtual, 6 trailer bytes: raw
    // reads by words (RoceReadBytes) give every byte, wherever a word
    // straddles the virtual zeros, at every offset from either end.
    const std::vector<uint8_t> head = {0xA1, 0xA2, 0xA3};
    const std::vector<uint8_t> tail = {0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6};
    Ptr<Packet> p = Create<Packet>(7);
    p->AddHeader(RoceRawHeader(head.data(), head.size()));
    p->AddTrailer(RoceRawTrailer(tail.data(), tail.size()));
    std::vector<uint8_t> frame(p->GetSize());
    p->CopyData(frame.data(), frame.size()); // byte by byte, ns-3's own read
    ASSERT_EQ(frame.size(), 16u);
    for (uint32_t n = 1; n <= frame.size(); ++n)
    {
        RoceRawTrailer t;
        t.SetSize(n);
        p->PeekTrailer(t);
        EXPECT_EQ(std::vector<uint8_t>(t.GetBytes(), t.GetBytes() + n),
                  std::vector<uint8_t>(frame.end() - n, frame.end()))
            << "last " << n << " bytes";
        RoceRawHeader h;
        h.SetSize(n);
        p->PeekHeader(h);
        EXPECT_EQ(std::vector<uint8_t>(h.GetBytes(), h.GetBytes() + n),
                  std::vector<uint8_t>(frame.begin(), frame.begin() + n))
            << "first " << n << " bytes";
    }
}
