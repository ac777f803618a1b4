/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_PROGRESS_H
#define ROCE_PROGRESS_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <chrono>
#include <cstdint>
#include <ostream>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A progress line for long runs: simulated time / stop time,
 * events/s, wall time elapsed and ETA, redrawn in place ('\\r') at most
 * four times per second of wall time, then a final newline.
 *
 * ns-3's ShowProgress (core) was considered: it prints one new line per
 * update with the simulated time and the event rate, but it knows no stop
 * time (so neither a fraction done nor an ETA), does not redraw in place,
 * and its own events are counted among the simulation's. Hence this class.
 *
 * It runs as one simulator event at a time, whose simulated interval adapts
 * so that it fires about every 0.1 s of wall time; it draws nothing else and
 * uses no random numbers, so the simulation's results do not change. Its
 * events are counted (GetOwnEventCount()) so that reports can exclude them.
 * It stops rescheduling when no other event is pending, so a run to
 * completion still ends; it never schedules past the stop time. With no
 * stop time the run can end up to one check interval after its last model
 * event: call Disable() when the workload completes (as for RoceMonitor::Stop())
 * to avoid that.
 *
 * Most programs use the static interface:
 * \code
 *   RoceProgress::Enable(stopTime, quiet); // silent unless stderr is a terminal
 *   Simulator::Run();
 *   RoceProgress::Disable();               // final newline
 *   events = Simulator::GetEventCount() - RoceProgress::GetOwnEvents();
 * \endcode
 */
class RoceProgress
{
  public:
    /**
     * \param stopTime the run's stop time (zero or Time::Max(): unknown)
     * \param os where to draw (nullptr: nowhere)
     * \param isTerminal true if os is a terminal; the line is drawn only then
     * \param quiet true to draw nothing
     */
    RoceProgress(Time stopTime, std::ostream* os, bool isTerminal, bool quiet);
    ~RoceProgress();

    RoceProgress(const RoceProgress&) = delete;
    RoceProgress& operator=(const RoceProgress&) = delete;

    /** \brief Start checking (schedules the first check), if the line is drawn at all. */
    void Start();

    /** \brief Stop checking; draw the final state and a newline if anything is drawn. */
    void Finish();

    /** \return true if the line is drawn (a terminal and not quiet) */
    bool IsActive() const;

    /** \return the simulator events this object has run */
    uint64_t GetOwnEventCount() const;

    /**
     * \brief Draw a progress line on stderr for the current simulation,
     * unless quiet or stderr is not a terminal (isatty(2)). Replaces a
     * previous one. Simulator::Destroy() finishes it if Disable() was not called.
     * \param stopTime the run's stop time (zero or Time::Max(): unknown)
     * \param quiet true to draw nothing (--quiet)
     */
    static void Enable(Time stopTime, bool quiet);

    /** \brief Finish the line started by Enable(), if any (idempotent). */
    static void Disable();

    /** \return the events run by the line of the last Enable() (still counted after Disable()) */
    static uint64_t GetOwnEvents();

  private:
    /** \brief One check: maybe draw, then reschedule. */
    void Check();
    /** \brief Draw the line. \param final true for the last one */
    void Draw(bool final);

    using Clock = std::chrono::steady_clock; //!< wall clock

    Time m_stopTime;               //!< stop time, zero if unknown
    std::ostream* m_os;            //!< where to draw
    bool m_active;                 //!< drawing at all
    bool m_drawn{false};           //!< something was drawn
    bool m_finished{false};        //!< Finish() ran
    EventId m_event;               //!< the next check
    Time m_interval;               //!< simulated time between checks
    uint64_t m_ownEvents{0};       //!< checks run
    Clock::time_point m_start;     //!< wall clock at Start()
    Clock::time_point m_lastCheck; //!< wall clock at the last check
    Clock::time_point m_lastDraw;  //!< wall clock at the last draw
    uint64_t m_lastEvents{0};      //!< model events at the last draw
    double m_eventRate{0};         //!< model events per wall second, last measured
    std::size_t m_lastWidth{0};    //!< length of the last line drawn
};

} // namespace ns3

#endif /* ROCE_PROGRESS_H */
