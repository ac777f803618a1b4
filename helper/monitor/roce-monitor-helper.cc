/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-monitor-helper.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-congestion-ops.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-error.h"
#include "ns3/roce-mpi-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceMonitor");

NS_OBJECT_ENSURE_REGISTERED(RoceMonitor);

namespace
{

/**
 * \param ip an IPv4 address in host order
 * \return its dotted form
 */
std::string
DottedIp(uint32_t ip)
{
    std::ostringstream os;
    os << (ip >> 24) << "." << ((ip >> 16) & 0xff) << "." << ((ip >> 8) & 0xff) << "."
       << (ip & 0xff);
    return os.str();
}

/**
 * \param path a file to write
 * \return the open stream; aborts naming the file if it cannot be opened
 */
std::ofstream
OpenOrAbort(const std::string& path)
{
    std::ofstream out(path);
    ROCE_ERROR_IF(!out, "RoceMonitor: cannot write " << path);
    return out;
}

} // namespace

TypeId
RoceMonitor::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceMonitor")
                            .SetParent<Object>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceMonitor>();
    return tid;
}

RoceMonitor::RoceMonitor()
{
    NS_LOG_FUNCTION(this);
}

RoceMonitor::~RoceMonitor()
{
    NS_LOG_FUNCTION(this);
}

void
RoceMonitor::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_queueEvent.Cancel();
    m_linkEvent.Cancel();
    m_rateEvent.Cancel();
    m_devices.clear();
    Object::DoDispose();
}

void
RoceMonitor::FindDevices()
{
    if (m_found)
    {
        return;
    }
    m_found = true;
    RoceForEachDevice<RocePfcNetDevice>(
        [this](const Ptr<Node>& node, const Ptr<RocePfcNetDevice>& dev) {
            if (!RoceMpiHelper::IsLocal(node))
            {
                return;
            }
            Device r;
            r.dev = dev;
            Ptr<RoceSwitchPort> port = DynamicCast<RoceSwitchPort>(dev);
            r.disc = port ? port->GetQueueDisc() : nullptr;
            r.node = node->GetId();
            r.ifIndex = dev->GetIfIndex();
            r.isSwitch = bool(port);
            r.lastTxBytes = dev->GetTxBytes();
            r.lastTxFrames = dev->GetTxFrames();
            m_devices.push_back(r);
        });
    m_portMaxSeen.assign(m_devices.size(), 0);
}

void
RoceMonitor::CheckInterval(const char* what, Time interval)
{
    ROCE_ERROR_IF(!interval.IsStrictlyPositive(),
                  "RoceMonitor::" << what << ": the interval must be > 0, got " << interval);
}

void
RoceMonitor::EnablePfcLog()
{
    NS_LOG_FUNCTION(this);
    FindDevices();
    if (m_pfcEnabled)
    {
        return;
    }
    m_pfcEnabled = true;
    // m_devices no longer changes size, so pointers into it stay valid.
    for (const Device& d : m_devices)
    {
        const Device* rec = &d;
        d.dev->TraceConnectWithoutContext(
            "PfcTx",
            Callback<void, uint8_t, uint16_t>([this, rec](uint8_t prio, uint16_t quanta) {
                LogPfc(&m_pfcTx, rec, prio, quanta);
            }));
        d.dev->TraceConnectWithoutContext(
            "PfcRx",
            Callback<void, uint8_t, uint16_t>([this, rec](uint8_t prio, uint16_t quanta) {
                LogPfc(&m_pfcRx, rec, prio, quanta);
            }));
    }
}

void
RoceMonitor::LogPfc(std::vector<PfcEvent>* log, const Device* d, uint8_t priority, uint16_t quanta)
{
    log->push_back(PfcEvent{Simulator::Now().GetNanoSeconds(),
                            d->node,
                            d->ifIndex,
                            priority,
                            quanta != 0,
                            d->isSwitch});
}

void
RoceMonitor::EnableQueueSampling(Time interval)
{
    NS_LOG_FUNCTION(this << interval);
    CheckInterval("EnableQueueSampling", interval);
    FindDevices();
    m_queueInterval = interval;
    m_queueEvent.Cancel();
    if (KeepSampling(interval))
    {
        m_queueEvent = Simulator::Schedule(interval, &RoceMonitor::SampleQueues, this);
    }
}

void
RoceMonitor::EnableLinkUtilisation(Time interval)
{
    NS_LOG_FUNCTION(this << interval);
    CheckInterval("EnableLinkUtilisation", interval);
    FindDevices();
    m_linkInterval = interval;
    m_lastLinkSample = Simulator::Now();
    for (Device& d : m_devices)
    {
        d.lastTxBytes = d.dev->GetTxBytes();
        d.lastTxFrames = d.dev->GetTxFrames();
    }
    m_linkEvent.Cancel();
    if (KeepSampling(interval))
    {
        m_linkEvent = Simulator::Schedule(interval, &RoceMonitor::SampleLinks, this);
    }
}

void
RoceMonitor::EnableRateSampling(Time interval)
{
    NS_LOG_FUNCTION(this << interval);
    CheckInterval("EnableRateSampling", interval);
    FindDevices();
    m_rateInterval = interval;
    m_rateEvent.Cancel();
    if (KeepSampling(interval))
    {
        m_rateEvent = Simulator::Schedule(interval, &RoceMonitor::SampleRates, this);
    }
}

void
RoceMonitor::Stop()
{
    NS_LOG_FUNCTION(this);
    m_stopped = true;
    // Removed, not cancelled: a cancelled event still advances the clock to
    // its time, which would end a run to completion up to an interval late.
    Simulator::Remove(m_queueEvent);
    Simulator::Remove(m_linkEvent);
    Simulator::Remove(m_rateEvent);
}

void
RoceMonitor::SetStopTime(Time stop)
{
    NS_LOG_FUNCTION(this << stop);
    m_stopTime = stop;
    // A pending sample past the new stop time is not taken.
    for (EventId* e : {&m_queueEvent, &m_linkEvent, &m_rateEvent})
    {
        if (!e->IsExpired() && TimeStep(e->GetTs()) > m_stopTime)
        {
            Simulator::Remove(*e);
        }
    }
}

bool
RoceMonitor::IsStopped() const
{
    return m_stopped || Simulator::Now() >= m_stopTime;
}

bool
RoceMonitor::KeepSampling(Time interval) const
{
    return !m_stopped && Simulator::Now() + interval <= m_stopTime;
}

void
RoceMonitor::SampleQueues()
{
    ++m_queueSamples;
    const int64_t now = Simulator::Now().GetNanoSeconds();
    for (std::size_t i = 0; i < m_devices.size(); ++i)
    {
        const Device& d = m_devices[i];
        if (!d.disc)
        {
            continue;
        }
        for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
        {
            uint64_t bytes = d.disc->GetQueueBytes(p);
            if (bytes > 0)
            {
                m_queue.push_back(QueueSample{now, d.node, d.ifIndex, p, bytes});
                m_portMaxSeen[i] = std::max(m_portMaxSeen[i], bytes);
            }
        }
    }
    if (KeepSampling(m_queueInterval))
    {
        m_queueEvent = Simulator::Schedule(m_queueInterval, &RoceMonitor::SampleQueues, this);
    }
}

void
RoceMonitor::SampleLinks()
{
    ++m_linkSamples;
    const Time now = Simulator::Now();
    const double seconds = (now - m_lastLinkSample).GetSeconds();
    m_lastLinkSample = now;
    for (Device& d : m_devices)
    {
        uint64_t bytes = d.dev->GetTxBytes();
        uint64_t frames = d.dev->GetTxFrames();
        uint64_t db = bytes - d.lastTxBytes;
        uint64_t df = frames - d.lastTxFrames;
        d.lastTxBytes = bytes;
        d.lastTxFrames = frames;
        if (df == 0)
        {
            continue;
        }
        double capacity = d.dev->GetDataRate().GetBitRate() * seconds;
        // Wire bytes beyond the frames' GetTxBytes sizes: the device's
        // overhead per frame (FCS, preamble, SFD and IFG on Ethernet).
        double wire = static_cast<double>(db) +
                      static_cast<double>(df) * static_cast<double>(d.dev->GetWireOverhead());
        double util = capacity > 0 ? wire * 8.0 / capacity : 0;
        m_link.push_back(LinkSample{now.GetNanoSeconds(),
                                    d.node,
                                    d.ifIndex,
                                    db,
                                    static_cast<uint32_t>(df),
                                    util});
    }
    if (KeepSampling(m_linkInterval))
    {
        m_linkEvent = Simulator::Schedule(m_linkInterval, &RoceMonitor::SampleLinks, this);
    }
}

void
RoceMonitor::SampleRates()
{
    ++m_rateSamples;
    const int64_t now = Simulator::Now().GetNanoSeconds();
    for (const Device& d : m_devices)
    {
        Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(d.dev);
        for (uint32_t q = 0; nic && q < nic->GetNQps(); ++q)
        {
            Ptr<RoceQueuePair> qp = nic->GetQpByIndex(q);
            if (!qp->HasOutstanding())
            {
                continue;
            }
            Ptr<RoceCongestionOps> cc = qp->GetCongestionControl();
            m_rate.push_back(RateSample{now,
                                        d.node,
                                        qp->GetQpn(),
                                        cc ? cc->GetRate() : 0.0,
                                        cc ? cc->GetWindow() : 0});
        }
    }
    if (KeepSampling(m_rateInterval))
    {
        m_rateEvent = Simulator::Schedule(m_rateInterval, &RoceMonitor::SampleRates, this);
    }
}

uint64_t
RoceMonitor::GetQueueSampleCount() const
{
    return m_queueSamples;
}

uint64_t
RoceMonitor::GetLinkSampleCount() const
{
    return m_linkSamples;
}

uint64_t
RoceMonitor::GetRateSampleCount() const
{
    return m_rateSamples;
}

const std::vector<RoceMonitor::PfcEvent>&
RoceMonitor::GetPfcLog() const
{
    return m_pfcTx;
}

const std::vector<RoceMonitor::PfcEvent>&
RoceMonitor::GetPfcRxLog() const
{
    return m_pfcRx;
}

const std::vector<RoceMonitor::QueueSample>&
RoceMonitor::GetQueueSamples() const
{
    return m_queue;
}

const std::vector<RoceMonitor::LinkSample>&
RoceMonitor::GetLinkSamples() const
{
    return m_link;
}

const std::vector<RoceMonitor::RateSample>&
RoceMonitor::GetRateSamples() const
{
    return m_rate;
}

std::vector<RoceMonitor::CnpCount>
RoceMonitor::GetCnpCounts() const
{
    if (m_merged)
    {
        return m_mergedCnp;
    }
    std::vector<CnpCount> rows;
    RoceForEachDevice<RoceNetDevice>([&rows](const Ptr<Node>& node, const Ptr<RoceNetDevice>& nic) {
        if (!RoceMpiHelper::IsLocal(node))
        {
            return;
        }
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            Ptr<RoceQueuePair> qp = nic->GetQpByIndex(q);
            const RoceQueuePair::Stats& s = qp->GetStats();
            if (s.cnpSent == 0 && s.cnpReceived == 0)
            {
                continue;
            }
            rows.push_back(CnpCount{node->GetId(),
                                    qp->GetQpn(),
                                    qp->GetSourcePort(),
                                    qp->GetRemoteAddress().Get(),
                                    s.cnpSent,
                                    s.cnpReceived});
        }
    });
    return rows;
}

std::vector<RoceMonitor::PortMax>
RoceMonitor::GetPortMaxQueues() const
{
    if (m_merged)
    {
        return m_mergedPortMax;
    }
    std::vector<PortMax> rows;
    for (std::size_t i = 0; i < m_devices.size(); ++i)
    {
        const Device& d = m_devices[i];
        if (!d.disc)
        {
            continue;
        }
        uint64_t peak = 0;
        for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
        {
            peak = std::max(peak, d.disc->GetMaxQueueBytes(p));
        }
        if (peak > 0)
        {
            rows.push_back(PortMax{d.node, d.ifIndex, peak, m_portMaxSeen[i]});
        }
    }
    return rows;
}

void
RoceMonitor::WriteCsv(const std::string& prefix) const
{
    NS_LOG_FUNCTION(this << prefix);
    // A prefix in a folder that does not exist yet (out/incast) gets it.
    const std::filesystem::path folder = std::filesystem::path(prefix).parent_path();
    std::error_code ignored; // a folder that cannot be made fails below, named
    if (!folder.empty())
    {
        std::filesystem::create_directories(folder, ignored);
    }
    if (m_pfcEnabled)
    {
        std::ofstream out = OpenOrAbort(prefix + "-pfc.csv");
        out << "time_ns,node,port,priority,type\n";
        for (const PfcEvent& e : m_pfcTx)
        {
            out << e.timeNs << "," << e.node << "," << e.ifIndex << "," << unsigned(e.priority)
                << "," << (e.xoff ? "XOFF" : "XON") << "\n";
        }
    }
    if (m_queueInterval.IsStrictlyPositive())
    {
        std::ofstream out = OpenOrAbort(prefix + "-queue.csv");
        out << "time_ns,node,port,priority,bytes\n";
        for (const QueueSample& s : m_queue)
        {
            out << s.timeNs << "," << s.node << "," << s.ifIndex << "," << unsigned(s.priority)
                << "," << s.bytes << "\n";
        }
    }
    if (m_linkInterval.IsStrictlyPositive())
    {
        std::ofstream out = OpenOrAbort(prefix + "-link.csv");
        out << "time_ns,node,port,tx_bytes,tx_frames,utilisation\n" << std::setprecision(6);
        for (const LinkSample& s : m_link)
        {
            out << s.timeNs << "," << s.node << "," << s.ifIndex << "," << s.bytes << ","
                << s.frames << "," << s.util << "\n";
        }
    }
    {
        std::ofstream out = OpenOrAbort(prefix + "-cnp.csv");
        out << "node,qpn,sport,dst_ip,cnp_sent,cnp_received\n";
        for (const CnpCount& c : GetCnpCounts())
        {
            out << c.node << "," << c.qpn << "," << c.sport << "," << DottedIp(c.dstIp) << ","
                << c.cnpSent << "," << c.cnpReceived << "\n";
        }
    }
    if (m_rateInterval.IsStrictlyPositive())
    {
        std::ofstream out = OpenOrAbort(prefix + "-rate.csv");
        out << "time_ns,node,qpn,rate_gbps,window_bytes\n" << std::setprecision(6);
        for (const RateSample& s : m_rate)
        {
            out << s.timeNs << "," << s.node << "," << s.qpn << "," << s.rateBps / 1e9 << ","
                << s.window << "\n";
        }
    }
}

void
RoceMonitor::WritePfcHpcc(std::ostream& os) const
{
    for (const PfcEvent& e : m_pfcRx)
    {
        os << e.timeNs << " " << e.node << " " << (e.isSwitch ? 1 : 0) << " " << e.ifIndex << " "
           << (e.xoff ? 1 : 0) << "\n";
    }
}

void
RoceMonitor::WriteJson(std::ostream& os) const
{
    os << "{\n";
    WriteJsonMembers(os, 2);
    os << "\n}\n";
}

void
RoceMonitor::WriteJsonMembers(std::ostream& os, int indent) const
{
    const std::string pad(indent, ' ');
    const std::string pad2(indent + 2, ' ');
    std::vector<CnpCount> cnp = GetCnpCounts();
    uint64_t xoff = 0;
    for (const PfcEvent& e : m_pfcTx)
    {
        xoff += e.xoff ? 1 : 0;
    }
    os << pad << "\"monitor_summary\": {\n"
       << pad2 << "\"pfc_xoff\": " << xoff << ",\n"
       << pad2 << "\"pfc_xon\": " << m_pfcTx.size() - xoff << ",\n"
       << pad2 << "\"queue_samples\": " << m_queueSamples << ",\n"
       << pad2 << "\"link_samples\": " << m_linkSamples << ",\n"
       << pad2 << "\"rate_samples\": " << m_rateSamples << ",\n"
       << pad2 << "\"cnp_qps\": " << cnp.size() << ",\n"
       << pad2 << "\"port_max_queue\": [";
    // Per switch port: the largest queue the port's queue disc saw (any
    // priority, between samples too) and the largest sample.
    bool first = true;
    for (const PortMax& m : GetPortMaxQueues())
    {
        os << (first ? "\n" : ",\n") << pad2 << "  {\"node\": " << m.node
           << ", \"port\": " << m.ifIndex << ", \"max_bytes\": " << m.maxBytes
           << ", \"max_sampled_bytes\": " << m.maxSampled << "}";
        first = false;
    }
    os << (first ? "]\n" : "\n" + pad2 + "]\n") << pad << "}";

    auto array = [&os, &pad, &pad2](const char* name, std::size_t n, auto&& row) {
        os << ",\n" << pad << "\"" << name << "\": [";
        for (std::size_t i = 0; i < n; ++i)
        {
            os << (i ? ",\n" : "\n") << pad2;
            row(i);
        }
        os << (n ? "\n" + pad + "]" : "]");
    };
    if (m_pfcEnabled)
    {
        array("pfc_events", m_pfcTx.size(), [&](std::size_t i) {
            const PfcEvent& e = m_pfcTx[i];
            os << "{\"time_ns\": " << e.timeNs << ", \"node\": " << e.node
               << ", \"port\": " << e.ifIndex << ", \"priority\": " << unsigned(e.priority)
               << ", \"type\": \"" << (e.xoff ? "XOFF" : "XON") << "\"}";
        });
    }
    if (m_queueInterval.IsStrictlyPositive())
    {
        array("queue_samples", m_queue.size(), [&](std::size_t i) {
            const QueueSample& s = m_queue[i];
            os << "{\"time_ns\": " << s.timeNs << ", \"node\": " << s.node
               << ", \"port\": " << s.ifIndex << ", \"priority\": " << unsigned(s.priority)
               << ", \"bytes\": " << s.bytes << "}";
        });
    }
    if (m_linkInterval.IsStrictlyPositive())
    {
        array("link_samples", m_link.size(), [&](std::size_t i) {
            const LinkSample& s = m_link[i];
            os << "{\"time_ns\": " << s.timeNs << ", \"node\": " << s.node
               << ", \"port\": " << s.ifIndex << ", \"tx_bytes\": " << s.bytes
               << ", \"tx_frames\": " << s.frames << ", \"utilisation\": " << s.util << "}";
        });
    }
    array("cnp_counts", cnp.size(), [&](std::size_t i) {
        const CnpCount& c = cnp[i];
        os << "{\"node\": " << c.node << ", \"qpn\": " << c.qpn << ", \"sport\": " << c.sport
           << ", \"dst_ip\": \"" << DottedIp(c.dstIp) << "\", \"cnp_sent\": " << c.cnpSent
           << ", \"cnp_received\": " << c.cnpReceived << "}";
    });
    if (m_rateInterval.IsStrictlyPositive())
    {
        array("rate_samples", m_rate.size(), [&](std::size_t i) {
            const RateSample& s = m_rate[i];
            os << "{\"time_ns\": " << s.timeNs << ", \"node\": " << s.node << ", \"qpn\": " << s.qpn
               << ", \"rate_gbps\": " << s.rateBps / 1e9 << ", \"window_bytes\": " << s.window
               << "}";
        });
    }
}

} // namespace ns3
