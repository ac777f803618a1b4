/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/packet.h"
#include "ns3/roce-aeth-header.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-pfc-header.h"
#include "ns3/roce-psn.h"
#include "ns3/roce-reth-header.h"
#include "ns3/test.h"

using namespace ns3;

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
 * Wire-format suite.
 */
class RoceWireTestSuite : public TestSuite
{
  public:
    RoceWireTestSuite()
        : TestSuite("rocev2-wire", UNIT)
    {
        AddTestCase(new RoceHeaderRoundTripTestCase, TestCase::QUICK);
        AddTestCase(new RocePsnTestCase, TestCase::QUICK);
    }
};

static RoceWireTestSuite g_roceWireTestSuite; //!< static instance
