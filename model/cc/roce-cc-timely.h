/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CC_TIMELY_H
#define ROCE_CC_TIMELY_H

#include "roce-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief TIMELY: RTT-gradient rate control (Mittal et al., SIGCOMM 2015).
 *
 * Each ACK that carries an RTT sample (the queue pair times one packet per
 * round trip) is one of the paper's completion events:
 *
 *     new_rtt_diff = rtt - prev_rtt;  prev_rtt = rtt
 *     rtt_diff     = (1 - a) rtt_diff + a new_rtt_diff     (a = EwmaWeight)
 *     gradient     = rtt_diff / minRTT
 *
 *     rtt < T_low:   rate <- rate + delta
 *     rtt > T_high:  rate <- rate (1 - beta (1 - T_high / rtt))
 *     gradient <= 0: rate <- rate + n delta, n = HaiFactor once the last
 *                    HaiThreshold gradients were all negative (hyperactive
 *                    increase), else n = 1
 *     otherwise:     rate <- rate (1 - beta gradient)
 *
 * The rate starts at line rate and stays in [MinRate, line rate]; there is no
 * window. minRTT is the MinRtt attribute, or GetBaseRtt() when it is 0. The
 * first sample only sets prev_rtt: the rate moves from the second on. The
 * negative-gradient run counts only gradient-region events with a gradient
 * below zero; any other event ends it. With HaiCount Increases, n =
 * HaiFactor instead once HaiThreshold increases of either kind (T_low's
 * included) followed the last decrease, as the HPCC simulator counts.
 *
 * The paper's defaults (T_low 50 us, T_high 500 us, beta 0.8, a 0.875,
 * delta 10 Mb/s) were tuned for 10 Gb/s hosts and 16-64 KB segments; at
 * 100 Gb/s with microsecond links T_low/T_high and delta want scaling (see
 * the rocev2-cc-window test suite for one choice).
 */
class RoceCcTimely : public RoceCongestionOps
{
  public:
    /// What starts hyperactive increase (the HaiCount attribute).
    enum HaiCount
    {
        HAI_NEGATIVE_GRADIENTS, //!< negative gradients in a row (the paper)
        HAI_INCREASES,          //!< increases of any kind since the last decrease
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceCcTimely();
    /**
     * \brief Copy constructor, used by Fork(): copies the attributes.
     * \param other the prototype
     */
    RoceCcTimely(const RoceCcTimely& other);
    ~RoceCcTimely() override;

    std::string GetName() const override;
    Ptr<RoceCongestionOps> Fork() override;
    void Init(const RoceCcContext& ctx) override;
    void OnAck(const RoceAckEvent& ack) override;

    /** \return the latest normalised RTT gradient */
    double GetRttGradient() const;
    /** \return negative gradients in a row so far */
    uint32_t GetNegativeGradientRun() const;

  private:
    // attributes
    Time m_tLow;                                 //!< T_low
    Time m_tHigh;                                //!< T_high
    double m_beta;                               //!< multiplicative decrease factor
    double m_ewmaWeight;                         //!< a, weight of the newest RTT difference
    DataRate m_delta;                            //!< additive increase step
    uint32_t m_haiThreshold;                     //!< negative gradients in a row before HAI
    uint32_t m_haiFactor;                        //!< HAI multiplies delta by this
    HaiCount m_haiCount{HAI_NEGATIVE_GRADIENTS}; //!< what starts HAI
    Time m_minRttAttr;                           //!< gradient normaliser (0 = GetBaseRtt())
    DataRate m_minRate;                          //!< the rate never falls below this

    // state
    double m_prevRtt{0};            //!< previous sample, s
    bool m_havePrev{false};         //!< a previous sample exists
    double m_rttDiff{0};            //!< smoothed RTT difference, s
    uint32_t m_negativeRun{0};      //!< negative gradients in a row
    uint32_t m_increases{0};        //!< increases since the last decrease
    TracedValue<double> m_gradient; //!< normalised gradient
};

} // namespace ns3

#endif /* ROCE_CC_TIMELY_H */
