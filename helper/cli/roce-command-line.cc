/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-command-line.h"

#include "ns3/global-value.h"
#include "ns3/object-factory.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-ai-zone.h"
#include "ns3/roce-congestion-ops.h"
#include "ns3/roce-error.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-flow-engine.h"
#include "ns3/roce-gpu-placement.h"
#include "ns3/string.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

namespace ns3
{

namespace
{

/** \return the terminate handler before ExitOnRoceError's */
std::terminate_handler&
PreviousTerminateHandler()
{
    static std::terminate_handler previous = nullptr;
    return previous;
}

/** The terminate handler that InstallErrorExit installs. */
[[noreturn]] void
ExitOnRoceError()
{
    if (std::exception_ptr e = std::current_exception())
    {
        try
        {
            std::rethrow_exception(e);
        }
        catch (const RoceError& error)
        {
            std::cout.flush();
            std::cerr << program_invocation_short_name << ": error: " << error.what() << std::endl;
            std::_Exit(2);
        }
        catch (...)
        {
        }
    }
    if (std::terminate_handler previous = PreviousTerminateHandler())
    {
        previous();
    }
    std::abort();
}

} // namespace

void
RoceCli::InstallErrorExit()
{
    static bool installed = false;
    if (!installed)
    {
        installed = true;
        PreviousTerminateHandler() = std::set_terminate([]() { ExitOnRoceError(); });
    }
}

std::string
RoceCli::Shown(const std::string& text)
{
    return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

std::string
RoceCli::WithoutBlanks(const std::string& text)
{
    std::string compact;
    for (char c : text)
    {
        if (!std::isspace(static_cast<unsigned char>(c)))
        {
            compact += c;
        }
    }
    return compact;
}

DataRate
RoceCli::ParseRateOrZero(const std::string& flag, const std::string& text)
{
    static const std::regex form(R"(\s*[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?\s*[A-Za-z/]+\s*)");
    DataRateValue value;
    ROCE_ERROR_IF(text.size() > MAX_VALUE_TEXT || !std::regex_match(text, form) ||
                      !value.DeserializeFromString(WithoutBlanks(text), MakeDataRateChecker()),
                  "--" << flag << "=" << Shown(text) << " is not a data rate (e.g. 100Gbps)");
    return value.Get();
}

DataRate
RoceCli::ParseRate(const std::string& flag, const std::string& text)
{
    DataRate rate = ParseRateOrZero(flag, text);
    ROCE_ERROR_IF(rate.GetBitRate() == 0, "--" << flag << "=" << text << " must be positive");
    return rate;
}

Time
RoceCli::ParseTime(const std::string& flag, const std::string& text)
{
    static const std::regex form(
        R"(\s*([0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?)\s*(s|ms|us|ns|ps|fs|min|h|d|y)\s*)");
    std::smatch m;
    ROCE_ERROR_IF(text.size() > MAX_VALUE_TEXT || !std::regex_match(text, m, form),
                  "--" << flag << "=" << Shown(text) << " is not a time (e.g. 10us)");
    // ns-3 turns a time beyond its range into garbage (a negative time, or
    // undefined behaviour converting the double): refuse it here.
    static const std::map<std::string, long double> seconds = {{"s", 1.0L},
                                                               {"ms", 1e-3L},
                                                               {"us", 1e-6L},
                                                               {"ns", 1e-9L},
                                                               {"ps", 1e-12L},
                                                               {"fs", 1e-15L},
                                                               {"min", 60.0L},
                                                               {"h", 3600.0L},
                                                               {"d", 86400.0L},
                                                               {"y", 365 * 86400.0L}};
    const long double value = std::strtold(m[1].str().c_str(), nullptr) * seconds.at(m[3].str());
    ROCE_ERROR_IF(!(value < static_cast<long double>(Time::Max().GetSeconds())),
                  "--" << flag << "=" << text << " is too long: a time is at most "
                       << Time::Max().GetSeconds() << " s");
    return Time(WithoutBlanks(text));
}

Time
RoceCli::ParsePositiveTime(const std::string& flag, const std::string& text)
{
    Time t = ParseTime(flag, text);
    ROCE_ERROR_IF(!t.IsStrictlyPositive(), "--" << flag << "=" << text << " must be positive");
    return t;
}

uint64_t
RoceCli::ParseBytes(const std::string& flag, const std::string& text)
{
    static const std::regex form(
        R"(\s*([0-9]*\.?[0-9]+(?:[eE]\+?[0-9]{1,2})?)\s*(B|kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB|K|M|G|T)?\s*)");
    std::smatch m;
    ROCE_ERROR_IF(text.size() > MAX_VALUE_TEXT || !std::regex_match(text, m, form),
                  "--" << flag << "=" << Shown(text)
                       << " is not a byte count (e.g. 1000000 or 1MB)");
    const std::string unit = m[2].str();
    long double scale = 1;
    if (!unit.empty() && unit != "B")
    {
        // KiB and nccl-tests' bare K, M, G, T are powers of 1024.
        const bool binary = unit.size() == 3 || unit.size() == 1;
        const std::string prefixes = "KMGT";
        const auto power = prefixes.find(static_cast<char>(std::toupper(unit[0]))) + 1;
        scale = std::pow(binary ? 1024.0L : 1000.0L, static_cast<long double>(power));
    }
    // strtold, not stold: thousands of digits are a count too large below,
    // not a std::out_of_range.
    const long double bytes = std::strtold(m[1].str().c_str(), nullptr) * scale;
    ROCE_ERROR_IF(bytes != std::floor(bytes) || bytes >= 9.2e18L,
                  "--" << flag << "=" << text << " is not a whole number of bytes below 2^63");
    ROCE_ERROR_IF(bytes == 0, "--" << flag << "=" << text << " must be positive");
    return static_cast<uint64_t>(bytes);
}

std::string
RoceCli::FindDataFile(const std::string& path)
{
    if (path.empty() || path[0] == '/' || std::ifstream(path).good())
    {
        return path;
    }
    std::string up;
    for (int i = 0; i < 6; ++i)
    {
        for (const std::string& dir : {up, up + "contrib/rocev2/"})
        {
            if (std::ifstream(dir + path).good())
            {
                return dir + path;
            }
        }
        up += "../";
    }
    return path;
}

RoceCcHelper
RoceCli::MakeCongestionControl(const std::string& cc,
                               const std::string& preset,
                               const std::string& unsetPreset)
{
    ROCE_ERROR_IF(!cc.empty() && !preset.empty() &&
                      RoceCongestionOps::LookupByName(cc) !=
                          TypeId::LookupByName("ns3::RoceCcDcqcn"),
                  "--dcqcn-preset=" << preset << " needs --cc=dcqcn, not --cc=" << cc);
    if (cc.empty())
    {
        if (preset.empty())
        {
            return unsetPreset.empty() ? RoceCcHelper("none") : RoceCcHelper("dcqcn", unsetPreset);
        }
        return RoceCcHelper("dcqcn", preset);
    }
    return RoceCcHelper(cc, preset);
}

namespace
{
/** \return true if NS_GLOBAL_VALUE ("name=value;name=value") names RngRun */
bool
EnvironmentSetsRngRun()
{
    const char* env = std::getenv("NS_GLOBAL_VALUE");
    if (env == nullptr)
    {
        return false;
    }
    std::istringstream in(env);
    std::string item;
    while (std::getline(in, item, ';'))
    {
        if (item.substr(0, item.find('=')) == "RngRun")
        {
            return true;
        }
    }
    return false;
}
} // namespace

void
RoceCli::UseFastScheduler()
{
    // The user's choice in NS_GLOBAL_VALUE stands; the command line's is
    // applied by Parse, after this.
    const char* env = std::getenv("NS_GLOBAL_VALUE");
    const std::string given = env != nullptr ? env : "";
    if (given.find("SchedulerType") == std::string::npos)
    {
        GlobalValue::Bind("SchedulerType", StringValue("ns3::RoceHeapScheduler"));
    }
    if (given.find("SimulatorImplementationType") == std::string::npos)
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RoceSimulatorImpl"));
    }
}

namespace
{
/** The fidelity ApplyFidelity applied last. */
std::string g_fidelity = "packet";
} // namespace

const std::string&
RoceCli::GetFidelity()
{
    return g_fidelity;
}

Ptr<RoceFlowEngine>
RoceCli::ApplyFidelity(const std::string& fidelity, bool bitErrors)
{
    ROCE_ERROR_IF(fidelity != "packet" && fidelity != "flow",
                  "--fidelity=" << Shown(fidelity) << " (must be packet or flow)");
    g_fidelity = fidelity;
    if (fidelity == "packet")
    {
        return nullptr;
    }
    ROCE_ERROR_IF(bitErrors,
                  "--fidelity=flow with bit errors: flow level has no frames to lose (use "
                  "--fidelity=packet)");
    return RoceFlowEngine::Install();
}

void
RoceCli::LoadFaults(RoceFaultHelper& faults, const std::string& file)
{
    if (file.empty())
    {
        return;
    }
    const std::string path = FindDataFile(file);
    ROCE_ERROR_IF(!std::ifstream(path).good(), "--faults=" << file << " cannot be read");
    faults.Load(path);
}

void
RoceCli::PrintFaults(const RoceFaultHelper& faults, std::ostream& os)
{
    for (const auto& line : faults.GetLog())
    {
        os << "# fault " << line << "\n";
    }
}

void
RoceCli::CheckAttributeFlags(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const std::size_t eq = arg.find('=');
        const std::string name = arg.substr(0, eq);
        const std::size_t sep = name.rfind("::");
        if (name.rfind("--", 0) != 0 || sep == std::string::npos || eq == std::string::npos)
        {
            continue;
        }
        const std::string type = name.substr(2, sep - 2);
        const std::string attribute = name.substr(sep + 2);
        TypeId tid;
        ROCE_ERROR_IF(!TypeId::LookupByNameFailSafe(type, &tid),
                      arg << ": no type " << type
                          << (TypeId::LookupByNameFailSafe("ns3::" + type, &tid)
                                  ? " (write --ns3::" + type + "::" + attribute + ")"
                                  : std::string(" (attribute flags are --ns3::TYPE::NAME=VALUE)")));
        ObjectFactory factory;
        factory.SetTypeId(tid);
        try
        {
            RoceSetFactoryAttribute(factory, attribute, StringValue(arg.substr(eq + 1)));
        }
        catch (const RoceError& e)
        {
            ROCE_ERROR(arg << ": " << e.what());
        }
    }
}

RoceInvariantReport
RoceCli::CheckInvariants(bool faults, std::ostream& os)
{
    RoceInvariantReport report = RoceInvariants::Check(faults);
    os << "# ";
    report.Print(os);
    RoceInvariants::AssertOk(report);
    return report;
}

void
RoceCli::CloseJson(std::ostream& os, const RoceInvariantReport& report)
{
    os << ",\n  \"fidelity\": \"" << GetFidelity() << "\",\n";
    report.WriteJsonMember(os, 2);
    os << "\n}\n";
}

void
RoceCli::WriteJson(const std::string& path,
                   const std::function<void(std::ostream&)>& write,
                   const RoceInvariantReport& report)
{
    std::ostringstream body;
    write(body);
    std::string text = body.str();
    const std::size_t end = text.find_last_of('}');
    ROCE_ERROR_IF(end == std::string::npos, "--json=" << path << ": the output is not an object");
    text.erase(end);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    {
        text.pop_back();
    }
    std::ofstream out(path);
    ROCE_ERROR_IF(!out, "cannot write --json=" << path);
    out << text;
    CloseJson(out, report);
}

std::vector<uint32_t>
RoceCli::PlaceJob(RoceGpuPlacement& place,
                  const RoceAiZone& fabric,
                  const std::string& placement,
                  uint32_t gpus)
{
    if (placement == "contiguous")
    {
        return place.Contiguous(gpus);
    }
    if (placement == "fragmented")
    {
        return place.Fragmented(gpus, fabric.GetNicsPerRack() / 2);
    }
    ROCE_ERROR_IF(placement != "random",
                  "--placement=" << placement << " is unknown (contiguous, fragmented or random)");
    return place.Random(gpus, 1);
}

RoceCommandLine::RoceCommandLine(const std::string& file)
    : m_cmd(file)
{
    RoceCli::InstallErrorExit();
}

void
RoceCommandLine::Usage(const std::string& usage)
{
    m_cmd.Usage(usage);
}

void
RoceCommandLine::AddRate(std::string& rate)
{
    m_cmd.AddValue("rate",
                   "Rate of the host links (of every link where there is no --fabric-rate)",
                   rate);
}

void
RoceCommandLine::AddDelay(std::string& delay)
{
    m_cmd.AddValue("delay", "Propagation delay of every link (e.g. 1us)", delay);
}

void
RoceCommandLine::AddMtu(uint32_t& mtu)
{
    m_cmd.AddValue("mtu", "RoCE payload MTU in bytes", mtu);
}

void
RoceCommandLine::AddCongestionControl(std::string& cc, std::string& preset)
{
    m_cmd.AddValue("cc",
                   "Congestion control of every NIC, with the switch marking it works with: "
                   "none (PFC only; also when neither --cc nor --dcqcn-preset is given), dcqcn "
                   "(the nvidia-cx preset unless "
                   "--dcqcn-preset names one), hpcc, timely, dctcp (step marking at 30 KB per "
                   "100 Gb/s)",
                   cc);
    m_cmd.AddValue("dcqcn-preset",
                   "DCQCN parameter set with its switch ECN marking: paper-2015, nvidia-cx, "
                   "hpcc-sim (implies --cc=dcqcn)",
                   preset);
}

void
RoceCommandLine::AddSeed(uint32_t& seed)
{
    m_seed = &seed;
    m_cmd.AddValue("seed",
                   "Run number (ns-3's RngRun, for which it stands): ECMP seeds, ECN marking, "
                   "placement, workloads",
                   seed);
}

void
RoceCommandLine::AddFaults(std::string& faults)
{
    m_cmd.AddValue("faults",
                   "Fault file: link-down/up/flap, switch-down/up, link-loss, slow-receiver, "
                   "pfc-storm (doc: Faults)",
                   faults);
}

void
RoceCommandLine::AddMonitor(std::string& prefix, std::string& sample)
{
    m_cmd.AddValue("monitor",
                   "Write the fabric monitors as CSV files PREFIX-{pfc,queue,link,cnp}.csv",
                   prefix);
    m_cmd.AddValue("sample", "Sampling interval of --monitor's queue and link samples", sample);
}

void
RoceCommandLine::AddJson(std::string& json)
{
    m_cmd.AddValue("json", "Write the results as JSON to this file", json);
}

void
RoceCommandLine::AddQuiet(bool& quiet)
{
    m_cmd.AddValue("quiet", "No progress line on stderr and no warning before a large run", quiet);
}

void
RoceCommandLine::AddFidelity(std::string& fidelity)
{
    m_cmd.AddValue("fidelity",
                   "packet (frames, PFC, congestion control) or flow (every message a fluid "
                   "flow at max-min fair rates on its packets' path)",
                   fidelity);
}

void
RoceCommandLine::AddSize(std::string& size)
{
    m_cmd.AddValue("size", "Bytes of each message a sender writes (e.g. 1000000, 1MB, 4MiB)", size);
}

void
RoceCommandLine::AddGpus(uint32_t& gpus)
{
    m_cmd.AddValue("gpus",
                   "GPUs: the job's where the program also takes --fabric-gpus, else the "
                   "fabric's",
                   gpus);
}

void
RoceCommandLine::AddUplinks(uint32_t& uplinks)
{
    m_cmd.AddValue("uplinks",
                   "Uplinks per RTSW (16: non-blocking; fewer oversubscribe the racks)",
                   uplinks);
}

void
RoceCommandLine::AddChannels(uint32_t& channels)
{
    m_cmd.AddValue("channels", "Channels (rings) of every collective", channels);
}

void
RoceCommandLine::AddGeneratedFlows(std::string& cdf, double& load, std::string& duration)
{
    m_cmd.AddValue("cdf", "Flow-size CDF file of the generated (Poisson) flows", cdf);
    m_cmd.AddValue("load",
                   "Offered load of the generated flows per host, a share of its link rate "
                   "(0..1)",
                   load);
    m_cmd.AddValue("duration", "How long the generated flows arrive (e.g. 1ms)", duration);
}

void
RoceCommandLine::Parse(int argc, char** argv)
{
    RoceCli::CheckAttributeFlags(argc, argv);
    bool seedGiven = false;
    bool runGiven = false;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        seedGiven = seedGiven || arg.rfind("--seed=", 0) == 0 || arg == "--seed";
        runGiven = runGiven || arg.rfind("--RngRun=", 0) == 0;
    }
    m_cmd.Parse(argc, argv);
    // ns-3.37's HeapScheduler can run events out of time order after a
    // Simulator::Remove, which the module's timers use: refuse it.
    StringValue scheduler;
    GlobalValue::GetValueByName("SchedulerType", scheduler);
    ROCE_ERROR_IF(scheduler.Get() == "ns3::HeapScheduler",
                  "--SchedulerType=ns3::HeapScheduler can run events out of time order after "
                  "Simulator::Remove, which this module's timers use: choose "
                  "ns3::RoceHeapScheduler (the examples' default), ns3::PriorityQueueScheduler, "
                  "ns3::MapScheduler, ns3::ListScheduler or ns3::CalendarScheduler");
    if (!m_seed)
    {
        return;
    }
    ROCE_ERROR_IF(seedGiven && runGiven,
                  "--seed and --RngRun both set the run number: give one of them");
    // ns-3 also takes the run from NS_GLOBAL_VALUE="...;RngRun=N;...".
    const bool envRun = !runGiven && EnvironmentSetsRngRun();
    ROCE_ERROR_IF(seedGiven && envRun,
                  "--seed and RngRun in NS_GLOBAL_VALUE both set the run number: give one "
                  "of them");
    if (runGiven || envRun)
    {
        // --RngRun (or the environment's) alone: the run ns-3 was given,
        // reported as the seed.
        ROCE_ERROR_IF(RngSeedManager::GetRun() > UINT32_MAX,
                      "RngRun=" << RngSeedManager::GetRun() << " exceeds 2^32 - 1");
        *m_seed = static_cast<uint32_t>(RngSeedManager::GetRun());
    }
    ROCE_ERROR_IF(*m_seed == 0, "--seed=0 (must be at least 1)");
    RngSeedManager::SetRun(*m_seed);
}

} // namespace ns3
