/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch-port.h"

#include "roce-switch.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-raw-header.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitchPort");
NS_OBJECT_ENSURE_REGISTERED(RoceSwitchPort);

TypeId
RoceSwitchPort::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitchPort")
            .SetParent<RocePfcNetDevice>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceSwitchPort>()
            .AddAttribute("EgressQueueDisc",
                          "The port's egress queue disc (per-priority queues, ECN marking, "
                          "scheduling). The switch creates it when the port joins.",
                          PointerValue(),
                          MakePointerAccessor(&RoceSwitchPort::m_qdisc),
                          MakePointerChecker<RoceEgressQueueDisc>());
    return tid;
}

RoceSwitchPort::RoceSwitchPort() = default;

RoceSwitchPort::~RoceSwitchPort() = default;

void
RoceSwitchPort::SetSwitch(RoceSwitch* sw, uint32_t index, Ptr<RoceEgressQueueDisc> qdisc)
{
    m_switch = sw;
    m_index = index;
    m_qdisc = qdisc;
}

uint32_t
RoceSwitchPort::GetPortIndex() const
{
    return m_index;
}

Ptr<RoceEgressQueueDisc>
RoceSwitchPort::GetQueueDisc() const
{
    return m_qdisc;
}

void
RoceSwitchPort::DoDispose()
{
    m_switch = nullptr;
    if (m_qdisc)
    {
        m_qdisc->Dispose();
    }
    m_qdisc = nullptr;
    RocePfcNetDevice::DoDispose();
}

bool
RoceSwitchPort::Enqueue(Ptr<Packet> p,
                        uint16_t ingress,
                        uint8_t priority,
                        bool ect,
                        bool intRequest)
{
    if (m_qdisc->Enqueue(std::move(p), ingress, priority, ect, intRequest))
    {
        TryTransmit();
        return true;
    }
    return false;
}

Ptr<Packet>
RoceSwitchPort::DequeueData(uint8_t pausedMask)
{
    m_qdisc->SetPausedMask(pausedMask);
    uint8_t priority = 0;
    bool intRequest = false;
    Ptr<Packet> p = m_qdisc->Dequeue(&priority, &intRequest);
    if (p && intRequest)
    {
        StampInt(p, priority);
    }
    return p;
}

void
RoceSwitchPort::StampInt(Ptr<Packet> p, uint8_t priority)
{
    RoceIntRecord r;
    r.rateMbps = static_cast<uint32_t>(GetDataRate().GetBitRate() / 1000000);
    r.queueBytes = m_qdisc->GetQueueBytes(priority);
    r.txBytes = GetTxBytes();
    r.timestampNs = static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
    RoceRawHeader::StampInt(*p, r);
}

void
RoceSwitchPort::ReceiveFrame(Ptr<Packet> p, const RoceFrame& frame)
{
    NS_ABORT_MSG_IF(!m_switch, "RoceSwitchPort: port is not part of a RoceSwitch");
    m_switch->Receive(this, p, frame);
}

bool
RoceSwitchPort::DropsWhenLinkDown() const
{
    return true;
}

bool
RoceSwitchPort::HasWaitingData(uint8_t pausedMask) const
{
    return m_qdisc->HasUnpausedData(pausedMask);
}

} // namespace ns3
