/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NET_DEVICE_H
#define ROCE_NET_DEVICE_H

#include "roce-message-offload.h"
#include "roce-nic-scheduler.h"
#include "roce-queue-pair.h"

#include "ns3/ipv4-address.h"
#include "ns3/queue-size.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-congestion-ops.h"
#include "ns3/roce-header-block.h"
#include "ns3/roce-nic-endpoint.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/type-id.h"

#include <array>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A RoCEv2 NIC: queue pairs over a PFC-capable Ethernet port.
 *
 * Transmit: per priority (highest first, paused priorities skipped) the NIC
 * sends its control frames (ACK, NAK, CNP) and then data from its active queue
 * pairs in round robin, each QP limited by its congestion control's rate
 * (pacing) and window. When every active QP is waiting for its pacing time,
 * one wake-up event is scheduled for the earliest.
 *
 * Receive: frames go through an optional receive buffer drained at
 * RxDrainRate (the PCIe / host-memory path). When a priority's occupancy
 * crosses RxXoffThreshold the NIC pauses its link peer with PFC, and resumes
 * it below RxXonThreshold: the "slow receiver" that pushes back into the
 * fabric. Then headers are parsed and the packet goes to the QP its BTH names.
 *
 * To the other end of a queue pair it is a RoceNicEndpoint (its address and
 * QP numbers), as the RoceAbsentDevice that stands in for a NIC of another
 * MPI rank is.
 */
class RoceNetDevice : public RocePfcNetDevice, public RoceNicEndpoint
{
  public:
    /** First QP number a NIC assigns (QP0 and QP1 are special in InfiniBand). */
    static constexpr uint32_t FIRST_QPN = RoceBthHeader::FIRST_QPN;
    /** Bytes of a middle data packet beyond its payload, on the wire: Ethernet 14,
     *  IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4, preamble/SFD/IFG 20. */
    static constexpr uint32_t DATA_WIRE_OVERHEAD = 82;
    /** Bytes of a middle data frame beyond its payload (no FCS): Ethernet 14,
     *  IPv4 20, UDP 8, BTH 12, ICRC 4. */
    static constexpr uint32_t DATA_FRAME_OVERHEAD = 58;

    /// The class ACKs and NAKs travel in (the AckClass attribute).
    enum AckClass
    {
        ACK_QUEUE_PAIR,    //!< the acknowledged queue pair's queue, pause and DSCP
        ACK_CONTROL,       //!< CnpPriority's queue, pause and DSCP
        ACK_CONTROL_QUEUE, //!< CnpPriority's queue and pause, the queue pair's DSCP
    };

    static constexpr const char* DROP_UNKNOWN_QP = "unknown-qp"; //!< BTH names no QP here
    static constexpr const char* DROP_UNSUPPORTED_OPCODE = "unsupported-opcode"; //!< e.g. READ
    /// A RoCE frame too short for what its BTH says it carries (AETH, RETH, pad, INT, ICRC).
    static constexpr const char* DROP_MALFORMED = "malformed";
    static constexpr const char* DROP_RX_BUFFER_FULL =
        "rx-buffer-full"; //!< receive buffer overflow

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceNetDevice();
    ~RoceNetDevice() override;

    /**
     * \return the RoceNetDevices alive in this process: 0 after Simulator::Destroy
     * unless something still holds one (a leak test's measure)
     */
    static uint64_t GetLiveCount();

    /** \return the NIC's IPv4 address */
    Ipv4Address GetIpv4Address() const override;
    /** \param address the NIC's IPv4 address */
    void SetIpv4Address(Ipv4Address address);

    /** \return payload bytes per packet (the RoCE MTU) */
    uint32_t GetPayloadMtu() const;

    /**
     * \brief Add a queue pair to this NIC: it gets the next QP number, and
     * the slot QP number - FIRST_QPN in the NIC's tables.
     * \param qp the queue pair (attributes already set)
     * \return the local QP number assigned
     */
    uint32_t AddQp(Ptr<RoceQueuePair> qp);

    /**
     * \brief Take the next QP number without a queue pair: what a process
     * does for a NIC that runs on another MPI rank, whose QPs it never runs
     * but whose numbers its own QPs address. A NIC either holds its QPs
     * (AddQp) or only reserves numbers; mixing both is refused.
     * \return the QP number the NIC's own rank gives that QP
     */
    uint32_t ReserveQpn() override;

    /** \return QP numbers reserved with ReserveQpn */
    uint32_t GetNReservedQpns() const;

    /**
     * \brief Connect two new queue pairs to each other, qa on NIC a and qb on
     * NIC b. A NIC that runs on this MPI rank (every NIC in one process)
     * takes its QP (AddQp, ConnectQp); one of another rank (a RoceNetDevice
     * on a node of another rank, or the RoceAbsentDevice that stands in for
     * it) only reserves the QP's number, and its QP object is left to the
     * caller to drop.
     * \param a one NIC \param qa its new QP
     * \param b the other NIC \param qb its new QP
     * \return the pair's QP numbers (on a, on b)
     */
    static std::pair<uint32_t, uint32_t> ConnectPair(const Ptr<NetDevice>& a,
                                                     Ptr<RoceQueuePair> qa,
                                                     const Ptr<NetDevice>& b,
                                                     Ptr<RoceQueuePair> qb);

    /**
     * \param device a device
     * \return whether it is a NIC: a RoceNetDevice, or a RoceAbsentDevice that
     *         stands in for a NIC of another MPI rank
     */
    static bool IsNic(const Ptr<const NetDevice>& device);

    /**
     * \param nic a RoceNetDevice, or a RoceAbsentDevice that stands in for a
     *        NIC of another MPI rank
     * \return its IPv4 address; a RoceError for any other device
     */
    static Ipv4Address AddressOf(const Ptr<const NetDevice>& nic);

    /**
     * \brief Connect a QP added with AddQp to its remote peer.
     * \param qp the queue pair
     * \param remoteQpn the peer's QP number
     * \param remoteAddress the peer's IPv4 address
     * \param remoteInitialPsn the PSN the peer sends first
     */
    void ConnectQp(Ptr<RoceQueuePair> qp,
                   uint32_t remoteQpn,
                   Ipv4Address remoteAddress,
                   uint32_t remoteInitialPsn);

    /**
     * \param qpn a QP number
     * \return the QP, or nullptr
     */
    Ptr<RoceQueuePair> GetQp(uint32_t qpn) const;

    /** \return the number of QPs on this NIC */
    uint32_t GetNQps() const;

    /**
     * \param i index, 0..GetNQps()-1
     * \return the i-th QP
     */
    Ptr<RoceQueuePair> GetQpByIndex(uint32_t i) const;

    /** \return the congestion-control TypeId that new QPs fork */
    TypeId GetCongestionControlType() const;

    /**
     * \brief Select the congestion control by TypeId (the CongestionControl
     * attribute). The prototype is created with the attributes' defaults
     * when the first QP connects.
     * \param tid a subclass of ns3::RoceCongestionOps; checked
     */
    void SetCongestionControlType(TypeId tid);

    /**
     * \brief Use a configured prototype: every QP connected from now on
     * forks it. This is how RoceHelper passes per-algorithm attributes
     * (and DCQCN presets) to a NIC.
     * \param prototype the prototype; also sets the CongestionControl type
     */
    void SetCongestionControl(Ptr<RoceCongestionOps> prototype);

    /** \return the prototype QPs fork (created on first use) */
    Ptr<RoceCongestionOps> GetCongestionControl();

    // Called by queue pairs --------------------------------------------

    /**
     * \brief A QP may have become able to send, or able to send earlier than
     * the scheduler thinks (a post, an ACK that opened its window, a go-back,
     * a rate rise while it waits for its pacing time).
     * \param qp the queue pair
     */
    void NotifyQpReady(RoceQueuePair* qp);

    /**
     * \brief Add UDP (port 4791), IPv4 and Ethernet headers.
     * \param p the packet, starting with its BTH
     * \param dst destination address
     * \param sport UDP source port
     * \param priority priority, written as its DSCP
     * \param ect mark the packet ECN-capable (ECT(0))
     */
    void AddRoceHeaders(Ptr<Packet> p, Ipv4Address dst, uint16_t sport, uint8_t priority, bool ect);

    /**
     * \brief Fill a header block with this NIC's encapsulation and a BTH, for
     * a QP to use as a template.
     * \param block the block
     * \param dst destination address
     * \param sport UDP source port
     * \param priority priority, written as its DSCP
     * \param ect mark the packets ECN-capable (ECT(0))
     * \param bth the BTH (the per-packet fields are patched later)
     */
    void InitHeaderBlock(RoceHeaderBlock& block,
                         Ipv4Address dst,
                         uint16_t sport,
                         uint8_t priority,
                         bool ect,
                         const RoceBthHeader& bth);

    /**
     * \return a number that changes whenever the NIC's MAC or IPv4 address
     * or the ACKs' priority changes: header templates built under another
     * number are stale
     */
    uint32_t GetHeaderGeneration() const
    {
        return m_headerGeneration;
    }

    /**
     * \param qpPriority a queue pair's priority
     * \return the NIC queue (and the pause class) its ACKs and NAKs leave
     * from: CnpPriority unless AckClass is QueuePair
     */
    uint8_t GetAckPriority(uint8_t qpPriority) const
    {
        return m_ackClass == ACK_QUEUE_PAIR ? qpPriority : m_cnpPriority;
    }

    /**
     * \param qpPriority a queue pair's priority
     * \return the priority whose DSCP its ACKs and NAKs carry: CnpPriority
     * if AckClass is Control, else its own
     */
    uint8_t GetAckDscpPriority(uint8_t qpPriority) const
    {
        return m_ackClass == ACK_CONTROL ? m_cnpPriority : qpPriority;
    }

    /** \param c the AckClass attribute */
    void SetAckClass(AckClass c);
    /** \return the AckClass attribute */
    AckClass GetAckClass() const;
    /** \param priority the CnpPriority attribute */
    void SetCnpPriority(uint8_t priority);
    /** \return the CnpPriority attribute */
    uint8_t GetCnpPriority() const;

    /**
     * \brief Send an ACK, NAK or CNP ahead of the data of its priority.
     * \param p the frame
     * \param priority its priority
     */
    void SendControl(RoceFramePtr p, uint8_t priority);

    /**
     * \brief Send a CNP to the sender of a QP's data.
     * \param qp the receiving queue pair
     */
    void SendCnp(RoceQueuePair* qp);

    /** \return bytes waiting in the receive buffer */
    uint64_t GetRxBufferBytes() const;

    /**
     * \brief Have an offload (the flow-level engine) carry every message this
     * NIC's queue pairs are given, instead of packets.
     * \param offload the offload; null to send packets again
     */
    void SetMessageOffload(Ptr<RoceMessageOffload> offload);

    /** \return the offload that carries this NIC's messages, null at packet level */
    RoceMessageOffload* GetMessageOffload() const
    {
        return PeekPointer(m_offload);
    }

    void SetAddress(Address address) override;

  protected:
    void DoDispose() override;
    void DoInitialize() override;
    RoceFramePtr DequeueData(uint8_t pausedMask) override;
    void ReceiveFrame(RoceFramePtr p, const RoceFrame& frame) override;
    /** \return true: a RoceNetDevice is always a NIC end */
    bool IsNicEndpoint() const override;

  private:
    /** \brief Parse a RoCE frame and hand it to its QP. \param p the frame \param f its fields */
    void ProcessRoce(RoceFramePtr p, const RoceFrame& f);
    /**
     * \brief Read a frame's telemetry tail, [PINT digest][INT records][ICRC],
     * in one peek: the records go into m_intScratch (in hop order), the
     * frame is not changed.
     * \param p the frame
     * \param hops how many INT records it carries
     * \param pint whether it carries a PINT digest
     * \return the digest's exponent, -1 without one
     */
    int32_t ReadTelemetry(RoceWireFrame& p, uint32_t hops, bool pint);
    /** \brief Start draining the head of the receive buffer. */
    void StartDrain();
    /** \brief The head of the receive buffer has been drained. */
    void DrainDone();
    /** \brief Wake up for a paced QP. */
    void Wake();
    /** \param mtu the RoCE payload MTU; checked */
    void SetPayloadMtu(uint32_t mtu);

    /** A frame waiting in the receive buffer. */
    struct RxItem
    {
        RoceFramePtr packet; //!< the frame
        RoceFrame frame;     //!< its fields
        uint8_t priority{0}; //!< its priority
    };

    Ipv4Address m_ipv4;
    uint32_t m_headerGeneration{0}; //!< bumped when the MAC or IPv4 address changes
    uint32_t m_payloadMtu{1024};
    TypeId m_ccType;
    Ptr<RoceCongestionOps> m_ccPrototype; //!< what QPs fork; null until needed
    uint8_t m_cnpPriority{6};
    AckClass m_ackClass{ACK_QUEUE_PAIR}; //!< the AckClass attribute
    DataRate m_rxDrainRate{0};
    Ptr<RoceMessageOffload> m_offload; //!< null at packet level
    QueueSize m_rxBufferSize;
    QueueSize m_rxXoff;
    QueueSize m_rxXon;

    std::vector<Ptr<RoceQueuePair>> m_qps; //!< by slot (QP number - FIRST_QPN)
    uint32_t m_reservedQpns{0};            //!< ReserveQpn numbers (a NIC of another rank)
    RoceNicScheduler m_scheduler;          //!< which QP sends next
    std::array<RoceFifo<RoceFramePtr>, ROCE_NUM_PRIORITIES> m_control;
    EventId m_wakeEvent;
    Time m_wakeTime;
    uint8_t m_wakePausedMask{0}; //!< paused priorities when m_wakeTime was chosen
    bool m_wakePending{false};   //!< m_wakeEvent is scheduled and has not run

    RoceFifo<RxItem> m_rxBuffer;
    uint64_t m_rxBytes{0};
    std::array<uint64_t, ROCE_NUM_PRIORITIES> m_rxPriorityBytes{};
    EventId m_drainEvent;
    std::vector<RoceIntRecord> m_intScratch; //!< INT records of the frame being processed
    uint32_t m_intMultiplier{0}; //!< RoceIntUnitMultiplier, read at the first INT (0: not yet)

  protected:
    /**
     * \brief Exact: whether a priority that is not paused has a control frame
     * (ACK, NAK, CNP) or a QP in the scheduler (ready, or waiting for its
     * pacing time, which DequeueData then sets a wake-up for).
     * \param pausedMask bit p set if priority p is paused by the peer
     * \return true if DequeueData may give a frame or must set a wake-up
     */
    bool HasWaitingData(uint8_t pausedMask) const override;
};

} // namespace ns3

#endif /* ROCE_NET_DEVICE_H */
