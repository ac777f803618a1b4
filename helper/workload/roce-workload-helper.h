/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_WORKLOAD_HELPER_H
#define ROCE_WORKLOAD_HELPER_H

#include "roce-size-cdf.h"

#include "ns3/application-container.h"
#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/roce-fct-stats.h"
#include "ns3/roce-flow-app.h"
#include "ns3/roce-hpcc-format.h"

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Generates flow workloads and installs them as RoceFlowApps.
 *
 * Generators return a list of RoceFlowSpec (priority 3, dport 100, the HPCC
 * flow files' values; edit the list for others). Random ones draw from ns-3
 * random variable streams: the same stream number and RngRun give the same
 * flows, another RngRun other flows.
 *
 * Install() puts one RoceFlowApp on every sending node and counts the flows
 * in the RoceFctStats it is given; RoceFctStats::SetAllDoneCallback then says
 * when the last one has finished.
 *
 * Across MPI ranks every rank installs the same flows: the apps of every
 * rank connect every flow alike, only a flow's sending rank posts it, and
 * the RoceFctStats of a rank expects and records the flows of its nodes.
 * With RoceFctStats' Distributed (RoceMpiHelper::Enable sets it) the
 * all-done callback runs on every rank at one time, and
 * RoceMpiHelper::Gather(stats) brings every rank's records to rank 0.
 */
class RoceWorkloadHelper
{
  public:
    RoceWorkloadHelper();

    /**
     * \brief Set an attribute of the queue pairs created for the flows
     * (e.g. RetransmitTimeout; Priority and SourcePort are set per flow).
     * \param name attribute name \param value its value
     */
    void SetQpAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of the RoceFlowApps (e.g. FirstSourcePort).
     * \param name attribute name \param value its value
     */
    void SetAppAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Install the flows.
     * \param nodes the nodes the flows' src and dst index
     * \param flows the flows
     * \param stats where finished flows are recorded
     * \return one RoceFlowApp per sending node, in order of first appearance
     */
    ApplicationContainer Install(NodeContainer nodes,
                                 const std::vector<RoceFlowSpec>& flows,
                                 Ptr<RoceFctStats> stats) const;

    /**
     * \brief Install the flows between NICs (e.g. an AI Zone's GPUs,
     * RoceAiZone::nics: a server holds several): src and dst index the
     * NICs, and each sending NIC gets its own RoceFlowApp.
     * \param nics the NICs the flows' src and dst index
     * \param flows the flows
     * \param stats where finished flows are recorded
     * \return one RoceFlowApp per sending NIC, in order of first appearance
     */
    ApplicationContainer Install(const std::vector<Ptr<NetDevice>>& nics,
                                 const std::vector<RoceFlowSpec>& flows,
                                 Ptr<RoceFctStats> stats) const;

    /**
     * \param flows flows read from an HPCC flow file
     * \return the same flows as RoceFlowSpec
     */
    static std::vector<RoceFlowSpec> FromHpcc(const std::vector<RoceHpccFormat::Flow>& flows);

    /**
     * \brief Poisson arrivals over the whole fabric.
     *
     * Arrival rate lambda = load x hostRate x hosts / (8 x cdf.Mean()) flows
     * per second, so that the offered bytes are load x hostRate per host;
     * exponential inter-arrival times from start until start + duration;
     * each flow picks a uniform random source and a uniform random
     * destination among the other hosts, and a size from the CDF.
     * \param hosts number of hosts (indexes 0..hosts-1)
     * \param cdf flow sizes
     * \param load offered load per host, a fraction of hostRate (0 < load)
     * \param hostRate a host's line rate
     * \param start first possible arrival
     * \param duration how long arrivals go on
     * \param stream the first of the 4 random streams used
     * \return the flows, by start time
     */
    static std::vector<RoceFlowSpec> Poisson(uint32_t hosts,
                                             const RoceSizeCdf& cdf,
                                             double load,
                                             DataRate hostRate,
                                             Time start,
                                             Time duration,
                                             int64_t stream);

    /**
     * \brief Poisson arrivals over some nodes: Poisson(hosts.size(), ...)
     * with each flow's src and dst mapped to the node indexes in hosts (for
     * example RoceHpccFormat::Hosts of a topology).
     * \param hosts the hosts' node indexes (at least 2)
     * \param cdf flow sizes
     * \param load offered load per host, a fraction of hostRate (0 < load)
     * \param hostRate a host's line rate
     * \param start first possible arrival
     * \param duration how long arrivals go on
     * \param stream the first of the 4 random streams used
     * \return the flows, by start time
     */
    static std::vector<RoceFlowSpec> Poisson(const std::vector<uint32_t>& hosts,
                                             const RoceSizeCdf& cdf,
                                             double load,
                                             DataRate hostRate,
                                             Time start,
                                             Time duration,
                                             int64_t stream);

    /**
     * \brief Every sender sends bytes to one receiver at the same time.
     * \param senders the senders \param receiver the receiver
     * \param bytes each flow's size \param start when all start
     * \return the flows
     */
    static std::vector<RoceFlowSpec> Incast(const std::vector<uint32_t>& senders,
                                            uint32_t receiver,
                                            uint64_t bytes,
                                            Time start);

    /**
     * \brief A random derangement: every host sends bytes to exactly one
     * other host and receives from exactly one (uniform over derangements:
     * Fisher-Yates shuffles until no host maps to itself).
     * \param hosts number of hosts (at least 2)
     * \param bytes each flow's size \param start when all start
     * \param stream the random stream used
     * \return the flows, by source
     */
    static std::vector<RoceFlowSpec> Permutation(uint32_t hosts,
                                                 uint64_t bytes,
                                                 Time start,
                                                 int64_t stream);

    /**
     * \brief Write flows as an HPCC flow file: the count, then one line
     * `src dst priority dport bytes start_seconds` per flow, the start with
     * 9 decimals, so reading it back gives the same nanosecond.
     * \param os the stream \param flows the flows
     */
    static void WriteHpccFlowFile(std::ostream& os, const std::vector<RoceFlowSpec>& flows);

  private:
    /**
     * \brief Check and install the flows.
     * \param nicOf the NIC of an index \param n indexes \param what what they index
     * \param flows the flows \param stats where they are recorded
     * \return the apps
     */
    ApplicationContainer InstallOn(const std::function<Ptr<NetDevice>(uint32_t)>& nicOf,
                                   uint32_t n,
                                   const char* what,
                                   const std::vector<RoceFlowSpec>& flows,
                                   Ptr<RoceFctStats> stats) const;

    ObjectFactory m_qpFactory;  //!< queue pairs
    ObjectFactory m_appFactory; //!< RoceFlowApps
};

} // namespace ns3

#endif /* ROCE_WORKLOAD_HELPER_H */
