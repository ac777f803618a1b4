/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_FORMAT_H
#define ROCE_HPCC_FORMAT_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Readers of the topology and flow files of the HPCC-lineage
 * simulators, so that their experiments run here unmodified.
 *
 * Topology file: line 1 `nodes switches links`; line 2 the ids of the
 * switches (nodes are numbered 0 .. nodes-1, the others are hosts); then one
 * line per link `a b rate delay error_rate`, rate and delay with ns-3 units
 * ("100Gbps", "1000ns"). Flow file: line 1 the number of flows; then one line
 * per flow `src dst priority dport bytes start_seconds`. Blank lines are
 * skipped. Anything else (a missing or extra field, a number that does not
 * parse, an id out of range, a switch as a flow end, counts that do not match
 * line 1) aborts with `file:line:` and the field and its value.
 */
class RoceHpccFormat
{
  public:
    /** One link of a topology file. */
    struct Link
    {
        uint32_t a;       //!< one end
        uint32_t b;       //!< the other end
        DataRate rate;    //!< its rate
        Time delay;       //!< its one-way delay
        double errorRate; //!< its packet error rate, 0 <= e < 1
        uint32_t line;    //!< where it was read
    };

    /** A topology file. */
    struct Topology
    {
        uint32_t nodes{0};              //!< nodes, hosts and switches
        std::vector<uint32_t> switches; //!< the switches' ids, as listed
        std::vector<bool> isSwitch;     //!< by node id
        std::vector<Link> links;        //!< in file order
    };

    /** One flow of a flow file. */
    struct Flow
    {
        uint32_t src;      //!< sending host
        uint32_t dst;      //!< receiving host
        uint32_t priority; //!< traffic class, 0..7
        uint32_t dport;    //!< destination port
        uint64_t bytes;    //!< size
        Time start;        //!< start time
        uint32_t line;     //!< where it was read
    };

    /**
     * \param path a topology file
     * \return its contents (aborts with file:line on malformed input)
     */
    static Topology ReadTopology(const std::string& path);

    /**
     * \param path a flow file
     * \param topology the topology its hosts are in: a flow end that is a
     *        switch or not a node is refused
     * \return its flows (aborts with file:line on malformed input)
     */
    static std::vector<Flow> ReadFlows(const std::string& path, const Topology& topology);
};

} // namespace ns3

#endif /* ROCE_HPCC_FORMAT_H */
