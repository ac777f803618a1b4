/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-egress-queue-disc.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-pint-digest.h"
#include "ns3/roce-raw-header.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/roce-spec-list.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceEgressQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(RoceEgressQueueDisc);

TypeId
RoceEgressQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceEgressQueueDisc")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceEgressQueueDisc>()
            .AddAttribute("Scheduler",
                          "Scheduling among priorities: Strict or Dwrr.",
                          EnumValue(RoceEgressQueueDisc::STRICT),
                          RoceMakeEnumAccessor<RoceEgressQueueDisc::Scheduler>(
                              &RoceEgressQueueDisc::m_scheduler),
                          MakeEnumChecker(RoceEgressQueueDisc::STRICT,
                                          "Strict",
                                          RoceEgressQueueDisc::DWRR,
                                          "Dwrr"))
            .AddAttribute("DwrrQuantum",
                          "Bytes a priority of weight 1 may send per DWRR round.",
                          UintegerValue(9216),
                          MakeUintegerAccessor(&RoceEgressQueueDisc::m_quantum),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("DwrrWeights",
                          "DWRR weight of each priority, priority 0 first: 8 integers "
                          "1..65535 separated by commas. Priority i earns DwrrQuantum * w_i "
                          "bytes per round, so backlogged priorities share the link as "
                          "w_i / sum(w).",
                          StringValue("1,1,1,1,1,1,1,1"),
                          MakeStringAccessor(&RoceEgressQueueDisc::SetDwrrWeights,
                                             &RoceEgressQueueDisc::GetDwrrWeights),
                          MakeStringChecker())
            .AddAttribute("EcnEnabled",
                          "Mark ECN-capable packets with CE (RED on queue bytes).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceEgressQueueDisc::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKmin",
                          "Queue bytes below which nothing is marked, at EcnThresholdRate.",
                          QueueSizeValue(QueueSize("100KB")),
                          MakeQueueSizeAccessor(&RoceEgressQueueDisc::m_kmin),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnKmax",
                          "Queue bytes above which everything is marked, at EcnThresholdRate.",
                          QueueSizeValue(QueueSize("400KB")),
                          MakeQueueSizeAccessor(&RoceEgressQueueDisc::m_kmax),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnPmax",
                          "Marking probability at Kmax.",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&RoceEgressQueueDisc::m_pmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("EcnThresholdRate",
                          "Link rate at which EcnKmin/EcnKmax apply; they scale linearly with "
                          "the port's rate. 0 uses them as given at every rate.",
                          DataRateValue(DataRate("25Gbps")),
                          MakeDataRateAccessor(&RoceEgressQueueDisc::m_ecnThresholdRate),
                          MakeDataRateChecker())
            .AddAttribute("PintRtt",
                          "T of HPCC-PINT's utilization estimate at this egress, the base "
                          "RTT its senders use (the HPCC paper's T); a frame asking for the "
                          "PINT digest is refused while it is 0.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RoceEgressQueueDisc::m_pintRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("EcnMarkAt",
                          "Mark when a packet is enqueued or when it is dequeued.",
                          EnumValue(RoceEgressQueueDisc::MARK_AT_DEQUEUE),
                          RoceMakeEnumAccessor<RoceEgressQueueDisc::MarkPoint>(
                              &RoceEgressQueueDisc::m_markPoint),
                          MakeEnumChecker(RoceEgressQueueDisc::MARK_AT_ENQUEUE,
                                          "Enqueue",
                                          RoceEgressQueueDisc::MARK_AT_DEQUEUE,
                                          "Dequeue"))
            .AddTraceSource("Enqueue",
                            "A frame joined its priority's queue (after any mark at enqueue).",
                            MakeTraceSourceAccessor(&RoceEgressQueueDisc::m_enqueueTrace),
                            "ns3::RoceEgressQueueDisc::PacketTracedCallback")
            .AddTraceSource("Dequeue",
                            "A frame left its priority's queue for the wire (after any mark "
                            "at dequeue, before the INT stamp).",
                            MakeTraceSourceAccessor(&RoceEgressQueueDisc::m_dequeueTrace),
                            "ns3::RoceEgressQueueDisc::PacketTracedCallback")
            .AddTraceSource("Mark",
                            "A frame was marked CE (RED on its priority's queue bytes).",
                            MakeTraceSourceAccessor(&RoceEgressQueueDisc::m_markTrace),
                            "ns3::RoceEgressQueueDisc::PacketTracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped: the shared buffer refused it (the MMU's "
                            "reason), or its port's PFC watchdog flushed or refused it "
                            "(pfc-watchdog).",
                            MakeTraceSourceAccessor(&RoceEgressQueueDisc::m_dropTrace),
                            "ns3::RoceEgressQueueDisc::DropTracedCallback");
    return tid;
}

RoceEgressQueueDisc::RoceEgressQueueDisc()
{
    m_uniform = CreateObject<UniformRandomVariable>();
    m_weights.fill(1);
}

RoceEgressQueueDisc::~RoceEgressQueueDisc() = default;

void
RoceEgressQueueDisc::DoDispose()
{
    for (auto& ring : m_rings)
    {
        ring.clear();
    }
    m_mmu = nullptr;
    m_uniform = nullptr;
    Object::DoDispose();
}

void
RoceEgressQueueDisc::Setup(Ptr<RoceSharedBufferMmu> mmu, DataRate rate)
{
    m_mmu = mmu;
    m_rate = rate;
}

int64_t
RoceEgressQueueDisc::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    return 1;
}

void
RoceEgressQueueDisc::SetPausedMask(uint8_t mask)
{
    m_pausedMask = mask;
}

bool
RoceEgressQueueDisc::ParseDwrrWeights(const std::string& spec,
                                      std::array<uint32_t, ROCE_NUM_PRIORITIES>& weights,
                                      std::string& error)
{
    std::array<uint32_t, ROCE_NUM_PRIORITIES> parsed{};
    std::ostringstream why;
    why << "RoceEgressQueueDisc: DwrrWeights='" << spec << "' ";
    uint32_t n = 0;
    for (const std::string& word : RoceSpecList::Split(spec))
    {
        uint32_t w = 0;
        if (!RoceSpecList::ParseUnsigned(word, MAX_DWRR_WEIGHT, w) || w < 1)
        {
            why << "has '" << word << "' for priority " << n << ": each weight must be an "
                << "integer 1.." << MAX_DWRR_WEIGHT;
            error = why.str();
            return false;
        }
        if (n < ROCE_NUM_PRIORITIES)
        {
            parsed[n] = w;
        }
        ++n;
    }
    if (n != ROCE_NUM_PRIORITIES)
    {
        why << "has " << n << " weights; it needs " << ROCE_NUM_PRIORITIES
            << " (one per priority 0..7, separated by commas)";
        error = why.str();
        return false;
    }
    weights = parsed;
    error.clear();
    return true;
}

void
RoceEgressQueueDisc::SetDwrrWeights(std::string spec)
{
    std::string error;
    ROCE_ERROR_IF(!ParseDwrrWeights(spec, m_weights, error), error);
    m_weightSpec = spec;
    m_minWeight = *std::min_element(m_weights.begin(), m_weights.end());
}

std::string
RoceEgressQueueDisc::GetDwrrWeights() const
{
    return m_weightSpec;
}

uint32_t
RoceEgressQueueDisc::GetDwrrWeight(uint8_t priority) const
{
    return m_weights.at(priority);
}

void
RoceEgressQueueDisc::DoInitialize()
{
    ROCE_ERROR_IF(!m_mmu, "RoceEgressQueueDisc: not attached to a switch (Setup not called)");
    ROCE_ERROR_IF(m_kmin.GetUnit() != QueueSizeUnit::BYTES,
                  "RoceEgressQueueDisc: EcnKmin=" << m_kmin << " must be in bytes (e.g. 100KB)");
    ROCE_ERROR_IF(m_kmax.GetUnit() != QueueSizeUnit::BYTES,
                  "RoceEgressQueueDisc: EcnKmax=" << m_kmax << " must be in bytes (e.g. 400KB)");
    ROCE_ERROR_IF(m_kmin.GetValue() > m_kmax.GetValue(),
                  "RoceEgressQueueDisc: EcnKmin=" << m_kmin << " exceeds EcnKmax=" << m_kmax);
    double scale = 1.0;
    if (m_ecnThresholdRate.GetBitRate() > 0 && m_rate.GetBitRate() > 0)
    {
        scale = static_cast<double>(m_rate.GetBitRate()) / m_ecnThresholdRate.GetBitRate();
    }
    m_kminBytes = static_cast<uint64_t>(m_kmin.GetValue() * scale);
    m_kmaxBytes = static_cast<uint64_t>(m_kmax.GetValue() * scale);
    Object::DoInitialize();
}

uint64_t
RoceEgressQueueDisc::GetKmin() const
{
    return m_kminBytes;
}

uint64_t
RoceEgressQueueDisc::GetKmax() const
{
    return m_kmaxBytes;
}

double
RoceEgressQueueDisc::MarkProbability(uint64_t queueBytes) const
{
    if (queueBytes <= m_kminBytes)
    {
        return 0.0;
    }
    if (queueBytes > m_kmaxBytes)
    {
        return 1.0;
    }
    return m_pmax * static_cast<double>(queueBytes - m_kminBytes) /
           static_cast<double>(m_kmaxBytes - m_kminBytes);
}

void
RoceEgressQueueDisc::MaybeMark(Entry& e, uint8_t priority, uint64_t queueBytes)
{
    if (!m_ecnEnabled || !e.ect)
    {
        return;
    }
    double p = MarkProbability(queueBytes);
    if (p >= 1.0 || (p > 0 && m_uniform->GetValue() < p))
    {
        if (e.packet->SetCe())
        {
            e.ect = false; // CE now: never marked twice
            ++m_marks[priority];
            if (!m_markTrace.IsEmpty())
            {
                m_markTrace(e.packet->GetPacket(), priority);
            }
        }
    }
}

bool
RoceEgressQueueDisc::Enqueue(Ptr<Packet> p,
                             uint16_t ingress,
                             uint8_t priority,
                             bool ect,
                             uint8_t telemetry)
{
    return EnqueueFrame(RoceWireFrame::FromPacket(std::move(p)), ingress, priority, ect, telemetry);
}

bool
RoceEgressQueueDisc::EnqueueFrame(RoceFramePtr p,
                                  uint16_t ingress,
                                  uint8_t priority,
                                  bool ect,
                                  uint8_t telemetry)
{
    ROCE_ERROR_IF(priority >= ROCE_NUM_PRIORITIES,
                  "RoceEgressQueueDisc: priority " << +priority << " out of range 0..7");
    uint32_t size = p->GetSize();
    RoceSharedBufferMmu::Admission a = m_mmu->Admit(ingress, priority, size);
    if (!a.admitted)
    {
        ++m_drops[priority];
        m_dropCounts.Add(a.reason);
        if (!m_dropTrace.IsEmpty())
        {
            m_dropTrace(p->GetPacket(), priority, a.reason);
        }
        return false;
    }
    Entry& e = m_rings[priority].push_slot();
    e.packet = std::move(p);
    e.size = size;
    e.ingress = ingress;
    e.ect = ect;
    e.telemetry = telemetry;
    if (m_markPoint == MARK_AT_ENQUEUE)
    {
        MaybeMark(e, priority, m_bytes[priority]);
    }
    m_bytes[priority] += size;
    m_maxBytes[priority] = std::max(m_maxBytes[priority], m_bytes[priority]);
    ++m_nPackets;
    m_nBytes += size;
    if (!m_enqueueTrace.IsEmpty())
    {
        m_enqueueTrace(e.packet->GetPacket(), priority);
    }
    return true;
}

int
RoceEgressQueueDisc::PickQueue()
{
    uint8_t ready = 0;
    for (uint32_t i = 0; i < ROCE_NUM_PRIORITIES; ++i)
    {
        if (m_bytes[i] > 0 && !(m_pausedMask & (1u << i)))
        {
            ready |= static_cast<uint8_t>(1u << i);
        }
    }
    if (!ready)
    {
        return -1;
    }
    if (m_scheduler == STRICT)
    {
        for (int i = ROCE_NUM_PRIORITIES - 1; i >= 0; --i)
        {
            if (ready & (1u << i))
            {
                return i;
            }
        }
    }
    // DWRR: the queue whose turn it is earns its quantum (DwrrQuantum times
    // its weight) when its turn starts and sends while its deficit covers its
    // head packet; then the turn moves on. An empty or paused queue loses its
    // deficit. A head packet needs at most 65536 / (smallest quantum) turns.
    uint32_t maxVisits = ROCE_NUM_PRIORITIES * (2 + 65536 / (uint64_t(m_quantum) * m_minWeight));
    for (uint32_t visits = 0; visits < maxVisits; ++visits)
    {
        uint32_t i = m_dwrrNext;
        if (ready & (1u << i))
        {
            if (!m_dwrrTurnStarted)
            {
                m_deficit[i] += static_cast<int64_t>(m_quantum) * m_weights[i];
                m_dwrrTurnStarted = true;
            }
            if (m_deficit[i] >= static_cast<int64_t>(m_rings[i].front().size))
            {
                return static_cast<int>(i);
            }
        }
        else
        {
            m_deficit[i] = 0;
        }
        m_dwrrNext = (m_dwrrNext + 1) % ROCE_NUM_PRIORITIES;
        m_dwrrTurnStarted = false;
    }
    ROCE_ERROR("RoceEgressQueueDisc: DWRR found no queue to serve");
    return -1;
}

Ptr<Packet>
RoceEgressQueueDisc::Dequeue(uint8_t* priority, uint8_t* telemetry)
{
    RoceFramePtr p = DequeueFrame(priority, telemetry);
    return p ? p->GetPacket() : nullptr;
}

RoceFramePtr
RoceEgressQueueDisc::DequeueFrame(uint8_t* priority, uint8_t* telemetry)
{
    int q = PickQueue();
    if (q < 0)
    {
        return nullptr;
    }
    auto prio = static_cast<uint8_t>(q);
    Ring& ring = m_rings[prio];
    Entry& e = ring.front();
    uint32_t size = e.size;
    if (m_scheduler == DWRR)
    {
        m_deficit[prio] -= size;
    }
    if (m_markPoint == MARK_AT_DEQUEUE)
    {
        MaybeMark(e, prio, m_bytes[prio]);
    }
    RoceFramePtr p = std::move(e.packet);
    uint16_t ingress = e.ingress;
    const uint8_t stamp = e.telemetry;
    if (telemetry)
    {
        *telemetry = stamp;
    }
    if (priority)
    {
        *priority = prio;
    }
    ring.pop_front();
    m_bytes[prio] -= size;
    --m_nPackets;
    m_nBytes -= size;
    m_mmu->Release(ingress, prio, size); // may call XON through the switch
    if (m_pint || stamp == TELEMETRY_PINT)
    {
        UpdatePint(*p, stamp == TELEMETRY_PINT);
    }
    if (!m_dequeueTrace.IsEmpty())
    {
        m_dequeueTrace(p->GetPacket(), prio);
    }
    return p;
}

uint32_t
RoceEgressQueueDisc::GetNPackets() const
{
    return m_nPackets;
}

uint64_t
RoceEgressQueueDisc::GetNBytes() const
{
    return m_nBytes;
}

uint32_t
RoceEgressQueueDisc::GetNPackets(uint8_t priority) const
{
    return m_rings.at(priority).size();
}

uint64_t
RoceEgressQueueDisc::GetQueueBytes(uint8_t priority) const
{
    return m_bytes.at(priority);
}

uint64_t
RoceEgressQueueDisc::GetMaxQueueBytes(uint8_t priority) const
{
    return m_maxBytes.at(priority);
}

uint64_t
RoceEgressQueueDisc::GetEcnMarks(uint8_t priority) const
{
    return m_marks.at(priority);
}

uint64_t
RoceEgressQueueDisc::GetDrops(uint8_t priority) const
{
    return m_drops.at(priority);
}

const RoceDropCounts&
RoceEgressQueueDisc::GetDropCounts() const
{
    return m_dropCounts;
}

void
RoceEgressQueueDisc::UpdatePint(RoceWireFrame& p, bool stamp)
{
    const int64_t now = RoceNow().GetNanoSeconds();
    if (!m_pint)
    {
        ROCE_ERROR_IF(!m_pintRtt.IsStrictlyPositive(),
                      "RoceEgressQueueDisc: a frame asks for the PINT digest but PintRtt is 0; "
                      "set ns3::RoceEgressQueueDisc::PintRtt to the senders' base RTT");
        m_pint = std::make_unique<PintState>();
        m_pint->logBase = RocePintDigest::GetLogBase();
        m_pint->wireOverhead = RocePfcNetDevice::GetGlobalWireOverhead();
    }
    PintState& s = *m_pint;
    if (stamp)
    {
        // The HPCC paper's per-link utilization (eqs. 2 and 3), kept by the
        // switch as PINT does: U = qlen / (B T) + txRate / B, averaged over
        // T with the weight dt / T of the time since the previous frame; the
        // previous frame's bytes over dt stand for txRate, and qlen is the
        // port's queue, every priority, after this frame left.
        const double t = m_pintRtt.GetSeconds();
        const double dt = std::min(t, (now - s.lastNs) * 1e-9);
        const double b = m_rate.GetBitRate() / 8.0;
        s.u = s.u * (t - dt) / t + static_cast<double>(m_nBytes) * dt / (b * t * t) +
              s.lastWireBytes / (b * t);
        p.RaisePint(RocePintDigest::Encode(s.u, s.logBase, m_uniform->GetValue()));
    }
    s.lastNs = now;
    s.lastWireBytes = RocePfcNetDevice::WireBytes(p.GetSize(), s.wireOverhead);
}

} // namespace ns3
