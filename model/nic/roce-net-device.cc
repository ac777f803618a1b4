/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-net-device.h"

#include "ns3/boolean.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-vector.h"
#include "ns3/roce-aeth-header.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-cc-none.h"
#include "ns3/roce-encap-header.h"
#include "ns3/roce-error.h"
#include "ns3/roce-header-block.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pint-digest.h"
#include "ns3/roce-pooled-event.h"
#include "ns3/roce-rank-call.h"
#include "ns3/roce-raw-trailer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDevice");
NS_OBJECT_ENSURE_REGISTERED(RoceMessageOffload);

TypeId
RoceMessageOffload::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceMessageOffload").SetParent<Object>().SetGroupName("Rocev2");
    return tid;
}

NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

TypeId
RoceNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNetDevice")
            .SetParent<RocePfcNetDevice>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceNetDevice>()
            .AddAttribute("Ipv4Address",
                          "The NIC's IPv4 address (RoCEv2 source/destination).",
                          Ipv4AddressValue(Ipv4Address("0.0.0.0")),
                          MakeIpv4AddressAccessor(&RoceNetDevice::SetIpv4Address,
                                                  &RoceNetDevice::GetIpv4Address),
                          MakeIpv4AddressChecker())
            .AddAttribute(
                "PayloadMtu",
                "RoCE MTU: payload bytes per packet, 256..4096 (IB MTUs) or up to "
                "9000 (jumbo).",
                UintegerValue(1024),
                MakeUintegerAccessor(&RoceNetDevice::SetPayloadMtu, &RoceNetDevice::GetPayloadMtu),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute("CongestionControl",
                          "Congestion control that every QP of this NIC forks "
                          "(a subclass of ns3::RoceCongestionOps).",
                          TypeIdValue(RoceCcNone::GetTypeId()),
                          MakeTypeIdAccessor(&RoceNetDevice::SetCongestionControlType,
                                             &RoceNetDevice::GetCongestionControlType),
                          MakeTypeIdChecker())
            .AddAttribute("QueuePairList",
                          "The queue pairs of this NIC, by slot (QP number - 2).",
                          ObjectVectorValue(),
                          MakeObjectVectorAccessor(&RoceNetDevice::m_qps),
                          MakeObjectVectorChecker<RoceQueuePair>())
            .AddAttribute("CnpPriority",
                          "Priority of the CNPs this NIC sends, 0..7.",
                          UintegerValue(6),
                          MakeUintegerAccessor(&RoceNetDevice::SetCnpPriority,
                                               &RoceNetDevice::GetCnpPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute(
                "AckClass",
                "The class the ACKs and NAKs this NIC sends travel in. QueuePair: the "
                "class of the queue pair they acknowledge (its NIC queue, its pause, its "
                "DSCP). Control: CnpPriority's, with the CNPs (NIC queue, pause and "
                "DSCP), so every switch serves them ahead of data. ControlQueue: they "
                "leave from CnpPriority's NIC queue, ahead of data and not held by a "
                "pause of the data's class, but carry the queue pair's DSCP, so switches "
                "queue them with its data (the HPCC simulator's ACK_HIGH_PRIO 1; a NIC "
                "doing so sends frames of a paused class, which 802.1Qbb forbids).",
                EnumValue(RoceNetDevice::ACK_QUEUE_PAIR),
                RoceMakeEnumAccessor<RoceNetDevice::AckClass>(&RoceNetDevice::SetAckClass,
                                                              &RoceNetDevice::GetAckClass),
                MakeEnumChecker(RoceNetDevice::ACK_QUEUE_PAIR,
                                "QueuePair",
                                RoceNetDevice::ACK_CONTROL,
                                "Control",
                                RoceNetDevice::ACK_CONTROL_QUEUE,
                                "ControlQueue"))
            .AddAttribute("RxDrainRate",
                          "Rate at which the host (PCIe, memory) drains the receive buffer. "
                          "0 means the host is never a bottleneck and no buffer is modelled.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RoceNetDevice::m_rxDrainRate),
                          MakeDataRateChecker())
            .AddAttribute("RxBufferSize",
                          "Receive buffer size; frames beyond it are dropped.",
                          QueueSizeValue(QueueSize("2MB")),
                          MakeQueueSizeAccessor(&RoceNetDevice::m_rxBufferSize),
                          MakeQueueSizeChecker())
            .AddAttribute("RxXoffThreshold",
                          "Receive-buffer occupancy of a priority at which the NIC pauses "
                          "its link peer (PFC XOFF).",
                          QueueSizeValue(QueueSize("512KB")),
                          MakeQueueSizeAccessor(&RoceNetDevice::m_rxXoff),
                          MakeQueueSizeChecker())
            .AddAttribute("RxXonThreshold",
                          "Occupancy below which a paused peer is resumed (PFC XON).",
                          QueueSizeValue(QueueSize("256KB")),
                          MakeQueueSizeAccessor(&RoceNetDevice::m_rxXon),
                          MakeQueueSizeChecker());
    return tid;
}

namespace
{
uint64_t g_liveNics = 0; //!< RoceNetDevices alive (GetLiveCount)
} // namespace

RoceNetDevice::RoceNetDevice()
{
    ++g_liveNics;
}

RoceNetDevice::~RoceNetDevice()
{
    --g_liveNics;
}

uint64_t
RoceNetDevice::GetLiveCount()
{
    return g_liveNics;
}

void
RoceNetDevice::DoInitialize()
{
    // Checked whether or not RxDrainRate is set now: a slow-receiver fault
    // may set it later.
    {
        ROCE_ERROR_IF(m_rxBufferSize.GetUnit() != QueueSizeUnit::BYTES ||
                          m_rxXoff.GetUnit() != QueueSizeUnit::BYTES ||
                          m_rxXon.GetUnit() != QueueSizeUnit::BYTES,
                      "RoceNetDevice: RxBufferSize, RxXoffThreshold and RxXonThreshold "
                      "must be in bytes (e.g. '512KB')");
        ROCE_ERROR_IF(m_rxXon.GetValue() >= m_rxXoff.GetValue(),
                      "RoceNetDevice: RxXonThreshold="
                          << m_rxXon << " must be below RxXoffThreshold=" << m_rxXoff);
        ROCE_ERROR_IF(m_rxXoff.GetValue() >= m_rxBufferSize.GetValue(),
                      "RoceNetDevice: RxXoffThreshold="
                          << m_rxXoff << " must be below RxBufferSize=" << m_rxBufferSize);
    }
    RocePfcNetDevice::DoInitialize();
}

void
RoceNetDevice::SetMessageOffload(Ptr<RoceMessageOffload> offload)
{
    m_offload = offload;
}

void
RoceNetDevice::DoDispose()
{
    m_offload = nullptr;
    m_wakeEvent.Cancel();
    m_wakePending = false;
    m_drainEvent.Cancel();
    for (auto& qp : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    m_ccPrototype = nullptr;
    m_scheduler.Clear();
    for (auto& c : m_control)
    {
        c.clear();
    }
    m_rxBuffer.clear();
    RocePfcNetDevice::DoDispose();
}

Ipv4Address
RoceNetDevice::GetIpv4Address() const
{
    return m_ipv4;
}

void
RoceNetDevice::SetIpv4Address(Ipv4Address address)
{
    m_ipv4 = address;
    ++m_headerGeneration;
}

void
RoceNetDevice::SetAddress(Address address)
{
    RocePfcNetDevice::SetAddress(address);
    ++m_headerGeneration;
}

void
RoceNetDevice::SetPayloadMtu(uint32_t mtu)
{
    ROCE_ERROR_IF(mtu < 256 || mtu > 9000,
                  "RoceNetDevice: PayloadMtu=" << mtu << " out of range 256..9000 bytes");
    m_payloadMtu = mtu;
}

uint32_t
RoceNetDevice::GetPayloadMtu() const
{
    return m_payloadMtu;
}

TypeId
RoceNetDevice::GetCongestionControlType() const
{
    return m_ccType;
}

void
RoceNetDevice::SetCongestionControlType(TypeId tid)
{
    ROCE_ERROR_IF(
        tid != RoceCongestionOps::GetTypeId() && !tid.IsChildOf(RoceCongestionOps::GetTypeId()),
        "RoceNetDevice: CongestionControl=" << tid.GetName() << " is not a ns3::RoceCongestionOps");
    ROCE_ERROR_IF(!tid.HasConstructor(),
                  "RoceNetDevice: CongestionControl=" << tid.GetName()
                                                      << " cannot be created (abstract)");
    if (tid != m_ccType)
    {
        m_ccPrototype = nullptr;
    }
    m_ccType = tid;
}

void
RoceNetDevice::SetCongestionControl(Ptr<RoceCongestionOps> prototype)
{
    ROCE_ERROR_IF(!prototype, "RoceNetDevice: SetCongestionControl(nullptr)");
    m_ccType = prototype->GetInstanceTypeId();
    m_ccPrototype = prototype;
}

Ptr<RoceCongestionOps>
RoceNetDevice::GetCongestionControl()
{
    if (!m_ccPrototype)
    {
        ObjectFactory f;
        f.SetTypeId(m_ccType);
        m_ccPrototype = f.Create<RoceCongestionOps>();
    }
    return m_ccPrototype;
}

uint32_t
RoceNetDevice::AddQp(Ptr<RoceQueuePair> qp)
{
    ROCE_ERROR_IF(!qp || qp->GetState() != RoceQueuePair::RESET || qp->GetQpn() != 0,
                  "RoceNetDevice: AddQp needs a new, unconnected queue pair");
    ROCE_ERROR_IF(m_reservedQpns > 0,
                  "RoceNetDevice " << m_ipv4
                                   << ": AddQp on a NIC whose QP numbers are reserved (it runs on "
                                      "another MPI rank; only its own rank holds its QPs)");
    const uint32_t qpn = RoceBthHeader::QpnOfSlot(m_qps.size(), m_ipv4);
    const uint32_t slot = m_scheduler.AddSlot(PeekPointer(qp));
    NS_ASSERT(FIRST_QPN + slot == qpn);
    m_qps.push_back(qp);
    qp->SetQpn(qpn);
    return qpn;
}

uint32_t
RoceNetDevice::ReserveQpn()
{
    ROCE_ERROR_IF(!m_qps.empty(),
                  "RoceNetDevice " << m_ipv4
                                   << ": ReserveQpn on a NIC that holds QPs (a NIC of this rank)");
    const uint32_t qpn = RoceBthHeader::QpnOfSlot(m_reservedQpns, m_ipv4);
    ++m_reservedQpns;
    return qpn;
}

uint32_t
RoceNetDevice::GetNReservedQpns() const
{
    return m_reservedQpns;
}

bool
RoceNetDevice::IsNicEndpoint() const
{
    return true;
}

namespace
{

/** One end of RoceNetDevice::ConnectPair. */
struct RocePairEnd
{
    RoceNetDevice* local; //!< the NIC if it runs on this rank, else nullptr
    uint32_t qpn;         //!< the QP's number there
};

/**
 * \param nic what ConnectPair was given for a NIC
 * \return it as a NIC end; a RoceError if it is none
 */
RoceNicEndpoint*
CheckNic(const Ptr<NetDevice>& nic)
{
    ROCE_ERROR_IF(!nic, "RoceNetDevice::ConnectPair: a null NIC");
    RoceNicEndpoint* end = RoceNicEndpoint::Of(PeekPointer(nic));
    ROCE_ERROR_IF(!end,
                  "RoceNetDevice::ConnectPair: interface "
                      << nic->GetIfIndex() << " of node "
                      << (nic->GetNode() ? nic->GetNode()->GetId() : 0) << " is a "
                      << nic->GetInstanceTypeId().GetName() << ", not a RoCE NIC");
    return end;
}

/**
 * \param nic a NIC, or the device that stands in for one
 * \param qp the new QP for it
 * \return where the QP is and its number: a NIC of this rank takes the QP,
 *         any other only reserves its number
 */
RocePairEnd
TakeQp(RoceNicEndpoint* nic, const Ptr<RoceQueuePair>& qp)
{
    auto* roce = dynamic_cast<RoceNetDevice*>(nic);
    if (roce && RoceRankCall::IsLocal(roce->GetNode()->GetId()))
    {
        return {roce, roce->AddQp(qp)};
    }
    return {nullptr, nic->ReserveQpn()};
}

} // namespace

std::pair<uint32_t, uint32_t>
RoceNetDevice::ConnectPair(const Ptr<NetDevice>& a,
                           Ptr<RoceQueuePair> qa,
                           const Ptr<NetDevice>& b,
                           Ptr<RoceQueuePair> qb)
{
    RoceNicEndpoint* nicA = CheckNic(a);
    RoceNicEndpoint* nicB = CheckNic(b);
    const RocePairEnd endA = TakeQp(nicA, qa);
    const RocePairEnd endB = TakeQp(nicB, qb);
    if (endA.local)
    {
        endA.local->ConnectQp(qa, endB.qpn, nicB->GetIpv4Address(), qb->GetInitialPsn());
    }
    if (endB.local)
    {
        endB.local->ConnectQp(qb, endA.qpn, nicA->GetIpv4Address(), qa->GetInitialPsn());
    }
    return {endA.qpn, endB.qpn};
}

bool
RoceNetDevice::IsNic(const Ptr<const NetDevice>& device)
{
    return RoceNicEndpoint::Of(PeekPointer(device)) != nullptr;
}

Ipv4Address
RoceNetDevice::AddressOf(const Ptr<const NetDevice>& nic)
{
    const RoceNicEndpoint* end = RoceNicEndpoint::Of(PeekPointer(nic));
    ROCE_ERROR_IF(!end,
                  "RoceNetDevice::AddressOf: "
                      << (nic ? nic->GetInstanceTypeId().GetName() : std::string("a null device"))
                      << " is not a RoCE NIC");
    return end->GetIpv4Address();
}

void
RoceNetDevice::ConnectQp(Ptr<RoceQueuePair> qp,
                         uint32_t remoteQpn,
                         Ipv4Address remoteAddress,
                         uint32_t remoteInitialPsn)
{
    uint32_t qpn = qp->GetQpn();
    ROCE_ERROR_IF(GetQp(qpn) != qp,
                  "RoceNetDevice: ConnectQp on a QP that was not added to this NIC");
    qp->Connect(this,
                qpn,
                remoteQpn,
                remoteAddress,
                remoteInitialPsn,
                GetCongestionControl()->Fork());
}

Ptr<RoceQueuePair>
RoceNetDevice::GetQp(uint32_t qpn) const
{
    if (qpn < FIRST_QPN || qpn - FIRST_QPN >= m_qps.size())
    {
        return nullptr;
    }
    return m_qps[qpn - FIRST_QPN];
}

uint32_t
RoceNetDevice::GetNQps() const
{
    return static_cast<uint32_t>(m_qps.size());
}

Ptr<RoceQueuePair>
RoceNetDevice::GetQpByIndex(uint32_t i) const
{
    return i < m_qps.size() ? m_qps[i] : nullptr;
}

// ---------------------------------------------------------------------------
// Transmit

void
RoceNetDevice::NotifyQpReady(RoceQueuePair* qp)
{
    m_scheduler.Notify(qp->GetQpn() - FIRST_QPN, qp->GetPriority(), RoceNow());
    TryTransmit();
}

void
RoceNetDevice::AddRoceHeaders(Ptr<Packet> p,
                              Ipv4Address dst,
                              uint16_t sport,
                              uint8_t priority,
                              bool ect)
{
    RoceEncapHeader encap;
    encap.SetMacs(Mac48Address::ConvertFrom(GetAddress()), GetPeerMac());
    encap.SetAddresses(m_ipv4, dst);
    encap.SetDscp(PriorityToDscp(priority));
    encap.SetEcn(ect ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT);
    encap.SetSourcePort(sport);
    p->AddHeader(encap);
}

void
RoceNetDevice::InitHeaderBlock(RoceHeaderBlock& block,
                               Ipv4Address dst,
                               uint16_t sport,
                               uint8_t priority,
                               bool ect,
                               const RoceBthHeader& bth)
{
    RoceEncapHeader encap;
    encap.SetMacs(Mac48Address::ConvertFrom(GetAddress()), GetPeerMac());
    encap.SetAddresses(m_ipv4, dst);
    encap.SetDscp(PriorityToDscp(priority));
    encap.SetEcn(ect ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT);
    encap.SetSourcePort(sport);
    block.SetEncap(encap);
    block.SetBth(bth);
    block.ClearExtension();
}

void
RoceNetDevice::SetAckClass(AckClass c)
{
    m_ackClass = c;
    ++m_headerGeneration; // the queue pairs' ACK templates carry the DSCP
}

RoceNetDevice::AckClass
RoceNetDevice::GetAckClass() const
{
    return m_ackClass;
}

void
RoceNetDevice::SetCnpPriority(uint8_t priority)
{
    m_cnpPriority = priority;
    ++m_headerGeneration; // ACK templates of the Control class carry its DSCP
}

uint8_t
RoceNetDevice::GetCnpPriority() const
{
    return m_cnpPriority;
}

void
RoceNetDevice::SendControl(RoceFramePtr p, uint8_t priority)
{
    m_control[priority].push_back(std::move(p));
    TryTransmit();
}

void
RoceNetDevice::SendCnp(RoceQueuePair* qp)
{
    Ptr<Packet> p = Create<Packet>(16); // 16 reserved bytes
    p->AddTrailer(RoceIcrcTrailer());
    RoceBthHeader bth;
    bth.SetOpcode(RoceBthHeader::CNP);
    bth.SetDestQp(qp->GetRemoteQpn());
    bth.SetBecn(true);
    p->AddHeader(bth);
    AddRoceHeaders(p, qp->GetRemoteAddress(), qp->GetSourcePort(), m_cnpPriority, false);
    SendControl(RoceWireFrame::CopyOf(p), m_cnpPriority);
}

RoceFramePtr
RoceNetDevice::DequeueData(uint8_t pausedMask)
{
    Time now = RoceNow();
    bool waiting = false; // an unpaused priority has QPs that could not send now
    for (int prio = ROCE_NUM_PRIORITIES - 1; prio >= 0; --prio)
    {
        if (pausedMask & (1u << prio))
        {
            continue;
        }
        auto& control = m_control[prio];
        if (!control.empty())
        {
            return control.take_front();
        }
        if (m_scheduler.IsIdle(static_cast<uint8_t>(prio)))
        {
            continue;
        }
        if (RoceFramePtr p = m_scheduler.Dequeue(static_cast<uint8_t>(prio), now))
        {
            return p;
        }
        waiting = true;
    }
    if (!waiting)
    {
        return nullptr; // no QP waits for its pacing time: no wake-up needed
    }
    if (m_wakePending && pausedMask == m_wakePausedMask &&
        !m_scheduler.WaitsSinceBefore(m_wakeTime))
    {
        return nullptr; // the wake-up already set is still the earliest one needed
    }
    Time earliest = m_scheduler.NextWakeTime(pausedMask);
    m_wakePausedMask = pausedMask;
    if (earliest != Time::Max() && (!m_wakePending || earliest < m_wakeTime))
    {
        RoceCancel(m_wakeEvent);
        m_wakePending = true;
        m_wakeTime = earliest;
        m_wakeEvent = RoceSchedule<&RoceNetDevice::Wake>(earliest - now, this);
    }
    return nullptr;
}

void
RoceNetDevice::Wake()
{
    m_wakePending = false;
    TryTransmit();
}

// ---------------------------------------------------------------------------
// Receive

void
RoceNetDevice::ReceiveFrame(RoceFramePtr p, const RoceFrame& frame)
{
    if (!frame.isRoce)
    {
        DeliverUp(std::move(p));
        return;
    }
    if (m_rxDrainRate.GetBitRate() == 0 && m_rxBuffer.empty())
    {
        ProcessRoce(std::move(p), frame);
        return;
    }
    uint32_t size = p->GetSize();
    if (m_rxBytes + size > m_rxBufferSize.GetValue())
    {
        DropFrame(*p, DROP_RX_BUFFER_FULL);
        return;
    }
    uint8_t prio = DscpToPriority(frame.dscp);
    m_rxBuffer.push_back(RxItem{std::move(p), frame, prio});
    m_rxBytes += size;
    m_rxPriorityBytes[prio] += size;
    if (m_rxPriorityBytes[prio] >= m_rxXoff.GetValue())
    {
        SetXoff(prio, true);
    }
    if (m_drainEvent.IsExpired())
    {
        StartDrain();
    }
}

void
RoceNetDevice::StartDrain()
{
    const RxItem& head = m_rxBuffer.front();
    // With RxDrainRate back at 0 (a slow-receiver fault ended), what is still
    // buffered drains at line rate, ahead of new arrivals.
    const DataRate& rate = m_rxDrainRate.GetBitRate() > 0 ? m_rxDrainRate : GetDataRate();
    m_drainEvent =
        RoceSchedule<&RoceNetDevice::DrainDone>(rate.CalculateBytesTxTime(head.packet->GetSize()),
                                                this);
}

void
RoceNetDevice::DrainDone()
{
    RxItem head = m_rxBuffer.take_front();
    uint32_t size = head.packet->GetSize();
    m_rxBytes -= size;
    m_rxPriorityBytes[head.priority] -= size;
    if (IsXoff(head.priority) && m_rxPriorityBytes[head.priority] <= m_rxXon.GetValue())
    {
        SetXoff(head.priority, false);
    }
    ProcessRoce(std::move(head.packet), head.frame);
    if (!m_rxBuffer.empty())
    {
        StartDrain();
    }
}

uint64_t
RoceNetDevice::GetRxBufferBytes() const
{
    return m_rxBytes;
}

namespace
{

/**
 * \param f a parsed RoCE frame
 * \return its BTH (TVer, which this module never sets, is left 0)
 */
RoceBthHeader
BthOf(const RoceFrame& f)
{
    RoceBthHeader bth;
    bth.SetOpcode(f.opcode);
    bth.SetSolicitedEvent((f.bthFlags & 0x80) != 0);
    bth.SetMigReq((f.bthFlags & 0x40) != 0);
    bth.SetPadCount((f.bthFlags >> 4) & 0x3);
    bth.SetPkey(f.pkey);
    bth.SetFecn((f.bthByte4 & 0x80) != 0);
    bth.SetBecn((f.bthByte4 & 0x40) != 0);
    bth.SetIntRequest((f.bthByte4 & 0x20) != 0);
    bth.SetIntHops(f.bthByte4 & 0x1F);
    bth.SetDestQp(f.destQp);
    bth.SetAckReq(f.ackReq);
    bth.SetPintRequest(f.pintRequest);
    bth.SetPsn(f.psn);
    return bth;
}

} // namespace

void
RoceNetDevice::ProcessRoce(RoceFramePtr p, const RoceFrame& f)
{
    // The frame was parsed when it arrived (RoceFrame::Parse): its BTH and
    // AETH come from there, its telemetry is peeked at, and the frame
    // itself is not changed: a data frame's payload is its size less
    // headers, RETH, pad and tail.
    Ptr<RoceQueuePair> qp = GetQp(f.destQp);
    if (!qp)
    {
        DropFrame(*p, DROP_UNKNOWN_QP);
        return;
    }
    uint8_t op = f.opcode;
    uint32_t hops = f.bthByte4 & 0x1F;
    // Bytes the frame must hold beyond its headers: INT records or a PINT
    // digest, and the ICRC.
    uint32_t tail = hops * RoceIntRecord::SIZE + (f.pintRequest ? RocePintDigest::SIZE : 0) +
                    RoceIcrcTrailer::SIZE;
    uint32_t size = p->GetSize();
    if (op == RoceBthHeader::ACKNOWLEDGE)
    {
        if (!f.hasAeth || size < RoceFrame::PARSE_BYTES + tail)
        {
            DropFrame(*p, DROP_MALFORMED);
            return;
        }
        const int32_t pint = ReadTelemetry(*p, hops, f.pintRequest);
        RoceAethHeader aeth;
        aeth.SetSyndrome(static_cast<uint8_t>(f.aeth >> 24));
        aeth.SetMsn(f.aeth & 0xFFFFFF);
        qp->ReceiveAck(BthOf(f), aeth, m_intScratch, pint);
    }
    else if (op == RoceBthHeader::CNP)
    {
        qp->ReceiveCnp();
    }
    else if (RoceBthHeader::IsData(op))
    {
        uint32_t need = RoceFrame::HEADER_BYTES + tail + ((f.bthFlags >> 4) & 0x3);
        if (op == RoceBthHeader::WRITE_FIRST || op == RoceBthHeader::WRITE_ONLY)
        {
            need += RoceHeaderBlock::RETH_BYTES;
        }
        if (size < need)
        {
            DropFrame(*p, DROP_MALFORMED);
            return;
        }
        const int32_t pint = ReadTelemetry(*p, hops, f.pintRequest);
        qp->ReceiveData(size - need, BthOf(f), f.ecn == Ipv4Header::ECN_CE, m_intScratch, pint);
    }
    else
    {
        DropFrame(*p, DROP_UNSUPPORTED_OPCODE);
    }
}

static_assert(RoceRawTrailer::MAX_SIZE >= RocePintDigest::SIZE +
                                              RoceIntRecord::MAX_HOPS * RoceIntRecord::SIZE +
                                              RoceIcrcTrailer::SIZE,
              "a frame's whole telemetry tail fits one RoceRawTrailer");

int32_t
RoceNetDevice::ReadTelemetry(RoceWireFrame& p, uint32_t hops, bool pint)
{
    m_intScratch.resize(hops);
    if (!hops && !pint)
    {
        return -1;
    }
    const uint32_t digest = pint ? RocePintDigest::SIZE : 0;
    RoceRawTrailer scratch;
    const uint8_t* tail =
        p.PeekTail(digest + hops * RoceIntRecord::SIZE + RoceIcrcTrailer::SIZE, scratch);
    if (hops && m_intMultiplier == 0)
    {
        m_intMultiplier = RoceIntRecord::GetUnitMultiplier();
    }
    const uint8_t* records = tail + digest;
    for (uint32_t i = 0; i < hops; ++i)
    {
        RoceIntRecord& r = m_intScratch[i];
        r.unitMultiplier = m_intMultiplier;
        r.Read(records + i * RoceIntRecord::SIZE);
        r.hop = static_cast<uint8_t>(i);
    }
    return pint ? RocePintDigest::Read(tail) : -1;
}

bool
RoceNetDevice::HasWaitingData(uint8_t pausedMask) const
{
    for (uint8_t prio = 0; prio < ROCE_NUM_PRIORITIES; ++prio)
    {
        if (!(pausedMask & (1u << prio)) && (!m_control[prio].empty() || !m_scheduler.IsIdle(prio)))
        {
            return true;
        }
    }
    return false;
}

} // namespace ns3
