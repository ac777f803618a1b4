/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_PORT_H
#define ROCE_SWITCH_PORT_H

#include "roce-egress-queue-disc.h"
#include "roce-pfc-watchdog.h"

#include "ns3/roce-pfc-net-device.h"

#include <memory>

namespace ns3
{

class RoceSwitch;

/**
 * \ingroup rocev2
 * \brief One port of a RoceSwitch: the shared PFC-capable wire end plus an
 * egress queue disc.
 *
 * Received frames go to the switch (ingress: MMU admission, forwarding);
 * the wire takes frames from the port's RoceEgressQueueDisc, which skips the
 * priorities the downstream device paused. The queue disc is the Pointer
 * attribute EgressQueueDisc, so
 * /NodeList/N/DeviceList/D/$ns3::RoceSwitchPort/EgressQueueDisc/... reaches it.
 *
 * PFC watchdog: the Pointer attribute PfcWatchdog (a RocePfcWatchdog, made
 * on first use; off unless its Enabled attribute is true). When the peer
 * pauses a priority, an enabled port starts a check timer (the watchdog's
 * Interval) that runs while any priority of the port is paused; checks fall
 * on a grid whose phase is fixed per (node, port), like free-running
 * hardware timers, so ports paused together do not fire in lockstep. A
 * queue paused with frames for the watchdog's Timeout (detected within one
 * Interval after) is stalled: the port stops honouring the pause on it for
 * RecoveryTime and, with the Drop action (the default), flushes it and drops
 * what arrives for it meanwhile (drop reason "pfc-watchdog", MMU accounting
 * released exactly, so the switch's own XOFF upstream is released as its
 * buffer drains); with the Forward action it sends the queue's frames
 * despite the pause. Then it honours the pause again; a queue still paused
 * with frames stalls anew, so a storm that persists fires again one timeout
 * later. Trace sources PfcWatchdogTrigger and PfcWatchdogRestore, counters
 * in GetPfcWatchdogStats(), an NS_LOG_WARN on each trigger. A port whose
 * watchdog is off schedules nothing and pays one branch per frame.
 */
class RoceSwitchPort : public RocePfcNetDevice
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceSwitchPort();
    ~RoceSwitchPort() override;

    /**
     * \brief Join a switch.
     * \param sw the switch
     * \param index this port's index on it
     * \param qdisc the egress queue disc
     */
    void SetSwitch(RoceSwitch* sw, uint32_t index, Ptr<RoceEgressQueueDisc> qdisc);

    /** \return the port's index on its switch */
    uint32_t GetPortIndex() const;

    /** \return the egress queue disc */
    Ptr<RoceEgressQueueDisc> GetQueueDisc() const;

    /**
     * \brief Queue a frame for transmission (it has been routed here).
     * \param p the frame
     * \param ingress the index on the switch of the port it arrived on
     * \param priority its priority (= ingress PG = egress queue)
     * \param ect the frame is ECN-capable
     * \param telemetry what it asks of the egress (RoceEgressQueueDisc::TELEMETRY_)
     * \return true if queued, false if the MMU dropped it
     */
    bool Enqueue(RoceFramePtr p, uint16_t ingress, uint8_t priority, bool ect, uint8_t telemetry);

    static constexpr const char* DROP_PFC_WATCHDOG =
        "pfc-watchdog"; //!< flushed or refused by the PFC watchdog

    /**
     * TracedCallback signature of PfcWatchdogTrigger.
     * \param priority the queue's priority
     * \param stalled how long it had been paused with frames
     */
    typedef void (*PfcWatchdogTriggerCallback)(uint8_t priority, Time stalled);

    /**
     * TracedCallback signature of PfcWatchdogRestore.
     * \param priority the queue's priority
     */
    typedef void (*PfcWatchdogRestoreCallback)(uint8_t priority);

    /**
     * \return the port's PFC watchdog (the PfcWatchdog attribute), made now
     * if it does not exist yet
     */
    Ptr<RocePfcWatchdog> GetPfcWatchdog() const;

    /**
     * \brief Give the port its own PFC watchdog (the PfcWatchdog attribute).
     * \param watchdog the watchdog; aborts if it already serves another port
     */
    void SetPfcWatchdog(Ptr<RocePfcWatchdog> watchdog);

    /** \return the PFC watchdog's counters (all zero if it never ran) */
    RocePfcWatchdog::Stats GetPfcWatchdogStats() const;

    /** \return bit p set while the watchdog holds priority p in recovery */
    uint8_t GetPfcWatchdogRecoveryMask() const;

  protected:
    void DoDispose() override;
    RoceFramePtr DequeueData(uint8_t pausedMask) override;
    void ReceiveFrame(RoceFramePtr p, const RoceFrame& frame) override;
    /** \return true: a dead port drops what is queued to it */
    bool DropsWhenLinkDown() const override;
    void NotifyPause(uint8_t priority) override;
    void NotifyResume(uint8_t priority) override;

  private:
    /**
     * \brief Append this hop's INT record before the ICRC and count it in BTH.
     *
     * The frame's first bytes are patched in place (RoceRawHeader::StampInt);
     * no header is re-serialised. A frame that already carries
     * RoceIntRecord::MAX_HOPS records is left as it is.
     * \param p the frame leaving the port
     * \param priority its egress queue
     */
    void StampInt(RoceWireFrame& p, uint8_t priority);

    /** \brief The watchdog's check timer: fire on the stalled queues. */
    void WatchdogCheck();
    /** \brief Start the check timer unless it runs. */
    void WatchdogArm();
    /** \brief The watchdog fired on a queue: act. \param priority the queue */
    void WatchdogTrigger(uint8_t priority);
    /** \brief A queue's recovery time is over. \param priority the queue */
    void WatchdogRestore(uint8_t priority);
    /**
     * \brief Drop a frame that arrived for a queue the watchdog drops.
     * \param p the frame \param priority its queue
     */
    void WatchdogDropArrival(RoceFramePtr p, uint8_t priority);

    RoceSwitch* m_switch{nullptr};
    uint32_t m_index{0};
    Ptr<RoceEgressQueueDisc> m_qdisc;

    // Read per frame: zero unless the watchdog holds a queue in recovery.
    uint8_t m_wdIgnoreMask{0}; //!< pauses not honoured (queues in recovery)
    uint8_t m_wdDropMask{0};   //!< queues whose arrivals are dropped (Drop action)

    mutable Ptr<RocePfcWatchdog> m_watchdog;    //!< made on first use (GetPfcWatchdog)
    bool m_wdDefaultRead{false};                //!< the Enabled default was read at a pause
    struct WatchdogTimers;                      //!< made when the watchdog is first armed
    std::unique_ptr<WatchdogTimers> m_wdTimers; //!< its check and restore events

    TracedCallback<uint8_t, Time> m_wdTriggerTrace; //!< the watchdog fired
    TracedCallback<uint8_t> m_wdRestoreTrace;       //!< a recovery ended
    uint32_t m_intMultiplier{0}; //!< RoceIntUnitMultiplier, read at the first INT (0: not yet)

  protected:
    /**
     * \brief Exact: whether the egress queue holds bytes in a priority that
     * is not paused.
     * \param pausedMask bit p set if priority p is paused by the peer
     * \return true if DequeueData may give a frame
     */
    bool HasWaitingData(uint8_t pausedMask) const override;
};

} // namespace ns3

#endif /* ROCE_SWITCH_PORT_H */
