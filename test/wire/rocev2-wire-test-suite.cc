/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/roce-aeth-header.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-encap-header.h"
#include "ns3/roce-header-block.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-header.h"
#include "ns3/roce-psn.h"
#include "ns3/roce-reth-header.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

/**
 * \param p a packet
 * \return its bytes
 */
std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

/**
 * \param a bytes of a frame
 * \param b bytes of another frame
 * \return the first index where a and b differ, or -1
 */
int
FirstDifference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b)
{
    if (a.size() != b.size())
    {
        return static_cast<int>(std::min(a.size(), b.size()));
    }
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        if (a[i] != b[i])
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

/**
 * \param sport UDP source port
 * \param dscp DSCP
 * \param ecn ECN codepoint
 * \return an encapsulation with fixed addresses
 */
RoceEncapHeader
MakeEncap(uint16_t sport, uint8_t dscp, uint8_t ecn)
{
    RoceEncapHeader encap;
    encap.SetMacs(Mac48Address("00:00:00:00:00:01"), Mac48Address("02:11:22:33:44:55"));
    encap.SetAddresses(Ipv4Address("10.0.0.1"), Ipv4Address("10.255.3.200"));
    encap.SetDscp(dscp);
    encap.SetEcn(ecn);
    encap.SetSourcePort(sport);
    return encap;
}

/**
 * \param p a frame starting with its Ethernet header
 * \return true if its IPv4 header checksum verifies with ns-3's Ipv4Header
 */
bool
Ipv4ChecksumOk(Ptr<const Packet> p)
{
    Ptr<Packet> c = p->Copy();
    c->RemoveAtStart(14);
    Ipv4Header ip;
    ip.EnableChecksum();
    c->RemoveHeader(ip);
    return ip.IsChecksumOk() && ip.GetPayloadSize() == c->GetSize();
}

} // namespace

/**
 * \ingroup rocev2
 * Round trip of every RoCEv2 header through a Packet, at field limits, plus
 * byte-level checks of the layouts against DESIGN §4.
 */
class RoceHeaderRoundTripTestCase : public TestCase
{
  public:
    RoceHeaderRoundTripTestCase()
        : TestCase("BTH, RETH, AETH, ICRC and PFC serialize and deserialize at field limits")
    {
    }

  private:
    void DoRun() override
    {
        // BTH at limits: 24-bit QPN and PSN, all flag bits.
        for (uint32_t psn : {0u, 1u, 0x7FFFFFu, 0x800000u, 0xFFFFFFu})
        {
            RoceBthHeader bth;
            bth.SetOpcode(RoceBthHeader::WRITE_MIDDLE);
            bth.SetSolicitedEvent(true);
            bth.SetMigReq(true);
            bth.SetPadCount(3);
            bth.SetPkey(0xABCD);
            bth.SetFecn(true);
            bth.SetBecn(true);
            bth.SetDestQp(0xFFFFFF);
            bth.SetAckReq(true);
            bth.SetPsn(psn);
            Ptr<Packet> p = Create<Packet>();
            p->AddHeader(bth);
            NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 12, "BTH is 12 bytes");
            uint8_t b[12];
            p->CopyData(b, 12);
            NS_TEST_ASSERT_MSG_EQ(+b[0], 0x07, "opcode at byte 0");
            NS_TEST_ASSERT_MSG_EQ(+b[1], 0xF0, "SE|M|Pad=3|TVer=0 at byte 1");
            NS_TEST_ASSERT_MSG_EQ(+b[2], 0xAB, "P_Key high byte");
            NS_TEST_ASSERT_MSG_EQ(+b[4], 0xC0, "FECN|BECN in byte 4");
            NS_TEST_ASSERT_MSG_EQ(+b[5], 0xFF, "DestQP byte 5");
            NS_TEST_ASSERT_MSG_EQ(+b[8], 0x80, "AckReq at byte 8 bit 7");
            NS_TEST_ASSERT_MSG_EQ(uint32_t((b[9] << 16) | (b[10] << 8) | b[11]),
                                  psn,
                                  "PSN in bytes 9-11");
            RoceBthHeader r;
            p->RemoveHeader(r);
            NS_TEST_ASSERT_MSG_EQ(+r.GetOpcode(), +RoceBthHeader::WRITE_MIDDLE, "opcode");
            NS_TEST_ASSERT_MSG_EQ(r.GetSolicitedEvent(), true, "SE");
            NS_TEST_ASSERT_MSG_EQ(r.GetMigReq(), true, "M");
            NS_TEST_ASSERT_MSG_EQ(+r.GetPadCount(), 3, "pad");
            NS_TEST_ASSERT_MSG_EQ(r.GetPkey(), 0xABCD, "pkey");
            NS_TEST_ASSERT_MSG_EQ(r.GetFecn(), true, "FECN");
            NS_TEST_ASSERT_MSG_EQ(r.GetBecn(), true, "BECN");
            NS_TEST_ASSERT_MSG_EQ(r.GetDestQp(), 0xFFFFFFu, "QPN keeps 24 bits");
            NS_TEST_ASSERT_MSG_EQ(r.GetAckReq(), true, "AckReq");
            NS_TEST_ASSERT_MSG_EQ(r.GetPsn(), psn, "PSN");
        }
        // Values beyond 24 bits are truncated, never spill into other fields.
        RoceBthHeader big;
        big.SetDestQp(0x1ABCDEF);
        big.SetPsn(0x1000002);
        NS_TEST_ASSERT_MSG_EQ(big.GetDestQp(), 0xABCDEFu, "QPN masked to 24 bits");
        NS_TEST_ASSERT_MSG_EQ(big.GetPsn(), 2u, "PSN wraps at 2^24");

        RoceRethHeader reth;
        reth.SetVirtualAddress(0xFFFFFFFFFFFFFFFFULL);
        reth.SetRkey(0xFFFFFFFF);
        reth.SetDmaLength(0xFFFFFFFF);
        Ptr<Packet> p = Create<Packet>();
        p->AddHeader(reth);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 16, "RETH is 16 bytes");
        RoceRethHeader reth2;
        p->RemoveHeader(reth2);
        NS_TEST_ASSERT_MSG_EQ(reth2.GetVirtualAddress(), 0xFFFFFFFFFFFFFFFFULL, "VA");
        NS_TEST_ASSERT_MSG_EQ(reth2.GetRkey(), 0xFFFFFFFFu, "R_Key");
        NS_TEST_ASSERT_MSG_EQ(reth2.GetDmaLength(), 0xFFFFFFFFu, "DMA length");

        RoceAethHeader aeth;
        aeth.SetType(RoceAethHeader::NAK, RoceAethHeader::PSN_SEQUENCE_ERROR);
        aeth.SetMsn(0xFFFFFF);
        p = Create<Packet>();
        p->AddHeader(aeth);
        uint8_t ab[4];
        p->CopyData(ab, 4);
        NS_TEST_ASSERT_MSG_EQ(+ab[0], 0x60, "NAK syndrome 011 00000");
        RoceAethHeader aeth2;
        p->RemoveHeader(aeth2);
        NS_TEST_ASSERT_MSG_EQ(aeth2.IsNak(), true, "NAK");
        NS_TEST_ASSERT_MSG_EQ(+aeth2.GetCode(), 0, "PSN sequence error");
        NS_TEST_ASSERT_MSG_EQ(aeth2.GetMsn(), 0xFFFFFFu, "MSN 24 bits");

        RoceIcrcTrailer icrc;
        icrc.SetIcrc(0xDEADBEEF);
        p = Create<Packet>(100);
        p->AddTrailer(icrc);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 104, "ICRC adds 4 bytes");
        RoceIcrcTrailer icrc2;
        p->RemoveTrailer(icrc2);
        NS_TEST_ASSERT_MSG_EQ(icrc2.GetIcrc(), 0xDEADBEEFu, "ICRC value");

        RocePfcHeader pfc;
        pfc.SetPause(0, 0);
        pfc.SetPause(7, 0xFFFF);
        pfc.SetPause(3, 1234);
        p = Create<Packet>();
        p->AddHeader(pfc);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 46, "PFC body padded to a 60-byte frame with L2");
        uint8_t pb[20];
        p->CopyData(pb, 20);
        NS_TEST_ASSERT_MSG_EQ(((pb[0] << 8) | pb[1]), 0x0101, "PFC opcode");
        NS_TEST_ASSERT_MSG_EQ(((pb[2] << 8) | pb[3]), 0x89, "class-enable vector bits 0,3,7");
        NS_TEST_ASSERT_MSG_EQ(((pb[18] << 8) | pb[19]), 0xFFFF, "priority 7 quanta");
        RocePfcHeader pfc2;
        p->RemoveHeader(pfc2);
        NS_TEST_ASSERT_MSG_EQ(pfc2.IsEnabled(0), true, "p0 enabled (XON)");
        NS_TEST_ASSERT_MSG_EQ(pfc2.GetQuanta(0), 0, "p0 quanta 0");
        NS_TEST_ASSERT_MSG_EQ(pfc2.IsEnabled(1), false, "p1 not enabled");
        NS_TEST_ASSERT_MSG_EQ(pfc2.GetQuanta(3), 1234, "p3 quanta");
        NS_TEST_ASSERT_MSG_EQ(pfc2.GetQuanta(7), 0xFFFF, "p7 quanta");
    }
};

/**
 * \ingroup rocev2
 * 24-bit PSN arithmetic across the wrap.
 */
class RocePsnTestCase : public TestCase
{
  public:
    RocePsnTestCase()
        : TestCase("24-bit PSN distance and unwrap across 2^24")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(RocePsn::Diff(0, 0xFFFFFF), 1, "0 follows 0xFFFFFF");
        NS_TEST_ASSERT_MSG_EQ(RocePsn::Diff(0xFFFFFF, 0), -1, "0xFFFFFF precedes 0");
        NS_TEST_ASSERT_MSG_EQ(RocePsn::Diff(5, 0xFFFFFA), 11, "distance across the wrap");
        NS_TEST_ASSERT_MSG_EQ(RocePsn::Unwrap(3, (1ULL << 24) - 2),
                              (1ULL << 24) + 3,
                              "unwrap forward");
        NS_TEST_ASSERT_MSG_EQ(RocePsn::Unwrap(0xFFFFFE, (1ULL << 24) + 1),
                              (1ULL << 24) - 2,
                              "unwrap backward");
        NS_TEST_ASSERT_MSG_EQ(RocePsn::ToWire((5ULL << 24) + 7), 7u, "wire PSN keeps 24 bits");
    }
};

/**
 * \ingroup rocev2
 * A RoceHeaderBlock reused as a template, patched per packet, gives the
 * bytes that RoceEncapHeader + RoceBthHeader [+ RoceRethHeader] +
 * RoceIcrcTrailer give today, and a checksum ns-3's Ipv4Header accepts.
 */
class RoceHeaderBlockDataTestCase : public TestCase
{
  public:
    RoceHeaderBlockDataTestCase()
        : TestCase("Header block of data packets: same bytes as the separate headers")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            uint8_t op;
            uint32_t psn;
            uint32_t payload;
            bool ackReq;
            bool intRequest;
        };

        const std::vector<Case> cases{
            {RoceBthHeader::SEND_ONLY, 0, 1, true, false},
            {RoceBthHeader::WRITE_FIRST, 1, 1024, false, false},
            {RoceBthHeader::WRITE_MIDDLE, 0x7FFFFF, 1023, false, true},
            {RoceBthHeader::WRITE_LAST, 0xFFFFFF, 1022, true, false},
            {RoceBthHeader::WRITE_ONLY, 0x123456, 4093, true, true},
            {RoceBthHeader::SEND_FIRST, 77, 9000, false, false},
            {RoceBthHeader::SEND_MIDDLE, 78, 8999, false, false},
            {RoceBthHeader::SEND_LAST, 79, 2, true, false},
            {RoceBthHeader::WRITE_FIRST, 0xABCDEF, 256, false, true},
            {RoceBthHeader::SEND_ONLY, 3, 0, true, false},
        };
        for (uint16_t sport : {uint16_t(0xC000), uint16_t(0xFFFF), uint16_t(49321)})
        {
            for (uint8_t dscp : {uint8_t(0), uint8_t(26), uint8_t(63)})
            {
                RoceEncapHeader encap = MakeEncap(sport, dscp, Ipv4Header::ECN_ECT0);
                RoceBthHeader base;
                base.SetDestQp(0xABCDE1);
                RoceHeaderBlock block; // one template, patched for every packet
                block.SetEncap(encap);
                block.SetBth(base);
                for (const Case& c : cases)
                {
                    uint8_t pad = static_cast<uint8_t>((4 - (c.payload & 3)) & 3);
                    bool reth =
                        c.op == RoceBthHeader::WRITE_FIRST || c.op == RoceBthHeader::WRITE_ONLY;
                    uint64_t va = 0x0102030405060708ULL * c.psn;
                    uint32_t rkey = 0xCAFE0000u + c.psn;
                    uint32_t dmaLength = c.payload * 7 + 1;

                    Ptr<Packet> old = Create<Packet>(c.payload + pad);
                    old->AddTrailer(RoceIcrcTrailer());
                    if (reth)
                    {
                        RoceRethHeader r;
                        r.SetVirtualAddress(va);
                        r.SetRkey(rkey);
                        r.SetDmaLength(dmaLength);
                        old->AddHeader(r);
                    }
                    RoceBthHeader bth = base;
                    bth.SetOpcode(c.op);
                    bth.SetPsn(c.psn);
                    bth.SetAckReq(c.ackReq);
                    bth.SetIntRequest(c.intRequest);
                    bth.SetPadCount(pad);
                    old->AddHeader(bth);
                    old->AddHeader(encap);

                    Ptr<Packet> p = Create<Packet>(c.payload + pad + RoceIcrcTrailer::SIZE);
                    block.SetOpcode(c.op);
                    block.SetPsn(c.psn);
                    block.SetAckReq(c.ackReq);
                    block.SetIntRequest(c.intRequest);
                    block.SetPadCount(pad);
                    if (reth)
                    {
                        block.SetReth(va, rkey, dmaLength);
                    }
                    else
                    {
                        block.ClearExtension();
                    }
                    p->AddHeader(block);

                    NS_TEST_ASSERT_MSG_EQ(FirstDifference(Bytes(old), Bytes(p)),
                                          -1,
                                          "frame bytes differ: op "
                                              << +c.op << " psn " << c.psn << " payload "
                                              << c.payload << " sport " << sport << " dscp "
                                              << +dscp);
                    NS_TEST_ASSERT_MSG_EQ(Ipv4ChecksumOk(p),
                                          true,
                                          "IPv4 checksum, payload " << c.payload);
                    NS_TEST_ASSERT_MSG_EQ(block.GetSerializedSize(),
                                          (reth ? 70u : 54u),
                                          "block size with/without RETH");

                    // The block reads back what it wrote.
                    RoceHeaderBlock back;
                    p->RemoveHeader(back);
                    NS_TEST_ASSERT_MSG_EQ(back.GetSerializedSize(),
                                          block.GetSerializedSize(),
                                          "deserialized size follows the opcode");
                    NS_TEST_ASSERT_MSG_EQ(back.GetPsn(), c.psn, "PSN read back");
                    NS_TEST_ASSERT_MSG_EQ(+back.GetOpcode(), +c.op, "opcode read back");
                    NS_TEST_ASSERT_MSG_EQ(back.GetSourcePort(), sport, "UDP source port");
                    NS_TEST_ASSERT_MSG_EQ(+back.GetDscp(), +dscp, "DSCP");
                    NS_TEST_ASSERT_MSG_EQ(p->GetSize(),
                                          c.payload + pad + RoceIcrcTrailer::SIZE,
                                          "payload and ICRC remain");
                    // A deserialized block serializes the same frame again.
                    p->AddHeader(back);
                    NS_TEST_ASSERT_MSG_EQ(FirstDifference(Bytes(old), Bytes(p)),
                                          -1,
                                          "re-serialized block");
                }
            }
        }
    }
};

/**
 * \ingroup rocev2
 * ACK/NAK frames from a header block match RoceEncapHeader + RoceBthHeader +
 * RoceAethHeader + RoceIcrcTrailer byte for byte.
 */
class RoceHeaderBlockAckTestCase : public TestCase
{
  public:
    RoceHeaderBlockAckTestCase()
        : TestCase("Header block of ACK and NAK frames: same bytes as the separate headers")
    {
    }

  private:
    void DoRun() override
    {
        RoceEncapHeader encap = MakeEncap(0xC123, 24, Ipv4Header::ECN_NotECT);
        RoceBthHeader base;
        base.SetOpcode(RoceBthHeader::ACKNOWLEDGE);
        base.SetDestQp(0x000102);
        RoceHeaderBlock block;
        block.SetEncap(encap);
        block.SetBth(base);
        uint32_t n = 0;
        for (uint32_t psn : {0u, 1u, 0x800000u, 0xFFFFFFu})
        {
            for (bool nak : {false, true})
            {
                for (bool becn : {false, true})
                {
                    uint32_t msn = (psn * 31 + n++) & 0xFFFFFF;
                    RoceAethHeader aeth;
                    if (nak)
                    {
                        aeth.SetType(RoceAethHeader::NAK, RoceAethHeader::PSN_SEQUENCE_ERROR);
                    }
                    else
                    {
                        aeth.SetType(RoceAethHeader::ACK, 0x1F);
                    }
                    aeth.SetMsn(msn);
                    RoceBthHeader bth = base;
                    bth.SetPsn(psn);
                    bth.SetBecn(becn);
                    Ptr<Packet> old = Create<Packet>();
                    old->AddTrailer(RoceIcrcTrailer());
                    old->AddHeader(aeth);
                    old->AddHeader(bth);
                    old->AddHeader(encap);

                    block.SetPsn(psn);
                    block.SetBecn(becn);
                    block.SetIntHops(0);
                    block.SetAeth(aeth.GetSyndrome(), msn);
                    Ptr<Packet> p = Create<Packet>(RoceIcrcTrailer::SIZE);
                    p->AddHeader(block);
                    NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 62u, "ACK frame: 42 + 12 + 4 + 4");
                    NS_TEST_ASSERT_MSG_EQ(FirstDifference(Bytes(old), Bytes(p)),
                                          -1,
                                          "ACK bytes differ: psn " << psn << " nak " << nak
                                                                   << " becn " << becn);
                    NS_TEST_ASSERT_MSG_EQ(Ipv4ChecksumOk(p), true, "IPv4 checksum");
                    RoceHeaderBlock back;
                    p->RemoveHeader(back);
                    NS_TEST_ASSERT_MSG_EQ(back.GetExtension(),
                                          RoceHeaderBlock::AETH,
                                          "an ACK block carries an AETH");
                }
            }
        }
        // INT hops patch BTH byte 4 without touching BECN.
        block.SetBecn(true);
        block.SetIntHops(31);
        NS_TEST_ASSERT_MSG_EQ(+block.GetBytes()[RoceHeaderBlock::BTH_OFFSET + 4],
                              0x5F,
                              "BECN and 31 INT hops in BTH byte 4");
        block.SetIntHops(2);
        block.SetBecn(false);
        NS_TEST_ASSERT_MSG_EQ(+block.GetBytes()[RoceHeaderBlock::BTH_OFFSET + 4],
                              0x02,
                              "2 INT hops, BECN clear");
    }
};

/**
 * \ingroup rocev2
 * Wire-format suite.
 */
class RoceWireTestSuite : public TestSuite
{
  public:
    RoceWireTestSuite()
        : TestSuite("rocev2-wire", Type::UNIT)
    {
        AddTestCase(new RoceHeaderRoundTripTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RocePsnTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceHeaderBlockDataTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceHeaderBlockAckTestCase, RoceTestDuration::QUICK);
    }
};

static RoceWireTestSuite g_roceWireTestSuite; //!< static instance
