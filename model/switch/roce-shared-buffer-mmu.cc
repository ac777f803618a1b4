/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-shared-buffer-mmu.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-spec-list.h"
#include "ns3/string.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSharedBufferMmu");
NS_OBJECT_ENSURE_REGISTERED(RoceSharedBufferMmu);

TypeId
RoceSharedBufferMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSharedBufferMmu")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceSharedBufferMmu>()
            .AddAttribute("BufferSize",
                          "Total packet buffer of the switch.",
                          QueueSizeValue(QueueSize("32MB")),
                          MakeQueueSizeAccessor(&RoceSharedBufferMmu::m_bufferSize),
                          MakeQueueSizeChecker())
            .AddAttribute(
                "Mode",
                "Threshold mode: Dynamic (T = Alpha * free shared buffer), Static "
                "(T = StaticThreshold) or Partitioned (buffer split per port, "
                "dynamic within each port's share; deep-buffer switches).",
                EnumValue(RoceSharedBufferMmu::DYNAMIC),
                RoceMakeEnumAccessor<RoceSharedBufferMmu::Mode>(&RoceSharedBufferMmu::m_mode),
                MakeEnumChecker(RoceSharedBufferMmu::DYNAMIC,
                                "Dynamic",
                                RoceSharedBufferMmu::STATIC,
                                "Static",
                                RoceSharedBufferMmu::PARTITIONED,
                                "Partitioned"))
            .AddAttribute(
                "Alpha",
                "Dynamic-threshold factor, > 0 (typically 1/128 .. 8).",
                DoubleValue(1.0 / 8),
                MakeDoubleAccessor(&RoceSharedBufferMmu::SetAlpha, &RoceSharedBufferMmu::GetAlpha),
                MakeDoubleChecker<double>())
            .AddAttribute(
                "AlphaReferenceRate",
                "0 (default): every port's dynamic-threshold factor is Alpha. Otherwise a "
                "port's factor is Alpha doubled once for each time its rate, halved "
                "repeatedly (in bit/s, rounded down), is still above this rate, up to 1 (or "
                "Alpha if that is larger): the HPCC simulator's rule with the host rate here, "
                "1/8 on 100 Gb/s host links and 1/2 on 400 Gb/s fabric links.",
                DataRateValue(DataRate(0)),
                MakeDataRateAccessor(&RoceSharedBufferMmu::SetAlphaReferenceRate,
                                     &RoceSharedBufferMmu::GetAlphaReferenceRate),
                MakeDataRateChecker())
            .AddAttribute("StaticThreshold",
                          "Shared bytes one PG may use in Static mode.",
                          QueueSizeValue(QueueSize("1MB")),
                          MakeQueueSizeAccessor(&RoceSharedBufferMmu::m_staticThreshold),
                          MakeQueueSizeChecker())
            .AddAttribute("ReservedPerPg",
                          "Guaranteed minimum per (port, PG).",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&RoceSharedBufferMmu::m_reservedPerPg),
                          MakeQueueSizeChecker())
            .AddAttribute("Headroom",
                          "Headroom per lossless PG. 0B computes it per port from the link: "
                          "2*rate*delay + 2*MaxFrameSize + rate*PfcResponseTime.",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&RoceSharedBufferMmu::m_headroomOverride),
                          MakeQueueSizeChecker())
            .AddAttribute("MaxFrameSize",
                          "Largest frame, used in the headroom formula.",
                          QueueSizeValue(QueueSize("4200B")),
                          MakeQueueSizeAccessor(&RoceSharedBufferMmu::m_maxFrameSize),
                          MakeQueueSizeChecker())
            .AddAttribute("PfcResponseTime",
                          "Time for the upstream port to act on a pause, used in the "
                          "headroom formula.",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RoceSharedBufferMmu::m_pfcResponseTime),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("XonOffset",
                          "XON is sent when a PG's bytes fall to its threshold minus this.",
                          QueueSizeValue(QueueSize("8400B")),
                          MakeQueueSizeAccessor(&RoceSharedBufferMmu::m_xonOffset),
                          MakeQueueSizeChecker())
            .AddAttribute("PfcEnabled",
                          "PFC on this switch. Off, every priority is lossy.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceSharedBufferMmu::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("LosslessPriorities",
                          "Priorities that PFC protects, e.g. '3' or '3,4'; '' for none.",
                          StringValue("3"),
                          MakeStringAccessor(&RoceSharedBufferMmu::SetLossless,
                                             &RoceSharedBufferMmu::GetLossless),
                          MakeStringChecker())
            .AddTraceSource("SharedUsed",
                            "Bytes in the shared pool(s).",
                            MakeTraceSourceAccessor(&RoceSharedBufferMmu::m_sharedUsed),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

RoceSharedBufferMmu::RoceSharedBufferMmu() = default;

void
RoceSharedBufferMmu::SetAlpha(double alpha)
{
    ROCE_ERROR_IF(!(alpha > 0) || alpha > 1024,
                  "RoceSharedBufferMmu: Alpha=" << alpha
                                                << " out of range: must be > 0 (and <= 1024)");
    m_alpha = alpha;
    UpdatePortAlpha();
}

double
RoceSharedBufferMmu::GetAlpha() const
{
    return m_alpha;
}

void
RoceSharedBufferMmu::SetAlphaReferenceRate(DataRate rate)
{
    m_alphaReferenceRate = rate;
    UpdatePortAlpha();
}

DataRate
RoceSharedBufferMmu::GetAlphaReferenceRate() const
{
    return m_alphaReferenceRate;
}

void
RoceSharedBufferMmu::UpdatePortAlpha()
{
    m_portAlpha.assign(m_portRate.size(), m_alpha);
    const uint64_t reference = m_alphaReferenceRate.GetBitRate();
    // Double while the halved rate is above the reference, and the factor
    // stays at most max(Alpha, 1).
    const double cap = std::max(m_alpha, 1.0);
    for (uint32_t p = 0; reference > 0 && p < m_portRate.size(); ++p)
    {
        for (uint64_t r = m_portRate[p]; r > reference && m_portAlpha[p] * 2 <= cap; r /= 2)
        {
            m_portAlpha[p] *= 2;
        }
    }
}

void
RoceSharedBufferMmu::SetLossless(std::string s)
{
    m_losslessSpec = s;
    m_losslessMask = 0;
    for (const std::string& item : RoceSpecList::Split(s))
    {
        if (item.empty())
        {
            continue;
        }
        uint32_t p = 0;
        ROCE_ERROR_IF(!RoceSpecList::ParseUnsigned(item, ROCE_NUM_PRIORITIES - 1, p),
                      "RoceSharedBufferMmu: LosslessPriorities entry '"
                          << item << "' is not a priority 0..7");
        m_losslessMask |= static_cast<uint8_t>(1u << p);
    }
}

std::string
RoceSharedBufferMmu::GetLossless() const
{
    return m_losslessSpec;
}

bool
RoceSharedBufferMmu::IsLossless(uint8_t pg) const
{
    return m_pfcEnabled && (m_losslessMask & (1u << pg)) != 0;
}

void
RoceSharedBufferMmu::Configure(const std::vector<PortLink>& links)
{
    ROCE_ERROR_IF(m_bufferSize.GetUnit() != QueueSizeUnit::BYTES,
                  "RoceSharedBufferMmu: BufferSize=" << m_bufferSize << " must be in bytes");
    m_nPorts = static_cast<uint32_t>(links.size());
    m_headroom.assign(m_nPorts, 0);
    m_portRate.resize(m_nPorts);
    for (uint32_t p = 0; p < m_nPorts; ++p)
    {
        m_portRate[p] = links[p].rate.GetBitRate();
    }
    UpdatePortAlpha();
    m_pgs.assign(m_nPorts * ROCE_NUM_PRIORITIES, PgState());
    uint32_t nLossless = 0;
    for (uint8_t pg = 0; pg < ROCE_NUM_PRIORITIES; ++pg)
    {
        nLossless += IsLossless(pg) ? 1 : 0;
    }
    uint64_t reservedAll = 0;
    uint64_t headroomAll = 0;
    for (uint32_t p = 0; p < m_nPorts; ++p)
    {
        if (m_headroomOverride.GetValue() > 0)
        {
            m_headroom[p] = m_headroomOverride.GetValue();
        }
        else
        {
            // Exact integer arithmetic, rounded up: headroom is at least the formula.
            // (__extension__: 128-bit integers are a GCC and Clang extension
            // that -Wpedantic otherwise reports.)
            __extension__ typedef unsigned __int128 Wide;
            const Wide bitPs = static_cast<Wide>(links[p].rate.GetBitRate()) *
                               static_cast<uint64_t>(2 * links[p].delay.GetPicoSeconds() +
                                                     m_pfcResponseTime.GetPicoSeconds());
            const Wide psPerByte = 8000000000000ULL; // 8 bits x 1e12 ps/s
            m_headroom[p] = static_cast<uint64_t>((bitPs + psPerByte - 1) / psPerByte) +
                            2 * m_maxFrameSize.GetValue();
        }
        reservedAll += ROCE_NUM_PRIORITIES * m_reservedPerPg.GetValue();
        headroomAll += nLossless * m_headroom[p];
    }
    uint64_t buffer = m_bufferSize.GetValue();
    ROCE_ERROR_IF(reservedAll + headroomAll >= buffer,
                  "RoceSharedBufferMmu: BufferSize=" << m_bufferSize << " is smaller than the "
                                                     << reservedAll << " B of reserves and "
                                                     << headroomAll << " B of headroom its "
                                                     << m_nPorts << " ports need");
    if (m_mode == PARTITIONED)
    {
        uint64_t share = buffer / std::max<uint32_t>(1, m_nPorts);
        m_poolSize.assign(m_nPorts, 0);
        for (uint32_t p = 0; p < m_nPorts; ++p)
        {
            uint64_t need =
                ROCE_NUM_PRIORITIES * m_reservedPerPg.GetValue() + nLossless * m_headroom[p];
            ROCE_ERROR_IF(need >= share,
                          "RoceSharedBufferMmu: in Partitioned mode port "
                              << p << " gets " << share << " B, less than the " << need
                              << " B of reserves and headroom it needs");
            m_poolSize[p] = share - need;
        }
    }
    else
    {
        m_poolSize.assign(1, buffer - reservedAll - headroomAll);
    }
    m_poolUsed.assign(m_poolSize.size(), 0);
    m_sharedUsed = 0;
    m_totalBytes = 0;
    m_configured = true;
}

bool
RoceSharedBufferMmu::IsConfigured() const
{
    return m_configured;
}

void
RoceSharedBufferMmu::DoDispose()
{
    m_pfcCallback = PfcCallback();
    Object::DoDispose();
}

void
RoceSharedBufferMmu::SetPfcCallback(PfcCallback cb)
{
    m_pfcCallback = cb;
}

uint32_t
RoceSharedBufferMmu::PoolIndex(uint32_t port) const
{
    return m_mode == PARTITIONED ? port : 0;
}

uint64_t
RoceSharedBufferMmu::GetThreshold(uint32_t port, uint8_t /* pg */) const
{
    if (m_mode == STATIC)
    {
        return m_staticThreshold.GetValue();
    }
    uint32_t i = PoolIndex(port);
    return static_cast<uint64_t>(m_portAlpha[port] *
                                 static_cast<double>(m_poolSize[i] - m_poolUsed[i]));
}

double
RoceSharedBufferMmu::GetPortAlpha(uint32_t port) const
{
    ROCE_ERROR_IF(port >= m_portAlpha.size(),
                  "RoceSharedBufferMmu: port " << port << " is not configured");
    return m_portAlpha[port];
}

RoceSharedBufferMmu::Admission
RoceSharedBufferMmu::Admit(uint32_t port, uint8_t pg, uint32_t bytes)
{
    PgState& s = m_pgs[port * ROCE_NUM_PRIORITIES + pg];
    Admission a;
    if (s.reserved + bytes <= m_reservedPerPg.GetValue())
    {
        s.reserved += bytes;
        a.admitted = true;
        a.pool = RESERVED;
    }
    else
    {
        bool lossless = IsLossless(pg);
        uint32_t pi = PoolIndex(port);
        bool poolHasRoom = m_poolUsed[pi] + bytes <= m_poolSize[pi];
        bool underThreshold = s.shared + bytes <= GetThreshold(port, pg);
        if (poolHasRoom && underThreshold && !(lossless && s.xoff))
        {
            s.shared += bytes;
            m_poolUsed[pi] += bytes;
            m_sharedUsed += bytes;
            a.admitted = true;
            a.pool = SHARED;
        }
        else if (lossless && s.headroom + bytes <= m_headroom[port])
        {
            s.headroom += bytes;
            s.maxHeadroom = std::max(s.maxHeadroom, s.headroom);
            a.admitted = true;
            a.pool = HEADROOM;
            if (!s.xoff)
            {
                s.xoff = true;
                a.sendXoff = true;
            }
        }
        else
        {
            a.reason = lossless ? DROP_HEADROOM : (poolHasRoom ? DROP_THRESHOLD : DROP_BUFFER_FULL);
            return a;
        }
    }
    m_totalBytes += bytes;
    s.maxBytes = std::max(s.maxBytes, s.reserved + s.shared + s.headroom);
    if (a.sendXoff && !m_pfcCallback.IsNull())
    {
        m_pfcCallback(port, pg, true); // last: the packet is fully counted
    }
    return a;
}

bool
RoceSharedBufferMmu::Release(uint32_t port, uint8_t pg, uint32_t bytes)
{
    PgState& s = m_pgs[port * ROCE_NUM_PRIORITIES + pg];
    ROCE_ERROR_IF(s.reserved + s.shared + s.headroom < bytes,
                  "RoceSharedBufferMmu: port " << port << " PG " << +pg << " releases " << bytes
                                               << " B but holds "
                                               << s.reserved + s.shared + s.headroom);
    uint64_t fromHeadroom = std::min<uint64_t>(bytes, s.headroom);
    s.headroom -= fromHeadroom;
    uint64_t rest = bytes - fromHeadroom;
    uint64_t fromShared = std::min(rest, s.shared);
    s.shared -= fromShared;
    m_poolUsed[PoolIndex(port)] -= fromShared;
    m_sharedUsed -= fromShared;
    s.reserved -= rest - fromShared;
    m_totalBytes -= bytes;
    if (!s.xoff || s.headroom > 0)
    {
        return false;
    }
    if (s.shared == 0 || s.shared + m_xonOffset.GetValue() <= GetThreshold(port, pg))
    {
        s.xoff = false;
        if (!m_pfcCallback.IsNull())
        {
            m_pfcCallback(port, pg, false);
        }
        return true;
    }
    return false;
}

uint64_t
RoceSharedBufferMmu::GetHeadroom(uint32_t port) const
{
    return m_headroom.at(port);
}

uint64_t
RoceSharedBufferMmu::GetPgBytes(uint32_t port, uint8_t pg) const
{
    const PgState& s = m_pgs.at(port * ROCE_NUM_PRIORITIES + pg);
    return s.reserved + s.shared + s.headroom;
}

uint64_t
RoceSharedBufferMmu::GetPgMaxBytes(uint32_t port, uint8_t pg) const
{
    return m_pgs.at(port * ROCE_NUM_PRIORITIES + pg).maxBytes;
}

uint64_t
RoceSharedBufferMmu::GetPgHeadroomBytes(uint32_t port, uint8_t pg) const
{
    return m_pgs.at(port * ROCE_NUM_PRIORITIES + pg).headroom;
}

uint64_t
RoceSharedBufferMmu::GetPgMaxHeadroomBytes(uint32_t port, uint8_t pg) const
{
    return m_pgs.at(port * ROCE_NUM_PRIORITIES + pg).maxHeadroom;
}

bool
RoceSharedBufferMmu::IsXoff(uint32_t port, uint8_t pg) const
{
    return m_pgs.at(port * ROCE_NUM_PRIORITIES + pg).xoff;
}

uint64_t
RoceSharedBufferMmu::GetTotalBytes() const
{
    return m_totalBytes;
}

uint64_t
RoceSharedBufferMmu::GetSharedUsed() const
{
    return m_sharedUsed;
}

uint64_t
RoceSharedBufferMmu::GetSharedPoolSize() const
{
    return m_poolSize.empty() ? 0 : m_poolSize[0];
}

uint64_t
RoceSharedBufferMmu::GetBufferSize() const
{
    return m_bufferSize.GetValue();
}

RoceSharedBufferMmu::Mode
RoceSharedBufferMmu::GetMode() const
{
    return m_mode;
}

} // namespace ns3
