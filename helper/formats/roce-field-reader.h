/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FIELD_READER_H
#define ROCE_FIELD_READER_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/roce-error.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * The readers of text input files (HPCC-format topology, flow and
 * config files, size CDFs) share this: the non-blank lines of a file, each
 * with its number, split into whitespace-separated fields, and field
 * conversions that abort with `file:line: field 'value' ...` on bad input.
 * With a comment character, everything from it to the end of a line is
 * ignored.
 */
class RoceFieldReader
{
  public:
    /**
     * \param path the file
     * \param comment the comment character, or 0 for none
     */
    explicit RoceFieldReader(const std::string& path, char comment = 0)
        : m_path(path),
          m_in(path),
          m_comment(comment)
    {
        ROCE_ERROR_IF(!m_in, path << ": cannot be read");
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
            if (m_comment != 0)
            {
                line = line.substr(0, line.find(m_comment));
            }
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
        ROCE_ERROR_IF(fields.size() != n,
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
        ROCE_ERROR_IF(!ok || used != text.size() || v > max,
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
        ROCE_ERROR_IF(!ok || used != text.size() || !std::isfinite(v),
                      Where() << field << " '" << text << "' is not a number");
        return v;
    }

    /**
     * \return field as a positive data rate such as 100Gbps or 50Mb/s, of at
     * most 2^53 bit/s (9 Pb/s: ns-3 reads rates through a double, exact to
     * there), aborting naming it
     */
    DataRate Rate(const std::string& text, const std::string& field) const
    {
        DataRateValue rate;
        ROCE_ERROR_IF(!rate.DeserializeFromString(text, MakeDataRateChecker()) ||
                          rate.Get().GetBitRate() == 0,
                      Where() << field << " '" << text
                              << "' is not a positive rate (e.g. 100Gbps)");
        ROCE_ERROR_IF(rate.Get().GetBitRate() > (uint64_t{1} << 53),
                      Where() << field << " '" << text << "' is above 2^53 bit/s");
        return rate.Get();
    }

    /**
     * The longest field that Delay reads: std::regex backtracks, taking time
     * quadratic in a field that fails late and stack depth linear in its
     * length (a stack overflow at some 10^5 characters).
     */
    static constexpr size_t MAX_TIME_TEXT = 64;

    /** \return field as a time with a unit such as 1000ns (aborts naming it) */
    Time Delay(const std::string& text, const std::string& field) const
    {
        // ns-3's Time parser aborts on what it cannot read: check the form first.
        static const std::regex timeForm(
            R"(([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(s|ms|us|ns|ps|fs|min|h|d)?)");
        const std::string shown = text.size() > 40 ? text.substr(0, 37) + "..." : text;
        std::smatch m;
        ROCE_ERROR_IF(text.size() > MAX_TIME_TEXT || !std::regex_match(text, m, timeForm),
                      Where() << field << " '" << shown << "' is not a time (e.g. 1000ns)");
        // Beyond ns-3's range a time becomes garbage: refuse it.
        static const std::map<std::string, long double> seconds = {{"", 1.0L},
                                                                   {"s", 1.0L},
                                                                   {"ms", 1e-3L},
                                                                   {"us", 1e-6L},
                                                                   {"ns", 1e-9L},
                                                                   {"ps", 1e-12L},
                                                                   {"fs", 1e-15L},
                                                                   {"min", 60.0L},
                                                                   {"h", 3600.0L},
                                                                   {"d", 86400.0L}};
        const long double value =
            std::strtold(m[1].str().c_str(), nullptr) * seconds.at(m[2].str());
        ROCE_ERROR_IF(!(value < static_cast<long double>(Time::Max().GetSeconds())),
                      Where() << field << " '" << text << "' is beyond the simulator's "
                              << Time::Max().GetSeconds() << " s");
        TimeValue t;
        ROCE_ERROR_IF(!t.DeserializeFromString(text, MakeTimeChecker()),
                      Where() << field << " '" << text << "' is not a time (e.g. 1000ns)");
        return t.Get();
    }

    /** \return the file's path */
    const std::string& Path() const
    {
        return m_path;
    }

  private:
    std::string m_path;
    std::ifstream m_in;
    char m_comment{0};
    uint32_t m_line{0};
};

} // namespace ns3

#endif /* ROCE_FIELD_READER_H */
