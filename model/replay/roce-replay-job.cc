/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-replay-job.h"

#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceReplayJob");
NS_OBJECT_ENSURE_REGISTERED(RoceReplayJob);

namespace
{
constexpr uint32_t NONE = std::numeric_limits<uint32_t>::max();

/** \return the size an operation on p ranks runs for a trace size (the rounding documented in
 * RoceReplayJob) */
uint64_t
RunBytes(RoceCollective::Op op, uint64_t bytes, uint32_t p)
{
    switch (op)
    {
    case RoceCollective::ALL_REDUCE:
        return std::max<uint64_t>(bytes, p);
    case RoceCollective::ALL_GATHER:
    case RoceCollective::REDUCE_SCATTER:
    case RoceCollective::ALL_TO_ALL:
        return std::max<uint64_t>(1, (bytes + p - 1) / p) * p;
    default:
        return std::max<uint64_t>(bytes, 1);
    }
}
} // namespace

TypeId
RoceReplayJob::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceReplayJob")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceReplayJob>()
            .AddAttribute("Algorithm",
                          "Algorithm of AllReduce collectives: ring, tree, hd or hier (empty: "
                          "ring); Broadcasts take it if they have it (ring, tree), else ring. "
                          "AllToAll runs direct, AllGather and ReduceScatter ring.",
                          StringValue(""),
                          MakeStringAccessor(&RoceReplayJob::m_algorithm),
                          MakeStringChecker());
    return tid;
}

RoceReplayJob::RoceReplayJob()
{
    m_collectiveFactory.SetTypeId(RoceCollective::GetTypeId());
}

RoceReplayJob::~RoceReplayJob() = default;

void
RoceReplayJob::DoDispose()
{
    m_apps.clear();
    m_graphs.clear();
    m_groups.clear();
    m_instances.clear();
    Object::DoDispose();
}

void
RoceReplayJob::AddGroup(const std::string& name,
                        const std::vector<uint32_t>& ranks,
                        Ptr<RoceCommunicator> comm)
{
    ROCE_ERROR_IF(m_groupByName.count(name) > 0,
                  "RoceReplayJob::AddGroup: group '" << name << "' twice");
    ROCE_ERROR_IF(!comm || comm->GetNRanks() != ranks.size(),
                  "RoceReplayJob::AddGroup: group '" << name << "' has " << ranks.size()
                                                     << " ranks but its communicator "
                                                     << (comm ? comm->GetNRanks() : 0));
    m_groupByName[name] = static_cast<uint32_t>(m_groups.size());
    m_groups.push_back(Group{name, ranks, {}, comm});
}

uint32_t
RoceReplayJob::AddRank(Ptr<RoceReplayApp> app, Ptr<const RoceReplayGraph> graph)
{
    const uint32_t r = static_cast<uint32_t>(m_apps.size());
    // The application hands its rank's communication nodes back here.
    Ptr<RoceReplayJob> job = this;
    app->Setup(
        [job, r, graph](uint32_t i) {
            const RoceReplayGraph::Kind kind = graph->GetNode(i).kind;
            if (kind == RoceReplayGraph::SEND)
            {
                job->PostSend(r, i);
            }
            else if (kind == RoceReplayGraph::RECV)
            {
                job->PostRecv(r, i);
            }
            else
            {
                job->PostCollective(r, i);
            }
        },
        r,
        graph);
    m_apps.push_back(app);
    m_graphs.push_back(graph);
    return r;
}

uint32_t
RoceReplayJob::GetNRanks() const
{
    return static_cast<uint32_t>(m_apps.size());
}

Ptr<RoceCommunicator>
RoceReplayJob::GetGroupCommunicator(const std::string& name) const
{
    auto it = m_groupByName.find(name);
    return it == m_groupByName.end() ? nullptr : m_groups[it->second].comm;
}

Ptr<RoceReplayApp>
RoceReplayJob::GetApp(uint32_t r) const
{
    return m_apps.at(r);
}

void
RoceReplayJob::SetCollectiveAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_collectiveFactory, name, value);
}

std::string
RoceReplayJob::Describe(uint32_t r, uint32_t i) const
{
    const RoceReplayGraph::Node& n = m_graphs[r]->GetNode(i);
    std::ostringstream os;
    os << "rank " << r << " node id " << n.id << " '" << m_graphs[r]->GetName(i) << "'";
    return os.str();
}

uint32_t
RoceReplayJob::GroupOf(uint32_t r, uint32_t g) const
{
    return m_groupMap[r][g];
}

bool
RoceReplayJob::Check(std::string* error)
{
    const uint32_t n = GetNRanks();
    std::ostringstream err;
    auto fail = [&]() {
        if (error != nullptr)
        {
            *error = err.str();
        }
        return false;
    };
    for (Group& grp : m_groups)
    {
        grp.index.assign(n, -1);
        for (uint32_t k = 0; k < grp.ranks.size(); ++k)
        {
            if (grp.ranks[k] >= n || grp.index[grp.ranks[k]] >= 0)
            {
                err << "group '" << grp.name << "' lists rank " << grp.ranks[k]
                    << (grp.ranks[k] >= n ? " of a job of " + std::to_string(n) + " ranks"
                                          : " twice");
                return fail();
            }
            grp.index[grp.ranks[k]] = static_cast<int32_t>(k);
        }
    }
    // Per graph (shared by replicated ranks): its collectives by group and seq.
    std::map<const RoceReplayGraph*, std::vector<std::vector<uint32_t>>> collectives;
    m_groupMap.assign(n, {});
    for (uint32_t r = 0; r < n; ++r)
    {
        const RoceReplayGraph& graph = *m_graphs[r];
        for (const std::string& name : graph.GetGroupNames())
        {
            auto it = m_groupByName.find(name);
            if (it == m_groupByName.end())
            {
                err << "rank " << r << " names process group '" << name
                    << "', which the job does not have";
                return fail();
            }
            m_groupMap[r].push_back(it->second);
        }
        auto& lists = collectives[&graph];
        const bool scan = lists.empty();
        lists.resize(graph.GetGroupNames().size());
        for (uint32_t i = 0; i < graph.GetNNodes(); ++i)
        {
            const RoceReplayGraph::Node& node = graph.GetNode(i);
            if (node.kind != RoceReplayGraph::SEND && node.kind != RoceReplayGraph::RECV &&
                node.kind != RoceReplayGraph::COLLECTIVE)
            {
                continue;
            }
            const Group& grp = m_groups[GroupOf(r, node.group)];
            if (grp.index[r] < 0)
            {
                err << Describe(r, i) << " communicates in process group '" << grp.name
                    << "', which does not hold rank " << r;
                return fail();
            }
            if (node.kind == RoceReplayGraph::COLLECTIVE)
            {
                if (scan)
                {
                    lists[node.group].push_back(i);
                }
                continue;
            }
            const char* role = node.kind == RoceReplayGraph::SEND ? "destination" : "source";
            if (node.peer < 0 || uint32_t(node.peer) >= n || grp.index[node.peer] < 0 ||
                uint32_t(node.peer) == r)
            {
                err << Describe(r, i) << ": its " << role << " rank " << node.peer
                    << (node.peer < 0 || uint32_t(node.peer) >= n
                            ? " is not a rank of the job (" + std::to_string(n) + " ranks)"
                        : uint32_t(node.peer) == r ? " is the rank itself"
                                                   : " is not in process group '" + grp.name + "'");
                return fail();
            }
        }
    }
    // The ranks of a group agree on its collectives.
    m_instances.assign(m_groups.size(), {});
    for (uint32_t g = 0; g < m_groups.size(); ++g)
    {
        const Group& grp = m_groups[g];
        const std::vector<uint32_t>* first = nullptr;
        uint32_t firstRank = 0;
        static const std::vector<uint32_t> none;
        for (uint32_t r : grp.ranks)
        {
            const std::vector<std::string>& names = m_graphs[r]->GetGroupNames();
            auto at = std::find(names.begin(), names.end(), grp.name);
            const std::vector<uint32_t>& list =
                at == names.end() ? none
                                  : collectives[m_graphs[r].operator->()][at - names.begin()];
            if (first == nullptr)
            {
                first = &list;
                firstRank = r;
                continue;
            }
            if (list.size() != first->size())
            {
                err << "process group '" << grp.name << "': rank " << r << " has " << list.size()
                    << " collectives on it but rank " << firstRank << " has " << first->size();
                return fail();
            }
            for (std::size_t k = 0; k < list.size(); ++k)
            {
                const RoceReplayGraph::Node& a = m_graphs[firstRank]->GetNode((*first)[k]);
                const RoceReplayGraph::Node& b = m_graphs[r]->GetNode(list[k]);
                if (a.op != b.op || a.bytes != b.bytes)
                {
                    err << "process group '" << grp.name << "', collective " << k << ": "
                        << Describe(firstRank, (*first)[k]) << " is "
                        << RoceCollective::GetOpName(a.op) << " of " << a.bytes << " B but "
                        << Describe(r, list[k]) << " is " << RoceCollective::GetOpName(b.op)
                        << " of " << b.bytes << " B";
                    return fail();
                }
            }
        }
        const uint32_t p = static_cast<uint32_t>(grp.ranks.size());
        for (std::size_t k = 0; first != nullptr && k < first->size(); ++k)
        {
            const uint32_t i = (*first)[k];
            const RoceReplayGraph::Node& node = m_graphs[firstRank]->GetNode(i);
            Instance inst;
            inst.node.assign(p, NONE);
            CollectiveResult& res = inst.result;
            res.group = grp.name;
            res.seq = static_cast<uint32_t>(k);
            res.name = m_graphs[firstRank]->GetName(i);
            res.id = node.id;
            res.commType = node.commType;
            res.op = node.op;
            res.bytes = node.bytes;
            res.runBytes = RunBytes(node.op, node.bytes, p);
            res.ranks = p;
            res.finish = Time(-1);
            m_instances[g].push_back(std::move(inst));
        }
    }
    // The algorithm fits every collective it applies to (refused now, not mid-run).
    if (!m_algorithm.empty())
    {
        const RoceCollective::Algorithm algo = RoceCollective::AlgorithmByName(m_algorithm);
        for (uint32_t g = 0; g < m_instances.size(); ++g)
        {
            for (const Instance& inst : m_instances[g])
            {
                const RoceCollective::Op op = inst.result.op;
                const uint32_t p = inst.result.ranks;
                const Ptr<RoceCommunicator> comm = m_groups[g].comm;
                bool unevenServers = false;
                for (uint32_t sv = 1; sv < comm->GetNServers(); ++sv)
                {
                    unevenServers = unevenServers || comm->GetServerRanks(sv).size() !=
                                                         comm->GetServerRanks(0).size();
                }
                if (op == RoceCollective::ALL_REDUCE &&
                    (!RoceCollective::HasAlgorithm(op, algo) ||
                     (algo == RoceCollective::HALVING_DOUBLING && (p & (p - 1)) != 0) ||
                     (algo == RoceCollective::HIERARCHICAL && unevenServers)))
                {
                    err << "Algorithm=" << m_algorithm << " cannot run process group '"
                        << m_groups[g].name << "' collective " << inst.result.seq << " ("
                        << RoceCollective::GetOpName(op) << " on " << p << " ranks; "
                        << RoceCollective::GetAlgorithmTable()
                        << (algo == RoceCollective::HALVING_DOUBLING
                                ? "; hd needs a power-of-two number of ranks"
                            : algo == RoceCollective::HIERARCHICAL
                                ? "; hier needs the same number of ranks on every server"
                                : "")
                        << ")";
                    return fail();
                }
            }
        }
    }
    m_checked = true;
    return true;
}

void
RoceReplayJob::PostCollective(uint32_t r, uint32_t i)
{
    ROCE_ERROR_IF(!m_checked, "RoceReplayJob: Check() was not called before the run");
    const RoceReplayGraph::Node& node = m_graphs[r]->GetNode(i);
    const uint32_t g = GroupOf(r, node.group);
    Instance& inst = m_instances[g][node.seq];
    inst.node[m_groups[g].index[r]] = i;
    if (inst.ready++ == 0)
    {
        inst.result.ready = RoceNow();
    }
    if (inst.ready == m_groups[g].ranks.size())
    {
        StartInstance(g, node.seq);
    }
}

void
RoceReplayJob::StartInstance(uint32_t g, uint32_t seq)
{
    Instance& inst = m_instances[g][seq];
    CollectiveResult& res = inst.result;
    res.start = RoceNow();
    inst.started = true;
    m_startOrder.emplace_back(g, seq);
    inst.coll = m_collectiveFactory.Create<RoceCollective>();
    inst.coll->SetCommunicator(m_groups[g].comm);
    inst.coll->SetRankDoneCallback(MakeCallback(&RoceReplayJob::CollectiveRankDone, this, g, seq));
    RoceCollective::Algorithm algo = RoceCollective::DefaultAlgorithm(res.op);
    if (!m_algorithm.empty() &&
        (res.op == RoceCollective::ALL_REDUCE ||
         (res.op == RoceCollective::BROADCAST &&
          RoceCollective::HasAlgorithm(res.op, RoceCollective::AlgorithmByName(m_algorithm)))))
    {
        algo = RoceCollective::AlgorithmByName(m_algorithm);
    }
    NS_LOG_INFO("collective " << seq << " of group '" << m_groups[g].name
                              << "': " << RoceCollective::GetOpName(res.op) << " " << res.runBytes
                              << " B on " << res.ranks << " ranks");
    inst.coll->Start(res.op,
                     algo,
                     res.runBytes,
                     MakeCallback(&RoceReplayJob::CollectiveDone, this, g, seq));
}

void
RoceReplayJob::CollectiveRankDone(uint32_t g, uint32_t seq, uint32_t member)
{
    const Instance& inst = m_instances[g][seq];
    const uint32_t r = m_groups[g].ranks[member];
    m_apps[r]->CommDone(inst.node[member]);
}

void
RoceReplayJob::CollectiveDone(uint32_t g, uint32_t seq)
{
    m_instances[g][seq].result.finish = RoceNow();
    // The collective is still on the stack: release it once this event is over.
    Simulator::ScheduleNow([this, g, seq]() {
        if (g < m_instances.size())
        {
            m_instances[g][seq].coll = nullptr;
        }
    });
}

void
RoceReplayJob::PostSend(uint32_t r, uint32_t i)
{
    const RoceReplayGraph::Node& node = m_graphs[r]->GetNode(i);
    const P2pKey key(r, uint32_t(node.peer), node.tag);
    auto it = m_recvs.find(key);
    if (it != m_recvs.end() && !it->second.empty())
    {
        const uint32_t recv = it->second.front();
        it->second.pop_front();
        StartTransfer(r, i, uint32_t(node.peer), recv);
        return;
    }
    m_sends[key].push_back(i);
}

void
RoceReplayJob::PostRecv(uint32_t r, uint32_t i)
{
    const RoceReplayGraph::Node& node = m_graphs[r]->GetNode(i);
    const P2pKey key(uint32_t(node.peer), r, node.tag);
    auto it = m_sends.find(key);
    if (it != m_sends.end() && !it->second.empty())
    {
        const uint32_t send = it->second.front();
        it->second.pop_front();
        StartTransfer(uint32_t(node.peer), send, r, i);
        return;
    }
    m_recvs[key].push_back(i);
}

void
RoceReplayJob::StartTransfer(uint32_t src, uint32_t sendNode, uint32_t dst, uint32_t recvNode)
{
    const RoceReplayGraph::Node& node = m_graphs[src]->GetNode(sendNode);
    const uint64_t t = m_transfers.size();
    m_transfers.push_back(Transfer{src, sendNode, dst, recvNode});
    if (node.bytes == 0)
    {
        Simulator::ScheduleNow(&RoceReplayJob::TransferArrived, this, t);
        return;
    }
    const Group& grp = m_groups[GroupOf(src, node.group)];
    const uint32_t a = uint32_t(grp.index[src]);
    const uint32_t b = uint32_t(grp.index[dst]);
    grp.comm->Send(a,
                   b,
                   grp.comm->GetRank(a).nic,
                   grp.comm->GetRank(b).nic,
                   node.bytes,
                   t,
                   MakeCallback(&RoceReplayJob::TransferArrived, this));
}

void
RoceReplayJob::TransferArrived(uint64_t t)
{
    const Transfer tr = m_transfers[t];
    ++m_transfersDone;
    m_transferBytes += m_graphs[tr.src]->GetNode(tr.sendNode).bytes;
    m_apps[tr.src]->CommDone(tr.sendNode);
    m_apps[tr.dst]->CommDone(tr.recvNode);
}

bool
RoceReplayJob::IsFinished() const
{
    return std::all_of(m_apps.begin(), m_apps.end(), [](const Ptr<RoceReplayApp>& a) {
        return a->IsFinished();
    });
}

std::vector<std::string>
RoceReplayJob::GetProblems() const
{
    std::vector<std::string> out;
    for (const auto& [key, nodes] : m_sends)
    {
        for (uint32_t i : nodes)
        {
            std::ostringstream os;
            os << "unmatched send: " << Describe(std::get<0>(key), i) << " sends "
               << m_graphs[std::get<0>(key)]->GetNode(i).bytes << " B to rank " << std::get<1>(key)
               << " with tag " << std::get<2>(key) << "; rank " << std::get<1>(key)
               << " never had a matching receive ready";
            out.push_back(os.str());
        }
    }
    for (const auto& [key, nodes] : m_recvs)
    {
        for (uint32_t i : nodes)
        {
            std::ostringstream os;
            os << "unmatched receive: " << Describe(std::get<1>(key), i) << " receives from rank "
               << std::get<0>(key) << " with tag " << std::get<2>(key) << "; rank "
               << std::get<0>(key) << " never had a matching send ready";
            out.push_back(os.str());
        }
    }
    for (uint32_t g = 0; g < m_instances.size(); ++g)
    {
        for (const Instance& inst : m_instances[g])
        {
            if (inst.ready == 0 || inst.started)
            {
                continue;
            }
            std::ostringstream os;
            os << "incomplete collective: process group '" << m_groups[g].name << "' collective "
               << inst.result.seq << " (" << RoceCollective::GetOpName(inst.result.op) << " of "
               << inst.result.bytes << " B): " << inst.ready << " of " << inst.node.size()
               << " ranks had it ready; never ready on rank(s)";
            for (uint32_t k = 0; k < inst.node.size(); ++k)
            {
                if (inst.node[k] == NONE)
                {
                    os << " " << m_groups[g].ranks[k];
                }
            }
            out.push_back(os.str());
        }
    }
    for (uint32_t r = 0; r < m_apps.size(); ++r)
    {
        const Ptr<RoceReplayApp>& app = m_apps[r];
        const uint64_t total = m_graphs[r]->GetNNodes();
        if (app->GetNodesExecuted() == total)
        {
            continue;
        }
        std::ostringstream os;
        os << "rank " << r << ": " << (total - app->GetNodesExecuted()) << " of " << total
           << " nodes never completed";
        for (uint32_t i = 0; i < total; ++i)
        {
            if (app->IsStarted(i))
            {
                os << "; first in flight: " << Describe(r, i) << " ("
                   << RoceReplayGraph::KindName(m_graphs[r]->GetNode(i).kind) << ")";
                break;
            }
        }
        out.push_back(os.str());
    }
    return out;
}

std::vector<RoceReplayJob::CollectiveResult>
RoceReplayJob::GetCollectives() const
{
    std::vector<CollectiveResult> out;
    for (const auto& [g, seq] : m_startOrder)
    {
        out.push_back(m_instances[g][seq].result);
    }
    return out;
}

uint64_t
RoceReplayJob::GetNTransfers() const
{
    return m_transfersDone;
}

uint64_t
RoceReplayJob::GetTransferBytes() const
{
    return m_transferBytes;
}

Time
RoceReplayJob::GetMakespan() const
{
    if (m_apps.empty())
    {
        return Time(0);
    }
    Time start = m_apps[0]->GetStartTime();
    Time finish = m_apps[0]->GetFinishTime();
    for (const Ptr<RoceReplayApp>& a : m_apps)
    {
        start = std::min(start, a->GetStartTime());
        finish = std::max(finish, a->GetFinishTime());
    }
    return finish - start;
}

} // namespace ns3
