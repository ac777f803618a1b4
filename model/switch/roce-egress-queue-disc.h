/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_EGRESS_QUEUE_DISC_H
#define ROCE_EGRESS_QUEUE_DISC_H

#include "roce-shared-buffer-mmu.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/queue-size.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-drop-counts.h"
#include "ns3/roce-fifo.h"
#include "ns3/roce-wire-frame.h"
#include "ns3/traced-callback.h"

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The egress of one switch port: eight per-priority queues, ECN
 * marking, and strict-priority or DWRR scheduling that skips paused classes.
 *
 * Admission is the shared buffer's decision: Enqueue asks the switch's
 * RoceSharedBufferMmu (Admit) and drops, with the MMU's reason, what it
 * refuses; Dequeue gives the bytes back (Release). The queue disc never
 * touches a port: when a PG crosses into XOFF or back to XON, the MMU calls
 * its switch's PFC callback, and the switch pauses the ingress port's peer.
 *
 * ECN marking is RED-like on the bytes queued in the packet's priority: no
 * mark below Kmin, probability rising linearly to Pmax at Kmax, always above
 * Kmax (Kmin = Kmax gives DCTCP-style step marking). Kmin and Kmax are given
 * for EcnThresholdRate and scale with the port's rate, so one setting serves
 * every link speed.
 *
 * Scheduling is strict priority (the highest ready priority first) or deficit
 * weighted round robin: priority i earns DwrrQuantum * w_i bytes of credit per
 * round (w_i from DwrrWeights), so backlogged priorities share the link in
 * proportion to their weights. Either way a priority the downstream device
 * paused with PFC is not ready: it is skipped, keeps its packets, and loses
 * its DWRR credit like an empty queue.
 *
 * It is a plain Object, not an ns-3 QueueDisc: a switch port pulls from it
 * directly, so it needs none of the traffic-control plumbing (a QueueDiscItem
 * per packet, internal Queue objects, per-mark statistics maps). Each
 * priority is a FIFO ring of small entries that grows by doubling and is
 * reused, so a queued packet costs no allocation besides the Packet itself.
 * Marking sets CE in the frame's bytes (RoceRawHeader::SetCe) without
 * re-serialising its headers.
 *
 * Trace sources: Enqueue and Dequeue (packet, priority), Mark (packet,
 * priority) and Drop (packet, priority, reason: the MMU's, or "pfc-watchdog"
 * for what a PFC watchdog flushes or refuses, see RoceSwitchPort).
 */
class RoceEgressQueueDisc : public Object
{
  public:
    /** Scheduling among priorities. */
    enum Scheduler
    {
        STRICT, //!< highest priority first
        DWRR,   //!< deficit weighted round robin
    };

    /** Where ECN marking happens. */
    enum MarkPoint
    {
        MARK_AT_ENQUEUE,
        MARK_AT_DEQUEUE,
    };

    static constexpr uint32_t MAX_DWRR_WEIGHT = 65535;    //!< largest DWRR weight
    static constexpr uint32_t INITIAL_RING_CAPACITY = 16; //!< entries per priority at start

    /**
     * TracedCallback signature of Enqueue, Dequeue and Mark.
     * \param packet the frame
     * \param priority its priority (egress queue)
     */
    typedef void (*PacketTracedCallback)(Ptr<const Packet> packet, uint8_t priority);
    /**
     * TracedCallback signature of Drop.
     * \param packet the frame
     * \param priority its priority
     * \param reason why (the MMU's reason, or "pfc-watchdog")
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet,
                                       uint8_t priority,
                                       const char* reason);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceEgressQueueDisc();
    ~RoceEgressQueueDisc() override;

    /**
     * \brief Attach to a switch buffer and a port rate (ECN scaling).
     * \param mmu the switch's MMU
     * \param rate the port's line rate
     */
    void Setup(Ptr<RoceSharedBufferMmu> mmu, DataRate rate);

    /** \param mask bit p set if the downstream device paused priority p */
    void SetPausedMask(uint8_t mask);

    static constexpr uint8_t TELEMETRY_NONE = 0; //!< nothing to stamp at egress
    static constexpr uint8_t TELEMETRY_INT = 1;  //!< append this hop's INT record
    static constexpr uint8_t TELEMETRY_PINT = 2; //!< raise the PINT digest

    /**
     * \brief Admit a frame through the MMU and queue it, or drop it.
     * \param p the frame (Ethernet header included)
     * \param ingress the index on the switch of the port it arrived on
     * \param priority its priority (= ingress PG = egress queue)
     * \param ect the frame is ECN-capable
     * \param telemetry what the frame asks of the egress: TELEMETRY_NONE,
     * TELEMETRY_INT (an INT record) or TELEMETRY_PINT (the PINT digest)
     * \return true if queued, false if the MMU refused it (dropped)
     */
    bool EnqueueFrame(RoceFramePtr p,
                      uint16_t ingress,
                      uint8_t priority,
                      bool ect,
                      uint8_t telemetry = TELEMETRY_NONE);

    /**
     * \brief EnqueueFrame() of a frame given as a Packet (kept as it is).
     * \param p the frame (Ethernet header included)
     * \param ingress the index on the switch of the port it arrived on
     * \param priority its priority
     * \param ect the frame is ECN-capable
     * \param telemetry what the frame asks of the egress
     * \return true if queued
     */
    bool Enqueue(Ptr<Packet> p,
                 uint16_t ingress,
                 uint8_t priority,
                 bool ect,
                 uint8_t telemetry = TELEMETRY_NONE);

    /**
     * \brief Take the next frame the scheduler picks among the priorities
     * not paused, and give its bytes back to the MMU.
     * \param priority if not null, receives the frame's priority
     * \param telemetry if not null, receives what it asks of the egress
     * (the TELEMETRY_ code it was queued with)
     * \return the frame, or null if every unpaused priority is empty
     */
    RoceFramePtr DequeueFrame(uint8_t* priority = nullptr, uint8_t* telemetry = nullptr);

    /**
     * \brief DequeueFrame(), the frame as a Packet (the one Enqueue() was
     * given, or the frame's Packet form).
     * \param priority if not null, receives the frame's priority
     * \param telemetry if not null, receives its TELEMETRY_ code
     * \return the frame, or null if every unpaused priority is empty
     */
    Ptr<Packet> Dequeue(uint8_t* priority = nullptr, uint8_t* telemetry = nullptr);

    /** \return packets queued, all priorities */
    uint32_t GetNPackets() const;
    /** \return bytes queued, all priorities */
    uint64_t GetNBytes() const;
    /** \param priority a priority \return packets queued in it */
    uint32_t GetNPackets(uint8_t priority) const;

    /**
     * \brief Set the DWRR weights (the DwrrWeights attribute). Aborts with a
     * message naming the attribute and the value if the string is malformed.
     * \param spec eight positive integers separated by commas, priority 0 first
     */
    void SetDwrrWeights(std::string spec);
    /** \return the DwrrWeights attribute as set */
    std::string GetDwrrWeights() const;
    /** \param priority a priority \return its DWRR weight */
    uint32_t GetDwrrWeight(uint8_t priority) const;

    /**
     * \brief Parse a DwrrWeights string.
     * \param spec the string: exactly ROCE_NUM_PRIORITIES integers in
     *        1..MAX_DWRR_WEIGHT separated by commas (spaces allowed)
     * \param weights receives the weights, priority 0 first
     * \param error receives why the string was refused
     * \return true if the string is valid
     */
    static bool ParseDwrrWeights(const std::string& spec,
                                 std::array<uint32_t, ROCE_NUM_PRIORITIES>& weights,
                                 std::string& error);

    /** \param priority a priority \return bytes queued in it */
    uint64_t GetQueueBytes(uint8_t priority) const;

    /**
     * \param pausedMask bit p set if priority p is paused
     * \return true if a priority not in the mask holds a packet (read per
     *         frame by the port's transmit path)
     */
    bool HasUnpausedData(uint8_t pausedMask) const
    {
        if (m_nBytes == 0)
        {
            return false;
        }
        for (uint32_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
        {
            if (!(pausedMask & (1u << p)) && m_bytes[p] > 0)
            {
                return true;
            }
        }
        return false;
    }

    /** \return bit p set while priority p holds a packet */
    uint8_t GetBackloggedMask() const;

    /**
     * \brief Drop every packet queued in one priority (a PFC watchdog's
     * flush): each is counted as a drop of the priority, fires the Drop trace
     * with the reason, and gives its bytes back to the MMU at its ingress PG
     * (which may send XON upstream).
     * \param priority the priority
     * \param reason the drop reason
     * \return the packets and bytes dropped
     */
    std::pair<uint32_t, uint64_t> Flush(uint8_t priority, const char* reason);

    /**
     * \brief Drop a frame before admission (it was never counted by the
     * MMU): count it as a drop of its priority and fire the Drop trace.
     * \param p the frame
     * \param priority its priority
     * \param reason why
     */
    void DropArrival(RoceWireFrame& p, uint8_t priority, const char* reason);

    /**
     * \brief Scan one priority for packets that entered the switch on a
     * port. Linear in the queue; for diagnostics (deadlock detection), never
     * called on the packet path.
     * \param ingress the ingress port index
     * \param priority the priority
     * \return true if the priority holds at least one packet from that port
     */
    bool HoldsFrameFrom(uint16_t ingress, uint8_t priority) const;

    /**
     * \brief The distinct ingress ports of the packets queued in one
     * priority, in increasing order. One linear scan; for diagnostics, never
     * called on the packet path.
     * \param priority the priority
     * \param ports receives the port indices (cleared first)
     */
    void CollectIngressPorts(uint8_t priority, std::vector<uint16_t>& ports) const;

    /** \param priority a priority \return the most bytes ever queued in it */
    uint64_t GetMaxQueueBytes(uint8_t priority) const;
    /** \param priority a priority \return ECN marks made in it */
    uint64_t GetEcnMarks(uint8_t priority) const;
    /** \param priority a priority \return packets dropped in it */
    uint64_t GetDrops(uint8_t priority) const;
    /** \return the packets dropped, all priorities, per reason */
    const RoceDropCounts& GetDropCounts() const;
    /** \return Kmin in bytes at this port's rate */
    uint64_t GetKmin() const;
    /** \return Kmax in bytes at this port's rate */
    uint64_t GetKmax() const;
    /**
     * \param queueBytes bytes queued
     * \return the marking probability RED gives for that queue
     */
    double MarkProbability(uint64_t queueBytes) const;

    /**
     * \brief Assign a fixed random variable stream number to the RED coin.
     * \param stream first stream index
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    /** \brief Check the configuration (aborts naming the attribute) and scale Kmin/Kmax. */
    void DoInitialize() override;
    void DoDispose() override;

  private:
    /** A queued frame and what the switch learned about it on ingress. */
    struct Entry
    {
        RoceFramePtr packet;  //!< the frame
        uint32_t size{0};     //!< its size in bytes (what the MMU counts)
        uint16_t ingress{0};  //!< ingress port index (MMU accounting)
        bool ect{false};      //!< ECN-capable and not yet marked
        uint8_t telemetry{0}; //!< what to stamp at egress (TELEMETRY_ code)
    };

    /** A priority's queue: a ring of entries, filled in place; popping releases the packet. */
    using Ring = RoceFifo<Entry, INITIAL_RING_CAPACITY>;

    /**
     * \brief Mark a packet if RED says so.
     * \param e the packet's entry
     * \param priority its priority
     * \param queueBytes bytes queued in its priority
     */
    void MaybeMark(Entry& e, uint8_t priority, uint64_t queueBytes);
    /** \return the queue Dequeue takes from next, or -1 */
    int PickQueue();
    /**
     * \brief HPCC-PINT at a frame's departure: fold it into the port's
     * utilization estimate and, if it asks for the digest, raise its digest
     * to the estimate's.
     * \param p the frame leaving
     * \param stamp it carries a PINT digest
     */
    void UpdatePint(RoceWireFrame& p, bool stamp);

    /// HPCC-PINT's per-port state, made at the first frame asking for the digest.
    struct PintState
    {
        double u{0};               //!< utilization estimate
        int64_t lastNs{0};         //!< departure of the previous frame, ns
        uint32_t lastWireBytes{0}; //!< its bytes on the wire
        double logBase{0};         //!< RocePintLogBase, read once
        int32_t wireOverhead{0};   //!< RoceFrameWireOverhead, read once
    };

    std::unique_ptr<PintState> m_pint; //!< null until a frame asks for PINT
    Time m_pintRtt;                    //!< PintRtt attribute

    Ptr<RoceSharedBufferMmu> m_mmu;
    DataRate m_rate;
    uint8_t m_pausedMask{0};
    Scheduler m_scheduler{STRICT};
    uint32_t m_quantum{9216};
    std::string m_weightSpec;                              //!< DwrrWeights as set
    std::array<uint32_t, ROCE_NUM_PRIORITIES> m_weights{}; //!< DWRR weight per priority
    uint32_t m_minWeight{1};                               //!< smallest weight
    std::array<int64_t, ROCE_NUM_PRIORITIES> m_deficit{};
    uint32_t m_dwrrNext{0};
    bool m_dwrrTurnStarted{false};
    bool m_ecnEnabled{true};
    QueueSize m_kmin;
    QueueSize m_kmax;
    double m_pmax{0.2};
    DataRate m_ecnThresholdRate;
    MarkPoint m_markPoint{MARK_AT_DEQUEUE};
    uint64_t m_kminBytes{0};
    uint64_t m_kmaxBytes{0};
    Ptr<UniformRandomVariable> m_uniform;
    std::array<uint64_t, ROCE_NUM_PRIORITIES> m_bytes{};
    std::array<uint64_t, ROCE_NUM_PRIORITIES> m_maxBytes{};
    std::array<uint64_t, ROCE_NUM_PRIORITIES> m_marks{};
    std::array<uint64_t, ROCE_NUM_PRIORITIES> m_drops{};
    RoceDropCounts m_dropCounts; //!< drops per reason, all priorities
    std::array<Ring, ROCE_NUM_PRIORITIES> m_rings;
    uint32_t m_nPackets{0}; //!< packets queued, all priorities
    uint64_t m_nBytes{0};   //!< bytes queued, all priorities

    TracedCallback<Ptr<const Packet>, uint8_t> m_enqueueTrace;
    TracedCallback<Ptr<const Packet>, uint8_t> m_dequeueTrace;
    TracedCallback<Ptr<const Packet>, uint8_t> m_markTrace;
    TracedCallback<Ptr<const Packet>, uint8_t, const char*> m_dropTrace;
};

} // namespace ns3

#endif /* ROCE_EGRESS_QUEUE_DISC_H */
