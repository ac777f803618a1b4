/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Reading the module's JSON input files (job files, process-group files)
 * with nlohmann-json, with every error naming FILE:LINE:COLUMN and the field.
 * Used by the helpers' .cc files only; not installed.
 */
#ifndef ROCE_JSON_READER_H
#define ROCE_JSON_READER_H

#include "ns3/roce-error.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * Where each value of a (syntactically valid) JSON text starts, by JSON
 * pointer ("" for the root, "/jobs/0/steps/1/op"), so that errors found
 * after parsing can name the line. nlohmann's DOM keeps no positions.
 */
class RoceJsonPositions
{
  public:
    /**
     * \param text the JSON text \param file its name
     * \param valid whether the text parsed: only then are its values indexed
     */
    RoceJsonPositions(const std::string& text, const std::string& file, bool valid)
        : m_text(text),
          m_file(file)
    {
        if (valid)
        {
            size_t i = 0;
            Scan(i, "");
        }
    }

    /** \return "FILE:LINE:COLUMN" of a byte offset (0-based) */
    std::string At(size_t offset) const
    {
        size_t line = 1;
        size_t col = 1;
        for (size_t i = 0; i < offset && i < m_text.size(); ++i)
        {
            if (m_text[i] == '\n')
            {
                ++line;
                col = 1;
            }
            else
            {
                ++col;
            }
        }
        std::ostringstream os;
        os << m_file << ":" << line << ":" << col;
        return os.str();
    }

    /** \return "FILE:LINE:COLUMN" of the value at a pointer, or of its closest ancestor */
    std::string Where(std::string pointer) const
    {
        while (true)
        {
            auto it = m_pos.find(pointer);
            if (it != m_pos.end())
            {
                return At(it->second);
            }
            if (pointer.empty())
            {
                return At(0);
            }
            pointer.erase(pointer.rfind('/'));
        }
    }

  private:
    void SkipBlanks(size_t& i) const
    {
        while (i < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[i])))
        {
            ++i;
        }
    }

    /** \return the raw text of the string starting at i (a quote); i moves past it */
    std::string ScanString(size_t& i) const
    {
        const size_t begin = ++i;
        while (i < m_text.size() && m_text[i] != '"')
        {
            i += m_text[i] == '\\' ? 2 : 1;
        }
        return m_text.substr(begin, i++ - begin);
    }

    void Scan(size_t& i, const std::string& pointer)
    {
        SkipBlanks(i);
        m_pos[pointer] = i;
        if (i >= m_text.size())
        {
            return;
        }
        const char c = m_text[i];
        if (c == '{' || c == '[')
        {
            const char close = c == '{' ? '}' : ']';
            ++i;
            for (uint32_t n = 0;; ++n)
            {
                SkipBlanks(i);
                if (i >= m_text.size() || m_text[i] == close)
                {
                    ++i;
                    return;
                }
                std::string child = std::to_string(n);
                if (c == '{')
                {
                    child = ScanString(i);
                    SkipBlanks(i);
                    ++i; // ':'
                }
                Scan(i, pointer + "/" + child);
                SkipBlanks(i);
                if (i < m_text.size() && m_text[i] == ',')
                {
                    ++i;
                }
            }
        }
        if (c == '"')
        {
            ScanString(i);
            return;
        }
        while (i < m_text.size() && std::string(",]} \t\r\n").find(m_text[i]) == std::string::npos)
        {
            ++i;
        }
    }

    const std::string& m_text;
    std::string m_file;
    std::map<std::string, size_t> m_pos;
};

/**
 * \ingroup rocev2
 * The base of the JSON file readers: parses the text (a syntax error is
 * fatal and names the position) and converts fields, aborting with
 * `FILE:LINE:COLUMN: field "x" (/pointer) = value: rule` on bad input.
 */
class RoceJsonReader
{
  public:
    /** The DOM type. */
    using Json = nlohmann::json;

    /**
     * \param text the file's text (kept by reference: it must outlive the reader)
     * \param file the file's name, for errors
     */
    RoceJsonReader(const std::string& text, const std::string& file)
        : m_file(file),
          m_text(text)
    {
    }

    /** \return the parsed text (a syntax error is fatal, with its position) */
    Json Parse()
    {
        Json root;
        size_t errorByte = 0;
        std::string error;
        std::string kind = "JSON syntax error";
        try
        {
            root = Json::parse(m_text);
        }
        catch (const Json::parse_error& e)
        {
            // e.byte is the 1-based offset of the character that broke the parse.
            errorByte = e.byte > 0 ? e.byte - 1 : 0;
            error = e.what();
        }
        catch (const Json::exception& e)
        {
            // Valid syntax, but a value the DOM cannot hold: a number beyond a
            // double ("number overflow parsing '1e999'"). Point at that value.
            error = e.what();
            errorByte = OffsetOfQuoted(error);
            kind = "JSON value out of range";
        }
        if (!error.empty())
        {
            // Reported outside the handler, so the abort is not an uncaught exception.
            ROCE_ERROR(RoceJsonPositions(m_text, m_file, false).At(errorByte)
                       << ": " << kind << ": " << error);
        }
        m_positions = std::make_unique<RoceJsonPositions>(m_text, m_file, true);
        return root;
    }

    /** \return "FILE:LINE:COLUMN" of the value at a JSON pointer (after Parse) */
    std::string Where(const std::string& pointer) const
    {
        return m_positions->Where(pointer);
    }

    [[noreturn]] void Fail(const std::string& pointer, const std::string& msg) const
    {
        ROCE_ERROR(m_positions->Where(pointer) << ": " << msg);
        std::abort(); // not reached
    }

    static std::string Short(const Json& v)
    {
        std::string s = v.dump();
        return s.size() > 60 ? s.substr(0, 57) + "..." : s;
    }

    static std::string Field(const std::string& pointer)
    {
        return "field \"" + pointer.substr(pointer.rfind('/') + 1) + "\" (" + pointer + ")";
    }

    void CheckFields(const Json& obj,
                     const std::string& pointer,
                     const std::string& what,
                     const std::vector<std::string>& known) const
    {
        for (const auto& item : obj.items())
        {
            if (std::find(known.begin(), known.end(), item.key()) == known.end())
            {
                std::string list;
                for (const std::string& k : known)
                {
                    list += (list.empty() ? "" : ", ") + k;
                }
                Fail(pointer + "/" + item.key(),
                     "unknown field \"" + item.key() + "\" in " + what + " (known: " + list + ")");
            }
        }
    }

    const Json& Require(const Json& obj,
                        const std::string& pointer,
                        const std::string& what,
                        const std::string& key) const
    {
        if (!obj.contains(key))
        {
            Fail(pointer, what + ": missing field \"" + key + "\"");
        }
        return obj[key];
    }

    uint32_t Uint(const Json& v, const std::string& pointer, uint32_t min) const
    {
        if (!v.is_number_integer() || v.get<int64_t>() < int64_t(min) ||
            v.get<int64_t>() > int64_t(std::numeric_limits<uint32_t>::max()))
        {
            Fail(pointer,
                 Field(pointer) + " = " + Short(v) +
                     ": must be an integer >= " + std::to_string(min));
        }
        return v.get<uint32_t>();
    }

    /**
     * The longest name: std::regex needs stack depth linear in the text (a
     * stack overflow at some 10^5 characters).
     */
    static constexpr size_t MAX_NAME = 256;

    std::string Name(const Json& v, const std::string& pointer) const
    {
        static const std::regex form("[A-Za-z0-9_.-]+");
        if (!v.is_string() || v.get<std::string>().size() > MAX_NAME ||
            !std::regex_match(v.get<std::string>(), form))
        {
            Fail(pointer,
                 Field(pointer) + " = " + Short(v) +
                     ": must be a name of [A-Za-z0-9_.-], at most " + std::to_string(MAX_NAME) +
                     " characters");
        }
        return v.get<std::string>();
    }

  protected:
    /**
     * \param message an error message that quotes part of the text ('...')
     * \return the byte offset of the first occurrence of that part in the
     *         text, or 0 if the message quotes nothing found there
     */
    size_t OffsetOfQuoted(const std::string& message) const
    {
        const size_t open = message.find('\'');
        const size_t close = open == std::string::npos ? open : message.find('\'', open + 1);
        if (close == std::string::npos || close == open + 1)
        {
            return 0;
        }
        const size_t at = m_text.find(message.substr(open + 1, close - open - 1));
        return at == std::string::npos ? 0 : at;
    }

    std::string m_file;                             //!< the file's name
    const std::string& m_text;                      //!< its text
    std::unique_ptr<RoceJsonPositions> m_positions; //!< value positions, after Parse
};

} // namespace ns3

#endif /* ROCE_JSON_READER_H */
