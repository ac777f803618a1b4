/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-error.h"

#include "ns3/string.h"
#include "ns3/type-id.h"

#include <optional>
#include <regex>

namespace ns3
{

void
RoceThrowError(const std::string& msg)
{
    throw RoceError(msg);
}

namespace
{
/** \return the checked value of attribute name of tid (a RoceError if there is none) */
Ptr<AttributeValue>
CheckedValue(TypeId tid, const std::string& name, const AttributeValue& value)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        std::string known;
        for (TypeId t = tid;; t = t.GetParent())
        {
            for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
            {
                known += (known.empty() ? "" : ", ") + t.GetAttribute(i).name;
            }
            if (t == t.GetParent())
            {
                break;
            }
        }
        ROCE_ERROR(tid.GetName() << " has no attribute " << name << " (it has: " << known << ")");
    }
    // ns-3 aborts on a time, queue size or number it cannot parse, and on
    // blanks around or inside a value: strip the outer blanks and check the
    // form first.
    const auto* given = dynamic_cast<const StringValue*>(&value);
    std::optional<StringValue> trimmed;
    if (given != nullptr)
    {
        const std::string& raw = given->Get();
        const std::size_t first = raw.find_first_not_of(" \t\r\n\f\v");
        const std::size_t last = raw.find_last_not_of(" \t\r\n\f\v");
        trimmed.emplace(first == std::string::npos ? std::string()
                                                   : raw.substr(first, last - first + 1));
    }
    const StringValue* text = trimmed ? &*trimmed : nullptr;
    std::string type = info.checker->GetValueTypeName();
    if (type.rfind("ns3::", 0) != 0)
    {
        type = "ns3::" + type;
    }
    static const std::regex timeForm(
        R"([-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?(s|ms|us|ns|ps|fs|min|h|d|y)?)");
    static const std::regex sizeForm(R"([0-9]+([kKMG]i?)?(B|p))");
    static const std::regex uintForm(R"(\+?[0-9]+)");
    static const std::regex intForm(R"([-+]?[0-9]+)");
    static const std::regex doubleForm(R"([-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?)");
    const std::regex* form = type == "ns3::TimeValue"        ? &timeForm
                             : type == "ns3::QueueSizeValue" ? &sizeForm
                             : type == "ns3::UintegerValue"  ? &uintForm
                             : type == "ns3::IntegerValue"   ? &intForm
                             : type == "ns3::DoubleValue"    ? &doubleForm
                                                             : nullptr;
    // Long text is refused before the regex (which recurses per character).
    // Every value type but a string reads one word and aborts on anything
    // after it (ns-3's ATTRIBUTE_HELPER_CPP: DataRate, addresses, ...).
    const bool innerBlank = text != nullptr && type != "ns3::StringValue" &&
                            text->Get().find_first_of(" \t\r\n\f\v") != std::string::npos;
    const bool badForm =
        innerBlank || (text != nullptr && form != nullptr &&
                       (text->Get().size() > 64 || !std::regex_match(text->Get(), *form)));
    Ptr<AttributeValue> v =
        badForm ? nullptr : info.checker->CreateValidValue(text ? *text : value);
    if (!v)
    {
        ROCE_ERROR(tid.GetName() << "::" << name << "="
                                 << (given ? given->Get() : value.SerializeToString(info.checker))
                                 << " is not a valid value (" << info.checker->GetValueTypeName()
                                 << (info.checker->HasUnderlyingTypeInformation()
                                         ? ": " + info.checker->GetUnderlyingTypeInformation()
                                         : std::string())
                                 << ")");
    }
    return v;
}
} // namespace

void
RoceSetFactoryAttribute(ObjectFactory& factory,
                        const std::string& name,
                        const AttributeValue& value)
{
    factory.Set(name, *CheckedValue(factory.GetTypeId(), name, value));
}

void
RoceSetAttribute(ObjectBase& object, const std::string& name, const AttributeValue& value)
{
    object.SetAttribute(name, *CheckedValue(object.GetInstanceTypeId(), name, value));
}

} // namespace ns3
