/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CC_DCTCP_RATE_H
#define ROCE_CC_DCTCP_RATE_H

#include "roce-congestion-ops.h"

#include "ns3/data-rate.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief DCTCP's control law on a rate, as the HPCC simulator models DCTCP
 * for RDMA (its CC_MODE 8, the "dctcp" mode of its run.py): the ECN echo and
 * the alpha estimate of DCTCP (Alizadeh et al., SIGCOMM 2010), with the cut
 * and the increase applied to the sending rate R instead of a window.
 * A window of observation starts at an ACK and ends at the first ACK whose
 * snd_una passes the snd_nxt recorded at its start (about one RTT). At its
 * end, with F = ECN-echoed acknowledged bytes / acknowledged bytes in it,
 *     alpha <- (1 - g) alpha + g F
 * The first ACK that echoes CE outside a cut (CWR) period applies
 *     R <- max(R (1 - alpha/2), MinRate)
 * and opens a cut period that lasts until snd_una passes the snd_nxt of that
 * moment. At the end of each window of observation outside a cut period,
 *     R <- min(R + RateAi, line rate)
 * (the simulator's DCTCP_RATE_AI, once per RTT). R starts at the line rate
 * and alpha at InitialAlpha. There is no window of its own: with RateWindow
 * (the simulator's HAS_WIN 1 and VAR_WIN 1) the queue pair's window is the
 * bandwidth-delay product scaled by R / line rate. NAKs and timeouts leave R
 * alone. It sends no CNPs; the queue pair echoes CE on its ACKs.
 * ns3::RoceCcDctcp is DCTCP as RFC 8257 specifies it, on a window.
 */
class RoceCcDctcpRate : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceCcDctcpRate();
    /**
     * \brief Copy constructor, used by Fork(): copies the attributes.
     * \param other the prototype
     */
    RoceCcDctcpRate(const RoceCcDctcpRate& other);
    ~RoceCcDctcpRate() override;

    std::string GetName() const override;
    Ptr<RoceCongestionOps> Fork() override;
    void Init(const RoceCcContext& ctx) override;
    void OnAck(const RoceAckEvent& ack) override;

    /** \return alpha */
    double GetAlpha() const;
    /** \return the rate cuts so far */
    uint32_t GetCuts() const;

  private:
    // attributes
    double m_g{1.0 / 16};       //!< alpha gain g
    double m_initialAlpha{1.0}; //!< alpha at connection
    DataRate m_rateAi;          //!< additive increase per window of observation
    DataRate m_minRate;         //!< the rate never falls below this

    // state
    TracedValue<double> m_alpha; //!< alpha
    bool m_observing{false};     //!< a window of observation is open
    uint64_t m_windowEnd{0};     //!< snd_nxt when the window of observation opened
    uint64_t m_ackedBytes{0};    //!< bytes acknowledged in the window of observation
    uint64_t m_markedBytes{0};   //!< of which the ACK echoed CE
    bool m_cutting{false};       //!< in a cut (CWR) period
    uint64_t m_cutEnd{0};        //!< snd_nxt when the cut period opened
    uint32_t m_cuts{0};          //!< rate cuts so far
};

} // namespace ns3

#endif /* ROCE_CC_DCTCP_RATE_H */
