/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-progress.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>

namespace ns3
{

namespace
{

/// Wall time between redraws: at most four per second.
constexpr double DRAW_PERIOD_S = 0.25;
/// Wall time aimed at between checks; the simulated interval adapts to it.
constexpr double CHECK_TARGET_S = 0.1;
/// Simulated time of the first check interval.
const Time FIRST_INTERVAL = MicroSeconds(1);

/// The line of Enable(), until Disable().
std::unique_ptr<RoceProgress> g_progress;
/// The events of the last line of Enable(), once disabled.
uint64_t g_ownEvents = 0;

/**
 * \param t a simulated time
 * \return it with a unit that keeps 3 to 4 significant digits
 */
std::string
SimTimeText(Time t)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(3);
    double s = t.GetSeconds();
    if (s >= 1)
    {
        os << s << " s";
    }
    else if (s >= 1e-3)
    {
        os << s * 1e3 << " ms";
    }
    else
    {
        os << s * 1e6 << " us";
    }
    return os.str();
}

/**
 * \param s wall seconds
 * \return "12.3 s", "4m05s" or "2h03m"
 */
std::string
WallText(double s)
{
    std::ostringstream os;
    if (s < 60)
    {
        os << std::fixed << std::setprecision(1) << s << " s";
    }
    else if (s < 3600)
    {
        uint64_t t = static_cast<uint64_t>(s);
        os << t / 60 << "m" << std::setw(2) << std::setfill('0') << t % 60 << "s";
    }
    else
    {
        uint64_t t = static_cast<uint64_t>(s / 60);
        os << t / 60 << "h" << std::setw(2) << std::setfill('0') << t % 60 << "m";
    }
    return os.str();
}

} // namespace

RoceProgress::RoceProgress(Time stopTime, std::ostream* os, bool isTerminal, bool quiet)
    : m_stopTime(stopTime == Time::Max() ? Time(0) : stopTime),
      m_os(os),
      m_active(os != nullptr && isTerminal && !quiet),
      m_interval(FIRST_INTERVAL)
{
}

RoceProgress::~RoceProgress()
{
    // Safe after Simulator::Destroy(): Remove() then does nothing.
    Simulator::Remove(m_event);
}

bool
RoceProgress::IsActive() const
{
    return m_active;
}

uint64_t
RoceProgress::GetOwnEventCount() const
{
    return m_ownEvents;
}

void
RoceProgress::Start()
{
    if (!m_active || !m_event.IsExpired())
    {
        return;
    }
    m_start = Clock::now();
    m_lastCheck = m_start;
    m_lastDraw = m_start;
    m_lastEvents = Simulator::GetEventCount() - m_ownEvents;
    m_event = Simulator::Schedule(m_interval, &RoceProgress::Check, this);
}

void
RoceProgress::Finish()
{
    // Removed, not cancelled: a cancelled event still advances the clock to
    // its time, which would move the end of a run to completion.
    Simulator::Remove(m_event);
    if (!m_active || m_finished)
    {
        return;
    }
    m_finished = true;
    Draw(true);
}

void
RoceProgress::Check()
{
    ++m_ownEvents;
    Clock::time_point now = Clock::now();
    double sinceCheck = std::chrono::duration<double>(now - m_lastCheck).count();
    m_lastCheck = now;
    // Aim at one check per CHECK_TARGET_S of wall time.
    if (sinceCheck < CHECK_TARGET_S / 2)
    {
        m_interval = m_interval * 2;
    }
    else if (sinceCheck > CHECK_TARGET_S * 2 && m_interval > NanoSeconds(1))
    {
        m_interval = m_interval / 2;
    }
    if (std::chrono::duration<double>(now - m_lastDraw).count() >= DRAW_PERIOD_S)
    {
        Draw(false);
    }
    // With no other event pending the run is over: do not keep it alive.
    if (Simulator::IsFinished())
    {
        return;
    }
    Time next = Simulator::Now() + m_interval;
    if (m_stopTime.IsStrictlyPositive() && next > m_stopTime)
    {
        next = m_stopTime;
        if (next <= Simulator::Now())
        {
            return;
        }
    }
    m_event = Simulator::Schedule(next - Simulator::Now(), &RoceProgress::Check, this);
}

void
RoceProgress::Draw(bool final)
{
    Clock::time_point now = Clock::now();
    double wall = std::chrono::duration<double>(now - m_start).count();
    double sinceDraw = std::chrono::duration<double>(now - m_lastDraw).count();
    uint64_t events = Simulator::GetEventCount() - m_ownEvents;
    if (sinceDraw > 0 && !final)
    {
        m_eventRate = (events - m_lastEvents) / sinceDraw;
    }
    else if (final && wall > 0)
    {
        m_eventRate = events / wall;
    }
    m_lastDraw = now;
    m_lastEvents = events;

    Time sim = Simulator::Now();
    std::ostringstream line;
    line << "[rocev2] sim " << SimTimeText(sim);
    if (m_stopTime.IsStrictlyPositive())
    {
        line << " / " << SimTimeText(m_stopTime) << " (" << std::fixed << std::setprecision(1)
             << 100.0 * sim.GetSeconds() / m_stopTime.GetSeconds() << "%)";
    }
    line << "  " << std::fixed << std::setprecision(2) << m_eventRate / 1e6 << " M events/s"
         << "  wall " << WallText(wall);
    if (m_stopTime.IsStrictlyPositive() && !final && sim.IsStrictlyPositive())
    {
        double left = (m_stopTime - sim).GetSeconds() / sim.GetSeconds() * wall;
        line << "  ETA " << WallText(std::max(0.0, left));
    }
    std::string text = line.str();
    // Blank out what is left of a longer previous line.
    std::size_t width = text.size();
    if (width < m_lastWidth)
    {
        text.append(m_lastWidth - width, ' ');
    }
    m_lastWidth = width;
    *m_os << '\r' << text;
    if (final)
    {
        *m_os << '\n';
    }
    m_os->flush();
    m_drawn = true;
}

void
RoceProgress::Enable(Time stopTime, bool quiet)
{
    Disable();
    g_ownEvents = 0;
    g_progress = std::make_unique<RoceProgress>(stopTime, &std::cerr, isatty(2) != 0, quiet);
    g_progress->Start();
    if (g_progress->IsActive())
    {
        Simulator::ScheduleDestroy(&RoceProgress::Disable);
    }
}

void
RoceProgress::Disable()
{
    if (g_progress)
    {
        g_progress->Finish();
        g_ownEvents = g_progress->GetOwnEventCount();
        g_progress.reset();
    }
}

uint64_t
RoceProgress::GetOwnEvents()
{
    return g_progress ? g_progress->GetOwnEventCount() : g_ownEvents;
}

} // namespace ns3
