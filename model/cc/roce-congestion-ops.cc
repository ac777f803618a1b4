/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-congestion-ops.h"

#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCongestionOps");
NS_OBJECT_ENSURE_REGISTERED(RoceCongestionOps);

/**
 * \ingroup rocev2
 * \brief The Rate trace source: m_rate's accessor, which also records that a
 * callback was connected, so that timers that would change the rate while
 * the queue pair is idle keep running for it.
 */
class RoceRateTraceAccessor : public TraceSourceAccessor
{
  public:
    RoceRateTraceAccessor()
        : m_inner(MakeTraceSourceAccessor(&RoceCongestionOps::m_rate))
    {
    }

    bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        Mark(obj);
        return m_inner->ConnectWithoutContext(obj, cb);
    }

    bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        Mark(obj);
        return m_inner->Connect(obj, context, cb);
    }

    bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        return m_inner->DisconnectWithoutContext(obj, cb);
    }

    bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        return m_inner->Disconnect(obj, context, cb);
    }

  private:
    /** \param obj the congestion control a callback is connected to */
    static void Mark(ObjectBase* obj)
    {
        auto cc = dynamic_cast<RoceCongestionOps*>(obj);
        if (cc != nullptr)
        {
            // From now on the timers run; the rate they left while sleeping
            // is brought up to date before the callback is connected.
            cc->m_rateTraced = true;
            cc->GetRate();
        }
    }

    Ptr<const TraceSourceAccessor> m_inner; //!< the TracedValue's accessor
};

namespace
{

/** \return (short name, TypeId name) of the module's congestion controls */
const std::vector<std::pair<std::string, std::string>>&
ShortNames()
{
    static const std::vector<std::pair<std::string, std::string>> names = {
        {"none", "ns3::RoceCcNone"},
        {"dcqcn", "ns3::RoceCcDcqcn"},
        {"hpcc", "ns3::RoceCcHpcc"},
        {"timely", "ns3::RoceCcTimely"},
        {"dctcp", "ns3::RoceCcDctcp"},
        {"dctcp-rate", "ns3::RoceCcDctcpRate"},
        {"hpcc-pint", "ns3::RoceCcHpccPint"},
    };
    return names;
}

} // namespace

TypeId
RoceCongestionOps::LookupByName(const std::string& name)
{
    std::string known;
    for (const auto& [shortName, typeName] : ShortNames())
    {
        if (name == shortName)
        {
            return TypeId::LookupByName(typeName);
        }
        known += (known.empty() ? "" : ", ") + shortName;
    }
    TypeId tid;
    if (TypeId::LookupByNameFailSafe(name, &tid) && tid.IsChildOf(GetTypeId()))
    {
        return tid;
    }
    ROCE_ERROR("unknown congestion control '" << name << "' (known: " << known
                                              << ", or a RoceCongestionOps TypeId name)");
    return TypeId();
}

std::vector<std::string>
RoceCongestionOps::GetShortNames()
{
    std::vector<std::string> names;
    for (const auto& [shortName, typeName] : ShortNames())
    {
        names.push_back(shortName);
    }
    return names;
}

TypeId
RoceCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCongestionOps")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddTraceSource("Rate",
                            "Sending rate of the queue pair, bit/s.",
                            Ptr<const TraceSourceAccessor>(new RoceRateTraceAccessor(), false),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("Window",
                            "Congestion window in bytes (0 = none).",
                            MakeTraceSourceAccessor(&RoceCongestionOps::m_window),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("Rtt",
                            "Latest RTT sample of the queue pair.",
                            MakeTraceSourceAccessor(&RoceCongestionOps::m_rttTrace),
                            "ns3::TracedValueCallback::Time")
            .AddAttribute("BaseRtt",
                          "Unloaded round-trip time of the path, used by "
                          "window- and delay-based algorithms (HPCC's T, "
                          "DCTCP's initial window, TIMELY's minRTT). 0 takes "
                          "the smallest RTT sampled so far.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RoceCongestionOps::SetBaseRttAttribute,
                                           &RoceCongestionOps::GetBaseRttAttribute),
                          MakeTimeChecker(Time(0)))
            .AddAttribute(
                "RateWindow",
                "A window that follows the rate, for the algorithms that keep "
                "none of their own (DCQCN, TIMELY, dctcp-rate, hpcc-pint): RateWindow x rate "
                "/ line rate payload bytes, at least 1 (the HPCC simulator's "
                "VAR_WIN 1, with its bandwidth-delay product here). 0: none. "
                "HPCC and DCTCP, which keep their own window, refuse it.",
                UintegerValue(0),
                MakeUintegerAccessor(&RoceCongestionOps::m_rateWindow),
                MakeUintegerChecker<uint64_t>());
    return tid;
}

RoceCongestionOps::RoceCongestionOps() = default;

RoceCongestionOps::RoceCongestionOps(const RoceCongestionOps& other)
    : Object(other),
      m_rate(other.m_rate.Get()),
      m_window(other.m_window.Get()),
      m_rtt(other.m_rtt),
      m_minRtt(other.m_minRtt),
      m_baseRtt(other.m_baseRtt),
      m_ctx(other.m_ctx),
      m_rateWindow(other.m_rateWindow)
{
}

RoceCongestionOps::~RoceCongestionOps() = default;

void
RoceCongestionOps::Init(const RoceCcContext& ctx)
{
    ROCE_ERROR_IF(ctx.lineRate.GetBitRate() == 0,
                  GetInstanceTypeId().GetName() << ": the NIC's line rate is 0bps");
    m_ctx = ctx;
    m_rate = static_cast<double>(ctx.lineRate.GetBitRate());
    m_window = 0;
}

void
RoceCongestionOps::OnSend(uint32_t /* payloadBytes */, uint32_t /* wireBytes */)
{
}

void
RoceCongestionOps::OnAck(const RoceAckEvent& /* ack */)
{
}

void
RoceCongestionOps::OnNak()
{
}

void
RoceCongestionOps::OnTimeout()
{
}

void
RoceCongestionOps::OnCnp()
{
}

bool
RoceCongestionOps::OnCeReceived()
{
    return false;
}

bool
RoceCongestionOps::EcnEchoIsCnp() const
{
    return false;
}

bool
RoceCongestionOps::WantsInt() const
{
    return false;
}

bool
RoceCongestionOps::WantsPint() const
{
    return false;
}

double
RoceCongestionOps::GetRate() const
{
    if (m_asleep)
    {
        // Only the timer state is brought up to date; what the caller sees is
        // the rate the timers would have left.
        const_cast<RoceCongestionOps*>(this)->WakeUp();
    }
    return m_rate;
}

void
RoceCongestionOps::WakeUp()
{
}

bool
RoceCongestionOps::CanSleep() const
{
    return !m_rateTraced && m_rateListener != nullptr && m_rateListener->IsIdle();
}

uint64_t
RoceCongestionOps::GetWindow() const
{
    if (m_rateWindow == 0 || m_window.Get() != 0)
    {
        return m_window;
    }
    const double w = static_cast<double>(m_rateWindow) * GetRate() /
                     static_cast<double>(m_ctx.lineRate.GetBitRate());
    return std::max<uint64_t>(1, static_cast<uint64_t>(w));
}

void
RoceCongestionOps::RefuseRateWindow() const
{
    ROCE_ERROR_IF(m_rateWindow != 0,
                  GetInstanceTypeId().GetName()
                      << ": RateWindow=" << m_rateWindow
                      << " is for algorithms without a window of their own; this one keeps "
                         "its own (set MaxInflightPackets on the queue pair to cap it)");
}

void
RoceCongestionOps::SetRateListener(RoceCcRateListener* listener)
{
    m_rateListener = listener;
}

void
RoceCongestionOps::NotifyRateRaised()
{
    if (m_rateListener)
    {
        m_rateListener->RateRaised();
    }
}

void
RoceCongestionOps::DoDispose()
{
    m_rateListener = nullptr;
    Object::DoDispose();
}

DataRate
RoceCongestionOps::GetLineRate() const
{
    return m_ctx.lineRate;
}

void
RoceCongestionOps::RecordRtt(Time rtt)
{
    int64_t step = rtt.GetTimeStep();
    if (step != m_rtt)
    {
        Time old = TimeStep(m_rtt);
        m_rtt = step;
        m_rttTrace(old, rtt); // as a TracedValue<Time> would: on a change, old and new
    }
    if (m_minRtt == 0 || step < m_minRtt)
    {
        m_minRtt = step;
    }
}

Time
RoceCongestionOps::GetRtt() const
{
    return TimeStep(m_rtt);
}

Time
RoceCongestionOps::GetBaseRtt() const
{
    return TimeStep(m_baseRtt > 0 ? m_baseRtt : m_minRtt);
}

void
RoceCongestionOps::SetBaseRttAttribute(Time baseRtt)
{
    m_baseRtt = baseRtt.GetTimeStep();
}

Time
RoceCongestionOps::GetBaseRttAttribute() const
{
    return TimeStep(m_baseRtt);
}

void
RoceCongestionOps::CheckRate(const std::string& attribute,
                             DataRate rate,
                             const std::string& whyNotZero) const
{
    const std::string who = GetInstanceTypeId().GetName();
    ROCE_ERROR_IF(rate.GetBitRate() == 0 && !whyNotZero.empty(),
                  who << ": " << attribute << "=0bps " << whyNotZero);
    ROCE_ERROR_IF(rate > m_ctx.lineRate,
                  who << ": " << attribute << "=" << rate << " exceeds the line rate "
                      << m_ctx.lineRate);
}

double
RoceCongestionOps::ClampRate(double rate, double minRate) const
{
    double line = static_cast<double>(m_ctx.lineRate.GetBitRate());
    return std::min(line, std::max(minRate, rate));
}

} // namespace ns3
