/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RocePfcNetDevice: PFC frames received (pauses honoured per priority) and
// sent (XOFF held and refreshed, XON), and the PFC statistics.

#include "roce-pfc-net-device.h"

#include "ns3/ethernet-header.h"
#include "ns3/roce-error.h"
#include "ns3/roce-pfc-header.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"

#include <cmath>

namespace ns3
{

namespace
{
/// Destination of PFC frames (802.1Qbb MAC control).
const Mac48Address g_pfcDestination("01:80:c2:00:00:01");
} // namespace

void
RocePfcNetDevice::ReceivePfc(RoceWireFrame& p)
{
    // The headers are read from a copy of the frame's bytes: the frame
    // itself, and its Packet if a trace made one, stay as they arrived.
    EthernetHeader eth(false);
    RocePfcHeader pfc;
    const uint32_t need = eth.GetSerializedSize() + pfc.GetSerializedSize();
    uint8_t bytes[64];
    static_assert(sizeof(bytes) >= 14 + 46, "an Ethernet header and a PFC frame's payload");
    if (p.CopyData(bytes, need) < need)
    {
        DropFrame(p, DROP_MALFORMED_PFC);
        return;
    }
    Buffer b;
    b.AddAtStart(need);
    b.Begin().Write(bytes, need);
    Buffer::Iterator it = b.Begin();
    it.Next(eth.Deserialize(it));
    pfc.Deserialize(it);
    if (pfc.GetOpcode() != RocePfcHeader::OPCODE)
    {
        DropFrame(p, DROP_UNKNOWN_PROTOCOL);
        return;
    }
    for (uint8_t prio = 0; prio < ROCE_NUM_PRIORITIES; ++prio)
    {
        if (!pfc.IsEnabled(prio))
        {
            continue;
        }
        uint16_t quanta = pfc.GetQuanta(prio);
        m_pfcRxTrace(prio, quanta);
        uint8_t bit = static_cast<uint8_t>(1u << prio);
        m_pauseExpiry[prio].Cancel();
        if (quanta == 0)
        {
            ++m_pfcStats.resumeRx[prio];
            PauseExpired(prio);
            continue;
        }
        ++m_pfcStats.pauseRx[prio];
        Time pause = PauseTime(quanta);
        m_pauseExpiry[prio] =
            Simulator::Schedule(pause, &RocePfcNetDevice::PauseExpired, this, prio);
        if (!(m_pausedMask & bit))
        {
            m_pausedMask |= bit;
            m_pauseStart[prio] = RoceNow().GetTimeStep();
            NotifyPause(prio);
        }
    }
}

void
RocePfcNetDevice::PauseExpired(uint8_t priority)
{
    uint8_t bit = static_cast<uint8_t>(1u << priority);
    if (!(m_pausedMask & bit))
    {
        return;
    }
    m_pausedMask &= static_cast<uint8_t>(~bit);
    m_pfcStats.pausedSteps[priority] += RoceNow().GetTimeStep() - m_pauseStart[priority];
    NotifyResume(priority);
    TryTransmit();
}

void
RocePfcNetDevice::ClearPeerPauses()
{
    for (uint8_t prio = 0; prio < ROCE_NUM_PRIORITIES; ++prio)
    {
        m_pauseExpiry[prio].Cancel();
        PauseExpired(prio); // does nothing for a priority not paused
    }
}

void
RocePfcNetDevice::NotifyResume(uint8_t /* priority */)
{
}

void
RocePfcNetDevice::NotifyPause(uint8_t /* priority */)
{
}

Time
RocePfcNetDevice::PauseTime(uint16_t quanta) const
{
    // quanta * 512 bit times; in double, since quanta * 512 * 1e12 overflows 64 bits.
    return PicoSeconds(static_cast<int64_t>(
        std::llround(double(quanta) * RocePfcHeader::BITS_PER_QUANTUM * 1e12 / m_bitRate)));
}

bool
RocePfcNetDevice::IsPaused(uint8_t priority) const
{
    return priority < ROCE_NUM_PRIORITIES && (m_pausedMask & (1u << priority)) != 0;
}

// ---------------------------------------------------------------------------
// PFC generation

void
RocePfcNetDevice::SetXoff(uint8_t priority, bool xoff)
{
    ROCE_ERROR_IF(priority >= ROCE_NUM_PRIORITIES,
                  "RocePfcNetDevice: priority " << +priority << " out of range 0..7");
    if (m_xoff[priority] == xoff)
    {
        return;
    }
    m_xoff[priority] = xoff;
    if (xoff)
    {
        RefreshPause(priority);
    }
    else if (m_linkUp)
    {
        m_refreshEvent[priority].Cancel();
        ++m_pfcStats.resumeTx[priority];
        SendPfc(priority, 0);
    }
}

bool
RocePfcNetDevice::IsXoff(uint8_t priority) const
{
    return priority < ROCE_NUM_PRIORITIES && m_xoff[priority];
}

void
RocePfcNetDevice::RefreshPause(uint8_t priority)
{
    if (!m_xoff[priority] || !m_linkUp)
    {
        return; // SetLinkUp(true) sends a held pause again
    }
    ++m_pfcStats.pauseTx[priority];
    SendPfc(priority, m_pauseQuanta);
    Time pause = PauseTime(m_pauseQuanta);
    m_refreshEvent[priority] = Simulator::Schedule(pause * m_refreshFraction,
                                                   &RocePfcNetDevice::RefreshPause,
                                                   this,
                                                   priority);
}

void
RocePfcNetDevice::SendPfc(uint8_t priority, uint16_t quanta)
{
    Ptr<Packet> p = Create<Packet>();
    RocePfcHeader pfc;
    pfc.SetPause(priority, quanta);
    p->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(g_pfcDestination);
    eth.SetLengthType(RocePfcHeader::ETHERTYPE);
    p->AddHeader(eth);
    m_pfcTxTrace(priority, quanta);
    EnqueueControl(RoceWireFrame::CopyOf(p));
}

RocePfcNetDevice::PfcStats
RocePfcNetDevice::GetPfcStats() const
{
    PfcStats s;
    s.pauseTx = m_pfcStats.pauseTx;
    s.resumeTx = m_pfcStats.resumeTx;
    s.pauseRx = m_pfcStats.pauseRx;
    s.resumeRx = m_pfcStats.resumeRx;
    const int64_t now = RoceNow().GetTimeStep();
    for (uint32_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
    {
        const bool paused = m_pausedMask & (1u << p);
        s.pausedTime[p] =
            TimeStep(m_pfcStats.pausedSteps[p] + (paused ? now - m_pauseStart[p] : 0));
    }
    return s;
}

} // namespace ns3
