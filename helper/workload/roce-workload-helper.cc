/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-workload-helper.h"

#include "ns3/random-variable-stream.h"
#include "ns3/roce-error.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-rank-call.h"

#include <cinttypes>
#include <cstdio>
#include <functional>
#include <map>

namespace ns3
{

RoceWorkloadHelper::RoceWorkloadHelper()
{
    m_qpFactory.SetTypeId(RoceQueuePair::GetTypeId());
    m_appFactory.SetTypeId(RoceFlowApp::GetTypeId());
}

void
RoceWorkloadHelper::SetQpAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_qpFactory, name, value);
}

void
RoceWorkloadHelper::SetAppAttribute(std::string name, const AttributeValue& value)
{
    RoceSetFactoryAttribute(m_appFactory, name, value);
}

ApplicationContainer
RoceWorkloadHelper::Install(NodeContainer nodes,
                            const std::vector<RoceFlowSpec>& flows,
                            Ptr<RoceFctStats> stats) const
{
    return InstallOn([&nodes](uint32_t i) { return RoceHelper::GetNicDevice(nodes.Get(i)); },
                     nodes.GetN(),
                     "nodes",
                     flows,
                     stats);
}

ApplicationContainer
RoceWorkloadHelper::Install(const std::vector<Ptr<NetDevice>>& nics,
                            const std::vector<RoceFlowSpec>& flows,
                            Ptr<RoceFctStats> stats) const
{
    for (std::size_t i = 0; i < nics.size(); ++i)
    {
        ROCE_ERROR_IF(!RoceNetDevice::IsNic(nics[i]) || !nics[i]->GetNode(),
                      "RoceWorkloadHelper::Install: NIC " << i << " is not a NIC or on no node");
    }
    return InstallOn([&nics](uint32_t i) { return nics[i]; }, nics.size(), "NICs", flows, stats);
}

ApplicationContainer
RoceWorkloadHelper::InstallOn(const std::function<Ptr<NetDevice>(uint32_t)>& nicOf,
                              uint32_t n,
                              const char* what,
                              const std::vector<RoceFlowSpec>& flows,
                              Ptr<RoceFctStats> stats) const
{
    ROCE_ERROR_IF(!stats, "RoceWorkloadHelper::Install: no RoceFctStats");
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        const RoceFlowSpec& f = flows[i];
        ROCE_ERROR_IF(f.src >= n,
                      "RoceWorkloadHelper::Install: flow "
                          << i << ": src " << f.src << " is not below the " << n << " " << what
                          << " given");
        ROCE_ERROR_IF(f.dst >= n,
                      "RoceWorkloadHelper::Install: flow "
                          << i << ": dst " << f.dst << " is not below the " << n << " " << what
                          << " given");
        ROCE_ERROR_IF(f.src == f.dst,
                      "RoceWorkloadHelper::Install: flow " << i << ": src and dst are both "
                                                           << f.src);
        ROCE_ERROR_IF(f.bytes == 0, "RoceWorkloadHelper::Install: flow " << i << ": bytes 0");
        ROCE_ERROR_IF(f.priority > 7,
                      "RoceWorkloadHelper::Install: flow "
                          << i << ": priority " << unsigned(f.priority) << " is not in 0..7");
        ROCE_ERROR_IF(f.start < Time(0),
                      "RoceWorkloadHelper::Install: flow " << i << ": start " << f.start
                                                           << " is negative");
    }
    // Every flow is checked before anything is installed. Every rank
    // installs every app (they connect their flows' QPs alike); a rank
    // expects the flows of its own nodes.
    std::map<uint32_t, Ptr<RoceFlowApp>> apps;
    ApplicationContainer out;
    uint64_t local = 0;
    for (const RoceFlowSpec& f : flows)
    {
        auto it = apps.find(f.src);
        if (it == apps.end())
        {
            Ptr<NetDevice> nic = nicOf(f.src);
            Ptr<RoceFlowApp> app = m_appFactory.Create<RoceFlowApp>();
            app->Setup(nic, stats);
            app->SetQpFactory(m_qpFactory);
            nic->GetNode()->AddApplication(app);
            out.Add(app);
            it = apps.emplace(f.src, app).first;
        }
        local += RoceRankCall::IsLocal(it->second->GetNode()->GetId()) ? 1 : 0;
        it->second->AddFlow(f, nicOf(f.dst));
    }
    stats->AddExpected(local);
    return out;
}

std::vector<RoceFlowSpec>
RoceWorkloadHelper::FromHpcc(const std::vector<RoceHpccFormat::Flow>& flows)
{
    std::vector<RoceFlowSpec> out;
    out.reserve(flows.size());
    for (const auto& f : flows)
    {
        RoceFlowSpec s;
        s.src = f.src;
        s.dst = f.dst;
        s.priority = static_cast<uint8_t>(f.priority);
        s.dport = static_cast<uint16_t>(f.dport);
        s.bytes = f.bytes;
        s.start = f.start;
        out.push_back(s);
    }
    return out;
}

std::vector<RoceFlowSpec>
RoceWorkloadHelper::Poisson(uint32_t hosts,
                            const RoceSizeCdf& cdf,
                            double load,
                            DataRate hostRate,
                            Time start,
                            Time duration,
                            int64_t stream)
{
    ROCE_ERROR_IF(hosts < 2, "RoceWorkloadHelper::Poisson: needs at least 2 hosts");
    ROCE_ERROR_IF(!(load > 0), "RoceWorkloadHelper::Poisson: load " << load << " is not > 0");
    const double mean = cdf.Mean();
    ROCE_ERROR_IF(!(mean > 0), "RoceWorkloadHelper::Poisson: the size CDF has no mean");
    const double lambda = load * static_cast<double>(hostRate.GetBitRate()) * hosts / (8 * mean);
    Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
    gap->SetAttribute("Mean", DoubleValue(1.0 / lambda));
    gap->SetStream(stream);
    Ptr<UniformRandomVariable> src = CreateObject<UniformRandomVariable>();
    src->SetStream(stream + 1);
    Ptr<UniformRandomVariable> dst = CreateObject<UniformRandomVariable>();
    dst->SetStream(stream + 2);
    Ptr<UniformRandomVariable> size = CreateObject<UniformRandomVariable>();
    size->SetStream(stream + 3);
    std::vector<RoceFlowSpec> flows;
    const double end = (start + duration).GetSeconds();
    double t = start.GetSeconds();
    while (true)
    {
        t += gap->GetValue();
        if (t >= end)
        {
            break;
        }
        RoceFlowSpec f;
        f.src = src->GetInteger(0, hosts - 1);
        // a uniform choice among the hosts - 1 others
        f.dst = dst->GetInteger(0, hosts - 2);
        f.dst += f.dst >= f.src ? 1 : 0;
        f.bytes = cdf.Sample(size->GetValue());
        f.start = Seconds(t);
        flows.push_back(f);
    }
    return flows;
}

std::vector<RoceFlowSpec>
RoceWorkloadHelper::Poisson(const std::vector<uint32_t>& hosts,
                            const RoceSizeCdf& cdf,
                            double load,
                            DataRate hostRate,
                            Time start,
                            Time duration,
                            int64_t stream)
{
    std::vector<RoceFlowSpec> flows =
        Poisson(static_cast<uint32_t>(hosts.size()), cdf, load, hostRate, start, duration, stream);
    for (auto& f : flows)
    {
        f.src = hosts[f.src];
        f.dst = hosts[f.dst];
    }
    return flows;
}

std::vector<RoceFlowSpec>
RoceWorkloadHelper::Incast(const std::vector<uint32_t>& senders,
                           uint32_t receiver,
                           uint64_t bytes,
                           Time start)
{
    std::vector<RoceFlowSpec> flows;
    for (uint32_t s : senders)
    {
        ROCE_ERROR_IF(s == receiver,
                      "RoceWorkloadHelper::Incast: the receiver " << receiver
                                                                  << " is also a sender");
        RoceFlowSpec f;
        f.src = s;
        f.dst = receiver;
        f.bytes = bytes;
        f.start = start;
        flows.push_back(f);
    }
    return flows;
}

std::vector<RoceFlowSpec>
RoceWorkloadHelper::Permutation(uint32_t hosts, uint64_t bytes, Time start, int64_t stream)
{
    ROCE_ERROR_IF(hosts < 2, "RoceWorkloadHelper::Permutation: needs at least 2 hosts");
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(stream);
    std::vector<uint32_t> to(hosts);
    bool fixedPoint = true;
    while (fixedPoint)
    {
        for (uint32_t i = 0; i < hosts; ++i)
        {
            to[i] = i;
        }
        for (uint32_t i = hosts - 1; i > 0; --i)
        {
            std::swap(to[i], to[u->GetInteger(0, i)]);
        }
        fixedPoint = false;
        for (uint32_t i = 0; i < hosts; ++i)
        {
            fixedPoint = fixedPoint || to[i] == i;
        }
    }
    std::vector<RoceFlowSpec> flows;
    for (uint32_t i = 0; i < hosts; ++i)
    {
        RoceFlowSpec f;
        f.src = i;
        f.dst = to[i];
        f.bytes = bytes;
        f.start = start;
        flows.push_back(f);
    }
    return flows;
}

void
RoceWorkloadHelper::WriteHpccFlowFile(std::ostream& os, const std::vector<RoceFlowSpec>& flows)
{
    os << flows.size() << "\n";
    char line[160];
    for (const auto& f : flows)
    {
        const int64_t ns = f.start.GetNanoSeconds();
        std::snprintf(line,
                      sizeof(line),
                      "%u %u %u %u %" PRIu64 " %" PRId64 ".%09" PRId64 "\n",
                      f.src,
                      f.dst,
                      static_cast<unsigned>(f.priority),
                      static_cast<unsigned>(f.dport),
                      f.bytes,
                      ns / 1000000000,
                      ns % 1000000000);
        os << line;
    }
}

} // namespace ns3
