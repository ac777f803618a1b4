/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceReplayJob's output: the table and the JSON document of a replay.
 */
#include "roce-replay-job.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace
{
/** \return t in microseconds */
double
Us(Time t)
{
    return t.GetNanoSeconds() / 1e3;
}

/** \return s as a JSON string, quoted */
std::string
JsonString(const std::string& s)
{
    std::ostringstream os;
    os << '"';
    for (unsigned char c : s)
    {
        if (c == '"' || c == '\\')
        {
            os << '\\' << c;
        }
        else if (c < 0x20)
        {
            os << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec
               << std::setfill(' ');
        }
        else
        {
            os << c;
        }
    }
    os << '"';
    return os.str();
}

} // namespace

namespace
{
/** The means over the ranks of a job. */
struct RankMeans
{
    double makespan{0}; //!< µs
    double compute{0};  //!< µs
    double comm{0};     //!< µs
    double exposed{0};  //!< µs
};
} // namespace

void
RoceReplayJob::PrintTable(std::ostream& os) const
{
    const uint32_t n = GetNRanks();
    RankMeans m;
    for (const Ptr<RoceReplayApp>& a : m_apps)
    {
        m.compute += Us(a->GetComputeTime()) / n;
        m.comm += Us(a->GetCommTime()) / n;
        m.exposed += Us(a->GetExposedCommTime()) / n;
    }
    const double makespan = Us(GetMakespan());
    os << std::fixed << std::setprecision(1);
    os << "# replay: " << n << " ranks, makespan " << makespan << " us; mean per rank: compute "
       << m.compute << " us, communication " << m.comm << " us, exposed communication " << m.exposed
       << " us (" << std::setprecision(1) << (makespan > 0 ? 100 * m.exposed / makespan : 0.0)
       << " % of the makespan)\n";
    os << "#  rank  makespan_us  compute_us   comm_us  exposed_us     nodes\n";
    std::vector<uint32_t> shown(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        shown[r] = r;
    }
    if (n > 16)
    {
        // The slowest and the fastest rank.
        auto byFinish = [this](uint32_t a, uint32_t b) {
            return m_apps[a]->GetFinishTime() < m_apps[b]->GetFinishTime();
        };
        shown = {*std::min_element(shown.begin(), shown.end(), byFinish),
                 *std::max_element(shown.begin(), shown.end(), byFinish)};
    }
    for (uint32_t r : shown)
    {
        const Ptr<RoceReplayApp>& a = m_apps[r];
        os << std::setw(8) << r << std::setw(13) << Us(a->GetFinishTime() - a->GetStartTime())
           << std::setw(12) << Us(a->GetComputeTime()) << std::setw(10) << Us(a->GetCommTime())
           << std::setw(12) << Us(a->GetExposedCommTime()) << std::setw(10) << a->GetNodesExecuted()
           << "\n";
    }
    os << "#  group        n  op               bytes     ranks   start_us    time_us  "
          "busbw_Gbps  node\n";
    for (const CollectiveResult& c : GetCollectives())
    {
        const bool done = c.finish >= Time(0);
        const double t = done ? Us(c.finish - c.start) : -1;
        const double busbw =
            t > 0 ? c.runBytes * 8 / (t * 1e3) * RoceCollective::BusBandwidthFactor(c.op, c.ranks)
                  : 0;
        os << "  " << std::left << std::setw(10) << (c.group.empty() ? "(all)" : c.group)
           << std::right << std::setw(4) << c.seq << "  " << std::left << std::setw(14)
           << RoceCollective::GetOpName(c.op) << std::right << std::setw(12) << c.bytes
           << std::setw(7) << c.ranks << std::setw(11) << Us(c.start) << std::setw(11) << t
           << std::setprecision(2) << std::setw(12) << busbw << std::setprecision(1) << "  id "
           << c.id << "\n";
    }
    if (m_transfersDone > 0)
    {
        os << "# point-to-point: " << m_transfersDone << " transfers, " << m_transferBytes
           << " B\n";
    }
    for (const std::string& p : GetProblems())
    {
        os << "# " << p << "\n";
    }
    os.unsetf(std::ios::floatfield);
    os << std::setprecision(6);
}

void
RoceReplayJob::WriteJson(std::ostream& os) const
{
    const uint32_t n = GetNRanks();
    RankMeans m;
    uint32_t types = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        m.compute += Us(m_apps[r]->GetComputeTime()) / n;
        m.comm += Us(m_apps[r]->GetCommTime()) / n;
        m.exposed += Us(m_apps[r]->GetExposedCommTime()) / n;
        types = std::max(types, m_graphs[r]->GetNTypes());
    }
    const Ptr<const RoceReplayGraph> names = n > 0 ? m_graphs[0] : nullptr;
    auto typeName = [&](uint32_t t) { return names ? names->GetTypeName(t) : std::string(); };
    auto executed = [&](uint32_t first, uint32_t last) {
        std::ostringstream e;
        e << "{";
        bool any = false;
        for (uint32_t t = 0; t < types; ++t)
        {
            uint64_t c = 0;
            for (uint32_t r = first; r < last; ++r)
            {
                c += m_apps[r]->GetNodesExecuted(t);
            }
            if (c > 0)
            {
                e << (any ? ", " : "") << JsonString(typeName(t)) << ": " << c;
                any = true;
            }
        }
        e << "}";
        return e.str();
    };
    uint64_t total = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        total += m_graphs[r]->GetNNodes();
    }
    const double makespan = Us(GetMakespan());
    os << std::fixed << std::setprecision(3);
    os << "{\n  \"ranks\": " << n << ",\n  \"makespan_us\": " << makespan
       << ",\n  \"compute_us\": " << m.compute << ",\n  \"comm_us\": " << m.comm
       << ",\n  \"exposed_comm_us\": " << m.exposed
       << ",\n  \"exposed_comm_share\": " << std::setprecision(6)
       << (makespan > 0 ? m.exposed / makespan : 0.0) << std::setprecision(3)
       << ",\n  \"nodes_executed\": " << executed(0, n) << ",\n  \"nodes_total\": " << total
       << ",\n  \"finished\": " << (IsFinished() ? "true" : "false") << ",\n  \"collectives\": [";
    const std::vector<CollectiveResult> colls = GetCollectives();
    for (std::size_t k = 0; k < colls.size(); ++k)
    {
        const CollectiveResult& c = colls[k];
        const bool done = c.finish >= Time(0);
        const double t = done ? Us(c.finish - c.start) : -1;
        const double algbw = t > 0 ? c.runBytes * 8 / (t * 1e3) : 0;
        os << (k ? ",\n    " : "\n    ") << "{\"group\": " << JsonString(c.group)
           << ", \"seq\": " << c.seq << ", \"name\": " << JsonString(c.name) << ", \"id\": " << c.id
           << ", \"comm_type\": " << c.commType << ", \"op\": \"" << RoceCollective::GetOpName(c.op)
           << "\", \"bytes\": " << c.bytes << ", \"run_bytes\": " << c.runBytes
           << ", \"ranks\": " << c.ranks << ", \"start_us\": " << Us(c.start)
           << ", \"time_us\": " << t << ", \"algbw_gbps\": " << algbw
           << ", \"busbw_gbps\": " << algbw * RoceCollective::BusBandwidthFactor(c.op, c.ranks)
           << "}";
    }
    os << (colls.empty() ? "]" : "\n  ]") << ",\n  \"transfers\": {\"count\": " << m_transfersDone
       << ", \"bytes\": " << m_transferBytes << "},\n  \"per_rank\": [";
    for (uint32_t r = 0; r < n; ++r)
    {
        const Ptr<RoceReplayApp>& a = m_apps[r];
        os << (r ? ",\n    " : "\n    ") << "{\"rank\": " << r
           << ", \"makespan_us\": " << Us(a->GetFinishTime() - a->GetStartTime())
           << ", \"compute_us\": " << Us(a->GetComputeTime())
           << ", \"comm_us\": " << Us(a->GetCommTime())
           << ", \"exposed_comm_us\": " << Us(a->GetExposedCommTime())
           << ", \"nodes_executed\": " << executed(r, r + 1) << "}";
    }
    os << (n ? "\n  ]" : "]") << ",\n  \"problems\": [";
    const std::vector<std::string> problems = GetProblems();
    for (std::size_t k = 0; k < problems.size(); ++k)
    {
        os << (k ? ",\n    " : "\n    ") << JsonString(problems[k]);
    }
    os << (problems.empty() ? "]" : "\n  ]") << "\n}\n";
    os.unsetf(std::ios::floatfield);
    os << std::setprecision(6);
}

} // namespace ns3
