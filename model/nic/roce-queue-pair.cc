/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-queue-pair.h"

#include "roce-net-device.h"
#include "roce-queue-pair-reorder.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/roce-aeth-header.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-error.h"
#include "ns3/roce-hash.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-pint-digest.h"
#include "ns3/roce-pooled-event.h"
#include "ns3/roce-psn.h"
#include "ns3/roce-reth-header.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceQueuePair");
NS_OBJECT_ENSURE_REGISTERED(RoceQueuePair);

TypeId
RoceQueuePair::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceQueuePair")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceQueuePair>()
            .AddAttribute(
                "Priority",
                "Priority (traffic class) of the QP's data and ACKs, 0..7.",
                UintegerValue(3),
                MakeUintegerAccessor(&RoceQueuePair::SetPriority, &RoceQueuePair::GetPriority),
                MakeUintegerChecker<uint8_t>())
            .AddAttribute("SourcePort",
                          "UDP source port, the flow entropy ECMP hashes. 0 derives it "
                          "from the QP numbers (0xC000 | 14 mixed bits).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceQueuePair::m_sourcePort),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("InitialPsn",
                          "PSN of the first packet, 0..2^24-1.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceQueuePair::m_initialPsn),
                          MakeUintegerChecker<uint32_t>(0, 0xFFFFFF))
            .AddAttribute("RetransmitTimeout",
                          "Retransmission timeout without progress (IB local ACK "
                          "timeout; the default is 4.096 us x 2^14).",
                          TimeValue(NanoSeconds(67108864)),
                          MakeTimeAccessor(&RoceQueuePair::SetRto, &RoceQueuePair::GetRto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RetryCount",
                          "Timeouts in a row without progress before the QP enters the "
                          "error state.",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RoceQueuePair::m_retryCount),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("AckInterval",
                          "The receiver acknowledges every this many packets (and always "
                          "the last packet of a message).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RoceQueuePair::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1, 65536))
            .AddAttribute("ReceiveWindow",
                          "Receiver's handling of out-of-order packets. 0: go-back-N, packets "
                          "are accepted in PSN order only and a gap is NAK'd. N > 0 "
                          "(1..65536): selective repeat, a packet up to N PSNs ahead of the "
                          "expected one is held without a NAK and the cumulative ACK jumps "
                          "over it once the gap fills; only packets beyond the window are "
                          "NAK'd. Per-packet spraying and per-packet adaptive routing need it.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceQueuePair::SetReceiveWindow,
                                               &RoceQueuePair::GetReceiveWindow),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MaxInflightPackets",
                          "Most packets sent and not yet acknowledged (below 2^23 so "
                          "24-bit PSNs stay unambiguous).",
                          UintegerValue(1u << 20),
                          MakeUintegerAccessor(&RoceQueuePair::m_maxInflightPackets),
                          MakeUintegerChecker<uint32_t>(1, (1u << 23) - 1))
            .AddAttribute("RemoteAddressBase",
                          "Remote virtual address carried in RETH of the first WRITE.",
                          UintegerValue(0x10000000),
                          MakeUintegerAccessor(&RoceQueuePair::m_remoteVa),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Rkey",
                          "Remote key carried in RETH.",
                          UintegerValue(0x1234),
                          MakeUintegerAccessor(&RoceQueuePair::m_rkey),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CongestionControl",
                          "This queue pair's congestion control: its own fork of the NIC's "
                          "prototype, created when the QP connects (null before).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&RoceQueuePair::GetCongestionControl),
                          MakePointerChecker<RoceCongestionOps>())
            .AddTraceSource("MessageComplete",
                            "A posted message completed (or failed).",
                            MakeRoceLazyTraceAccessor(&RoceQueuePair::m_traces, &Traces::complete),
                            "ns3::RoceQueuePair::CompletionTracedCallback")
            .AddTraceSource(
                "Retransmit",
                "Go-back-N after a NAK: the PSN resent from and the packets resent.",
                MakeRoceLazyTraceAccessor(&RoceQueuePair::m_traces, &Traces::retransmit),
                "ns3::RoceQueuePair::RetransmitTracedCallback")
            .AddTraceSource("Timeout",
                            "The retransmission timer fired: PSN resent from, packets resent.",
                            MakeRoceLazyTraceAccessor(&RoceQueuePair::m_traces, &Traces::timeout),
                            "ns3::RoceQueuePair::RetransmitTracedCallback")
            .AddTraceSource("Deliver",
                            "The receiver accepted a packet in order (PSN, payload bytes).",
                            MakeRoceLazyTraceAccessor(&RoceQueuePair::m_traces, &Traces::deliver),
                            "ns3::RoceQueuePair::DeliverTracedCallback")
            .AddTraceSource(
                "MessageReceived",
                "The receiver accepted the last packet of a message "
                "(message bytes, receiver MSN).",
                MakeRoceLazyTraceAccessor(&RoceQueuePair::m_traces, &Traces::messageReceived),
                "ns3::RoceQueuePair::MessageReceivedTracedCallback")
            .AddTraceSource("Error",
                            "The QP entered the error state (QPN).",
                            MakeRoceLazyTraceAccessor(&RoceQueuePair::m_traces, &Traces::error),
                            "ns3::RoceQueuePair::ErrorTracedCallback");
    return tid;
}

namespace
{
uint64_t g_liveQps = 0; //!< RoceQueuePairs alive (GetLiveCount)
} // namespace

RoceQueuePair::RoceQueuePair()
{
    ++g_liveQps;
}

RoceQueuePair::~RoceQueuePair()
{
    --g_liveQps;
}

uint64_t
RoceQueuePair::GetLiveCount()
{
    return g_liveQps;
}

void
RoceQueuePair::DoDispose()
{
    m_rtoEvent.Cancel();
    m_rtoPending = false;
    m_messages.clear();
    m_msgHead = 0;
    if (m_cc)
    {
        m_cc->Dispose();
    }
    m_cc = nullptr;
    m_nic = nullptr;
    m_headers.reset();
    m_traces.Reset();
    Object::DoDispose();
}

void
RoceQueuePair::Connect(Ptr<RoceNetDevice> nic,
                       uint32_t qpn,
                       uint32_t remoteQpn,
                       Ipv4Address remoteAddress,
                       uint32_t remoteInitialPsn,
                       Ptr<RoceCongestionOps> cc)
{
    ROCE_ERROR_IF(m_state != RESET, "RoceQueuePair: QP " << qpn << " is already connected");
    m_nic = nic;
    m_qpn = qpn;
    m_remoteQpn = remoteQpn;
    m_remoteAddress = remoteAddress;
    m_headers.reset(); // built for this peer on the first packet
    ROCE_ERROR_IF(cc && cc->WantsInt() && cc->WantsPint(),
                  "RoceQueuePair: congestion control " << cc->GetName()
                                                       << " asks for both INT and PINT");
    m_cc = cc;
    m_mtu = nic->GetPayloadMtu();
    m_state = RTS;
    if (m_sourcePort == 0)
    {
        // Entropy from both QP numbers and both addresses, like a driver's flow label.
        uint64_t x = (uint64_t(qpn) << 40) ^ (uint64_t(remoteQpn) << 16) ^
                     (uint64_t(nic->GetIpv4Address().Get()) << 8) ^ remoteAddress.Get();
        x = RoceHash::Mix64(x);
        m_sourcePort = static_cast<uint16_t>(0xC000 | (x & 0x3FFF));
    }
    m_sndUna = m_sndNxt = m_sndMax = m_sndEnd = m_initialPsn;
    m_rcvNxt = remoteInitialPsn & RocePsn::MASK;
    RoceCcContext ctx;
    ctx.lineRate = nic->GetDataRate();
    ctx.mtu = m_mtu;
    // A middle data frame's bytes beyond its payload, on this NIC's wire.
    ctx.wireOverhead = nic->FrameWireBytes(m_mtu + RoceNetDevice::DATA_FRAME_OVERHEAD) - m_mtu;
    m_cc->Init(ctx);
    m_cc->SetRateListener(this);
}

void
RoceQueuePair::SetQpn(uint32_t qpn)
{
    ROCE_ERROR_IF(m_state != RESET, "RoceQueuePair: the QP number cannot change once connected");
    m_qpn = qpn;
}

uint64_t
RoceQueuePair::PostWrite(uint64_t bytes, CompletionCallback cb)
{
    return Post(bytes, true, cb);
}

uint64_t
RoceQueuePair::PostSend(uint64_t bytes, CompletionCallback cb)
{
    return Post(bytes, false, cb);
}

uint64_t
RoceQueuePair::Post(uint64_t bytes, bool write, CompletionCallback cb)
{
    ROCE_ERROR_IF(m_state == RESET,
                  "RoceQueuePair: message posted on a QP that is not connected "
                  "(create QPs with RoceHelper::CreateQp)");
    ROCE_ERROR_IF(write && bytes > 0xFFFFFFFFULL,
                  "RoceQueuePair: RDMA WRITE of " << bytes
                                                  << " bytes exceeds the 32-bit DMA length");
    Message m;
    m.id = m_nextMessageId++;
    m.firstSeq = m_sndEnd;
    m.nPackets = bytes == 0 ? 1 : (bytes + m_mtu - 1) / m_mtu;
    m.bytes = bytes;
    m.write = write;
    m.posted = RoceNow();
    m.cb = cb;
    ++m_stats.messagesPosted;
    if (m_state == ERROR)
    {
        ++m_stats.messagesFailed;
        RoceCompletion c{m.id, bytes, m.posted, RoceNow(), false};
        if (Traces* t = m_traces.Get())
        {
            t->complete(c);
        }
        if (!cb.IsNull())
        {
            cb(c);
        }
        return m.id;
    }
    if (RoceMessageOffload* offload = m_nic->GetMessageOffload())
    {
        // Flow level: the offload carries the message; no packet is built.
        ++m_offloaded;
        offload->Carry(this, m.id, bytes, write, m.posted, cb);
        return m.id;
    }
    m_sndEnd += m.nPackets;
    m_messages.push_back(m);
    m_nic->NotifyQpReady(this);
    return m.id;
}

void
RoceQueuePair::CompleteOffloaded(uint64_t id,
                                 uint64_t bytes,
                                 uint64_t packets,
                                 Time posted,
                                 const CompletionCallback& cb)
{
    ROCE_ERROR_IF(m_offloaded == 0,
                  "RoceQueuePair: QP " << m_qpn << " completed a message no offload carried");
    --m_offloaded;
    m_stats.dataPacketsSent += packets;
    m_stats.payloadBytesSent += bytes;
    m_stats.bytesAcked += bytes;
    ++m_stats.messagesCompleted;
    RoceCompletion c{id, bytes, posted, RoceNow(), true};
    if (Traces* t = m_traces.Get())
    {
        t->complete(c);
    }
    if (!cb.IsNull())
    {
        cb(c);
    }
}

void
RoceQueuePair::DeliverOffloaded(uint64_t bytes, uint64_t packets)
{
    m_rcvNxt += packets;
    m_stats.bytesDelivered += bytes;
    m_rcvMsn = (m_rcvMsn + 1) & 0xFFFFFF;
    ++m_stats.messagesReceived;
    if (Traces* t = m_traces.Get())
    {
        t->messageReceived(bytes, m_rcvMsn);
    }
}

uint32_t
RoceQueuePair::GetPayloadMtu() const
{
    return m_mtu;
}

void
RoceQueuePair::SetReceiveWindow(uint32_t packets)
{
    ROCE_ERROR_IF(packets > MAX_RECEIVE_WINDOW,
                  "RoceQueuePair: ReceiveWindow=" << packets << " out of range 0.."
                                                  << MAX_RECEIVE_WINDOW << " packets");
    ROCE_ERROR_IF(m_state != RESET, "RoceQueuePair: ReceiveWindow cannot change once connected");
    if (packets == 0)
    {
        m_reorder.reset();
    }
    else
    {
        m_reorder = std::make_unique<RoceReorderWindow>(packets);
    }
}

uint32_t
RoceQueuePair::GetReceiveWindow() const
{
    return m_reorder ? m_reorder->GetWindow() : 0;
}

uint32_t
RoceQueuePair::GetInitialPsn() const
{
    return m_initialPsn;
}

uint32_t
RoceQueuePair::GetQpn() const
{
    return m_qpn;
}

uint32_t
RoceQueuePair::GetRemoteQpn() const
{
    return m_remoteQpn;
}

Ipv4Address
RoceQueuePair::GetRemoteAddress() const
{
    return m_remoteAddress;
}

uint16_t
RoceQueuePair::GetSourcePort() const
{
    return m_sourcePort;
}

uint8_t
RoceQueuePair::GetPriority() const
{
    return m_priority;
}

void
RoceQueuePair::SetPriority(uint8_t priority)
{
    ROCE_ERROR_IF(priority > 7, "RoceQueuePair: Priority=" << +priority << " out of range 0..7");
    ROCE_ERROR_IF(m_state != RESET, "RoceQueuePair: Priority cannot change once connected");
    m_priority = priority;
}

RoceQueuePair::State
RoceQueuePair::GetState() const
{
    return m_state;
}

Ptr<RoceNetDevice>
RoceQueuePair::GetNic() const
{
    return m_nic;
}

Ptr<RoceCongestionOps>
RoceQueuePair::GetCongestionControl() const
{
    return m_cc;
}

const RoceQueuePair::Stats&
RoceQueuePair::GetStats() const
{
    return m_stats;
}

bool
RoceQueuePair::HasOutstanding() const
{
    // In the error state every message has failed: nothing will be sent or
    // acknowledged any more.
    return m_state != ERROR && (m_sndUna < m_sndEnd || m_offloaded > 0);
}

bool
RoceQueuePair::IsStalled() const
{
    return m_state == RTS && m_sndMax > m_sndUna && !m_rtoPending;
}

// ---------------------------------------------------------------------------
// Sender

const RoceQueuePair::Message&
RoceQueuePair::FindMessage(uint64_t seq) const
{
    // Sending moves forward through the queue; start from where the last
    // lookup ended so a long queue of posted messages costs O(1) per packet.
    ROCE_ERROR_IF(m_msgHead == m_messages.size() || seq < m_messages[m_msgHead].firstSeq ||
                      seq >= m_sndEnd,
                  "RoceQueuePair: no message holds sequence number " << seq);
    std::size_t i = std::max(m_msgHead, std::min(m_msgCursor, m_messages.size() - 1));
    while (seq < m_messages[i].firstSeq)
    {
        --i;
    }
    while (seq >= m_messages[i].firstSeq + m_messages[i].nPackets)
    {
        ++i;
    }
    m_msgCursor = i;
    return m_messages[i];
}

uint32_t
RoceQueuePair::PayloadOf(const Message& m, uint64_t seq) const
{
    uint64_t offset = (seq - m.firstSeq) * m_mtu;
    return static_cast<uint32_t>(std::min<uint64_t>(m_mtu, m.bytes - offset));
}

Time
RoceQueuePair::NextSendTime(Time now) const
{
    if (m_state != RTS || m_sndNxt >= m_sndEnd)
    {
        return Time::Max();
    }
    uint64_t inflight = m_sndNxt - m_sndUna;
    if (inflight >= m_maxInflightPackets)
    {
        return Time::Max();
    }
    uint64_t window = m_cc->GetWindow();
    if (window > 0 && inflight > 0 && (inflight + 1) * m_mtu > window)
    {
        return Time::Max();
    }
    return std::max(now, TimeStep(m_nextSendTime));
}

RoceFramePtr
RoceQueuePair::BuildNextPacket()
{
    uint64_t seq = m_sndNxt++;
    const Message& m = FindMessage(seq);
    uint32_t payload = PayloadOf(m, seq);
    bool first = seq == m.firstSeq;
    bool last = seq == m.firstSeq + m.nPackets - 1;
    uint8_t op;
    if (m.write)
    {
        op = first ? (last ? RoceBthHeader::WRITE_ONLY : RoceBthHeader::WRITE_FIRST)
                   : (last ? RoceBthHeader::WRITE_LAST : RoceBthHeader::WRITE_MIDDLE);
    }
    else
    {
        op = first ? (last ? RoceBthHeader::SEND_ONLY : RoceBthHeader::SEND_FIRST)
                   : (last ? RoceBthHeader::SEND_LAST : RoceBthHeader::SEND_MIDDLE);
    }

    // The payload is padded to a 4-byte multiple on the wire (BTH PadCnt).
    uint8_t pad = static_cast<uint8_t>((4 - (payload & 3)) & 3);
    // A compact frame: the headers, the payload and pad (zero), then any
    // PINT digest and the ICRC (zero).
    const bool wantsPint = m_cc->WantsPint();
    RoceHeaderBlock& h = Headers().data;
    h.SetOpcode(op);
    h.SetPsn(RocePsn::ToWire(seq));
    h.SetAckReq(last);
    const bool wantsInt = m_cc->WantsInt();
    h.SetIntRequest(wantsInt);
    h.SetPintRequest(wantsPint);
    h.SetPadCount(pad);
    if (first && m.write)
    {
        h.SetReth(m_remoteVa, m_rkey, static_cast<uint32_t>(m.bytes));
    }
    else
    {
        h.ClearExtension();
    }
    RoceFramePtr p =
        RoceWireFrame::Make(h,
                            payload + pad,
                            nullptr,
                            (wantsPint ? RocePintDigest::SIZE : 0) + RoceIcrcTrailer::SIZE);

    Time now = RoceNow();
    uint32_t wire = m_nic->FrameWireBytes(p->GetSize());
    double rate = m_cc->GetRate();
    double lineRate = static_cast<double>(m_nic->GetBitRate());
    if (rate < lineRate)
    {
        m_nextSendTime = (now + Seconds(wire * 8.0 / rate)).GetTimeStep();
    }
    else
    {
        m_nextSendTime = now.GetTimeStep();
    }
    m_lastSendTime = now.GetTimeStep();
    m_lastWireBytes = wire;
    ++m_stats.dataPacketsSent;
    m_stats.payloadBytesSent += payload;
    if (seq < m_sndMax)
    {
        ++m_stats.retransmittedPackets;
    }
    else
    {
        m_sndMax = seq + 1;
        if (!m_rttValid)
        {
            m_rttValid = true;
            m_rttSeq = seq;
            m_rttSent = now.GetTimeStep();
        }
    }
    m_cc->OnSend(payload, wire);
    if (!m_rtoPending)
    {
        ArmRto();
    }
    return p;
}

void
RoceQueuePair::ArmRto()
{
    m_rtoDeadline = RoceNow().GetTimeStep() + m_rto;
    if (!m_rtoPending)
    {
        m_rtoEvent = RoceSchedule<&RoceQueuePair::RtoExpired>(TimeStep(m_rto), this);
        m_rtoPending = true;
    }
}

void
RoceQueuePair::RtoExpired()
{
    m_rtoPending = false;
    if (m_state != RTS || m_sndMax <= m_sndUna)
    {
        return; // nothing outstanding
    }
    Time now = RoceNow();
    if (now.GetTimeStep() < m_rtoDeadline)
    {
        // Progress was made since the timer was set: wait out the new deadline.
        m_rtoEvent = RoceSchedule<&RoceQueuePair::RtoExpired>(TimeStep(m_rtoDeadline) - now, this);
        m_rtoPending = true;
        return;
    }
    ++m_stats.timeouts;
    ++m_retries;
    if (Traces* t = m_traces.Get())
    {
        t->timeout(RocePsn::ToWire(m_sndUna), static_cast<uint32_t>(m_sndMax - m_sndUna));
    }
    if (m_retries > m_retryCount)
    {
        EnterError();
        return;
    }
    m_cc->OnTimeout();
    GoBack(m_sndUna);
    ArmRto();
}

bool
RoceQueuePair::ApplyRateRise()
{
    Time now = RoceNow();
    if (m_nextSendTime <= now.GetTimeStep())
    {
        return false; // not waiting for its pacing time
    }
    double rate = m_cc->GetRate();
    double lineRate = static_cast<double>(m_nic->GetBitRate());
    Time t = rate < lineRate ? TimeStep(m_lastSendTime) + Seconds(m_lastWireBytes * 8.0 / rate)
                             : TimeStep(m_lastSendTime);
    if (t.GetTimeStep() >= m_nextSendTime)
    {
        return false;
    }
    m_nextSendTime = std::max(t, now).GetTimeStep();
    return true;
}

void
RoceQueuePair::RateRaised()
{
    if (m_state == RTS && ApplyRateRise())
    {
        m_nic->NotifyQpReady(this);
    }
}

bool
RoceQueuePair::IsIdle() const
{
    return !HasOutstanding() && m_nextSendTime <= RoceNow().GetTimeStep();
}

void
RoceQueuePair::SetRto(Time rto)
{
    m_rto = rto.GetTimeStep();
}

Time
RoceQueuePair::GetRto() const
{
    return TimeStep(m_rto);
}

void
RoceQueuePair::GoBack(uint64_t seq)
{
    m_rttValid = false; // Karn: no RTT samples across a retransmission
    m_sndNxt = seq;
    m_nextSendTime = RoceNow().GetTimeStep();
    m_nic->NotifyQpReady(this);
}

void
RoceQueuePair::EnterError()
{
    m_state = ERROR;
    m_rtoEvent.Cancel();
    m_rtoPending = false;
    std::cerr << "rocev2: QP " << m_qpn << " on node " << m_nic->GetNode()->GetId() << " to "
              << m_remoteAddress << " exhausted RetryCount=" << m_retryCount << " at PSN "
              << RocePsn::ToWire(m_sndUna) << " (t=" << RoceNow().As(Time::US)
              << "); the QP is in the error state and its " << m_messages.size() - m_msgHead
              << " pending message(s) failed" << std::endl;
    if (Traces* t = m_traces.Get())
    {
        t->error(m_qpn);
    }
    std::vector<Message> failed;
    failed.swap(m_messages);
    std::size_t head = m_msgHead;
    m_msgHead = m_msgCursor = 0;
    for (std::size_t i = head; i < failed.size(); ++i)
    {
        const Message& m = failed[i];
        ++m_stats.messagesFailed;
        RoceCompletion c{m.id, m.bytes, m.posted, RoceNow(), false};
        if (Traces* t = m_traces.Get())
        {
            t->complete(c);
        }
        if (!m.cb.IsNull())
        {
            m.cb(c);
        }
    }
}

void
RoceQueuePair::PopMessage()
{
    ++m_msgHead;
    if (m_msgHead == m_messages.size())
    {
        // Empty: start again at index 0, keeping the capacity for the next posts.
        m_messages.clear();
        m_msgHead = m_msgCursor = 0;
    }
    else if (m_msgHead >= 32 && 2 * m_msgHead >= m_messages.size())
    {
        // Drop the completed front once it is half the vector: O(1) amortized.
        m_messages.erase(m_messages.begin(), m_messages.begin() + m_msgHead);
        m_msgCursor = m_msgCursor > m_msgHead ? m_msgCursor - m_msgHead : 0;
        m_msgHead = 0;
    }
}

} // namespace ns3
