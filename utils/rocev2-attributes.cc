/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Prints the attributes and trace sources of every TypeId of the rocev2
 * module (group "Rocev2") as reStructuredText: doc/rocev2-attributes.rst.
 *
 *   ./rocev2 attributes           print it
 *   ./rocev2 attributes --write   regenerate doc/rocev2-attributes.rst
 *
 * The output depends only on the registered TypeIds: classes sorted by name,
 * attributes and trace sources in registration order, initial values as
 * registered (Config::SetDefault is never called here).
 */
#include "ns3/core-module.h"
#include "ns3/rocev2-module.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Group name that every TypeId of the module sets (SetGroupName).
const std::string GROUP = "Rocev2";

/**
 * \param text free text (a help string)
 * \return the text with reStructuredText's inline markup characters escaped
 */
std::string
EscapeText(const std::string& text)
{
    std::string out;
    for (char c : text)
    {
        if (c == '\\' || c == '*' || c == '`' || c == '|' || c == '_')
        {
            out += '\\';
        }
        out += (c == '\n' || c == '\t') ? ' ' : c;
    }
    return out;
}

/**
 * \param text a value, a type or a name
 * \return the text as an inline literal, or "(empty)"
 */
std::string
Literal(std::string text)
{
    std::replace(text.begin(), text.end(), '\n', ' ');
    const auto first = text.find_first_not_of(' ');
    if (first == std::string::npos)
    {
        return "(empty)";
    }
    text = text.substr(first, text.find_last_not_of(' ') - first + 1);
    if (text.find("``") != std::string::npos || text.back() == '`')
    {
        return EscapeText(text);
    }
    return "``" + text + "``";
}

/**
 * \param checker an attribute's checker
 * \return its value type, with the range or the underlying C++ type when known
 */
std::string
TypeOf(Ptr<const AttributeChecker> checker)
{
    std::string name = checker->GetValueTypeName();
    if (name.rfind("ns3::", 0) == 0)
    {
        name = name.substr(5);
    }
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "Value") == 0)
    {
        name = name.substr(0, name.size() - 5);
    }
    if (checker->HasUnderlyingTypeInformation())
    {
        const std::string underlying = checker->GetUnderlyingTypeInformation();
        if (underlying.rfind(name + " ", 0) == 0)
        {
            name = underlying; // "Time +1ns:+9.22337e+18ns"
        }
        else if (!underlying.empty() && underlying != name && underlying != "ns3::" + name)
        {
            name += " (" + underlying + ")"; // "Uinteger (uint32_t 256:9000)"
        }
    }
    return name;
}

/**
 * \param level the support level of an attribute or trace source
 * \param message its support message
 * \return a sentence to append to the help text ("" when supported)
 */
std::string
Support(TypeId::SupportLevel level, const std::string& message)
{
    switch (level)
    {
    case TypeId::DEPRECATED:
        return " *Deprecated*" + (message.empty() ? "" : ": " + EscapeText(message)) + ".";
    case TypeId::OBSOLETE:
        return " *Obsolete*" + (message.empty() ? "" : ": " + EscapeText(message)) + ".";
    default:
        return "";
    }
}

/**
 * Print one TypeId as a reStructuredText paragraph section.
 * \param tid the TypeId
 */
void
PrintTypeId(TypeId tid)
{
    const std::string name = tid.GetName();
    std::cout << name << "\n" << std::string(name.size(), '#') << "\n\n";
    std::cout << "Parent: " << Literal(tid.GetParent().GetName()) << ".";
    if (tid.GetAttributeN() == 0 && tid.GetTraceSourceN() == 0)
    {
        std::cout << " No attributes or trace sources of its own.\n\n";
        return;
    }
    std::cout << "\n\n";

    if (tid.GetAttributeN() > 0)
    {
        std::cout << ".. list-table:: Attributes of " << name << "\n"
                  << "   :header-rows: 1\n"
                  << "   :widths: 20 22 18 40\n\n"
                  << "   * - Attribute\n"
                  << "     - Type\n"
                  << "     - Initial value\n"
                  << "     - Description\n";
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(i);
            const std::string initial = info.originalInitialValue->SerializeToString(info.checker);
            const bool constructOnly =
                (info.flags & TypeId::ATTR_CONSTRUCT) != 0 && (info.flags & TypeId::ATTR_SET) == 0;
            std::cout << "   * - " << Literal(info.name) << "\n"
                      << "     - " << EscapeText(TypeOf(info.checker)) << "\n"
                      << "     - " << Literal(initial) << "\n"
                      << "     - " << EscapeText(info.help)
                      << (constructOnly ? " *Set at construction only.*" : "")
                      << ((info.flags & TypeId::ATTR_GET) == 0 ? " *Write-only.*" : "")
                      << Support(info.supportLevel, info.supportMsg) << "\n";
        }
        std::cout << "\n";
    }

    if (tid.GetTraceSourceN() > 0)
    {
        std::cout << ".. list-table:: Trace sources of " << name << "\n"
                  << "   :header-rows: 1\n"
                  << "   :widths: 20 30 50\n\n"
                  << "   * - Trace source\n"
                  << "     - Callback signature\n"
                  << "     - Description\n";
        for (std::size_t i = 0; i < tid.GetTraceSourceN(); ++i)
        {
            const TypeId::TraceSourceInformation info = tid.GetTraceSource(i);
            std::cout << "   * - " << Literal(info.name) << "\n"
                      << "     - " << Literal(info.callback) << "\n"
                      << "     - " << EscapeText(info.help)
                      << Support(info.supportLevel, info.supportMsg) << "\n";
        }
        std::cout << "\n";
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    CommandLine cmd(__FILE__);
    cmd.Usage("Print the attributes and trace sources of the rocev2 module's TypeIds as "
              "reStructuredText (doc/rocev2-attributes.rst).");
    cmd.Parse(argc, argv);

    // Reference the module, so that the linker keeps it and its TypeIds register.
    RoceNetDevice::GetTypeId();

    std::vector<TypeId> tids;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        TypeId tid = TypeId::GetRegistered(i);
        if (tid.GetGroupName() == GROUP)
        {
            tids.push_back(tid);
        }
    }
    std::sort(tids.begin(), tids.end(), [](const TypeId& a, const TypeId& b) {
        return a.GetName() < b.GetName();
    });

    std::cout << ".. Generated by ./rocev2 attributes --write (utils/rocev2-attributes.cc)\n"
                 "   from the module's TypeIds: do not edit. The ctest check/attributes-doc\n"
                 "   fails when it is out of date.\n\n"
                 "Every class of the module (TypeId group ``"
              << GROUP
              << "``), sorted by name, with the\n"
                 "attributes and trace sources it declares itself: those it inherits from\n"
                 "another class of the module are listed there, those from ns-3 classes\n"
                 "(e.g. ``ns3::NetDevice``) in ns-3's documentation. *Set at construction\n"
                 "only* marks attributes that ``SetAttribute`` cannot change on a live\n"
                 "object: set them through a helper or ``Config::SetDefault``.\n\n";
    for (const TypeId& tid : tids)
    {
        PrintTypeId(tid);
    }
    return 0;
}
