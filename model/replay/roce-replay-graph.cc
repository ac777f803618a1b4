/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-replay-graph.h"

#include "ns3/roce-error.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

RoceReplayGraph::RoceReplayGraph(std::vector<std::string> typeNames)
    : m_typeNames(std::move(typeNames))
{
}

uint32_t
RoceReplayGraph::AddNode(const Node& node, const std::string& name)
{
    ROCE_ERROR_IF(m_final, "RoceReplayGraph::AddNode after Finalize");
    ROCE_ERROR_IF(node.kind != NOOP && node.kind != GPU_COMPUTE && node.kind != CPU &&
                      node.group >= m_groups.size(),
                  "RoceReplayGraph::AddNode: node " << name << " names group " << node.group
                                                    << " of " << m_groups.size() << " (AddGroup)");
    m_nodes.push_back(node);
    if (node.kind == COLLECTIVE)
    {
        m_nodes.back().seq = m_nCollectives[node.group]++;
    }
    m_names.push_back(name);
    return static_cast<uint32_t>(m_nodes.size() - 1);
}

void
RoceReplayGraph::AddDependency(uint32_t before, uint32_t after)
{
    ROCE_ERROR_IF(m_final, "RoceReplayGraph::AddDependency after Finalize");
    ROCE_ERROR_IF(before >= m_nodes.size() || after >= m_nodes.size(),
                  "RoceReplayGraph::AddDependency(" << before << ", " << after
                                                    << "): " << m_nodes.size() << " nodes");
    m_edges.emplace_back(before, after);
}

uint32_t
RoceReplayGraph::AddGroup(const std::string& name)
{
    auto it = std::find(m_groups.begin(), m_groups.end(), name);
    if (it != m_groups.end())
    {
        return static_cast<uint32_t>(it - m_groups.begin());
    }
    m_groups.push_back(name);
    m_nCollectives.push_back(0);
    return static_cast<uint32_t>(m_groups.size() - 1);
}

bool
RoceReplayGraph::Finalize(std::string* error)
{
    ROCE_ERROR_IF(m_final, "RoceReplayGraph::Finalize twice");
    const uint32_t n = static_cast<uint32_t>(m_nodes.size());
    std::sort(m_edges.begin(), m_edges.end());
    m_edges.erase(std::unique(m_edges.begin(), m_edges.end()), m_edges.end());
    m_nDeps.assign(n, 0);
    m_firstDependant.assign(n + 1, 0);
    for (const auto& e : m_edges)
    {
        m_nDeps[e.second]++;
        m_firstDependant[e.first + 1]++;
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        m_firstDependant[i + 1] += m_firstDependant[i];
    }
    // The edges are sorted by their first node: their second nodes are the CSR list.
    m_dependants.resize(m_edges.size());
    for (std::size_t k = 0; k < m_edges.size(); ++k)
    {
        m_dependants[k] = m_edges[k].second;
    }

    // Kahn's algorithm, lowest index first: a deterministic topological order.
    std::vector<uint32_t> left = m_nDeps;
    m_order.clear();
    for (uint32_t i = 0; i < n; ++i)
    {
        if (left[i] == 0)
        {
            m_order.push_back(i);
        }
    }
    for (std::size_t k = 0; k < m_order.size(); ++k)
    {
        const uint32_t i = m_order[k];
        for (const uint32_t* d = DependantsBegin(i); d != DependantsEnd(i); ++d)
        {
            if (--left[*d] == 0)
            {
                m_order.push_back(*d);
            }
        }
    }
    if (m_order.size() < n)
    {
        // Every node left waits for another node left: walk back along such
        // waits from the first one until a node repeats.
        std::vector<uint32_t> waitsFor(n, n);
        for (const auto& e : m_edges)
        {
            if (left[e.first] > 0 && left[e.second] > 0)
            {
                waitsFor[e.second] = e.first;
            }
        }
        uint32_t start = 0;
        while (left[start] == 0)
        {
            ++start;
        }
        std::vector<uint32_t> seen(n, 0);
        uint32_t at = start;
        while (seen[at] == 0)
        {
            seen[at] = 1;
            at = waitsFor[at];
        }
        std::vector<uint32_t> cycle{at};
        for (uint32_t x = waitsFor[at]; x != at; x = waitsFor[x])
        {
            cycle.push_back(x);
        }
        cycle.push_back(at);
        std::reverse(cycle.begin(), cycle.end());
        if (error != nullptr)
        {
            std::ostringstream os;
            os << "the dependencies make a cycle: ";
            for (std::size_t k = 0; k < cycle.size(); ++k)
            {
                os << (k > 0 ? " -> " : "") << "id " << m_nodes[cycle[k]].id;
            }
            os << " (" << (n - m_order.size()) << " nodes can never run)";
            *error = os.str();
        }
        return false;
    }
    m_edges.clear();
    m_edges.shrink_to_fit();
    m_final = true;
    return true;
}

uint32_t
RoceReplayGraph::GetNNodes() const
{
    return static_cast<uint32_t>(m_nodes.size());
}

const RoceReplayGraph::Node&
RoceReplayGraph::GetNode(uint32_t i) const
{
    return m_nodes[i];
}

const std::string&
RoceReplayGraph::GetName(uint32_t i) const
{
    return m_names[i];
}

uint32_t
RoceReplayGraph::GetNDeps(uint32_t i) const
{
    return m_nDeps[i];
}

const uint32_t*
RoceReplayGraph::DependantsBegin(uint32_t i) const
{
    return m_dependants.data() + m_firstDependant[i];
}

const uint32_t*
RoceReplayGraph::DependantsEnd(uint32_t i) const
{
    return m_dependants.data() + m_firstDependant[i + 1];
}

const std::vector<std::string>&
RoceReplayGraph::GetGroupNames() const
{
    return m_groups;
}

uint32_t
RoceReplayGraph::GetNCollectives(uint32_t g) const
{
    return m_nCollectives.at(g);
}

uint32_t
RoceReplayGraph::GetNTypes() const
{
    uint32_t t = static_cast<uint32_t>(m_typeNames.size());
    for (const Node& node : m_nodes)
    {
        t = std::max<uint32_t>(t, node.type + 1u);
    }
    return t;
}

std::string
RoceReplayGraph::GetTypeName(uint32_t t) const
{
    return t < m_typeNames.size() ? m_typeNames[t] : "TYPE" + std::to_string(t);
}

std::string
RoceReplayGraph::KindName(Kind k)
{
    switch (k)
    {
    case NOOP:
        return "NOOP";
    case GPU_COMPUTE:
        return "GPU_COMPUTE";
    case CPU:
        return "CPU";
    case SEND:
        return "SEND";
    case RECV:
        return "RECV";
    case COLLECTIVE:
        return "COLLECTIVE";
    }
    return "UNKNOWN";
}

} // namespace ns3
