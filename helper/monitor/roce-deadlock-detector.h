/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_DEADLOCK_DETECTOR_H
#define ROCE_DEADLOCK_DETECTOR_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief One switch egress queue: (switch node id, port index, priority).
 */
struct RoceQueueId
{
    uint32_t node{0};    //!< the switch's node id
    uint32_t port{0};    //!< the port's index on the switch
    uint8_t priority{0}; //!< the priority (egress queue)

    /** \param o another id \return ordering by node, then port, then priority */
    bool operator<(const RoceQueueId& o) const;
    /** \param o another id \return true if equal */
    bool operator==(const RoceQueueId& o) const;
    /** \return the printable form "sw<node>/p<port>/pri<priority>" */
    std::string ToString() const;
};

/**
 * \ingroup rocev2
 * \brief A PFC deadlock: a cycle of paused switch queues, each waiting for
 * the next, as RoceDeadlockDetector found it.
 */
struct RoceDeadlockReport
{
    Time detected;                  //!< the first check that found the cycle
    Time ended{-1};                 //!< the first check that no longer found it (-1: persists)
    std::vector<RoceQueueId> cycle; //!< the queues, from the smallest; each waits for the next

    /** \return true while the cycle persists */
    bool IsActive() const;

    /**
     * \return "t=12.345ms deadlock: sw4/p2/pri3 -> sw5/p2/pri3 -> ... -> sw4/p2/pri3"
     * (the cycle closed on its first queue)
     */
    std::string ToString() const;
};

/**
 * \ingroup rocev2
 * \brief Finds PFC deadlocks: cycles in the wait-for graph of the paused
 * queues of every RoceSwitch in the simulation.
 *
 * The graph is rebuilt at each check. Its nodes are the switch egress queues
 * Q = (switch A, port p, priority k) that the peer pauses and that hold
 * frames (a queue that its port's PFC watchdog holds in recovery ignores the
 * pause and is not a node). There is an edge Q -> R, R = (switch B, port q', priority k), when
 * port p of A is linked to port q of switch B, R holds at least one frame that
 * entered B on port q with priority k, and R is itself a node: the frames
 * whose buffer use pauses Q cannot leave B. A cycle is a PFC deadlock (a
 * cyclic buffer dependency that has closed): no queue on it can move again
 * without outside help (a PFC watchdog, a timeout).
 *
 * Cycles are enumerated with Johnson's algorithm (at most MaxCycles per
 * check), each starting at its smallest queue in (node, port, priority)
 * order, so reports are deterministic. A cycle is reported once, at the
 * first check that finds it, through the Deadlock trace, the log and
 * GetReports(); when a later check no longer finds it, its report gets its
 * end time and the DeadlockEnd trace fires. A cycle that forms again is
 * reported again.
 *
 * Checks run every Interval between Start() and Stop(), or on demand with
 * Check(). The detector reads queue state through the ports' and queue
 * discs' getters (RoceEgressQueueDisc::CollectIngressPorts scans a paused
 * queue once per check) and never touches the packet path. It stops
 * rescheduling itself when no other event is pending, so a run without a
 * stop time still ends.
 */
class RoceDeadlockDetector : public Object
{
  public:
    /**
     * TracedCallback signature of Deadlock and DeadlockEnd.
     * \param report the cycle and when it was found (and ended)
     */
    typedef void (*DeadlockTracedCallback)(const RoceDeadlockReport& report);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceDeadlockDetector();
    ~RoceDeadlockDetector() override;

    /** \brief Check every Interval from now on (the first check one Interval from now). */
    void Start();

    /** \brief Stop the periodic checks. */
    void Stop();

    /**
     * \brief Build the wait-for graph now and report the cycles that are new.
     * \return the number of new cycles
     */
    uint32_t Check();

    /** \return every cycle reported so far, in the order found */
    const std::vector<RoceDeadlockReport>& GetReports() const;

    /** \return the cycles that persisted at the last check */
    std::vector<RoceDeadlockReport> GetActiveReports() const;

    /** \return checks run */
    uint64_t GetNChecks() const;

    /** \return the most paused, backlogged queues (graph nodes) one check saw */
    uint32_t GetMaxPausedQueues() const;

    /** \return the most wait-for edges one check saw */
    uint32_t GetMaxEdges() const;

    /**
     * \brief Write every report, one per line, with its end time if it ended.
     * \param os the stream
     */
    void Print(std::ostream& os) const;

    /**
     * \brief The elementary cycles of a directed graph (Johnson's algorithm).
     * \param adjacency the successors of each vertex 0..n-1
     * \param maxCycles stop after this many
     * \return the cycles, each as the vertices in order from its smallest;
     *         cycles with smaller first vertices come first
     */
    static std::vector<std::vector<uint32_t>> FindCycles(
        const std::vector<std::vector<uint32_t>>& adjacency,
        uint32_t maxCycles);

  protected:
    void DoDispose() override;

  private:
    /** \brief The periodic check. */
    void PeriodicCheck();
    /** \param interval the Interval attribute (> 0) */
    void SetInterval(Time interval);
    /** \return the Interval attribute */
    Time GetInterval() const;

    Time m_interval;
    uint32_t m_maxCycles{64};
    EventId m_event;
    std::vector<RoceDeadlockReport> m_reports;
    std::vector<uint32_t> m_active; //!< indices in m_reports of the cycles that persist
    uint64_t m_checks{0};
    uint32_t m_maxNodes{0};
    uint32_t m_maxEdges{0};

    TracedCallback<const RoceDeadlockReport&> m_deadlockTrace;
    TracedCallback<const RoceDeadlockReport&> m_deadlockEndTrace;
};

} // namespace ns3

#endif /* ROCE_DEADLOCK_DETECTOR_H */
