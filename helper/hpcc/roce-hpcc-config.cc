/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-hpcc-config.h"

#include "../formats/roce-field-reader.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/integer.h"
#include "ns3/queue-size.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-cc-timely.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-error.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-shared-buffer-mmu.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

namespace ns3
{

namespace
{

/** How a key's value is read. */
enum class Kind
{
    PATH,     //!< one file name
    NS,       //!< one whole number of nanoseconds
    SECONDS,  //!< one number of seconds, >= 0
    US,       //!< one number of microseconds, > 0
    GAIN,     //!< one number in [0, 1]
    FRACTION, //!< one number in (0, 1]
    ERROR,    //!< one number in [0, 1)
    POSITIVE, //!< one number > 0
    COUNT,    //!< one whole number
    FLAG,     //!< 0 or 1
    RATE,     //!< one data rate (50Mb/s, 100Gbps)
    MAP,      //!< n rate value ... (n pairs)
    LINK,     //!< time a b
    ANY,      //!< anything (read and not modelled)
};

/** The keys of that lineage's config files, and how each is read. */
const std::map<std::string, Kind>&
Keys()
{
    static const std::map<std::string, Kind> keys = {
        {"TOPOLOGY_FILE", Kind::PATH},
        {"FLOW_FILE", Kind::PATH},
        {"FCT_OUTPUT_FILE", Kind::PATH},
        {"PFC_OUTPUT_FILE", Kind::PATH},
        {"QLEN_MON_FILE", Kind::PATH},
        {"QLEN_MON_START", Kind::NS},
        {"QLEN_MON_END", Kind::NS},
        {"SIMULATOR_STOP_TIME", Kind::SECONDS},
        {"CC_MODE", Kind::COUNT},
        {"RATE_AI", Kind::RATE},
        {"RATE_HAI", Kind::RATE},
        {"MIN_RATE", Kind::RATE},
        {"DCTCP_RATE_AI", Kind::RATE},
        {"RP_TIMER", Kind::US},
        {"ALPHA_RESUME_INTERVAL", Kind::US},
        {"RATE_DECREASE_INTERVAL", Kind::US},
        {"EWMA_GAIN", Kind::GAIN},
        {"FAST_RECOVERY_TIMES", Kind::COUNT},
        {"CLAMP_TARGET_RATE", Kind::FLAG},
        {"U_TARGET", Kind::FRACTION},
        {"MI_THRESH", Kind::COUNT},
        {"FAST_REACT", Kind::FLAG},
        {"INT_MULTI", Kind::COUNT},
        {"RATE_BOUND", Kind::FLAG},
        {"HAS_WIN", Kind::FLAG},
        {"VAR_WIN", Kind::FLAG},
        {"ACK_HIGH_PRIO", Kind::FLAG},
        {"L2_ACK_INTERVAL", Kind::COUNT},
        {"USE_DYNAMIC_PFC_THRESHOLD", Kind::FLAG},
        {"KMAX_MAP", Kind::MAP},
        {"KMIN_MAP", Kind::MAP},
        {"PMAX_MAP", Kind::MAP},
        {"BUFFER_SIZE", Kind::POSITIVE},
        {"PACKET_PAYLOAD_SIZE", Kind::COUNT},
        {"ENABLE_QCN", Kind::FLAG},
        {"ERROR_RATE_PER_LINK", Kind::ERROR},
        {"LINK_DOWN", Kind::LINK},
        {"L2_BACK_TO_ZERO", Kind::FLAG},
        {"GLOBAL_T", Kind::FLAG},
        {"MULTI_RATE", Kind::FLAG},
        {"SAMPLE_FEEDBACK", Kind::FLAG},
        {"PINT_LOG_BASE", Kind::POSITIVE},
        {"PINT_PROB", Kind::FRACTION},
        // Read, never modelled: trace output, chunked ACKs and the PFC pause time.
        {"TRACE_FILE", Kind::ANY},
        {"TRACE_OUTPUT_FILE", Kind::ANY},
        {"ENABLE_TRACE", Kind::ANY},
        {"L2_CHUNK_SIZE", Kind::ANY},
        {"PAUSE_TIME", Kind::ANY},
    };
    return keys;
}

/** \return a Kind's field count (0: variable) */
size_t
FieldsOf(Kind k)
{
    switch (k)
    {
    case Kind::MAP:
    case Kind::ANY:
        return 0;
    case Kind::LINK:
        return 3;
    default:
        return 1;
    }
}

/** \return the CC_MODE names */
const std::map<uint32_t, std::string>&
CcModes()
{
    static const std::map<uint32_t, std::string> modes = {{1, "dcqcn"},
                                                          {3, "hpcc"},
                                                          {7, "timely"},
                                                          {8, "dctcp-rate"},
                                                          {10, "hpcc-pint"}};
    return modes;
}

/** \brief Check one value of a key (aborts with file:line naming key and value). */
void
CheckValue(const RoceFieldReader& in, const std::string& key, Kind kind, const std::string& v)
{
    const std::string field = key;
    switch (kind)
    {
    case Kind::NS:
    case Kind::COUNT:
    case Kind::FLAG:
        in.Unsigned(v, field, kind == Kind::FLAG ? 1 : std::numeric_limits<uint32_t>::max() * 1ull);
        break;
    case Kind::SECONDS:
    case Kind::US:
    case Kind::GAIN:
    case Kind::FRACTION:
    case Kind::ERROR:
    case Kind::POSITIVE: {
        const double x = in.Real(v, field);
        const bool ok = (kind == Kind::SECONDS && x >= 0) || (kind == Kind::US && x > 0) ||
                        (kind == Kind::GAIN && x >= 0 && x <= 1) ||
                        (kind == Kind::FRACTION && x > 0 && x <= 1) ||
                        (kind == Kind::ERROR && x >= 0 && x < 1) ||
                        (kind == Kind::POSITIVE && x > 0);
        static const std::map<Kind, std::string> range = {{Kind::SECONDS, ">= 0 (seconds)"},
                                                          {Kind::US, "> 0 (microseconds)"},
                                                          {Kind::GAIN, "in [0, 1]"},
                                                          {Kind::FRACTION, "in (0, 1]"},
                                                          {Kind::ERROR, "in [0, 1)"},
                                                          {Kind::POSITIVE, "> 0"}};
        ROCE_ERROR_IF(!ok, in.Where() << field << " '" << v << "' is not " << range.at(kind));
        // Beyond ns-3's time range, converting to a Time is undefined behaviour.
        const double maxSeconds = Time::Max().GetSeconds();
        ROCE_ERROR_IF((kind == Kind::SECONDS && x >= maxSeconds) ||
                          (kind == Kind::US && x >= maxSeconds * 1e6),
                      in.Where() << field << " '" << v << "' is beyond the simulator's "
                                 << maxSeconds << " s");
        break;
    }
    case Kind::RATE:
        in.Rate(v, field);
        break;
    default:
        break;
    }
}

/** \brief Read a `n rate value ...` map (aborts with file:line). */
RoceHpccConfig::RateMap
ReadMap(const RoceFieldReader& in, const std::string& key, const std::vector<std::string>& f)
{
    ROCE_ERROR_IF(f.size() < 2, in.Where() << key << ": expected 'n rate value ...', found none");
    const uint64_t n = in.Unsigned(f[1], key + " count", 64);
    ROCE_ERROR_IF(f.size() != 2 + 2 * n,
                  in.Where() << key << ": count " << n << " needs " << 2 * n
                             << " fields (rate value pairs), found " << f.size() - 2);
    RoceHpccConfig::RateMap m;
    for (uint64_t i = 0; i < n; ++i)
    {
        const uint64_t rate = in.Unsigned(f[2 + 2 * i], key + " rate (bit/s)", 1ull << 50);
        ROCE_ERROR_IF(rate == 0, in.Where() << key << " rate '0' is not a link speed");
        const double value = in.Real(f[3 + 2 * i], key + " value");
        ROCE_ERROR_IF(value < 0 || (key == "PMAX_MAP" && value > 1),
                      in.Where() << key << " value '" << f[3 + 2 * i] << "' is not "
                                 << (key == "PMAX_MAP" ? "in [0, 1]" : ">= 0"));
        ROCE_ERROR_IF(m.count(rate), in.Where() << key << " lists rate " << rate << " twice");
        m[rate] = value;
    }
    return m;
}

} // namespace

RoceHpccConfig
RoceHpccConfig::Read(const std::string& path)
{
    RoceHpccConfig c;
    c.path = path;
    RoceFieldReader in(path, '#');
    std::vector<std::string> f;
    while (in.Next(f))
    {
        const std::string& key = f[0];
        // At most 64 characters: std::regex needs stack depth linear in the
        // text (a stack overflow at some 10^5 characters).
        static const std::regex keyForm("[A-Za-z_][A-Za-z0-9_]*");
        ROCE_ERROR_IF(key.size() > 64 || !std::regex_match(key, keyForm),
                      in.Where() << "'" << (key.size() > 40 ? key.substr(0, 37) + "..." : key)
                                 << "' is not a config key (expected 'KEY value ...')");
        ROCE_ERROR_IF(c.lines.count(key),
                      in.Where() << key << " given twice (first on line " << c.lines[key] << ")");
        auto it = Keys().find(key);
        if (it == Keys().end())
        {
            c.unknown.emplace_back(key, in.Line());
            c.lines[key] = in.Line();
            continue;
        }
        const Kind kind = it->second;
        const size_t want = FieldsOf(kind);
        ROCE_ERROR_IF(f.size() == 1, in.Where() << key << " has no value");
        ROCE_ERROR_IF(want > 0 && f.size() != want + 1,
                      in.Where() << key << " takes " << want << " value" << (want > 1 ? "s" : "")
                                 << ", found " << f.size() - 1);
        std::vector<std::string> v(f.begin() + 1, f.end());
        if (kind == Kind::MAP)
        {
            RateMap m = ReadMap(in, key, f);
            (key == "KMAX_MAP" ? c.kmax : key == "KMIN_MAP" ? c.kmin : c.pmax) = m;
        }
        else if (kind == Kind::LINK)
        {
            in.Unsigned(v[0], "LINK_DOWN time", std::numeric_limits<uint64_t>::max());
            in.Unsigned(v[1], "LINK_DOWN node a", std::numeric_limits<uint32_t>::max());
            in.Unsigned(v[2], "LINK_DOWN node b", std::numeric_limits<uint32_t>::max());
        }
        else if (kind != Kind::ANY)
        {
            CheckValue(in, key, kind, v[0]);
        }
        // The payload size divides the ACK interval and the window (Apply).
        ROCE_ERROR_IF(key == "PACKET_PAYLOAD_SIZE" && in.Unsigned(v[0], key, UINT32_MAX) == 0,
                      in.Where() << "PACKET_PAYLOAD_SIZE '" << v[0] << "' must be positive");
        if (key == "CC_MODE")
        {
            c.ccMode = in.Unsigned(v[0], key, 1000);
            ROCE_ERROR_IF(!CcModes().count(c.ccMode),
                          in.Where() << "CC_MODE '" << v[0]
                                     << "' is not available; known: 1 (DCQCN), 3 (HPCC), "
                                        "7 (TIMELY), 8 (DCTCP), 10 (HPCC-PINT)");
        }
        c.values[key] = v;
        c.lines[key] = in.Line();
    }
    ROCE_ERROR_IF(!c.Has("TOPOLOGY_FILE"), path << ": TOPOLOGY_FILE is missing");
    ROCE_ERROR_IF(!c.Has("FLOW_FILE"), path << ": FLOW_FILE is missing");
    c.topologyFile = c.values["TOPOLOGY_FILE"][0];
    c.flowFile = c.values["FLOW_FILE"][0];
    c.fctFile = c.Has("FCT_OUTPUT_FILE") ? c.values["FCT_OUTPUT_FILE"][0] : "";
    c.pfcFile = c.Has("PFC_OUTPUT_FILE") ? c.values["PFC_OUTPUT_FILE"][0] : "";
    c.qlenFile = c.Has("QLEN_MON_FILE") ? c.values["QLEN_MON_FILE"][0] : "";
    c.qlenStart = NanoSeconds(static_cast<int64_t>(c.Number("QLEN_MON_START", 0)));
    c.qlenEnd = NanoSeconds(static_cast<int64_t>(c.Number("QLEN_MON_END", 0)));
    c.stopTime = Seconds(c.Number("SIMULATOR_STOP_TIME", 0));

    // Keys whose value would ask for behaviour this module does not model:
    // refused, with the reason.
    auto refuse = [&c](const std::string& key, double modelled, const std::string& why) {
        ROCE_ERROR_IF(c.Has(key) && c.Number(key, modelled) != modelled,
                      c.path << ":" << c.lines[key] << ": " << key << " " << c.values[key][0]
                             << " is not modelled: " << why);
    };
    refuse("RATE_BOUND", 1, "queue pairs always pace at their rate (RATE_BOUND 1)");
    refuse("GLOBAL_T",
           1,
           "every queue pair takes the largest base RTT and bandwidth-delay product of the "
           "topology (GLOBAL_T 1)");
    refuse("MULTI_RATE", 0, "HPCC keeps one rate for the path, not one per hop (MULTI_RATE 0)");
    refuse("SAMPLE_FEEDBACK", 0, "HPCC reads every hop of every ACK (SAMPLE_FEEDBACK 0)");
    refuse("L2_BACK_TO_ZERO", 0, "a NAK goes back to the lost packet (L2_BACK_TO_ZERO 0)");
    ROCE_ERROR_IF(c.Has("INT_MULTI") && c.Number("INT_MULTI", 1) < 1,
                  path << ":" << c.lines["INT_MULTI"] << ": INT_MULTI '" << c.values["INT_MULTI"][0]
                       << "' must be at least 1");
    ROCE_ERROR_IF(c.Has("PINT_LOG_BASE") &&
                      (c.Number("PINT_LOG_BASE", 2) < 1.001 || c.Number("PINT_LOG_BASE", 2) > 2),
                  path << ":" << c.lines["PINT_LOG_BASE"] << ": PINT_LOG_BASE '"
                       << c.values["PINT_LOG_BASE"][0]
                       << "' must be in [1.001, 2] (a smaller base overflows the 16-bit digest)");
    if (c.ccMode == 3)
    {
        // HPCC here always keeps W = R T as its window.
        refuse("HAS_WIN", 1, "HPCC here always keeps its window W = R T (HAS_WIN 1)");
        refuse("VAR_WIN", 1, "HPCC's window follows its rate, W = R T (VAR_WIN 1)");
    }
    if (c.Has("LINK_DOWN") && c.values["LINK_DOWN"] != std::vector<std::string>{"0", "0", "0"})
    {
        const auto& v = c.values["LINK_DOWN"];
        c.unmodelled.emplace_back("LINK_DOWN " + v[0] + " " + v[1] + " " + v[2],
                                  c.lines["LINK_DOWN"]);
    }
    for (const auto& [key, kind] : Keys())
    {
        if (kind == Kind::ANY && c.Has(key))
        {
            c.unmodelled.emplace_back(key, c.lines[key]);
        }
    }
    std::sort(c.unmodelled.begin(), c.unmodelled.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
    });
    return c;
}

bool
RoceHpccConfig::Has(const std::string& key) const
{
    return values.count(key) > 0;
}

double
RoceHpccConfig::Number(const std::string& key, double dflt) const
{
    auto it = values.find(key);
    return it == values.end() ? dflt : std::stod(it->second[0]);
}

DataRate
RoceHpccConfig::RateOf(const std::string& key, DataRate dflt) const
{
    auto it = values.find(key);
    return it == values.end() ? dflt : DataRate(it->second[0]);
}

double
RoceHpccConfig::GetErrorRatePerLink() const
{
    return Number("ERROR_RATE_PER_LINK", 0);
}

std::string
RoceHpccConfig::GetCcName() const
{
    return CcModes().at(ccMode);
}

RoceHpccConfig::Framing
RoceHpccConfig::ParseFraming(const std::string& name, const std::string& field)
{
    if (name == "ethernet")
    {
        return ETHERNET;
    }
    ROCE_ERROR_IF(name != "hpcc-sim",
                  field << "=" << name << ": the framing is ethernet or hpcc-sim");
    return HPCC_SIM;
}

int32_t
RoceHpccConfig::GetWireOverhead() const
{
    if (framing == ETHERNET)
    {
        return RocePfcNetDevice::ETHERNET_WIRE_OVERHEAD;
    }
    ROCE_ERROR_IF(ccMode == 3,
                  path << ": CC_MODE 3 (HPCC) with the hpcc-sim framing: the HPCC simulator's "
                          "INT header is 42 bytes on every packet, this module's INT 8 bytes per "
                          "hop crossed, so no per-frame constant gives its packets' size; run "
                          "HPCC with the ethernet framing");
    // This module's data frame beyond its payload: Ethernet 14, IPv4 20,
    // UDP 8, BTH 12, ICRC 4 (PINT's digest is in both frames).
    const auto ours = static_cast<int32_t>(RoceNetDevice::DATA_FRAME_OVERHEAD);
    // The simulator's: PPP 2, IPv4 20, UDP 8, sequence header 6, and its INT
    // header in TS mode for TIMELY (a timestamp, 8).
    const int32_t theirs = 2 + 20 + 8 + 6 + (ccMode == 7 ? 8 : 0);
    return theirs - ours;
}

std::string
RoceHpccConfig::GetWarning() const
{
    std::ostringstream os;
    auto list = [&os](const std::vector<std::pair<std::string, uint32_t>>& keys) {
        for (size_t i = 0; i < keys.size(); ++i)
        {
            os << (i ? ", " : "") << keys[i].first << " (line " << keys[i].second << ")";
        }
    };
    if (!unmodelled.empty())
    {
        os << "read but not modelled: ";
        list(unmodelled);
    }
    if (!unknown.empty())
    {
        os << (unmodelled.empty() ? "" : "; ") << "unknown keys, ignored: ";
        list(unknown);
    }
    return os.str().empty() ? "" : path + ": " + os.str();
}

std::string
RoceHpccConfig::Resolve(const std::string& file) const
{
    if (file.empty() || file[0] == '/' || std::ifstream(file).good())
    {
        return file;
    }
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? file : path.substr(0, slash + 1) + file;
}

Time
RoceHpccConfig::MaxBaseRtt(const RoceHpccFormat::Topology& t) const
{
    const uint32_t payload = static_cast<uint32_t>(Number("PACKET_PAYLOAD_SIZE", 1000));
    std::vector<std::vector<const RoceHpccFormat::Link*>> adj(t.nodes);
    for (const auto& l : t.links)
    {
        adj[l.a].push_back(&l);
        adj[l.b].push_back(&l);
    }
    // Breadth-first from every host through switches only, along the first
    // shortest path found: T = 2 x propagation + one payload's serialisation
    // per hop, one way, as that lineage computes its base RTT.
    Time worst;
    for (uint32_t h = 0; h < t.nodes; ++h)
    {
        if (t.isSwitch[h])
        {
            continue;
        }
        std::vector<int64_t> prop(t.nodes, -1);
        std::vector<int64_t> tx(t.nodes, 0);
        std::deque<uint32_t> q{h};
        prop[h] = 0;
        while (!q.empty())
        {
            const uint32_t u = q.front();
            q.pop_front();
            for (const auto* l : adj[u])
            {
                const uint32_t v = l->a == u ? l->b : l->a;
                if (prop[v] >= 0)
                {
                    continue;
                }
                prop[v] = prop[u] + l->delay.GetTimeStep();
                tx[v] = tx[u] + l->rate.CalculateBytesTxTime(payload).GetTimeStep();
                if (t.isSwitch[v])
                {
                    q.push_back(v);
                }
            }
        }
        for (uint32_t v = 0; v < t.nodes; ++v)
        {
            if (!t.isSwitch[v] && v != h && prop[v] >= 0)
            {
                worst = std::max(worst, TimeStep(2 * prop[v] + tx[v]));
            }
        }
    }
    return worst;
}

void
RoceHpccConfig::Apply(RoceHelper& roce,
                      RoceSwitchHelper& switches,
                      const RoceHpccFormat::Topology& topology) const
{
    const uint32_t payload = static_cast<uint32_t>(Number("PACKET_PAYLOAD_SIZE", 1000));
    roce.SetNicAttribute("PayloadMtu", UintegerValue(payload));
    const Time maxRtt = MaxBaseRtt(topology);
    DataRate hostRate("100Gbps");
    for (const auto& l : topology.links)
    {
        if (!topology.isSwitch[l.a] || !topology.isSwitch[l.b])
        {
            hostRate = l.rate;
            break;
        }
    }
    auto us = [this](const std::string& key) {
        return TimeValue(NanoSeconds(std::llround(Number(key, 0) * 1000)));
    };
    switch (ccMode)
    {
    case 1:
        RoceCcHelper("dcqcn", DCQCN_PRESET).Configure(roce, switches);
        for (const auto& [key, attr] : std::vector<std::pair<std::string, std::string>>{
                 {"RP_TIMER", "RateIncreaseTimer"},
                 {"ALPHA_RESUME_INTERVAL", "AlphaUpdateInterval"},
                 {"RATE_DECREASE_INTERVAL", "RateDecreasePeriod"}})
        {
            if (Has(key))
            {
                roce.SetCongestionControlAttribute(attr, us(key));
            }
        }
        if (Has("EWMA_GAIN"))
        {
            roce.SetCongestionControlAttribute("G", DoubleValue(Number("EWMA_GAIN", 0)));
        }
        if (Has("FAST_RECOVERY_TIMES"))
        {
            roce.SetCongestionControlAttribute("FastRecoveryStages",
                                               UintegerValue(Number("FAST_RECOVERY_TIMES", 0)));
        }
        if (Has("CLAMP_TARGET_RATE"))
        {
            roce.SetCongestionControlAttribute("ClampTargetRate",
                                               BooleanValue(Number("CLAMP_TARGET_RATE", 0) != 0));
        }
        for (const auto& [key, attr] :
             std::vector<std::pair<std::string, std::string>>{{"RATE_AI", "RateAi"},
                                                              {"RATE_HAI", "RateHai"},
                                                              {"MIN_RATE", "MinRate"}})
        {
            if (Has(key))
            {
                roce.SetCongestionControlAttribute(attr, DataRateValue(RateOf(key, DataRate())));
            }
        }
        break;
    case 3:
        RoceCcHelper("hpcc").Configure(roce, switches);
        roce.SetCongestionControlAttribute("BaseRtt", TimeValue(maxRtt));
        if (Has("U_TARGET"))
        {
            roce.SetCongestionControlAttribute("Eta", DoubleValue(Number("U_TARGET", 0)));
        }
        if (Has("MI_THRESH"))
        {
            roce.SetCongestionControlAttribute("MaxStage", UintegerValue(Number("MI_THRESH", 0)));
        }
        if (Has("FAST_REACT"))
        {
            roce.SetCongestionControlAttribute("FastReact",
                                               BooleanValue(Number("FAST_REACT", 1) != 0));
        }
        if (Has("RATE_AI"))
        {
            // That lineage adds RATE_AI x T to the window per increase.
            const double bytes =
                RateOf("RATE_AI", DataRate()).GetBitRate() * maxRtt.GetSeconds() / 8;
            roce.SetCongestionControlAttribute(
                "Wai",
                QueueSizeValue(
                    QueueSize(QueueSizeUnit::BYTES, std::max<uint32_t>(1, std::llround(bytes)))));
        }
        if (Has("MIN_RATE"))
        {
            roce.SetCongestionControlAttribute("MinRate",
                                               DataRateValue(RateOf("MIN_RATE", DataRate())));
        }
        break;
    case 7: {
        RoceCcHelper("timely").Configure(roce, switches);
        roce.SetCongestionControlAttribute("BaseRtt", TimeValue(maxRtt));
        // The simulator's TIMELY normalises the gradient by a fixed 20 us
        // (its RdmaHw TimelyMinRtt default, which no config key sets), not by
        // the fabric's RTT, and counts every increase since the last decrease
        // towards hyperactive increase.
        roce.SetCongestionControlAttribute("MinRtt", TimeValue(MicroSeconds(20)));
        roce.SetCongestionControlAttribute("HaiCount", EnumValue(RoceCcTimely::HAI_INCREASES));
        const DataRate ai = RateOf("RATE_AI", DataRate("10Mbps"));
        if (Has("RATE_AI"))
        {
            roce.SetCongestionControlAttribute("Delta", DataRateValue(ai));
        }
        if (Has("RATE_HAI"))
        {
            const double n = static_cast<double>(RateOf("RATE_HAI", ai).GetBitRate()) /
                             static_cast<double>(ai.GetBitRate());
            roce.SetCongestionControlAttribute(
                "HaiFactor",
                UintegerValue(std::max<uint64_t>(1, std::llround(n))));
        }
        if (Has("MIN_RATE"))
        {
            roce.SetCongestionControlAttribute("MinRate",
                                               DataRateValue(RateOf("MIN_RATE", DataRate())));
        }
        break;
    }
    case 8:
        // That lineage's DCTCP cuts and raises a rate (ns3::RoceCcDctcpRate).
        RoceCcHelper("dctcp-rate").Configure(roce, switches);
        if (Has("EWMA_GAIN"))
        {
            roce.SetCongestionControlAttribute("G", DoubleValue(Number("EWMA_GAIN", 0)));
        }
        for (const auto& [key, attr] :
             std::vector<std::pair<std::string, std::string>>{{"DCTCP_RATE_AI", "RateAi"},
                                                              {"MIN_RATE", "MinRate"}})
        {
            if (Has(key))
            {
                roce.SetCongestionControlAttribute(attr, DataRateValue(RateOf(key, DataRate())));
            }
        }
        break;
    case 10:
        // HPCC-PINT: HPCC's law on a rate, from the largest utilization along
        // the path, which each switch keeps over T and packs in a 16-bit digest.
        RoceCcHelper("hpcc-pint").Configure(roce, switches);
        switches.SetQueueDiscAttribute("PintRtt", TimeValue(maxRtt));
        // That lineage's default base when the key is absent.
        Config::SetGlobal("RocePintLogBase", DoubleValue(Number("PINT_LOG_BASE", 1.05)));
        for (const auto& [key, attr] :
             std::vector<std::pair<std::string, std::string>>{{"RATE_AI", "RateAi"},
                                                              {"MIN_RATE", "MinRate"}})
        {
            if (Has(key))
            {
                roce.SetCongestionControlAttribute(attr, DataRateValue(RateOf(key, DataRate())));
            }
        }
        if (Has("U_TARGET"))
        {
            roce.SetCongestionControlAttribute("Eta", DoubleValue(Number("U_TARGET", 0.95)));
        }
        if (Has("MI_THRESH"))
        {
            roce.SetCongestionControlAttribute("MaxStage", UintegerValue(Number("MI_THRESH", 0)));
        }
        if (Has("PINT_PROB"))
        {
            roce.SetCongestionControlAttribute("SampleProbability",
                                               DoubleValue(Number("PINT_PROB", 1)));
        }
        break;
    default:
        ROCE_ERROR(path << ": CC_MODE " << ccMode << " is not available");
    }
    if (Has("BUFFER_SIZE"))
    {
        const double bytes = Number("BUFFER_SIZE", 0) * 1024 * 1024;
        ROCE_ERROR_IF(bytes >= 4294967296.0,
                      path << ":" << lines.at("BUFFER_SIZE") << ": BUFFER_SIZE '"
                           << values.at("BUFFER_SIZE")[0] << "' MiB exceeds 4 GiB");
        switches.SetMmuAttribute(
            "BufferSize",
            QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(bytes))));
    }
    if (Has("USE_DYNAMIC_PFC_THRESHOLD"))
    {
        const bool dynamic = Number("USE_DYNAMIC_PFC_THRESHOLD", 1) != 0;
        switches.SetMmuAttribute(
            "Mode",
            EnumValue(dynamic ? RoceSharedBufferMmu::DYNAMIC : RoceSharedBufferMmu::STATIC));
        if (dynamic)
        {
            // That lineage's PFC alpha, "proportional to link bw": 1/8 at the
            // host rate, doubled per halving of a faster port's rate.
            switches.SetMmuAttribute("AlphaReferenceRate", DataRateValue(hostRate));
        }
    }
    switches.SetQueueDiscAttribute("EcnEnabled", BooleanValue(Number("ENABLE_QCN", 1) != 0));
    // Queue pairs are made as flows start: their attributes go through the defaults.
    if (Has("L2_ACK_INTERVAL"))
    {
        // Bytes in that lineage: an ACK once this many bytes arrived since the last.
        const double bytes = Number("L2_ACK_INTERVAL", 1);
        Config::SetDefault("ns3::RoceQueuePair::AckInterval",
                           UintegerValue(std::max<uint64_t>(1, std::ceil(bytes / payload))));
    }
    if (ccMode != 3 && Number("HAS_WIN", 0) != 0)
    {
        // The largest bandwidth-delay product, in payload bytes as that
        // lineage counts its window: fixed, or scaled by rate / line rate.
        const double bdp = hostRate.GetBitRate() * maxRtt.GetSeconds() / 8;
        if (Number("VAR_WIN", 0) != 0)
        {
            roce.SetCongestionControlAttribute(
                "RateWindow",
                UintegerValue(std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(bdp)))));
        }
        else
        {
            Config::SetDefault("ns3::RoceQueuePair::MaxInflightPackets",
                               UintegerValue(std::max<uint64_t>(1, std::ceil(bdp / payload))));
        }
    }
    // ACK_HIGH_PRIO 1 serves a host's ACKs and NAKs from its NIC's
    // high-priority queue, ahead of data and past a pause of the data's class,
    // while switches keep them in the data's class: the simulator's switches
    // prioritise ACKs only through a SwitchNode attribute (AckHighPrio) its
    // config never sets.
    roce.SetNicAttribute("AckClass",
                         EnumValue(Number("ACK_HIGH_PRIO", 0) != 0
                                       ? RoceNetDevice::ACK_CONTROL_QUEUE
                                       : RoceNetDevice::ACK_QUEUE_PAIR));
    // The INT fields' units (a global: every switch writes, every NIC reads).
    Config::SetGlobal("RoceIntUnitMultiplier",
                      UintegerValue(static_cast<uint32_t>(Number("INT_MULTI", 1))));
    // The framing (a global: every device reads it when it is built). With
    // Ethernet's the global stays as the program set it.
    if (framing == HPCC_SIM)
    {
        const int32_t set = RocePfcNetDevice::GetGlobalWireOverhead();
        ROCE_ERROR_IF(set != RocePfcNetDevice::ETHERNET_WIRE_OVERHEAD && set != GetWireOverhead(),
                      "RoceFrameWireOverhead=" << set
                                               << " and the hpcc-sim framing, which sets it to "
                                               << GetWireOverhead() << ": give one of them");
        Config::SetGlobal("RoceFrameWireOverhead", IntegerValue(GetWireOverhead()));
    }
}

std::pair<std::pair<uint64_t, uint64_t>, double>
RoceHpccConfig::EcnAt(DataRate rate) const
{
    const uint64_t bps = rate.GetBitRate();
    // Defaults by speed: DCTCP's step marking at 30 KB per 10 Gb/s; the
    // others the hpcc-sim preset's 100/400 KB per 25 Gb/s with Pmax 0.2.
    const bool dctcp = ccMode == 8;
    const double perGbps = 1000.0 / 1e9; // KB -> bytes, per bit/s
    const double dMin = dctcp ? 30 * perGbps * bps / 10 : 100 * perGbps * bps / 25;
    const double dMax = dctcp ? dMin : 400 * perGbps * bps / 25;
    const double dP = dctcp ? 1.0 : 0.2;
    auto at = [bps](const RateMap& m, double dflt, double unit) {
        auto it = m.find(bps);
        return it == m.end() ? dflt : it->second * unit;
    };
    const uint64_t kminB = static_cast<uint64_t>(std::llround(at(kmin, dMin, 1000)));
    const uint64_t kmaxB = static_cast<uint64_t>(std::llround(at(kmax, dMax, 1000)));
    return {{kminB, std::max(kminB, kmaxB)}, at(pmax, dP, 1)};
}

void
RoceHpccConfig::ApplyEcnByRate() const
{
    RoceForEachNodeObject<RoceSwitch>([this](const Ptr<Node>&, const Ptr<RoceSwitch>& sw) {
        for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
        {
            Ptr<RoceSwitchPort> port = sw->GetPort(i);
            const auto [k, p] = EcnAt(port->GetDataRate());
            Ptr<RoceEgressQueueDisc> q = port->GetQueueDisc();
            q->SetAttribute("EcnThresholdRate", DataRateValue(DataRate(uint64_t{0})));
            q->SetAttribute("EcnKmin", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, k.first)));
            q->SetAttribute("EcnKmax", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, k.second)));
            q->SetAttribute("EcnPmax", DoubleValue(p));
        }
    });
}

} // namespace ns3
