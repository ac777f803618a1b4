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
#include <fstream>
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

    /** \return field as a positive data rate such as 100Gbps or 50Mb/s (aborts naming it) */
    DataRate Rate(const std::string& text, const std::string& field) const
    {
        DataRateValue rate;
        ROCE_ERROR_IF(!rate.DeserializeFromString(text, MakeDataRateChecker()) ||
                          rate.Get().GetBitRate() == 0,
                      Where() << field << " '" << text
                              << "' is not a positive rate (e.g. 100Gbps)");
        return rate.Get();
    }

    /** \return field as a time with a unit such as 1000ns (aborts naming it) */
    Time Delay(const std::string& text, const std::string& field) const
    {
        // ns-3's Time parser aborts on what it cannot read: check the form first.
        static const std::regex timeForm(
            R"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?(?:s|ms|us|ns|ps|fs|min|h|d)?)");
        TimeValue t;
        ROCE_ERROR_IF(!std::regex_match(text, timeForm) ||
                          !t.DeserializeFromString(text, MakeTimeChecker()),
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
