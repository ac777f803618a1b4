/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CONGESTION_OPS_H
#define ROCE_CONGESTION_OPS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class RoceIntRecord;

/**
 * \ingroup rocev2
 * \brief What a queue pair tells its congestion control when it connects.
 */
struct RoceCcContext
{
    DataRate lineRate;         //!< the NIC's line rate
    uint32_t mtu{1024};        //!< payload bytes per packet
    uint32_t wireOverhead{82}; //!< per-packet bytes on the wire beyond the payload
};

/**
 * \ingroup rocev2
 * \brief What an acknowledgement tells the sender's congestion control.
 */
struct RoceAckEvent
{
    uint64_t ackedBytes{0}; //!< payload bytes newly acknowledged
    uint64_t sndUna{0};     //!< first unacknowledged sequence number after this ACK
    uint64_t sndNxt{0};     //!< next sequence number to send
    bool ecnEcho{false};    //!< the receiver saw CE since its previous ACK (BTH BECN)
    Time rtt{0};            //!< an RTT sample, or zero when this ACK carries none
    const std::vector<RoceIntRecord>* intRecords{nullptr}; //!< INT echoed by the ACK, hop order
    int32_t pint{-1}; //!< PINT digest echoed by the ACK (RocePintDigest exponent), -1 if none
};

/**
 * \ingroup rocev2
 * \brief Who hears that a congestion control raised its rate on its own (a
 * timer): the queue pair, which may then send a packet that waits for its
 * pacing time earlier. A plain interface rather than a Callback, so that an
 * idle queue pair pays one pointer for it.
 */
class RoceCcRateListener
{
  public:
    virtual ~RoceCcRateListener() = default;
    /** \brief The rate rose outside any hook the queue pair called. */
    virtual void RateRaised() = 0;

    /**
     * \return true when the queue pair has nothing to send (nothing
     * outstanding, nothing posted) and no packet waits for its pacing time, so
     * a rise of the rate changes nothing until it posts again; a congestion
     * control may then let its timers sleep
     */
    virtual bool IsIdle() const
    {
        return false;
    }
};

/**
 * \ingroup rocev2
 * \brief Per-queue-pair congestion control, pluggable in the style of
 * TcpCongestionOps.
 *
 * A NIC holds one prototype, selected by its CongestionControl attribute
 * (a TypeId), and every queue pair gets its own copy through Fork(). The
 * queue pair calls the hooks; the NIC's scheduler reads GetRate() (pacing)
 * and GetWindow() (bytes in flight, 0 = no window). Both ends of a
 * connection have an instance: the sender side reacts (RP), the receiver side
 * decides whether CE deserves a CNP (NP).
 *
 * Timers an algorithm needs (DCQCN's alpha and rate-increase timers) are its
 * own per-QP events, rescheduled rather than created per packet.
 */
class RoceCongestionOps : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief Resolve a congestion-control name as users type it on a command
     * line: a short name (GetShortNames) or a RoceCongestionOps TypeId name
     * such as "ns3::RoceCcNone".
     * \param name the name
     * \return the TypeId, a subclass of RoceCongestionOps; a RoceError naming
     *         the known names if the name is unknown
     */
    static TypeId LookupByName(const std::string& name);
    /** \return the short names: none, dcqcn, hpcc, timely, dctcp */
    static std::vector<std::string> GetShortNames();

    RoceCongestionOps();
    /**
     * \brief Copy constructor, used by Fork().
     * \param other the prototype
     */
    RoceCongestionOps(const RoceCongestionOps& other);
    ~RoceCongestionOps() override;

    /** \return the algorithm's name, e.g. "dcqcn" */
    virtual std::string GetName() const = 0;

    /** \return a fresh copy of this prototype for one queue pair */
    virtual Ptr<RoceCongestionOps> Fork() = 0;

    /**
     * \brief The queue pair is connected. The default starts at line rate.
     * \param ctx line rate and packet sizes
     */
    virtual void Init(const RoceCcContext& ctx);

    /**
     * \brief A data packet is put on the wire (first transmission or not).
     * \param payloadBytes its payload
     * \param wireBytes its bytes on the wire
     */
    virtual void OnSend(uint32_t payloadBytes, uint32_t wireBytes);

    /**
     * \brief An ACK acknowledged new data.
     * \param ack what it says
     */
    virtual void OnAck(const RoceAckEvent& ack);

    /** \brief A NAK (PSN sequence error) arrived: the sender goes back. */
    virtual void OnNak();

    /** \brief The retransmission timer fired. */
    virtual void OnTimeout();

    /** \brief A CNP arrived for this queue pair (reaction point). */
    virtual void OnCnp();

    /**
     * \brief A CE-marked data packet arrived at this (receiving) queue pair.
     * \return true if a CNP should be sent to the sender now
     */
    virtual bool OnCeReceived();

    /**
     * \return true if an ACK with BTH BECN is this congestion control's
     * congestion notification (DCQCN's Notification AckEcn): the queue pair
     * then counts it among the CNPs it received
     */
    virtual bool EcnEchoIsCnp() const;

    /** \return true if data packets should ask switches for INT records (HPCC) */
    virtual bool WantsInt() const;

    /**
     * \return true if data packets should carry a PINT digest (HPCC-PINT);
     * a congestion control asks for INT or PINT, never both
     */
    virtual bool WantsPint() const;

    /**
     * \return the sending rate in bit/s (a congestion control whose timers
     * sleep first applies the timer periods that elapsed)
     */
    double GetRate() const;

    /**
     * \brief Set what to call when the algorithm raises its rate on its own
     * (a timer), outside any hook of the queue pair. The queue pair uses it to
     * send a packet that waits for its pacing time earlier. Rises inside a
     * hook (OnAck, ...) need no call: the queue pair looks at the rate after
     * the hook returns.
     * \param listener the listener (the queue pair), or nullptr
     */
    void SetRateListener(RoceCcRateListener* listener);

    /**
     * \return the congestion window in payload bytes, or 0 when the algorithm
     * has none; the QP sends while (packets in flight + 1) x payload MTU fits
     * in it, and always allows one packet in flight. An algorithm without a
     * window of its own and a RateWindow attribute > 0 has RateWindow x rate
     * / line rate (at least 1).
     */
    uint64_t GetWindow() const;

    /** \return the line rate the queue pair was connected with */
    DataRate GetLineRate() const;

    /**
     * \brief Record an RTT sample (the queue pair calls this before OnAck()
     * for an ACK that carries one). Updates the Rtt trace and the smallest
     * RTT seen.
     * \param rtt the sample
     */
    void RecordRtt(Time rtt);

    /** \return the latest RTT sample, zero before the first */
    Time GetRtt() const;

    /**
     * \return the base RTT: the BaseRtt attribute if set, else the smallest
     * RTT sampled so far (zero before the first sample)
     */
    Time GetBaseRtt() const;

  protected:
    void DoDispose() override;

    /** \brief Tell the queue pair that a timer raised the rate. */
    void NotifyRateRaised();

    /**
     * \brief Bring timer-driven state up to date while m_asleep is set
     * (GetRate() calls it). The default does nothing.
     */
    virtual void WakeUp();

    /**
     * \return true if the queue pair says it is idle and nobody listens to the
     * Rate trace (whose callbacks would otherwise see the rate change at other
     * times)
     */
    bool CanSleep() const;

    /**
     * \brief Stop with a message naming the algorithm, the attribute and its
     * value if the rate exceeds the line rate (Init() has set it), or if it
     * is 0 and zero is not allowed.
     * \param attribute the attribute's name \param rate its value
     * \param whyNotZero what a zero rate would mean; empty allows zero
     */
    void CheckRate(const std::string& attribute,
                   DataRate rate,
                   const std::string& whyNotZero) const;

    /**
     * \brief Clamp a rate to [minRate, line rate].
     * \param rate bit/s \param minRate bit/s
     * \return the clamped rate
     */
    double ClampRate(double rate, double minRate) const;

    /** \brief Stop if RateWindow is set: the algorithm keeps its own window. */
    void RefuseRateWindow() const;

    /** \param baseRtt the BaseRtt attribute */
    void SetBaseRttAttribute(Time baseRtt);
    /** \return the BaseRtt attribute */
    Time GetBaseRttAttribute() const;

    TracedValue<double> m_rate;     //!< sending rate, bit/s
    TracedValue<uint64_t> m_window; //!< window in payload bytes, 0 = none
    // Times as int64_t time steps: ns-3 records every Time object built before
    // Simulator::Run (about 48 bytes each), which every idle QP would pay.
    int64_t m_rtt{0};                      //!< latest RTT sample, time steps
    TracedCallback<Time, Time> m_rttTrace; //!< the Rtt trace: old and new sample
    int64_t m_minRtt{0};                   //!< smallest RTT sample, time steps
    int64_t m_baseRtt{0};                  //!< BaseRtt attribute, time steps (0 = use m_minRtt)
    RoceCcContext m_ctx;                   //!< what Init() was told
    uint64_t m_rateWindow{0};              //!< RateWindow attribute, payload bytes
    RoceCcRateListener* m_rateListener{nullptr}; //!< see SetRateListener()
    bool m_asleep{false};                        //!< timers sleep: WakeUp() before the rate is read
    bool m_rateTraced{false};                    //!< the Rate trace was connected

  private:
    friend class RoceRateTraceAccessor;
};

} // namespace ns3

#endif /* ROCE_CONGESTION_OPS_H */
