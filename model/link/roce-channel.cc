/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-channel.h"

#include "roce-pfc-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/roce-error.h"
#include "ns3/roce-pooled-event.h"
#include "ns3/simulator.h"

#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceChannel");
NS_OBJECT_ENSURE_REGISTERED(RoceChannel);

TypeId
RoceChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the link (one way).",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&RoceChannel::m_delay),
                                          MakeTimeChecker(Seconds(0)));
    return tid;
}

RoceChannel::RoceChannel() = default;

void
RoceChannel::Attach(Ptr<RocePfcNetDevice> device)
{
    ROCE_ERROR_IF(m_nDevices >= 2, "RoceChannel: a link has two ends; a third device was attached");
    m_devices[m_nDevices++] = device;
}

void
RoceChannel::Transmit(RoceFramePtr p, const RocePfcNetDevice* src, Time txTime)
{
    if (m_nDevices < 2)
    {
        TransmitElsewhere(*p, src, txTime);
        return;
    }
    RocePfcNetDevice* dst =
        (m_devices[0] == src) ? PeekPointer(m_devices[1]) : PeekPointer(m_devices[0]);
    RoceScheduleWithContext<&RocePfcNetDevice::Arrive>(dst->GetNodeId(),
                                                       txTime + m_delay,
                                                       dst,
                                                       std::move(p));
}

void
RoceChannel::TransmitElsewhere(RoceWireFrame& p, const RocePfcNetDevice* src, const Time& txTime)
{
    // An unconnected end: the frame leaves into nothing; on a cut link the
    // local end's frames go to the peer's rank.
    if (m_cut && (src == PeekPointer(m_devices[0]) || m_bothEnds))
    {
        m_remoteSend(p.GetPacket(), txTime, src);
    }
}

Time
RoceChannel::GetDelay() const
{
    return m_delay;
}

void
RoceChannel::Cut(const RocePfcNetDevice* local, RemoteSendCallback send)
{
    ROCE_ERROR_IF(m_nDevices != 2 || m_cut,
                  "RoceChannel::Cut: a link is cut once, with both ends attached");
    ROCE_ERROR_IF(local != PeekPointer(m_devices[0]) && local != PeekPointer(m_devices[1]),
                  "RoceChannel::Cut: the local device is not an end of this link");
    if (local != PeekPointer(m_devices[0]))
    {
        std::swap(m_devices[0], m_devices[1]);
    }
    m_cut = true;
    m_remoteSend = send;
    m_nDevices = 1;
}

void
RoceChannel::CutBothEnds(RemoteSendCallback send)
{
    ROCE_ERROR_IF(m_nDevices != 2 || m_cut,
                  "RoceChannel::CutBothEnds: a link is cut once, with both ends attached");
    m_cut = true;
    m_bothEnds = true;
    m_remoteSend = send;
    m_nDevices = 1;
}

void
RoceChannel::SetLinkUp(bool up)
{
    m_up = up;
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_devices[i]->SetLinkUp(up);
    }
}

bool
RoceChannel::IsLinkUp() const
{
    return m_up;
}

Ptr<RocePfcNetDevice>
RoceChannel::GetPeer(const RocePfcNetDevice* device) const
{
    // Both ends attached (a cut link's included) exactly when the second is set.
    if (!m_devices[1])
    {
        return nullptr;
    }
    return (m_devices[0] == device) ? m_devices[1] : m_devices[0];
}

std::size_t
RoceChannel::GetNDevices() const
{
    return m_cut ? 2 : m_nDevices;
}

Ptr<NetDevice>
RoceChannel::GetDevice(std::size_t i) const
{
    return i < GetNDevices() ? m_devices[i] : nullptr;
}

void
RoceChannel::DoDispose()
{
    m_devices[0] = nullptr;
    m_devices[1] = nullptr;
    m_nDevices = 0;
    m_cut = false;
    m_bothEnds = false;
    m_remoteSend = RemoteSendCallback();
    Channel::DoDispose();
}

} // namespace ns3
