/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-chakra-replay-helper.h"

#include "../formats/roce-json-reader.h"

#include "ns3/node.h"
#include "ns3/roce-error.h"

#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{

namespace
{

/** \return whether path names an existing regular file */
bool
IsFile(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/** \return whether path names an existing folder */
bool
IsFolder(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/** \return "PATH: node id X 'name' (index i)" */
std::string
Where(const std::string& path, const RoceChakraNode& n, std::size_t i)
{
    std::ostringstream os;
    os << path << ": node " << i << " (id " << n.id << " '" << n.name << "')";
    return os.str();
}

/** Reads a process-group file: {"name": [rank, ...], ...}. */
class GroupsReader : public RoceJsonReader
{
  public:
    GroupsReader(const std::string& text, const std::string& file)
        : RoceJsonReader(text, file)
    {
    }

    std::map<std::string, std::vector<uint32_t>> Read(uint32_t ranks)
    {
        const Json root = Parse();
        if (!root.is_object() || root.empty())
        {
            Fail("",
                 "the file must map each process-group name to its ranks, as {\"dp\": [0, 1, 2, "
                 "3]}, not " +
                     Short(root));
        }
        std::map<std::string, std::vector<uint32_t>> groups;
        for (const auto& item : root.items())
        {
            const std::string pointer = "/" + item.key();
            const Json& list = item.value();
            if (!list.is_array() || list.empty())
            {
                Fail(pointer, Field(pointer) + " = " + Short(list) + ": must be a list of ranks");
            }
            std::set<uint32_t> seen;
            std::vector<uint32_t>& g = groups[item.key()];
            for (std::size_t k = 0; k < list.size(); ++k)
            {
                const std::string at = pointer + "/" + std::to_string(k);
                const uint32_t r = Uint(list[k], at, 0);
                if (r >= ranks)
                {
                    Fail(at,
                         Field(pointer) + ": rank " + std::to_string(r) + " is not a rank of the " +
                             std::to_string(ranks) + "-rank job (0 to " +
                             std::to_string(ranks - 1) + ")");
                }
                if (!seen.insert(r).second)
                {
                    Fail(at, Field(pointer) + ": rank " + std::to_string(r) + " is listed twice");
                }
                g.push_back(r);
            }
        }
        return groups;
    }
};

/** The module's operation for a comm_type (the mapping in the class comment). */
bool
OpOf(int64_t commType, RoceCollective::Op& op)
{
    switch (commType)
    {
    case RoceChakraNode::ALL_REDUCE:
    case RoceChakraNode::BARRIER:
        op = RoceCollective::ALL_REDUCE;
        return true;
    case RoceChakraNode::REDUCE:
    case RoceChakraNode::BROADCAST:
        op = RoceCollective::BROADCAST;
        return true;
    case RoceChakraNode::ALL_GATHER:
    case RoceChakraNode::GATHER:
        op = RoceCollective::ALL_GATHER;
        return true;
    case RoceChakraNode::SCATTER:
    case RoceChakraNode::REDUCE_SCATTER:
    case RoceChakraNode::REDUCE_SCATTER_BLOCK:
        op = RoceCollective::REDUCE_SCATTER;
        return true;
    case RoceChakraNode::ALL_TO_ALL:
        op = RoceCollective::ALL_TO_ALL;
        return true;
    default:
        return false;
    }
}

/** \return the graph of a trace, with or without control dependencies (nullptr and error on a
 * cycle) */
Ptr<RoceReplayGraph>
BuildGraph(const RoceChakraTrace& trace,
           const std::string& path,
           int32_t rank,
           bool ctrlDeps,
           bool streamOrder,
           std::string* cycle)
{
    std::vector<std::string> typeNames;
    for (int t = 0; t < RoceChakraNode::TYPE_COUNT; ++t)
    {
        typeNames.push_back(RoceChakraNode::TypeName(static_cast<RoceChakraNode::Type>(t)));
    }
    Ptr<RoceReplayGraph> graph = Create<RoceReplayGraph>(typeNames);
    // Stream order: each GPU-side communication node waits for the last GPU
    // kernel before it in the file (the launch order).
    std::vector<std::pair<uint32_t, uint32_t>> streamDeps;
    int64_t lastKernel = -1;
    // The durations add up within ns-3's time range: beyond it a duration
    // wraps around to a negative Time, and a path's sum overflows
    // (RoceReplayGraph::LongestPath). No path is longer than all of them.
    const auto maxMicros = static_cast<uint64_t>(Time::Max().GetMicroSeconds());
    uint64_t totalMicros = 0;
    for (std::size_t i = 0; i < trace.nodes.size(); ++i)
    {
        const RoceChakraNode& n = trace.nodes[i];
        RoceReplayGraph::Node g;
        g.type = n.type;
        g.id = n.id;
        ROCE_ERROR_IF(n.durationMicros > maxMicros - totalMicros,
                      Where(path, n, i) << ": duration_micros " << n.durationMicros
                                        << " takes the trace's durations beyond the simulator's "
                                        << maxMicros << " us");
        totalMicros += n.durationMicros;
        g.duration = MicroSeconds(static_cast<int64_t>(n.durationMicros));
        const bool comm = n.type == RoceChakraNode::COMM_COLL ||
                          n.type == RoceChakraNode::COMM_SEND ||
                          n.type == RoceChakraNode::COMM_RECV;
        if (n.type == RoceChakraNode::INVALID)
        {
            ROCE_ERROR(Where(path, n, i) << ": node type INVALID_NODE (0) cannot be replayed");
        }
        if (n.type == RoceChakraNode::COMP || (comm && n.isCpuOp))
        {
            g.kind = n.isCpuOp ? RoceReplayGraph::CPU : RoceReplayGraph::GPU_COMPUTE;
        }
        else if (comm)
        {
            g.group = graph->AddGroup(n.pgName);
            if (n.type != RoceChakraNode::COMM_COLL || n.commType != RoceChakraNode::BARRIER)
            {
                ROCE_ERROR_IF(n.commSize < 0,
                              Where(path, n, i) << ": " << RoceChakraNode::TypeName(n.type)
                                                << " without comm_size (bytes)");
                g.bytes = static_cast<uint64_t>(n.commSize);
            }
        }
        if (n.type == RoceChakraNode::COMM_COLL && !n.isCpuOp)
        {
            g.kind = RoceReplayGraph::COLLECTIVE;
            g.commType = n.commType;
            ROCE_ERROR_IF(!OpOf(n.commType, g.op),
                          Where(path, n, i)
                              << ": comm_type " << RoceChakraNode::CommTypeName(n.commType)
                              << (n.commType < 0 ? " (absent)" : "")
                              << " cannot be replayed (ALL_REDUCE 0 to BARRIER 9)");
        }
        else if ((n.type == RoceChakraNode::COMM_SEND || n.type == RoceChakraNode::COMM_RECV) &&
                 !n.isCpuOp)
        {
            const bool send = n.type == RoceChakraNode::COMM_SEND;
            ROCE_ERROR_IF(rank < 0,
                          Where(path, n, i)
                              << " is a " << RoceChakraNode::TypeName(n.type)
                              << ": point-to-point nodes name fixed ranks, so a trace with them "
                                 "cannot be replicated; give one trace per rank "
                                 "(chakra.<rank>.et)");
            const int32_t self = send ? n.commSrc : n.commDst;
            const int32_t peer = send ? n.commDst : n.commSrc;
            const char* selfName = send ? "comm_src" : "comm_dst";
            const char* peerName = send ? "comm_dst" : "comm_src";
            ROCE_ERROR_IF(self >= 0 && self != rank,
                          Where(path, n, i) << ": " << selfName << " " << self
                                            << " but this is the trace of rank " << rank);
            ROCE_ERROR_IF(peer < 0,
                          Where(path, n, i) << ": " << RoceChakraNode::TypeName(n.type)
                                            << " without " << peerName);
            g.kind = send ? RoceReplayGraph::SEND : RoceReplayGraph::RECV;
            g.peer = peer;
            g.tag = n.commTag < 0 ? 0 : n.commTag;
        }
        graph->AddNode(g, n.name);
        if (g.kind == RoceReplayGraph::GPU_COMPUTE)
        {
            lastKernel = static_cast<int64_t>(i);
        }
        else if (streamOrder && lastKernel >= 0 &&
                 (g.kind == RoceReplayGraph::COLLECTIVE || g.kind == RoceReplayGraph::SEND ||
                  g.kind == RoceReplayGraph::RECV))
        {
            streamDeps.emplace_back(static_cast<uint32_t>(lastKernel), static_cast<uint32_t>(i));
        }
    }
    for (const auto& [before, after] : streamDeps)
    {
        graph->AddDependency(before, after);
    }
    for (std::size_t i = 0; i < trace.nodes.size(); ++i)
    {
        const RoceChakraNode& n = trace.nodes[i];
        for (uint64_t d : n.dataDeps)
        {
            graph->AddDependency(static_cast<uint32_t>(trace.IndexOf(d)), static_cast<uint32_t>(i));
        }
        for (uint64_t d : ctrlDeps ? n.ctrlDeps : std::vector<uint64_t>())
        {
            graph->AddDependency(static_cast<uint32_t>(trace.IndexOf(d)), static_cast<uint32_t>(i));
        }
    }
    if (!graph->Finalize(cycle))
    {
        return nullptr;
    }
    return graph;
}

} // namespace

RoceChakraReplayHelper::RoceChakraReplayHelper()
{
    m_app.SetTypeId(RoceReplayApp::GetTypeId());
    m_job.SetTypeId(RoceReplayJob::GetTypeId());
}

void
RoceChakraReplayHelper::SetAppAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_app, name, value);
}

void
RoceChakraReplayHelper::SetJobAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_job, name, value);
}

void
RoceChakraReplayHelper::SetCollectiveAttribute(std::string name, const AttributeValue& value)
{
    m_collective.emplace_back(name, value.Copy());
}

RoceCollectiveHelper&
RoceChakraReplayHelper::GetCollectiveHelper()
{
    return m_coll;
}

void
RoceChakraReplayHelper::SetControlDependencies(const std::string& mode)
{
    if (mode == "auto")
    {
        m_ctrlDeps = CTRL_AUTO;
    }
    else if (mode == "use")
    {
        m_ctrlDeps = CTRL_USE;
    }
    else
    {
        ROCE_ERROR_IF(mode != "ignore",
                      "control dependencies '" << mode << "' is unknown (auto, use or ignore)");
        m_ctrlDeps = CTRL_IGNORE;
    }
}

void
RoceChakraReplayHelper::SetStreamOrder(bool streamOrder)
{
    m_streamOrder = streamOrder;
}

void
RoceChakraReplayHelper::SetGroupsFile(const std::string& path)
{
    m_groupsFile = path;
}

const std::vector<std::string>&
RoceChakraReplayHelper::GetNotes() const
{
    return m_notes;
}

namespace
{
/** \return the prefix of a trace set's files ("DIR/NAME."), or "" if et names none */
std::string
TracePrefix(const std::string& et)
{
    if (IsFolder(et))
    {
        return et + (et.back() == '/' ? "" : "/") + "chakra.";
    }
    const std::string suffix = ".0.et";
    if (et.size() < suffix.size() ||
        et.compare(et.size() - suffix.size(), suffix.size(), suffix) != 0)
    {
        return "";
    }
    return et.substr(0, et.size() - suffix.size() + 1);
}
} // namespace

uint32_t
RoceChakraReplayHelper::CountTraces(const std::string& et)
{
    const std::string prefix = TracePrefix(et);
    uint32_t n = 0;
    while (!prefix.empty() && IsFile(prefix + std::to_string(n) + ".et"))
    {
        ++n;
    }
    return n;
}

std::vector<std::string>
RoceChakraReplayHelper::TracePaths(const std::string& et, uint32_t ranks, bool replicate)
{
    ROCE_ERROR_IF(ranks == 0,
                  et << ": no trace of rank 0 (a trace set is NAME.0.et, NAME.1.et, ... or a "
                        "folder of chakra.<rank>.et; one trace runs on every rank when "
                        "replicated)");
    if (replicate)
    {
        ROCE_ERROR_IF(!IsFile(et), et << ": no such trace file");
        return {et};
    }
    // DIR/NAME.<r>.et from DIR/NAME.0.et, or DIR/chakra.<r>.et from DIR.
    const std::string prefix = TracePrefix(et);
    ROCE_ERROR_IF(prefix.empty(),
                  et << ": a per-rank trace set is named by its rank-0 file (NAME.0.et) or its "
                        "folder; to run one trace on every rank, replicate it");
    std::vector<std::string> paths;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        paths.push_back(prefix + std::to_string(r) + ".et");
        ROCE_ERROR_IF(!IsFile(paths.back()),
                      paths.back() << ": no trace for rank " << r << " of " << ranks
                                   << " (one file per rank; or replicate one trace)");
    }
    return paths;
}

Ptr<RoceReplayGraph>
RoceChakraReplayHelper::MakeGraph(const RoceChakraTrace& trace,
                                  const std::string& path,
                                  int32_t rank,
                                  CtrlDeps mode,
                                  bool streamOrder,
                                  std::string* note)
{
    std::string cycle;
    Ptr<RoceReplayGraph> graph =
        BuildGraph(trace, path, rank, mode != CTRL_IGNORE, streamOrder, &cycle);
    if (!graph && mode == CTRL_AUTO)
    {
        std::string dataCycle;
        graph = BuildGraph(trace, path, rank, false, streamOrder, &dataCycle);
        ROCE_ERROR_IF(!graph, path << ": the data dependencies alone make a cycle: " << dataCycle);
        if (note != nullptr)
        {
            *note = path + ": control dependencies left out, as " + cycle +
                    " (converted PyTorch traces name each operator's enclosing operator in them)";
        }
    }
    ROCE_ERROR_IF(!graph,
                  path << ": " << cycle
                       << (mode == CTRL_USE && trace.CountType(RoceChakraNode::INVALID) == 0
                               ? "; with control dependencies left out (ignore) the trace may "
                                 "still replay"
                               : ""));
    return graph;
}

std::map<std::string, std::vector<uint32_t>>
RoceChakraReplayHelper::ReadGroups(uint32_t ranks) const
{
    std::ifstream in(m_groupsFile);
    ROCE_ERROR_IF(!in, m_groupsFile << ": cannot be read (the process-group file)");
    std::ostringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    return GroupsReader(s, m_groupsFile).Read(ranks);
}

Ptr<RoceReplayJob>
RoceChakraReplayHelper::Install(const RoceAiZone& zone,
                                const std::vector<uint32_t>& gpus,
                                const std::vector<std::string>& paths)
{
    const uint32_t n = static_cast<uint32_t>(gpus.size());
    ROCE_ERROR_IF(n == 0, "a replay needs at least one rank");
    ROCE_ERROR_IF(paths.size() != 1 && paths.size() != n,
                  "a replay of " << n << " ranks takes one trace per rank or one for all, not "
                                 << paths.size());
    const bool replicated = paths.size() == 1 && n > 1;
    std::vector<Ptr<RoceReplayGraph>> graphs;
    for (uint32_t r = 0; r < paths.size(); ++r)
    {
        const RoceChakraTrace trace = RoceChakraTrace::Read(paths[r]);
        std::string note;
        graphs.push_back(MakeGraph(trace,
                                   paths[r],
                                   replicated ? -1 : static_cast<int32_t>(r),
                                   m_ctrlDeps,
                                   m_streamOrder,
                                   &note));
        if (!note.empty())
        {
            m_notes.push_back(note);
        }
    }

    // Every group a graph names, with its ranks.
    std::map<std::string, std::vector<uint32_t>> defined;
    if (!m_groupsFile.empty())
    {
        defined = ReadGroups(n);
    }
    std::vector<uint32_t> all(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        all[r] = r;
    }
    std::map<std::string, std::vector<uint32_t>> used;
    for (uint32_t k = 0; k < graphs.size(); ++k)
    {
        for (const std::string& name : graphs[k]->GetGroupNames())
        {
            if (name.empty() || m_groupsFile.empty())
            {
                used[name] = all;
                continue;
            }
            auto it = defined.find(name);
            if (it == defined.end())
            {
                std::string known;
                for (const auto& [d, ranks] : defined)
                {
                    known += (known.empty() ? "" : ", ") + d;
                }
                ROCE_ERROR(paths[k] << ": pg_name '" << name << "' is not a group of "
                                    << m_groupsFile << " (it defines: " << known << ")");
            }
            used[name] = it->second;
        }
    }

    Ptr<RoceReplayJob> job = m_job.Create<RoceReplayJob>();
    for (const auto& [name, value] : m_collective)
    {
        job->SetCollectiveAttribute(name, *value);
    }
    for (const auto& [name, ranks] : used)
    {
        std::vector<uint32_t> groupGpus;
        for (uint32_t r : ranks)
        {
            groupGpus.push_back(gpus[r]);
        }
        job->AddGroup(name, ranks, m_coll.CreateCommunicator(zone, groupGpus));
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<RoceReplayApp> app = m_app.Create<RoceReplayApp>();
        zone.GetServer(gpus[r])->AddApplication(app);
        job->AddRank(app, graphs[replicated ? 0 : r]);
    }
    std::string error;
    ROCE_ERROR_IF(!job->Check(&error), "chakra replay: " << error);
    return job;
}

} // namespace ns3
