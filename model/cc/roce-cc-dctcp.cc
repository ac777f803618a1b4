/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-cc-dctcp.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCcDctcp");
NS_OBJECT_ENSURE_REGISTERED(RoceCcDctcp);

TypeId
RoceCcDctcp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCcDctcp")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceCcDctcp>()
            .AddAttribute("G",
                          "Alpha gain g: alpha <- (1-g) alpha + g F once per window, F the "
                          "fraction of ECN-echoed bytes in it.",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&RoceCcDctcp::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "Alpha when the queue pair connects (1: the first cut halves W).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RoceCcDctcp::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialWindow",
                          "Initial window in payload bytes (a size in packets counts payload "
                          "MTUs). 0 starts from the bandwidth-delay product, line rate x "
                          "base RTT, once the base RTT is known.",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&RoceCcDctcp::m_initialWindow),
                          MakeQueueSizeChecker())
            .AddTraceSource("Alpha",
                            "DCTCP alpha of the queue pair.",
                            MakeTraceSourceAccessor(&RoceCcDctcp::m_alpha),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RoceCcDctcp::RoceCcDctcp()
    : m_alpha(1.0)
{
    NS_LOG_FUNCTION(this);
}

RoceCcDctcp::RoceCcDctcp(const RoceCcDctcp& other)
    : RoceCongestionOps(other),
      m_g(other.m_g),
      m_initialAlpha(other.m_initialAlpha),
      m_initialWindow(other.m_initialWindow),
      m_alpha(other.m_initialAlpha)
{
    NS_LOG_FUNCTION(this);
}

RoceCcDctcp::~RoceCcDctcp() = default;

std::string
RoceCcDctcp::GetName() const
{
    return "dctcp";
}

Ptr<RoceCongestionOps>
RoceCcDctcp::Fork()
{
    return CopyObject<RoceCcDctcp>(this);
}

void
RoceCcDctcp::Init(const RoceCcContext& ctx)
{
    NS_LOG_FUNCTION(this);
    RoceCongestionOps::Init(ctx);
    RefuseRateWindow();
    ROCE_ERROR_IF(ctx.mtu == 0, "RoceCcDctcp: the queue pair's payload MTU is 0");
    m_alpha = m_initialAlpha;
    m_haveWindow = false;
    m_w = 0;
    m_observing = false;
    m_windowEnd = m_ackedBytes = m_markedBytes = 0;
    m_cutEnd = m_lastSndUna = m_lastSndNxt = 0;
    m_cuts = 0;
    if (m_initialWindow.GetValue() > 0)
    {
        double w = static_cast<double>(m_initialWindow.GetValue());
        if (m_initialWindow.GetUnit() == QueueSizeUnit::PACKETS)
        {
            w *= ctx.mtu;
        }
        ROCE_ERROR_IF(w < ctx.mtu,
                      "RoceCcDctcp: InitialWindow=" << m_initialWindow << " is below one packet ("
                                                    << ctx.mtu << " payload bytes)");
        m_haveWindow = true;
        SetWindow(w);
    }
    else
    {
        StartWindowFromBdp();
    }
}

void
RoceCcDctcp::StartWindowFromBdp()
{
    Time t = GetBaseRtt();
    if (m_haveWindow || !t.IsStrictlyPositive())
    {
        return;
    }
    double wireBdp = static_cast<double>(m_ctx.lineRate.GetBitRate()) * t.GetSeconds() / 8.0;
    m_haveWindow = true;
    SetWindow(wireBdp * m_ctx.mtu / (m_ctx.mtu + m_ctx.wireOverhead));
}

void
RoceCcDctcp::SetWindow(double w)
{
    m_w = std::max(w, static_cast<double>(m_ctx.mtu));
    m_window = static_cast<uint64_t>(std::llround(m_w));
}

void
RoceCcDctcp::OnAck(const RoceAckEvent& ack)
{
    StartWindowFromBdp();
    m_lastSndUna = ack.sndUna;
    m_lastSndNxt = ack.sndNxt;
    // RFC 8257 section 3.3, steps 1-3: count the acknowledged bytes and, when
    // the ACK echoes CE, the marked ones.
    m_ackedBytes += ack.ackedBytes;
    if (ack.ecnEcho)
    {
        m_markedBytes += ack.ackedBytes;
    }
    if (m_haveWindow)
    {
        if (ack.ecnEcho && ack.sndUna > m_cutEnd)
        {
            // RFC 8257 section 3.3: on ECE, cwnd <- cwnd (1 - alpha / 2) with the
            // current alpha; as in RFC 3168 section 6.1.2, at most once per window
            // of data: not again until snd_una passes the snd_nxt of this moment.
            SetWindow(m_w * (1.0 - m_alpha / 2.0));
            m_cutEnd = ack.sndNxt;
            ++m_cuts;
        }
        else if (!ack.ecnEcho)
        {
            // RFC 8257 section 3.4: the window grows as conventional TCP's, by
            // RFC 5681 section 3.1's congestion avoidance, cwnd += SMSS x acked /
            // cwnd on each ACK (about one MTU per window of data), whether or not
            // earlier ACKs of the window echoed CE; RFC 3168 section 6.1.2: not on
            // an ACK that echoes CE. Only while the window limited the sender
            // (RFC 7661): it was full before this ACK freed room.
            uint64_t ackedPackets = (ack.ackedBytes + m_ctx.mtu - 1) / m_ctx.mtu;
            uint64_t inflightBefore = ack.sndNxt - ack.sndUna + ackedPackets;
            if (static_cast<double>(inflightBefore + 1) * m_ctx.mtu > m_w)
            {
                SetWindow(m_w + static_cast<double>(m_ctx.mtu) * ack.ackedBytes / m_w);
            }
        }
    }
    if (!m_observing)
    {
        // The first ACK opens the first observation window.
        m_observing = true;
        m_windowEnd = ack.sndNxt;
        m_ackedBytes = m_markedBytes = 0;
        return;
    }
    // RFC 8257 section 3.3, steps 4-8: alpha moves once per observation window,
    // at the first ACK whose snd_una passes the window's end.
    if (ack.sndUna <= m_windowEnd)
    {
        return;
    }
    double f = m_ackedBytes > 0 ? static_cast<double>(m_markedBytes) / m_ackedBytes : 0.0;
    m_alpha = (1.0 - m_g) * m_alpha + m_g * f;
    m_windowEnd = ack.sndNxt;
    m_ackedBytes = m_markedBytes = 0;
}

void
RoceCcDctcp::OnNak()
{
    if (!m_haveWindow || m_lastSndUna <= m_cutEnd)
    {
        return; // no window yet, or this window was cut already
    }
    SetWindow(m_w / 2.0);
    m_cutEnd = m_lastSndNxt;
    ++m_cuts;
}

void
RoceCcDctcp::OnTimeout()
{
    if (!m_haveWindow)
    {
        return;
    }
    SetWindow(m_w / 2.0);
    m_cutEnd = m_lastSndNxt;
    ++m_cuts;
}

bool
RoceCcDctcp::OnCeReceived()
{
    return false;
}

double
RoceCcDctcp::GetAlpha() const
{
    return m_alpha;
}

uint64_t
RoceCcDctcp::GetCuts() const
{
    return m_cuts;
}

} // namespace ns3
