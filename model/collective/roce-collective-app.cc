/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-collective-app.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCollectiveApp");
NS_OBJECT_ENSURE_REGISTERED(RoceCollectiveApp);

TypeId
RoceCollectiveApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCollectiveApp")
            .SetParent<Application>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceCollectiveApp>()
            .AddAttribute("Operation",
                          "allreduce, allgather, reducescatter, alltoall, broadcast or sendrecv",
                          StringValue("allreduce"),
                          MakeStringAccessor(&RoceCollectiveApp::m_opName),
                          MakeStringChecker())
            .AddAttribute("Algorithm",
                          "ring (alltoall: direct; empty: the operation's default)",
                          StringValue(""),
                          MakeStringAccessor(&RoceCollectiveApp::m_algoName),
                          MakeStringChecker())
            .AddAttribute("Iterations",
                          "Counted iterations per size",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RoceCollectiveApp::m_iterations),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Warmup",
                          "Iterations per size before the counted ones",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceCollectiveApp::m_warmup),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AllToAllvSkew",
                          "alltoallv: a pair's size is S/p x (1 + skew x u), u uniform in [-1, 1)",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RoceCollectiveApp::m_skew),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("Gap",
                          "Time between the end of an iteration and the start of the next",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RoceCollectiveApp::m_gap),
                          MakeTimeChecker(Time(0)));
    return tid;
}

RoceCollectiveApp::RoceCollectiveApp()
    : m_collective(CreateObject<RoceCollective>()),
      m_skew(0.5),
      m_skewRng(CreateObject<UniformRandomVariable>()),
      m_iterations(1),
      m_warmup(0)
{
}

RoceCollectiveApp::~RoceCollectiveApp() = default;

void
RoceCollectiveApp::DoDispose()
{
    m_collective = nullptr;
    Application::DoDispose();
}

void
RoceCollectiveApp::SetCommunicator(Ptr<RoceCommunicator> comm)
{
    m_collective->SetCommunicator(comm);
}

Ptr<RoceCollective>
RoceCollectiveApp::GetCollective() const
{
    return m_collective;
}

void
RoceCollectiveApp::SetSizes(const std::vector<uint64_t>& sizes)
{
    m_sizes = sizes;
}

const std::vector<RoceCollectiveApp::Result>&
RoceCollectiveApp::GetResults() const
{
    return m_results;
}

bool
RoceCollectiveApp::IsFinished() const
{
    return m_results.size() == m_sizes.size();
}

void
RoceCollectiveApp::CheckConfiguration()
{
    // The known names are listed in the errors.
    const RoceCollective::Op op = RoceCollective::OpByName(m_opName);
    if (m_algoName.empty())
    {
        m_algoName = RoceCollective::GetAlgorithmName(RoceCollective::DefaultAlgorithm(op));
    }
    const RoceCollective::Algorithm algo = RoceCollective::AlgorithmByName(m_algoName);
    ROCE_ERROR_IF(!RoceCollective::HasAlgorithm(op, algo),
                  "RoceCollective: " << m_opName << " has no " << m_algoName << " algorithm ("
                                     << RoceCollective::GetAlgorithmTable() << ")");
    ROCE_ERROR_IF(m_sizes.empty(), "RoceCollectiveApp: no sizes to run (SetSizes got none)");
}

void
RoceCollectiveApp::StartApplication()
{
    // Attributes may have changed since Install: check again.
    CheckConfiguration();
    m_sizeIndex = 0;
    m_iteration = 0;
    m_counted = Time(0);
    Next();
}

void
RoceCollectiveApp::StopApplication()
{
    m_stopped = true;
}

void
RoceCollectiveApp::Next()
{
    if (m_stopped || m_sizeIndex >= m_sizes.size())
    {
        return;
    }
    const RoceCollective::Op op = RoceCollective::OpByName(m_opName);
    const uint64_t size = m_sizes[m_sizeIndex];
    if (op == RoceCollective::ALL_TO_ALLV)
    {
        const uint32_t p = m_collective->GetCommunicator()->GetNRanks();
        const double mean = double(size) / p;
        std::vector<std::vector<uint64_t>> pairs(p, std::vector<uint64_t>(p, 0));
        for (uint32_t r = 0; r < p; ++r)
        {
            for (uint32_t j = 0; j < p; ++j)
            {
                const double u = m_skewRng->GetValue(-1, 1);
                pairs[r][j] = j == r ? 0 : static_cast<uint64_t>(mean * (1 + m_skew * u) + 0.5);
            }
        }
        m_collective->StartAllToAllv(pairs, MakeCallback(&RoceCollectiveApp::IterationDone, this));
        return;
    }
    m_collective->Start(op,
                        RoceCollective::AlgorithmByName(m_algoName),
                        size,
                        MakeCallback(&RoceCollectiveApp::IterationDone, this));
}

void
RoceCollectiveApp::IterationDone()
{
    const uint64_t size = m_sizes[m_sizeIndex];
    if (m_iteration >= m_warmup)
    {
        m_counted += m_collective->GetFinishTime() - m_collective->GetStartTime();
    }
    if (++m_iteration == m_warmup + m_iterations)
    {
        Ptr<RoceCommunicator> comm = m_collective->GetCommunicator();
        Time first = Time::Max();
        Time last = Time(0);
        for (uint32_t r = 0; r < comm->GetNRanks(); ++r)
        {
            first = std::min(first, m_collective->GetRankFinishTime(r));
            last = std::max(last, m_collective->GetRankFinishTime(r));
        }
        Result res;
        res.op = m_opName;
        res.algo = m_algoName;
        res.size = size;
        res.iterations = m_iterations;
        res.timeUs = m_counted.GetSeconds() * 1e6 / m_iterations;
        res.algbwGbps = res.timeUs > 0 ? size * 8.0 / (res.timeUs * 1e3) : 0;
        res.busbwGbps =
            res.algbwGbps * RoceCollective::BusBandwidthFactor(RoceCollective::OpByName(m_opName),
                                                               comm->GetNRanks());
        res.spreadUs = (last - first).GetSeconds() * 1e6;
        for (uint32_t r = 0; r < comm->GetNRanks(); ++r)
        {
            res.rankFinishUs.push_back(
                (m_collective->GetRankFinishTime(r) - m_collective->GetStartTime()).GetSeconds() *
                1e6);
        }
        m_results.push_back(res);
        ++m_sizeIndex;
        m_iteration = 0;
        m_counted = Time(0);
    }
    Simulator::Schedule(m_gap, &RoceCollectiveApp::Next, this);
}

void
RoceCollectiveApp::PrintTable(std::ostream& os) const
{
    char line[256];
    std::snprintf(line,
                  sizeof(line),
                  "%14s %12s %6s %12s %10s %10s %11s\n",
                  "size(B)",
                  "count",
                  "type",
                  "time(us)",
                  "algbw(GB/s)",
                  "busbw(GB/s)",
                  "spread(us)");
    os << "# " << (m_results.empty() ? m_opName : m_results[0].op) << " "
       << (m_results.empty() ? m_algoName : m_results[0].algo) << "\n"
       << line;
    for (const Result& r : m_results)
    {
        std::snprintf(line,
                      sizeof(line),
                      "%14llu %12llu %6s %12.2f %10.2f %10.2f %11.2f\n",
                      static_cast<unsigned long long>(r.size),
                      static_cast<unsigned long long>(r.size / 4),
                      "float",
                      r.timeUs,
                      r.algbwGbps / 8,
                      r.busbwGbps / 8,
                      r.spreadUs);
        os << line;
    }
}

void
RoceCollectiveApp::WriteJsonResults(std::ostream& os) const
{
    os << "[";
    for (size_t i = 0; i < m_results.size(); ++i)
    {
        const Result& r = m_results[i];
        os << (i ? ",\n    " : "\n    ") << "{\"op\": \"" << r.op << "\", \"algo\": \"" << r.algo
           << "\", \"size\": " << r.size << ", \"time_us\": " << r.timeUs
           << ", \"algbw_gbps\": " << r.algbwGbps << ", \"busbw_gbps\": " << r.busbwGbps
           << ", \"spread_us\": " << r.spreadUs << ", \"iterations\": " << r.iterations
           << ", \"rank_finish_us\": [";
        for (size_t k = 0; k < r.rankFinishUs.size(); ++k)
        {
            os << (k ? ", " : "") << r.rankFinishUs[k];
        }
        os << "]}";
    }
    os << (m_results.empty() ? "]" : "\n  ]");
}

} // namespace ns3
