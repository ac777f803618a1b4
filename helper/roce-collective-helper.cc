/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-collective-helper.h"

#include "ns3/abort.h"
#include "ns3/node.h"

namespace ns3
{

RoceCollectiveHelper::RoceCollectiveHelper()
{
    m_comm.SetTypeId(RoceCommunicator::GetTypeId());
    m_collective.SetTypeId(RoceCollective::GetTypeId());
    m_app.SetTypeId(RoceCollectiveApp::GetTypeId());
}

void
RoceCollectiveHelper::SetCommunicatorAttribute(std::string name, const AttributeValue& value)
{
    m_comm.Set(name, value);
}

void
RoceCollectiveHelper::SetQpAttribute(std::string name, const AttributeValue& value)
{
    m_qp.emplace_back(name, value.Copy());
}

void
RoceCollectiveHelper::SetCollectiveAttribute(std::string name, const AttributeValue& value)
{
    m_collective.Set(name, value);
}

void
RoceCollectiveHelper::SetAppAttribute(std::string name, const AttributeValue& value)
{
    m_app.Set(name, value);
}

Ptr<RoceCommunicator>
RoceCollectiveHelper::CreateCommunicator(const RoceAiZone& zone, const std::vector<uint32_t>& gpus)
{
    NS_ABORT_MSG_IF(gpus.empty(), "RoceCollectiveHelper: a communicator of no GPUs");
    NS_ABORT_MSG_IF(gpus.size() > zone.GetNGpus(),
                    "RoceCollectiveHelper: " << gpus.size() << " ranks but the fabric has "
                                             << zone.GetNGpus() << " GPUs");
    Ptr<RoceCommunicator> comm = m_comm.Create<RoceCommunicator>();
    for (const auto& [name, value] : m_qp)
    {
        comm->SetQpAttribute(name, *value);
    }
    for (uint32_t g : gpus)
    {
        NS_ABORT_MSG_IF(g >= zone.GetNGpus(),
                        "RoceCollectiveHelper: GPU " << g << " is not in the fabric ("
                                                     << zone.GetNGpus() << " GPUs)");
        comm->AddRank(zone.GetNic(g), zone.GetNvlink(g), zone.GetLocalGpu(g));
    }
    return comm;
}

Ptr<RoceCollectiveApp>
RoceCollectiveHelper::Install(Ptr<RoceCommunicator> comm, const std::vector<uint64_t>& sizes)
{
    NS_ABORT_MSG_IF(!comm || comm->GetNRanks() == 0, "RoceCollectiveHelper::Install: no ranks");
    Ptr<RoceCollectiveApp> app = m_app.Create<RoceCollectiveApp>();
    app->SetCommunicator(comm);
    app->SetSizes(sizes);
    // The collective's attributes, as the factory holds them.
    Ptr<RoceCollective> proto = m_collective.Create<RoceCollective>();
    for (const char* name : {"Channels", "ChunkSize", "Steps", "Root"})
    {
        UintegerValue v;
        proto->GetAttribute(name, v);
        app->GetCollective()->SetAttribute(name, v);
    }
    comm->GetRank(0).nic->GetNode()->AddApplication(app);
    return app;
}

} // namespace ns3
