/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-replay-app.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceReplayApp");
NS_OBJECT_ENSURE_REGISTERED(RoceReplayApp);

namespace
{
/** Node states. */
enum : uint8_t
{
    WAITING = 0,
    IN_FLIGHT = 1,
    DONE = 2,
};
} // namespace

TypeId
RoceReplayApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceReplayApp")
            .SetParent<Application>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceReplayApp>()
            .AddAttribute("ComputeScale",
                          "Factor on every GPU kernel's duration (0.5: a GPU twice as fast)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RoceReplayApp::m_computeScale),
                          MakeDoubleChecker<double>(0.0, 1e6))
            .AddAttribute("CpuOps",
                          "CPU-side nodes: zero (complete at once) or duration (take their "
                          "profiled duration)",
                          EnumValue(RoceReplayApp::CPU_ZERO),
                          RoceMakeEnumAccessor<RoceReplayApp::CpuOps>(&RoceReplayApp::m_cpuOps),
                          MakeEnumChecker(RoceReplayApp::CPU_ZERO,
                                          "zero",
                                          RoceReplayApp::CPU_DURATION,
                                          "duration"))
            .AddAttribute("GpuStreams",
                          "GPU kernels that may run at once (0: no limit)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RoceReplayApp::m_gpuStreams),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RoceReplayApp::RoceReplayApp()
    : m_computeScale(1.0),
      m_cpuOps(CPU_ZERO),
      m_gpuStreams(1)
{
}

RoceReplayApp::~RoceReplayApp() = default;

void
RoceReplayApp::DoDispose()
{
    m_post = nullptr;
    m_graph = nullptr;
    Application::DoDispose();
}

void
RoceReplayApp::Setup(CommPost post, uint32_t rank, Ptr<const RoceReplayGraph> graph)
{
    m_post = std::move(post);
    m_rank = rank;
    m_graph = graph;
}

Ptr<const RoceReplayGraph>
RoceReplayApp::GetGraph() const
{
    return m_graph;
}

uint32_t
RoceReplayApp::GetRank() const
{
    return m_rank;
}

void
RoceReplayApp::StartApplication()
{
    ROCE_ERROR_IF(!m_graph || !m_post, "RoceReplayApp: no graph (Setup, RoceReplayJob::AddRank)");
    ROCE_ERROR_IF(m_started, "RoceReplayApp: rank " << m_rank << " started twice");
    m_started = true;
    const uint32_t n = m_graph->GetNNodes();
    m_depsLeft.resize(n);
    m_state.assign(n, WAITING);
    m_executed.assign(m_graph->GetNTypes(), 0);
    m_left = n;
    m_start = m_finish = m_last = RoceNow();
    for (uint32_t i = 0; i < n; ++i)
    {
        m_depsLeft[i] = m_graph->GetNDeps(i);
        if (m_depsLeft[i] == 0)
        {
            m_released.push_back(i);
        }
    }
    Drain();
}

void
RoceReplayApp::StopApplication()
{
}

void
RoceReplayApp::Drain()
{
    if (m_draining)
    {
        return;
    }
    m_draining = true;
    // Nodes run in the order they were released; a node completing at once
    // appends its dependants here instead of recursing.
    for (std::size_t k = 0; k < m_released.size(); ++k)
    {
        Run(m_released[k]);
    }
    m_released.clear();
    m_draining = false;
    StartKernels();
}

void
RoceReplayApp::Run(uint32_t i)
{
    const RoceReplayGraph::Node& node = m_graph->GetNode(i);
    m_state[i] = IN_FLIGHT;
    switch (node.kind)
    {
    case RoceReplayGraph::GPU_COMPUTE:
        m_kernels.push(i);
        return;
    case RoceReplayGraph::CPU:
        if (m_cpuOps == CPU_DURATION && node.duration.IsStrictlyPositive())
        {
            Simulator::Schedule(node.duration, [this, i]() {
                Complete(i);
                Drain();
            });
            return;
        }
        Complete(i);
        return;
    case RoceReplayGraph::NOOP:
        Complete(i);
        return;
    case RoceReplayGraph::SEND:
    case RoceReplayGraph::RECV:
    case RoceReplayGraph::COLLECTIVE:
        Account();
        ++m_commInFlight;
        m_post(i);
        return;
    }
}

void
RoceReplayApp::StartKernels()
{
    while (!m_kernels.empty() && (m_gpuStreams == 0 || m_kernelsRunning < m_gpuStreams))
    {
        const uint32_t i = m_kernels.top();
        m_kernels.pop();
        Account();
        ++m_kernelsRunning;
        const int64_t ns = m_graph->GetNode(i).duration.GetNanoSeconds();
        const Time t = NanoSeconds(static_cast<int64_t>(std::llround(ns * m_computeScale)));
        Simulator::Schedule(t, &RoceReplayApp::KernelDone, this, i);
    }
}

void
RoceReplayApp::KernelDone(uint32_t i)
{
    Account();
    --m_kernelsRunning;
    Complete(i);
    Drain();
}

void
RoceReplayApp::CommDone(uint32_t i)
{
    ROCE_ERROR_IF(m_state.at(i) != IN_FLIGHT,
                  "RoceReplayApp: rank " << m_rank << " node " << i << " completed twice");
    Account();
    --m_commInFlight;
    Complete(i);
    Drain();
}

void
RoceReplayApp::Complete(uint32_t i)
{
    m_state[i] = DONE;
    ++m_executed[m_graph->GetNode(i).type];
    ++m_executedAll;
    m_finish = RoceNow();
    for (const uint32_t* d = m_graph->DependantsBegin(i); d != m_graph->DependantsEnd(i); ++d)
    {
        if (--m_depsLeft[*d] == 0)
        {
            m_released.push_back(*d);
        }
    }
    if (--m_left == 0)
    {
        NS_LOG_INFO("rank " << m_rank << " finished at " << m_finish.As(Time::US));
    }
    // Released nodes run when the caller drains (every caller does, or is Drain itself).
}

void
RoceReplayApp::Account()
{
    const Time now = RoceNow();
    const Time dt = now - m_last;
    if (dt.IsStrictlyPositive())
    {
        if (m_kernelsRunning > 0)
        {
            m_compute += dt;
        }
        if (m_commInFlight > 0)
        {
            m_comm += dt;
            if (m_kernelsRunning == 0)
            {
                m_exposed += dt;
            }
        }
    }
    m_last = now;
}

bool
RoceReplayApp::IsFinished() const
{
    return m_started && m_left == 0;
}

Time
RoceReplayApp::GetStartTime() const
{
    return m_start;
}

Time
RoceReplayApp::GetFinishTime() const
{
    return m_finish;
}

Time
RoceReplayApp::GetComputeTime() const
{
    return m_compute;
}

Time
RoceReplayApp::GetCommTime() const
{
    return m_comm;
}

Time
RoceReplayApp::GetExposedCommTime() const
{
    return m_exposed;
}

uint64_t
RoceReplayApp::GetNodesExecuted(uint32_t type) const
{
    return type < m_executed.size() ? m_executed[type] : 0;
}

uint64_t
RoceReplayApp::GetNodesExecuted() const
{
    return m_executedAll;
}

bool
RoceReplayApp::IsDone(uint32_t node) const
{
    return node < m_state.size() && m_state[node] == DONE;
}

bool
RoceReplayApp::IsStarted(uint32_t node) const
{
    return node < m_state.size() && m_state[node] == IN_FLIGHT;
}

} // namespace ns3
