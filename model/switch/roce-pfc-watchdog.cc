/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-pfc-watchdog.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/roce-error.h"
#include "ns3/roce-ns3-compat.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RocePfcWatchdog);

TypeId
RocePfcWatchdog::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RocePfcWatchdog")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RocePfcWatchdog>()
            .AddAttribute("Enabled",
                          "Watch the port's egress queues: one that its peer keeps paused "
                          "with frames for Timeout stops honouring the pause for RecoveryTime.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RocePfcWatchdog::m_enabled),
                          MakeBooleanChecker())
            .AddAttribute(
                "Timeout",
                "How long a queue stays paused with frames before the watchdog "
                "fires on it (> 0; detected within one Interval after).",
                TimeValue(MilliSeconds(200)),
                MakeTimeAccessor(&RocePfcWatchdog::SetTimeout, &RocePfcWatchdog::GetTimeout),
                MakeTimeChecker(Time(0)))
            .AddAttribute(
                "Interval",
                "Time between the watchdog's checks while a priority is paused (> 0).",
                TimeValue(MilliSeconds(10)),
                MakeTimeAccessor(&RocePfcWatchdog::SetInterval, &RocePfcWatchdog::GetInterval),
                MakeTimeChecker(Time(0)))
            .AddAttribute("RecoveryTime",
                          "How long a queue the watchdog fired on ignores pauses (and, with "
                          "the Drop action, drops its arrivals) before it is restored (> 0).",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&RocePfcWatchdog::SetRecoveryTime,
                                           &RocePfcWatchdog::GetRecoveryTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Action",
                          "What a queue the watchdog fired on does until restored: Drop "
                          "(flush it and drop arrivals, reason pfc-watchdog) or Forward "
                          "(send its frames despite the pause).",
                          EnumValue(RocePfcWatchdog::DROP),
                          RoceMakeEnumAccessor<RocePfcWatchdog::Action>(&RocePfcWatchdog::m_action),
                          MakeEnumChecker(RocePfcWatchdog::DROP,
                                          "Drop",
                                          RocePfcWatchdog::FORWARD,
                                          "Forward"));
    return tid;
}

RocePfcWatchdog::RocePfcWatchdog() = default;

RocePfcWatchdog::~RocePfcWatchdog() = default;

bool
RocePfcWatchdog::IsEnabledByDefault()
{
    TypeId::AttributeInformation info;
    bool found = GetTypeId().LookupAttributeByName("Enabled", &info);
    ROCE_ERROR_IF(!found, "RocePfcWatchdog: no Enabled attribute");
    Ptr<const BooleanValue> v = DynamicCast<const BooleanValue>(info.initialValue);
    return v && v->Get();
}

void
RocePfcWatchdog::SetTimeout(Time t)
{
    ROCE_ERROR_IF(!t.IsStrictlyPositive(), "RocePfcWatchdog: Timeout=" << t << " must be positive");
    m_timeout = t;
}

Time
RocePfcWatchdog::GetTimeout() const
{
    return m_timeout;
}

void
RocePfcWatchdog::SetInterval(Time t)
{
    ROCE_ERROR_IF(!t.IsStrictlyPositive(),
                  "RocePfcWatchdog: Interval=" << t << " must be positive");
    m_interval = t;
}

Time
RocePfcWatchdog::GetInterval() const
{
    return m_interval;
}

void
RocePfcWatchdog::SetRecoveryTime(Time t)
{
    ROCE_ERROR_IF(!t.IsStrictlyPositive(),
                  "RocePfcWatchdog: RecoveryTime=" << t << " must be positive");
    m_recoveryTime = t;
}

Time
RocePfcWatchdog::GetRecoveryTime() const
{
    return m_recoveryTime;
}

RocePfcWatchdog::Action
RocePfcWatchdog::GetAction() const
{
    return m_action;
}

void
RocePfcWatchdog::SetOwner(const Object* port)
{
    ROCE_ERROR_IF(m_owner && port && m_owner != port,
                  "RocePfcWatchdog: this watchdog already serves another port; give each "
                  "RoceSwitchPort its own (PfcWatchdog attribute)");
    m_owner = port;
}

void
RocePfcWatchdog::NotifyPause(uint8_t priority, Time now, bool backlogged)
{
    auto bit = static_cast<uint8_t>(1u << priority);
    if (m_recovery & bit)
    {
        return; // the stall restarts when the recovery ends
    }
    if (backlogged)
    {
        m_stalled |= bit;
        m_stallStart[priority] = now;
    }
    else
    {
        m_stalled &= static_cast<uint8_t>(~bit);
    }
}

void
RocePfcWatchdog::NotifyResume(uint8_t priority)
{
    m_stalled &= static_cast<uint8_t>(~(1u << priority));
}

uint8_t
RocePfcWatchdog::Check(Time now, uint8_t pausedMask, uint8_t backloggedMask)
{
    uint8_t fire = 0;
    uint8_t watched = pausedMask & static_cast<uint8_t>(~m_recovery);
    // A queue that is neither paused nor in recovery is not stalled.
    m_stalled &= static_cast<uint8_t>(pausedMask | m_recovery);
    for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
    {
        auto bit = static_cast<uint8_t>(1u << p);
        if (!(watched & bit))
        {
            continue;
        }
        if (!(backloggedMask & bit))
        {
            m_stalled &= static_cast<uint8_t>(~bit); // paused, but nothing waits
            continue;
        }
        if (!(m_stalled & bit))
        {
            m_stalled |= bit; // frames arrived since the last check
            m_stallStart[p] = now;
        }
        if (now - m_stallStart[p] >= m_timeout)
        {
            fire |= bit;
            m_recovery |= bit;
            ++m_stats.triggers[p];
            m_stats.lastTrigger[p] = now;
            m_stats.lastStall[p] = now - m_stallStart[p];
        }
    }
    return fire;
}

void
RocePfcWatchdog::Restore(uint8_t priority, Time now, bool paused, bool backlogged)
{
    auto bit = static_cast<uint8_t>(1u << priority);
    if (!(m_recovery & bit))
    {
        return;
    }
    m_recovery &= static_cast<uint8_t>(~bit);
    ++m_stats.restores[priority];
    if (paused && backlogged)
    {
        m_stalled |= bit;
        m_stallStart[priority] = now;
    }
    else
    {
        m_stalled &= static_cast<uint8_t>(~bit);
    }
}

Time
RocePfcWatchdog::GetStall(uint8_t priority, Time now) const
{
    auto bit = static_cast<uint8_t>(1u << priority);
    if (!(m_stalled & bit) || (m_recovery & bit))
    {
        return Time(0);
    }
    return now - m_stallStart[priority];
}

void
RocePfcWatchdog::CountDrops(uint8_t priority, uint64_t frames, uint64_t bytes)
{
    m_stats.droppedFrames[priority] += frames;
    m_stats.droppedBytes[priority] += bytes;
}

} // namespace ns3
