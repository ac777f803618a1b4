/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-cc-hpcc.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCcHpcc");
NS_OBJECT_ENSURE_REGISTERED(RoceCcHpcc);

TypeId
RoceCcHpcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCcHpcc")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceCcHpcc>()
            .AddAttribute("Eta",
                          "Target utilisation eta: the window shrinks when the most loaded "
                          "hop's normalised inflight U exceeds it.",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&RoceCcHpcc::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "Additive increases (once per RTT) before the window grows "
                          "multiplicatively, Wc / (U/eta), even below eta.",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceCcHpcc::m_maxStage),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("Wai",
                          "Additive increase W_AI, bytes on the wire (a size in packets "
                          "counts full packets with their headers). 0 derives it: "
                          "W_init (1 - Eta) / ExpectedFlows with W_init = line rate x T.",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&RoceCcHpcc::m_waiAttr),
                          MakeQueueSizeChecker())
            .AddAttribute("ExpectedFlows",
                          "N, the number of flows expected to share a bottleneck, when W_AI "
                          "is derived (Wai = 0).",
                          UintegerValue(100),
                          MakeUintegerAccessor(&RoceCcHpcc::m_expectedFlows),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("FastReact",
                          "Recompute W from Wc and U on every ACK (true), or only on the "
                          "once-per-RTT ACK that updates Wc (false: the records of the ACKs "
                          "between are not read, so U's sample spans the whole RTT; the HPCC "
                          "simulator's FAST_REACT 0).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceCcHpcc::m_fastReact),
                          MakeBooleanChecker())
            .AddAttribute("MinRate",
                          "The rate W/T never falls below this.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RoceCcHpcc::m_minRate),
                          MakeDataRateChecker())
            .AddTraceSource("Utilization",
                            "HPCC's U: normalised inflight of the most loaded hop (1 = a "
                            "full link with an empty queue).",
                            MakeTraceSourceAccessor(&RoceCcHpcc::m_u),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RoceCcHpcc::RoceCcHpcc()
    : m_u(0.0)
{
    NS_LOG_FUNCTION(this);
}

RoceCcHpcc::RoceCcHpcc(const RoceCcHpcc& other)
    : RoceCongestionOps(other),
      m_eta(other.m_eta),
      m_maxStage(other.m_maxStage),
      m_waiAttr(other.m_waiAttr),
      m_expectedFlows(other.m_expectedFlows),
      m_minRate(other.m_minRate),
      m_fastReact(other.m_fastReact),
      m_u(0.0)
{
    NS_LOG_FUNCTION(this);
}

RoceCcHpcc::~RoceCcHpcc() = default;

std::string
RoceCcHpcc::GetName() const
{
    return "hpcc";
}

Ptr<RoceCongestionOps>
RoceCcHpcc::Fork()
{
    return CopyObject<RoceCcHpcc>(this);
}

bool
RoceCcHpcc::WantsInt() const
{
    return true;
}

void
RoceCcHpcc::Init(const RoceCcContext& ctx)
{
    NS_LOG_FUNCTION(this);
    RoceCongestionOps::Init(ctx);
    RefuseRateWindow();
    CheckRate("MinRate", m_minRate, "would stop the queue pair for good");
    m_wirePacket = static_cast<double>(ctx.mtu) + ctx.wireOverhead;
    m_t = Time(0);
    m_tSeconds = m_tNs = 0;
    m_wInit = m_wai = m_w = m_wc = 0;
    m_incStage = 0;
    m_lastUpdateSeq = 0;
    m_nHops = 0;
    m_u = 0.0;
    if (UpdateBaseRtt())
    {
        // BaseRtt is configured: check W_AI against the window it belongs to.
        ROCE_ERROR_IF(m_wai >= m_wInit,
                      "RoceCcHpcc: Wai=" << m_waiAttr
                                         << " is not below the initial window "
                                            "line rate x BaseRtt = "
                                         << m_wInit << " bytes");
    }
    Publish();
}

bool
RoceCcHpcc::UpdateBaseRtt()
{
    Time t = GetBaseRtt();
    if (!t.IsStrictlyPositive())
    {
        return false;
    }
    if (t == m_t)
    {
        return true;
    }
    bool first = m_t.IsZero();
    m_t = t;
    m_tSeconds = t.GetSeconds();
    m_tNs = m_tSeconds * 1e9;
    m_wInit =
        std::max(static_cast<double>(m_ctx.lineRate.GetBitRate()) * m_tSeconds / 8.0, m_wirePacket);
    if (m_waiAttr.GetValue() == 0)
    {
        m_wai = m_wInit * (1.0 - m_eta) / m_expectedFlows;
    }
    else if (m_waiAttr.GetUnit() == QueueSizeUnit::PACKETS)
    {
        m_wai = static_cast<double>(m_waiAttr.GetValue()) * m_wirePacket;
    }
    else
    {
        m_wai = static_cast<double>(m_waiAttr.GetValue());
    }
    if (first)
    {
        m_w = m_wc = m_wInit;
    }
    else
    {
        m_w = ClampWindow(m_w);
        m_wc = ClampWindow(m_wc);
    }
    NS_LOG_LOGIC("T=" << m_t.As(Time::US) << " W_init=" << m_wInit << " W_AI=" << m_wai);
    return true;
}

double
RoceCcHpcc::ClampWindow(double w) const
{
    return std::min(m_wInit, std::max(m_wirePacket, w));
}

void
RoceCcHpcc::OnAck(const RoceAckEvent& ack)
{
    bool known = UpdateBaseRtt();
    bool updateWc = ack.sndUna > m_lastUpdateSeq;
    if (!m_fastReact && !updateWc && m_nHops > 0)
    {
        Publish(); // T may have changed; W did not
        return;    // without fast reaction only the once-per-RTT ACK is read
    }
    // Before T is known the records are only kept, for the next comparison.
    bool measured = ack.intRecords && !ack.intRecords->empty() && MeasureInflight(*ack.intRecords);
    if (!known)
    {
        return;
    }
    if (measured)
    {
        ComputeWindow(updateWc);
        if (updateWc)
        {
            m_lastUpdateSeq = ack.sndNxt;
        }
    }
    Publish();
}

bool
RoceCcHpcc::MeasureInflight(const std::vector<RoceIntRecord>& records)
{
    uint32_t n = static_cast<uint32_t>(std::min<std::size_t>(records.size(), m_hops.size()));
    bool comparable = n == m_nHops && m_tNs > 0;
    bool found = false;
    double u = 0;
    double tauNs = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const RoceIntRecord& cur = records[i];
        RoceIntRecord& prev = m_hops[i];
        const uint64_t dt = comparable ? RoceIntRecord::TimeDeltaNs(cur, prev) : 0;
        if (dt > 0 && cur.rateMbps > 0)
        {
            double dtNs = static_cast<double>(dt);
            double bytesPerNs = cur.rateMbps / 8000.0; // B_i
            double txRate = static_cast<double>(RoceIntRecord::TxBytesDelta(cur, prev)) / dtNs;
            double qlen = static_cast<double>(std::min(cur.queueBytes, prev.queueBytes));
            double ui = qlen / (bytesPerNs * m_tNs) + txRate / bytesPerNs;
            if (!found || ui > u)
            {
                u = ui;
                tauNs = dtNs;
                found = true;
            }
        }
        prev = cur;
    }
    m_nHops = n;
    if (!found)
    {
        return false;
    }
    double weight = std::min(tauNs, m_tNs) / m_tNs;
    m_u = (1.0 - weight) * m_u + weight * u;
    return true;
}

void
RoceCcHpcc::ComputeWindow(bool updateWc)
{
    double u = m_u;
    double w;
    bool multiplicative = u >= m_eta || m_incStage >= m_maxStage;
    if (multiplicative)
    {
        // Wc / (U/eta); U = 0 (an idle path after maxStage) allows the largest window.
        w = u > 0 ? m_wc * m_eta / u + m_wai : m_wInit;
    }
    else
    {
        w = m_wc + m_wai;
    }
    m_w = ClampWindow(w);
    if (updateWc)
    {
        m_wc = m_w;
        m_incStage = multiplicative ? 0 : m_incStage + 1;
    }
}

void
RoceCcHpcc::Publish()
{
    if (m_t.IsZero())
    {
        m_rate = static_cast<double>(m_ctx.lineRate.GetBitRate());
        m_window = 0;
        return;
    }
    m_rate = ClampRate(m_w * 8.0 / m_tSeconds, static_cast<double>(m_minRate.GetBitRate()));
    double payloadWindow = m_w * m_ctx.mtu / m_wirePacket;
    m_window = std::max<uint64_t>(static_cast<uint64_t>(std::llround(payloadWindow)), 1);
}

double
RoceCcHpcc::GetUtilization() const
{
    return m_u;
}

double
RoceCcHpcc::GetWireWindow() const
{
    return m_w;
}

double
RoceCcHpcc::GetReferenceWindow() const
{
    return m_wc;
}

uint32_t
RoceCcHpcc::GetIncreaseStage() const
{
    return m_incStage;
}

double
RoceCcHpcc::GetInitialWindow() const
{
    return m_wInit;
}

double
RoceCcHpcc::GetAdditiveIncrease() const
{
    return m_wai;
}

} // namespace ns3
