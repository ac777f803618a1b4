/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_EGRESS_QUEUE_DISC_H
#define ROCE_EGRESS_QUEUE_DISC_H

#include "roce-shared-buffer-mmu.h"

#include "ns3/data-rate.h"
#include "ns3/queue-disc.h"
#include "ns3/queue-size.h"
#include "ns3/random-variable-stream.h"

#include <array>
#include <string>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A packet inside a switch: the frame plus what the switch learned
 * about it on ingress.
 *
 * It is the only per-packet object a switch allocates; it carries the
 * ingress port index and priority group at which the MMU counts the packet,
 * so that its departure releases exactly what its arrival took. It holds no
 * pointer to a port: PFC is the MMU's decision and the switch's action.
 */
class RoceSwitchItem : public QueueDiscItem
{
  public:
    /**
     * \param p the frame (Ethernet header included)
     * \param ingressIndex the index on the switch of the port it arrived on
     * \param priority its priority (= ingress PG = egress queue)
     * \param ect the frame is ECN-capable
     * \param intRequest the frame asks for INT records
     */
    RoceSwitchItem(Ptr<Packet> p,
                   uint16_t ingressIndex,
                   uint8_t priority,
                   bool ect,
                   bool intRequest = false);

    void AddHeader() override;
    /** \brief Set CE in the frame's IPv4 header. \return true if the frame was ECN-capable */
    bool Mark() override;

    uint16_t m_ingressIndex; //!< ingress port index (MMU accounting)
    uint8_t m_priority;      //!< priority and PG
    bool m_ect;              //!< ECN-capable transport
    bool m_intRequest;       //!< stamp an INT record at egress
};

/**
 * \ingroup rocev2
 * \brief The egress of one switch port: eight per-priority queues, ECN
 * marking, and strict-priority or DWRR scheduling that skips paused classes.
 *
 * Admission is the shared buffer's decision: DoEnqueue asks the switch's
 * RoceSharedBufferMmu (Admit) and drops, with the MMU's reason, what it
 * refuses; DoDequeue gives the bytes back (Release). The queue disc never
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
 */
class RoceEgressQueueDisc : public QueueDisc
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

    static constexpr uint32_t MAX_DWRR_WEIGHT = 65535; //!< largest DWRR weight
    static constexpr const char* MARK_ECN = "ecn-red"; //!< mark reason

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
    /** \param priority a priority \return the most bytes ever queued in it */
    uint64_t GetMaxQueueBytes(uint8_t priority) const;
    /** \param priority a priority \return ECN marks made in it */
    uint64_t GetEcnMarks(uint8_t priority) const;
    /** \param priority a priority \return packets dropped in it */
    uint64_t GetDrops(uint8_t priority) const;
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

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    Ptr<const QueueDiscItem> DoPeek() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /**
     * \brief Mark a packet if RED says so.
     * \param item the packet
     * \param queueBytes bytes queued in its priority
     */
    void MaybeMark(Ptr<RoceSwitchItem> item, uint64_t queueBytes);
    /** \return the queue DoDequeue takes from next, or -1 */
    int PickQueue();

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
};

} // namespace ns3

#endif /* ROCE_EGRESS_QUEUE_DISC_H */
