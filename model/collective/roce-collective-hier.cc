/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-collective-schedule.h"
#include "roce-communicator.h"

#include "ns3/roce-error.h"

namespace ns3
{

void
RoceCollectiveBuildHierarchical(const RoceCommunicator& comm,
                                const RoceCollectiveSchedule::Params& params,
                                RoceCollectiveSchedule& s)
{
    typedef RoceCollectiveSchedule Sched;
    const uint32_t n = comm.GetNServers();
    const uint32_t m = comm.GetServerRanks(0).size();
    for (uint32_t srv = 1; srv < n; ++srv)
    {
        ROCE_ERROR_IF(comm.GetServerRanks(srv).size() != m,
                      "RoceCollective hier: servers hold different numbers of ranks");
    }
    const int64_t none = -1;
    // Per (server, ring position): the last transfer into it, of this column.
    std::vector<int64_t> in(n * m);
    std::vector<int64_t> next(n * m);
    // Per (server, position): every phase-2 arrival, 2(n-1) each.
    const uint32_t railSteps = 2 * (n - 1);
    std::vector<uint32_t> railIn(n * m * railSteps);
    for (uint32_t c = 0; c < params.channels; ++c)
    {
        // Ring position q of server srv is its local rank c + q mod m, as in the ring algorithm.
        auto pos = [&comm, c, m](uint32_t srv, uint32_t q) {
            return comm.GetServerRanks(srv)[(c + q) % m];
        };
        const uint64_t share = Sched::Part(params.bytes, params.channels, c);
        // The largest message (a slice of phase 1, or of phase 2 with one GPU per server) is at
        // most ChunkSize.
        const uint64_t parts = m > 1 ? m : n;
        const uint64_t largest = (share + parts - 1) / parts;
        const uint64_t columns =
            std::max<uint64_t>(1, (largest + params.chunkSize - 1) / params.chunkSize);
        for (uint64_t k = 0; k < columns; ++k)
        {
            const uint64_t column = Sched::Part(share, columns, k); // m slices
            std::fill(in.begin(), in.end(), none);
            // (1) Reduce-scatter in each server: at step t position q sends slice q - t.
            for (uint32_t t = 0; t + 1 < m; ++t)
            {
                for (uint32_t srv = 0; srv < n; ++srv)
                {
                    for (uint32_t q = 0; q < m; ++q)
                    {
                        const uint32_t to = (q + 1) % m;
                        const uint32_t id = s.Add(c,
                                                  pos(srv, q),
                                                  pos(srv, to),
                                                  Sched::Part(column, m, (q + m - t) % m));
                        if (in[srv * m + q] != none)
                        {
                            s.After(in[srv * m + q], id);
                        }
                        next[srv * m + to] = id;
                    }
                }
                in.swap(next);
            }
            // (2) Position q holds slice q + 1: a ring AllReduce of it over the servers, on
            // the rail of that position.
            for (uint32_t q = 0; q < m && n > 1; ++q)
            {
                const uint64_t slice = Sched::Part(column, m, (q + 1) % m);
                for (uint32_t t = 0; t < railSteps; ++t)
                {
                    for (uint32_t srv = 0; srv < n; ++srv)
                    {
                        const uint32_t to = (srv + 1) % n;
                        const uint32_t id = s.Add(c,
                                                  pos(srv, q),
                                                  pos(to, q),
                                                  Sched::Part(slice, n, (srv + n - t % n) % n));
                        if (in[srv * m + q] != none)
                        {
                            s.After(in[srv * m + q], id);
                        }
                        next[to * m + q] = id;
                        railIn[(to * m + q) * railSteps + t] = id;
                    }
                    for (uint32_t srv = 0; srv < n; ++srv)
                    {
                        in[srv * m + q] = next[srv * m + q];
                    }
                }
            }
            // (3) All-gather in each server: at step t position q sends slice q + 1 - t; its
            // first step waits for the whole of its slice.
            for (uint32_t t = 0; t + 1 < m; ++t)
            {
                for (uint32_t srv = 0; srv < n; ++srv)
                {
                    for (uint32_t q = 0; q < m; ++q)
                    {
                        const uint32_t to = (q + 1) % m;
                        const uint32_t id = s.Add(c,
                                                  pos(srv, q),
                                                  pos(srv, to),
                                                  Sched::Part(column, m, (q + 1 + m - t) % m));
                        if (t == 0 && n > 1)
                        {
                            for (uint32_t j = 0; j < railSteps; ++j)
                            {
                                s.After(railIn[(srv * m + q) * railSteps + j], id);
                            }
                        }
                        else if (in[srv * m + q] != none)
                        {
                            s.After(in[srv * m + q], id);
                        }
                        next[srv * m + to] = id;
                    }
                }
                in.swap(next);
            }
        }
    }
}

} // namespace ns3
