/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-collective-helper.h"

#include "ns3/enum.h"
#include "ns3/node.h"
#include "ns3/roce-error.h"
#include "ns3/roce-ns3-compat.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/**
 * Set an attribute of a factory. ns-3's own refusal names the attribute but
 * not the value, so check it here and name both, and what is accepted.
 */
void
SetChecked(ObjectFactory& factory, const std::string& name, const AttributeValue& value)
{
    const TypeId tid = factory.GetTypeId();
    TypeId::AttributeInformation info;
    ROCE_ERROR_IF(!tid.LookupAttributeByName(name, &info),
                  "RoceCollectiveHelper: " << tid.GetName() << " has no attribute " << name);
    if (!info.checker->CreateValidValue(value))
    {
        // An EnumValue prints its name only through a checker that knows it:
        // a number outside the checker's names is printed as a number.
        // QpMode is the one enum attribute of the three factories.
        const auto* e = dynamic_cast<const RoceEnumValue<RoceCommunicator::QpMode>*>(&value);
        const std::string text =
            e ? std::to_string(e->Get()) : value.SerializeToString(info.checker);
        ROCE_ERROR("RoceCollectiveHelper: " << tid.GetName() << "::" << name << "=" << text
                                            << " is not accepted (valid: "
                                            << info.checker->GetUnderlyingTypeInformation() << ")");
    }
    RoceSetFactoryAttribute(factory, name, value);
}

} // namespace

RoceCollectiveHelper::RoceCollectiveHelper()
{
    m_comm.SetTypeId(RoceCommunicator::GetTypeId());
    m_collective.SetTypeId(RoceCollective::GetTypeId());
    m_app.SetTypeId(RoceCollectiveApp::GetTypeId());
}

void
RoceCollectiveHelper::SetCommunicatorAttribute(std::string name, const AttributeValue& value)
{
    SetChecked(m_comm, name, value);
}

void
RoceCollectiveHelper::SetQpAttribute(std::string name, const AttributeValue& value)
{
    m_qp.emplace_back(name, value.Copy());
}

void
RoceCollectiveHelper::SetCollectiveAttribute(std::string name, const AttributeValue& value)
{
    SetChecked(m_collective, name, value);
}

void
RoceCollectiveHelper::SetAppAttribute(std::string name, const AttributeValue& value)
{
    SetChecked(m_app, name, value);
}

Ptr<RoceCommunicator>
RoceCollectiveHelper::CreateCommunicator(const RoceAiZone& zone, const std::vector<uint32_t>& gpus)
{
    ROCE_ERROR_IF(gpus.empty(), "RoceCollectiveHelper: a communicator of no GPUs");
    ROCE_ERROR_IF(gpus.size() > zone.GetNGpus(),
                  "RoceCollectiveHelper: " << gpus.size() << " ranks but the fabric has "
                                           << zone.GetNGpus() << " GPUs");
    Ptr<RoceCommunicator> comm = m_comm.Create<RoceCommunicator>();
    for (const auto& [name, value] : m_qp)
    {
        comm->SetQpAttribute(name, *value);
    }
    std::vector<uint32_t> rankOf(zone.GetNGpus(), UINT32_MAX);
    for (uint32_t g : gpus)
    {
        ROCE_ERROR_IF(g >= zone.GetNGpus(),
                      "RoceCollectiveHelper: GPU " << g << " is not in the fabric ("
                                                   << zone.GetNGpus() << " GPUs)");
        const uint32_t rank = comm->GetNRanks();
        ROCE_ERROR_IF(rankOf[g] != UINT32_MAX,
                      "RoceCollectiveHelper: GPU " << g << " is rank " << rankOf[g]
                                                   << " and again rank " << rank
                                                   << " (a GPU is one rank)");
        rankOf[g] = rank;
        comm->AddRank(zone.GetNicDevice(g), zone.GetNvlink(g), zone.GetLocalGpu(g));
    }
    return comm;
}

Ptr<RoceCollectiveApp>
RoceCollectiveHelper::Install(Ptr<RoceCommunicator> comm, const std::vector<uint64_t>& sizes)
{
    ROCE_ERROR_IF(!comm || comm->GetNRanks() == 0, "RoceCollectiveHelper::Install: no ranks");
    ROCE_ERROR_IF(sizes.empty(), "RoceCollectiveHelper::Install: no sizes to run (sizes is empty)");
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
    app->CheckConfiguration();
    comm->GetRank(0).nic->GetNode()->AddApplication(app);
    return app;
}

} // namespace ns3
