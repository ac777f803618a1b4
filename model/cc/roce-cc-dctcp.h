/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CC_DCTCP_H
#define ROCE_CC_DCTCP_H

#include "roce-congestion-ops.h"

#include "ns3/queue-size.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief DCTCP-style window control for RoCE (after Alizadeh et al.,
 * SIGCOMM 2010): switches mark CE above a threshold, the receiver echoes
 * it on its ACKs (BTH BECN), and the sender scales its window cut by the
 * fraction of marked bytes.
 *
 * The rules are RFC 8257's (Bensley et al., 2017), which documents DCTCP as
 * deployed. A window of observation starts at an ACK and ends at the first
 * ACK whose snd_una passes the snd_nxt recorded at its start (about one RTT).
 * At the end of each window, with F = ECN-echoed acknowledged bytes /
 * acknowledged bytes in that window (section 3.3, steps 1-8):
 *
 *     alpha <- (1 - g) alpha + g F
 *
 * The first ACK that echoes CE, outside a window already cut, applies
 * (section 3.3)
 *
 *     W <- max(W (1 - alpha/2), mtu)
 *
 * at once and opens a cut window: no further cut until snd_una passes the
 * snd_nxt of that moment, so W falls at most once per window of data (RFC
 * 3168 section 6.1.2). Every other ACK grows W as TCP's congestion
 * avoidance does (section 3.4, RFC 5681 section 3.1),
 *
 *     W <- W + mtu x acked bytes / W
 *
 * about one MTU per window of data, whether or not other ACKs of the window
 * echoed CE; not on an ACK that echoes CE (RFC 3168 section 6.1.2), and only
 * while the window limits the sender (it was full before the ACK freed
 * room; RFC 7661). There is no slow start: W starts at the
 * bandwidth-delay product, as a RoCE sender starts at line rate.
 *
 * Units: W counts payload bytes, as the queue pair counts its window
 * (packets in flight x payload MTU), so "one MTU" is one more packet per
 * RTT and the smallest window is one packet. InitialWindow 0 starts from the
 * bandwidth-delay product in whole-packet payload bytes,
 * line rate x base RTT x mtu / (mtu + wire overhead); while no base RTT is
 * known (no BaseRtt attribute, no RTT sample yet) there is no window, and
 * the first RTT sample sets it.
 *
 * Losses: a NAK (go-back-N after a gap) halves W, counted as the window's
 * one cut; a retransmission timeout halves W unconditionally. Lossless RoCE
 * fabrics rarely lose packets, so TCP's collapse to one packet on a timeout
 * is not copied.
 *
 * The sending rate is the line rate: DCTCP is window-limited only. It sends
 * no CNPs: OnCeReceived() returns false, and the queue pair echoes CE on its
 * ACKs by itself.
 */
class RoceCcDctcp : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceCcDctcp();
    /**
     * \brief Copy constructor, used by Fork(): copies the attributes.
     * \param other the prototype
     */
    RoceCcDctcp(const RoceCcDctcp& other);
    ~RoceCcDctcp() override;

    std::string GetName() const override;
    Ptr<RoceCongestionOps> Fork() override;
    void Init(const RoceCcContext& ctx) override;
    void OnAck(const RoceAckEvent& ack) override;
    void OnNak() override;
    void OnTimeout() override;
    bool OnCeReceived() override;

    /** \return alpha, the smoothed fraction of marked bytes */
    double GetAlpha() const;
    /** \return window cuts applied (ECN and NAK; timeouts included) */
    uint64_t GetCuts() const;

  private:
    /** \brief Start the window at the bandwidth-delay product, if the base RTT is known. */
    void StartWindowFromBdp();
    /**
     * \brief Set W and publish it.
     * \param w the new window, payload bytes; clamped to at least one packet
     */
    void SetWindow(double w);

    // attributes
    double m_g;                //!< alpha gain g
    double m_initialAlpha;     //!< alpha when the queue pair connects
    QueueSize m_initialWindow; //!< InitialWindow (0 = BDP)

    // state
    bool m_haveWindow{false};    //!< W is in force
    double m_w{0};               //!< W, payload bytes
    bool m_observing{false};     //!< an observation window is open
    uint64_t m_windowEnd{0};     //!< snd_nxt when the observation window began
    uint64_t m_ackedBytes{0};    //!< bytes acknowledged in this window
    uint64_t m_markedBytes{0};   //!< of which ECN-echoed
    uint64_t m_cutEnd{0};        //!< no cut until snd_una passes this
    uint64_t m_lastSndUna{0};    //!< snd_una from the latest ACK
    uint64_t m_lastSndNxt{0};    //!< snd_nxt from the latest ACK
    uint64_t m_cuts{0};          //!< cuts applied
    TracedValue<double> m_alpha; //!< alpha
};

} // namespace ns3

#endif /* ROCE_CC_DCTCP_H */
