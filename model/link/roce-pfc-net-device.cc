/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-pfc-net-device.h"

#include "roce-channel.h"

#include "ns3/double.h"
#include "ns3/ethernet-header.h"
#include "ns3/global-value.h"
#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/roce-error.h"
#include "ns3/roce-pfc-header.h"
#include "ns3/roce-pooled-event.h"
#include "ns3/roce-spec-list.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RocePfcNetDevice");
NS_OBJECT_ENSURE_REGISTERED(RocePfcNetDevice);

namespace
{
/// \return picoseconds in one simulator time step (1000 at the default ns resolution)
int64_t
StepPicoSeconds()
{
    return std::max<int64_t>(1, TimeStep(1).GetPicoSeconds());
}

/** The bytes every frame takes on a link beyond its size (after padding). */
GlobalValue g_frameWireOverhead(
    "RoceFrameWireOverhead",
    "Bytes every frame takes on a link beyond its own size, after padding to 60 bytes: 24 "
    "on Ethernet (FCS 4, preamble and SFD 8, inter-frame gap 12). Devices read it when they "
    "are built. A negative value models a shorter framing: rocev2-hpcc-compat "
    "--framing=hpcc-sim sets the HPCC simulator's, whose data packets are 22 bytes shorter "
    "than RoCEv2's frames with DCQCN.",
    IntegerValue(RocePfcNetDevice::ETHERNET_WIRE_OVERHEAD),
    MakeIntegerChecker<int32_t>(-42, 1024));
} // namespace

TypeId
RocePfcNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RocePfcNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Rocev2")
            .AddAttribute("DataRate",
                          "Line rate of the port.",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&RocePfcNetDevice::SetDataRate,
                                               &RocePfcNetDevice::GetDataRate),
                          MakeDataRateChecker())
            .AddAttribute(
                "Mtu",
                "Largest Ethernet payload (L3 MTU) the port carries, in bytes.",
                UintegerValue(9216),
                MakeUintegerAccessor(&RocePfcNetDevice::SetMtu, &RocePfcNetDevice::GetMtu),
                MakeUintegerChecker<uint16_t>(68, 9216))
            .AddAttribute("ReceiveErrorModel",
                          "Error model applied to every received frame (e.g. a "
                          "RateErrorModel for per-packet loss on the link).",
                          PointerValue(),
                          MakePointerAccessor(&RocePfcNetDevice::SetReceiveErrorModel,
                                              &RocePfcNetDevice::GetReceiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddAttribute("PauseQuanta",
                          "Pause time carried by the PFC XOFF frames this port sends, "
                          "in quanta of 512 bit times.",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&RocePfcNetDevice::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1, 0xFFFF))
            .AddAttribute("PauseRefreshFraction",
                          "A held XOFF is re-sent after this fraction of its pause time.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RocePfcNetDevice::m_refreshFraction),
                          MakeDoubleChecker<double>(0.01, 0.99))
            .AddAttribute(
                "DscpToPriority",
                "DSCP to priority map, as 'dscp:priority' pairs separated by "
                "commas. DSCPs not listed map to dscp/8 (class selector).",
                StringValue(""),
                MakeStringAccessor(&RocePfcNetDevice::SetDscpMap, &RocePfcNetDevice::GetDscpMap),
                MakeStringChecker())
            .AddTraceSource("MacTx",
                            "A frame is put on the wire.",
                            MakeTraceSourceAccessor(&RocePfcNetDevice::m_macTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A non-PFC frame has been received.",
                            MakeTraceSourceAccessor(&RocePfcNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped, with the reason.",
                            MakeTraceSourceAccessor(&RocePfcNetDevice::m_dropTrace),
                            "ns3::RocePfcNetDevice::DropTracedCallback")
            .AddTraceSource("LinkState",
                            "The link went up (true) or down (false) at this end.",
                            MakeTraceSourceAccessor(&RocePfcNetDevice::m_linkStateTrace),
                            "ns3::RocePfcNetDevice::LinkStateTracedCallback")
            .AddTraceSource("PfcTx",
                            "A PFC frame was sent (priority, quanta; 0 = XON).",
                            MakeTraceSourceAccessor(&RocePfcNetDevice::m_pfcTxTrace),
                            "ns3::RocePfcNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcRx",
                            "A PFC frame was received (priority, quanta; 0 = XON).",
                            MakeTraceSourceAccessor(&RocePfcNetDevice::m_pfcRxTrace),
                            "ns3::RocePfcNetDevice::PfcTracedCallback")
            .AddTraceSource("Sniffer",
                            "Every frame sent or received, for pcap.",
                            MakeTraceSourceAccessor(&RocePfcNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PromiscSniffer",
                            "Every frame sent or received, for pcap.",
                            MakeTraceSourceAccessor(&RocePfcNetDevice::m_promiscSnifferTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RocePfcNetDevice::RocePfcNetDevice()
    : m_wireOverhead(GetGlobalWireOverhead())
{
    SetDscpMap("");
}

RocePfcNetDevice::~RocePfcNetDevice() = default;

void
RocePfcNetDevice::DoDispose()
{
    for (uint32_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
    {
        m_pauseExpiry[p].Cancel();
        m_refreshEvent[p].Cancel();
    }
    m_txEvent.Cancel();
    m_txPending = false;
    m_controlQueue.clear();
    m_node = nullptr;
    m_channel = nullptr;
    m_receiveErrorModel = nullptr;
    m_rxCallback =
        MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>();
    m_promiscRxCallback.Nullify();
    // Trace callbacks go too: one that holds this device (a lambda capturing
    // its Ptr, connected to its own MacTx) would keep it and all it holds alive.
    m_macTxTrace = TracedCallback<Ptr<const Packet>>();
    m_macRxTrace = TracedCallback<Ptr<const Packet>>();
    m_dropTrace = TracedCallback<Ptr<const Packet>, const char*>();
    m_snifferTrace = TracedCallback<Ptr<const Packet>>();
    m_promiscSnifferTrace = TracedCallback<Ptr<const Packet>>();
    m_linkChangeCallbacks = TracedCallback<>();
    m_linkStateTrace = TracedCallback<bool>();
    m_pfcTxTrace = TracedCallback<uint8_t, uint16_t>();
    m_pfcRxTrace = TracedCallback<uint8_t, uint16_t>();
    NetDevice::DoDispose();
}

void
RocePfcNetDevice::Attach(Ptr<RoceChannel> channel)
{
    m_channel = channel;
    channel->Attach(this);
}

DataRate
RocePfcNetDevice::GetDataRate() const
{
    return m_bps;
}

void
RocePfcNetDevice::SetDataRate(DataRate rate)
{
    ROCE_ERROR_IF(rate.GetBitRate() == 0, "RocePfcNetDevice: DataRate=0bps must be positive");
    m_bps = rate;
    m_bitRate = rate.GetBitRate();
}

uint32_t
RocePfcNetDevice::WireBytes(uint32_t frameBytes)
{
    return WireBytes(frameBytes, GetGlobalWireOverhead());
}

int32_t
RocePfcNetDevice::GetGlobalWireOverhead()
{
    IntegerValue v;
    g_frameWireOverhead.GetValue(v);
    return static_cast<int32_t>(v.Get());
}

Time
RocePfcNetDevice::TxTime(uint32_t frameBytes) const
{
    return PicoSeconds(
        static_cast<int64_t>(FrameWireBytes(frameBytes) * 8ULL * 1000000000000ULL / m_bitRate));
}

void
RocePfcNetDevice::SetDscpMap(std::string map)
{
    for (uint32_t d = 0; d < 64; ++d)
    {
        m_dscpToPriority[d] = static_cast<uint8_t>(d / 8);
    }
    m_dscpMapSpec = map;
    for (const std::string& item : RoceSpecList::Split(map))
    {
        if (item.empty())
        {
            continue;
        }
        std::size_t colon = item.find(':');
        uint32_t dscp = 0;
        uint32_t prio = 0;
        bool ok = colon != std::string::npos &&
                  RoceSpecList::ParseUnsigned(item.substr(0, colon), UINT32_MAX, dscp) &&
                  RoceSpecList::ParseUnsigned(item.substr(colon + 1), UINT32_MAX, prio);
        ROCE_ERROR_IF(!ok,
                      "RocePfcNetDevice: DscpToPriority entry '"
                          << item << "' is not of the form 'dscp:priority'");
        ROCE_ERROR_IF(dscp > 63,
                      "RocePfcNetDevice: DscpToPriority DSCP " << dscp << " out of range 0..63");
        ROCE_ERROR_IF(prio >= ROCE_NUM_PRIORITIES,
                      "RocePfcNetDevice: DscpToPriority priority " << prio << " out of range 0..7");
        m_dscpToPriority[dscp] = static_cast<uint8_t>(prio);
    }
    m_priorityToDscp.fill(0xFF);
    for (int d = 63; d >= 0; --d)
    {
        m_priorityToDscp[m_dscpToPriority[d]] = static_cast<uint8_t>(d);
    }
}

std::string
RocePfcNetDevice::GetDscpMap() const
{
    return m_dscpMapSpec;
}

uint8_t
RocePfcNetDevice::DscpToPriority(uint8_t dscp) const
{
    return m_dscpToPriority[dscp & 0x3F];
}

uint8_t
RocePfcNetDevice::PriorityToDscp(uint8_t priority) const
{
    ROCE_ERROR_IF(priority >= ROCE_NUM_PRIORITIES,
                  "RocePfcNetDevice: priority " << +priority << " out of range 0..7");
    ROCE_ERROR_IF(m_priorityToDscp[priority] > 63,
                  "RocePfcNetDevice: no DSCP maps to priority " << +priority
                                                                << " (see DscpToPriority)");
    return m_priorityToDscp[priority];
}

// ---------------------------------------------------------------------------
// Transmit path

void
RocePfcNetDevice::EnqueueControl(RoceFramePtr p)
{
    m_controlQueue.push_back(std::move(p));
    TryTransmit();
}

void
RocePfcNetDevice::TryTransmit()
{
    if (m_txPending || !m_channel)
    {
        return; // the event due at m_txEnd takes the next frame
    }
    Time now = RoceNow();
    if (now < m_txEnd)
    {
        // The wire is busy and nothing was waiting when its frame started:
        // wake at its end if something waits now.
        if (HasWaiting())
        {
            m_txPending = true;
            m_txEvent = RoceSchedule<&RocePfcNetDevice::TransmitComplete>(m_txEnd - now, this);
        }
        return;
    }
    TransmitNext();
}

bool
RocePfcNetDevice::HasWaitingData(uint8_t /* pausedMask */) const
{
    return true;
}

bool
RocePfcNetDevice::HasWaiting() const
{
    return !m_controlQueue.empty() || HasWaitingData(m_pausedMask);
}

void
RocePfcNetDevice::TransmitNext()
{
    if (!m_linkUp)
    {
        FlushWhileDown();
        return;
    }
    RoceFramePtr p;
    if (!m_controlQueue.empty())
    {
        p = m_controlQueue.take_front();
    }
    else
    {
        p = DequeueData(m_pausedMask);
    }
    if (p)
    {
        StartTransmit(std::move(p));
    }
}

void
RocePfcNetDevice::StartTransmit(RoceFramePtr p)
{
    uint32_t size = p->GetSize();
    // Exact serialization time in ps, carried across frames so that the mean
    // rate is exact whatever the simulator's time resolution.
    static const int64_t stepPs = StepPicoSeconds();
    uint64_t ps = FrameWireBytes(size) * 8ULL * 1000000000000ULL / m_bitRate + m_txCarryPs;
    m_txCarryPs = ps % stepPs;
    Time txTime = TimeStep(ps / stepPs);
    m_txEnd = RoceNow() + txTime;
    ++m_txFrames;
    m_txBytes += size;
    // Per-frame traces: only a connected one costs a call.
    if (!m_macTxTrace.IsEmpty())
    {
        m_macTxTrace(p->GetPacket());
    }
    if (!m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(p->GetPacket());
    }
    if (!m_promiscSnifferTrace.IsEmpty())
    {
        m_promiscSnifferTrace(p->GetPacket());
    }
    m_channel->Transmit(std::move(p), this, txTime);
    // The transmit-complete event only if something waits to follow; a frame
    // that becomes ready later finds the wire free, or sets the wake-up.
    if (HasWaiting())
    {
        m_txPending = true;
        m_txEvent = RoceSchedule<&RocePfcNetDevice::TransmitComplete>(txTime, this);
    }
}

void
RocePfcNetDevice::TransmitComplete()
{
    m_txPending = false;
    TransmitNext();
}

// ---------------------------------------------------------------------------
// Link state

void
RocePfcNetDevice::SetLinkUp(bool up)
{
    if (m_linkUp == up)
    {
        return;
    }
    m_linkUp = up;
    m_rxCheck = !m_linkUp || m_receiveErrorModel;
    if (!up)
    {
        ++m_linkDowns;
        // The frame on the wire is cut (its receive event finds the peer
        // down); the wire is free for the flush below.
        m_txEvent.Cancel();
        m_txPending = false;
        m_txEnd = RoceNow();
        ClearPeerPauses();
        for (auto& refresh : m_refreshEvent)
        {
            refresh.Cancel();
        }
        FlushWhileDown();
    }
    else
    {
        for (uint8_t prio = 0; prio < ROCE_NUM_PRIORITIES; ++prio)
        {
            if (m_xoff[prio])
            {
                RefreshPause(prio); // the peer forgot the pause with the link
            }
        }
        TryTransmit();
    }
    m_linkStateTrace(up);
    m_linkChangeCallbacks();
}

void
RocePfcNetDevice::FlushWhileDown()
{
    while (!m_controlQueue.empty())
    {
        RoceFramePtr p = m_controlQueue.take_front();
        DropFrame(*p, DROP_LINK_DOWN);
    }
    if (DropsWhenLinkDown())
    {
        while (RoceFramePtr p = DequeueData(0))
        {
            DropFrame(*p, DROP_LINK_DOWN);
        }
    }
}

bool
RocePfcNetDevice::DropsWhenLinkDown() const
{
    return false;
}

uint64_t
RocePfcNetDevice::GetLinkDowns() const
{
    return m_linkDowns;
}

void
RocePfcNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> em)
{
    m_receiveErrorModel = em;
    m_rxCheck = !m_linkUp || m_receiveErrorModel;
}

Ptr<ErrorModel>
RocePfcNetDevice::GetReceiveErrorModel() const
{
    return m_receiveErrorModel;
}

// ---------------------------------------------------------------------------
// Receive path

void
RocePfcNetDevice::Receive(Ptr<Packet> p)
{
    Arrive(RoceWireFrame::FromPacket(std::move(p)));
}

void
RocePfcNetDevice::Arrive(RoceFramePtr p)
{
    if (m_rxCheck)
    {
        if (!m_linkUp)
        {
            DropFrame(*p, DROP_LINK_DOWN);
            return;
        }
        if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(p->GetPacket()))
        {
            DropFrame(*p, DROP_RX_ERROR);
            return;
        }
    }
    if (!m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(p->GetPacket());
    }
    if (!m_promiscSnifferTrace.IsEmpty())
    {
        m_promiscSnifferTrace(p->GetPacket());
    }
    RoceFrame frame = RoceFrame::Parse(*p);
    if (frame.etherType == RocePfcHeader::ETHERTYPE)
    {
        ReceivePfc(*p);
        return;
    }
    if (!m_macRxTrace.IsEmpty())
    {
        m_macRxTrace(p->GetPacket());
    }
    ReceiveFrame(std::move(p), frame);
}

uint64_t
RocePfcNetDevice::GetTxFrames() const
{
    return m_txFrames;
}

uint64_t
RocePfcNetDevice::GetTxBytes() const
{
    return m_txBytes;
}

uint64_t
RocePfcNetDevice::GetDrops() const
{
    return m_drops;
}

const RoceDropCounts&
RocePfcNetDevice::GetDropCounts() const
{
    return m_dropCounts;
}

void
RocePfcNetDevice::DropFrame(Ptr<const Packet> p, const char* reason)
{
    ++m_drops;
    m_dropCounts.Add(reason);
    m_dropTrace(p, reason);
}

void
RocePfcNetDevice::DropFrame(RoceWireFrame& p, const char* reason)
{
    ++m_drops;
    m_dropCounts.Add(reason);
    if (!m_dropTrace.IsEmpty())
    {
        m_dropTrace(p.GetPacket(), reason);
    }
}

// ---------------------------------------------------------------------------
// Upper layers

void
RocePfcNetDevice::AddEthernetHeader(Ptr<Packet> p, uint16_t etherType) const
{
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(GetPeerMac());
    eth.SetLengthType(etherType);
    p->AddHeader(eth);
}

Mac48Address
RocePfcNetDevice::GetPeerMac() const
{
    Ptr<RocePfcNetDevice> peer = m_channel ? m_channel->GetPeer(this) : nullptr;
    return peer ? peer->m_address : Mac48Address("ff:ff:ff:ff:ff:ff");
}

bool
RocePfcNetDevice::DeliverUp(RoceFramePtr f)
{
    if (m_rxCallback.IsNull())
    {
        DropFrame(*f, DROP_UNKNOWN_PROTOCOL);
        return false;
    }
    Ptr<Packet> p = f->GetPacket();
    EthernetHeader eth(false);
    p->RemoveHeader(eth);
    if (!m_promiscRxCallback.IsNull())
    {
        m_promiscRxCallback(this,
                            p,
                            eth.GetLengthType(),
                            eth.GetSource(),
                            eth.GetDestination(),
                            NetDevice::PACKET_HOST);
    }
    return m_rxCallback(this, p, eth.GetLengthType(), eth.GetSource());
}

bool
RocePfcNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    return SendFrom(packet, m_address, dest, protocolNumber);
}

bool
RocePfcNetDevice::SendFrom(Ptr<Packet> packet,
                           const Address& /* source */,
                           const Address& /* dest */,
                           uint16_t /* protocolNumber */)
{
    // Ports carry RoCE traffic generated by the module itself; an IP stack on
    // top is not supported.
    DropFrame(packet, DROP_UNKNOWN_PROTOCOL);
    return false;
}

void
RocePfcNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
RocePfcNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
RocePfcNetDevice::GetChannel() const
{
    return m_channel;
}

void
RocePfcNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
RocePfcNetDevice::GetAddress() const
{
    return m_address;
}

bool
RocePfcNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
RocePfcNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
RocePfcNetDevice::IsLinkUp() const
{
    return m_channel != nullptr && m_linkUp;
}

void
RocePfcNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
RocePfcNetDevice::IsBroadcast() const
{
    return false;
}

Address
RocePfcNetDevice::GetBroadcast() const
{
    return Mac48Address("ff:ff:ff:ff:ff:ff");
}

bool
RocePfcNetDevice::IsMulticast() const
{
    return false;
}

Address
RocePfcNetDevice::GetMulticast(Ipv4Address /* multicastGroup */) const
{
    return Mac48Address("01:00:5e:00:00:00");
}

Address
RocePfcNetDevice::GetMulticast(Ipv6Address /* addr */) const
{
    return Mac48Address("33:33:00:00:00:00");
}

bool
RocePfcNetDevice::IsPointToPoint() const
{
    return true;
}

bool
RocePfcNetDevice::IsBridge() const
{
    return false;
}

Ptr<Node>
RocePfcNetDevice::GetNode() const
{
    return m_node;
}

void
RocePfcNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
    m_nodeId = node ? node->GetId() : 0;
}

bool
RocePfcNetDevice::NeedsArp() const
{
    return false;
}

void
RocePfcNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
RocePfcNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscRxCallback = cb;
}

bool
RocePfcNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
