/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_COLLECTIVE_HELPER_H
#define ROCE_COLLECTIVE_HELPER_H

#include "ns3/object-factory.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-collective-app.h"
#include "ns3/roce-communicator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Makes communicators of GPUs of an AI Zone and installs collective
 * applications on them.
 *
 * \code
 *   RoceCollectiveHelper coll;
 *   coll.SetCommunicatorAttribute("QpsPerConnection", UintegerValue(4));
 *   coll.SetCollectiveAttribute("Channels", UintegerValue(8));
 *   coll.SetAppAttribute("Operation", StringValue("allreduce"));
 *   Ptr<RoceCommunicator> comm = coll.CreateCommunicator(fabric, place.Contiguous(128));
 *   Ptr<RoceCollectiveApp> app = coll.Install(comm, {1 << 20, 16 << 20});
 *   Simulator::Run();
 *   app->PrintTable(std::cout);
 * \endcode
 */
class RoceCollectiveHelper
{
  public:
    RoceCollectiveHelper();

    /** \param name RoceCommunicator attribute (QpsPerConnection, QpMode) \param value value */
    void SetCommunicatorAttribute(std::string name, const AttributeValue& value);
    /** \param name RoceQueuePair attribute \param value value */
    void SetQpAttribute(std::string name, const AttributeValue& value);
    /** \param name RoceCollective attribute (Channels, ChunkSize, Steps, Root) \param value value
     */
    void SetCollectiveAttribute(std::string name, const AttributeValue& value);
    /** \param name RoceCollectiveApp attribute (Operation, Algorithm, Iterations, Warmup, Gap)
     *  \param value value */
    void SetAppAttribute(std::string name, const AttributeValue& value);

    /**
     * \param zone the fabric
     * \param gpus the GPUs, in rank order (e.g. from RoceGpuPlacement)
     * \return a communicator of them, each rank with its NIC and its server's
     *         scale-up domain
     */
    Ptr<RoceCommunicator> CreateCommunicator(const RoceAiZone& zone,
                                             const std::vector<uint32_t>& gpus);

    /**
     * \brief Install a collective application on the node of rank 0.
     * \param comm the ranks
     * \param sizes the sizes to run, in order
     * \return the application (starts at time 0 unless its StartTime is set)
     */
    Ptr<RoceCollectiveApp> Install(Ptr<RoceCommunicator> comm, const std::vector<uint64_t>& sizes);

  private:
    ObjectFactory m_comm;
    ObjectFactory m_collective;
    ObjectFactory m_app;
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_qp;
};

} // namespace ns3

#endif /* ROCE_COLLECTIVE_HELPER_H */
