/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-collective-schedule.h"
#include "roce-communicator.h"

#include "ns3/roce-error.h"

namespace ns3
{

namespace
{

/** \return the parent of member v in NCCL's binary tree over n members (-1: v is the root) */
int32_t
BtreeParent(uint32_t n, uint32_t v)
{
    if (v == 0)
    {
        return -1;
    }
    const uint64_t bit = v & (~v + 1); // lowest set bit
    uint64_t up = (v ^ bit) | (bit << 1);
    if (up >= n)
    {
        up = v ^ bit;
    }
    return up;
}

} // namespace

std::vector<int32_t>
RoceCollectiveTreeParents(uint32_t n, bool second)
{
    std::vector<int32_t> parent(n);
    for (uint32_t v = 0; v < n; ++v)
    {
        if (!second)
        {
            parent[v] = BtreeParent(n, v);
        }
        else if (n % 2 == 0)
        {
            // Mirror: v is member n-1-v of tree 1.
            const int32_t u = BtreeParent(n, n - 1 - v);
            parent[v] = u < 0 ? -1 : int32_t(n - 1 - u);
        }
        else
        {
            // Shift by one: v is member v-1 of tree 1.
            const int32_t u = BtreeParent(n, (v + n - 1) % n);
            parent[v] = u < 0 ? -1 : int32_t((u + 1) % n);
        }
    }
    return parent;
}

void
RoceCollectiveBuildTree(const RoceCommunicator& comm,
                        const RoceCollectiveSchedule::Params& params,
                        RoceCollectiveSchedule& s)
{
    typedef RoceCollectiveSchedule Sched;
    const uint32_t p = comm.GetNRanks();
    const uint32_t n = comm.GetNServers();
    const uint32_t rootServer = params.broadcast ? comm.GetRank(params.root).server : 0;
    std::vector<int32_t> parent(p);
    std::vector<uint32_t> childStart(p + 1);
    std::vector<uint32_t> children(p);
    std::vector<uint32_t> order; // from the root down: parents before children
    std::vector<uint32_t> up(p);
    std::vector<uint32_t> down(p);
    for (uint32_t c = 0; c < params.channels; ++c)
    {
        const uint64_t share = Sched::Part(params.bytes, params.channels, c);
        for (uint32_t t = 0; t < (params.broadcast ? 1u : 2u); ++t)
        {
            // Rank-level tree: servers as members (the root's first), a chain in each.
            const std::vector<int32_t> member = RoceCollectiveTreeParents(n, t == 1);
            std::vector<uint32_t> head(n);
            uint32_t root = 0;
            for (uint32_t pass = 0; pass < 2; ++pass)
            {
                for (uint32_t v = 0; v < n; ++v)
                {
                    const std::vector<uint32_t>& local = comm.GetServerRanks((rootServer + v) % n);
                    const uint32_t m = local.size();
                    uint32_t start = c % m;
                    for (uint32_t i = 0; params.broadcast && v == 0 && i < m; ++i)
                    {
                        start = local[i] == params.root ? i : start;
                    }
                    head[v] = local[start];
                    if (pass == 0)
                    {
                        continue;
                    }
                    parent[head[v]] = member[v] < 0 ? -1 : int32_t(head[member[v]]);
                    root = member[v] < 0 ? head[v] : root;
                    for (uint32_t i = 1; i < m; ++i)
                    {
                        parent[local[(start + i) % m]] = local[(start + i - 1) % m];
                    }
                }
            }
            // Children lists (counting sort by parent) and a top-down order.
            std::fill(childStart.begin(), childStart.end(), 0);
            for (uint32_t r = 0; r < p; ++r)
            {
                childStart[parent[r] + 1] += parent[r] >= 0 ? 1 : 0;
            }
            for (uint32_t r = 1; r <= p; ++r)
            {
                childStart[r] += childStart[r - 1];
            }
            std::vector<uint32_t> fill(childStart.begin(), childStart.end() - 1);
            for (uint32_t r = 0; r < p; ++r)
            {
                if (parent[r] >= 0)
                {
                    children[fill[parent[r]]++] = r;
                }
            }
            order.assign(1, root);
            for (uint32_t i = 0; i < order.size(); ++i)
            {
                for (uint32_t j = childStart[order[i]]; j < childStart[order[i] + 1]; ++j)
                {
                    order.push_back(children[j]);
                }
            }
            ROCE_ERROR_IF(order.size() != p,
                          "RoceCollective tree: not every rank is in tree " << t + 1);
            const uint64_t half = params.broadcast ? share : Sched::Part(share, 2, t);
            const uint64_t chunks =
                std::max<uint64_t>(1, (half + params.chunkSize - 1) / params.chunkSize);
            for (uint64_t k = 0; k < chunks; ++k)
            {
                const uint64_t bytes = Sched::Part(half, chunks, k);
                if (!params.broadcast)
                {
                    // Reduce up: a rank sends once its children's chunks arrived.
                    for (uint32_t i = p; i-- > 1;)
                    {
                        const uint32_t r = order[i];
                        up[r] = s.Add(c, r, parent[r], bytes);
                        for (uint32_t j = childStart[r]; j < childStart[r + 1]; ++j)
                        {
                            s.After(up[children[j]], up[r]);
                        }
                    }
                }
                // Broadcast down: a rank forwards what arrived from its parent;
                // the root sends once it has reduced its children's chunks.
                for (uint32_t i = 1; i < p; ++i)
                {
                    const uint32_t r = order[i];
                    down[r] = s.Add(c, parent[r], r, bytes);
                    if (uint32_t(parent[r]) != root)
                    {
                        s.After(down[parent[r]], down[r]);
                        continue;
                    }
                    for (uint32_t j = childStart[root]; j < childStart[root + 1]; ++j)
                    {
                        if (!params.broadcast)
                        {
                            s.After(up[children[j]], down[r]);
                        }
                    }
                }
            }
        }
    }
}

} // namespace ns3
