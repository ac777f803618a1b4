/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_FORMAT_H
#define ROCE_HPCC_FORMAT_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <ostream>
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
class RoceHelper;
class RoceSwitchHelper;

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

    /**
     * \param topology a topology
     * \return the ids of its hosts (the nodes that are not switches), ascending
     */
    static std::vector<uint32_t> Hosts(const Topology& topology);

    /**
     * \brief Write a topology in the file format ReadTopology reads (rates in
     * bit/s, delays in ns), e.g. to hand a fabric to another simulator.
     * \param os the stream \param topology the topology
     */
    static void WriteTopology(std::ostream& os, const Topology& topology);

    /**
     * \brief Build the fabric a topology file describes.
     *
     * Creates one node per topology node, in id order (so container index i
     * is node i), makes the listed ones switches with `switches`, joins
     * every link with `roce` at its rate and delay, gives each host's NIC the
     * address that lineage gives node i (11.(i / 256).(i % 256).1, so their
     * scripts map our FCT files back to node ids) and fills the switches'
     * ECMP tables (RoceSwitchHelper::PopulateRoutes). A link with an error
     * rate drops that fraction of the packets its two ends receive; links
     * whose rate is 0 in the file get `errorRate`.
     * \param topology the topology
     * \param roce the link and NIC helper, configured
     * \param switches the switch helper, configured
     * \param errorRate the error rate of links the file gives 0
     * \param stream the first random stream of the error models
     * \return the nodes, index = topology node id
     */
    static NodeContainer Build(const Topology& topology,
                               RoceHelper& roce,
                               RoceSwitchHelper& switches,
                               double errorRate = 0,
                               int64_t stream = 0);

    /**
     * \param id a topology node id
     * \return the address Build gives that host's NIC
     */
    static Ipv4Address HostAddress(uint32_t id);
};

} // namespace ns3

#endif /* ROCE_HPCC_FORMAT_H */
