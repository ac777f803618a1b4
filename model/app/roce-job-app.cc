/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-job-app.h"

#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cstdio>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceJobApp");
NS_OBJECT_ENSURE_REGISTERED(RoceJobApp);

TypeId
RoceJobApp::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceJobApp")
                            .SetParent<Application>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceJobApp>()
                            .AddAttribute("JobName",
                                          "Name of the job in the output",
                                          StringValue("job"),
                                          MakeStringAccessor(&RoceJobApp::m_name),
                                          MakeStringChecker())
                            .AddAttribute("Iterations",
                                          "Iterations of the step list",
                                          UintegerValue(1),
                                          MakeUintegerAccessor(&RoceJobApp::m_iterations),
                                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

RoceJobApp::RoceJobApp()
    : m_iterations(1)
{
    m_collectiveFactory.SetTypeId(RoceCollective::GetTypeId());
}

RoceJobApp::~RoceJobApp() = default;

void
RoceJobApp::DoDispose()
{
    for (Step& s : m_steps)
    {
        s.comm = nullptr;
    }
    m_collectives.clear();
    Application::DoDispose();
}

void
RoceJobApp::AddStep(const Step& step)
{
    ROCE_ERROR_IF(!step.comm || step.comm->GetNRanks() == 0,
                  "RoceJobApp " << m_name << ": step " << m_steps.size() << " has no communicator");
    ROCE_ERROR_IF(step.gap.IsStrictlyNegative(),
                  "RoceJobApp " << m_name << ": step " << m_steps.size() << " has a negative gap");
    m_steps.push_back(step);
}

const std::vector<RoceJobApp::Step>&
RoceJobApp::GetSteps() const
{
    return m_steps;
}

void
RoceJobApp::SetCollectiveAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_collectiveFactory, name, value);
}

Ptr<RoceCollective>
RoceJobApp::GetCollective(uint32_t i) const
{
    ROCE_ERROR_IF(i >= m_collectives.size(),
                  "RoceJobApp::GetCollective: no collective " << i << " (made at the start)");
    return m_collectives[i];
}

std::string
RoceJobApp::GetJobName() const
{
    return m_name;
}

const std::vector<RoceJobApp::Iteration>&
RoceJobApp::GetIterations() const
{
    return m_done;
}

bool
RoceJobApp::IsFinished() const
{
    return m_done.size() == m_iterations;
}

double
RoceJobApp::GetNetworkWaitShare(uint32_t i) const
{
    ROCE_ERROR_IF(i >= m_done.size(), "RoceJobApp: iteration " << i << " has not finished");
    const Iteration& it = m_done[i];
    return it.time.IsStrictlyPositive() ? (it.time - it.compute).GetSeconds() / it.time.GetSeconds()
                                        : 0.0;
}

double
RoceJobApp::GetNetworkWaitShare() const
{
    double wait = 0;
    double total = 0;
    for (const Iteration& it : m_done)
    {
        wait += (it.time - it.compute).GetSeconds();
        total += it.time.GetSeconds();
    }
    return total > 0 ? wait / total : 0.0;
}

Time
RoceJobApp::GetMeanIterationTime() const
{
    if (m_done.empty())
    {
        return Time(0);
    }
    Time sum(0);
    for (const Iteration& it : m_done)
    {
        sum += it.time;
    }
    return sum / static_cast<int64_t>(m_done.size());
}

void
RoceJobApp::StartApplication()
{
    ROCE_ERROR_IF(m_steps.empty(), "RoceJobApp " << m_name << ": no steps");
    m_collectives.clear();
    m_pathCompute.clear();
    Time c(0);
    for (const Step& s : m_steps)
    {
        Ptr<RoceCollective> coll = m_collectiveFactory.Create<RoceCollective>();
        coll->SetCommunicator(s.comm);
        m_collectives.push_back(coll);
        c += s.gap;
        m_pathCompute.push_back(c);
    }
    m_done.clear();
    StartIteration();
}

void
RoceJobApp::StopApplication()
{
    m_stopped = true;
}

void
RoceJobApp::StartIteration()
{
    if (m_stopped || m_done.size() >= m_iterations)
    {
        return;
    }
    m_current = Iteration();
    m_current.start = RoceNow();
    m_current.stepTime.assign(m_steps.size(), Time(0));
    m_stepsLeft = m_steps.size();
    m_lastFinish = Time(-1);
    Simulator::Schedule(m_steps[0].gap, &RoceJobApp::StartStep, this, 0);
}

void
RoceJobApp::StartStep(uint32_t i)
{
    const Step& s = m_steps[i];
    m_collectives[i]->Start(s.op, s.algo, s.bytes, MakeCallback(&RoceJobApp::StepDone, this, i));
    if (i + 1 < m_steps.size() && m_steps[i + 1].overlap)
    {
        Simulator::Schedule(m_steps[i + 1].gap, &RoceJobApp::StartStep, this, i + 1);
    }
}

void
RoceJobApp::StepDone(uint32_t i)
{
    const Time now = RoceNow();
    m_current.stepTime[i] = m_collectives[i]->GetFinishTime() - m_collectives[i]->GetStartTime();
    // The last to finish; on a tie the later step, whose chain holds more compute.
    if (now > m_lastFinish || (now == m_lastFinish && i > m_current.lastStep))
    {
        m_lastFinish = now;
        m_current.lastStep = i;
    }
    if (i + 1 < m_steps.size() && !m_steps[i + 1].overlap)
    {
        Simulator::Schedule(m_steps[i + 1].gap, &RoceJobApp::StartStep, this, i + 1);
    }
    if (--m_stepsLeft > 0)
    {
        return;
    }
    m_current.time = now - m_current.start;
    m_current.compute = m_pathCompute[m_current.lastStep];
    m_done.push_back(m_current);
    StartIteration();
}

void
RoceJobApp::PrintTable(std::ostream& os) const
{
    char line[256];
    os << "# job " << m_name << ": " << m_steps.size() << " steps, " << m_done.size() << "/"
       << m_iterations << " iterations\n";
    std::snprintf(line,
                  sizeof(line),
                  "%5s %14s %12s %10s %8s %8s %12s\n",
                  "step",
                  "op",
                  "size(B)",
                  "comm",
                  "gap(us)",
                  "overlap",
                  "mean(us)");
    os << line;
    for (size_t i = 0; i < m_steps.size(); ++i)
    {
        const Step& s = m_steps[i];
        double mean = 0;
        for (const Iteration& it : m_done)
        {
            mean += it.stepTime[i].GetSeconds() * 1e6;
        }
        mean = m_done.empty() ? 0 : mean / m_done.size();
        std::snprintf(line,
                      sizeof(line),
                      "%5zu %14s %12llu %10s %8.2f %8s %12.2f\n",
                      i,
                      RoceCollective::GetOpName(s.op).c_str(),
                      static_cast<unsigned long long>(s.bytes),
                      s.commName.c_str(),
                      s.gap.GetSeconds() * 1e6,
                      s.overlap ? "yes" : "no",
                      mean);
        os << line;
    }
    std::snprintf(line,
                  sizeof(line),
                  "%5s %12s %12s %12s %12s %8s\n",
                  "iter",
                  "start(us)",
                  "time(us)",
                  "compute(us)",
                  "wait(us)",
                  "wait(%)");
    os << line;
    for (size_t i = 0; i < m_done.size(); ++i)
    {
        const Iteration& it = m_done[i];
        std::snprintf(line,
                      sizeof(line),
                      "%5zu %12.2f %12.2f %12.2f %12.2f %8.2f\n",
                      i,
                      it.start.GetSeconds() * 1e6,
                      it.time.GetSeconds() * 1e6,
                      it.compute.GetSeconds() * 1e6,
                      (it.time - it.compute).GetSeconds() * 1e6,
                      100 * GetNetworkWaitShare(i));
        os << line;
    }
    std::snprintf(line,
                  sizeof(line),
                  "# mean iteration %.2f us, network wait %.2f %%\n",
                  GetMeanIterationTime().GetSeconds() * 1e6,
                  100 * GetNetworkWaitShare());
    os << line;
}

void
RoceJobApp::WriteJson(std::ostream& os) const
{
    os << "{\"name\": \"" << m_name << "\", \"iterations\": [";
    for (size_t i = 0; i < m_done.size(); ++i)
    {
        const Iteration& it = m_done[i];
        os << (i ? ",\n      " : "\n      ") << "{\"iteration\": " << i
           << ", \"start_us\": " << it.start.GetSeconds() * 1e6
           << ", \"time_us\": " << it.time.GetSeconds() * 1e6
           << ", \"compute_us\": " << it.compute.GetSeconds() * 1e6
           << ", \"network_wait_share\": " << GetNetworkWaitShare(i)
           << ", \"last_step\": " << it.lastStep << ", \"steps_us\": [";
        for (size_t s = 0; s < it.stepTime.size(); ++s)
        {
            os << (s ? ", " : "") << it.stepTime[s].GetSeconds() * 1e6;
        }
        os << "]}";
    }
    os << (m_done.empty() ? "]" : "\n    ]")
       << ", \"mean_time_us\": " << GetMeanIterationTime().GetSeconds() * 1e6
       << ", \"network_wait_share\": " << GetNetworkWaitShare() << "}";
}

} // namespace ns3
