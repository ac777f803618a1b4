/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Python bindings, part 2: what runs on a fabric and what it reports: job
 * files, faults, monitors (numpy columns), fabric counters, HPCC-format
 * scenarios with their FCTs, Chakra trace replay, and trace sources
 * connected to Python callables.
 */
#include "rocev2-bindings.h"

#include "ns3/config.h"
#include "ns3/core-module.h"
#include "ns3/roce-chakra-replay-helper.h"
#include "ns3/roce-command-line.h"
#include "ns3/roce-error.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-hpcc-config.h"
#include "ns3/roce-hpcc-format.h"
#include "ns3/roce-invariants.h"
#include "ns3/roce-job-helper.h"
#include "ns3/roce-monitor-helper.h"
#include "ns3/roce-size-cdf.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-workload-helper.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <sstream>

namespace py = pybind11;

namespace ns3
{
namespace rocepy
{

namespace
{

/** \return a numpy array of one field of every record */
template <typename T, typename R, typename F>
py::array_t<T>
Column(const std::vector<R>& records, F field)
{
    py::array_t<T> a(records.size());
    auto out = a.template mutable_unchecked<1>();
    for (std::size_t i = 0; i < records.size(); ++i)
    {
        out(i) = static_cast<T>(field(records[i]));
    }
    return a;
}

/** Jobs read from a job file and installed. */
struct Jobs
{
    std::vector<Ptr<RoceJobApp>> apps;
};

/** An HPCC-format scenario: its nodes and the FCTs of its flows. */
struct HpccScenario
{
    NodeContainer nodes;
    Ptr<RoceFctStats> fct;
    uint32_t flows{0};
};

/** A monitor, as Python holds it. */
struct Monitor
{
    Ptr<RoceMonitor> mon;
};

/** A replayed trace. */
struct Replay
{
    Ptr<RoceReplayJob> job;
    std::vector<std::string> notes;
};

/** \return the Time of a duration in seconds (>= 0) */
Time
SecondsArg(const char* what, double s)
{
    ROCE_ERROR_IF(!(s >= 0), what << "=" << s << " (seconds, must be >= 0)");
    return Seconds(s);
}

/** Connect a Python callable to every trace source a path names; the signature picks the
 * arguments. */
uint32_t
Connect(const std::string& path, py::function fn)
{
    const std::size_t slash = path.rfind('/');
    ROCE_ERROR_IF(slash == std::string::npos, "connect: '" << path << "' is not a trace path");
    const Config::MatchContainer matches = Config::LookupMatches(path.substr(0, slash));
    ROCE_ERROR_IF(matches.GetN() == 0, "connect: no object matches " << path.substr(0, slash));
    const std::string name = path.substr(slash + 1);
    const TypeId tid = matches.Get(0)->GetInstanceTypeId();
    Ptr<const TraceSourceAccessor> source = tid.LookupTraceSourceByName(name);
    ROCE_ERROR_IF(!source, "connect: " << tid.GetName() << " has no trace source " << name);
    TypeId::TraceSourceInformation info;
    for (TypeId t = tid;; t = t.GetParent())
    {
        for (std::size_t i = 0; i < t.GetTraceSourceN(); ++i)
        {
            if (t.GetTraceSource(i).name == name)
            {
                info = t.GetTraceSource(i);
            }
        }
        if (t == t.GetParent() || !info.callback.empty())
        {
            break;
        }
    }
    // The callable is released with the GIL held, or not at all once the
    // interpreter is finalizing (ns-3's objects may outlive it).
    auto held = std::shared_ptr<py::function>(new py::function(std::move(fn)), [](py::function* f) {
        if (Py_IsInitialized())
        {
            py::gil_scoped_acquire gil;
            delete f;
        }
        else
        {
            f->release();
            delete f;
        }
    });
    auto call = [held](auto... args) {
        py::gil_scoped_acquire gil;
        (*held)(args...);
    };
    const std::string sig = info.callback;
    bool ok = false;
    if (sig == "ns3::RocePfcNetDevice::PfcTracedCallback")
    {
        ok = Config::ConnectFailSafe(path,
                                     Callback<void, std::string, uint8_t, uint16_t>(
                                         [call](std::string ctx, uint8_t prio, uint16_t quanta) {
                                             call(ctx, prio, quanta);
                                         }));
    }
    else if (sig == "ns3::RocePfcNetDevice::LinkStateTracedCallback")
    {
        ok = Config::ConnectFailSafe(
            path,
            Callback<void, std::string, bool>([call](std::string ctx, bool up) { call(ctx, up); }));
    }
    else if (sig == "ns3::RocePfcNetDevice::DropTracedCallback")
    {
        ok = Config::ConnectFailSafe(
            path,
            Callback<void, std::string, Ptr<const Packet>, const char*>(
                [call](std::string ctx, Ptr<const Packet> p, const char* reason) {
                    call(ctx, p->GetSize(), std::string(reason));
                }));
    }
    else if (sig == "ns3::TracedValueCallback::Double")
    {
        ok = Config::ConnectFailSafe(
            path,
            Callback<void, std::string, double, double>(
                [call](std::string ctx, double oldV, double newV) { call(ctx, oldV, newV); }));
    }
    else
    {
        ROCE_ERROR("connect: trace source " << name << " of " << tid.GetName() << " ("
                                            << (sig.empty() ? "no signature" : sig)
                                            << ") cannot call Python (PfcTx, PfcRx, LinkState, "
                                               "Drop and double-valued traces such as Rate can)");
    }
    ROCE_ERROR_IF(!ok, "connect: " << path << " could not be connected");
    return static_cast<uint32_t>(matches.GetN());
}

} // namespace

void
BindRuns(py::module_& m)
{
    // Job files.
    py::class_<Jobs>(m, "Jobs")
        .def_property_readonly("finished",
                               [](const Jobs& j) {
                                   for (const auto& a : j.apps)
                                   {
                                       if (!a->IsFinished())
                                       {
                                           return false;
                                       }
                                   }
                                   return true;
                               })
        .def("json",
             [](const Jobs& j) {
                 return Print([&j](std::ostream& os) { RoceJobHelper::WriteJson(os, j.apps); });
             })
        .def("table", [](const Jobs& j) {
            return Print([&j](std::ostream& os) { RoceJobHelper::PrintTable(os, j.apps); });
        });
    m.def(
        "install_jobs",
        [](const Zone& z, const std::string& path, uint32_t channels, uint64_t chunk) {
            RoceJobHelper helper;
            helper.SetCollectiveAttribute("Channels", UintegerValue(channels));
            helper.SetCollectiveAttribute("ChunkSize", UintegerValue(chunk));
            Jobs j{helper.Install(Live(z, "Jobs"), RoceJobHelper::Read(path))};
            AddWorkload([apps = j.apps]() {
                for (const auto& a : apps)
                {
                    if (!a->IsFinished())
                    {
                        return false;
                    }
                }
                return true;
            });
            return j;
        },
        py::arg("zone"),
        py::arg("path"),
        py::arg("channels") = 4,
        py::arg("chunk") = 512 * 1024);

    // Faults.
    py::class_<RoceFaultHelper>(m, "FaultHelper")
        .def(py::init<>())
        .def("add_names", [](RoceFaultHelper& f, const Zone& z) { f.AddNames(Live(z, "Faults")); })
        .def("load", &RoceFaultHelper::Load)
        .def("set_detection_delay",
             [](RoceFaultHelper& f, double s) {
                 f.SetDetectionDelay(SecondsArg("detection_delay", s));
             })
        .def("log", &RoceFaultHelper::GetLog);

    // Monitors: numpy columns.
    py::class_<Monitor>(m, "Monitor")
        .def(py::init([]() {
            Monitor w{CreateObject<RoceMonitor>()};
            AddMonitor(w.mon);
            return w;
        }))
        .def("enable_pfc_log", [](Monitor& w) { w.mon->EnablePfcLog(); })
        .def("enable_queue_sampling",
             [](Monitor& w, double s) { w.mon->EnableQueueSampling(SecondsArg("interval", s)); })
        .def("enable_link_utilisation",
             [](Monitor& w, double s) { w.mon->EnableLinkUtilisation(SecondsArg("interval", s)); })
        .def("enable_rate_sampling",
             [](Monitor& w, double s) { w.mon->EnableRateSampling(SecondsArg("interval", s)); })
        .def("stop", [](Monitor& w) { w.mon->Stop(); })
        .def("pfc_columns",
             [](const Monitor& w, bool received) {
                 const RoceMonitor& mon = *w.mon;
                 const auto& v = received ? mon.GetPfcRxLog() : mon.GetPfcLog();
                 using E = RoceMonitor::PfcEvent;
                 py::dict d;
                 d["time_ns"] = Column<int64_t>(v, [](const E& e) { return e.timeNs; });
                 d["node"] = Column<uint32_t>(v, [](const E& e) { return e.node; });
                 d["if_index"] = Column<uint32_t>(v, [](const E& e) { return e.ifIndex; });
                 d["priority"] = Column<uint8_t>(v, [](const E& e) { return e.priority; });
                 d["xoff"] = Column<bool>(v, [](const E& e) { return e.xoff; });
                 d["is_switch"] = Column<bool>(v, [](const E& e) { return e.isSwitch; });
                 return d;
             })
        .def("queue_columns",
             [](const Monitor& w) {
                 const RoceMonitor& mon = *w.mon;
                 const auto& v = mon.GetQueueSamples();
                 using S = RoceMonitor::QueueSample;
                 py::dict d;
                 d["time_ns"] = Column<int64_t>(v, [](const S& e) { return e.timeNs; });
                 d["node"] = Column<uint32_t>(v, [](const S& e) { return e.node; });
                 d["if_index"] = Column<uint32_t>(v, [](const S& e) { return e.ifIndex; });
                 d["priority"] = Column<uint8_t>(v, [](const S& e) { return e.priority; });
                 d["bytes"] = Column<uint64_t>(v, [](const S& e) { return e.bytes; });
                 return d;
             })
        .def("link_columns",
             [](const Monitor& w) {
                 const RoceMonitor& mon = *w.mon;
                 const auto& v = mon.GetLinkSamples();
                 using S = RoceMonitor::LinkSample;
                 py::dict d;
                 d["time_ns"] = Column<int64_t>(v, [](const S& e) { return e.timeNs; });
                 d["node"] = Column<uint32_t>(v, [](const S& e) { return e.node; });
                 d["if_index"] = Column<uint32_t>(v, [](const S& e) { return e.ifIndex; });
                 d["bytes"] = Column<uint64_t>(v, [](const S& e) { return e.bytes; });
                 d["frames"] = Column<uint32_t>(v, [](const S& e) { return e.frames; });
                 d["util"] = Column<double>(v, [](const S& e) { return e.util; });
                 return d;
             })
        .def("rate_columns",
             [](const Monitor& w) {
                 const RoceMonitor& mon = *w.mon;
                 const auto& v = mon.GetRateSamples();
                 using S = RoceMonitor::RateSample;
                 py::dict d;
                 d["time_ns"] = Column<int64_t>(v, [](const S& e) { return e.timeNs; });
                 d["node"] = Column<uint32_t>(v, [](const S& e) { return e.node; });
                 d["qpn"] = Column<uint32_t>(v, [](const S& e) { return e.qpn; });
                 d["rate_bps"] = Column<double>(v, [](const S& e) { return e.rateBps; });
                 d["window"] = Column<uint64_t>(v, [](const S& e) { return e.window; });
                 return d;
             })
        .def("json", [](const Monitor& w) {
            return Print([&w](std::ostream& os) { w.mon->WriteJson(os); });
        });

    m.def(
        "invariants_json_member",
        [](bool faults) {
            return Print([faults](std::ostream& os) {
                RoceInvariants::Check(faults).WriteJsonMember(os, 2);
            });
        },
        py::arg("faults") = false);

    m.def("fabric_stats_json", []() {
        return Print([](std::ostream& os) {
            os << "{\n";
            RoceFabricStats::Collect().WriteJsonMembers(os, 2);
            os << "\n}\n";
        });
    });

    // HPCC-format scenarios.
    py::class_<HpccScenario>(m, "HpccScenario")
        .def_property_readonly("n_flows", [](const HpccScenario& s) { return s.flows; })
        .def("fct_json",
             [](const HpccScenario& s) {
                 return Print([&s](std::ostream& os) {
                     os << "{\n";
                     s.fct->WriteJsonMembers(os, 2);
                     os << "\n}\n";
                 });
             })
        .def("fct_text",
             [](const HpccScenario& s) {
                 return Print([&s](std::ostream& os) { s.fct->WriteHpccFct(os); });
             })
        .def("slowdown_percentile",
             [](const HpccScenario& s, double p) { return s.fct->GetSlowdownPercentile(p); })
        .def("fct_percentile", [](const HpccScenario& s, double p) {
            return s.fct->GetFctPercentile(p).GetSeconds();
        });
    m.def(
        "hpcc_scenario",
        [](const std::string& topologyPath,
           const std::string& flowPath,
           const std::string& configPath,
           const std::string& cc,
           const std::string& dcqcnPreset,
           double load,
           const std::string& cdfPath,
           double duration,
           int64_t stream) {
            const RoceHpccFormat::Topology topology = RoceHpccFormat::ReadTopology(topologyPath);
            RoceHelper roce;
            RoceSwitchHelper switches;
            RoceHpccConfig config;
            const bool withConfig = !configPath.empty();
            if (withConfig)
            {
                config = RoceHpccConfig::Read(configPath);
                config.Apply(roce, switches, topology);
            }
            else
            {
                // As rocev2-hpcc-compat: with neither cc nor dcqcn_preset,
                // the lineage's DCQCN (the hpcc-sim preset).
                RoceCli::MakeCongestionControl(cc, dcqcnPreset, RoceHpccConfig::DCQCN_PRESET)
                    .Configure(roce, switches);
            }
            HpccScenario s;
            s.nodes = RoceHpccFormat::Build(topology,
                                            roce,
                                            switches,
                                            withConfig ? config.GetErrorRatePerLink() : 0.0);
            if (withConfig)
            {
                config.ApplyEcnByRate();
            }
            RoceSwitchHelper::AssignStreams(1000);
            std::vector<RoceFlowSpec> flows;
            if (load > 0)
            {
                const std::vector<uint32_t> hosts = RoceHpccFormat::Hosts(topology);
                ROCE_ERROR_IF(hosts.empty(), topologyPath << ": no hosts");
                flows = RoceWorkloadHelper::Poisson(
                    hosts,
                    RoceSizeCdf::Read(cdfPath),
                    load,
                    RoceHelper::GetNic(s.nodes.Get(hosts[0]))->GetDataRate(),
                    Seconds(0),
                    SecondsArg("duration", duration),
                    stream);
            }
            else
            {
                flows = RoceWorkloadHelper::FromHpcc(RoceHpccFormat::ReadFlows(flowPath, topology));
            }
            ROCE_ERROR_IF(flows.empty(), "hpcc_scenario: no flows to run");
            s.fct = CreateObject<RoceFctStats>();
            auto done = std::make_shared<bool>(false);
            s.fct->SetAllDoneCallback(Callback<void>([done]() { *done = true; }));
            AddWorkload([done]() { return *done; });
            RoceWorkloadHelper().Install(s.nodes, flows, s.fct);
            s.flows = static_cast<uint32_t>(flows.size());
            return s;
        },
        py::arg("topology"),
        py::arg("flows") = "",
        py::arg("config") = "",
        py::arg("cc") = "",
        py::arg("dcqcn_preset") = "",
        py::arg("load") = 0.0,
        py::arg("cdf") = "",
        py::arg("duration") = 0.0,
        py::arg("stream") = 1);

    // Chakra replay.
    py::class_<Replay>(m, "Replay")
        .def_property_readonly("finished", [](const Replay& r) { return r.job->IsFinished(); })
        .def_property_readonly("notes", [](const Replay& r) { return r.notes; })
        .def("problems", [](const Replay& r) { return r.job->GetProblems(); })
        .def(
            "json",
            [](const Replay& r) { return Print([&r](std::ostream& os) { r.job->WriteJson(os); }); })
        .def("table", [](const Replay& r) {
            return Print([&r](std::ostream& os) { r.job->PrintTable(os); });
        });
    m.def(
        "chakra_replay",
        [](const Zone& z,
           const std::vector<uint32_t>& gpus,
           const std::string& et,
           bool replicate,
           const std::map<std::string, std::string>& options) {
            RoceChakraReplayHelper replay;
            std::string groups;
            for (const auto& [key, value] : options)
            {
                if (key == "qps")
                {
                    replay.GetCollectiveHelper().SetCommunicatorAttribute("QpsPerConnection",
                                                                          StringValue(value));
                }
                else if (key == "qp_mode")
                {
                    replay.GetCollectiveHelper().SetCommunicatorAttribute("QpMode",
                                                                          StringValue(value));
                }
                else if (key == "channels" || key == "chunk")
                {
                    replay.SetCollectiveAttribute(key == "channels" ? "Channels" : "ChunkSize",
                                                  StringValue(value));
                }
                else if (key == "algo")
                {
                    replay.SetJobAttribute("Algorithm", StringValue(value));
                }
                else if (key == "compute_scale" || key == "cpu_ops" || key == "gpu_streams")
                {
                    replay.SetAppAttribute(key == "compute_scale" ? "ComputeScale"
                                           : key == "cpu_ops"     ? "CpuOps"
                                                                  : "GpuStreams",
                                           StringValue(value));
                }
                else if (key == "ctrl_deps")
                {
                    replay.SetControlDependencies(value);
                }
                else if (key == "stream_order")
                {
                    replay.SetStreamOrder(value == "1" || value == "True" || value == "true");
                }
                else if (key == "comm_groups")
                {
                    groups = value;
                }
                else
                {
                    ROCE_ERROR("chakra_replay: unknown option "
                               << key
                               << " (qps, qp_mode, channels, chunk, "
                                  "algo, compute_scale, cpu_ops, "
                                  "gpu_streams, ctrl_deps, "
                                  "stream_order, comm_groups)");
                }
            }
            replay.SetGroupsFile(groups);
            const uint32_t n = static_cast<uint32_t>(gpus.size());
            Replay r;
            r.job = replay.Install(Live(z, "ChakraReplay"),
                                   gpus,
                                   RoceChakraReplayHelper::TracePaths(et, n, replicate));
            r.notes = replay.GetNotes();
            AddWorkload([job = r.job]() { return job->IsFinished(); });
            return r;
        },
        py::arg("zone"),
        py::arg("gpus"),
        py::arg("et"),
        py::arg("replicate") = false,
        py::arg("options") = std::map<std::string, std::string>());

    m.def("connect",
          &Connect,
          py::arg("path"),
          py::arg("callback"),
          "Call `callback(context, ...)` at every event of the trace sources the path names; "
          "returns how many objects matched");
}

} // namespace rocepy
} // namespace ns3
