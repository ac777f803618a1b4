/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CC_HPCC_H
#define ROCE_CC_HPCC_H

#include "roce-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/queue-size.h"
#include "ns3/roce-int-record.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief HPCC: High Precision Congestion Control (Li et al., SIGCOMM 2019),
 * driven by the INT records every switch on the path stamps and the receiver
 * echoes on its ACKs.
 *
 * T is the base RTT (GetBaseRtt(): the BaseRtt attribute, or the smallest
 * RTT sampled so far) and B the NIC's line rate. W_init = B T is the initial
 * and largest window; W_AI = W_init (1 - eta) / N unless the Wai attribute
 * gives it.
 *
 * On each ACK, for every hop i, with the record of the same hop from the
 * previous ACK (primed):
 *
 *     txRate_i = (txBytes_i - txBytes_i') / (ts_i - ts_i')
 *     u_i      = min(qlen_i, qlen_i') / (B_i T) + txRate_i / B_i
 *
 * The hop with the largest u_i gives u and tau = min(ts_i - ts_i', T); then
 *
 *     U <- (1 - tau/T) U + (tau/T) u
 *
 * and the window follows from the reference window Wc:
 *
 *     U >= eta or incStage >= maxStage:  W = Wc / (U/eta) + W_AI
 *     otherwise:                          W = Wc + W_AI
 *
 * W is clamped to [one packet's wire bytes, W_init]. Wc <- W (and incStage
 * reset to 0 in the first case, incremented in the second) only once per
 * RTT: on the first ACK whose snd_una passes the snd_nxt recorded at the
 * previous Wc update. Between updates every ACK recomputes W from the same
 * Wc (FastReact); without FastReact the ACKs between are not read at all.
 * The rate is R = W / T, clamped to [MinRate, B].
 *
 * Units: W, Wc, W_init and W_AI are bytes on the wire, like B T: a full
 * packet counts mtu + overhead (RoceCcContext::wireOverhead: headers, FCS,
 * preamble and gap; INT records are not counted). The window the queue pair
 * reads (GetWindow(), the Window trace) counts payload bytes of whole
 * packets, so it is W mtu / (mtu + overhead): the queue pair then keeps at
 * most W wire bytes in flight (and always allows one packet).
 *
 * NAKs and timeouts leave W alone: HPCC expects a lossless (PFC) fabric and
 * reacts to what INT reports.
 *
 * Robustness: an ACK without INT records, with a hop count different from
 * the previous one, or whose records show no time passing (or a rate of 0)
 * updates no U and leaves W as it is; the records are kept for the next
 * comparison. Until T is known (no BaseRtt and no RTT sample yet) the queue
 * pair runs at line rate with no window.
 */
class RoceCcHpcc : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceCcHpcc();
    /**
     * \brief Copy constructor, used by Fork(): copies the attributes.
     * \param other the prototype
     */
    RoceCcHpcc(const RoceCcHpcc& other);
    ~RoceCcHpcc() override;

    std::string GetName() const override;
    Ptr<RoceCongestionOps> Fork() override;
    void Init(const RoceCcContext& ctx) override;
    void OnAck(const RoceAckEvent& ack) override;
    bool WantsInt() const override;

    /** \return U, the estimated normalised inflight of the most loaded hop */
    double GetUtilization() const;
    /** \return W, bytes on the wire (0 while T is unknown) */
    double GetWireWindow() const;
    /** \return the reference window Wc, bytes on the wire */
    double GetReferenceWindow() const;
    /** \return incStage, additive increases since the last multiplicative update */
    uint32_t GetIncreaseStage() const;
    /** \return W_init = B T in bytes (0 while T is unknown) */
    double GetInitialWindow() const;
    /** \return W_AI in bytes (0 while T is unknown) */
    double GetAdditiveIncrease() const;

  private:
    /**
     * \brief Take T from GetBaseRtt() and, if it changed, recompute W_init
     * and W_AI; the first time T is known the windows start at W_init.
     * \return true if T is known
     */
    bool UpdateBaseRtt();

    /**
     * \brief MeasureInflight: update U from an ACK's INT records and keep
     * the records for the next ACK.
     * \param records the records, hop order
     * \return true if U was updated
     */
    bool MeasureInflight(const std::vector<RoceIntRecord>& records);

    /**
     * \brief ComputeWind: W from Wc and U, and Wc once per RTT.
     * \param updateWc this ACK is the once-per-RTT update
     */
    void ComputeWindow(bool updateWc);

    /**
     * \param w a window in bytes on the wire
     * \return w clamped to [one packet's wire bytes, W_init]
     */
    double ClampWindow(double w) const;

    /** \brief Publish W as the queue pair's window and W/T as its rate. */
    void Publish();

    // attributes
    double m_eta;             //!< target utilisation eta
    uint32_t m_maxStage;      //!< maxStage
    QueueSize m_waiAttr;      //!< W_AI as configured (0 = derive)
    uint32_t m_expectedFlows; //!< N in W_AI = W_init (1 - eta) / N
    DataRate m_minRate;       //!< the rate never falls below this
    bool m_fastReact{true};   //!< recompute W on every ACK

    // state
    Time m_t;                                                  //!< T in use (0 = not known yet)
    double m_tSeconds{0};                                      //!< T in seconds
    double m_tNs{0};                                           //!< T in nanoseconds
    double m_wInit{0};                                         //!< W_init, wire bytes
    double m_wai{0};                                           //!< W_AI, wire bytes
    double m_w{0};                                             //!< W, wire bytes
    double m_wc{0};                                            //!< Wc, wire bytes
    double m_wirePacket{0};                                    //!< wire bytes of one full packet
    uint32_t m_incStage{0};                                    //!< incStage
    uint64_t m_lastUpdateSeq{0};                               //!< snd_nxt at the last Wc update
    TracedValue<double> m_u;                                   //!< U
    std::array<RoceIntRecord, RoceIntRecord::MAX_HOPS> m_hops; //!< previous records
    uint32_t m_nHops{0};                                       //!< hops in m_hops (0 = none yet)
};

} // namespace ns3

#endif /* ROCE_CC_HPCC_H */
