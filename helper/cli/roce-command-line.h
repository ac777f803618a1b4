/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The command line of rocev2 programs (RoceCommandLine) and the checked
 * reading of its values (RoceCli): rates, times and byte counts are read as
 * strings and checked here, so that a bad value exits with a message that
 * names the flag ("--rate=-5Gbps is not a data rate (e.g. 100Gbps)") instead
 * of ns-3's generic "Invalid value for attribute set", or a silently
 * wrapped-around unsigned number.
 */
#ifndef ROCE_COMMAND_LINE_H
#define ROCE_COMMAND_LINE_H

#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-invariants.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class RoceAiZone;
class RoceFaultHelper;
class RoceFlowEngine;
class RoceGpuPlacement;

namespace RoceCli
{

/**
 * \brief Make an uncaught RoceError (a bad flag, a malformed input file, a
 * value the module refuses) print one line, "PROGRAM: error: MESSAGE", and
 * exit with status 2, as a command-line tool does on a usage error. Anything
 * else ends as it would have (the previous terminate handler). The
 * RoceCommandLine constructor calls it; calling it again does nothing.
 */
void InstallErrorExit();

/**
 * The longest value the parsers read: std::regex backtracks, taking time
 * quadratic in a value that fails late, and stack depth linear in its length
 * (a stack overflow at some 10^5 characters).
 */
constexpr size_t MAX_VALUE_TEXT = 64;

/** \return a value as an error message shows it: its first 37 characters and "..." if long */
std::string Shown(const std::string& text);

/**
 * \param text a value that the form of a rate or a time matched
 * \return it without its blanks: ns-3 parses " 100 Gbps " as "100" followed
 *         by text it aborts on, and "100Gbps" as meant
 */
std::string WithoutBlanks(const std::string& text);

/**
 * \param flag the option's name, without "--" \param text its value, e.g. "100Gbps"
 * \return the rate, which may be 0; exits with a message naming the option
 *         unless text is a data rate with a unit and no sign
 */
DataRate ParseRateOrZero(const std::string& flag, const std::string& text);

/**
 * \param flag the option's name, without "--" \param text its value, e.g. "100Gbps"
 * \return the rate; exits with a message naming the option unless it is a
 *         data rate above 0
 */
DataRate ParseRate(const std::string& flag, const std::string& text);

/**
 * \param flag the option's name, without "--" \param text its value, e.g. "10us"
 * \return the time, which may be 0; exits with a message naming the option
 *         unless text is a time with a unit and no sign
 */
Time ParseTime(const std::string& flag, const std::string& text);

/**
 * \param flag the option's name, without "--" \param text its value, e.g. "10us"
 * \return the time; exits with a message naming the option unless it is a
 *         time above 0
 */
Time ParsePositiveTime(const std::string& flag, const std::string& text);

/**
 * \param flag the option's name, without "--"
 * \param text its value: a whole number of bytes, optionally in scientific
 *        notation or with a unit: "1000000", "1e6", "1MB" (SI), "4MiB", "4M"
 *        (binary, as nccl-tests reads sizes)
 * \return the byte count; exits with a message naming the option unless it is
 *         a whole number of bytes above 0 (and below 2^63)
 */
uint64_t ParseBytes(const std::string& flag, const std::string& text);

/**
 * \brief Find an input file the way users and the test runners give it: as
 * given when it exists from the working directory (or is absolute), else the
 * first of ../path, ../contrib/rocev2/path, ../../path, ... that exists, so
 * that repository paths such as data/cdf/websearch.txt work from the build
 * folder (ctest) and from an ns-3 tree (test.py).
 * \param path a file name
 * \return the path to open (path itself if none exists, so the reader's error names it)
 */
std::string FindDataFile(const std::string& path);

/**
 * \brief The congestion-control choice of --cc and --dcqcn-preset.
 * \param cc the --cc value: none, dcqcn, hpcc, timely, dctcp; "" when not
 *        given (none, or dcqcn when a preset is named)
 * \param preset the --dcqcn-preset value, "" when not given
 * \param unsetPreset with neither flag given: DCQCN with this preset instead
 *        of none ("" for none; rocev2-hpcc-compat gives the lineage's own)
 * \return the choice; a RoceError naming the flags for a preset with another
 *         algorithm or an unknown name
 */
RoceCcHelper MakeCongestionControl(const std::string& cc,
                                   const std::string& preset,
                                   const std::string& unsetPreset = "");

/**
 * \brief Make the event scheduler ns3::RoceHeapScheduler and the simulator
 * ns3::RoceSimulatorImpl unless the user chose them. The scheduler: ns-3's
 * event order in a 4-ary heap with one cache line of keys per level and a
 * lazy Simulator::Remove (ns3::PriorityQueueScheduler's is O(n),
 * ns3::MapScheduler allocates a tree node per event; bench/README.md,
 * "Event scheduler"). The simulator: ns3::DefaultSimulatorImpl's rules
 * without its per-event logging checks, with a direct path for the
 * module's events. Call it first in main, before CommandLine::Parse and
 * before anything touches the Simulator: Parse then applies a user's
 * --SchedulerType or --SimulatorImplementationType after this (the user
 * has the last word), and the Simulator reads the values once, when it is
 * first used. NS_GLOBAL_VALUE naming either is also left alone, and an MPI
 * run (RoceMpiHelper::Enable, after this) selects its own simulator. Schedulers run events of equal
 * time in the order they were scheduled, so results do not change; but
 * ns-3.37's ns3::HeapScheduler can run events out of time order after a
 * Simulator::Remove, which this module uses: do not choose it.
 */
void UseFastScheduler();

/**
 * \brief Schedule the faults of --faults=FILE (none if file is empty), found
 * as FindDataFile finds it. The file's format is in roce-fault-helper.h (RoceFaultHelper::Load); a
 * bad line aborts with file:line and the field. \param faults the fault helper (with the topology's
 * names added) \param file the file
 */
void LoadFaults(RoceFaultHelper& faults, const std::string& file);

/**
 * \brief Apply --fidelity: at "flow", a RoceFlowEngine carries every
 * queue pair's messages (call it once the fabric is built, before the
 * simulation runs); at "packet" nothing changes.
 * \param fidelity the --fidelity value: packet or flow (a RoceError naming
 *        the flag otherwise)
 * \param bitErrors true if the run has bit errors on its links (an HPCC
 *        config's ERROR_RATE_PER_LINK): refused at flow level. Faults of a
 *        fault file are checked by RoceFaultHelper: links and switches going
 *        down and up run at flow level, loss, slow receivers and PFC storms
 *        are refused.
 * \return the engine at flow level, null at packet level
 */
Ptr<RoceFlowEngine> ApplyFidelity(const std::string& fidelity, bool bitErrors = false);

/** \return the fidelity ApplyFidelity applied last: "packet" until it is called */
const std::string& GetFidelity();

/**
 * \brief Print the faults applied, one "# fault TIME WHAT" line each.
 * \param faults the fault helper \param os where
 */
void PrintFaults(const RoceFaultHelper& faults, std::ostream& os);

/**
 * \brief Check the attribute flags of a command line (--ns3::Type::Name=VALUE)
 * before ns-3's CommandLine applies them: an unknown
 * type or attribute, or a value the attribute does not take, is a RoceError
 * naming the flag (ns-3 itself would abort). The example's own flags and
 * global values (no "::" in the name) are left to CommandLine.
 * \param argc argument count \param argv arguments
 */
void CheckAttributeFlags(int argc, char** argv);

/**
 * \brief Check the end-of-run invariants (RoceInvariants) after
 * Simulator::Run: print "# invariants: ..." and, in debug builds, abort if
 * one is broken.
 * \param faults true if the run injected faults (a fault file, bit errors)
 * \param os where to print
 * \return the report, for the JSON output
 */
RoceInvariantReport CheckInvariants(bool faults, std::ostream& os);

/**
 * \brief End a JSON object an example wrote member by member: the
 * "fidelity" member (GetFidelity), the "invariants" member, then the
 * closing brace.
 * \param os the stream, after the last member (no comma written)
 * \param report the invariants
 */
void CloseJson(std::ostream& os, const RoceInvariantReport& report);

/**
 * \brief Write a JSON file whose object a library writer produces, with the
 * "invariants" member added last.
 * \param path the file (the --json flag's value)
 * \param write writes one JSON object
 * \param report the invariants
 */
void WriteJson(const std::string& path,
               const std::function<void(std::ostream&)>& write,
               const RoceInvariantReport& report);

/**
 * \brief Place a job as --placement names it (and mark its GPUs taken).
 * \param place the fabric's placement \param fabric the fabric
 * \param placement contiguous, fragmented (half a rack's NICs per rack) or
 *        random (exits naming the flag otherwise)
 * \param gpus the job's ranks
 * \return its GPUs, in rank order
 */
std::vector<uint32_t> PlaceJob(RoceGpuPlacement& place,
                               const RoceAiZone& fabric,
                               const std::string& placement,
                               uint32_t gpus);

} // namespace RoceCli

/**
 * \ingroup rocev2
 * \brief The command line of a rocev2 program: ns-3's CommandLine with the
 * flags that fabric programs share declared once, each with one name, one
 * meaning and one help text. A program adds the shared flags it takes and
 * its own with AddValue, then calls Parse, which first checks attribute
 * flags (--ns3::Type::Name=VALUE) with a RoceError naming the flag, and
 * applies --seed (RngRun).
 *
 * | flag           | meaning                                                     |
 * |----------------|-------------------------------------------------------------|
 * | --rate         | the rate of the host links (of all, without --fabric-rate)  |
 * | --delay        | the propagation delay of every host link                    |
 * | --mtu          | RoCE payload MTU in bytes                                   |
 * | --cc           | congestion control: none, dcqcn, hpcc, timely, dctcp        |
 * | --dcqcn-preset | DCQCN's parameter set and switch marking (implies dcqcn)    |
 * | --seed         | run number (ns-3's RngRun): ECMP seeds, marking, placement  |
 * | --faults       | a fault file (doc: Faults)                                  |
 * | --monitor      | CSV prefix of the fabric monitors; --sample their interval  |
 * | --json         | the results as JSON                                         |
 * | --quiet        | no progress line on stderr, no warning before a large run   |
 * | --fidelity     | packet (frames, PFC, CC) or flow (max-min fluid flows)      |
 * | --size         | bytes of each message a sender writes                       |
 * | --gpus         | the job's GPUs (with --fabric-gpus), else the fabric's      |
 * | --uplinks      | uplinks per RTSW (16: non-blocking)                         |
 * | --channels     | channels (rings) of every collective                        |
 * | --cdf, --load, --duration | the generated flows: sizes, load per host, span  |
 */
class RoceCommandLine
{
  public:
    /** \param file the program's source file (__FILE__), for its name in --help */
    explicit RoceCommandLine(const std::string& file);

    /**
     * \brief Add a flag of this program only (CommandLine::AddValue).
     * \param name the flag, without "--" \param help its help text
     * \param value where its value goes; its value now is the default
     */
    template <typename T>
    void AddValue(const std::string& name, const std::string& help, T& value)
    {
        m_cmd.AddValue(name, help, value);
    }

    /**
     * \brief Set the text --help prints before the flags.
     * \param usage the text
     */
    void Usage(const std::string& usage);

    /** \param rate the --rate value (its default now) */
    void AddRate(std::string& rate);
    /** \param delay the --delay value (its default now) */
    void AddDelay(std::string& delay);
    /** \param mtu the --mtu value (its default now) */
    void AddMtu(uint32_t& mtu);
    /**
     * \param cc the --cc value; "" means none, or dcqcn with a preset
     * \param preset the --dcqcn-preset value
     * Read them with RoceCli::MakeCongestionControl after Parse.
     */
    void AddCongestionControl(std::string& cc, std::string& preset);
    /**
     * \param seed the --seed value (at least 1; its default now): Parse makes
     *        it ns-3's run number (RngRun); --RngRun=N alone, or RngRun=N in
     *        NS_GLOBAL_VALUE, sets it to N
     */
    void AddSeed(uint32_t& seed);
    /** \param faults the --faults file */
    void AddFaults(std::string& faults);
    /** \param prefix the --monitor prefix \param sample the --sample interval */
    void AddMonitor(std::string& prefix, std::string& sample);
    /** \param json the --json file */
    void AddJson(std::string& json);
    /** \param quiet the --quiet switch */
    void AddQuiet(bool& quiet);
    /**
     * \param fidelity the --fidelity value: packet or flow (read it with
     *        RoceCli::ApplyFidelity after Parse)
     */
    void AddFidelity(std::string& fidelity);
    /** \param size the --size value: bytes of each message a sender writes */
    void AddSize(std::string& size);
    /**
     * \param gpus the --gpus value: the job's GPUs where the program also
     *        takes --fabric-gpus, else the fabric's
     */
    void AddGpus(uint32_t& gpus);
    /** \param uplinks the --uplinks value: uplinks per RTSW */
    void AddUplinks(uint32_t& uplinks);
    /** \param channels the --channels value: channels (rings) of every collective */
    void AddChannels(uint32_t& channels);
    /**
     * \brief The generated (Poisson) flows: --cdf, --load and --duration.
     * \param cdf the flow-size CDF file \param load the offered load per host,
     *        a share of its link rate \param duration how long flows arrive
     */
    void AddGeneratedFlows(std::string& cdf, double& load, std::string& duration);

    /**
     * \brief Check the attribute flags (RoceCli::CheckAttributeFlags), parse
     * the command line, and apply --seed when given.
     * \param argc argument count \param argv arguments
     */
    void Parse(int argc, char** argv);

  private:
    CommandLine m_cmd;         //!< ns-3's command line
    uint32_t* m_seed{nullptr}; //!< --seed's value, if the program takes it
};
} // namespace ns3

#endif // ROCE_COMMAND_LINE_H
