/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer harness of the examples' command-line values: the parsers of
 * helper/cli/roce-command-line.h (ParseRate, ParseRateOrZero, ParseTime,
 * ParsePositiveTime, ParseBytes, and a comma-separated --sizes list as
 * rocev2-ai-zone-allreduce reads it), the comma-separated lists of string
 * attributes (RoceSpecList), and checked attribute values
 * (RoceSetFactoryAttribute) for `--ns3::RoceType::Attribute=value`.
 *
 * The input is split into lines, each a `--flag=value` (the `--` is
 * optional). A flag the examples know goes to its parser; any other flag's
 * value goes to every parser. A value that a parser accepts must give what
 * the parser promises: a rate above 0 (ParseRate), a time that is not
 * negative (ParseTime) or above 0 (ParsePositiveTime), a byte count above 0
 * and below 2^63.
 */

#include "rocev2-fuzz-common.h"

#include "ns3/object-factory.h"
#include "ns3/roce-command-line.h"
#include "ns3/roce-spec-list.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <set>

using namespace ns3;

namespace
{

/** \brief ParseRate, checked. \param flag the flag \param value its value */
void
Rate(const std::string& flag, const std::string& value)
{
    RoceFuzz::Accepts([&] {
        const DataRate r = RoceCli::ParseRate(flag, value);
        ROCE_FUZZ_CHECK(r.GetBitRate() > 0, "--" << flag << "=" << value);
    });
}

/** \brief ParseRateOrZero. \param flag the flag \param value its value */
void
RateOrZero(const std::string& flag, const std::string& value)
{
    RoceFuzz::Accepts([&] { RoceCli::ParseRateOrZero(flag, value); });
}

/** \brief ParseTime, checked. \param flag the flag \param value its value */
void
TimeOf(const std::string& flag, const std::string& value)
{
    RoceFuzz::Accepts([&] {
        const Time t = RoceCli::ParseTime(flag, value);
        ROCE_FUZZ_CHECK(!t.IsStrictlyNegative(), "--" << flag << "=" << value << " gave " << t);
    });
}

/** \brief ParsePositiveTime, checked. \param flag the flag \param value its value */
void
PositiveTime(const std::string& flag, const std::string& value)
{
    RoceFuzz::Accepts([&] {
        const Time t = RoceCli::ParsePositiveTime(flag, value);
        ROCE_FUZZ_CHECK(t.IsStrictlyPositive(), "--" << flag << "=" << value << " gave " << t);
    });
}

/** \brief ParseBytes, checked. \param flag the flag \param value its value */
void
Bytes(const std::string& flag, const std::string& value)
{
    RoceFuzz::Accepts([&] {
        const uint64_t b = RoceCli::ParseBytes(flag, value);
        ROCE_FUZZ_CHECK(b > 0 && b < (1ull << 63), "--" << flag << "=" << value << " gave " << b);
    });
}

/** \brief A comma-separated list of byte counts (--sizes). \param value the list */
void
Sizes(const std::string& value)
{
    for (const std::string& item : RoceSpecList::Split(value))
    {
        Bytes("sizes", item);
    }
}

/** \brief A comma-separated list of unsigned numbers (string attributes). \param value it */
void
List(const std::string& value)
{
    for (const std::string& item : RoceSpecList::Split(value))
    {
        ROCE_FUZZ_CHECK(item.find(',') == std::string::npos, "item '" << item << "'");
        uint32_t v = 0;
        if (RoceSpecList::ParseUnsigned(item, 63, v))
        {
            ROCE_FUZZ_CHECK(v <= 63, "item '" << item << "' gave " << v);
        }
    }
}

/**
 * \brief `--ns3::RoceType::Attribute=value`: the value set, checked, on a
 * factory of that type (a type of the module only: they are what the
 * helpers set with RoceSetFactoryAttribute).
 * \param path ns3::RoceType::Attribute \param value the value
 */
void
Attribute(const std::string& path, const std::string& value)
{
    const size_t sep = path.rfind("::");
    if (sep == std::string::npos || sep < 5)
    {
        return;
    }
    const std::string type = path.substr(0, sep);
    TypeId tid;
    if (type.rfind("ns3::Roce", 0) != 0 || !TypeId::LookupByNameFailSafe(type, &tid))
    {
        return;
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    RoceFuzz::Accepts(
        [&] { RoceSetFactoryAttribute(factory, path.substr(sep + 2), StringValue(value)); });
}

/** \brief One `--flag=value`. \param arg it */
void
Argument(std::string arg)
{
    if (arg.rfind("--", 0) == 0)
    {
        arg.erase(0, 2);
    }
    const size_t eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    static const std::set<std::string> rates = {"rate", "link-rate"};
    static const std::set<std::string> times = {"delay", "latency", "think", "flowlet-gap"};
    static const std::set<std::string> positiveTimes = {"rto",
                                                        "stop",
                                                        "sample",
                                                        "duration",
                                                        "trace-interval",
                                                        "base-rtt",
                                                        "timeout",
                                                        "interval",
                                                        "recovery",
                                                        "check",
                                                        "end"};
    static const std::set<std::string> bytes = {"size", "chunk", "buffer", "victim-size"};
    if (flag.rfind("ns3::", 0) == 0)
    {
        Attribute(flag, value);
    }
    else if (rates.count(flag))
    {
        Rate(flag, value);
    }
    else if (flag == "rx-drain-rate")
    {
        RateOrZero(flag, value);
    }
    else if (times.count(flag))
    {
        TimeOf(flag, value);
    }
    else if (positiveTimes.count(flag))
    {
        PositiveTime(flag, value);
    }
    else if (bytes.count(flag))
    {
        Bytes(flag, value);
    }
    else if (flag == "sizes")
    {
        Sizes(value);
    }
    else if (flag == "list")
    {
        List(value);
    }
    else
    {
        Rate(flag, value);
        RateOrZero(flag, value);
        TimeOf(flag, value);
        PositiveTime(flag, value);
        Bytes(flag, value);
        Sizes(value);
        List(value);
    }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    RoceFuzz::PlantedBug(data, size);
    const std::string text(reinterpret_cast<const char*>(data), size);
    size_t start = 0;
    while (start <= text.size())
    {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
        {
            end = text.size();
        }
        if (end > start)
        {
            Argument(text.substr(start, end - start));
        }
        start = end + 1;
    }
    return 0;
}
