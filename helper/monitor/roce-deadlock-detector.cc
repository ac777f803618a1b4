/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-deadlock-detector.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-error.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceDeadlockDetector");
NS_OBJECT_ENSURE_REGISTERED(RoceDeadlockDetector);

bool
RoceQueueId::operator<(const RoceQueueId& o) const
{
    if (node != o.node)
    {
        return node < o.node;
    }
    if (port != o.port)
    {
        return port < o.port;
    }
    return priority < o.priority;
}

bool
RoceQueueId::operator==(const RoceQueueId& o) const
{
    return node == o.node && port == o.port && priority == o.priority;
}

std::string
RoceQueueId::ToString() const
{
    std::ostringstream os;
    os << "sw" << node << "/p" << port << "/pri" << +priority;
    return os.str();
}

bool
RoceDeadlockReport::IsActive() const
{
    return ended.IsStrictlyNegative();
}

std::string
RoceDeadlockReport::ToString() const
{
    std::ostringstream os;
    os << "t=" << std::fixed << std::setprecision(3) << detected.GetNanoSeconds() / 1e6
       << "ms deadlock: ";
    for (const RoceQueueId& q : cycle)
    {
        os << q.ToString() << " -> ";
    }
    if (!cycle.empty())
    {
        os << cycle.front().ToString();
    }
    return os.str();
}

namespace
{

/**
 * Johnson's algorithm for the elementary cycles of a directed graph
 * (D. B. Johnson, "Finding all the elementary circuits of a directed graph",
 * SIAM J. Comput. 4(1), 1975).
 */
class RoceCycleFinder
{
  public:
    /**
     * \param adjacency successors of each vertex
     * \param maxCycles stop after this many cycles
     */
    RoceCycleFinder(const std::vector<std::vector<uint32_t>>& adjacency, uint32_t maxCycles)
        : m_adj(adjacency),
          m_max(maxCycles),
          m_n(static_cast<uint32_t>(adjacency.size()))
    {
    }

    /** \return the cycles, each from its smallest vertex */
    std::vector<std::vector<uint32_t>> Run()
    {
        m_blocked.assign(m_n, false);
        m_b.assign(m_n, {});
        m_comp.assign(m_n, -1);
        uint32_t s = 0;
        while (s < m_n && !m_done)
        {
            // The strongly connected components of the subgraph on s..n-1;
            // the cycles through the least vertex in a non-trivial one.
            Components(s);
            uint32_t least = m_n;
            for (uint32_t v = s; v < m_n && least == m_n; ++v)
            {
                if (m_compSize[m_comp[v]] > 1 ||
                    std::find(m_adj[v].begin(), m_adj[v].end(), v) != m_adj[v].end())
                {
                    least = v;
                }
            }
            if (least == m_n)
            {
                break;
            }
            m_s = least;
            for (uint32_t v = least; v < m_n; ++v)
            {
                if (m_comp[v] == m_comp[least])
                {
                    m_blocked[v] = false;
                    m_b[v].clear();
                }
            }
            Circuit(least);
            s = least + 1;
        }
        return std::move(m_cycles);
    }

  private:
    /** \param w a vertex \return true if it is in the component searched */
    bool InComponent(uint32_t w) const
    {
        return w >= m_s && m_comp[w] == m_comp[m_s];
    }

    /** \param u a vertex to unblock, with those waiting on it */
    void Unblock(uint32_t u)
    {
        m_blocked[u] = false;
        while (!m_b[u].empty())
        {
            uint32_t w = m_b[u].back();
            m_b[u].pop_back();
            if (m_blocked[w])
            {
                Unblock(w);
            }
        }
    }

    /** \param v the vertex on top of the path \return true if a cycle went through it */
    bool Circuit(uint32_t v)
    {
        bool found = false;
        m_stack.push_back(v);
        m_blocked[v] = true;
        for (uint32_t w : m_adj[v])
        {
            if (m_done)
            {
                break;
            }
            if (!InComponent(w))
            {
                continue;
            }
            if (w == m_s)
            {
                m_cycles.push_back(m_stack);
                found = true;
                m_done = m_cycles.size() >= m_max;
            }
            else if (!m_blocked[w] && Circuit(w))
            {
                found = true;
            }
        }
        if (found)
        {
            Unblock(v);
        }
        else
        {
            for (uint32_t w : m_adj[v])
            {
                if (InComponent(w) && std::find(m_b[w].begin(), m_b[w].end(), v) == m_b[w].end())
                {
                    m_b[w].push_back(v);
                }
            }
        }
        m_stack.pop_back();
        return found;
    }

    /**
     * \brief Tarjan's strongly connected components of the subgraph on
     * vertices s..n-1 (into m_comp and m_compSize).
     * \param s the least vertex
     */
    void Components(uint32_t s)
    {
        m_index.assign(m_n, -1);
        m_low.assign(m_n, 0);
        m_onStack.assign(m_n, false);
        m_tarjanStack.clear();
        m_compSize.clear();
        m_counter = 0;
        for (uint32_t v = s; v < m_n; ++v)
        {
            if (m_index[v] < 0)
            {
                Connect(v, s);
            }
        }
    }

    /** \param v a vertex \param s the least vertex of the subgraph */
    void Connect(uint32_t v, uint32_t s)
    {
        m_index[v] = m_low[v] = m_counter++;
        m_tarjanStack.push_back(v);
        m_onStack[v] = true;
        for (uint32_t w : m_adj[v])
        {
            if (w < s)
            {
                continue;
            }
            if (m_index[w] < 0)
            {
                Connect(w, s);
                m_low[v] = std::min(m_low[v], m_low[w]);
            }
            else if (m_onStack[w])
            {
                m_low[v] = std::min(m_low[v], m_index[w]);
            }
        }
        if (m_low[v] == m_index[v])
        {
            auto c = static_cast<int32_t>(m_compSize.size());
            uint32_t size = 0;
            uint32_t w = 0;
            do
            {
                w = m_tarjanStack.back();
                m_tarjanStack.pop_back();
                m_onStack[w] = false;
                m_comp[w] = c;
                ++size;
            } while (w != v);
            m_compSize.push_back(size);
        }
    }

    const std::vector<std::vector<uint32_t>>& m_adj;
    uint32_t m_max;
    uint32_t m_n;
    uint32_t m_s{0};
    bool m_done{false};
    std::vector<bool> m_blocked;
    std::vector<std::vector<uint32_t>> m_b;
    std::vector<uint32_t> m_stack;
    std::vector<std::vector<uint32_t>> m_cycles;
    std::vector<int32_t> m_comp;
    std::vector<uint32_t> m_compSize;
    std::vector<int32_t> m_index;
    std::vector<int32_t> m_low;
    std::vector<bool> m_onStack;
    std::vector<uint32_t> m_tarjanStack;
    int32_t m_counter{0};
};

} // namespace

TypeId
RoceDeadlockDetector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceDeadlockDetector")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceDeadlockDetector>()
            .AddAttribute("Interval",
                          "Time between two checks of the wait-for graph (> 0).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&RoceDeadlockDetector::SetInterval,
                                           &RoceDeadlockDetector::GetInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxCycles",
                          "Most cycles one check enumerates (a guard against graphs with "
                          "very many cycles).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RoceDeadlockDetector::m_maxCycles),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddTraceSource("Deadlock",
                            "A cycle of paused queues was found (reported once while it "
                            "persists).",
                            MakeTraceSourceAccessor(&RoceDeadlockDetector::m_deadlockTrace),
                            "ns3::RoceDeadlockDetector::DeadlockTracedCallback")
            .AddTraceSource("DeadlockEnd",
                            "A reported cycle was no longer found.",
                            MakeTraceSourceAccessor(&RoceDeadlockDetector::m_deadlockEndTrace),
                            "ns3::RoceDeadlockDetector::DeadlockTracedCallback");
    return tid;
}

RoceDeadlockDetector::RoceDeadlockDetector() = default;

RoceDeadlockDetector::~RoceDeadlockDetector() = default;

void
RoceDeadlockDetector::DoDispose()
{
    m_event.Cancel();
    Object::DoDispose();
}

void
RoceDeadlockDetector::SetInterval(Time interval)
{
    ROCE_ERROR_IF(!interval.IsStrictlyPositive(),
                  "RoceDeadlockDetector: Interval=" << interval << " must be positive");
    m_interval = interval;
}

Time
RoceDeadlockDetector::GetInterval() const
{
    return m_interval;
}

void
RoceDeadlockDetector::Start()
{
    m_event.Cancel();
    m_event = Simulator::Schedule(m_interval, &RoceDeadlockDetector::PeriodicCheck, this);
}

void
RoceDeadlockDetector::Stop()
{
    m_event.Cancel();
}

void
RoceDeadlockDetector::PeriodicCheck()
{
    Check();
    if (!Simulator::IsFinished())
    {
        m_event = Simulator::Schedule(m_interval, &RoceDeadlockDetector::PeriodicCheck, this);
    }
}

uint32_t
RoceDeadlockDetector::Check()
{
    ++m_checks;
    Time now = Simulator::Now();

    // Nodes: the paused queues that hold frames, in (node, port, priority) order.
    struct Vertex
    {
        RoceQueueId id;                //!< the queue
        Ptr<RoceSwitch> sw;            //!< its switch
        Ptr<RoceEgressQueueDisc> disc; //!< its queue disc
    };

    std::vector<Vertex> vertices;
    std::map<std::pair<const RocePfcNetDevice*, uint8_t>, uint32_t> index;
    RoceForEachNodeObject<RoceSwitch>([&](const Ptr<Node>& node, const Ptr<RoceSwitch>& sw) {
        for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
        {
            Ptr<RoceSwitchPort> port = sw->GetPort(i);
            Ptr<RoceEgressQueueDisc> disc = port->GetQueueDisc();
            if (!disc)
            {
                continue;
            }
            // A queue its PFC watchdog holds in recovery ignores the pause.
            uint8_t candidates = disc->GetBackloggedMask() &
                                 static_cast<uint8_t>(~port->GetPfcWatchdogRecoveryMask());
            for (uint8_t k = 0; k < ROCE_NUM_PRIORITIES; ++k)
            {
                if ((candidates & (1u << k)) && port->IsPaused(k))
                {
                    index[{PeekPointer(port), k}] = static_cast<uint32_t>(vertices.size());
                    vertices.push_back({{node->GetId(), i, k}, sw, disc});
                }
            }
        }
    });

    // Edges: Q -> R when R holds frames that entered its switch through the
    // port Q's peer pauses Q from.
    std::vector<std::vector<uint32_t>> adjacency(vertices.size());
    uint32_t nEdges = 0;
    std::vector<uint16_t> ingress;
    for (uint32_t r = 0; r < vertices.size(); ++r)
    {
        const Vertex& v = vertices[r];
        v.disc->CollectIngressPorts(v.id.priority, ingress);
        for (uint16_t q : ingress)
        {
            Ptr<RoceSwitchPort> in = v.sw->GetPort(q);
            Ptr<RoceChannel> channel = in ? DynamicCast<RoceChannel>(in->GetChannel()) : nullptr;
            Ptr<RocePfcNetDevice> peer = channel ? channel->GetPeer(PeekPointer(in)) : nullptr;
            if (!peer)
            {
                continue;
            }
            auto found = index.find({PeekPointer(peer), v.id.priority});
            if (found != index.end())
            {
                adjacency[found->second].push_back(r);
                ++nEdges;
            }
        }
    }
    for (auto& succ : adjacency)
    {
        std::sort(succ.begin(), succ.end());
    }
    m_maxNodes = std::max(m_maxNodes, static_cast<uint32_t>(vertices.size()));
    m_maxEdges = std::max(m_maxEdges, nEdges);

    std::vector<std::vector<RoceQueueId>> cycles;
    for (const auto& c : FindCycles(adjacency, m_maxCycles))
    {
        std::vector<RoceQueueId> ids;
        ids.reserve(c.size());
        for (uint32_t v : c)
        {
            ids.push_back(vertices[v].id);
        }
        cycles.push_back(std::move(ids));
    }

    // Cycles that ended, then cycles that are new.
    std::vector<uint32_t> stillActive;
    for (uint32_t a : m_active)
    {
        if (std::find(cycles.begin(), cycles.end(), m_reports[a].cycle) != cycles.end())
        {
            stillActive.push_back(a);
            continue;
        }
        m_reports[a].ended = now;
        NS_LOG_INFO("deadlock ended after " << (now - m_reports[a].detected).As(Time::MS) << ": "
                                            << m_reports[a].ToString());
        m_deadlockEndTrace(m_reports[a]);
    }
    m_active = std::move(stillActive);
    uint32_t added = 0;
    for (auto& c : cycles)
    {
        bool known = false;
        for (uint32_t a : m_active)
        {
            known = known || m_reports[a].cycle == c;
        }
        if (known)
        {
            continue;
        }
        RoceDeadlockReport report;
        report.detected = now;
        report.cycle = std::move(c);
        m_active.push_back(static_cast<uint32_t>(m_reports.size()));
        m_reports.push_back(std::move(report));
        ++added;
        NS_LOG_WARN(m_reports.back().ToString());
        m_deadlockTrace(m_reports.back());
    }
    return added;
}

const std::vector<RoceDeadlockReport>&
RoceDeadlockDetector::GetReports() const
{
    return m_reports;
}

std::vector<RoceDeadlockReport>
RoceDeadlockDetector::GetActiveReports() const
{
    std::vector<RoceDeadlockReport> active;
    for (uint32_t a : m_active)
    {
        active.push_back(m_reports[a]);
    }
    return active;
}

uint64_t
RoceDeadlockDetector::GetNChecks() const
{
    return m_checks;
}

uint32_t
RoceDeadlockDetector::GetMaxPausedQueues() const
{
    return m_maxNodes;
}

uint32_t
RoceDeadlockDetector::GetMaxEdges() const
{
    return m_maxEdges;
}

void
RoceDeadlockDetector::Print(std::ostream& os) const
{
    for (const RoceDeadlockReport& r : m_reports)
    {
        os << r.ToString();
        if (!r.IsActive())
        {
            os << " (ended t=" << std::fixed << std::setprecision(3)
               << r.ended.GetNanoSeconds() / 1e6 << "ms)";
        }
        os << "\n";
    }
}

std::vector<std::vector<uint32_t>>
RoceDeadlockDetector::FindCycles(const std::vector<std::vector<uint32_t>>& adjacency,
                                 uint32_t maxCycles)
{
    if (maxCycles == 0)
    {
        return {};
    }
    return RoceCycleFinder(adjacency, maxCycles).Run();
}

} // namespace ns3
