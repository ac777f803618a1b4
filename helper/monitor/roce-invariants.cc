/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-invariants.h"

#include "ns3/assert.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-pfc-watchdog.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-shared-buffer-mmu.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"

#include <sstream>

namespace ns3
{

namespace
{

/** At most this many violation lines are kept; the rest are counted. */
constexpr std::size_t MAX_LINES = 20;

/** Append a line, or count it once the list is full. */
void
AddLine(std::vector<std::string>& lines, uint64_t& dropped, const std::string& line)
{
    if (lines.size() < MAX_LINES)
    {
        lines.push_back(line);
    }
    else
    {
        ++dropped;
    }
}

/** Escape a string for JSON. */
std::string
JsonString(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
            out += c;
        }
        else if (static_cast<unsigned char>(c) < 0x20)
        {
            out += ' ';
        }
        else
        {
            out += c;
        }
    }
    return out + "\"";
}

/** The check's state while it walks the fabric. */
struct Walk
{
    RoceInvariantReport r;
    bool faults{false};
    uint64_t moreViolations{0};
    uint64_t moreFailures{0};
    /// Headroom overflows (where, frames): judged once the watchdogs are counted.
    std::vector<std::pair<std::string, uint64_t>> headroom;

    void Violation(const std::string& line)
    {
        AddLine(r.violations, moreViolations, line);
    }

    /** Classify the drops of one object (where: "node 3 device 1"). */
    void Drops(const RoceDropCounts& counts, const std::string& where)
    {
        for (const RoceDropCounts::Entry& e : counts.Get())
        {
            const std::string reason = e.first;
            if (RoceInvariants::IsFaultDrop(reason))
            {
                r.faultDrops += e.second;
            }
            else if (RoceInvariants::IsLossyDrop(reason))
            {
                r.lossyDrops += e.second;
            }
            else if (reason == RoceSharedBufferMmu::DROP_HEADROOM)
            {
                headroom.emplace_back(where, e.second);
            }
            else if (faults && (reason == RoceSwitch::DROP_NO_ROUTE ||
                                reason == RoceNetDevice::DROP_UNKNOWN_QP))
            {
                r.faultDrops += e.second;
            }
            else
            {
                r.losslessViolations += e.second;
                std::ostringstream os;
                os << where << ": " << e.second << " frame(s) dropped, reason " << reason;
                Violation(os.str());
            }
        }
    }

    void Nic(Ptr<RoceNetDevice> nic)
    {
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            Ptr<RoceQueuePair> qp = nic->GetQpByIndex(q);
            const RoceQueuePair::Stats& s = qp->GetStats();
            r.messagesPosted += s.messagesPosted;
            r.messagesCompleted += s.messagesCompleted;
            r.messagesFailed += s.messagesFailed;
            r.messagesPending += s.messagesPosted - s.messagesCompleted - s.messagesFailed;
            if (qp->IsStalled())
            {
                std::ostringstream os;
                os << "node " << nic->GetNode()->GetId() << " QP " << qp->GetQpn()
                   << ": packets in flight and no retransmission timer armed (a hang)";
                Violation(os.str());
                r.hung = true;
            }
            if (s.messagesFailed > 0)
            {
                std::ostringstream os;
                os << "node " << nic->GetNode()->GetId() << " QP " << qp->GetQpn() << " to "
                   << qp->GetRemoteAddress() << ": " << s.messagesFailed
                   << " message(s) failed, retries exhausted (error state)";
                AddLine(r.failures, moreFailures, os.str());
            }
        }
    }

    void Switch(Ptr<RoceSwitch> sw, uint32_t id)
    {
        Ptr<RoceSharedBufferMmu> mmu = sw->GetMmu();
        uint64_t queued = 0;
        for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
        {
            Ptr<RoceEgressQueueDisc> q = sw->GetPort(i)->GetQueueDisc();
            queued += q->GetNBytes();
            const RocePfcWatchdog::Stats wd = sw->GetPort(i)->GetPfcWatchdogStats();
            for (uint64_t t : wd.triggers)
            {
                r.watchdogTriggers += t;
            }
            Drops(q->GetDropCounts(),
                  "switch node " + std::to_string(id) + " port " + std::to_string(i) +
                      " egress queue");
        }
        Drops(sw->GetDropCounts(), "switch node " + std::to_string(id));
        if (!mmu)
        {
            return;
        }
        uint64_t pgBytes = 0;
        for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
        {
            for (uint8_t pg = 0; pg < ROCE_NUM_PRIORITIES; ++pg)
            {
                pgBytes += mmu->GetPgBytes(port, pg);
                if (queued > 0)
                {
                    continue;
                }
                const uint64_t held = mmu->GetPgBytes(port, pg);
                const uint64_t headroom = mmu->GetPgHeadroomBytes(port, pg);
                if (held > 0 || headroom > 0 || mmu->IsXoff(port, pg))
                {
                    std::ostringstream os;
                    os << "switch node " << id << " port " << port << " PG " << +pg
                       << ": its queues are empty but the MMU counts " << held << " B (" << headroom
                       << " B headroom)" << (mmu->IsXoff(port, pg) ? " and the PG holds XOFF" : "");
                    Violation(os.str());
                }
            }
        }
        const uint64_t total = mmu->GetTotalBytes();
        if (total != queued || pgBytes != total)
        {
            std::ostringstream os;
            os << "switch node " << id << ": the MMU counts " << total << " B (priority groups "
               << pgBytes << " B) but its egress queues hold " << queued << " B";
            Violation(os.str());
            r.bufferLeftoverBytes += total > queued ? total - queued : queued - total;
        }
        else if (queued == 0 && mmu->GetSharedUsed() > 0)
        {
            std::ostringstream os;
            os << "switch node " << id << ": its queues are empty but the shared pool counts "
               << mmu->GetSharedUsed() << " B";
            Violation(os.str());
            r.bufferLeftoverBytes += mmu->GetSharedUsed();
        }
    }
};

} // namespace

bool
RoceInvariants::IsFaultDrop(const std::string& reason)
{
    return reason == RocePfcNetDevice::DROP_LINK_DOWN ||
           reason == RocePfcNetDevice::DROP_RX_ERROR || reason == RoceSwitchPort::DROP_PFC_WATCHDOG;
}

bool
RoceInvariants::IsLossyDrop(const std::string& reason)
{
    return reason == RoceSharedBufferMmu::DROP_THRESHOLD ||
           reason == RoceSharedBufferMmu::DROP_BUFFER_FULL;
}

RoceInvariantReport
RoceInvariants::Check(bool faults)
{
    Walk w;
    w.faults = faults;
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        Ptr<Node> node = *it;
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<RocePfcNetDevice> dev = DynamicCast<RocePfcNetDevice>(node->GetDevice(d));
            if (!dev)
            {
                continue;
            }
            w.Drops(dev->GetDropCounts(),
                    "node " + std::to_string(node->GetId()) + " device " + std::to_string(d));
            if (Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(dev))
            {
                w.Nic(nic);
            }
        }
        if (Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>())
        {
            w.Switch(sw, node->GetId());
        }
    }
    RoceInvariantReport& r = w.r;
    r.drained = r.messagesPending == 0;
    // A watchdog that fired stopped honouring a pause: what it let through
    // may overflow the next switch's headroom, a cost of the fault it broke.
    for (const auto& [where, frames] : w.headroom)
    {
        if (faults && r.watchdogTriggers > 0)
        {
            r.faultDrops += frames;
            continue;
        }
        r.losslessViolations += frames;
        std::ostringstream os;
        os << where << ": " << frames << " frame(s) dropped, reason "
           << RoceSharedBufferMmu::DROP_HEADROOM;
        w.Violation(os.str());
    }
    if (w.moreViolations > 0)
    {
        r.violations.push_back("... and " + std::to_string(w.moreViolations) + " more");
    }
    if (w.moreFailures > 0)
    {
        r.failures.push_back("... and " + std::to_string(w.moreFailures) + " more");
    }
    return r;
}

void
RoceInvariants::AssertOk(const RoceInvariantReport& report)
{
    if (!report.Ok())
    {
        std::ostringstream os;
        report.Print(os);
        NS_ASSERT_MSG(false, os.str());
    }
}

void
RoceInvariantReport::WriteJsonMember(std::ostream& os, int indent) const
{
    const std::string pad(indent, ' ');
    const std::string in(indent + 2, ' ');
    auto list = [&](const std::vector<std::string>& lines) {
        os << "[";
        for (std::size_t i = 0; i < lines.size(); ++i)
        {
            os << (i ? ", " : "") << JsonString(lines[i]);
        }
        os << "]";
    };
    os << pad << "\"invariants\": {\n"
       << in << "\"ok\": " << (Ok() ? "true" : "false") << ",\n"
       << in << "\"drained\": " << (drained ? "true" : "false") << ",\n"
       << in << "\"messages_posted\": " << messagesPosted << ",\n"
       << in << "\"messages_completed\": " << messagesCompleted << ",\n"
       << in << "\"messages_failed\": " << messagesFailed << ",\n"
       << in << "\"messages_pending\": " << messagesPending << ",\n"
       << in << "\"fault_drops\": " << faultDrops << ",\n"
       << in << "\"watchdog_triggers\": " << watchdogTriggers << ",\n"
       << in << "\"lossy_drops\": " << lossyDrops << ",\n"
       << in << "\"lossless_violations\": " << losslessViolations << ",\n"
       << in << "\"buffer_leftover_bytes\": " << bufferLeftoverBytes << ",\n"
       << in << "\"failures\": ";
    list(failures);
    os << ",\n" << in << "\"violations\": ";
    list(violations);
    os << "\n" << pad << "}";
}

void
RoceInvariantReport::Print(std::ostream& os) const
{
    if (Ok())
    {
        os << "invariants: ok (" << messagesCompleted << " of " << messagesPosted
           << " messages completed, " << messagesFailed << " failed, " << messagesPending
           << " pending; " << faultDrops << " fault drops, " << lossyDrops << " lossy drops)\n";
        return;
    }
    os << "invariants: " << violations.size() << " violation(s)\n";
    for (const std::string& v : violations)
    {
        os << "  " << v << "\n";
    }
}

} // namespace ns3
