/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RoceQueuePair, what arrives: ACKs and NAKs (requester), CNPs, data
// (responder), and the ACKs the responder sends back from its header template.

#include "roce-net-device.h"
#include "roce-queue-pair-reorder.h"
#include "roce-queue-pair.h"

#include "ns3/packet.h"
#include "ns3/roce-aeth-header.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-pint-digest.h"
#include "ns3/roce-psn.h"
#include "ns3/roce-raw-trailer.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

bool
RoceQueuePair::AckUpTo(uint64_t newUna,
                       bool ecnEcho,
                       const std::vector<RoceIntRecord>* ints,
                       int32_t pint)
{
    if (newUna <= m_sndUna || newUna > m_sndMax)
    {
        return false; // duplicate or stale
    }
    uint64_t acked = 0;
    uint64_t seq = m_sndUna;
    Time now = RoceNow();
    while (m_msgHead < m_messages.size() && seq < newUna)
    {
        const Message& m = m_messages[m_msgHead];
        uint64_t end = m.firstSeq + m.nPackets;
        uint64_t upTo = std::min(newUna, end);
        uint64_t before = std::min<uint64_t>(m.bytes, (seq - m.firstSeq) * m_mtu);
        uint64_t after = std::min<uint64_t>(m.bytes, (upTo - m.firstSeq) * m_mtu);
        acked += after - before;
        seq = upTo;
        if (upTo == end)
        {
            RoceCompletion c{m.id, m.bytes, m.posted, now, true};
            CompletionCallback cb = m.cb;
            PopMessage();
            ++m_stats.messagesCompleted;
            if (Traces* t = m_traces.Get())
            {
                t->complete(c);
            }
            if (!cb.IsNull())
            {
                cb(c);
            }
        }
    }
    m_sndUna = newUna;
    if (m_sndNxt < m_sndUna)
    {
        m_sndNxt = m_sndUna;
    }
    m_retries = 0;
    m_stats.bytesAcked += acked;

    RoceAckEvent ev;
    ev.ackedBytes = acked;
    ev.sndUna = m_sndUna;
    ev.sndNxt = m_sndNxt;
    ev.ecnEcho = ecnEcho;
    ev.intRecords = ints;
    ev.pint = pint;
    if (m_rttValid && newUna > m_rttSeq)
    {
        ev.rtt = now - TimeStep(m_rttSent);
        m_rttValid = false;
        m_cc->RecordRtt(ev.rtt);
    }
    if (ecnEcho && m_cc->EcnEchoIsCnp())
    {
        ++m_stats.cnpReceived;
    }
    double rateBefore = m_cc->GetRate();
    m_cc->OnAck(ev);
    if (m_cc->GetRate() > rateBefore)
    {
        ApplyRateRise(); // the caller notifies the NIC
    }
    if (m_sndMax > m_sndUna)
    {
        ArmRto();
    }
    else if (m_rtoPending)
    {
        Simulator::Remove(m_rtoEvent); // nothing outstanding: leave no timer event behind
        m_rtoPending = false;
    }
    return true;
}

void
RoceQueuePair::ReceiveAck(const RoceBthHeader& bth,
                          const RoceAethHeader& aeth,
                          const std::vector<RoceIntRecord>& ints,
                          int32_t pint)
{
    if (m_state != RTS)
    {
        return;
    }
    uint64_t seq = RocePsn::Unwrap(bth.GetPsn(), m_sndUna);
    if (aeth.IsNak())
    {
        ++m_stats.naksReceived;
        if (aeth.GetCode() != RoceAethHeader::PSN_SEQUENCE_ERROR)
        {
            return;
        }
        // A NAK names the PSN the receiver expects: everything before it arrived.
        bool progress = AckUpTo(seq, bth.GetBecn(), &ints, pint);
        if (seq >= m_sndUna && seq < m_sndNxt)
        {
            uint64_t resent = m_sndMax - seq;
            if (Traces* t = m_traces.Get())
            {
                t->retransmit(RocePsn::ToWire(seq), static_cast<uint32_t>(resent));
            }
            m_cc->OnNak();
            GoBack(seq);
        }
        else if (progress)
        {
            m_nic->NotifyQpReady(this); // it acknowledged data: the window may have opened
        }
        return;
    }
    if (AckUpTo(seq + 1, bth.GetBecn(), &ints, pint))
    {
        m_nic->NotifyQpReady(this);
    }
}

void
RoceQueuePair::ReceiveCnp()
{
    ++m_stats.cnpReceived;
    if (m_state == RTS)
    {
        m_cc->OnCnp();
    }
}

// ---------------------------------------------------------------------------
// Receiver

void
RoceQueuePair::ReceiveData(uint32_t payload,
                           const RoceBthHeader& bth,
                           bool ce,
                           const std::vector<RoceIntRecord>& ints,
                           int32_t pint)
{
    if (m_state != RTS)
    {
        return;
    }
    if (ce)
    {
        ++m_stats.ceReceived;
        m_ceSinceAck = true;
        if (m_cc->OnCeReceived())
        {
            ++m_stats.cnpSent;
            m_nic->SendCnp(this);
        }
    }
    uint32_t psn = bth.GetPsn();
    int32_t d = RocePsn::Diff(psn, RocePsn::ToWire(m_rcvNxt));
    if (d > 0)
    {
        ++m_stats.outOfOrderReceived;
        if (m_reorder && m_reorder->InWindow(static_cast<uint32_t>(d)))
        {
            HoldOutOfOrder(payload, bth, static_cast<uint32_t>(d));
            return;
        }
        if (!m_nakSent)
        {
            m_nakSent = true;
            SendAck(true, m_rcvNxt);
        }
        return;
    }
    if (d < 0)
    {
        ++m_stats.duplicatesReceived;
        SendAck(false, m_rcvNxt - 1);
        return;
    }
    uint8_t op = bth.GetOpcode();
    if (RoceBthHeader::IsFirst(op))
    {
        m_rcvMessageBytes = 0;
    }
    m_nakSent = false;
    ++m_rcvNxt;
    m_intEcho = ints;
    m_pintEcho = pint;
    m_stats.bytesDelivered += payload;
    m_rcvMessageBytes += payload;
    if (Traces* t = m_traces.Get())
    {
        t->deliver(psn, payload);
    }
    bool last = RoceBthHeader::IsLast(op);
    if (last)
    {
        m_rcvMsn = (m_rcvMsn + 1) & 0xFFFFFF;
        ++m_stats.messagesReceived;
        if (Traces* t = m_traces.Get())
        {
            t->messageReceived(m_rcvMessageBytes, m_rcvMsn);
        }
    }
    if (m_reorder && m_reorder->Has(m_rcvNxt))
    {
        DeliverHeld();
        last = true; // acknowledge everything delivered, at once
    }
    if (last || bth.GetAckReq() || ++m_unackedPackets >= m_ackInterval)
    {
        SendAck(false, m_rcvNxt - 1);
    }
}

void
RoceQueuePair::DeliverHeld()
{
    // Selective repeat: the gap before the held packets filled. Deliver them
    // in order, as the in-order path above does, up to the next gap.
    do
    {
        uint32_t psn = RocePsn::ToWire(m_rcvNxt);
        RoceReorderWindow::Held h = m_reorder->Take(m_rcvNxt);
        if (RoceBthHeader::IsFirst(h.opcode))
        {
            m_rcvMessageBytes = 0;
        }
        ++m_rcvNxt;
        m_stats.bytesDelivered += h.payload;
        m_rcvMessageBytes += h.payload;
        if (Traces* t = m_traces.Get())
        {
            t->deliver(psn, h.payload);
        }
        if (RoceBthHeader::IsLast(h.opcode))
        {
            m_rcvMsn = (m_rcvMsn + 1) & 0xFFFFFF;
            ++m_stats.messagesReceived;
            if (Traces* t = m_traces.Get())
            {
                t->messageReceived(m_rcvMessageBytes, m_rcvMsn);
            }
        }
    } while (m_reorder->Has(m_rcvNxt));
}

void
RoceQueuePair::HoldOutOfOrder(uint32_t payload, const RoceBthHeader& bth, uint32_t ahead)
{
    RoceReorderWindow::Held h;
    h.opcode = bth.GetOpcode();
    h.payload = payload;
    if (!m_reorder->Insert(m_rcvNxt + ahead, h))
    {
        ++m_stats.duplicatesReceived; // already held: a retransmission
    }
}

void
RoceQueuePair::SendAck(bool nak, uint64_t psnSeq)
{
    RoceAethHeader aeth;
    if (nak)
    {
        aeth.SetType(RoceAethHeader::NAK, RoceAethHeader::PSN_SEQUENCE_ERROR);
        ++m_stats.naksSent;
    }
    else
    {
        aeth.SetType(RoceAethHeader::ACK, 0x1F); // credits: 0x1F = invalid (not used)
        ++m_stats.acksSent;
    }
    RoceHeaderBlock& h = Headers().ack;
    h.SetPsn(RocePsn::ToWire(psnSeq));
    h.SetBecn(m_ceSinceAck);
    h.SetIntHops(static_cast<uint8_t>(m_intEcho.size()));
    h.SetPintRequest(m_pintEcho >= 0);
    h.SetAeth(aeth.GetSyndrome(), m_rcvMsn);
    m_ceSinceAck = false;
    m_unackedPackets = 0;
    // A compact frame: the headers, then the echoed digest or records and
    // the ICRC (zero).
    uint8_t b[RoceRawTrailer::MAX_SIZE] = {};
    uint32_t n = 0;
    if (m_pintEcho >= 0)
    {
        RocePintDigest::Write(b, static_cast<uint16_t>(m_pintEcho));
        m_pintEcho = -1;
        n = RocePintDigest::SIZE;
    }
    else
    {
        for (const auto& r : m_intEcho)
        {
            r.Write(b + n);
            n += RoceIntRecord::SIZE;
        }
        m_intEcho.clear();
    }
    m_nic->SendControl(RoceWireFrame::Make(h, 0, b, n + RoceIcrcTrailer::SIZE),
                       m_nic->GetAckPriority(m_priority));
}

RoceQueuePair::HeaderTemplates&
RoceQueuePair::Headers()
{
    HeaderTemplates* t = m_headers.get();
    uint8_t dscp = m_nic->PriorityToDscp(m_priority);
    // ACKs in the queue pair's own class (the default) need no second lookup.
    const uint8_t ackPriority = m_nic->GetAckDscpPriority(m_priority);
    uint8_t ackDscp = ackPriority == m_priority ? dscp : m_nic->PriorityToDscp(ackPriority);
    Mac48Address peer = m_nic->GetPeerMac();
    if (t && t->generation == m_nic->GetHeaderGeneration() && t->sourcePort == m_sourcePort &&
        t->dscp == dscp && t->ackDscp == ackDscp && t->peerMac == peer)
    {
        return *t;
    }
    if (!t)
    {
        m_headers = std::make_unique<HeaderTemplates>();
        t = m_headers.get();
    }
    RoceBthHeader bth;
    bth.SetDestQp(m_remoteQpn);
    m_nic->InitHeaderBlock(t->data, m_remoteAddress, m_sourcePort, m_priority, true, bth);
    bth.SetOpcode(RoceBthHeader::ACKNOWLEDGE);
    m_nic->InitHeaderBlock(t->ack, m_remoteAddress, m_sourcePort, ackPriority, false, bth);
    t->generation = m_nic->GetHeaderGeneration();
    t->sourcePort = m_sourcePort;
    t->dscp = dscp;
    t->ackDscp = ackDscp;
    t->peerMac = peer;
    return *t;
}

} // namespace ns3
