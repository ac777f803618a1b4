/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RoceFaultHelper::Load: the fault file reader. Every error names the file,
// the line and the field.

#include "../formats/roce-field-reader.h"
#include "roce-fault-helper.h"

#include "ns3/node-list.h"
#include "ns3/roce-error.h"
#include "ns3/roce-switch.h"

#include <algorithm>
#include <map>

namespace ns3
{

namespace
{

/// The fault kinds, with the parameters each takes.
const std::map<std::string, std::vector<std::string>> g_kinds = {
    {"link-down", {}},
    {"link-up", {}},
    {"link-flap", {"period", "down", "until"}},
    {"switch-down", {}},
    {"switch-up", {}},
    {"link-loss", {"ber", "drop", "until"}},
    {"slow-receiver", {"rate", "for"}},
    {"pfc-storm", {"priority", "for"}},
};

/// A target as written: a node, or one of its devices.
struct Target
{
    Ptr<Node> node;            //!< the node (the device's node for a device)
    Ptr<RocePfcNetDevice> dev; //!< the device, if one was named
};

/// Reads one fault file line by line.
class FaultReader
{
  public:
    FaultReader(const std::string& path,
                const std::map<std::string, Ptr<Node>>& nodes,
                const std::map<std::string, Ptr<RocePfcNetDevice>>& devs)
        : m_in(path, '#'),
          m_nodes(nodes),
          m_devs(devs)
    {
    }

    RoceFieldReader m_in; //!< the lines

    /** \return the node or device a token names (aborts naming it) */
    Target Resolve(const std::string& token) const
    {
        auto dev = m_devs.find(token);
        if (dev != m_devs.end())
        {
            return {dev->second->GetNode(), dev->second};
        }
        std::string nodePart = token;
        std::string devPart;
        size_t colon = token.find(':');
        if (colon != std::string::npos)
        {
            nodePart = token.substr(0, colon);
            devPart = token.substr(colon + 1);
        }
        Ptr<Node> node;
        auto named = m_nodes.find(nodePart);
        if (named != m_nodes.end())
        {
            node = named->second;
        }
        else
        {
            bool digits =
                !nodePart.empty() && nodePart.find_first_not_of("0123456789") == std::string::npos;
            ROCE_ERROR_IF(!digits,
                          m_in.Where()
                              << "target '" << token << "' is neither a node id nor a known name");
            uint64_t id = m_in.Unsigned(nodePart, "target node id", UINT32_MAX);
            ROCE_ERROR_IF(id >= NodeList::GetNNodes(),
                          m_in.Where() << "target node id '" << nodePart << "' is not below "
                                       << NodeList::GetNNodes() << " (the node count)");
            node = NodeList::GetNode(static_cast<uint32_t>(id));
        }
        Target t{node, nullptr};
        if (colon != std::string::npos)
        {
            uint64_t d = m_in.Unsigned(devPart, "target device index", UINT32_MAX);
            ROCE_ERROR_IF(d >= node->GetNDevices(),
                          m_in.Where() << "target '" << token << "': node " << node->GetId()
                                       << " has " << node->GetNDevices() << " devices");
            t.dev = DynamicCast<RocePfcNetDevice>(node->GetDevice(static_cast<uint32_t>(d)));
            ROCE_ERROR_IF(!t.dev,
                          m_in.Where()
                              << "target '" << token << "' is not a RoCE device (a NIC or a "
                              << "switch port)");
        }
        return t;
    }

    /** \return the links the targets name (aborts unless there is one at least) */
    std::vector<Ptr<RoceChannel>> Links(const std::vector<std::string>& targets) const
    {
        if (targets.size() == 1)
        {
            Target t = Resolve(targets[0]);
            ROCE_ERROR_IF(!t.dev,
                          m_in.Where() << "target '" << targets[0]
                                       << "': a link is one device (node:d, or a NIC's "
                                       << "name) or two nodes");
            Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(t.dev->GetChannel());
            ROCE_ERROR_IF(!ch, m_in.Where() << "target '" << targets[0] << "' has no link");
            return {ch};
        }
        ROCE_ERROR_IF(targets.size() != 2,
                      m_in.Where() << "a link is one device or two nodes; found " << targets.size()
                                   << " targets");
        Target a = Resolve(targets[0]);
        Target b = Resolve(targets[1]);
        auto links = RoceFaultHelper::LinksBetween(a.node, b.node);
        ROCE_ERROR_IF(links.empty(),
                      m_in.Where() << "target: no link between '" << targets[0] << "' and '"
                                   << targets[1] << "'");
        return links;
    }

    /** \return the one device the targets name (a node with one RoCE NIC names it) */
    Ptr<RocePfcNetDevice> Device(const std::vector<std::string>& targets) const
    {
        ROCE_ERROR_IF(targets.size() != 1,
                      m_in.Where() << "expected one target (a device), found " << targets.size());
        Target t = Resolve(targets[0]);
        if (t.dev)
        {
            return t.dev;
        }
        Ptr<RocePfcNetDevice> only;
        for (uint32_t d = 0; d < t.node->GetNDevices(); ++d)
        {
            if (Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(t.node->GetDevice(d)))
            {
                ROCE_ERROR_IF(only,
                              m_in.Where() << "target '" << targets[0]
                                           << "' has several NICs: name one as node:d");
                only = nic;
            }
        }
        ROCE_ERROR_IF(!only, m_in.Where() << "target '" << targets[0] << "' has no NIC");
        return only;
    }

  private:
    const std::map<std::string, Ptr<Node>>& m_nodes;
    const std::map<std::string, Ptr<RocePfcNetDevice>>& m_devs;
};

} // namespace

void
RoceFaultHelper::Load(const std::string& path)
{
    FaultReader r(path, GetNodeNames(), GetDeviceNames());
    RoceFieldReader& in = r.m_in;
    std::vector<std::string> fields;
    while (in.Next(fields))
    {
        ROCE_ERROR_IF(fields.size() < 2,
                      in.Where() << "expected 'time fault target... [key=value...]', found "
                                 << fields.size() << " field(s)");
        Time at = in.Delay(fields[0], "time");
        const std::string& kind = fields[1];
        auto k = g_kinds.find(kind);
        if (k == g_kinds.end())
        {
            std::string known;
            for (const auto& [name, params] : g_kinds)
            {
                known += (known.empty() ? "" : ", ") + name;
            }
            ROCE_ERROR(in.Where() << "fault '" << kind << "' is unknown (known: " << known << ")");
        }
        std::vector<std::string> targets;
        std::map<std::string, std::string> params;
        for (size_t i = 2; i < fields.size(); ++i)
        {
            size_t eq = fields[i].find('=');
            if (eq == std::string::npos)
            {
                ROCE_ERROR_IF(!params.empty(),
                              in.Where() << "target '" << fields[i] << "' after the parameters");
                targets.push_back(fields[i]);
                continue;
            }
            std::string key = fields[i].substr(0, eq);
            const auto& allowed = k->second;
            ROCE_ERROR_IF(std::find(allowed.begin(), allowed.end(), key) == allowed.end(),
                          in.Where() << "parameter '" << key << "' is not one of " << kind << "'s");
            ROCE_ERROR_IF(params.count(key), in.Where() << "parameter '" << key << "' twice");
            params[key] = fields[i].substr(eq + 1);
        }
        ROCE_ERROR_IF(targets.empty(), in.Where() << kind << ": no target");
        auto need = [&](const std::string& key) -> const std::string& {
            auto it = params.find(key);
            ROCE_ERROR_IF(it == params.end(),
                          in.Where() << kind << " needs the parameter '" << key << "='");
            return it->second;
        };
        if (kind == "link-down" || kind == "link-up")
        {
            for (const auto& ch : r.Links(targets))
            {
                kind == "link-down" ? LinkDown(at, ch) : LinkUp(at, ch);
            }
        }
        else if (kind == "link-flap")
        {
            Time period = in.Delay(need("period"), "period");
            double down = in.Real(need("down"), "down");
            Time until = in.Delay(need("until"), "until");
            ROCE_ERROR_IF(!period.IsStrictlyPositive(),
                          in.Where() << "period '" << need("period") << "' must be positive");
            ROCE_ERROR_IF(!(down > 0 && down < 1),
                          in.Where() << "down '" << need("down")
                                     << "' must be a share of the period in (0, 1)");
            ROCE_ERROR_IF(until <= at,
                          in.Where() << "until '" << need("until") << "' must be after the time '"
                                     << fields[0] << "'");
            for (const auto& ch : r.Links(targets))
            {
                LinkFlap(at, ch, period, down, until);
            }
        }
        else if (kind == "switch-down" || kind == "switch-up")
        {
            ROCE_ERROR_IF(targets.size() != 1,
                          in.Where() << kind << " takes one switch, found " << targets.size()
                                     << " targets");
            Ptr<Node> sw = r.Resolve(targets[0]).node;
            ROCE_ERROR_IF(!sw->GetObject<RoceSwitch>(),
                          in.Where() << "target '" << targets[0] << "' is not a switch");
            kind == "switch-down" ? SwitchDown(at, sw) : SwitchUp(at, sw);
        }
        else if (kind == "link-loss")
        {
            ROCE_ERROR_IF(params.count("ber") == params.count("drop"),
                          in.Where() << "link-loss takes one of 'ber=' (bit error rate) and "
                                        "'drop=' (share of frames lost)");
            bool perBit = params.count("ber") != 0;
            const std::string& text = perBit ? params["ber"] : params["drop"];
            double rate = in.Real(text, perBit ? "ber" : "drop");
            ROCE_ERROR_IF(!(rate >= 0 && rate <= 1),
                          in.Where()
                              << (perBit ? "ber" : "drop") << " '" << text << "' is not in [0, 1]");
            Time until = params.count("until") ? in.Delay(params["until"], "until") : Time::Max();
            ROCE_ERROR_IF(until <= at,
                          in.Where() << "until '" << params["until"] << "' must be after the time '"
                                     << fields[0] << "'");
            for (const auto& ch : r.Links(targets))
            {
                LinkLoss(at, ch, rate, perBit, until);
            }
        }
        else if (kind == "slow-receiver")
        {
            Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(r.Device(targets));
            ROCE_ERROR_IF(!nic, in.Where() << "target '" << targets[0] << "' is not a NIC");
            DataRate rate = in.Rate(need("rate"), "rate");
            Time duration = in.Delay(need("for"), "for");
            ROCE_ERROR_IF(!duration.IsStrictlyPositive(),
                          in.Where() << "for '" << need("for") << "' must be positive");
            SlowReceiver(at, nic, rate, duration);
        }
        else // pfc-storm
        {
            Ptr<RocePfcNetDevice> dev = r.Device(targets);
            auto priority = static_cast<uint8_t>(in.Unsigned(need("priority"), "priority", 7));
            Time duration = in.Delay(need("for"), "for");
            ROCE_ERROR_IF(!duration.IsStrictlyPositive(),
                          in.Where() << "for '" << need("for") << "' must be positive");
            PfcStorm(at, dev, priority, duration);
        }
    }
}

} // namespace ns3
