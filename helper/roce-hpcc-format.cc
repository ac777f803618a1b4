/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-hpcc-format.h"

#include "ns3/abort.h"

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

namespace ns3
{

namespace
{

/** The non-blank lines of a file, each with its number, split into fields. */
class FieldReader
{
  public:
    explicit FieldReader(const std::string& path)
        : m_path(path),
          m_in(path)
    {
        NS_ABORT_MSG_IF(!m_in, path << ": cannot be read");
    }

    /**
     * \param fields set to the line's fields
     * \return false at the end of the file
     */
    bool Next(std::vector<std::string>& fields)
    {
        std::string line;
        while (std::getline(m_in, line))
        {
            ++m_line;
            std::istringstream is(line);
            fields.clear();
            for (std::string f; is >> f;)
            {
                fields.push_back(f);
            }
            if (!fields.empty())
            {
                return true;
            }
        }
        return false;
    }

    /** \return "file:line: " of the last line read */
    std::string Where() const
    {
        return m_path + ":" + std::to_string(m_line) + ": ";
    }

    uint32_t Line() const
    {
        return m_line;
    }

    /** \brief Abort unless the line has exactly n fields, named in `names`. */
    void Expect(const std::vector<std::string>& fields, size_t n, const std::string& names) const
    {
        NS_ABORT_MSG_IF(fields.size() != n,
                        Where() << "expected " << n << " fields (" << names << "), found "
                                << fields.size());
    }

    /** \return field as an unsigned integer below max (aborts naming it) */
    uint64_t Unsigned(const std::string& text, const std::string& field, uint64_t max) const
    {
        size_t used = 0;
        unsigned long long v = 0;
        bool ok = !text.empty() && text[0] != '-' && text[0] != '+';
        try
        {
            v = ok ? std::stoull(text, &used) : 0;
        }
        catch (const std::exception&)
        {
            ok = false;
        }
        NS_ABORT_MSG_IF(!ok || used != text.size() || v > max,
                        Where() << field << " '" << text << "' is not a whole number of at most "
                                << max);
        return v;
    }

    /** \return field as a finite double (aborts naming it) */
    double Real(const std::string& text, const std::string& field) const
    {
        size_t used = 0;
        double v = 0;
        bool ok = true;
        try
        {
            v = std::stod(text, &used);
        }
        catch (const std::exception&)
        {
            ok = false;
        }
        NS_ABORT_MSG_IF(!ok || used != text.size() || !std::isfinite(v),
                        Where() << field << " '" << text << "' is not a number");
        return v;
    }

  private:
    std::string m_path;
    std::ifstream m_in;
    uint32_t m_line{0};
};

} // namespace

RoceHpccFormat::Topology
RoceHpccFormat::ReadTopology(const std::string& path)
{
    FieldReader in(path);
    std::vector<std::string> f;
    NS_ABORT_MSG_IF(!in.Next(f), path << ": empty (expected 'nodes switches links' on line 1)");
    in.Expect(f, 3, "nodes switches links");
    Topology t;
    t.nodes = in.Unsigned(f[0], "nodes", 1u << 24);
    const uint32_t nSwitches = in.Unsigned(f[1], "switches", t.nodes);
    const uint32_t nLinks = in.Unsigned(f[2], "links", 1u << 28);
    t.isSwitch.assign(t.nodes, false);
    NS_ABORT_MSG_IF(nSwitches > 0 && !in.Next(f),
                    path << ": ends before the line of the " << nSwitches << " switch ids");
    if (nSwitches > 0)
    {
        NS_ABORT_MSG_IF(f.size() != nSwitches,
                        in.Where()
                            << "expected the " << nSwitches << " switch ids, found " << f.size());
        for (const std::string& s : f)
        {
            const uint32_t id = in.Unsigned(s, "switch id", t.nodes - 1);
            NS_ABORT_MSG_IF(t.isSwitch[id], in.Where() << "switch id " << id << " listed twice");
            t.isSwitch[id] = true;
            t.switches.push_back(id);
        }
    }
    while (in.Next(f))
    {
        in.Expect(f, 5, "a b rate delay error_rate");
        Link l;
        l.line = in.Line();
        l.a = in.Unsigned(f[0], "link end a", t.nodes - 1);
        l.b = in.Unsigned(f[1], "link end b", t.nodes - 1);
        NS_ABORT_MSG_IF(l.a == l.b, in.Where() << "link from node " << l.a << " to itself");
        DataRateValue rate;
        NS_ABORT_MSG_IF(!rate.DeserializeFromString(f[2], MakeDataRateChecker()) ||
                            rate.Get().GetBitRate() == 0,
                        in.Where()
                            << "rate '" << f[2] << "' is not a positive rate (e.g. 100Gbps)");
        l.rate = rate.Get();
        // ns-3's Time parser aborts on what it cannot read: check the form first.
        static const std::regex timeForm(
            R"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?(?:s|ms|us|ns|ps|fs|min|h|d)?)");
        TimeValue delay;
        NS_ABORT_MSG_IF(!std::regex_match(f[3], timeForm) ||
                            !delay.DeserializeFromString(f[3], MakeTimeChecker()),
                        in.Where() << "delay '" << f[3] << "' is not a delay (e.g. 1000ns)");
        l.delay = delay.Get();
        l.errorRate = in.Real(f[4], "error_rate");
        NS_ABORT_MSG_IF(l.errorRate < 0 || l.errorRate >= 1,
                        in.Where() << "error_rate '" << f[4] << "' is not in [0, 1)");
        t.links.push_back(l);
    }
    NS_ABORT_MSG_IF(t.links.size() != nLinks,
                    path << ": line 1 announces " << nLinks << " links, the file has "
                         << t.links.size());
    return t;
}

std::vector<RoceHpccFormat::Flow>
RoceHpccFormat::ReadFlows(const std::string& path, const Topology& topology)
{
    FieldReader in(path);
    std::vector<std::string> f;
    NS_ABORT_MSG_IF(!in.Next(f), path << ": empty (expected the number of flows on line 1)");
    in.Expect(f, 1, "the number of flows");
    const uint64_t n = in.Unsigned(f[0], "flows", 1ull << 32);
    std::vector<Flow> flows;
    flows.reserve(n);
    NS_ABORT_MSG_IF(topology.nodes == 0, path << ": the topology has no nodes");
    while (in.Next(f))
    {
        in.Expect(f, 6, "src dst priority dport bytes start_seconds");
        Flow fl;
        fl.line = in.Line();
        fl.src = in.Unsigned(f[0], "src", topology.nodes - 1);
        fl.dst = in.Unsigned(f[1], "dst", topology.nodes - 1);
        NS_ABORT_MSG_IF(topology.isSwitch[fl.src],
                        in.Where() << "src " << fl.src << " is a switch, not a host");
        NS_ABORT_MSG_IF(topology.isSwitch[fl.dst],
                        in.Where() << "dst " << fl.dst << " is a switch, not a host");
        NS_ABORT_MSG_IF(fl.src == fl.dst, in.Where() << "src and dst are both " << fl.src);
        fl.priority = in.Unsigned(f[2], "priority", 7);
        fl.dport = in.Unsigned(f[3], "dport", 65535);
        fl.bytes = in.Unsigned(f[4], "bytes", 1ull << 62);
        NS_ABORT_MSG_IF(fl.bytes == 0, in.Where() << "bytes '" << f[4] << "' must be positive");
        const double start = in.Real(f[5], "start_seconds");
        NS_ABORT_MSG_IF(start < 0, in.Where() << "start_seconds '" << f[5] << "' is negative");
        // Nanoseconds, rounded: the files give 9 decimals.
        fl.start = NanoSeconds(static_cast<int64_t>(std::llround(start * 1e9)));
        flows.push_back(fl);
    }
    NS_ABORT_MSG_IF(flows.size() != n,
                    path << ": line 1 announces " << n << " flows, the file has " << flows.size());
    return flows;
}

} // namespace ns3
