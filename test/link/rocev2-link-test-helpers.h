/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the link test suite (rocev2-link-events) uses: a PfcNetDevice with
 * per-priority FIFOs of test frames, and two of them on one link with logs of
 * the frames each puts on the wire.
 */
#ifndef ROCEV2_LINK_TEST_HELPERS_H
#define ROCEV2_LINK_TEST_HELPERS_H

#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-pfc-header.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <array>
#include <deque>
#include <functional>
#include <iterator>
#include <vector>

using namespace ns3;

namespace
{

/// EtherType of the test's data frames (IEEE local experimental).
constexpr uint16_t TEST_ETHERTYPE = 0x88B5;
/// Line rate of the test links.
const DataRate g_rate("100Gbps");
/// Propagation delay of the test links.
const Time g_linkDelay = MicroSeconds(1);
/// A frame of 976 bytes takes 1000 bytes of wire, 80 ns at 100 Gb/s: a whole number of ns.
constexpr uint32_t FRAME_BYTES = 976;
/// Its serialization time.
const Time g_frameTime = NanoSeconds(80);

/// One frame seen on the wire or received.
struct FrameRecord
{
    Time time;          //!< when it started (tx) or fully arrived (rx)
    uint32_t id;        //!< the test's frame id (0xFFFFFFFF for PFC frames)
    uint32_t size;      //!< bytes without FCS
    uint16_t etherType; //!< its EtherType
};

/**
 * A PfcNetDevice whose data is per-priority FIFOs of test frames. It can
 * answer HasWaitingData exactly, or leave it to the base class (which answers
 * "yes" whenever asked, so a transmit-complete event follows every frame).
 */
class LinkEventsTestDevice : public RocePfcNetDevice
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::LinkEventsTestDevice")
                                .SetParent<RocePfcNetDevice>()
                                .SetGroupName("Rocev2")
                                .AddConstructor<LinkEventsTestDevice>();
        return tid;
    }

    /** \param exact answer HasWaitingData exactly (true) or conservatively */
    void SetExact(bool exact)
    {
        m_exact = exact;
    }

    /**
     * \brief Queue a data frame and ask the wire to send.
     * \param priority its priority
     * \param frameBytes its size without FCS (at least 18)
     * \param id its id, carried in its first payload bytes
     */
    void Push(uint8_t priority, uint32_t frameBytes, uint32_t id)
    {
        m_queues[priority].push_back(MakeFrame(frameBytes, id));
        TryTransmit();
    }

    /**
     * \brief Queue a frame in the control queue (ahead of data, never paused).
     * \param frameBytes its size without FCS
     * \param id its id
     */
    void PushControl(uint32_t frameBytes, uint32_t id)
    {
        EnqueueControl(RoceWireFrame::FromPacket(MakeFrame(frameBytes, id)));
    }

    /**
     * \brief Send a PFC frame for one priority, as a switch or NIC would.
     * \param priority the priority
     * \param quanta pause quanta (0 = XON)
     */
    void SendRawPfc(uint8_t priority, uint16_t quanta)
    {
        Ptr<Packet> p = Create<Packet>();
        RocePfcHeader pfc;
        pfc.SetPause(priority, quanta);
        p->AddHeader(pfc);
        AddEthernetHeader(p, RocePfcHeader::ETHERTYPE);
        EnqueueControl(RoceWireFrame::FromPacket(p));
    }

    /** \return frames still queued */
    uint32_t Queued() const
    {
        uint32_t n = 0;
        for (const auto& q : m_queues)
        {
            n += q.size();
        }
        return n;
    }

    std::vector<FrameRecord> rx; //!< frames received, in order

    /**
     * \param p a frame
     * \return the test id it carries (0xFFFFFFFF if none)
     */
    static uint32_t FrameId(Ptr<const Packet> p)
    {
        RoceFrame f = RoceFrame::Parse(*p);
        if (f.etherType != TEST_ETHERTYPE || p->GetSize() < 18)
        {
            return 0xFFFFFFFF;
        }
        uint8_t b[18];
        p->CopyData(b, 18);
        return (uint32_t(b[14]) << 24) | (uint32_t(b[15]) << 16) | (uint32_t(b[16]) << 8) | b[17];
    }

  protected:
    RoceFramePtr DequeueData(uint8_t pausedMask) override
    {
        for (int prio = ROCE_NUM_PRIORITIES - 1; prio >= 0; --prio)
        {
            if (!(pausedMask & (1u << prio)) && !m_queues[prio].empty())
            {
                Ptr<Packet> p = m_queues[prio].front();
                m_queues[prio].pop_front();
                return RoceWireFrame::FromPacket(p);
            }
        }
        return nullptr;
    }

    bool HasWaitingData(uint8_t pausedMask) const override
    {
        if (!m_exact)
        {
            return RocePfcNetDevice::HasWaitingData(pausedMask);
        }
        for (uint32_t prio = 0; prio < ROCE_NUM_PRIORITIES; ++prio)
        {
            if (!(pausedMask & (1u << prio)) && !m_queues[prio].empty())
            {
                return true;
            }
        }
        return false;
    }

    void ReceiveFrame(RoceFramePtr f, const RoceFrame& frame) override
    {
        const Ptr<Packet>& p = f->GetPacket();
        rx.push_back({Simulator::Now(), FrameId(p), p->GetSize(), frame.etherType});
    }

  private:
    /**
     * \param frameBytes size without FCS
     * \param id the id
     * \return a test frame
     */
    Ptr<Packet> MakeFrame(uint32_t frameBytes, uint32_t id) const
    {
        std::vector<uint8_t> payload(frameBytes - 14, 0);
        payload[0] = uint8_t(id >> 24);
        payload[1] = uint8_t(id >> 16);
        payload[2] = uint8_t(id >> 8);
        payload[3] = uint8_t(id);
        Ptr<Packet> p = Create<Packet>(payload.data(), payload.size());
        AddEthernetHeader(p, TEST_ETHERTYPE);
        return p;
    }

    bool m_exact{true};
    std::array<std::deque<Ptr<Packet>>, ROCE_NUM_PRIORITIES> m_queues;
};

NS_OBJECT_ENSURE_REGISTERED(LinkEventsTestDevice);

/// Two test devices on one link, with logs of what each puts on the wire.
struct TestLink
{
    Ptr<LinkEventsTestDevice> a;                   //!< one end
    Ptr<LinkEventsTestDevice> b;                   //!< the other
    std::vector<FrameRecord> txA;                  //!< frames a started, in order
    std::vector<FrameRecord> txB;                  //!< frames b started, in order
    std::vector<std::pair<Time, uint16_t>> pfcRxA; //!< PFC frames a received (time, quanta)
    uint64_t startEvents{0}; //!< event count when the first scheduled action ran
    uint64_t ownEvents{0};   //!< the test's own events after that one

    /** \param p a frame a started */
    void TxA(Ptr<const Packet> p)
    {
        txA.push_back({Simulator::Now(),
                       LinkEventsTestDevice::FrameId(p),
                       p->GetSize(),
                       RoceFrame::Parse(*p).etherType});
    }

    /** \param p a frame b started */
    void TxB(Ptr<const Packet> p)
    {
        txB.push_back({Simulator::Now(),
                       LinkEventsTestDevice::FrameId(p),
                       p->GetSize(),
                       RoceFrame::Parse(*p).etherType});
    }

    /** \param prio priority \param quanta quanta */
    void PfcRxA(uint8_t /* prio */, uint16_t quanta)
    {
        pfcRxA.emplace_back(Simulator::Now(), quanta);
    }

    /**
     * \brief Run an action at a time, as one of the test's own events.
     * \param at the absolute time
     * \param f the action
     */
    void At(Time at, std::function<void()> f)
    {
        Simulator::Schedule(at - Simulator::Now(), [this, f]() {
            if (startEvents == 0)
            {
                startEvents = Simulator::GetEventCount(); // this event included
            }
            else
            {
                ++ownEvents;
            }
            f();
        });
    }

    /** \return events run by the devices since the first action (the test's own excluded) */
    uint64_t DeviceEvents() const
    {
        return Simulator::GetEventCount() - startEvents - ownEvents;
    }

    /** \return a's data frames (PFC frames left out) */
    std::vector<FrameRecord> DataTxA() const
    {
        std::vector<FrameRecord> d;
        std::copy_if(txA.begin(), txA.end(), std::back_inserter(d), [](const FrameRecord& r) {
            return r.etherType == TEST_ETHERTYPE;
        });
        return d;
    }
};

/**
 * \brief Join two new test devices with a 100 Gb/s, 1 us link.
 * \param link the link to fill in
 * \param exact whether the devices answer HasWaitingData exactly
 */
void
MakeTestLink(TestLink& link, bool exact)
{
    NodeContainer nodes(2);
    Ptr<RoceChannel> ch = CreateObject<RoceChannel>();
    ch->SetAttribute("Delay", TimeValue(g_linkDelay));
    std::array<Ptr<LinkEventsTestDevice>, 2> d;
    for (uint32_t i = 0; i < 2; ++i)
    {
        d[i] = CreateObject<LinkEventsTestDevice>();
        d[i]->SetAttribute("DataRate", DataRateValue(g_rate));
        d[i]->SetAddress(Mac48Address::Allocate());
        d[i]->SetExact(exact);
        nodes.Get(i)->AddDevice(d[i]);
        d[i]->Attach(ch);
    }
    link.a = d[0];
    link.b = d[1];
    link.a->TraceConnectWithoutContext("MacTx", MakeCallback(&TestLink::TxA, &link));
    link.b->TraceConnectWithoutContext("MacTx", MakeCallback(&TestLink::TxB, &link));
    link.a->TraceConnectWithoutContext("PfcRx", MakeCallback(&TestLink::PfcRxA, &link));
}

/// Destroys the simulator when a case returns, also after a failed assertion.
class SimulatorGuard
{
  public:
    ~SimulatorGuard()
    {
        Simulator::Destroy();
    }
};

} // namespace

#endif /* ROCEV2_LINK_TEST_HELPERS_H */
