/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_INVARIANTS_H
#define ROCE_INVARIANTS_H

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief What the end of a run must look like, checked over every switch,
 * device and queue pair of the simulation.
 *
 * - **Messages.** Every posted message was completed, failed (listed with its
 *   queue pair and reason) or is still pending; a run stopped with work in
 *   flight is "not drained", which the example's own completion check judges.
 *   A queue pair with packets in flight and no retransmission timer armed
 *   would never finish them: a violation (a hang).
 * - **Buffers.** Once drained, every MMU counter of every switch (per port and
 *   priority group, headroom, shared pool, total) is zero and no priority
 *   group still holds XOFF: a counter left over is an accounting leak.
 * - **Lossless drops.** Drops a fault explains (link-down, rx-error,
 *   pfc-watchdog) are allowed and counted; lossy-class drops (shared-threshold,
 *   buffer-full) are allowed; every other drop (headroom overflow of a
 *   lossless PG, NIC receive-buffer overflow, malformed frames, ...) is a
 *   violation, and so are no-route and unknown-qp drops unless faults were
 *   injected (a failed switch or link can leave a destination unreachable for
 *   a while), and headroom overflows unless faults were injected and a PFC
 *   watchdog fired (a watchdog that stops honouring pauses, or forwards
 *   despite them, lets frames into the next switch's full headroom).
 *
 * Examples call Check() after Simulator::Run, write the report into their
 * JSON ("invariants") and, in debug builds, assert it (AssertOk).
 */
struct RoceInvariantReport
{
    bool drained{false};                 //!< no message pending at the end
    bool hung{false};                    //!< a queue pair stalled (see IsStalled)
    uint64_t messagesPosted{0};          //!< messages posted on every QP
    uint64_t messagesCompleted{0};       //!< completed successfully
    uint64_t messagesFailed{0};          //!< failed (QP error state)
    uint64_t messagesPending{0};         //!< neither, at the end
    uint64_t faultDrops{0};              //!< drops a fault explains
    uint64_t watchdogTriggers{0};        //!< times a switch's PFC watchdog fired
    uint64_t lossyDrops{0};              //!< drops of lossy priority groups
    uint64_t losslessViolations{0};      //!< drops a lossless fabric must not have
    uint64_t bufferLeftoverBytes{0};     //!< MMU bytes still counted (drained runs)
    std::vector<std::string> failures;   //!< failed QPs, with reason
    std::vector<std::string> violations; //!< broken invariants, one line each

    /** \return true if no invariant is broken */
    bool Ok() const
    {
        return violations.empty();
    }

    /**
     * \brief Write `"invariants": {...}` (a JSON member, no trailing comma).
     * \param os the stream \param indent spaces before the member
     */
    void WriteJsonMember(std::ostream& os, int indent = 2) const;

    /**
     * \brief Print one line ("invariants: ok ..." or the violations).
     * \param os the stream
     */
    void Print(std::ostream& os) const;
};

/**
 * \ingroup rocev2
 * \brief Checks the end-of-run invariants of RoceInvariantReport.
 */
class RoceInvariants
{
  public:
    /**
     * \brief Check the current simulation (call after Simulator::Run, before
     * Simulator::Destroy).
     * \param faults true if the run injected faults (RoceFaultHelper)
     * \return the report
     */
    static RoceInvariantReport Check(bool faults);

    /**
     * \brief In debug builds (NS3_ASSERT_ENABLE), abort with the violations
     * if there is any; nothing in release builds.
     * \param report a report of Check()
     */
    static void AssertOk(const RoceInvariantReport& report);

    /**
     * \param reason a drop reason (a DROP_* constant)
     * \return true if a fault explains it (link-down, rx-error, pfc-watchdog)
     */
    static bool IsFaultDrop(const std::string& reason);

    /**
     * \param reason a drop reason
     * \return true if only a lossy priority group drops for it
     */
    static bool IsLossyDrop(const std::string& reason);
};

} // namespace ns3

#endif /* ROCE_INVARIANTS_H */
