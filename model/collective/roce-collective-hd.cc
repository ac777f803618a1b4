/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-collective-schedule.h"
#include "roce-communicator.h"

#include "ns3/roce-error.h"

namespace ns3
{

void
RoceCollectiveBuildHalvingDoubling(const RoceCommunicator& comm,
                                   const RoceCollectiveSchedule::Params& params,
                                   RoceCollectiveSchedule& s)
{
    typedef RoceCollectiveSchedule Sched;
    const uint32_t p = comm.GetNRanks();
    ROCE_ERROR_IF(p & (p - 1), "RoceCollective hd: " << p << " ranks is not a power of two");
    uint32_t steps = 0;
    while ((1u << steps) < p)
    {
        ++steps;
    }
    const int64_t none = -1;
    std::vector<int64_t> in(p); // per rank: the last transfer into it, of this column
    std::vector<int64_t> next(p);
    for (uint32_t c = 0; c < params.channels; ++c)
    {
        const uint64_t share = Sched::Part(params.bytes, params.channels, c);
        // The largest message, half a column, is at most ChunkSize.
        const uint64_t half = (share + 1) / 2;
        const uint64_t columns =
            std::max<uint64_t>(1, (half + params.chunkSize - 1) / params.chunkSize);
        for (uint64_t k = 0; k < columns; ++k)
        {
            const uint64_t column = Sched::Part(share, columns, k); // p blocks
            std::fill(in.begin(), in.end(), none);
            for (uint32_t phase = 0; phase < 2; ++phase)
            {
                for (uint32_t i = 0; i < steps; ++i)
                {
                    // Reduce-scatter: distance p/2, p/4, ..., 1; all-gather: 1, 2, ..., p/2.
                    const uint32_t d = phase == 0 ? p >> (i + 1) : 1u << i;
                    for (uint32_t r = 0; r < p; ++r)
                    {
                        uint32_t first;
                        if (phase == 0)
                        {
                            // r holds blocks [lo, lo + 2d) and gives the partner its half.
                            const uint32_t lo = r & ~(2 * d - 1);
                            first = (r & d) ? lo : lo + d;
                        }
                        else
                        {
                            // r holds blocks [r & ~(d - 1), + d) and sends them all.
                            first = r & ~(d - 1);
                        }
                        const uint32_t partner = r ^ d;
                        const uint32_t id =
                            s.Add(c, r, partner, Sched::Parts(column, p, first, first + d));
                        if (in[r] != none)
                        {
                            s.After(in[r], id);
                        }
                        next[partner] = id;
                    }
                    in.swap(next);
                }
            }
        }
    }
}

} // namespace ns3
