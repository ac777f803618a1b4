/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer harness of the fault file reader (RoceFaultHelper::Load, the
 * examples' --faults=FILE). Each input is loaded into a fresh helper on a
 * small leaf-spine fabric built once: leaves leaf0 to leaf2, spines spine0
 * and spine1, hosts host0 to host5 (two per leaf), with the names of the
 * repository's fault files and checks as aliases (switch = leaf0, rtsw<i> =
 * leaf<i>, ctsw<i> = spine<i>, gpu<i> = the NIC of host<i>). Load only
 * schedules the faults: the simulation never runs, and the pending events
 * are dropped (Simulator::Destroy, then the fabric is built again) every
 * REBUILD_EVERY inputs, so that one input's result does not depend on the
 * inputs before it.
 */

#include "rocev2-fuzz-common.h"

#include "ns3/node-container.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"

#include <memory>

using namespace ns3;

namespace
{

/** Inputs between two rebuilds of the fabric. */
constexpr uint32_t REBUILD_EVERY = 1000;

/** The fabric the fault files name. */
struct RoceFuzzFabric
{
    static constexpr uint32_t LEAVES = 3;         //!< leaf switches
    static constexpr uint32_t SPINES = 2;         //!< spine switches
    static constexpr uint32_t HOSTS_PER_LEAF = 2; //!< hosts under each leaf

    NodeContainer leaves;                                  //!< leaf switches
    NodeContainer spines;                                  //!< spine switches
    NodeContainer hosts;                                   //!< hosts, leaf-major
    std::map<std::string, Ptr<Node>> nodeNames;            //!< names of the nodes
    std::map<std::string, Ptr<RocePfcNetDevice>> nicNames; //!< names of the NICs

    RoceFuzzFabric()
    {
        leaves.Create(LEAVES);
        spines.Create(SPINES);
        hosts.Create(LEAVES * HOSTS_PER_LEAF);
        RoceSwitchHelper sh;
        sh.Install(leaves);
        sh.Install(spines);
        RoceHelper roce;
        for (uint32_t h = 0; h < hosts.GetN(); ++h)
        {
            Ptr<NetDevice> nic = roce.Install(hosts.Get(h), leaves.Get(h / HOSTS_PER_LEAF)).Get(0);
            nicNames["gpu" + std::to_string(h)] = DynamicCast<RocePfcNetDevice>(nic);
            nodeNames["host" + std::to_string(h)] = hosts.Get(h);
        }
        for (uint32_t l = 0; l < LEAVES; ++l)
        {
            for (uint32_t s = 0; s < SPINES; ++s)
            {
                roce.Install(leaves.Get(l), spines.Get(s));
            }
            nodeNames["leaf" + std::to_string(l)] = leaves.Get(l);
            nodeNames["rtsw" + std::to_string(l)] = leaves.Get(l);
        }
        for (uint32_t s = 0; s < SPINES; ++s)
        {
            nodeNames["spine" + std::to_string(s)] = spines.Get(s);
            nodeNames["ctsw" + std::to_string(s)] = spines.Get(s);
        }
        nodeNames["switch"] = leaves.Get(0);
        RoceSwitchHelper::PopulateRoutes();
    }

    /** \brief Name the fabric's nodes and NICs in a helper. \param faults the helper */
    void Name(RoceFaultHelper& faults) const
    {
        for (const auto& [name, node] : nodeNames)
        {
            faults.AddName(name, node);
        }
        for (const auto& [name, nic] : nicNames)
        {
            faults.AddName(name, nic);
        }
    }
};

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    RoceFuzz::PlantedBug(data, size);
    static const RoceFuzz::RoceFuzzTempFile file("fault-file", ".txt");
    static std::unique_ptr<RoceFuzzFabric> fabric;
    static uint32_t inputs = 0;
    if (!fabric || ++inputs % REBUILD_EVERY == 0)
    {
        fabric.reset();
        Simulator::Destroy();
        fabric = std::make_unique<RoceFuzzFabric>();
    }
    RoceFaultHelper faults;
    fabric->Name(faults);
    const std::string& path = file.Write(data, size);
    RoceFuzz::Accepts([&] { faults.Load(path); });
    ROCE_FUZZ_CHECK(faults.GetLog().empty(), "a fault applied before the simulation ran");
    return 0;
}
