/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-cc-dctcp-rate.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCcDctcpRate");
NS_OBJECT_ENSURE_REGISTERED(RoceCcDctcpRate);

TypeId
RoceCcDctcpRate::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCcDctcpRate")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceCcDctcpRate>()
            .AddAttribute("G",
                          "Alpha gain g: alpha <- (1-g) alpha + g F once per window of "
                          "observation, F the fraction of ECN-echoed bytes in it.",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&RoceCcDctcpRate::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "Alpha when the queue pair connects (1: the first cut halves R).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RoceCcDctcpRate::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("RateAi",
                          "Additive increase of the rate at the end of each window of "
                          "observation outside a cut period (the HPCC simulator's "
                          "DCTCP_RATE_AI).",
                          DataRateValue(DataRate("1000Mbps")),
                          MakeDataRateAccessor(&RoceCcDctcpRate::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "The rate never falls below this.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RoceCcDctcpRate::m_minRate),
                          MakeDataRateChecker())
            .AddTraceSource("Alpha",
                            "DCTCP alpha of the queue pair.",
                            MakeTraceSourceAccessor(&RoceCcDctcpRate::m_alpha),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RoceCcDctcpRate::RoceCcDctcpRate()
    : m_alpha(1.0)
{
    NS_LOG_FUNCTION(this);
}

RoceCcDctcpRate::RoceCcDctcpRate(const RoceCcDctcpRate& other)
    : RoceCongestionOps(other),
      m_g(other.m_g),
      m_initialAlpha(other.m_initialAlpha),
      m_rateAi(other.m_rateAi),
      m_minRate(other.m_minRate),
      m_alpha(other.m_initialAlpha)
{
    NS_LOG_FUNCTION(this);
}

RoceCcDctcpRate::~RoceCcDctcpRate() = default;

std::string
RoceCcDctcpRate::GetName() const
{
    return "dctcp-rate";
}

Ptr<RoceCongestionOps>
RoceCcDctcpRate::Fork()
{
    return CopyObject<RoceCcDctcpRate>(this);
}

void
RoceCcDctcpRate::Init(const RoceCcContext& ctx)
{
    NS_LOG_FUNCTION(this);
    RoceCongestionOps::Init(ctx);
    CheckRate("MinRate", m_minRate, "would stop the queue pair for good");
    CheckRate("RateAi", m_rateAi, "");
    m_alpha = m_initialAlpha;
    m_observing = m_cutting = false;
    m_windowEnd = m_ackedBytes = m_markedBytes = m_cutEnd = 0;
    m_cuts = 0;
}

void
RoceCcDctcpRate::OnAck(const RoceAckEvent& ack)
{
    // The window of observation: alpha once per RTT.
    bool windowEnded = false;
    m_ackedBytes += ack.ackedBytes;
    m_markedBytes += ack.ecnEcho ? ack.ackedBytes : 0;
    if (!m_observing)
    {
        m_observing = true;
        m_windowEnd = ack.sndNxt;
        m_ackedBytes = m_markedBytes = 0;
    }
    else if (ack.sndUna > m_windowEnd)
    {
        const double f = m_ackedBytes > 0 ? static_cast<double>(m_markedBytes) /
                                                static_cast<double>(m_ackedBytes)
                                          : 0.0;
        m_alpha = (1.0 - m_g) * m_alpha + m_g * f;
        m_windowEnd = ack.sndNxt;
        m_ackedBytes = m_markedBytes = 0;
        windowEnded = true;
    }
    if (m_cutting && ack.sndUna > m_cutEnd)
    {
        m_cutting = false;
    }
    const double line = static_cast<double>(m_ctx.lineRate.GetBitRate());
    if (ack.ecnEcho && !m_cutting)
    {
        const double cut = m_rate.Get() * (1.0 - m_alpha.Get() / 2);
        m_rate = std::max(static_cast<double>(m_minRate.GetBitRate()), cut);
        m_cutting = true;
        m_cutEnd = ack.sndNxt;
        ++m_cuts;
    }
    if (windowEnded && !m_cutting)
    {
        m_rate = std::min(line, m_rate.Get() + static_cast<double>(m_rateAi.GetBitRate()));
    }
}

double
RoceCcDctcpRate::GetAlpha() const
{
    return m_alpha;
}

uint32_t
RoceCcDctcpRate::GetCuts() const
{
    return m_cuts;
}

} // namespace ns3
