/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-cc-timely.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCcTimely");
NS_OBJECT_ENSURE_REGISTERED(RoceCcTimely);

TypeId
RoceCcTimely::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCcTimely")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceCcTimely>()
            .AddAttribute("Tlow",
                          "T_low: below this RTT the rate grows by Delta whatever the gradient.",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RoceCcTimely::m_tLow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Thigh",
                          "T_high: above this RTT the rate falls by "
                          "Beta (1 - Thigh/rtt) whatever the gradient.",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&RoceCcTimely::m_tHigh),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor beta.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RoceCcTimely::m_beta),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("EwmaWeight",
                          "Weight a of the newest RTT difference: "
                          "rtt_diff <- (1 - a) rtt_diff + a (rtt - prev_rtt).",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&RoceCcTimely::m_ewmaWeight),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Delta",
                          "Additive increase step delta, per RTT sample.",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&RoceCcTimely::m_delta),
                          MakeDataRateChecker())
            .AddAttribute("HaiThreshold",
                          "Negative gradients in a row after which the increase is "
                          "HaiFactor x Delta (hyperactive increase).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceCcTimely::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("HaiFactor",
                          "Multiple of Delta added per sample in hyperactive increase.",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceCcTimely::m_haiFactor),
                          MakeUintegerChecker<uint32_t>(1, 1000))
            .AddAttribute("HaiCount",
                          "What starts hyperactive increase. NegativeGradients: "
                          "HaiThreshold gradient-region samples in a row with a gradient "
                          "below zero (the TIMELY paper). Increases: HaiThreshold increases "
                          "of any kind, T_low's included, since the last decrease (the HPCC "
                          "simulator's TIMELY).",
                          EnumValue(RoceCcTimely::HAI_NEGATIVE_GRADIENTS),
                          RoceMakeEnumAccessor<RoceCcTimely::HaiCount>(&RoceCcTimely::m_haiCount),
                          MakeEnumChecker(RoceCcTimely::HAI_NEGATIVE_GRADIENTS,
                                          "NegativeGradients",
                                          RoceCcTimely::HAI_INCREASES,
                                          "Increases"))
            .AddAttribute("MinRtt",
                          "minRTT, the gradient's normaliser. 0 uses the base RTT (the "
                          "BaseRtt attribute, else the smallest RTT sampled).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RoceCcTimely::m_minRttAttr),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MinRate",
                          "The rate never falls below this.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RoceCcTimely::m_minRate),
                          MakeDataRateChecker())
            .AddTraceSource("RttGradient",
                            "TIMELY's normalised RTT gradient, rtt_diff / minRTT.",
                            MakeTraceSourceAccessor(&RoceCcTimely::m_gradient),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RoceCcTimely::RoceCcTimely()
    : m_gradient(0.0)
{
    NS_LOG_FUNCTION(this);
}

RoceCcTimely::RoceCcTimely(const RoceCcTimely& other)
    : RoceCongestionOps(other),
      m_tLow(other.m_tLow),
      m_tHigh(other.m_tHigh),
      m_beta(other.m_beta),
      m_ewmaWeight(other.m_ewmaWeight),
      m_delta(other.m_delta),
      m_haiThreshold(other.m_haiThreshold),
      m_haiFactor(other.m_haiFactor),
      m_haiCount(other.m_haiCount),
      m_minRttAttr(other.m_minRttAttr),
      m_minRate(other.m_minRate),
      m_gradient(0.0)
{
    NS_LOG_FUNCTION(this);
}

RoceCcTimely::~RoceCcTimely() = default;

std::string
RoceCcTimely::GetName() const
{
    return "timely";
}

Ptr<RoceCongestionOps>
RoceCcTimely::Fork()
{
    return CopyObject<RoceCcTimely>(this);
}

void
RoceCcTimely::Init(const RoceCcContext& ctx)
{
    NS_LOG_FUNCTION(this);
    RoceCongestionOps::Init(ctx);
    ROCE_ERROR_IF(m_tLow >= m_tHigh,
                  "RoceCcTimely: Tlow=" << m_tLow.As(Time::US)
                                        << " must be below Thigh=" << m_tHigh.As(Time::US));
    CheckRate("MinRate", m_minRate, "would stop the queue pair for good");
    CheckRate("Delta", m_delta, "would never raise the rate");
    m_prevRtt = 0;
    m_havePrev = false;
    m_rttDiff = 0;
    m_negativeRun = 0;
    m_increases = 0;
    m_gradient = 0.0;
}

void
RoceCcTimely::OnAck(const RoceAckEvent& ack)
{
    if (!ack.rtt.IsStrictlyPositive())
    {
        return;
    }
    double rtt = ack.rtt.GetSeconds();
    if (!m_havePrev)
    {
        // A gradient needs two samples: the first only sets prev_rtt.
        m_prevRtt = rtt;
        m_havePrev = true;
        return;
    }
    double newDiff = rtt - m_prevRtt;
    m_prevRtt = rtt;
    m_rttDiff = (1.0 - m_ewmaWeight) * m_rttDiff + m_ewmaWeight * newDiff;
    Time minRtt = m_minRttAttr.IsStrictlyPositive() ? m_minRttAttr : GetBaseRtt();
    m_gradient = minRtt.IsStrictlyPositive() ? m_rttDiff / minRtt.GetSeconds() : 0.0;

    double rate = m_rate;
    double delta = static_cast<double>(m_delta.GetBitRate());
    if (ack.rtt > m_tHigh)
    {
        m_negativeRun = 0;
        m_increases = 0;
        rate *= 1.0 - m_beta * (1.0 - m_tHigh.GetSeconds() / rtt);
    }
    else if (ack.rtt >= m_tLow && m_gradient > 0)
    {
        m_negativeRun = 0;
        m_increases = 0;
        rate *= 1.0 - m_beta * m_gradient;
    }
    else
    {
        // An increase: below T_low whatever the gradient, or a gradient <= 0.
        const bool belowLow = ack.rtt < m_tLow;
        m_negativeRun = !belowLow && m_gradient < 0 ? m_negativeRun + 1 : 0;
        const bool hai = m_haiCount == HAI_INCREASES ? m_increases >= m_haiThreshold
                                                     : m_negativeRun >= m_haiThreshold;
        ++m_increases;
        rate += (hai ? m_haiFactor : 1) * delta;
    }
    m_rate = ClampRate(rate, static_cast<double>(m_minRate.GetBitRate()));
}

double
RoceCcTimely::GetRttGradient() const
{
    return m_gradient;
}

uint32_t
RoceCcTimely::GetNegativeGradientRun() const
{
    return m_negativeRun;
}

} // namespace ns3
