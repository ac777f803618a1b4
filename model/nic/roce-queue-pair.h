/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_QUEUE_PAIR_H
#define ROCE_QUEUE_PAIR_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/roce-congestion-ops.h"
#include "ns3/roce-header-block.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-lazy-trace.h"
#include "ns3/roce-wire-frame.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <vector>

namespace ns3
{

class Packet;
class RoceNetDevice;
class RoceReorderWindow;
class RoceBthHeader;
class RoceAethHeader;

/**
 * \ingroup rocev2
 * \brief The outcome of one posted message.
 */
struct RoceCompletion
{
    uint64_t id{0};      //!< the id PostWrite/PostSend returned
    uint64_t bytes{0};   //!< message size
    Time posted;         //!< when it was posted
    Time completed;      //!< when it was acknowledged in full (or failed)
    bool success{false}; //!< false if the queue pair went to the error state
};

/**
 * \ingroup rocev2
 * \brief One end of a Reliable Connected queue pair.
 *
 * Sender: messages (RDMA WRITE or SEND) are cut into MTU-sized packets with
 * consecutive 24-bit PSNs. Packets are built when the NIC's scheduler asks for
 * one, so a retransmission is simply a rebuild. A NAK (PSN sequence error)
 * sends the QP back to the NAK'd PSN (go-back-N); a retransmission timer
 * recovers tail loss, and after RetryCount expiries without progress the QP
 * enters the error state, fails its messages and stops.
 *
 * Receiver: by default accepts packets in PSN order only (go-back-N),
 * coalesces ACKs (one per AckInterval packets, and always at the end of a
 * message), sends one NAK per gap, re-acknowledges duplicates, and reports CE
 * marks to its congestion control, which decides whether to send a CNP. With
 * a ReceiveWindow of N > 0 packets it repeats selectively instead: a packet
 * up to N PSNs ahead of the expected one is held (RoceReorderWindow) without
 * a NAK, and the cumulative ACK jumps over the held packets once the gap
 * before them fills; only a packet beyond the window is NAK'd. Per-packet
 * spraying and per-packet adaptive routing reorder packets and need it.
 */
class RoceQueuePair : public Object, private RoceCcRateListener
{
  public:
    /** Queue pair states that matter to the simulation. */
    enum State
    {
        RESET, //!< created, not connected
        RTS,   //!< connected: ready to send and receive
        ERROR, //!< retries exhausted; nothing more is sent
    };

    /** Largest ReceiveWindow, in packets. */
    static constexpr uint32_t MAX_RECEIVE_WINDOW = 65536;

    /** Completion callback. */
    typedef Callback<void, const RoceCompletion&> CompletionCallback;

    /**
     * TracedCallback signature for message completion.
     * \param c the completion
     */
    typedef void (*CompletionTracedCallback)(const RoceCompletion& c);

    /**
     * TracedCallback signature for retransmission events.
     * \param psn the PSN sending restarts from
     * \param packets the number of packets that will be sent again
     */
    typedef void (*RetransmitTracedCallback)(uint32_t psn, uint32_t packets);

    /**
     * TracedCallback signature for in-order delivery at the receiver.
     * \param psn the PSN accepted
     * \param bytes its payload bytes
     */
    typedef void (*DeliverTracedCallback)(uint32_t psn, uint32_t bytes);

    /**
     * TracedCallback signature for a message received in full.
     * \param bytes the message size
     * \param msn the receiver's message sequence number after it
     */
    typedef void (*MessageReceivedTracedCallback)(uint64_t bytes, uint64_t msn);

    /**
     * TracedCallback signature for the error state.
     * \param qpn the local QP number
     */
    typedef void (*ErrorTracedCallback)(uint32_t qpn);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceQueuePair();
    ~RoceQueuePair() override;

    /**
     * \return the RoceQueuePairs alive in this process: 0 after Simulator::Destroy
     * unless something still holds one (a leak test's measure)
     */
    static uint64_t GetLiveCount();

    /**
     * \brief Post an RDMA WRITE.
     * \param bytes message size
     * \param cb called once the message is acknowledged (or fails)
     * \return the message id
     */
    uint64_t PostWrite(uint64_t bytes, CompletionCallback cb = CompletionCallback());

    /**
     * \brief Post a SEND.
     * \param bytes message size
     * \param cb called once the message is acknowledged (or fails)
     * \return the message id
     */
    uint64_t PostSend(uint64_t bytes, CompletionCallback cb = CompletionCallback());

    /** \return local QP number */
    uint32_t GetQpn() const;
    /** \return remote QP number */
    uint32_t GetRemoteQpn() const;
    /** \return remote IPv4 address */
    Ipv4Address GetRemoteAddress() const;
    /** \return the UDP source port (ECMP entropy) */
    uint16_t GetSourcePort() const;
    /** \return priority (0..7) */
    uint8_t GetPriority() const;
    /** \param priority priority (0..7); checked */
    void SetPriority(uint8_t priority);
    /** \return the state */
    State GetState() const;
    /** \return the NIC */
    Ptr<RoceNetDevice> GetNic() const;
    /** \return this QP's congestion control */
    Ptr<RoceCongestionOps> GetCongestionControl() const;

    /** Counters of one queue pair. */
    struct Stats
    {
        uint64_t dataPacketsSent{0};  //!< data packets put on the wire, retransmissions included
        uint64_t payloadBytesSent{0}; //!< payload bytes put on the wire
        uint64_t retransmittedPackets{0}; //!< packets sent more than once
        uint64_t naksReceived{0};         //!< NAKs received
        uint64_t timeouts{0};             //!< retransmission timer expiries
        uint64_t bytesAcked{0};           //!< payload bytes acknowledged
        uint64_t messagesPosted{0};       //!< messages posted (WRITE and SEND)
        uint64_t messagesCompleted{0};    //!< messages completed successfully
        uint64_t messagesFailed{0};       //!< messages failed by the error state
        uint64_t bytesDelivered{0};       //!< payload accepted in order (receiver)
        uint64_t messagesReceived{0};     //!< messages received in full (receiver)
        uint64_t duplicatesReceived{0};   //!< packets with an old PSN (receiver)
        uint64_t outOfOrderReceived{0};   //!< packets beyond a gap (receiver)
        uint64_t naksSent{0};             //!< NAKs sent (receiver)
        uint64_t acksSent{0};             //!< ACKs sent (receiver)
        uint64_t ceReceived{0};           //!< CE-marked data packets (receiver)
        uint64_t cnpSent{0};              //!< CNPs sent (receiver)
        uint64_t cnpReceived{0};          //!< CNPs received, or ACKs taken as CNPs (sender)
    };

    /** \return the counters */
    const Stats& GetStats() const;

    /** \return true if the QP has posted data not yet acknowledged (false in ERROR) */
    bool HasOutstanding() const;

    /**
     * \return true if packets are in flight but no retransmission timer is
     * armed: nothing would ever resend them (a hang; RoceInvariants reports it)
     */
    bool IsStalled() const;

    // Called by the NIC -------------------------------------------------

    /**
     * \brief Connect the QP (RESET to RTS).
     * \param nic the local NIC
     * \param qpn the local QP number the NIC assigned
     * \param remoteQpn the peer's QP number
     * \param remoteAddress the peer's IPv4 address
     * \param remoteInitialPsn the PSN the peer sends first (what this QP expects)
     * \param cc this QP's congestion control (a fork of the NIC's prototype)
     */
    void Connect(Ptr<RoceNetDevice> nic,
                 uint32_t qpn,
                 uint32_t remoteQpn,
                 Ipv4Address remoteAddress,
                 uint32_t remoteInitialPsn,
                 Ptr<RoceCongestionOps> cc);

    /**
     * \brief Set the QP number; RoceNetDevice::AddQp calls this.
     * \param qpn the local QP number (its slot on the NIC + FIRST_QPN)
     */
    void SetQpn(uint32_t qpn);

    /**
     * \brief Set the selective-repeat receive window (ReceiveWindow attribute).
     * \param packets 0 for go-back-N, else how many packets ahead of the
     *        expected PSN the receiver holds (1..65536); checked
     */
    void SetReceiveWindow(uint32_t packets);

    /** \return the ReceiveWindow attribute (0: go-back-N) */
    uint32_t GetReceiveWindow() const;

    /** \return the PSN of this QP's first packet (InitialPsn attribute) */
    uint32_t GetInitialPsn() const;

    /**
     * \brief When may the QP send its next data packet?
     * \param now the current time
     * \return now or later if it may send (pacing); Time::Max() if it has
     *         nothing to send or its window is full
     */
    Time NextSendTime(Time now) const;

    /**
     * \brief Build the next data frame, Ethernet header first, in compact form.
     * \return the frame; the caller has checked NextSendTime()
     */
    RoceFramePtr BuildNextPacket();

    /**
     * \brief A data packet for this QP arrived.
     * \param payload its payload bytes (without headers, RETH, pad,
     *        telemetry and ICRC)
     * \param bth its BTH
     * \param ce the IPv4 ECN field was CE
     * \param ints the INT records the packet carried (echoed on the next ACK)
     * \param pint its PINT digest (echoed on the next ACK), -1 if none
     */
    void ReceiveData(uint32_t payload,
                     const RoceBthHeader& bth,
                     bool ce,
                     const std::vector<RoceIntRecord>& ints,
                     int32_t pint = -1);

    /**
     * \brief An ACK or NAK for this QP arrived.
     * \param bth its BTH
     * \param aeth its AETH
     * \param ints the INT records it echoes
     * \param pint the PINT digest it echoes, -1 if none
     */
    void ReceiveAck(const RoceBthHeader& bth,
                    const RoceAethHeader& aeth,
                    const std::vector<RoceIntRecord>& ints,
                    int32_t pint = -1);

    /** \brief A CNP for this QP arrived. */
    void ReceiveCnp();

    // Called by a RoceMessageOffload (the flow-level engine) ----------

    /**
     * \brief Sender: a message the NIC's offload carried is acknowledged in
     * full. Counts it as the last ACK would (bytesAcked, messagesCompleted,
     * and its packets and payload as sent), fires MessageComplete and calls
     * the callback.
     * \param id its id \param bytes its size \param packets the packets it
     *        takes \param posted when it was posted \param cb its callback
     */
    void CompleteOffloaded(uint64_t id,
                           uint64_t bytes,
                           uint64_t packets,
                           Time posted,
                           const CompletionCallback& cb);

    /**
     * \brief Receiver: a message the sender's offload carried arrived in
     * full. Counts it as its packets would (bytesDelivered, messagesReceived,
     * the expected PSN and the MSN) and fires MessageReceived; the per-packet
     * Deliver trace does not fire.
     * \param bytes its size \param packets the packets it takes
     */
    void DeliverOffloaded(uint64_t bytes, uint64_t packets);

    /** \return the payload bytes of this QP's packets (the NIC's payload MTU) */
    uint32_t GetPayloadMtu() const;

  protected:
    void DoDispose() override;

  private:
    /** A posted message. */
    struct Message
    {
        uint64_t id;           //!< message id
        uint64_t firstSeq;     //!< sequence number of its first packet
        uint64_t nPackets;     //!< packets it takes
        uint64_t bytes;        //!< size
        bool write;            //!< RDMA WRITE (else SEND)
        Time posted;           //!< when posted
        CompletionCallback cb; //!< completion callback
    };

    /**
     * \brief Post a message.
     * \param bytes size \param write WRITE or SEND \param cb callback
     * \return the id
     */
    uint64_t Post(uint64_t bytes, bool write, CompletionCallback cb);
    /**
     * \param seq a sequence number in [sndUna, sndEnd)
     * \return the message holding it
     */
    const Message& FindMessage(uint64_t seq) const;
    /**
     * \param m a message \param seq a sequence number within it
     * \return payload bytes of that packet
     */
    uint32_t PayloadOf(const Message& m, uint64_t seq) const;
    /**
     * \brief Acknowledge everything before newUna.
     * \param newUna the new first unacknowledged sequence number
     * \param ecnEcho the ACK echoed CE
     * \param ints INT records the ACK echoed
     * \param pint the PINT digest the ACK echoed, -1 if none
     * \return true if it acknowledged new data
     */
    bool AckUpTo(uint64_t newUna,
                 bool ecnEcho,
                 const std::vector<RoceIntRecord>* ints,
                 int32_t pint = -1);
    /**
     * \brief The congestion control's rate may have risen since the last
     * packet: bring the pacing time forward to last send + its wire bits /
     * the new rate, if that is earlier. A fall never delays a packet already
     * due at a given time; it paces the packets after it.
     * \return true if the pacing time moved earlier
     */
    bool ApplyRateRise();
    /** \brief The congestion control raised its rate on its own (a timer). */
    void RateRaised() override;
    /**
     * \return true when nothing is outstanding or posted and no packet waits
     * for its pacing time: a rate rise would change nothing
     */
    bool IsIdle() const override;
    /** \brief Remove the first message (fully acknowledged). */
    void PopMessage();
    /** \brief Restart sending from sndUna (go-back-N). */
    void GoBack(uint64_t seq);
    /** \brief Make sure the retransmission timer runs while data is outstanding. */
    void ArmRto();
    /** \param rto the RetransmitTimeout attribute */
    void SetRto(Time rto);
    /** \return the RetransmitTimeout attribute */
    Time GetRto() const;
    /** \brief The retransmission timer fired. */
    void RtoExpired();
    /** \brief Enter the error state and fail every message. */
    void EnterError();
    /**
     * \brief Selective repeat: the packet that filled a gap was delivered;
     * deliver the packets held behind it, up to the next gap.
     */
    void DeliverHeld();
    /**
     * \brief Selective repeat: hold a packet that arrived ahead of a gap.
     * \param payload its payload bytes
     * \param bth its BTH
     * \param ahead how many PSNs it is ahead of the expected one (within the window)
     */
    void HoldOutOfOrder(uint32_t payload, const RoceBthHeader& bth, uint32_t ahead);
    /**
     * \brief Send an ACK or NAK.
     * \param nak true for a NAK
     * \param psnSeq the sequence number it names
     */
    void SendAck(bool nak, uint64_t psnSeq);

    /**
     * \brief The leading headers of this QP's frames, prebuilt: one
     * AddHeader() of a patched copy per packet. Built on first use and
     * rebuilt when what they were built from changes.
     */
    struct HeaderTemplates
    {
        RoceHeaderBlock data;   //!< data packets (ECT(0))
        RoceHeaderBlock ack;    //!< ACKs and NAKs (not ECT)
        Mac48Address peerMac;   //!< the link peer's MAC they carry
        uint32_t generation{0}; //!< the NIC's header generation they were built under
        uint16_t sourcePort{0}; //!< the UDP source port they carry
        uint8_t dscp{0};        //!< the DSCP data packets carry
        uint8_t ackDscp{0};     //!< the DSCP ACKs and NAKs carry
    };

    /** \return the header templates, (re)built if missing or stale */
    HeaderTemplates& Headers();

    // identity and configuration
    Ptr<RoceNetDevice> m_nic;
    Ptr<RoceCongestionOps> m_cc;
    State m_state{RESET};
    uint32_t m_qpn{0};
    uint32_t m_remoteQpn{0};
    Ipv4Address m_remoteAddress;
    uint16_t m_sourcePort{0};
    uint8_t m_priority{3};
    uint32_t m_initialPsn{0};
    // Times are kept as int64_t simulator time steps (TimeStep(x) turns them
    // back into Time): ns-3 records every Time object built before
    // Simulator::Run (about 48 bytes each, in case the resolution changes), a
    // cost an idle queue pair should not pay five times. Set the time
    // resolution, if at all, before creating queue pairs.
    int64_t m_rto{0}; //!< RetransmitTimeout, time steps
    uint32_t m_retryCount{7};
    uint32_t m_ackInterval{1};
    uint32_t m_maxInflightPackets{1u << 20};
    uint32_t m_retries{0}; //!< sender: RTO expiries since progress (here to fill padding)
    uint64_t m_remoteVa{0};
    uint32_t m_rkey{0};
    uint32_t m_mtu{1024}; //!< payload per packet, from the NIC

    // sender
    // Posted messages not fully acknowledged are m_messages[m_msgHead..]. A
    // vector with a head index, not a std::deque: an empty vector allocates
    // nothing, while a deque allocates ~600 bytes when constructed, which an
    // idle QP would pay.
    std::vector<Message> m_messages;    //!< posted messages, completed ones before m_msgHead
    std::size_t m_msgHead{0};           //!< index of the first not fully acknowledged
    mutable std::size_t m_msgCursor{0}; //!< index where the last FindMessage ended
    uint64_t m_nextMessageId{1};
    uint64_t m_sndUna{0};      //!< first unacknowledged
    uint64_t m_sndNxt{0};      //!< next to send
    uint64_t m_sndMax{0};      //!< highest sent + 1
    uint64_t m_sndEnd{0};      //!< next to be assigned to a message
    int64_t m_nextSendTime{0}; //!< pacing: when the next data packet may leave, time steps
    int64_t m_lastSendTime{0}; //!< when the last data packet was built, time steps
    EventId m_rtoEvent;
    int64_t m_rtoDeadline{0};    //!< when the RTO expires, time steps
    uint64_t m_rttSeq{0};        //!< the packet being timed for an RTT sample
    int64_t m_rttSent{0};        //!< when it was sent, time steps
    uint32_t m_lastWireBytes{0}; //!< bytes on the wire of the last data packet
    bool m_rttValid{false};      //!< a packet is being timed
    bool m_rtoPending{false}; //!< m_rtoEvent is scheduled, not cancelled (IsExpired costs a call)
    bool m_nakSent{false};    //!< receiver (here to share the padding)
    bool m_ceSinceAck{false}; //!< receiver (here to share the padding)
    uint32_t m_offloaded{0};  //!< messages an offload carries, not yet complete

    // receiver
    uint64_t m_rcvNxt{0};
    uint32_t m_rcvMsn{0};
    uint32_t m_unackedPackets{0};
    uint64_t m_rcvMessageBytes{0};
    std::vector<RoceIntRecord> m_intEcho; //!< INT of the last data packet, for the next ACK
    int32_t m_pintEcho{-1}; //!< PINT digest of the last data packet, for the next ACK (-1: none)

    // Selective repeat (ReceiveWindow > 0), null for go-back-N: a queue pair
    // that does not use it pays one pointer, and one null test per packet.
    std::unique_ptr<RoceReorderWindow> m_reorder;

    // Allocated on the first packet: a queue pair that never sends pays one pointer.
    std::unique_ptr<HeaderTemplates> m_headers; //!< header templates, null until needed

    Stats m_stats;

    /**
     * \brief The trace sources' callbacks, allocated when the first one is
     * connected: a queue pair nobody traces pays one pointer instead of six
     * callback lists, and firing a trace nobody connected is one null test.
     */
    struct Traces
    {
        TracedCallback<const RoceCompletion&> complete;     //!< MessageComplete
        TracedCallback<uint32_t, uint32_t> retransmit;      //!< Retransmit
        TracedCallback<uint32_t, uint32_t> timeout;         //!< Timeout
        TracedCallback<uint32_t, uint32_t> deliver;         //!< Deliver
        TracedCallback<uint64_t, uint64_t> messageReceived; //!< MessageReceived
        TracedCallback<uint32_t> error;                     //!< Error
    };

    RoceLazyTraces<Traces> m_traces; //!< null until a trace source is connected
};

} // namespace ns3

#endif /* ROCE_QUEUE_PAIR_H */
