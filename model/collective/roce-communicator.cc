/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-communicator.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-error.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-rank-call.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <memory>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCommunicator");
NS_OBJECT_ENSURE_REGISTERED(RoceCommunicator);

TypeId
RoceCommunicator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCommunicator")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceCommunicator>()
            .AddAttribute("QpsPerConnection",
                          "Queue pairs between two NICs of a connection, each with its own UDP "
                          "source port (NCCL_IB_QPS_PER_CONNECTION)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RoceCommunicator::m_qpsPerConnection),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute(
                "QpMode",
                "How messages use a connection's QPs: split (one piece per QP) or rr "
                "(whole messages round-robin)",
                EnumValue(RoceCommunicator::SPLIT),
                RoceMakeEnumAccessor<RoceCommunicator::QpMode>(&RoceCommunicator::m_qpMode),
                MakeEnumChecker(RoceCommunicator::SPLIT,
                                "split",
                                RoceCommunicator::ROUND_ROBIN,
                                "rr"))
            .AddAttribute("ClearToSend",
                          "Receiver-driven admission: the receiving NIC grants each message "
                          "(a CtsBytes SEND on CtsPriority) before the sender posts it",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceCommunicator::m_cts),
                          MakeBooleanChecker())
            .AddAttribute("CtsGrants",
                          "Messages a receiving NIC has granted and not yet received, at most "
                          "(CtsWindow bounds their bytes too)",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RoceCommunicator::m_ctsGrants),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("CtsWindow",
                          "Bytes a receiving NIC has granted and not yet received: it grants "
                          "while fewer are outstanding; to keep its link busy, at least a "
                          "message more than the bandwidth-delay product (2 MiB: 4 chunks of "
                          "512 KiB at 400 Gb/s through a CTSW)",
                          UintegerValue(2u << 20),
                          MakeUintegerAccessor(&RoceCommunicator::m_ctsWindow),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("CtsAhead",
                          "With ClearToSend: when a message arrives and no other waits, the "
                          "receiving NIC grants that connection's next message at once (as a "
                          "freed receive buffer slot does), so a pipeline of chunks pays the "
                          "grant round trip once, not per chunk",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceCommunicator::m_ctsAhead),
                          MakeBooleanChecker())
            .AddAttribute("CtsBytes",
                          "Size of a grant message",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RoceCommunicator::m_ctsBytes),
                          MakeUintegerChecker<uint32_t>(1, 4096))
            .AddAttribute("CtsPriority",
                          "Priority (traffic class) of the grants, 0..7",
                          UintegerValue(6),
                          MakeUintegerAccessor(&RoceCommunicator::m_ctsPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("Distributed",
                          "Behave alike on any number of MPI ranks: operations connect the NIC "
                          "pairs they use before they start, a message to another rank is "
                          "described to that rank as it is posted, and a sender learns of an "
                          "arrival at another node NotifyDelay later (RoceMpiHelper::Enable "
                          "sets it)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceCommunicator::m_distributed),
                          MakeBooleanChecker())
            .AddAttribute("NotifyDelay",
                          "Distributed: how long after a message's arrival at another node its "
                          "sender learns of it (the receiver's credit back to the sender); must "
                          "exceed the MPI lookahead (the smallest delay of a link between ranks)",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&RoceCommunicator::m_notifyDelay),
                          MakeTimeChecker(Time(0)));
    return tid;
}

RoceCommunicator::RoceCommunicator()
    : m_qpsPerConnection(1),
      m_qpMode(SPLIT),
      m_cts(false),
      m_ctsBytes(64),
      m_ctsPriority(6),
      m_ctsGrants(64),
      m_ctsWindow(2u << 20),
      m_ctsAhead(true)
{
    m_service = RoceRankCall::Register(MakeCallback(&RoceCommunicator::Call, this));
    m_qpFactory.SetTypeId(RoceQueuePair::GetTypeId());
}

RoceCommunicator::~RoceCommunicator()
{
    // Also when never disposed: no call may reach a deleted communicator.
    RoceRankCall::Unregister(m_service);
}

void
RoceCommunicator::DoDispose()
{
    m_connections.clear();
    m_ranks.clear();
    m_scaleUp.clear();
    m_scaleUpFree.clear();
    m_scaleUpArrived = Callback<void, uint64_t>();
    m_sinks.clear();
    RoceRankCall::Unregister(m_service);
    Object::DoDispose();
}

uint32_t
RoceCommunicator::AddRank(Ptr<NetDevice> nic, Ptr<RoceNvlinkDomain> nvlink, uint32_t localGpu)
{
    ROCE_ERROR_IF(!RoceNetDevice::IsNic(nic),
                  "RoceCommunicator::AddRank: rank "
                      << m_ranks.size() << " has no NIC"
                      << (nic ? " (a " + nic->GetInstanceTypeId().GetName() + ")" : ""));
    Rank r;
    r.nic = nic;
    r.nvlink = nvlink;
    r.localGpu = localGpu;
    const uint32_t node = nic->GetNode()->GetId();
    r.node = node;
    auto it = m_serverOfNode.find(node);
    if (it == m_serverOfNode.end())
    {
        it = m_serverOfNode.emplace(node, m_serverRanks.size()).first;
        m_serverRanks.emplace_back();
    }
    r.server = it->second;
    for (uint32_t other : m_serverRanks[r.server])
    {
        ROCE_ERROR_IF(m_ranks[other].nic == nic || (nvlink && m_ranks[other].localGpu == localGpu),
                      "RoceCommunicator::AddRank: rank " << m_ranks.size() << " is the GPU of rank "
                                                         << other << " again");
    }
    m_serverRanks[r.server].push_back(m_ranks.size());
    m_ranks.push_back(r);
    m_sent.push_back(0);
    m_received.push_back(0);
    return m_ranks.size() - 1;
}

uint32_t
RoceCommunicator::GetNRanks() const
{
    return m_ranks.size();
}

const RoceCommunicator::Rank&
RoceCommunicator::GetRank(uint32_t r) const
{
    ROCE_ERROR_IF(r >= m_ranks.size(),
                  "RoceCommunicator: rank " << r << " out of range (" << m_ranks.size()
                                            << " ranks)");
    return m_ranks[r];
}

uint32_t
RoceCommunicator::GetNServers() const
{
    return m_serverRanks.size();
}

const std::vector<uint32_t>&
RoceCommunicator::GetServerRanks(uint32_t s) const
{
    return m_serverRanks.at(s);
}

bool
RoceCommunicator::SameDomain(uint32_t a, uint32_t b) const
{
    const Rank& ra = GetRank(a);
    const Rank& rb = GetRank(b);
    return ra.nvlink && ra.nvlink == rb.nvlink;
}

void
RoceCommunicator::SetQpAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_qpFactory, name, value);
}

uint32_t
RoceCommunicator::NicNumber(Ptr<NetDevice> nic)
{
    auto it = m_nicIndex.emplace(PeekPointer(nic), m_nicIndex.size()).first;
    if (it->second >= m_admission.size())
    {
        m_admission.resize(it->second + 1);
    }
    return it->second;
}

uint32_t
RoceCommunicator::GetConnection(Ptr<NetDevice> a, Ptr<NetDevice> b, bool cts)
{
    const uint64_t key = (uint64_t(cts) << 63) | (uint64_t(NicNumber(a)) << 32) | NicNumber(b);
    auto it = m_connectionIndex.find(key);
    if (it != m_connectionIndex.end())
    {
        return it->second;
    }
    ROCE_ERROR_IF(a == b, "RoceCommunicator: a connection from a NIC to itself");
    const uint32_t index = m_connections.size();
    m_connectionIndex.emplace(key, index);
    m_connections.emplace_back();
    Connection& c = m_connections.back();
    // Grants go on one QP of their own priority; data on QpsPerConnection.
    const uint32_t n = cts ? 1 : m_qpsPerConnection;
    m_nDataConnections += cts ? 0 : 1;
    for (uint32_t q = 0; q < n; ++q)
    {
        Ptr<RoceQueuePair> qa = m_qpFactory.Create<RoceQueuePair>();
        Ptr<RoceQueuePair> qb = m_qpFactory.Create<RoceQueuePair>();
        if (cts)
        {
            qa->SetAttribute("Priority", UintegerValue(m_ctsPriority));
            qb->SetAttribute("Priority", UintegerValue(m_ctsPriority));
        }
        // A NIC of another MPI rank only reserves its QP's number: its
        // own rank runs the QP, this one keeps null.
        RoceNetDevice::ConnectPair(a, qa, b, qb);
        c.senders.push_back(qa->GetQpn() != 0 ? qa : nullptr);
        c.receivers.push_back(qb->GetQpn() != 0 ? qb : nullptr);
        if (c.receivers.back())
        {
            qb->TraceConnectWithoutContext(
                "MessageReceived",
                MakeCallback(&RoceCommunicator::QpMessage, this).Bind(index, q));
        }
    }
    c.fifo.resize(n);
    c.dstNode = b->GetNode()->GetId();
    c.remote = !RoceRankCall::IsLocal(c.dstNode);
    return index;
}

void
RoceCommunicator::Connect(Ptr<NetDevice> a, Ptr<NetDevice> b)
{
    ROCE_ERROR_IF(!a || !b, "RoceCommunicator::Connect: a null NIC");
    GetConnection(a, b, false);
}

bool
RoceCommunicator::IsDistributed() const
{
    return m_distributed;
}

bool
RoceCommunicator::IsLocal(uint32_t r) const
{
    return RoceRankCall::IsLocal(GetRank(r).node);
}

void
RoceCommunicator::CheckDistributed() const
{
    ROCE_ERROR_IF(m_cts,
                  "RoceCommunicator: ClearToSend=true cannot run with Distributed=true (a "
                  "receiving NIC's grants are shared with its senders, which may be on other "
                  "MPI ranks)");
    ROCE_ERROR_IF(m_notifyDelay <= RoceRankCall::GetLookahead(),
                  "RoceCommunicator: NotifyDelay=" << m_notifyDelay.As(Time::US)
                                                   << " must exceed the MPI lookahead "
                                                   << RoceRankCall::GetLookahead().As(Time::US)
                                                   << " (the smallest delay of a link between "
                                                      "ranks): a sender on another rank cannot "
                                                      "learn of an arrival sooner");
}

uint32_t
RoceCommunicator::AddSink(ArrivalCallback atReceiver, SentCallback atSender)
{
    m_sinks.push_back(Sink{atReceiver, atSender});
    return m_sinks.size() - 1;
}

void
RoceCommunicator::Send(uint32_t src,
                       uint32_t dst,
                       Ptr<NetDevice> srcNic,
                       Ptr<NetDevice> dstNic,
                       uint64_t bytes,
                       uint64_t tag,
                       uint32_t sink)
{
    ROCE_ERROR_IF(sink >= m_sinks.size(),
                  "RoceCommunicator::Send: sink " << sink << " does not exist (" << m_sinks.size()
                                                  << " sinks)");
    SendMessage(src, dst, srcNic, dstNic, bytes, tag, ArrivalCallback(), sink + 1);
}

void
RoceCommunicator::Send(uint32_t src,
                       uint32_t dst,
                       Ptr<NetDevice> srcNic,
                       Ptr<NetDevice> dstNic,
                       uint64_t bytes,
                       uint64_t tag,
                       ArrivalCallback arrived)
{
    SendMessage(src, dst, srcNic, dstNic, bytes, tag, std::move(arrived), 0);
}

void
RoceCommunicator::SendMessage(uint32_t src,
                              uint32_t dst,
                              const Ptr<NetDevice>& srcNic,
                              const Ptr<NetDevice>& dstNic,
                              uint64_t bytes,
                              uint64_t tag,
                              ArrivalCallback arrived,
                              uint32_t sink)
{
    ROCE_ERROR_IF(src >= m_ranks.size() || dst >= m_ranks.size(),
                  "RoceCommunicator::Send: rank " << (src >= m_ranks.size() ? src : dst)
                                                  << " out of range (" << m_ranks.size()
                                                  << " ranks)");
    ROCE_ERROR_IF(src == dst, "RoceCommunicator::Send: rank " << src << " to itself");
    ROCE_ERROR_IF(bytes == 0, "RoceCommunicator::Send: 0 bytes from rank " << src);
    m_sent[src] += bytes;
    if (SameDomain(src, dst))
    {
        const Rank& s = m_ranks[src];
        m_scaleUpBytes += bytes;
        if (m_scaleUpArrived.IsNull())
        {
            m_scaleUpArrived = MakeCallback(&RoceCommunicator::ScaleUpArrived, this);
        }
        uint32_t slot;
        if (m_scaleUpFree.empty())
        {
            slot = static_cast<uint32_t>(m_scaleUp.size());
            m_scaleUp.push_back(ScaleUpCopy{dst, bytes, tag, std::move(arrived), src, sink});
        }
        else
        {
            slot = m_scaleUpFree.back();
            m_scaleUpFree.pop_back();
            m_scaleUp[slot] = ScaleUpCopy{dst, bytes, tag, std::move(arrived), src, sink};
        }
        s.nvlink->SendWithCookie(s.localGpu, m_ranks[dst].localGpu, bytes, m_scaleUpArrived, slot);
        return;
    }
    m_nicBytes += bytes;
    const uint32_t conn = GetConnection(srcNic, dstNic, false);
    Message m{dst, bytes, tag, 0, arrived};
    m.src = src;
    m.sink = sink;
    if (!m_cts)
    {
        Post(conn, std::move(m));
        return;
    }
    ROCE_ERROR_IF(m_distributed, "RoceCommunicator: ClearToSend=true with Distributed=true");
    const uint32_t receiver = NicNumber(dstNic);
    m.admission = receiver;
    Connection& c = m_connections[conn];
    if (c.held > 0)
    {
        // A grant ahead is here: post at once.
        --c.held;
        Admission& a = m_admission[receiver];
        a.held.erase(std::find(a.held.begin(), a.held.end(), conn));
        a.grantedBytes = a.grantedBytes + m.bytes - c.aheadBytes;
        Post(conn, std::move(m));
        return;
    }
    if (c.early.size() < c.ahead)
    {
        // A grant ahead is on its way: it posts this message on arrival.
        c.early.push_back(std::move(m));
        return;
    }
    const uint32_t cts = GetConnection(dstNic, srcNic, true);
    // GetConnection may have grown m_connections: index again.
    m_connections[conn].receiver = receiver;
    m_connections[conn].cts = cts;
    m_admission[receiver].waiting.push_back(Waiting{conn, cts, std::move(m)});
    Grant(receiver);
}

void
RoceCommunicator::Grant(uint32_t nic)
{
    Admission& a = m_admission[nic];
    // Unused grants ahead give way to messages that wait.
    while (Full(a) && !a.waiting.empty() && !a.held.empty())
    {
        Connection& c = m_connections[a.held.back()];
        --c.held;
        a.held.pop_back();
        --a.granted;
        a.grantedBytes -= c.aheadBytes;
    }
    while (!Full(a) && !a.waiting.empty())
    {
        Waiting w = a.waiting.take_front();
        ++a.granted;
        a.grantedBytes += w.message.bytes;
        ++m_ctsSent;
        // The grant's arrival at the sender posts the data.
        Message grant{0, m_ctsBytes, 0, 0, ArrivalCallback()};
        grant.grant = true;
        const uint32_t conn = w.conn;
        auto data = std::make_shared<Message>(std::move(w.message));
        grant.arrived = ArrivalCallback([this, conn, data](uint64_t) { Post(conn, *data); });
        Post(w.cts, std::move(grant));
    }
}

bool
RoceCommunicator::Full(const Admission& a) const
{
    return a.granted >= m_ctsGrants || a.grantedBytes >= m_ctsWindow;
}

void
RoceCommunicator::GrantAhead(uint32_t conn, uint64_t bytes)
{
    Connection& c = m_connections[conn];
    Admission& a = m_admission[c.receiver];
    if (c.ahead + c.held == 0)
    {
        // Grants ahead reserve the size of the message that just arrived:
        // a pipeline's next chunk is as large.
        c.aheadBytes = bytes;
    }
    while (a.waiting.empty() && !Full(a))
    {
        ++a.granted;
        a.grantedBytes += c.aheadBytes;
        ++m_ctsSent;
        ++m_connections[conn].ahead;
        Message grant{0, m_ctsBytes, 0, 0, ArrivalCallback()};
        grant.grant = true;
        grant.arrived = ArrivalCallback([this, conn](uint64_t) { AheadArrived(conn); });
        Post(m_connections[conn].cts, std::move(grant));
    }
}

void
RoceCommunicator::AheadArrived(uint32_t conn)
{
    Connection& c = m_connections[conn];
    --c.ahead;
    if (!c.early.empty())
    {
        // The first message sent meanwhile takes the grant.
        Message m = c.early.take_front();
        Admission& a = m_admission[c.receiver];
        a.grantedBytes = a.grantedBytes + m.bytes - c.aheadBytes;
        Post(conn, std::move(m));
        return;
    }
    const uint32_t receiver = c.receiver;
    Admission& a = m_admission[receiver];
    if (!a.waiting.empty())
    {
        // Unused and wanted elsewhere: give it back.
        --a.granted;
        a.grantedBytes -= c.aheadBytes;
        Grant(receiver);
        return;
    }
    ++c.held;
    a.held.push_back(conn);
}

void
RoceCommunicator::Post(uint32_t conn, Message m)
{
    Connection& c = m_connections[conn];
    const uint64_t id = c.nextId++;
    m.conn = conn;
    const uint64_t bytes = m.bytes;
    const uint32_t n = m_qpMode == SPLIT ? std::min<uint64_t>(c.senders.size(), bytes) : 1;
    const uint32_t first = m_qpMode == SPLIT ? 0 : c.nextQp;
    if (c.remote)
    {
        PostRemote(conn, m, id, first, n);
    }
    else
    {
        AddMessage(conn, id, std::move(m), first, n);
    }
    if (m_qpMode == SPLIT)
    {
        // Pieces of bytes / n, the remainder spread over the first ones.
        for (uint32_t q = 0; q < n; ++q)
        {
            const uint64_t piece = bytes / n + (q < bytes % n ? 1 : 0);
            c.senders[q]->PostWrite(piece);
        }
        return;
    }
    c.nextQp = (c.nextQp + 1) % c.senders.size();
    c.senders[first]->PostWrite(bytes);
}

void
RoceCommunicator::AddMessage(uint32_t conn, uint64_t id, Message m, uint32_t first, uint32_t n)
{
    Connection& c = m_connections[conn];
    m.piecesLeft = n;
    c.messages.emplace(id, std::move(m));
    for (uint32_t q = first; q < first + n; ++q)
    {
        c.fifo[q].push_back(id);
    }
}

/** Kinds of this communicator's RoceRankCall words. */
enum RoceCommunicatorCall : uint64_t
{
    ROCE_COMM_MESSAGE = 0, //!< a message posted towards this rank
    ROCE_COMM_NOTICE = 1,  //!< a message of this rank's sender arrived
};

void
RoceCommunicator::PostRemote(uint32_t conn,
                             const Message& m,
                             uint64_t id,
                             uint32_t first,
                             uint32_t n)
{
    ROCE_ERROR_IF(!m_distributed || m.sink == 0,
                  "RoceCommunicator: a message from rank "
                      << m.src << " to rank " << m.dst
                      << ", whose NIC runs on another MPI rank, needs Distributed=true "
                         "(RoceMpiHelper::Enable) and a sink (AddSink)");
    RoceRankCall::Deliver(
        m_connections[conn].dstNode,
        m_service,
        {ROCE_COMM_MESSAGE, conn, id, m.src, m.dst, m.bytes, m.tag, m.sink, first, n});
}

void
RoceCommunicator::Call(const std::vector<uint64_t>& w)
{
    if (!w.empty() && w[0] == ROCE_COMM_NOTICE)
    {
        ROCE_ERROR_IF(w.size() != 4 || w[1] == 0 || w[1] > m_sinks.size(),
                      "RoceCommunicator: a malformed notice from another rank");
        m_sinks[w[1] - 1].atSender(w[2], TimeStep(w[3]));
        return;
    }
    ROCE_ERROR_IF(w.size() != 10 || w[0] != ROCE_COMM_MESSAGE || w[1] >= m_connections.size(),
                  "RoceCommunicator: a malformed message description from another rank");
    Message m{uint32_t(w[4]), w[5], w[6], 0, ArrivalCallback()};
    m.conn = w[1];
    m.src = w[3];
    m.sink = w[7];
    AddMessage(w[1], w[2], std::move(m), w[8], w[9]);
}

void
RoceCommunicator::QpMessage(uint32_t conn, uint32_t qp, uint64_t /* bytes */, uint64_t /* msn */)
{
    Connection& c = m_connections[conn];
    NS_ASSERT(!c.fifo[qp].empty());
    const uint64_t id = c.fifo[qp].front();
    c.fifo[qp].pop_front();
    auto it = c.messages.find(id);
    NS_ASSERT(it != c.messages.end());
    if (--it->second.piecesLeft > 0)
    {
        return;
    }
    Message m = std::move(it->second);
    c.messages.erase(it);
    Complete(m);
}

void
RoceCommunicator::Complete(Message& m)
{
    if (m.grant)
    {
        m.arrived(0);
        return;
    }
    if (m.admission >= 0)
    {
        --m_admission[m.admission].granted;
        m_admission[m.admission].grantedBytes -= m.bytes;
        Grant(m.admission);
    }
    Arrive(m.dst, m.bytes, m.tag, m.arrived, m.src, m.sink);
    if (m.admission >= 0 && m_ctsAhead)
    {
        GrantAhead(m.conn, m.bytes);
    }
}

void
RoceCommunicator::ScaleUpArrived(uint64_t slot)
{
    ScaleUpCopy c = std::move(m_scaleUp[slot]);
    m_scaleUp[slot].arrived = ArrivalCallback();
    m_scaleUpFree.push_back(static_cast<uint32_t>(slot));
    // Last: the callback may send again (and reuse the slot).
    Arrive(c.dst, c.bytes, c.tag, c.arrived, c.src, c.sink);
}

void
RoceCommunicator::Arrive(uint32_t dst,
                         uint64_t bytes,
                         uint64_t tag,
                         const ArrivalCallback& arrived,
                         uint32_t src,
                         uint32_t sink)
{
    m_received[dst] += bytes;
    if (sink == 0)
    {
        if (!arrived.IsNull())
        {
            arrived(tag);
        }
        return;
    }
    const Sink& s = m_sinks[sink - 1];
    s.atReceiver(tag);
    const uint32_t senderNode = m_ranks[src].node;
    if (!m_distributed || senderNode == m_ranks[dst].node)
    {
        m_sinks[sink - 1].atSender(tag, RoceNow());
        return;
    }
    RoceRankCall::Schedule(senderNode,
                           m_notifyDelay,
                           m_service,
                           {ROCE_COMM_NOTICE, sink, tag, uint64_t(RoceNow().GetTimeStep())});
}

uint64_t
RoceCommunicator::GetBytesSent(uint32_t r) const
{
    return m_sent.at(r);
}

uint64_t
RoceCommunicator::GetBytesReceived(uint32_t r) const
{
    return m_received.at(r);
}

uint64_t
RoceCommunicator::GetNicBytes() const
{
    return m_nicBytes;
}

uint64_t
RoceCommunicator::GetScaleUpBytes() const
{
    return m_scaleUpBytes;
}

uint32_t
RoceCommunicator::GetNQps() const
{
    return m_nDataConnections * m_qpsPerConnection;
}

uint64_t
RoceCommunicator::GetNGrants() const
{
    return m_ctsSent;
}

void
RoceCommunicator::ResetCounters()
{
    std::fill(m_sent.begin(), m_sent.end(), 0);
    std::fill(m_received.begin(), m_received.end(), 0);
    m_nicBytes = 0;
    m_scaleUpBytes = 0;
}

} // namespace ns3
