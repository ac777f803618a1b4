/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-mpi-link.h"

#include "roce-channel.h"
#include "roce-pfc-net-device.h"

#include "ns3/ethernet-header.h"
#include "ns3/header.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/roce-error.h"
#include "ns3/roce-ordered-scheduler.h"
#include "ns3/roce-pfc-header.h"
#include "ns3/roce-rank-call.h"
#include "ns3/simulator.h"

#include <map>
#include <vector>

namespace ns3
{

namespace
{

uint64_t g_framesSent = 0; //!< frames this rank sent to other ranks
uint64_t g_pfcSent = 0;    //!< PFC frames among g_framesSent
uint64_t g_callsSent = 0;  //!< RoceRankCall calls this rank sent to other ranks

/**
 * What a frame on the cut carries besides itself: when it left, how long
 * its serialization takes, and the order key of its receive event.
 */
class RoceMpiOrderHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RoceMpiOrderHeader")
                                .SetParent<Header>()
                                .SetGroupName("Rocev2")
                                .AddConstructor<RoceMpiOrderHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 8 * 5 + 2;
    }

    void Serialize(Buffer::Iterator i) const override
    {
        i.WriteU64(sentAt);
        i.WriteU64(txTime);
        i.WriteU64(key.scheduledAt);
        i.WriteU64(key.context);
        i.WriteU64(key.seq);
        i.WriteU8(hasKey ? 1 : 0);
        i.WriteU8(call ? 1 : 0);
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        sentAt = i.ReadU64();
        txTime = i.ReadU64();
        key.scheduledAt = i.ReadU64();
        key.context = i.ReadU64();
        key.seq = i.ReadU64();
        hasKey = i.ReadU8() != 0;
        call = i.ReadU8() != 0;
        return GetSerializedSize();
    }

    void Print(std::ostream& os) const override
    {
        os << "sent=" << sentAt << " tx=" << txTime << " key=" << key.scheduledAt << "/"
           << key.context << "/" << key.seq;
    }

    uint64_t sentAt{0};            //!< time step the first bit left
    uint64_t txTime{0};            //!< serialization time, in time steps
    RoceOrderedScheduler::Key key; //!< the receive event's order
    bool hasKey{false};            //!< key is set (RoceOrderedScheduler active)
    bool call{false};              //!< a RoceRankCall (sentAt: when it runs, 0 for a Deliver)
};

/** A RoceRankCall between ranks: its target node, service and words. */
class RoceMpiCallHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RoceMpiCallHeader")
                                .SetParent<Header>()
                                .SetGroupName("Rocev2")
                                .AddConstructor<RoceMpiCallHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 12 + 8 * words.size();
    }

    void Serialize(Buffer::Iterator i) const override
    {
        i.WriteU32(node);
        i.WriteU32(service);
        i.WriteU32(words.size());
        for (uint64_t w : words)
        {
            i.WriteU64(w);
        }
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        node = i.ReadU32();
        service = i.ReadU32();
        words.resize(i.ReadU32());
        for (uint64_t& w : words)
        {
            w = i.ReadU64();
        }
        return GetSerializedSize();
    }

    void Print(std::ostream& os) const override
    {
        os << "node=" << node << " service=" << service << " words=" << words.size();
    }

    uint32_t node{0};            //!< target node
    uint32_t service{0};         //!< RoceRankCall service
    std::vector<uint64_t> words; //!< its words
};

/** Where calls for each rank go: a device of that rank on the cut, and this rank's lookahead. */
struct RoceMpiCallRoutes
{
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> anchor; //!< rank -> (node, ifIndex)
    Time lookahead = Time::Max();                             //!< smallest local cut delay
};

RoceMpiCallRoutes g_routes; //!< this process's routes

/** \brief Send a RoceRankCall to another rank (the RoceRankCall transport). */
void
SendCall(uint32_t node,
         uint32_t rank,
         Time at,
         uint32_t service,
         const std::vector<uint64_t>& words)
{
    auto it = g_routes.anchor.find(rank);
    ROCE_ERROR_IF(it == g_routes.anchor.end(),
                  "RoceMpiLink: rank " << rank << " (node " << node
                                       << ") has no link on the cut to receive calls on");
    RoceMpiCallHeader c;
    c.node = node;
    c.service = service;
    c.words = words;
    RoceMpiOrderHeader h;
    h.call = true;
    h.sentAt = at.GetTimeStep();
    if (!at.IsZero() && RoceOrderedScheduler::IsActive())
    {
        h.key = RoceOrderedScheduler::Reserve();
        h.hasKey = true;
    }
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(c);
    ++g_callsSent;
    p->AddHeader(h);
    MpiInterface::SendPacket(p,
                             Simulator::Now() + g_routes.lookahead,
                             it->second.first,
                             it->second.second);
}

/** The sending side of one cut link. */
struct RoceMpiLinkEnd
{
    uint32_t peerNode{0}; //!< the peer's node id
    uint32_t peerIf{0};   //!< the peer device's ifIndex on its node
    Time delay;           //!< the link's delay

    /** \param p a frame the local end transmits \param txTime its serialization time */
    void Send(Ptr<Packet> p, Time txTime)
    {
        RoceMpiOrderHeader h;
        h.sentAt = Simulator::Now().GetTimeStep();
        h.txTime = txTime.GetTimeStep();
        if (RoceOrderedScheduler::IsActive())
        {
            h.key = RoceOrderedScheduler::Reserve();
            h.hasKey = true;
        }
        Ptr<Packet> copy = p->Copy();
        EthernetHeader eth(false);
        if (copy->PeekHeader(eth) > 0 && eth.GetLengthType() == RocePfcHeader::ETHERTYPE)
        {
            ++g_pfcSent;
        }
        copy->AddHeader(h);
        ++g_framesSent;
        MpiInterface::SendPacket(copy, Simulator::Now() + delay, peerNode, peerIf);
    }
};

/** The receiving side: from the MPI layer's event at the first bit to the device at the last. */
struct RoceMpiLinkRx
{
    RocePfcNetDevice* device{nullptr}; //!< the local end
    Time delay;                        //!< the link's delay

    /** \param p a frame from the peer's rank, with its RoceMpiOrderHeader */
    void Deliver(Ptr<Packet> p)
    {
        RoceMpiOrderHeader h;
        p->RemoveHeader(h);
        if (h.call)
        {
            RoceMpiCallHeader c;
            p->RemoveHeader(c);
            if (h.hasKey && RoceOrderedScheduler::IsActive())
            {
                RoceOrderedScheduler::SetNextKey(h.key);
            }
            RoceRankCall::Arrived(c.node, TimeStep(h.sentAt), c.service, std::move(c.words));
            return;
        }
        Time at = TimeStep(h.sentAt + h.txTime) + delay;
        if (h.hasKey && RoceOrderedScheduler::IsActive())
        {
            RoceOrderedScheduler::SetNextKey(h.key);
        }
        Simulator::Schedule(at - Simulator::Now(), &RocePfcNetDevice::Receive, device, p);
    }
};

} // namespace

NS_OBJECT_ENSURE_REGISTERED(RoceMpiOrderHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceMpiCallHeader);

void
RoceMpiLink::AddCutEnd(Ptr<RocePfcNetDevice> device)
{
    const uint32_t rank = device->GetNode()->GetSystemId();
    g_routes.anchor.emplace(rank, std::make_pair(device->GetNode()->GetId(), device->GetIfIndex()));
}

void
RoceMpiLink::Connect(Ptr<RoceChannel> channel, Ptr<RocePfcNetDevice> local)
{
    ROCE_ERROR_IF(!channel || !local, "RoceMpiLink::Connect: null channel or device");
    Ptr<RocePfcNetDevice> peer = channel->GetPeer(PeekPointer(local));
    ROCE_ERROR_IF(!peer, "RoceMpiLink::Connect: the link has no device at its other end");
    const uint32_t here = local->GetNode()->GetSystemId();
    const uint32_t there = peer->GetNode()->GetSystemId();
    ROCE_ERROR_IF(channel->GetDelay().IsZero(),
                  "partition: the link between node "
                      << local->GetNode()->GetId() << " (rank " << here << ") and node "
                      << peer->GetNode()->GetId() << " (rank " << there
                      << ") is on the cut with a delay of 0; a link between ranks needs a "
                         "positive delay (it is the lookahead of the distributed simulator)");
    ROCE_ERROR_IF(local->GetObject<MpiReceiver>(),
                  "RoceMpiLink::Connect: device " << local->GetIfIndex() << " of node "
                                                  << local->GetNode()->GetId()
                                                  << " is already on the cut");

    auto end = std::make_shared<RoceMpiLinkEnd>();
    end->peerNode = peer->GetNode()->GetId();
    end->peerIf = peer->GetIfIndex();
    end->delay = channel->GetDelay();
    channel->Cut(
        PeekPointer(local),
        RoceChannel::RemoteSendCallback(
            [end](Ptr<Packet> p, Time txTime, const RocePfcNetDevice*) { end->Send(p, txTime); }));

    auto rx = std::make_shared<RoceMpiLinkRx>();
    rx->device = PeekPointer(local);
    rx->delay = channel->GetDelay();
    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
    receiver->SetReceiveCallback(
        Callback<void, Ptr<Packet>>([rx](Ptr<Packet> p) { rx->Deliver(p); }));
    local->AggregateObject(receiver);
    g_routes.lookahead = std::min(g_routes.lookahead, channel->GetDelay());
    RoceRankCall::SetTransport(MakeCallback(&SendCall), g_routes.lookahead);
}

uint64_t
RoceMpiLink::GetFramesSent()
{
    return g_framesSent;
}

uint64_t
RoceMpiLink::GetPfcFramesSent()
{
    return g_pfcSent;
}

uint64_t
RoceMpiLink::GetCallsSent()
{
    return g_callsSent;
}

} // namespace ns3
