/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch-port.h"

#include "roce-switch.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/roce-error.h"
#include "ns3/roce-hash.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-raw-header.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"

#include <string>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitchPort");
NS_OBJECT_ENSURE_REGISTERED(RoceSwitchPort);

TypeId
RoceSwitchPort::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitchPort")
            .SetParent<RocePfcNetDevice>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceSwitchPort>()
            .AddAttribute("EgressQueueDisc",
                          "The port's egress queue disc (per-priority queues, ECN marking, "
                          "scheduling). The switch creates it when the port joins.",
                          PointerValue(),
                          MakePointerAccessor(&RoceSwitchPort::m_qdisc),
                          MakePointerChecker<RoceEgressQueueDisc>())
            .AddAttribute("PfcWatchdog",
                          "The port's PFC watchdog (RocePfcWatchdog: Enabled, Timeout, "
                          "Interval, RecoveryTime, Action), created on first use.",
                          PointerValue(),
                          MakePointerAccessor(&RoceSwitchPort::SetPfcWatchdog,
                                              &RoceSwitchPort::GetPfcWatchdog),
                          MakePointerChecker<RocePfcWatchdog>())
            .AddTraceSource("PfcWatchdogTrigger",
                            "The PFC watchdog fired on a queue (priority, time it was "
                            "paused with frames).",
                            MakeTraceSourceAccessor(&RoceSwitchPort::m_wdTriggerTrace),
                            "ns3::RoceSwitchPort::PfcWatchdogTriggerCallback")
            .AddTraceSource("PfcWatchdogRestore",
                            "A queue's watchdog recovery ended; it honours pauses again "
                            "(priority).",
                            MakeTraceSourceAccessor(&RoceSwitchPort::m_wdRestoreTrace),
                            "ns3::RoceSwitchPort::PfcWatchdogRestoreCallback");
    return tid;
}

/** The timers of a port's PFC watchdog, made when it is first armed. */
struct RoceSwitchPort::WatchdogTimers
{
    EventId check;                                      //!< the check timer
    std::array<EventId, ROCE_NUM_PRIORITIES> restore{}; //!< the end of each recovery
};

RoceSwitchPort::RoceSwitchPort() = default;

RoceSwitchPort::~RoceSwitchPort() = default;

void
RoceSwitchPort::SetSwitch(RoceSwitch* sw, uint32_t index, Ptr<RoceEgressQueueDisc> qdisc)
{
    m_switch = sw;
    m_index = index;
    m_qdisc = qdisc;
}

uint32_t
RoceSwitchPort::GetPortIndex() const
{
    return m_index;
}

Ptr<RoceEgressQueueDisc>
RoceSwitchPort::GetQueueDisc() const
{
    return m_qdisc;
}

void
RoceSwitchPort::DoDispose()
{
    if (m_wdTimers)
    {
        m_wdTimers->check.Cancel();
        for (auto& e : m_wdTimers->restore)
        {
            e.Cancel();
        }
        m_wdTimers.reset();
    }
    m_watchdog = nullptr;
    m_switch = nullptr;
    if (m_qdisc)
    {
        m_qdisc->Dispose();
    }
    m_qdisc = nullptr;
    RocePfcNetDevice::DoDispose();
}

bool
RoceSwitchPort::Enqueue(RoceFramePtr p,
                        uint16_t ingress,
                        uint8_t priority,
                        bool ect,
                        uint8_t telemetry)
{
    if (m_wdDropMask & (1u << priority))
    {
        WatchdogDropArrival(std::move(p), priority);
        return false;
    }
    if (m_qdisc->EnqueueFrame(std::move(p), ingress, priority, ect, telemetry))
    {
        TryTransmit();
        return true;
    }
    return false;
}

RoceFramePtr
RoceSwitchPort::DequeueData(uint8_t pausedMask)
{
    m_qdisc->SetPausedMask(pausedMask & static_cast<uint8_t>(~m_wdIgnoreMask));
    uint8_t priority = 0;
    uint8_t telemetry = RoceEgressQueueDisc::TELEMETRY_NONE;
    RoceFramePtr p = m_qdisc->DequeueFrame(&priority, &telemetry);
    if (p && telemetry == RoceEgressQueueDisc::TELEMETRY_INT)
    {
        StampInt(*p, priority); // the PINT digest is the queue disc's
    }
    return p;
}

void
RoceSwitchPort::StampInt(RoceWireFrame& p, uint8_t priority)
{
    RoceIntRecord r;
    r.rateMbps = static_cast<uint32_t>(GetDataRate().GetBitRate() / 1000000);
    r.queueBytes = m_qdisc->GetQueueBytes(priority);
    r.txBytes = GetTxBytes();
    r.timestampNs = static_cast<uint64_t>(RoceNow().GetNanoSeconds());
    if (m_intMultiplier == 0)
    {
        m_intMultiplier = RoceIntRecord::GetUnitMultiplier();
    }
    r.unitMultiplier = m_intMultiplier;
    p.StampInt(r);
}

void
RoceSwitchPort::ReceiveFrame(RoceFramePtr p, const RoceFrame& frame)
{
    ROCE_ERROR_IF(!m_switch, "RoceSwitchPort: port is not part of a RoceSwitch");
    m_switch->Receive(this, std::move(p), frame);
}

bool
RoceSwitchPort::DropsWhenLinkDown() const
{
    return true;
}

bool
RoceSwitchPort::HasWaitingData(uint8_t pausedMask) const
{
    return m_qdisc->HasUnpausedData(pausedMask & static_cast<uint8_t>(~m_wdIgnoreMask));
}

// ---------------------------------------------------------------------------
// PFC watchdog

Ptr<RocePfcWatchdog>
RoceSwitchPort::GetPfcWatchdog() const
{
    if (!m_watchdog)
    {
        m_watchdog = CreateObject<RocePfcWatchdog>();
        m_watchdog->SetOwner(this);
    }
    return m_watchdog;
}

void
RoceSwitchPort::SetPfcWatchdog(Ptr<RocePfcWatchdog> watchdog)
{
    if (watchdog)
    {
        watchdog->SetOwner(this);
    }
    m_watchdog = watchdog;
}

RocePfcWatchdog::Stats
RoceSwitchPort::GetPfcWatchdogStats() const
{
    return m_watchdog ? m_watchdog->GetStats() : RocePfcWatchdog::Stats();
}

uint8_t
RoceSwitchPort::GetPfcWatchdogRecoveryMask() const
{
    return m_watchdog ? m_watchdog->GetRecoveryMask() : 0;
}

void
RoceSwitchPort::NotifyPause(uint8_t priority)
{
    if (!m_watchdog)
    {
        // Never configured: it runs only if Config::SetDefault enabled it,
        // which is read once, at the port's first pause.
        if (m_wdDefaultRead)
        {
            return;
        }
        m_wdDefaultRead = true;
        if (!RocePfcWatchdog::IsEnabledByDefault())
        {
            return;
        }
        GetPfcWatchdog();
    }
    if (!m_watchdog->IsEnabled())
    {
        return;
    }
    bool backlogged = m_qdisc && m_qdisc->GetQueueBytes(priority) > 0;
    m_watchdog->NotifyPause(priority, RoceNow(), backlogged);
    WatchdogArm();
}

void
RoceSwitchPort::NotifyResume(uint8_t priority)
{
    if (m_watchdog)
    {
        m_watchdog->NotifyResume(priority);
    }
}

void
RoceSwitchPort::WatchdogArm()
{
    if (!m_wdTimers)
    {
        m_wdTimers = std::make_unique<WatchdogTimers>();
    }
    if (!m_wdTimers->check.IsExpired())
    {
        return;
    }
    // The next point of this port's check grid: period Interval, phase
    // fixed per (node, port) like a free-running hardware timer, so the
    // watchdogs of different ports paused together do not fire in lockstep.
    int64_t period = m_watchdog->GetInterval().GetTimeStep();
    uint32_t node = GetNode() ? GetNode()->GetId() : 0;
    uint64_t key = ((uint64_t(node) << 32) | m_index) + 0x9E3779B97F4A7C15ULL; // Mix64(0) = 0
    auto phase = static_cast<int64_t>(RoceHash::Mix64(key) % static_cast<uint64_t>(period));
    int64_t now = RoceNow().GetTimeStep();
    int64_t sincePoint = ((now - phase) % period + period) % period;
    m_wdTimers->check =
        Simulator::Schedule(TimeStep(period - sincePoint), &RoceSwitchPort::WatchdogCheck, this);
}

void
RoceSwitchPort::WatchdogCheck()
{
    if (!m_watchdog->IsEnabled())
    {
        return; // switched off: recoveries under way still end on time
    }
    uint8_t fire = m_watchdog->Check(RoceNow(), GetPausedMask(), m_qdisc->GetBackloggedMask());
    for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
    {
        if (fire & (1u << p))
        {
            WatchdogTrigger(p);
        }
    }
    if (m_watchdog->NeedsCheck(GetPausedMask()))
    {
        WatchdogArm();
    }
}

void
RoceSwitchPort::WatchdogTrigger(uint8_t priority)
{
    Time stalled = m_watchdog->GetStats().lastStall[priority];
    auto bit = static_cast<uint8_t>(1u << priority);
    bool drop = m_watchdog->GetAction() == RocePfcWatchdog::DROP;
    m_wdIgnoreMask |= bit;
    uint32_t frames = 0;
    uint64_t bytes = 0;
    if (drop)
    {
        m_wdDropMask |= bit;
        std::tie(frames, bytes) = m_qdisc->Flush(priority, DROP_PFC_WATCHDOG);
        m_watchdog->CountDrops(priority, frames, bytes);
    }
    Time recovery = m_watchdog->GetRecoveryTime();
    NS_LOG_WARN("PFC watchdog: node "
                << (GetNode() ? GetNode()->GetId() : 0) << " port " << m_index << " priority "
                << +priority << " paused with frames for " << stalled.As(Time::MS) << "; "
                << (drop ? "dropping (flushed " + std::to_string(frames) + " frames)"
                         : std::string("forwarding despite the pause"))
                << " for " << recovery.As(Time::MS));
    m_wdTimers->restore[priority] =
        Simulator::Schedule(recovery, &RoceSwitchPort::WatchdogRestore, this, priority);
    m_wdTriggerTrace(priority, stalled);
    TryTransmit();
}

void
RoceSwitchPort::WatchdogRestore(uint8_t priority)
{
    auto bit = static_cast<uint8_t>(1u << priority);
    m_wdIgnoreMask &= static_cast<uint8_t>(~bit);
    m_wdDropMask &= static_cast<uint8_t>(~bit);
    bool paused = IsPaused(priority);
    m_watchdog->Restore(priority, RoceNow(), paused, m_qdisc->GetQueueBytes(priority) > 0);
    NS_LOG_INFO("PFC watchdog: node " << (GetNode() ? GetNode()->GetId() : 0) << " port " << m_index
                                      << " priority " << +priority << " restored"
                                      << (paused ? " (still paused)" : ""));
    m_wdRestoreTrace(priority);
    if (paused && m_watchdog->IsEnabled())
    {
        WatchdogArm();
    }
}

void
RoceSwitchPort::WatchdogDropArrival(RoceFramePtr p, uint8_t priority)
{
    m_watchdog->CountDrops(priority, 1, p->GetSize());
    m_qdisc->DropArrival(*p, priority, DROP_PFC_WATCHDOG);
}

} // namespace ns3
