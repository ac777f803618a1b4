/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Python bindings, part 1: the extension module, its error type, simulator
 * control, Config, the AI Zone, GPU placement and collectives.
 */
#include "rocev2-bindings.h"

#include "ns3/config.h"
#include "ns3/core-module.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-command-line.h"
#include "ns3/roce-error.h"
#include "ns3/roce-gpu-placement.h"
#include "ns3/roce-monitor-helper.h"

#include <pybind11/stl.h>
#include <sstream>

namespace py = pybind11;

namespace ns3
{
namespace rocepy
{

namespace
{

/** What run() waits for, and the monitors it stops then. */
struct Scenario
{
    std::vector<std::function<bool()>> workloads;
    std::vector<Ptr<RoceMonitor>> monitors;
};

/** The current scenario's number: destroy() counts it up. */
uint64_t g_scenarioNumber = 0;

/** \return the current scenario (cleared by destroy()) */
Scenario&
Current()
{
    static Scenario s;
    return s;
}

/**
 * \brief Run the simulation. With monitors and no time limit, it runs in
 * slices of 100 us of simulated time until every workload has finished,
 * stops the monitors, and runs what is left (the monitors' samplers would
 * otherwise keep it alive). Slicing adds one stop event per slice and does
 * not change the results; samples are taken only of busy queues and links,
 * so the last slice adds none.
 */
void
Run(double until)
{
    Scenario& s = Current();
    py::gil_scoped_release release;
    if (until >= 0 || s.monitors.empty())
    {
        if (until >= 0)
        {
            Simulator::Stop(Seconds(until));
        }
        Simulator::Run();
        return;
    }
    ROCE_ERROR_IF(s.workloads.empty(),
                  "run(): monitors sample until their workload ends, and there is none: give "
                  "run(until=seconds)");
    auto finished = [&s]() {
        for (const auto& f : s.workloads)
        {
            if (!f())
            {
                return false;
            }
        }
        return true;
    };
    while (!finished() && !Simulator::IsFinished())
    {
        Simulator::Stop(MicroSeconds(100));
        Simulator::Run();
    }
    for (const Ptr<RoceMonitor>& m : s.monitors)
    {
        m->Stop();
    }
    Simulator::Run();
}

/** Config.set_default(path, value): the type, the attribute and the value checked, then set. */
void
SetDefault(const std::string& path, const std::string& value)
{
    const std::size_t at = path.rfind("::");
    ROCE_ERROR_IF(at == std::string::npos || at == 0,
                  "Config.set_default: '" << path << "' is not ns3::Type::Attribute");
    const std::string type = path.substr(0, at);
    TypeId tid;
    ROCE_ERROR_IF(!TypeId::LookupByNameFailSafe(type, &tid) &&
                      !TypeId::LookupByNameFailSafe("ns3::" + type, &tid),
                  "Config.set_default: no type " << type << " (in '" << path << "')");
    ObjectFactory probe;
    probe.SetTypeId(tid);
    RoceSetFactoryAttribute(probe, path.substr(at + 2), StringValue(value));
    ROCE_ERROR_IF(!Config::SetDefaultFailSafe(tid.GetName() + path.substr(at), StringValue(value)),
                  "Config.set_default: " << path << "=" << value << " was refused");
}

/** Config.set(path, value): on every object the path matches, each checked. */
void
ConfigSet(const std::string& path, const std::string& value)
{
    const std::size_t slash = path.rfind('/');
    ROCE_ERROR_IF(slash == std::string::npos || slash + 1 == path.size(),
                  "Config.set: '" << path << "' is not a path to an attribute (/.../Name)");
    const Config::MatchContainer matches = Config::LookupMatches(path.substr(0, slash));
    ROCE_ERROR_IF(matches.GetN() == 0, "Config.set: no object matches " << path.substr(0, slash));
    for (std::size_t i = 0; i < matches.GetN(); ++i)
    {
        RoceSetAttribute(*matches.Get(i), path.substr(slash + 1), StringValue(value));
    }
}

/** A communicator, as Python holds it. */
struct Communicator
{
    Ptr<RoceCommunicator> comm;
    uint64_t scenario; //!< the scenario it was made in
};

/** A collective application. */
struct CollectiveApp
{
    Ptr<RoceCollectiveApp> app;
};

} // namespace

uint64_t
ScenarioNumber()
{
    return g_scenarioNumber;
}

const RoceAiZone&
Live(const Zone& z, const char* what)
{
    ROCE_ERROR_IF(z.scenario != g_scenarioNumber,
                  what << ": this AiZone was freed by destroy(); build a new one for the next "
                          "scenario");
    return z.zone;
}

void
AddWorkload(std::function<bool()> finished)
{
    Current().workloads.push_back(std::move(finished));
}

void
AddMonitor(Ptr<RoceMonitor> monitor)
{
    Current().monitors.push_back(monitor);
}

void
BindCore(py::module_& m)
{
    // Simulator control.
    m.def(
        "set_seed",
        [](uint32_t seed) { RngSeedManager::SetSeed(seed); },
        py::arg("seed"));
    m.def(
        "set_run",
        [](uint64_t run) { RngSeedManager::SetRun(run); },
        py::arg("run"));
    m.def("get_run", []() { return RngSeedManager::GetRun(); });
    m.def("run",
          &Run,
          py::arg("until") = -1.0,
          "Run the simulation until its workloads have ended, or until `until` seconds");
    m.def(
        "now",
        []() { return Simulator::Now().GetSeconds(); },
        "Simulated time, seconds");
    m.def("event_count", []() { return Simulator::GetEventCount(); });
    m.def(
        "destroy",
        []() {
            Current() = Scenario();
            ++g_scenarioNumber;
            Simulator::Destroy();
        },
        "End the scenario: free every object");
    m.def("use_fast_scheduler", &RoceCli::UseFastScheduler);
    m.def("config_set_default", &SetDefault, py::arg("path"), py::arg("value"));
    m.def("config_set", &ConfigSet, py::arg("path"), py::arg("value"));

    // The AI Zone.
    py::class_<RoceAiZoneHelper>(m, "AiZoneHelper")
        .def(py::init<>())
        .def("set_tiers", &RoceAiZoneHelper::SetTiers)
        .def("set_gpus", &RoceAiZoneHelper::SetGpus)
        .def("set_zones", &RoceAiZoneHelper::SetZones)
        .def("set_servers_per_rack", &RoceAiZoneHelper::SetServersPerRack)
        .def("set_gpus_per_server", &RoceAiZoneHelper::SetGpusPerServer)
        .def("set_uplinks", &RoceAiZoneHelper::SetUplinks)
        .def("set_ctsws", &RoceAiZoneHelper::SetCtsws)
        .def("set_atsws", &RoceAiZoneHelper::SetAtsws)
        .def("set_oversubscription", &RoceAiZoneHelper::SetOversubscription)
        .def("set_rail_optimized", &RoceAiZoneHelper::SetRailOptimized)
        .def("set_fat_tree", &RoceAiZoneHelper::SetFatTree)
        .def("set_preset", &RoceAiZoneHelper::SetPreset)
        .def("set_fidelity", &RoceAiZoneHelper::SetFidelity)
        .def_static("preset_names", &RoceAiZoneHelper::GetPresetNames)
        .def("set_link_rate",
             [](RoceAiZoneHelper& h, const std::string& rate) {
                 DataRateValue v;
                 ROCE_ERROR_IF(!v.DeserializeFromString(rate, MakeDataRateChecker()) ||
                                   v.Get().GetBitRate() == 0,
                               "link_rate='" << rate << "' is not a data rate (e.g. 400Gbps)");
                 h.SetLinkRate(v.Get());
             })
        .def(
            "set_congestion_control",
            [](RoceAiZoneHelper& h, const std::string& cc, const std::string& dcqcnPreset) {
                // As the examples' --cc and --dcqcn-preset: the NICs'
                // algorithm and the switch marking that goes with it
                // (dcqcn alone: the nvidia-cx preset).
                RoceCli::MakeCongestionControl(cc, dcqcnPreset).Configure(h);
            },
            py::arg("cc"),
            py::arg("dcqcn_preset") = "")
        .def("set_nic_attribute",
             [](RoceAiZoneHelper& h, const std::string& name, const std::string& value) {
                 h.GetRoceHelper().SetNicAttribute(name, StringValue(value));
             })
        .def("set_qp_attribute",
             [](RoceAiZoneHelper& h, const std::string& name, const std::string& value) {
                 h.GetRoceHelper().SetQpAttribute(name, StringValue(value));
             })
        .def("set_switch_attribute",
             [](RoceAiZoneHelper& h, const std::string& name, const std::string& value) {
                 h.SetSwitchAttribute(name, StringValue(value));
             })
        .def("build", [](RoceAiZoneHelper& h) {
            const auto t0 = std::chrono::steady_clock::now();
            Zone z{h.Build(), 0, g_scenarioNumber};
            z.buildSeconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return z;
        });

    py::class_<Zone>(m, "AiZone")
        .def_property_readonly("n_gpus", [](const Zone& z) { return z.zone.GetNGpus(); })
        .def_property_readonly("nics_per_rack",
                               [](const Zone& z) { return z.zone.GetNicsPerRack(); })
        .def("summary_json",
             [](const Zone& z) {
                 return Print([&z](std::ostream& os) { z.zone.WriteJson(os, z.buildSeconds); });
             })
        .def("summary_text",
             [](const Zone& z) {
                 return Print([&z](std::ostream& os) { z.zone.PrintSummary(os); });
             })
        .def("switch_hops",
             [](const Zone& z, uint32_t a, uint32_t b) { return z.zone.GetSwitchHops(a, b); });

    py::class_<RoceGpuPlacement>(m, "Placement")
        .def(py::init([](const Zone& z) { return RoceGpuPlacement(Live(z, "Placement")); }))
        .def("contiguous", &RoceGpuPlacement::Contiguous)
        .def("fragmented", &RoceGpuPlacement::Fragmented)
        .def("random",
             py::overload_cast<uint32_t, int64_t>(&RoceGpuPlacement::Random),
             py::arg("n"),
             py::arg("stream"))
        .def("mark_taken", &RoceGpuPlacement::MarkTaken)
        .def("release", &RoceGpuPlacement::Release)
        .def("is_free", &RoceGpuPlacement::IsFree)
        .def_property_readonly("n_free", &RoceGpuPlacement::GetNFree)
        .def_property_readonly("n_gpus", &RoceGpuPlacement::GetNGpus);

    // Collectives.
    py::class_<Communicator>(m, "Communicator")
        .def_property_readonly("n_ranks", [](const Communicator& c) { return c.comm->GetNRanks(); })
        .def_property_readonly("n_servers",
                               [](const Communicator& c) { return c.comm->GetNServers(); })
        .def_property_readonly("n_qps", [](const Communicator& c) { return c.comm->GetNQps(); })
        .def_property_readonly("n_grants",
                               [](const Communicator& c) { return c.comm->GetNGrants(); })
        .def_property_readonly("nic_bytes",
                               [](const Communicator& c) { return c.comm->GetNicBytes(); })
        .def_property_readonly("scaleup_bytes",
                               [](const Communicator& c) { return c.comm->GetScaleUpBytes(); });

    py::class_<CollectiveApp>(m, "CollectiveApp")
        .def_property_readonly("finished",
                               [](const CollectiveApp& a) { return a.app->IsFinished(); })
        .def("results_json",
             [](const CollectiveApp& a) {
                 return Print([&a](std::ostream& os) { a.app->WriteJsonResults(os); });
             })
        .def("table", [](const CollectiveApp& a) {
            return Print([&a](std::ostream& os) { a.app->PrintTable(os); });
        });

    py::class_<RoceCollectiveHelper>(m, "CollectiveHelper")
        .def(py::init<>())
        .def("set_communicator_attribute",
             [](RoceCollectiveHelper& h, const std::string& n, const std::string& v) {
                 h.SetCommunicatorAttribute(n, StringValue(v));
             })
        .def("set_qp_attribute",
             [](RoceCollectiveHelper& h, const std::string& n, const std::string& v) {
                 h.SetQpAttribute(n, StringValue(v));
             })
        .def("set_collective_attribute",
             [](RoceCollectiveHelper& h, const std::string& n, const std::string& v) {
                 h.SetCollectiveAttribute(n, StringValue(v));
             })
        .def("set_app_attribute",
             [](RoceCollectiveHelper& h, const std::string& n, const std::string& v) {
                 h.SetAppAttribute(n, StringValue(v));
             })
        .def("create_communicator",
             [](RoceCollectiveHelper& h, const Zone& z, const std::vector<uint32_t>& gpus) {
                 return Communicator{h.CreateCommunicator(Live(z, "Collective"), gpus),
                                     g_scenarioNumber};
             })
        .def(
            "install",
            [](RoceCollectiveHelper& h, const Communicator& c, const std::vector<uint64_t>& sizes) {
                ROCE_ERROR_IF(c.scenario != g_scenarioNumber,
                              "Collective: this communicator was freed by destroy()");
                CollectiveApp a{h.Install(c.comm, sizes)};
                AddWorkload([app = a.app]() { return app->IsFinished(); });
                return a;
            });
}

} // namespace rocepy
} // namespace ns3

PYBIND11_MODULE(_rocev2, m)
{
    m.doc() = "ns3-rocev2: RoCEv2 AI fabrics at packet level (native part)";
    py::register_exception<ns3::RoceError>(m, "Error", PyExc_ValueError);
    ns3::rocepy::BindCore(m);
    ns3::rocepy::BindRuns(m);
}
