/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-cc-dcqcn.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pooled-event.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCcDcqcn");
NS_OBJECT_ENSURE_REGISTERED(RoceCcDcqcn);

// ---------------------------------------------------------------------------
// RoceDcqcnRateMachine

void
RoceDcqcnRateMachine::Init(const RoceDcqcnRpParams& p)
{
    m_p = p;
    m_rc = m_rt = p.lineRate;
    m_alpha = p.initialAlpha;
    m_t = m_bc = 0;
    m_increased = false;
}

void
RoceDcqcnRateMachine::Decrease(bool raiseAlpha)
{
    if (m_p.clampTargetRate || m_increased)
    {
        m_rt = m_rc;
    }
    double factor = std::max(1.0 - m_alpha / 2.0, m_p.minDecreaseFactor);
    m_rc = std::max(m_rc * factor, m_p.minRate);
    if (raiseAlpha)
    {
        m_alpha = (1.0 - m_p.g) * m_alpha + m_p.g;
    }
    m_t = m_bc = 0;
    m_increased = false;
}

void
RoceDcqcnRateMachine::AlphaTimer(uint64_t periods, bool cnpInFirst)
{
    if (periods > 0 && cnpInFirst)
    {
        m_alpha = (1.0 - m_p.g) * m_alpha + m_p.g;
        --periods;
    }
    if (periods <= 64)
    {
        for (uint64_t i = 0; i < periods; ++i)
        {
            m_alpha = (1.0 - m_p.g) * m_alpha;
        }
    }
    else
    {
        m_alpha *= std::pow(1.0 - m_p.g, static_cast<double>(periods));
    }
}

void
RoceDcqcnRateMachine::ResetAlpha()
{
    m_alpha = m_p.initialAlpha;
}

RoceDcqcnRateMachine::Stage
RoceDcqcnRateMachine::TimerExpired()
{
    Stage s = Increase();
    ++m_t;
    return s;
}

RoceDcqcnRateMachine::Stage
RoceDcqcnRateMachine::ByteCounterExpired()
{
    Stage s = Increase();
    ++m_bc;
    return s;
}

RoceDcqcnRateMachine::Stage
RoceDcqcnRateMachine::Increase()
{
    uint32_t bc = m_p.byteCounterEnabled ? m_bc : m_t;
    uint32_t hi = std::max(m_t, bc);
    uint32_t lo = std::min(m_t, bc);
    Stage stage;
    if (hi < m_p.fastRecovery)
    {
        stage = FAST_RECOVERY;
    }
    else if (lo > m_p.fastRecovery)
    {
        stage = HYPER;
        m_rt += (m_p.hyperConstant ? 1 : lo - m_p.fastRecovery) * m_p.rateHai;
    }
    else
    {
        stage = ADDITIVE;
        m_rt += m_p.rateAi;
    }
    m_rt = std::min(m_rt, m_p.lineRate);
    double before = m_rc;
    m_rc = std::min((m_rt + m_rc) / 2.0, m_p.lineRate);
    if (m_p.lineRate - m_rc < 1.0)
    {
        m_rc = m_p.lineRate;
    }
    m_increased = m_increased || m_rc > before;
    return stage;
}

double
RoceDcqcnRateMachine::GetRate() const
{
    return m_rc;
}

double
RoceDcqcnRateMachine::GetTargetRate() const
{
    return m_rt;
}

double
RoceDcqcnRateMachine::GetAlpha() const
{
    return m_alpha;
}

uint32_t
RoceDcqcnRateMachine::GetTimerCount() const
{
    return m_t;
}

uint32_t
RoceDcqcnRateMachine::GetByteCount() const
{
    return m_bc;
}

bool
RoceDcqcnRateMachine::IsRecovering() const
{
    return m_rc < m_p.lineRate || m_rt < m_p.lineRate;
}

RoceDcqcnRpParams&
RoceDcqcnRateMachine::GetParams()
{
    return m_p;
}

const RoceDcqcnRpParams&
RoceDcqcnRateMachine::GetParams() const
{
    return m_p;
}

// ---------------------------------------------------------------------------
// RoceCcDcqcn

TypeId
RoceCcDcqcn::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCcDcqcn")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceCcDcqcn>()
            .AddAttribute("G",
                          "Alpha gain g: alpha <- (1-g) alpha + g on a CNP, (1-g) alpha per "
                          "alpha period without one.",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&RoceCcDcqcn::SetParam<double, &RoceDcqcnRpParams::g>,
                                             &RoceCcDcqcn::GetParam<double, &RoceDcqcnRpParams::g>),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "Alpha when the queue pair connects.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(
                              &RoceCcDcqcn::SetParam<double, &RoceDcqcnRpParams::initialAlpha>,
                              &RoceCcDcqcn::GetParam<double, &RoceDcqcnRpParams::initialAlpha>),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute(
                "AlphaUpdateInterval",
                "Alpha period K: alpha decays once per period without a CNP.",
                TimeValue(MicroSeconds(55)),
                MakeTimeAccessor(&RoceCcDcqcn::SetAlphaInterval, &RoceCcDcqcn::GetAlphaInterval),
                MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateIncreaseTimer",
                          "Period of the rate-increase timer.",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&RoceCcDcqcn::SetIncreaseInterval,
                                           &RoceCcDcqcn::GetIncreaseInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute(
                "ByteCounter",
                "Bytes sent per byte-counter increase event; 0 disables the byte "
                "counter (the timer alone then walks the stages).",
                UintegerValue(10000000),
                MakeUintegerAccessor(&RoceCcDcqcn::SetByteCounter, &RoceCcDcqcn::GetByteCounter),
                MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoveryStages",
                          "F: increase events spent in fast recovery before additive increase.",
                          UintegerValue(5),
                          MakeUintegerAccessor(
                              &RoceCcDcqcn::SetParam<uint32_t, &RoceDcqcnRpParams::fastRecovery>,
                              &RoceCcDcqcn::GetParam<uint32_t, &RoceDcqcnRpParams::fastRecovery>),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute(
                "RateAi",
                "Additive increase R_AI.",
                DataRateValue(DataRate("40Mbps")),
                MakeDataRateAccessor(&RoceCcDcqcn::SetRateParam<&RoceDcqcnRpParams::rateAi>,
                                     &RoceCcDcqcn::GetRateParam<&RoceDcqcnRpParams::rateAi>),
                MakeDataRateChecker())
            .AddAttribute(
                "RateHai",
                "Hyper increase R_HAI.",
                DataRateValue(DataRate("400Mbps")),
                MakeDataRateAccessor(&RoceCcDcqcn::SetRateParam<&RoceDcqcnRpParams::rateHai>,
                                     &RoceCcDcqcn::GetRateParam<&RoceDcqcnRpParams::rateHai>),
                MakeDataRateChecker())
            .AddAttribute(
                "MinRate",
                "The rate never falls below this.",
                DataRateValue(DataRate("1Mbps")),
                MakeDataRateAccessor(&RoceCcDcqcn::SetRateParam<&RoceDcqcnRpParams::minRate>,
                                     &RoceCcDcqcn::GetRateParam<&RoceDcqcnRpParams::minRate>),
                MakeDataRateChecker())
            .AddAttribute(
                "MinDecreaseFactor",
                "A CNP leaves at least this fraction of the rate (0: no floor "
                "beyond 1 - alpha/2).",
                DoubleValue(0.0),
                MakeDoubleAccessor(
                    &RoceCcDcqcn::SetParam<double, &RoceDcqcnRpParams::minDecreaseFactor>,
                    &RoceCcDcqcn::GetParam<double, &RoceDcqcnRpParams::minDecreaseFactor>),
                MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("ClampTargetRate",
                          "Every CNP sets the target rate to the current rate (the paper). "
                          "When false, only a CNP after the rate rose does (ConnectX's "
                          "default), so a burst of CNPs does not drag the target down.",
                          BooleanValue(true),
                          MakeBooleanAccessor(
                              &RoceCcDcqcn::SetParam<bool, &RoceDcqcnRpParams::clampTargetRate>,
                              &RoceCcDcqcn::GetParam<bool, &RoceDcqcnRpParams::clampTargetRate>),
                          MakeBooleanChecker())
            .AddAttribute(
                "RateDecreasePeriod",
                "At most one decrease per period; CNPs within it are coalesced into "
                "one decrease at its end. 0: every CNP decreases.",
                TimeValue(Time(0)),
                MakeTimeAccessor(&RoceCcDcqcn::SetDecreasePeriod, &RoceCcDcqcn::GetDecreasePeriod),
                MakeTimeChecker(Time(0)))
            .AddAttribute(
                "CnpInterval",
                "Notification point: at most one CNP per interval per queue pair. "
                "0: a CNP for every CE-marked packet.",
                TimeValue(MicroSeconds(50)),
                MakeTimeAccessor(&RoceCcDcqcn::SetCnpInterval, &RoceCcDcqcn::GetCnpInterval),
                MakeTimeChecker(Time(0)))
            .AddAttribute(
                "HyperIncrease",
                "What each hyper-increase step adds to the target rate: Growing "
                "(the paper: (i - F) RateHai at the i-th step since the last "
                "decrease) or Constant (RateHai, ConnectX and the HPCC simulator).",
                EnumValue(HYPER_GROWING),
                RoceMakeEnumAccessor<RoceCcDcqcn::HyperIncrease>(&RoceCcDcqcn::SetHyperIncrease,
                                                                 &RoceCcDcqcn::GetHyperIncrease),
                MakeEnumChecker(HYPER_GROWING, "Growing", HYPER_CONSTANT, "Constant"))
            .AddAttribute(
                "AlphaUpdate",
                "How alpha follows the CNPs. OnCnp (the paper): each rate decrease sets "
                "alpha <- (1-g) alpha + g and restarts the alpha timer, every "
                "AlphaUpdateInterval without one decays it. PerInterval (ConnectX, and the "
                "HPCC simulator's DCQCN): the first CNP sets alpha to InitialAlpha and starts "
                "the timer; then every AlphaUpdateInterval sets alpha <- (1-g) alpha + g if a "
                "CNP arrived in it, (1-g) alpha if none did, and decreases leave alpha alone.",
                EnumValue(ALPHA_ON_CNP),
                RoceMakeEnumAccessor<RoceCcDcqcn::AlphaUpdate>(&RoceCcDcqcn::m_alphaUpdate),
                MakeEnumChecker(ALPHA_ON_CNP, "OnCnp", ALPHA_PER_INTERVAL, "PerInterval"))
            .AddAttribute(
                "DecreaseTiming",
                "When a CNP's rate decrease applies, with RateDecreasePeriod P > 0. AtCnp: "
                "at the CNP if the last decrease is P or more ago, else at the end of that "
                "P, which answers every CNP that came meanwhile. Grid (the HPCC simulator's "
                "DCQCN, its RATE_DECREASE_INTERVAL): at the points P, 2P, ... after the "
                "queue pair's first CNP, each that closes a P with a CNP in it; the first "
                "decrease comes P after the first CNP.",
                EnumValue(DECREASE_AT_CNP),
                RoceMakeEnumAccessor<RoceCcDcqcn::DecreaseTiming>(&RoceCcDcqcn::m_decreaseTiming),
                MakeEnumChecker(DECREASE_AT_CNP, "AtCnp", DECREASE_ON_GRID, "Grid"))
            .AddAttribute(
                "Notification",
                "How a receiver tells a sender that its packets were CE-marked. Cnp: a CNP "
                "frame (CnpPriority's class) for a CE-marked packet, at most one per "
                "CnpInterval (RoCEv2 Annex A17). AckEcn: no CNP frames; the ACK of a "
                "CE-marked packet carries BTH BECN in the ACK's class, and the sender takes "
                "each such ACK as a CNP (the HPCC simulator's DCQCN, whose CNP is a flag on "
                "its per-packet ACKs). AckEcn needs an ACK per packet to see every mark.",
                EnumValue(NOTIFY_CNP),
                RoceMakeEnumAccessor<RoceCcDcqcn::Notification>(&RoceCcDcqcn::m_notification),
                MakeEnumChecker(NOTIFY_CNP, "Cnp", NOTIFY_ACK_ECN, "AckEcn"))
            .AddAttribute("IdleTimers",
                          "What the rate-increase timer does while the queue pair has nothing "
                          "to send: run (fire until the rate is back at line rate) or sleep "
                          "(skip those events; the next read of the rate applies the expiries "
                          "that elapsed, with identical results).",
                          EnumValue(IDLE_SLEEP),
                          RoceMakeEnumAccessor<RoceCcDcqcn::IdleTimers>(&RoceCcDcqcn::m_idleTimers),
                          MakeEnumChecker(IDLE_RUN, "run", IDLE_SLEEP, "sleep"))
            .AddTraceSource("Alpha",
                            "DCQCN alpha of the queue pair.",
                            MakeRoceLazyTraceAccessor(&RoceCcDcqcn::m_traces, &Traces::alpha),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("TargetRate",
                            "DCQCN target rate Rt, bit/s.",
                            MakeRoceLazyTraceAccessor(&RoceCcDcqcn::m_traces, &Traces::target),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RoceCcDcqcn::RoceCcDcqcn() = default;

void
RoceCcDcqcn::SetAlphaInterval(Time t)
{
    m_alphaInterval = t.GetTimeStep();
}

Time
RoceCcDcqcn::GetAlphaInterval() const
{
    return TimeStep(m_alphaInterval);
}

void
RoceCcDcqcn::SetIncreaseInterval(Time t)
{
    m_increaseInterval = t.GetTimeStep();
}

Time
RoceCcDcqcn::GetIncreaseInterval() const
{
    return TimeStep(m_increaseInterval);
}

void
RoceCcDcqcn::SetDecreasePeriod(Time t)
{
    m_decreasePeriod = t.GetTimeStep();
}

Time
RoceCcDcqcn::GetDecreasePeriod() const
{
    return TimeStep(m_decreasePeriod);
}

void
RoceCcDcqcn::SetCnpInterval(Time t)
{
    m_cnpInterval = t.GetTimeStep();
}

Time
RoceCcDcqcn::GetCnpInterval() const
{
    return TimeStep(m_cnpInterval);
}

RoceCcDcqcn::RoceCcDcqcn(const RoceCcDcqcn& other)
    : RoceCongestionOps(other),
      m_alphaInterval(other.m_alphaInterval),
      m_increaseInterval(other.m_increaseInterval),
      m_byteCounter(other.m_byteCounter),
      m_decreasePeriod(other.m_decreasePeriod),
      m_cnpInterval(other.m_cnpInterval),
      m_idleTimers(other.m_idleTimers),
      m_alphaUpdate(other.m_alphaUpdate),
      m_decreaseTiming(other.m_decreaseTiming),
      m_notification(other.m_notification)
{
    m_rm.GetParams() = other.m_rm.GetParams(); // the attributes; the state starts afresh
}

void
RoceCcDcqcn::SetHyperIncrease(HyperIncrease h)
{
    m_rm.GetParams().hyperConstant = h == HYPER_CONSTANT;
}

RoceCcDcqcn::HyperIncrease
RoceCcDcqcn::GetHyperIncrease() const
{
    return m_rm.GetParams().hyperConstant ? HYPER_CONSTANT : HYPER_GROWING;
}

template <typename V, V RoceDcqcnRpParams::*M>
void
RoceCcDcqcn::SetParam(V v)
{
    m_rm.GetParams().*M = v;
}

template <typename V, V RoceDcqcnRpParams::*M>
V
RoceCcDcqcn::GetParam() const
{
    return m_rm.GetParams().*M;
}

template <double RoceDcqcnRpParams::*M>
void
RoceCcDcqcn::SetRateParam(DataRate rate)
{
    m_rm.GetParams().*M = static_cast<double>(rate.GetBitRate());
}

template <double RoceDcqcnRpParams::*M>
DataRate
RoceCcDcqcn::GetRateParam() const
{
    return DataRate(static_cast<uint64_t>(m_rm.GetParams().*M));
}

void
RoceCcDcqcn::SetByteCounter(uint64_t bytes)
{
    m_byteCounter = bytes;
    m_rm.GetParams().byteCounterEnabled = bytes > 0;
}

uint64_t
RoceCcDcqcn::GetByteCounter() const
{
    return m_byteCounter;
}

RoceCcDcqcn::~RoceCcDcqcn() = default;

void
RoceCcDcqcn::DoDispose()
{
    if (m_decreaseState)
    {
        m_decreaseState->deferredEvent.Cancel();
    }
    m_increaseEvent.Cancel();
    m_asleep = false;
    RoceCongestionOps::DoDispose();
}

std::string
RoceCcDcqcn::GetName() const
{
    return "dcqcn";
}

Ptr<RoceCongestionOps>
RoceCcDcqcn::Fork()
{
    return CopyObject<RoceCcDcqcn>(this);
}

void
RoceCcDcqcn::Init(const RoceCcContext& ctx)
{
    RoceCongestionOps::Init(ctx);
    CheckRate("MinRate",
              GetRateParam<&RoceDcqcnRpParams::minRate>(),
              "would stop the queue pair for good");
    CheckRate("RateAi", GetRateParam<&RoceDcqcnRpParams::rateAi>(), "");
    CheckRate("RateHai", GetRateParam<&RoceDcqcnRpParams::rateHai>(), "");
    ROCE_ERROR_IF(m_decreaseTiming == DECREASE_ON_GRID && m_decreasePeriod == 0,
                  "ns3::RoceCcDcqcn: DecreaseTiming=Grid needs RateDecreasePeriod > 0 (the "
                  "grid's step), not 0");
    ROCE_ERROR_IF(m_notification == NOTIFY_ACK_ECN && m_cnpInterval != 0,
                  "ns3::RoceCcDcqcn: Notification=AckEcn sends no CNP frames, so CnpInterval="
                      << GetCnpInterval().As(Time::US)
                      << " would be ignored; set CnpInterval=0s (the ACKs carry every mark)");
    double oldAlpha = m_rm.GetAlpha();
    double oldTarget = m_rm.GetTargetRate();
    m_rm.Init(GetRpParams(ctx.lineRate));
    m_alphaAnchor = RoceNow().GetTimeStep();
    m_alphaStarted = false;
    m_cnpInPeriod = false;
    Publish(oldAlpha, oldTarget);
}

RoceDcqcnRpParams
RoceCcDcqcn::GetRpParams(DataRate lineRate) const
{
    RoceDcqcnRpParams p = m_rm.GetParams();
    p.lineRate = static_cast<double>(lineRate.GetBitRate());
    return p;
}

const RoceDcqcnRateMachine&
RoceCcDcqcn::GetRateMachine() const
{
    Refresh();
    return m_rm;
}

void
RoceCcDcqcn::Publish(double oldAlpha, double oldTarget)
{
    // The traces fire as TracedValues would: with the old and new value, when they differ.
    m_rate = m_rm.GetRate();
    Traces* t = m_traces.Get();
    if (t == nullptr)
    {
        return;
    }
    if (m_rm.GetTargetRate() != oldTarget)
    {
        t->target(oldTarget, m_rm.GetTargetRate());
    }
    if (m_rm.GetAlpha() != oldAlpha)
    {
        t->alpha(oldAlpha, m_rm.GetAlpha());
    }
}

void
RoceCcDcqcn::CatchUpAlpha()
{
    if (m_alphaUpdate == ALPHA_PER_INTERVAL && !m_alphaStarted)
    {
        return; // the timer starts at the first CNP
    }
    int64_t periods = (RoceNow().GetTimeStep() - m_alphaAnchor) / m_alphaInterval;
    if (periods <= 0)
    {
        return;
    }
    // PerInterval: the period that saw a CNP raises alpha, the rest decay it.
    m_rm.AlphaTimer(static_cast<uint64_t>(periods), m_cnpInPeriod);
    m_cnpInPeriod = false;
    m_alphaAnchor += m_alphaInterval * periods;
}

double
RoceCcDcqcn::GetAlpha()
{
    Refresh();
    double oldAlpha = m_rm.GetAlpha();
    CatchUpAlpha();
    Traces* t = m_traces.Get();
    if (t != nullptr && m_rm.GetAlpha() != oldAlpha)
    {
        t->alpha(oldAlpha, m_rm.GetAlpha());
    }
    return m_rm.GetAlpha();
}

double
RoceCcDcqcn::GetTargetRate() const
{
    Refresh();
    return m_rm.GetTargetRate();
}

uint64_t
RoceCcDcqcn::GetDecreases() const
{
    return m_decreases;
}

void
RoceCcDcqcn::OnCnp()
{
    Refresh(); // the increases that fell before this CNP
    if (m_alphaUpdate == ALPHA_PER_INTERVAL)
    {
        if (!m_alphaStarted)
        {
            m_alphaStarted = true;
            m_rm.ResetAlpha();
            m_alphaAnchor = RoceNow().GetTimeStep();
        }
        else
        {
            CatchUpAlpha(); // close the periods before this CNP
            m_cnpInPeriod = true;
        }
    }
    if (m_decreaseState && m_decreaseState->cnpPending)
    {
        // The deferred decrease (due now or later) answers this CNP too. A CNP
        // arriving exactly when the period ends may run before that event; it
        // must not add a second decrease at the same instant.
        return;
    }
    Time now = RoceNow();
    if (m_decreaseTiming == DECREASE_ON_GRID && m_decreasePeriod > 0)
    {
        // The next grid point strictly after now: a CNP at a grid point
        // comes after that point's check, which ran first.
        if (!m_decreaseState)
        {
            m_decreaseState = std::make_unique<DecreaseState>();
            m_decreaseState->gridAnchor = now.GetTimeStep();
        }
        int64_t since = now.GetTimeStep() - m_decreaseState->gridAnchor;
        int64_t due =
            m_decreaseState->gridAnchor + (since / m_decreasePeriod + 1) * m_decreasePeriod;
        m_decreaseState->cnpPending = true;
        m_decreaseState->deferredEvent =
            RoceSchedule<&RoceCcDcqcn::DeferredDecrease>(TimeStep(due) - now, this);
        return;
    }
    if (m_decreasePeriod > 0 && m_decreaseState &&
        now < m_decreaseState->lastDecrease + TimeStep(m_decreasePeriod))
    {
        m_decreaseState->cnpPending = true;
        m_decreaseState->deferredEvent = RoceSchedule<&RoceCcDcqcn::DeferredDecrease>(
            m_decreaseState->lastDecrease + TimeStep(m_decreasePeriod) - now,
            this);
        return;
    }
    DoDecrease();
}

void
RoceCcDcqcn::DeferredDecrease()
{
    m_decreaseState->cnpPending = false;
    DoDecrease();
}

void
RoceCcDcqcn::DoDecrease()
{
    double oldAlpha = m_rm.GetAlpha();
    double oldTarget = m_rm.GetTargetRate();
    CatchUpAlpha();
    m_rm.Decrease(m_alphaUpdate == ALPHA_ON_CNP);
    ++m_decreases;
    if (!m_decreaseState)
    {
        m_decreaseState = std::make_unique<DecreaseState>();
    }
    m_decreaseState->lastDecrease = RoceNow();
    if (m_alphaUpdate == ALPHA_ON_CNP)
    {
        m_alphaAnchor = RoceNow().GetTimeStep(); // the alpha timer restarts at every CNP
    }
    m_bytesSinceBc = 0;
    Publish(oldAlpha, oldTarget);
    Simulator::Remove(m_increaseEvent);
    m_asleep = false; // the timer restarts at every decrease
    RestartIncreaseTimer();
}

void
RoceCcDcqcn::RestartIncreaseTimer()
{
    if (!m_rm.IsRecovering())
    {
        return;
    }
    int64_t next = RoceNow().GetTimeStep() + m_increaseInterval;
    if (m_idleTimers == IDLE_SLEEP && m_traces.Get() == nullptr && CanSleep())
    {
        m_asleep = true;
        m_nextIncrease = next;
        return;
    }
    m_increaseEvent = RoceSchedule<&RoceCcDcqcn::IncreaseTimer>(TimeStep(m_increaseInterval), this);
}

void
RoceCcDcqcn::Refresh() const
{
    if (m_asleep)
    {
        const_cast<RoceCcDcqcn*>(this)->WakeUp();
    }
}

void
RoceCcDcqcn::WakeUp()
{
    // Apply the expiries the sleeping timer skipped, as IncreaseTimer() would
    // have: those strictly before now (one due now has not run yet, as if its
    // event came after the caller's), until the rate is back at line rate.
    // Each skipped NotifyRateRaised() had nothing to act on: the queue pair
    // was idle with no packet waiting for its pacing time.
    m_asleep = false;
    int64_t now = RoceNow().GetTimeStep();
    double oldAlpha = m_rm.GetAlpha();
    double oldTarget = m_rm.GetTargetRate();
    while (m_nextIncrease < now && m_rm.IsRecovering())
    {
        m_rm.TimerExpired();
        m_nextIncrease += m_increaseInterval;
    }
    Publish(oldAlpha, oldTarget);
    if (!m_rm.IsRecovering())
    {
        return; // the timer would have stopped
    }
    if (CanSleep() && m_traces.Get() == nullptr)
    {
        m_asleep = true; // still idle: keep sleeping, same phase
        return;
    }
    m_increaseEvent =
        RoceSchedule<&RoceCcDcqcn::IncreaseTimer>(TimeStep(m_nextIncrease - now), this);
}

void
RoceCcDcqcn::IncreaseTimer()
{
    double before = m_rate;
    double oldAlpha = m_rm.GetAlpha();
    double oldTarget = m_rm.GetTargetRate();
    m_rm.TimerExpired();
    Publish(oldAlpha, oldTarget);
    RestartIncreaseTimer();
    if (m_rate > before)
    {
        NotifyRateRaised();
    }
}

void
RoceCcDcqcn::OnSend(uint32_t payloadBytes, uint32_t /* wireBytes */)
{
    Refresh();
    if (m_byteCounter == 0 || !m_rm.IsRecovering())
    {
        return;
    }
    m_bytesSinceBc += payloadBytes;
    if (m_bytesSinceBc < m_byteCounter)
    {
        return; // the per-packet path: one addition and one comparison
    }
    double oldAlpha = m_rm.GetAlpha();
    double oldTarget = m_rm.GetTargetRate();
    while (m_bytesSinceBc >= m_byteCounter && m_rm.IsRecovering())
    {
        m_bytesSinceBc -= m_byteCounter;
        m_rm.ByteCounterExpired();
    }
    Publish(oldAlpha, oldTarget);
    if (!m_rm.IsRecovering())
    {
        Simulator::Remove(m_increaseEvent);
    }
}

void
RoceCcDcqcn::OnAck(const RoceAckEvent& ack)
{
    if (m_notification == NOTIFY_ACK_ECN && ack.ecnEcho)
    {
        OnCnp();
    }
}

bool
RoceCcDcqcn::EcnEchoIsCnp() const
{
    return m_notification == NOTIFY_ACK_ECN;
}

bool
RoceCcDcqcn::OnCeReceived()
{
    if (m_notification == NOTIFY_ACK_ECN)
    {
        return false; // the next ACK carries the mark
    }
    Time now = RoceNow();
    if (m_lastCnpSent != NEVER && now.GetTimeStep() < m_lastCnpSent + m_cnpInterval)
    {
        return false;
    }
    m_lastCnpSent = now.GetTimeStep();
    return true;
}

} // namespace ns3
