/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-flow-app.h"

#include "roce-fct-stats.h"

#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-rank-call.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFlowApp");
NS_OBJECT_ENSURE_REGISTERED(RoceFlowApp);

TypeId
RoceFlowApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceFlowApp")
            .SetParent<Application>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceFlowApp>()
            .AddAttribute("FirstSourcePort",
                          "UDP source port of this host's first flow; each further flow "
                          "takes the next port, wrapping from 65535 back to this value "
                          "(the HPCC simulators count from 10000 per host too).",
                          UintegerValue(10000),
                          MakeUintegerAccessor(&RoceFlowApp::m_firstSport),
                          MakeUintegerChecker<uint16_t>(1));
    return tid;
}

RoceFlowApp::RoceFlowApp()
{
    m_qpFactory.SetTypeId(RoceQueuePair::GetTypeId());
}

RoceFlowApp::~RoceFlowApp() = default;

void
RoceFlowApp::DoDispose()
{
    m_event.Cancel();
    m_nic = nullptr;
    m_stats = nullptr;
    m_flows.clear();
    Application::DoDispose();
}

void
RoceFlowApp::Setup(Ptr<NetDevice> nic, Ptr<RoceFctStats> stats)
{
    m_nic = nic;
    m_stats = stats;
}

void
RoceFlowApp::AddFlow(const RoceFlowSpec& flow, Ptr<NetDevice> dst)
{
    ROCE_ERROR_IF(!RoceNetDevice::IsNic(dst), "RoceFlowApp::AddFlow: no destination NIC");
    ROCE_ERROR_IF(flow.bytes == 0, "RoceFlowApp::AddFlow: a flow of 0 bytes");
    ROCE_ERROR_IF(flow.priority > 7,
                  "RoceFlowApp::AddFlow: priority " << unsigned(flow.priority) << " > 7");
    m_flows.push_back({flow, dst});
}

void
RoceFlowApp::SetQpFactory(const ObjectFactory& factory)
{
    m_qpFactory = factory;
}

uint32_t
RoceFlowApp::GetNPending() const
{
    return static_cast<uint32_t>(m_flows.size() - m_next);
}

uint32_t
RoceFlowApp::GetNStarted() const
{
    return m_started;
}

void
RoceFlowApp::StartApplication()
{
    ROCE_ERROR_IF(!m_nic || !m_stats, "RoceFlowApp: Setup() was not called");
    m_local = RoceRankCall::IsLocal(GetNode()->GetId());
    std::stable_sort(
        m_flows.begin() + m_next,
        m_flows.end(),
        [](const Pending& a, const Pending& b) { return a.spec.start < b.spec.start; });
    ScheduleNext();
}

void
RoceFlowApp::StopApplication()
{
    m_event.Cancel();
}

void
RoceFlowApp::ScheduleNext()
{
    if (m_next < m_flows.size())
    {
        Time at = std::max(m_flows[m_next].spec.start, RoceNow());
        m_event = Simulator::Schedule(at - RoceNow(), &RoceFlowApp::StartDue, this);
    }
    else
    {
        m_flows.clear();
        m_flows.shrink_to_fit();
        m_next = 0;
    }
}

void
RoceFlowApp::StartDue()
{
    const Time now = RoceNow();
    while (m_next < m_flows.size() && m_flows[m_next].spec.start <= now)
    {
        Pending& f = m_flows[m_next];
        uint32_t span = 65536u - m_firstSport;
        uint16_t sport = static_cast<uint16_t>(m_firstSport + m_started % span);
        Ptr<RoceQueuePair> qa = m_qpFactory.Create<RoceQueuePair>();
        Ptr<RoceQueuePair> qb = m_qpFactory.Create<RoceQueuePair>();
        qa->SetAttribute("SourcePort", UintegerValue(sport));
        qb->SetAttribute("SourcePort", UintegerValue(sport));
        qa->SetPriority(f.spec.priority);
        qb->SetPriority(f.spec.priority);
        // Every rank connects every flow (a NIC of another rank reserves
        // the number of its QP), so QP numbers are those of one process;
        // the sender's rank posts.
        RoceNetDevice::ConnectPair(m_nic, qa, f.dst, qb);
        if (m_local)
        {
            qa->PostWrite(
                f.spec.bytes,
                MakeCallback(&RoceFlowApp::Completed, this).Bind(f.dst, sport, f.spec.dport));
        }
        ++m_started;
        f.dst = nullptr;
        ++m_next;
    }
    ScheduleNext();
}

void
RoceFlowApp::Completed(Ptr<NetDevice> dst, uint16_t sport, uint16_t dport, const RoceCompletion& c)
{
    // Only the rank that runs the sender posts, so its NIC is built here.
    Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(m_nic);
    RoceFctRecord r;
    r.sip = nic->GetIpv4Address();
    r.dip = RoceNetDevice::AddressOf(dst);
    r.sport = sport;
    r.dport = dport;
    r.bytes = c.bytes;
    r.start = c.posted;
    r.fct = c.completed - c.posted;
    r.idealFct = m_stats->GetIdealFct(nic, dst, c.bytes);
    r.failed = !c.success;
    m_stats->Add(r);
}

} // namespace ns3
