/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-cc-hpcc-pint.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-pint-digest.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCcHpccPint");
NS_OBJECT_ENSURE_REGISTERED(RoceCcHpccPint);

TypeId
RoceCcHpccPint::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCcHpccPint")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceCcHpccPint>()
            .AddAttribute("Eta",
                          "Target utilisation eta (the HPCC simulator's U_TARGET).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&RoceCcHpccPint::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "Additive increases before a multiplicative step at low "
                          "utilisation (the HPCC simulator's MI_THRESH).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceCcHpccPint::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAi",
                          "Additive increase of the rate per update (the HPCC simulator's "
                          "RATE_AI).",
                          DataRateValue(DataRate("50Mbps")),
                          MakeDataRateAccessor(&RoceCcHpccPint::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "The rate never falls below this.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RoceCcHpccPint::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("SampleProbability",
                          "Share of ACKs whose digest is read, (0, 1] (the HPCC "
                          "simulator's PINT_PROB).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RoceCcHpccPint::m_sampleProb),
                          MakeDoubleChecker<double>(1e-6, 1.0));
    return tid;
}

RoceCcHpccPint::RoceCcHpccPint()
{
    NS_LOG_FUNCTION(this);
}

RoceCcHpccPint::RoceCcHpccPint(const RoceCcHpccPint& other)
    : RoceCongestionOps(other),
      m_eta(other.m_eta),
      m_maxStage(other.m_maxStage),
      m_rateAi(other.m_rateAi),
      m_minRate(other.m_minRate),
      m_sampleProb(other.m_sampleProb)
{
    NS_LOG_FUNCTION(this);
}

RoceCcHpccPint::~RoceCcHpccPint() = default;

std::string
RoceCcHpccPint::GetName() const
{
    return "hpcc-pint";
}

Ptr<RoceCongestionOps>
RoceCcHpccPint::Fork()
{
    return CopyObject<RoceCcHpccPint>(this);
}

void
RoceCcHpccPint::Init(const RoceCcContext& ctx)
{
    NS_LOG_FUNCTION(this);
    RoceCongestionOps::Init(ctx);
    CheckRate("MinRate", m_minRate, "would stop the queue pair for good");
    CheckRate("RateAi", m_rateAi, "would never raise the rate");
    m_logBase = RocePintDigest::GetLogBase();
    m_refRate = static_cast<double>(ctx.lineRate.GetBitRate());
    m_u = 0;
    m_incStage = 0;
    m_started = false;
    m_lastUpdateSeq = 0;
}

bool
RoceCcHpccPint::WantsPint() const
{
    return true;
}

bool
RoceCcHpccPint::Sampled(uint64_t sndUna, double p)
{
    if (p >= 1.0)
    {
        return true;
    }
    // A 64-bit mix of snd_una (splitmix64's finaliser), its top 53 bits as a
    // fraction of 1: uniform over ACKs, the same in every run.
    uint64_t z = sndUna + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53 < p;
}

void
RoceCcHpccPint::OnAck(const RoceAckEvent& ack)
{
    if (ack.pint < 0 || !Sampled(ack.sndUna, m_sampleProb))
    {
        return;
    }
    if (!m_started)
    {
        m_started = true;
        m_lastUpdateSeq = ack.sndNxt;
        return;
    }
    const bool update = ack.sndUna > m_lastUpdateSeq;
    m_u = RocePintDigest::Decode(static_cast<uint16_t>(ack.pint), m_logBase);
    const double maxC = m_u / m_eta;
    const double ai = static_cast<double>(m_rateAi.GetBitRate());
    double rate;
    uint32_t stage;
    if (maxC >= 1.0 || m_incStage >= m_maxStage)
    {
        rate = m_refRate / maxC + ai;
        stage = 0;
    }
    else
    {
        rate = m_refRate + ai;
        stage = m_incStage + 1;
    }
    m_rate = ClampRate(rate, static_cast<double>(m_minRate.GetBitRate()));
    if (update)
    {
        m_refRate = m_rate;
        m_incStage = stage;
        m_lastUpdateSeq = ack.sndNxt;
    }
}

double
RoceCcHpccPint::GetUtilization() const
{
    return m_u;
}

double
RoceCcHpccPint::GetReferenceRate() const
{
    return m_refRate;
}

uint32_t
RoceCcHpccPint::GetIncreaseStage() const
{
    return m_incStage;
}

} // namespace ns3
