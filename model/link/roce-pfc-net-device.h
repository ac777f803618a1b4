/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_PFC_NET_DEVICE_H
#define ROCE_PFC_NET_DEVICE_H

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/roce-drop-counts.h"
#include "ns3/roce-fifo.h"
#include "ns3/roce-frame.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <array>

namespace ns3
{

class RoceChannel;
class Node;

/**
 * \ingroup rocev2
 * \brief A PFC-capable Ethernet wire end: the part that a RoCE NIC and a
 * switch port share.
 *
 * It serializes one frame at a time onto a RoceChannel, charging the frame's
 * bytes plus FCS (4 B) and preamble, SFD and IFG (20 B), with frames padded to
 * the 64-byte minimum. It honours received PFC frames per priority (a paused
 * priority is skipped, never dropped), sends PFC frames ahead of data, and
 * refreshes a pause before it expires for as long as the owner holds XOFF.
 *
 * Subclasses supply the data to send (DequeueData, given the set of paused
 * priorities) and consume received frames (ReceiveFrame).
 *
 * The transmit path costs at most one event per frame, and none for a frame
 * that nothing follows. The device records when the wire frees (m_txEnd) and
 * schedules the transmit-complete event only if, when a frame starts, the
 * control queue holds a frame or HasWaitingData() says an un-paused priority
 * has data. Otherwise the wire simply goes idle at m_txEnd: a frame that
 * becomes ready later starts at once if the wire is free by then, or sets
 * the one pending wake-up at m_txEnd if it is not. A resume (XON or pause
 * expiry) sets that wake-up the same way when data of the resumed priority
 * waits. Frame start times are those of a wire that wakes at every frame end.
 */
class RocePfcNetDevice : public NetDevice
{
  public:
    static constexpr uint32_t FCS_BYTES = 4;           //!< Ethernet FCS
    static constexpr uint32_t PREAMBLE_IFG_BYTES = 20; //!< preamble + SFD + IFG
    static constexpr uint32_t MIN_FRAME_BYTES = 60;    //!< minimum frame without FCS
    /// Bytes an Ethernet frame takes on the wire beyond its size: FCS, preamble, SFD, IFG
    static constexpr int32_t ETHERNET_WIRE_OVERHEAD = FCS_BYTES + PREAMBLE_IFG_BYTES;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RocePfcNetDevice();
    ~RocePfcNetDevice() override;

    /**
     * \brief Attach the device to a link.
     * \param channel the link
     */
    void Attach(Ptr<RoceChannel> channel);

    /**
     * \brief Receive a frame given as a Packet, as if it had fully arrived
     * from the link (a frame from another MPI rank, or a test's).
     * \param p the frame, Ethernet header first
     */
    void Receive(Ptr<Packet> p);

    /**
     * \brief Called by the channel when a frame has fully arrived.
     * \param f the frame
     */
    void Arrive(RoceFramePtr f);

    /** \return the line rate */
    DataRate GetDataRate() const;
    /**
     * \brief Set the line rate (the DataRate attribute); aborts on 0.
     * \param rate the rate
     */
    void SetDataRate(DataRate rate);

    /** \return the line rate in bit/s (the DataRate attribute) */
    uint64_t GetBitRate() const
    {
        return m_bitRate;
    }

    /**
     * \param frameBytes a frame's size without FCS
     * \return the bytes that the frame occupies on the wire (padding to
     *         MIN_FRAME_BYTES, and the global value RoceFrameWireOverhead:
     *         24 for FCS, preamble, SFD and IFG unless a program changed
     *         it), read on each call: for set-up and tests
     */
    static uint32_t WireBytes(uint32_t frameBytes);

    /**
     * \param frameBytes a frame's size without FCS
     * \param overhead a wire overhead (RoceFrameWireOverhead)
     * \return the bytes the frame occupies on a wire with that overhead
     */
    static uint32_t WireBytes(uint32_t frameBytes, int32_t overhead)
    {
        return static_cast<uint32_t>(static_cast<int32_t>(std::max(frameBytes, MIN_FRAME_BYTES)) +
                                     overhead);
    }

    /**
     * \return the global value RoceFrameWireOverhead: the bytes every frame
     *         takes on a link beyond its size (after padding to
     *         MIN_FRAME_BYTES). ETHERNET_WIRE_OVERHEAD by default; a negative
     *         value models a shorter framing than RoCEv2 on Ethernet, such as
     *         the HPCC simulator's point-to-point packets
     *         (RoceHpccConfig::HPCC_SIM).
     */
    static int32_t GetGlobalWireOverhead();

    /** \return the wire overhead this device was built with (RoceFrameWireOverhead) */
    int32_t GetWireOverhead() const
    {
        return m_wireOverhead;
    }

    /**
     * \param frameBytes a frame's size without FCS
     * \return the bytes it occupies on this device's wire: WireBytes with
     *         the overhead read when the device was built
     */
    uint32_t FrameWireBytes(uint32_t frameBytes) const
    {
        return WireBytes(frameBytes, m_wireOverhead);
    }

    /**
     * \param frameBytes a frame's size without FCS
     * \return its serialization time at this device's rate
     */
    Time TxTime(uint32_t frameBytes) const;

    /**
     * \param dscp an IPv4 DSCP (0..63)
     * \return the priority it maps to
     */
    uint8_t DscpToPriority(uint8_t dscp) const;

    /**
     * \param priority a priority (0..7)
     * \return the DSCP that this device writes for the priority (the lowest DSCP mapping to it)
     */
    uint8_t PriorityToDscp(uint8_t priority) const;

    /**
     * \brief Hold or release XOFF towards the link peer for one priority.
     *
     * Holding sends a PFC pause of PauseQuanta now and refreshes it before
     * it expires; releasing sends quanta 0 (XON) at once.
     * \param priority the priority (0..7)
     * \param xoff true to pause the peer, false to resume it
     */
    void SetXoff(uint8_t priority, bool xoff);

    /**
     * \param priority a priority (0..7)
     * \return true while this device holds XOFF towards its peer
     */
    bool IsXoff(uint8_t priority) const;

    /**
     * \param quanta a pause time in quanta
     * \return its duration at this device's rate (quanta x 512 bit times)
     */
    Time PauseTime(uint16_t quanta) const;

    /**
     * \param priority a priority (0..7)
     * \return true while the peer has paused this priority here
     */
    bool IsPaused(uint8_t priority) const;

    /**
     * \brief Ask the device to start transmitting. Subclasses call this when
     * new data becomes ready: it starts at once if the wire is free, and
     * otherwise sets the wake-up at the end of the frame on the wire (one at
     * most; a transmit-complete event already due there serves).
     */
    void TryTransmit();

    /**
     * \brief Take this end of the link down or bring it back up (normally
     * through RoceChannel::SetLinkUp, which does both ends).
     *
     * Down: the frame on the wire and frames still in flight towards this
     * end are lost (dropped on arrival with reason "link-down"), pauses
     * received from the peer are forgotten, a held XOFF stops being
     * refreshed, queued PFC frames are dropped, and nothing is sent. A
     * device whose DropsWhenLinkDown() is true (a switch port) also drops
     * its queued data and every frame queued to it while down, so that a
     * dead port never holds buffer; a NIC keeps its data in its queue pairs
     * (their retransmission timeout runs on). Up: a held XOFF is sent again
     * and transmission resumes. Link-change callbacks and the LinkState
     * trace fire on each change.
     * \param up the new state
     */
    void SetLinkUp(bool up);

    /** \return times this end went down */
    uint64_t GetLinkDowns() const;

    /**
     * \brief Set the receive error model (the ReceiveErrorModel attribute).
     * \param em the model, or nullptr for none
     */
    void SetReceiveErrorModel(Ptr<ErrorModel> em);

    /** \return the receive error model (nullptr if none) */
    Ptr<ErrorModel> GetReceiveErrorModel() const;

    /** Per-priority PFC statistics of a device. */
    struct PfcStats
    {
        std::array<uint64_t, ROCE_NUM_PRIORITIES> pauseTx{}; //!< PFC frames sent (XOFF and refresh)
        std::array<uint64_t, ROCE_NUM_PRIORITIES> resumeTx{}; //!< XON frames sent
        std::array<uint64_t, ROCE_NUM_PRIORITIES> pauseRx{};  //!< pauses received (quanta > 0)
        std::array<uint64_t, ROCE_NUM_PRIORITIES> resumeRx{}; //!< resumes received
        std::array<Time, ROCE_NUM_PRIORITIES> pausedTime{};   //!< time this device was paused
    };

    /** \return PFC statistics; paused time includes a pause still running */
    PfcStats GetPfcStats() const;

    /** \return frames this device has put on the wire */
    uint64_t GetTxFrames() const;
    /** \return bytes (frames without FCS) this device has put on the wire */
    uint64_t GetTxBytes() const;

    /** \return frames this device dropped (any reason) */
    uint64_t GetDrops() const;
    /** \return the frames this device dropped, per reason (DROP_* constants) */
    const RoceDropCounts& GetDropCounts() const;

    /**
     * TracedCallback signature for PFC frames.
     * \param priority the priority
     * \param quanta the pause time in quanta (0 = resume)
     */
    typedef void (*PfcTracedCallback)(uint8_t priority, uint16_t quanta);

    /**
     * TracedCallback signature for drops.
     * \param p the dropped frame
     * \param reason why it was dropped
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> p, const char* reason);

    /**
     * TracedCallback signature for link state changes.
     * \param up true when the link came up, false when it went down
     */
    typedef void (*LinkStateTracedCallback)(bool up);

    static constexpr const char* DROP_RX_ERROR = "rx-error";   //!< link error model
    static constexpr const char* DROP_LINK_DOWN = "link-down"; //!< the link is down
    static constexpr const char* DROP_UNKNOWN_PROTOCOL =
        "unknown-protocol"; //!< nobody to deliver to
    static constexpr const char* DROP_MALFORMED_PFC =
        "malformed-pfc"; //!< a PFC frame shorter than its header

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;

    /**
     * \return GetNode()->GetId(), kept when the node is set: the context of
     * every frame the channel delivers here (Node::GetId costs a call and a
     * logging check in ns-3's Debian build)
     */
    uint32_t GetNodeId() const
    {
        return m_nodeId;
    }

    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

    /** \return the MAC address of the device at the other end of the link */
    Mac48Address GetPeerMac() const;

  protected:
    void DoDispose() override;

    /**
     * \brief Give the next data frame to put on the wire.
     * \param pausedMask bit p set if priority p is paused by the peer
     * \return the frame (with its Ethernet header) or nullptr if none is ready
     */
    virtual RoceFramePtr DequeueData(uint8_t pausedMask) = 0;

    /**
     * \brief Consume a received frame that is not a PFC frame.
     * \param p the frame, Ethernet header included
     * \param frame its parsed fields
     */
    virtual void ReceiveFrame(RoceFramePtr p, const RoceFrame& frame) = 0;

    /**
     * \brief Told when the peer resumes a priority. The default does nothing.
     * \param priority the priority
     */
    virtual void NotifyResume(uint8_t priority);

    /**
     * \brief Told when the peer pauses a priority that was running (not on
     * a refresh of a pause already in force). The default does nothing.
     * \param priority the priority
     */
    virtual void NotifyPause(uint8_t priority);

    /**
     * \brief Whether queued data is dropped while the link is down (true for
     * a switch port, whose buffer must not fill for a dead port) or kept
     * until it comes back (the default: a NIC's queue pairs keep theirs).
     * \return true to drop
     */
    virtual bool DropsWhenLinkDown() const;

    /** \return bit p set while the peer pauses priority p */
    uint8_t GetPausedMask() const
    {
        return m_pausedMask;
    }

    /**
     * \brief Whether data waits in a priority that is not paused: asked when
     * a frame starts (and on a busy wire when data or a resume arrives), to
     * decide whether a transmit-complete event is needed at the frame's end.
     *
     * Answering false while DequeueData would return a frame loses the
     * wake-up; answering true when nothing waits costs one event. The
     * default answers true (one transmit-complete event per frame).
     * \param pausedMask bit p set if priority p is paused by the peer
     * \return true if DequeueData(pausedMask) may have something to give
     */
    virtual bool HasWaitingData(uint8_t pausedMask) const;

    /**
     * \brief Enqueue a frame in the control queue, which goes ahead of data and
     * ignores pauses (PFC frames, and frames a subclass must not hold back).
     * \param p the frame with its Ethernet header
     */
    void EnqueueControl(RoceFramePtr p);

    /**
     * \brief Deliver a non-RoCE frame to the protocol stack above, if any.
     * \param p the frame with its Ethernet header
     * \return true if delivered
     */
    bool DeliverUp(RoceFramePtr p);

    /**
     * \brief Drop a frame: count it and fire the Drop trace.
     * \param p the frame
     * \param reason why
     */
    void DropFrame(Ptr<const Packet> p, const char* reason);

    /**
     * \brief Drop a frame: count it and fire the Drop trace (which, if
     * connected, makes the frame's Packet).
     * \param p the frame
     * \param reason why
     */
    void DropFrame(RoceWireFrame& p, const char* reason);

    /**
     * \brief Add an Ethernet II header addressed to the link peer.
     * \param p the packet
     * \param etherType the EtherType
     */
    void AddEthernetHeader(Ptr<Packet> p, uint16_t etherType) const;

    TracedCallback<Ptr<const Packet>> m_macTxTrace;             //!< frame handed to the wire
    TracedCallback<Ptr<const Packet>> m_macRxTrace;             //!< frame received
    TracedCallback<Ptr<const Packet>, const char*> m_dropTrace; //!< frame dropped
    TracedCallback<Ptr<const Packet>> m_snifferTrace;           //!< pcap sniffer
    TracedCallback<Ptr<const Packet>> m_promiscSnifferTrace;    //!< pcap sniffer (promisc)

  private:
    /** \brief The wire is free: put the next frame on it, if any. */
    void TransmitNext();

    /** \brief Drop what waits to go on a down link (see SetLinkUp). */
    void FlushWhileDown();

    /** \brief Forget the pauses received from the peer (the link went down). */
    void ClearPeerPauses();
    /** \brief Put a frame on the wire. \param p the frame */
    void StartTransmit(RoceFramePtr p);
    /** \brief The wire is free again and something was waiting for it. */
    void TransmitComplete();
    /** \return true if a frame waits to go (control, or data not paused) */
    bool HasWaiting() const;
    /** \brief Handle a received PFC frame. \param p the frame */
    void ReceivePfc(RoceWireFrame& p);
    /** \brief A pause from the peer ran out. \param priority the priority */
    void PauseExpired(uint8_t priority);
    /** \brief Send one PFC frame. \param priority the priority \param quanta pause quanta */
    void SendPfc(uint8_t priority, uint16_t quanta);
    /** \brief Re-send a held pause. \param priority the priority */
    void RefreshPause(uint8_t priority);
    /** \brief Set the DSCP map from its string form. \param map "dscp:prio,..." */
    void SetDscpMap(std::string map);
    /** \return the DSCP map's string form */
    std::string GetDscpMap() const;

    Ptr<Node> m_node;
    Ptr<RoceChannel> m_channel;
    uint32_t m_nodeId{0}; //!< m_node's id (GetNodeId)
    uint32_t m_ifIndex{0};
    Mac48Address m_address;
    uint16_t m_mtu{9216};
    DataRate m_bps{DataRate("100Gbps")};
    uint64_t m_bitRate{100000000000ULL}; //!< m_bps in bit/s, read per frame
    int32_t m_wireOverhead;              //!< RoceFrameWireOverhead when the device was built
    Ptr<ErrorModel> m_receiveErrorModel;
    bool m_linkUp{true};                    //!< this end of the link is up
    bool m_rxCheck{false};                  //!< receive needs a check: link down or an error model
    uint64_t m_linkDowns{0};                //!< times the link went down
    TracedCallback<> m_linkChangeCallbacks; //!< NetDevice link-change callbacks
    TracedCallback<bool> m_linkStateTrace;  //!< link went up (true) or down (false)
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscRxCallback;
    uint16_t m_pauseQuanta{0xFFFF};
    double m_refreshFraction{0.5};
    std::string m_dscpMapSpec;
    std::array<uint8_t, 64> m_dscpToPriority{};
    std::array<uint8_t, ROCE_NUM_PRIORITIES> m_priorityToDscp{};

    Time m_txEnd;            //!< when the frame on the wire ends (free from then on)
    EventId m_txEvent;       //!< transmit-complete event or wake-up at m_txEnd
    bool m_txPending{false}; //!< m_txEvent is scheduled and has not run
    uint64_t m_txCarryPs{0}; //!< sub-resolution remainder of serialization times
    RoceFifo<RoceFramePtr> m_controlQueue;

    uint8_t m_pausedMask{0};
    std::array<EventId, ROCE_NUM_PRIORITIES> m_pauseExpiry;
    // Time steps, not Time: ns-3 tracks every Time made before Simulator::Run
    // (48 bytes each), which for 16 per device was a sixth of a fabric's heap.
    std::array<int64_t, ROCE_NUM_PRIORITIES> m_pauseStart{}; //!< when each pause began
    std::array<bool, ROCE_NUM_PRIORITIES> m_xoff{};
    std::array<EventId, ROCE_NUM_PRIORITIES> m_refreshEvent;

    /** PfcStats as kept: paused time in time steps. */
    struct PfcCounters
    {
        std::array<uint64_t, ROCE_NUM_PRIORITIES> pauseTx{};    //!< as PfcStats
        std::array<uint64_t, ROCE_NUM_PRIORITIES> resumeTx{};   //!< as PfcStats
        std::array<uint64_t, ROCE_NUM_PRIORITIES> pauseRx{};    //!< as PfcStats
        std::array<uint64_t, ROCE_NUM_PRIORITIES> resumeRx{};   //!< as PfcStats
        std::array<int64_t, ROCE_NUM_PRIORITIES> pausedSteps{}; //!< finished pauses
    };

    PfcCounters m_pfcStats;
    uint64_t m_txFrames{0};
    uint64_t m_txBytes{0};
    uint64_t m_drops{0};
    RoceDropCounts m_dropCounts; //!< drops per reason

    TracedCallback<uint8_t, uint16_t> m_pfcTxTrace; //!< PFC frame sent
    TracedCallback<uint8_t, uint16_t> m_pfcRxTrace; //!< PFC frame received
};

} // namespace ns3

#endif /* ROCE_PFC_NET_DEVICE_H */
