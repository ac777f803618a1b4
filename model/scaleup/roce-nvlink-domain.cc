/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-nvlink-domain.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-error.h"
#include "ns3/roce-pooled-event.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNvlinkDomain");
NS_OBJECT_ENSURE_REGISTERED(RoceNvlinkDomain);

namespace
{
/**
 * Transfers whose last bytes leave within this time of each other (in exact
 * fluid time) are ended by the same event: far below one simulator tick, and
 * far above the error of long double arithmetic (about 1e-19 of the time).
 */
constexpr long double SAME_INSTANT_S = 1e-12L;

/**
 * A fluid time within this fraction of a tick above a whole tick rounds down
 * to it, so that a time the formula puts exactly on a tick is not pushed to
 * the next one by a rounding error in the last digit.
 */
constexpr long double TICK_SLACK = 1e-6L;
} // namespace

TypeId
RoceNvlinkDomain::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNvlinkDomain")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceNvlinkDomain>()
            .AddAttribute("DataRate",
                          "Port rate of each GPU, per direction (egress and ingress each): "
                          "3600Gbps = 450 GB/s, H100 NVLink4. Above 0; a change re-shares "
                          "the transfers under way from that instant.",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&RoceNvlinkDomain::SetDataRate,
                                               &RoceNvlinkDomain::GetDataRate),
                          MakeDataRateChecker())
            .AddAttribute("Latency",
                          "One-way latency of a transfer (copy-engine start, NVLink link and "
                          "NVSwitch hop): every byte arrives this long after it leaves, so a "
                          "transfer is delivered Latency after its last byte left its source.",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RoceNvlinkDomain::m_latency),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute(
                "NGpus",
                "GPUs in the domain (at least 1); fixed once a transfer was sent.",
                UintegerValue(8),
                MakeUintegerAccessor(&RoceNvlinkDomain::SetNGpus, &RoceNvlinkDomain::GetNGpus),
                MakeUintegerChecker<uint32_t>())
            .AddTraceSource("Tx",
                            "A transfer started (src GPU, dst GPU, bytes, id).",
                            MakeTraceSourceAccessor(&RoceNvlinkDomain::m_txTrace),
                            "ns3::RoceNvlinkDomain::TransferTracedCallback")
            .AddTraceSource("Rx",
                            "A transfer was delivered at its destination (src GPU, dst GPU, "
                            "bytes, id).",
                            MakeTraceSourceAccessor(&RoceNvlinkDomain::m_rxTrace),
                            "ns3::RoceNvlinkDomain::TransferTracedCallback");
    return tid;
}

RoceNvlinkDomain::RoceNvlinkDomain()
    : m_rate(DataRate("3600Gbps")),
      m_latency(MicroSeconds(1)),
      m_nGpus(0),
      m_nextId(0),
      m_nInLatency(0),
      m_fluidTime(0),
      m_nextLastByte(0),
      m_nextLastByteId(0),
      m_context(Simulator::NO_CONTEXT),
      m_ticksPerSecond(static_cast<long double>(Seconds(1).GetTimeStep()))
{
    NS_LOG_FUNCTION(this);
}

RoceNvlinkDomain::~RoceNvlinkDomain() = default;

Ptr<RoceNvlinkDomain>
RoceNvlinkDomain::Install(Ptr<Node> server, uint32_t gpus)
{
    ROCE_ERROR_IF(!server, "RoceNvlinkDomain::Install: no server node");
    ROCE_ERROR_IF(server->GetObject<RoceNvlinkDomain>(),
                  "RoceNvlinkDomain::Install: node " << server->GetId()
                                                     << " already has a scale-up domain");
    Ptr<RoceNvlinkDomain> domain = CreateObject<RoceNvlinkDomain>();
    domain->SetNGpus(gpus);
    server->AggregateObject(domain);
    return domain;
}

void
RoceNvlinkDomain::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_event.Cancel();
    m_eventPending = false;
    m_active.clear();
    Object::DoDispose();
}

void
RoceNvlinkDomain::NotifyNewAggregate()
{
    if (Ptr<Node> node = GetObject<Node>())
    {
        m_context = node->GetId();
    }
    Object::NotifyNewAggregate();
}

void
RoceNvlinkDomain::ScheduleDelivery(Time delay, const Transfer& t)
{
    const uint32_t context =
        m_context == Simulator::NO_CONTEXT ? Simulator::GetContext() : m_context;
    RoceScheduleWithContext<&RoceNvlinkDomain::Deliver>(context,
                                                        delay,
                                                        this,
                                                        t.src,
                                                        t.dst,
                                                        t.bytes,
                                                        t.id,
                                                        t.done,
                                                        t.cookie);
}

uint32_t
RoceNvlinkDomain::GetNGpus() const
{
    return m_nGpus;
}

void
RoceNvlinkDomain::SetNGpus(uint32_t gpus)
{
    ROCE_ERROR_IF(gpus == 0, "RoceNvlinkDomain: NGpus=0 must be at least 1");
    ROCE_ERROR_IF(m_nextId > 0 && gpus != m_nGpus,
                  "RoceNvlinkDomain: NGpus=" << gpus << " cannot replace NGpus=" << m_nGpus
                                             << " after transfers were sent");
    m_nGpus = gpus;
    m_txBytes.assign(gpus, 0);
    m_rxBytes.assign(gpus, 0);
    m_cap.assign(2 * static_cast<std::size_t>(gpus), 0);
    m_users.assign(2 * static_cast<std::size_t>(gpus), 0);
}

DataRate
RoceNvlinkDomain::GetDataRate() const
{
    return m_rate;
}

void
RoceNvlinkDomain::SetDataRate(DataRate rate)
{
    ROCE_ERROR_IF(rate.GetBitRate() == 0, "RoceNvlinkDomain: DataRate=0bps must be positive");
    if (m_active.empty())
    {
        m_rate = rate;
        return;
    }
    CatchUp();
    Advance(NowSeconds());
    m_rate = rate;
    Reshare();
}

void
RoceNvlinkDomain::CheckGpu(uint32_t gpu, const char* what) const
{
    ROCE_ERROR_IF(gpu >= m_nGpus,
                  "RoceNvlinkDomain: " << what << "=" << gpu << " out of range 0.." << m_nGpus - 1
                                       << " (NGpus=" << m_nGpus << ")");
}

uint64_t
RoceNvlinkDomain::GetTxBytes(uint32_t gpu) const
{
    CheckGpu(gpu, "gpu");
    return m_txBytes[gpu];
}

uint64_t
RoceNvlinkDomain::GetRxBytes(uint32_t gpu) const
{
    CheckGpu(gpu, "gpu");
    return m_rxBytes[gpu];
}

uint32_t
RoceNvlinkDomain::GetNActive() const
{
    return static_cast<uint32_t>(m_active.size()) + m_nInLatency;
}

long double
RoceNvlinkDomain::NowSeconds() const
{
    return static_cast<long double>(RoceNow().GetTimeStep()) / m_ticksPerSecond;
}

Time
RoceNvlinkDomain::CeilToTick(long double seconds) const
{
    const long double ticks = seconds * m_ticksPerSecond;
    return TimeStep(static_cast<uint64_t>(std::ceil(ticks - TICK_SLACK)));
}

uint64_t
RoceNvlinkDomain::Send(uint32_t srcGpu,
                       uint32_t dstGpu,
                       uint64_t bytes,
                       Callback<void, uint64_t> done)
{
    return SendWithCookie(srcGpu, dstGpu, bytes, done, m_nextId);
}

uint64_t
RoceNvlinkDomain::SendWithCookie(uint32_t srcGpu,
                                 uint32_t dstGpu,
                                 uint64_t bytes,
                                 const Callback<void, uint64_t>& done,
                                 uint64_t cookie)
{
    NS_LOG_FUNCTION(this << srcGpu << dstGpu << bytes);
    CheckGpu(srcGpu, "srcGpu");
    CheckGpu(dstGpu, "dstGpu");
    ROCE_ERROR_IF(srcGpu == dstGpu,
                  "RoceNvlinkDomain: srcGpu=dstGpu=" << srcGpu
                                                     << ": a GPU does not send to itself");
    const uint64_t id = m_nextId++;
    m_txTrace(srcGpu, dstGpu, bytes, id);
    if (bytes == 0)
    {
        ++m_nInLatency;
        Transfer t;
        t.id = id;
        t.src = srcGpu;
        t.dst = dstGpu;
        t.bytes = 0;
        t.remainingBits = 0;
        t.rate = 0;
        t.frozen = true;
        t.done = done;
        t.cookie = cookie;
        ScheduleDelivery(m_latency, t);
        return id;
    }
    CatchUp();
    Advance(NowSeconds());
    Transfer t;
    t.id = id;
    t.src = srcGpu;
    t.dst = dstGpu;
    t.bytes = bytes;
    t.remainingBits = 8.0L * static_cast<long double>(bytes);
    t.rate = 0;
    t.frozen = false;
    t.done = done;
    t.cookie = cookie;
    m_active.push_back(t);
    Reshare();
    return id;
}

void
RoceNvlinkDomain::Advance(long double seconds)
{
    const long double dt = seconds - m_fluidTime;
    if (dt <= 0)
    {
        return;
    }
    for (auto& t : m_active)
    {
        t.remainingBits -= t.rate * dt;
        if (t.remainingBits < 0)
        {
            t.remainingBits = 0;
        }
    }
    m_fluidTime = seconds;
}

void
RoceNvlinkDomain::CatchUp()
{
    // A start or a rate change in the tick where a last byte leaves, before
    // that event ran: end those transfers first, at their exact time.
    // (m_eventPending is !m_event.IsExpired() without asking the simulator.)
    const Time now = RoceNow();
    while (m_eventPending && CeilToTick(m_nextLastByte) <= now)
    {
        RoceCancel(m_event);
        LastByteLeft();
    }
}

void
RoceNvlinkDomain::Reshare()
{
    if (m_active.empty())
    {
        RoceCancel(m_event);
        m_eventPending = false;
        return;
    }
    // Water-filling: every port p (egress of GPU g is g, ingress is G + g)
    // offers its spare capacity m_cap[p] equally to its m_users[p] transfers
    // not fixed yet; the port with the smallest offer is a bottleneck, and its
    // transfers get that offer. Repeat until every transfer has a rate.
    const long double capacity = static_cast<long double>(m_rate.GetBitRate());
    const std::size_t ports = m_cap.size();
    for (std::size_t p = 0; p < ports; ++p)
    {
        m_cap[p] = capacity;
        m_users[p] = 0;
    }
    uint32_t mostUsers = 0;
    for (auto& t : m_active)
    {
        t.frozen = false;
        mostUsers = std::max({mostUsers, ++m_users[t.src], ++m_users[m_nGpus + t.dst]});
    }
    std::size_t unfrozen = m_active.size();
    if (mostUsers == 1)
    {
        // No two transfers share a port: each gets the whole port rate, as
        // the loop below would give it (capacity / 1 is exact).
        for (auto& t : m_active)
        {
            t.rate = capacity;
            t.frozen = true;
        }
        unfrozen = 0;
    }
    while (unfrozen > 0)
    {
        std::size_t bottleneck = ports;
        long double share = std::numeric_limits<long double>::infinity();
        for (std::size_t p = 0; p < ports; ++p)
        {
            if (m_users[p] == 0)
            {
                continue;
            }
            const long double offer = m_cap[p] / m_users[p];
            if (offer < share)
            {
                share = offer;
                bottleneck = p;
            }
        }
        for (auto& t : m_active)
        {
            if (t.frozen || (t.src != bottleneck && m_nGpus + t.dst != bottleneck))
            {
                continue;
            }
            t.rate = share;
            t.frozen = true;
            --unfrozen;
            m_cap[t.src] = std::max<long double>(0, m_cap[t.src] - share);
            m_cap[m_nGpus + t.dst] = std::max<long double>(0, m_cap[m_nGpus + t.dst] - share);
            --m_users[t.src];
            --m_users[m_nGpus + t.dst];
        }
    }
    // The next last byte to leave, at constant rates from m_fluidTime.
    long double first = std::numeric_limits<long double>::infinity();
    for (const auto& t : m_active)
    {
        const long double left = t.remainingBits / t.rate;
        if (left < first)
        {
            first = left;
            m_nextLastByteId = t.id;
        }
    }
    m_nextLastByte = m_fluidTime + first;
    const Time now = RoceNow();
    const Time at = std::max(CeilToTick(m_nextLastByte), now);
    if (m_eventPending && at.GetTimeStep() == m_eventAt)
    {
        // The next last byte leaves in the same tick as before: the pending
        // event stays, in its place among that tick's events (doc/rocev2.rst,
        // "Scale-up domain": the order of same-tick events). It reads the
        // transfer and time when it runs.
        return;
    }
    RoceCancel(m_event);
    m_event = RoceSchedule<&RoceNvlinkDomain::LastByteLeft>(at - now, this);
    m_eventAt = at.GetTimeStep();
    m_eventPending = true;
}

void
RoceNvlinkDomain::LastByteLeft()
{
    m_eventPending = false; // running now, or cancelled by CatchUp
    Advance(m_nextLastByte);
    const Time delivery = CeilToTick(
        m_nextLastByte + static_cast<long double>(m_latency.GetTimeStep()) / m_ticksPerSecond);
    const Time now = RoceNow();
    const Time wait = delivery > now ? delivery - now : Time(0);
    // Compact m_active in order, so that transfers ending together are
    // delivered in the order they were sent.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_active.size(); ++i)
    {
        Transfer& t = m_active[i];
        if (t.id == m_nextLastByteId || t.remainingBits <= t.rate * SAME_INSTANT_S)
        {
            m_txBytes[t.src] += t.bytes;
            ++m_nInLatency;
            ScheduleDelivery(wait, t);
            continue;
        }
        if (kept != i)
        {
            m_active[kept] = m_active[i];
        }
        ++kept;
    }
    m_active.resize(kept);
    Reshare();
}

void
RoceNvlinkDomain::Deliver(uint32_t src,
                          uint32_t dst,
                          uint64_t bytes,
                          uint64_t id,
                          Callback<void, uint64_t> done,
                          uint64_t cookie)
{
    --m_nInLatency;
    m_rxBytes[dst] += bytes;
    m_rxTrace(src, dst, bytes, id);
    if (!done.IsNull())
    {
        done(cookie);
    }
}

} // namespace ns3
