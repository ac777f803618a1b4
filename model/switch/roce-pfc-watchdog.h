/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_PFC_WATCHDOG_H
#define ROCE_PFC_WATCHDOG_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/roce-frame.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The PFC watchdog of one switch port: its settings, its decisions
 * over the port's eight egress queues (priorities), and its counters.
 *
 * A queue is stalled while its peer pauses it and it holds frames: it cannot
 * drain. The stall starts when the pause arrives if the queue holds frames
 * then, or else at the first check that finds frames in it (a paused queue
 * only grows, so from then on it holds frames until the pause ends). A check
 * that finds a queue stalled for at least Timeout fires the watchdog on it:
 * the queue enters recovery, and its port stops honouring the pause (and
 * with the Drop action flushes the queue and drops arrivals to it) until
 * Restore(), RecoveryTime later. A restored queue that is still paused with
 * frames starts a new stall at once, so a storm that persists fires again
 * one timeout later.
 *
 * Like RoceSharedBufferMmu, the object holds no simulator state: its port
 * (RoceSwitchPort, whose PfcWatchdog attribute it is) tells it about pauses,
 * calls Check() every Interval with the current time and the paused and
 * backlogged priorities, and acts on the answer (timers, flush, traces). That
 * keeps the logic testable on its own.
 *
 * A port creates its watchdog on first use (Config path, GetPfcWatchdog(), or
 * its first pause if Config::SetDefault("ns3::RocePfcWatchdog::Enabled",
 * BooleanValue(true)) was called), so a port whose watchdog is never used
 * pays nothing for it.
 */
class RocePfcWatchdog : public Object
{
  public:
    /** What a port does with a queue the watchdog fired on, until it restores it. */
    enum Action
    {
        DROP,    //!< flush the queue and drop arrivals to it (reason "pfc-watchdog")
        FORWARD, //!< transmit the queue's frames ignoring the pause
    };

    /** Per-priority counters of a port's watchdog. */
    struct Stats
    {
        std::array<uint64_t, ROCE_NUM_PRIORITIES> triggers{};      //!< times the watchdog fired
        std::array<uint64_t, ROCE_NUM_PRIORITIES> restores{};      //!< recoveries ended
        std::array<uint64_t, ROCE_NUM_PRIORITIES> droppedFrames{}; //!< flushed or dropped frames
        std::array<uint64_t, ROCE_NUM_PRIORITIES> droppedBytes{};  //!< their bytes
        std::array<Time, ROCE_NUM_PRIORITIES> lastTrigger{};       //!< when it last fired
        std::array<Time, ROCE_NUM_PRIORITIES> lastStall{};         //!< the stall it last fired on
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RocePfcWatchdog();
    ~RocePfcWatchdog() override;

    /** \return true if the Enabled attribute's default (Config::SetDefault) is true */
    static bool IsEnabledByDefault();

    /** \return the Enabled attribute */
    bool IsEnabled() const
    {
        return m_enabled;
    }

    /** \return the Timeout attribute */
    Time GetTimeout() const;
    /** \return the Interval attribute */
    Time GetInterval() const;
    /** \return the RecoveryTime attribute */
    Time GetRecoveryTime() const;
    /** \return the Action attribute */
    Action GetAction() const;

    /**
     * \brief Bind the watchdog to its port; a watchdog serves one port only.
     * \param port the port (aborts if the watchdog already serves another)
     */
    void SetOwner(const Object* port);

    /**
     * \brief The peer paused a priority that was running.
     * \param priority the priority
     * \param now the current time
     * \param backlogged true if the queue holds frames
     */
    void NotifyPause(uint8_t priority, Time now, bool backlogged);

    /**
     * \brief The peer resumed a priority: its stall, if any, ends.
     * \param priority the priority
     */
    void NotifyResume(uint8_t priority);

    /**
     * \brief One poll: update the stalls and fire on the queues stalled for
     * at least the timeout. A queue in recovery is not checked.
     * \param now the current time
     * \param pausedMask bit p set while the peer pauses priority p
     * \param backloggedMask bit p set while queue p holds frames
     * \return the priorities the watchdog fires on now (they enter recovery)
     */
    uint8_t Check(Time now, uint8_t pausedMask, uint8_t backloggedMask);

    /**
     * \brief A queue's recovery ended. If it is still paused with frames, a
     * new stall starts now.
     * \param priority the priority
     * \param now the current time
     * \param paused true if the peer still pauses it
     * \param backlogged true if it holds frames
     */
    void Restore(uint8_t priority, Time now, bool paused, bool backlogged);

    /**
     * \param pausedMask bit p set while the peer pauses priority p
     * \return true if a paused queue is not in recovery (polling must go on)
     */
    bool NeedsCheck(uint8_t pausedMask) const
    {
        return (pausedMask & ~m_recovery) != 0;
    }

    /** \return bit p set while queue p is in recovery */
    uint8_t GetRecoveryMask() const
    {
        return m_recovery;
    }

    /**
     * \param priority a priority
     * \param now the current time
     * \return how long the queue has been stalled (0 if it is not)
     */
    Time GetStall(uint8_t priority, Time now) const;

    /**
     * \brief Count frames the port dropped for the watchdog.
     * \param priority their priority
     * \param frames how many
     * \param bytes their bytes
     */
    void CountDrops(uint8_t priority, uint64_t frames, uint64_t bytes);

    /** \return the counters */
    const Stats& GetStats() const
    {
        return m_stats;
    }

  private:
    /** \param t the Timeout attribute (> 0) */
    void SetTimeout(Time t);
    /** \param t the Interval attribute (> 0) */
    void SetInterval(Time t);
    /** \param t the RecoveryTime attribute (> 0) */
    void SetRecoveryTime(Time t);

    bool m_enabled{false};
    Time m_timeout;
    Time m_interval;
    Time m_recoveryTime;
    Action m_action{DROP};
    const Object* m_owner{nullptr};                       //!< the port served (identity only)
    std::array<Time, ROCE_NUM_PRIORITIES> m_stallStart{}; //!< valid where m_stalled has the bit
    uint8_t m_stalled{0};                                 //!< queues whose stall has started
    uint8_t m_recovery{0};                                //!< queues in recovery
    Stats m_stats;
};

} // namespace ns3

#endif /* ROCE_PFC_WATCHDOG_H */
