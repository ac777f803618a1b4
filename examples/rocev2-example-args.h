/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Command-line values of the rocev2 examples: rates, times and byte counts
 * are read as strings and checked here, so that a bad value exits with a
 * message that names the flag ("--rate=-5Gbps is not a data rate (e.g.
 * 100Gbps)") instead of ns-3's generic "Invalid value for attribute set", or
 * a silently wrapped-around unsigned number.
 */
#ifndef ROCEV2_EXAMPLE_ARGS_H
#define ROCEV2_EXAMPLE_ARGS_H

#include "ns3/abort.h"
#include "ns3/attribute.h"
#include "ns3/data-rate.h"
#include "ns3/global-value.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/queue-size.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-error.h"
#include "ns3/roce-fault-helper.h"
#include "ns3/roce-gpu-placement.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-invariants.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/string.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{
namespace RoceExampleArgs
{

/**
 * \brief The terminate handler of the examples: a RoceError that nothing
 * caught (a bad flag, a malformed input file, a value the module refuses)
 * prints one line, "PROGRAM: error: MESSAGE", and exits with status 2, as
 * a command-line tool does on a usage error. Anything else ends as it would
 * have (the previous handler: the message and an abort).
 */
/** \return the terminate handler before ExitOnRoceError's */
inline std::terminate_handler&
PreviousTerminateHandler()
{
    static std::terminate_handler previous = nullptr;
    return previous;
}

[[noreturn]] inline void
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

/** Installs ExitOnRoceError when an example starts (before main). */
struct ExitOnRoceErrorInstaller
{
    ExitOnRoceErrorInstaller()
    {
        PreviousTerminateHandler() = std::set_terminate([]() { ExitOnRoceError(); });
    }
};

/** The one installer (an inline variable: one per program). */
inline ExitOnRoceErrorInstaller g_exitOnRoceError;

/**
 * \param text a value that the form of a rate or a time matched
 * \return it without its blanks: ns-3 parses " 100 Gbps " as "100" followed
 *         by text it aborts on, and "100Gbps" as meant
 */
/**
 * The longest value the parsers read: std::regex backtracks, taking time
 * quadratic in a value that fails late, and stack depth linear in its length
 * (a stack overflow at some 10^5 characters).
 */
constexpr size_t MAX_VALUE_TEXT = 64;

/** \return a value as an error message shows it: its first 37 characters and "..." if long */
inline std::string
Shown(const std::string& text)
{
    return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

inline std::string
WithoutBlanks(const std::string& text)
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

/**
 * \param flag the option's name, without "--" \param text its value, e.g. "100Gbps"
 * \return the rate, which may be 0; exits with a message naming the option
 *         unless text is a data rate with a unit and no sign
 */
inline DataRate
ParseRateOrZero(const std::string& flag, const std::string& text)
{
    static const std::regex form(R"(\s*[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?\s*[A-Za-z/]+\s*)");
    DataRateValue value;
    ROCE_ERROR_IF(text.size() > MAX_VALUE_TEXT || !std::regex_match(text, form) ||
                      !value.DeserializeFromString(WithoutBlanks(text), MakeDataRateChecker()),
                  "--" << flag << "=" << Shown(text) << " is not a data rate (e.g. 100Gbps)");
    return value.Get();
}

/**
 * \param flag the option's name, without "--" \param text its value, e.g. "100Gbps"
 * \return the rate; exits with a message naming the option unless it is a
 *         data rate above 0
 */
inline DataRate
ParseRate(const std::string& flag, const std::string& text)
{
    DataRate rate = ParseRateOrZero(flag, text);
    ROCE_ERROR_IF(rate.GetBitRate() == 0, "--" << flag << "=" << text << " must be positive");
    return rate;
}

/**
 * \param flag the option's name, without "--" \param text its value, e.g. "10us"
 * \return the time, which may be 0; exits with a message naming the option
 *         unless text is a time with a unit and no sign
 */
inline Time
ParseTime(const std::string& flag, const std::string& text)
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

/**
 * \param flag the option's name, without "--" \param text its value, e.g. "10us"
 * \return the time; exits with a message naming the option unless it is a
 *         time above 0
 */
inline Time
ParsePositiveTime(const std::string& flag, const std::string& text)
{
    Time t = ParseTime(flag, text);
    ROCE_ERROR_IF(!t.IsStrictlyPositive(), "--" << flag << "=" << text << " must be positive");
    return t;
}

/**
 * \param flag the option's name, without "--"
 * \param text its value: a whole number of bytes, optionally in scientific
 *        notation or with a unit: "1000000", "1e6", "1MB" (SI), "4MiB", "4M"
 *        (binary, as nccl-tests reads sizes)
 * \return the byte count; exits with a message naming the option unless it is
 *         a whole number of bytes above 0 (and below 2^63)
 */
inline uint64_t
ParseBytes(const std::string& flag, const std::string& text)
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

/**
 * \brief Find an input file the way users and the test runners give it: as
 * given when it exists from the working directory (or is absolute), else the
 * first of ../path, ../contrib/rocev2/path, ../../path, ... that exists, so
 * that repository paths such as data/cdf/websearch.txt work from the build
 * folder (ctest) and from an ns-3 tree (test.py).
 * \param path a file name
 * \return the path to open (path itself if none exists, so the reader's error names it)
 */
inline std::string
FindDataFile(const std::string& path)
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

/**
 * \brief Select the congestion control of every NIC installed from now on,
 * and the switch ECN marking it works with: a DCQCN preset's published
 * marking; for DCTCP, step marking at K = 30 KB per 100 Gb/s, scaled with
 * each port's rate (DCTCP needs K > C x RTT / 7, Alizadeh et al.; C x RTT is
 * 54 KB at 100 Gb/s over 1 us links, and the default RED thresholds, 400 KB
 * at 100 Gb/s, would hardly ever mark); the others keep the default marking.
 * \param roce the NIC helper \param switches the switch helper (before Install)
 * \param cc none, dcqcn, hpcc, timely or dctcp \param preset a DCQCN preset or ""
 */
inline void
SelectCongestionControl(RoceHelper& roce,
                        RoceSwitchHelper& switches,
                        const std::string& cc,
                        const std::string& preset)
{
    if (!preset.empty())
    {
        roce.SetDcqcnPreset(preset);
        switches.SetEcnForDcqcnPreset(preset);
        return;
    }
    roce.SetCongestionControl(cc);
    if (cc == "dctcp")
    {
        switches.SetEcnStepMarking(QueueSize("30KB"), DataRate("100Gbps"));
    }
}

/**
 * \brief Make ns-3's event scheduler ns3::PriorityQueueScheduler unless the
 * user chose one: a binary heap in one vector, O(log n) like the default
 * ns3::MapScheduler's tree but with no node allocation per event. It runs
 * about 3 % fewer instructions than the map on the bench's incasts, qp-scale
 * and web-search fat-tree, and ties on a 2-tier AllReduce (bench/README.md,
 * "Event scheduler"). Call it first in main, before CommandLine::Parse and
 * before anything touches the Simulator: Parse then applies a user's
 * --SchedulerType after this (the user has the last word), and the
 * Simulator reads the value once, when it is first used. NS_GLOBAL_VALUE
 * naming SchedulerType is also left alone. Schedulers run events of equal
 * time in the order they were scheduled, so results do not change; but
 * ns-3.37's ns3::HeapScheduler can run events out of time order after a
 * Simulator::Remove, which this module uses: do not choose it.
 */
inline void
UseFastScheduler()
{
    const char* env = std::getenv("NS_GLOBAL_VALUE");
    if (env != nullptr && std::string(env).find("SchedulerType") != std::string::npos)
    {
        return;
    }
    GlobalValue::Bind("SchedulerType", StringValue("ns3::PriorityQueueScheduler"));
}

/**
 * \brief Schedule the faults of --faults=FILE (none if file is empty), found
 * as FindDataFile finds it. The file's format is in roce-fault-helper.h (RoceFaultHelper::Load); a
 * bad line aborts with file:line and the field. \param faults the fault helper (with the topology's
 * names added) \param file the file
 */
inline void
LoadFaults(RoceFaultHelper& faults, const std::string& file)
{
    if (file.empty())
    {
        return;
    }
    const std::string path = FindDataFile(file);
    ROCE_ERROR_IF(!std::ifstream(path).good(), "--faults=" << file << " cannot be read");
    faults.Load(path);
}

/**
 * \brief Print the faults applied, one "# fault TIME WHAT" line each.
 * \param faults the fault helper \param os where
 */
inline void
PrintFaults(const RoceFaultHelper& faults, std::ostream& os)
{
    for (const auto& line : faults.GetLog())
    {
        os << "# fault " << line << "\n";
    }
}

/**
 * \brief Check the attribute flags of a command line (--ns3::Type::Name=VALUE)
 * before ns-3's CommandLine applies them: an unknown
 * type or attribute, or a value the attribute does not take, is a RoceError
 * naming the flag (ns-3 itself would abort). The example's own flags and
 * global values (no "::" in the name) are left to CommandLine.
 * \param argc argument count \param argv arguments
 */
inline void
CheckAttributeFlags(int argc, char** argv)
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

/**
 * \brief Check the end-of-run invariants (RoceInvariants) after
 * Simulator::Run: print "# invariants: ..." and, in debug builds, abort if
 * one is broken.
 * \param faults true if the run injected faults (a fault file, bit errors)
 * \param os where to print
 * \return the report, for the JSON output
 */
inline RoceInvariantReport
CheckInvariants(bool faults, std::ostream& os)
{
    RoceInvariantReport report = RoceInvariants::Check(faults);
    os << "# ";
    report.Print(os);
    RoceInvariants::AssertOk(report);
    return report;
}

/**
 * \brief End a JSON object an example wrote member by member: the
 * "invariants" member, then the closing brace.
 * \param os the stream, after the last member (no comma written)
 * \param report the invariants
 */
inline void
CloseJson(std::ostream& os, const RoceInvariantReport& report)
{
    os << ",\n";
    report.WriteJsonMember(os, 2);
    os << "\n}\n";
}

/**
 * \brief Write a JSON file whose object a library writer produces, with the
 * "invariants" member added last.
 * \param path the file (the --json flag's value)
 * \param write writes one JSON object
 * \param report the invariants
 */
inline void
WriteJson(const std::string& path,
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

/**
 * \brief Set the congestion control of an AI Zone's NICs as --cc names it:
 * dcqcn takes the nvidia-cx DCQCN preset and its switch ECN marking, the
 * others (none, hpcc, timely, dctcp) their defaults.
 * \param zone the zone helper \param cc the name
 */
inline void
SetZoneCongestionControl(RoceAiZoneHelper& zone, const std::string& cc)
{
    if (cc == "dcqcn")
    {
        zone.GetRoceHelper().SetDcqcnPreset("nvidia-cx");
        zone.SetEcnForDcqcnPreset("nvidia-cx");
    }
    else
    {
        zone.GetRoceHelper().SetCongestionControl(cc);
    }
}

/**
 * \brief Place a job as --placement names it (and mark its GPUs taken).
 * \param place the fabric's placement \param fabric the fabric
 * \param placement contiguous, fragmented (half a rack's NICs per rack) or
 *        random (exits naming the flag otherwise)
 * \param gpus the job's ranks
 * \return its GPUs, in rank order
 */
inline std::vector<uint32_t>
PlaceJob(RoceGpuPlacement& place,
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

} // namespace RoceExampleArgs
} // namespace ns3

#endif // ROCEV2_EXAMPLE_ARGS_H
