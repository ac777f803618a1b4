/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What a process keeps of the nodes of other MPI ranks: a NIC of another
 * rank reserves QP numbers instead of holding QPs (and refuses to mix
 * both), a QP pair between NICs of two ranks is held only at this rank's
 * end, and a link that this rank does not build is a RoceAbsentDevice that
 * says what the link is and refuses to send (at a host it keeps the NIC's
 * address and QP numbers).
 */
#include "roce-gtest-error.h"

#include "ns3/channel.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/roce-absent-device.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-nic-endpoint.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-rank-call.h"
#include "ns3/roce-switch-port.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(RankLocal, ReservedQpNumbersFollowTheNicsOwnNumbering)
{
    Ptr<RoceNetDevice> remote = CreateObject<RoceNetDevice>();
    EXPECT_EQ(remote->ReserveQpn(), RoceNetDevice::FIRST_QPN);
    EXPECT_EQ(remote->ReserveQpn(), RoceNetDevice::FIRST_QPN + 1);
    EXPECT_EQ(remote->GetNReservedQpns(), 2u);
    EXPECT_EQ(remote->GetNQps(), 0u);
    EXPECT_ROCE_ERROR(remote->AddQp(CreateObject<RoceQueuePair>()),
                      "AddQp on a NIC whose QP numbers are reserved");
    Ptr<RoceNetDevice> local = CreateObject<RoceNetDevice>();
    // A NIC of this rank numbers its QPs the same way.
    EXPECT_EQ(local->AddQp(CreateObject<RoceQueuePair>()), RoceNetDevice::FIRST_QPN);
    EXPECT_ROCE_ERROR(local->ReserveQpn(), "ReserveQpn on a NIC that holds QPs");
}

TEST(RankLocal, PairAcrossRanksIsHeldAtThisRanksEnd)
{
    NodeContainer here;
    here.Create(1, 0);
    NodeContainer there;
    there.Create(1, 1);
    Ptr<RoceNetDevice> a = CreateObject<RoceNetDevice>();
    Ptr<RoceNetDevice> b = CreateObject<RoceNetDevice>();
    a->SetIpv4Address(Ipv4Address("10.0.0.1"));
    b->SetIpv4Address(Ipv4Address("10.0.0.2"));
    here.Get(0)->AddDevice(a);
    there.Get(0)->AddDevice(b);
    // One earlier QP on b's own rank: b's next number is FIRST_QPN + 1.
    b->ReserveQpn();
    Ptr<RoceQueuePair> qa = CreateObject<RoceQueuePair>();
    Ptr<RoceQueuePair> qb = CreateObject<RoceQueuePair>();
    const auto qpns = RoceNetDevice::ConnectPair(a, qa, b, qb);
    EXPECT_EQ(qpns.first, RoceNetDevice::FIRST_QPN);
    EXPECT_EQ(qpns.second, RoceNetDevice::FIRST_QPN + 1);
    EXPECT_EQ(a->GetNQps(), 1u);
    EXPECT_EQ(a->GetQp(qpns.first), qa);
    EXPECT_EQ(qa->GetRemoteQpn(), qpns.second);
    EXPECT_EQ(qa->GetRemoteAddress(), Ipv4Address("10.0.0.2"));
    EXPECT_EQ(qb->GetQpn(), 0u) << "the QP of the other rank's NIC is not taken";
    EXPECT_EQ(b->GetNQps(), 0u);
    EXPECT_EQ(b->GetNReservedQpns(), 2u);
    Simulator::Destroy();
}

TEST(RankLocal, AbsentNicKeepsAddressAndQpNumbers)
{
    NodeContainer here;
    here.Create(1, 0);
    NodeContainer there;
    there.Create(2, 1);
    Ptr<RoceNetDevice> a = CreateObject<RoceNetDevice>();
    a->SetIpv4Address(Ipv4Address("10.0.0.1"));
    here.Get(0)->AddDevice(a);
    // The NIC of a GPU of another rank whose link this rank did not build.
    Ptr<RoceAbsentDevice> b = CreateObject<RoceAbsentDevice>();
    b->SetIpv4Address(Ipv4Address("10.0.0.2"));
    there.Get(0)->AddDevice(b);
    EXPECT_TRUE(RoceNetDevice::IsNic(b));
    EXPECT_EQ(RoceNetDevice::AddressOf(b), Ipv4Address("10.0.0.2"));
    b->ReserveQpn(); // an earlier QP on b's own rank
    Ptr<RoceQueuePair> qa = CreateObject<RoceQueuePair>();
    Ptr<RoceQueuePair> qb = CreateObject<RoceQueuePair>();
    const auto qpns = RoceNetDevice::ConnectPair(a, qa, b, qb);
    EXPECT_EQ(qpns.first, RoceNetDevice::FIRST_QPN);
    EXPECT_EQ(qpns.second, RoceNetDevice::FIRST_QPN + 1);
    EXPECT_EQ(qa->GetRemoteQpn(), qpns.second);
    EXPECT_EQ(qa->GetRemoteAddress(), Ipv4Address("10.0.0.2"));
    EXPECT_EQ(qb->GetQpn(), 0u) << "the stand-in holds no QP";
    EXPECT_EQ(b->GetNReservedQpns(), 2u);
    // A switch port's stand-in is not a NIC: no QP connects to it.
    Ptr<RoceAbsentDevice> port = CreateObject<RoceAbsentDevice>();
    there.Get(1)->AddDevice(port);
    EXPECT_ROCE_ERROR(RoceNetDevice::ConnectPair(a,
                                                 CreateObject<RoceQueuePair>(),
                                                 port,
                                                 CreateObject<RoceQueuePair>()),
                      "interface 0 of node \\d+ is a ns3::RoceAbsentDevice, not a RoCE NIC");
    Simulator::Destroy();
}

TEST(RankLocal, BothNicKindsAnswerAsNicEndpoints)
{
    // A NIC of this process and the stand-in for a NIC of another rank give
    // their address and QP numbers through the one interface; a switch port,
    // a switch port's stand-in and no device at all are no NIC.
    Ptr<RoceNetDevice> nic = CreateObject<RoceNetDevice>();
    nic->SetIpv4Address(Ipv4Address("10.0.0.1"));
    Ptr<RoceAbsentDevice> standIn = CreateObject<RoceAbsentDevice>();
    standIn->SetIpv4Address(Ipv4Address("10.0.1.2"));
    RoceNicEndpoint* a = RoceNicEndpoint::Of(PeekPointer(nic));
    RoceNicEndpoint* b = RoceNicEndpoint::Of(PeekPointer(standIn));
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(a->GetIpv4Address(), Ipv4Address("10.0.0.1"));
    EXPECT_EQ(b->GetIpv4Address(), Ipv4Address("10.0.1.2"));
    // QP numbers start at 2 (QP0 and QP1 are InfiniBand's special QPs).
    EXPECT_EQ(a->ReserveQpn(), 2u);
    EXPECT_EQ(a->ReserveQpn(), 3u);
    EXPECT_EQ(b->ReserveQpn(), 2u);
    EXPECT_EQ(nic->GetNReservedQpns(), 2u);
    EXPECT_EQ(standIn->GetNReservedQpns(), 1u);
    const RoceNicEndpoint* constEnd =
        RoceNicEndpoint::Of(static_cast<const NetDevice*>(PeekPointer(standIn)));
    EXPECT_EQ(constEnd, b);
    Ptr<RoceAbsentDevice> port = CreateObject<RoceAbsentDevice>();
    EXPECT_EQ(RoceNicEndpoint::Of(PeekPointer(port)), nullptr);
    Ptr<RoceSwitchPort> switchPort = CreateObject<RoceSwitchPort>();
    EXPECT_EQ(RoceNicEndpoint::Of(PeekPointer(switchPort)), nullptr);
    EXPECT_EQ(RoceNicEndpoint::Of(static_cast<NetDevice*>(nullptr)), nullptr);
}

TEST(RankLocal, QpNumbersEndAt24Bits)
{
    // A NIC numbers its QPs from FIRST_QPN to the largest 24-bit number,
    // whether it holds them or only reserves them, and refuses one more.
    Ptr<RoceAbsentDevice> nic = CreateObject<RoceAbsentDevice>();
    nic->SetIpv4Address(Ipv4Address("10.0.0.2"));
    uint32_t last = 0;
    for (uint32_t q = RoceNetDevice::FIRST_QPN; q <= RoceBthHeader::QPN_MASK; ++q)
    {
        last = nic->ReserveQpn();
    }
    EXPECT_EQ(last, RoceBthHeader::QPN_MASK);
    EXPECT_ROCE_ERROR(nic->ReserveQpn(), "NIC 10.0.0.2: no QP numbers left \\(16777214 numbered");
    EXPECT_EQ(RoceBthHeader::QpnOfSlot(0, Ipv4Address("10.0.0.3")), RoceNetDevice::FIRST_QPN);
}

TEST(RankLocal, AbsentDeviceStandsForItsLink)
{
    NodeContainer nodes(1);
    Ptr<RoceAbsentDevice> absent = CreateObject<RoceAbsentDevice>();
    nodes.Get(0)->AddDevice(absent);
    RoceLinkEnd link;
    link.peerNode = 7;
    link.peerIf = 3;
    link.rate = DataRate("400Gbps");
    link.peerRate = DataRate("100Gbps");
    link.delay = MicroSeconds(4);
    absent->SetLink(link);
    RoceLinkEnd got;
    ASSERT_TRUE(RoceLinkEnd::Of(absent, &got));
    EXPECT_EQ(got.peerNode, 7u);
    EXPECT_EQ(got.peerIf, 3u);
    EXPECT_EQ(got.rate, DataRate("400Gbps"));
    EXPECT_EQ(got.peerRate, DataRate("100Gbps"));
    EXPECT_EQ(got.delay, MicroSeconds(4));
    EXPECT_EQ(absent->GetChannel(), nullptr);
    EXPECT_FALSE(absent->IsLinkUp());
    EXPECT_ROCE_ERROR(absent->Send(Create<Packet>(64), Mac48Address::GetBroadcast(), 0x0800),
                      "interface 0 of node \\d+ runs on another MPI rank and cannot send");
    // A NIC without a link has no link end.
    Ptr<RoceNetDevice> nic = CreateObject<RoceNetDevice>();
    EXPECT_FALSE(RoceLinkEnd::Of(nic, &got));
    // A switch port's stand-in is no NIC: it has no address and no QPs.
    EXPECT_FALSE(RoceNetDevice::IsNic(absent));
    EXPECT_ROCE_ERROR(absent->ReserveQpn(), "stands in for a switch port, not a NIC");
    EXPECT_ROCE_ERROR(RoceNetDevice::AddressOf(absent), "RoceAbsentDevice is not a RoCE NIC");
    Simulator::Destroy();
}
