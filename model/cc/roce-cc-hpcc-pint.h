/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CC_HPCC_PINT_H
#define ROCE_CC_HPCC_PINT_H

#include "roce-congestion-ops.h"

#include "ns3/data-rate.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief HPCC-PINT: HPCC's control law on a rate, fed by a 16-bit PINT
 * digest instead of per-hop INT records (Ben Basat et al., SIGCOMM 2020,
 * section 5; the HPCC simulator's CC_MODE 10).
 *
 * Data packets carry the digest (RocePintDigest): each switch egress on the
 * path raises it to its own encoded link utilization, an average over T of
 * queue / (B T) + txRate / B that the switch keeps (the HPCC paper's U,
 * eqs. 2-3, computed in the switch). The ACK echoes the largest along the
 * path, U. With the reference rate Rc:
 *
 *     U >= eta or incStage >= MaxStage:  R = Rc / (U/eta) + RateAi
 *     otherwise:                          R = Rc + RateAi
 *
 * R is clamped to [MinRate, line rate]. Rc <- R (incStage reset to 0 in
 * the first case, incremented in the second) once per RTT, at the first
 * ACK whose snd_una passes the snd_nxt recorded at the previous update;
 * every ACK in between recomputes R from the same Rc. The first ACK with a
 * digest only starts that count. With SampleProbability p < 1, an ACK is
 * read when a hash of its snd_una falls below p (deterministic, about one in
 * 1/p ACKs). R starts at the line rate. There is no window of its own: with
 * RateWindow (the simulator's HAS_WIN 1 and VAR_WIN 1) the queue pair's
 * window is the bandwidth-delay product scaled by R / line rate. The
 * switches need their queue discs' PintRtt (T), and every device the same
 * RocePintLogBase.
 */
class RoceCcHpccPint : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceCcHpccPint();
    /**
     * \brief Copy constructor, used by Fork(): copies the attributes.
     * \param other the prototype
     */
    RoceCcHpccPint(const RoceCcHpccPint& other);
    ~RoceCcHpccPint() override;

    std::string GetName() const override;
    Ptr<RoceCongestionOps> Fork() override;
    void Init(const RoceCcContext& ctx) override;
    void OnAck(const RoceAckEvent& ack) override;
    bool WantsPint() const override;

    /** \return U of the last digest read (0 before any) */
    double GetUtilization() const;
    /** \return the reference rate Rc, bit/s */
    double GetReferenceRate() const;
    /** \return incStage */
    uint32_t GetIncreaseStage() const;

    /**
     * \param sndUna an ACK's snd_una
     * \param p the sampling probability
     * \return true if that ACK is read
     */
    static bool Sampled(uint64_t sndUna, double p);

  private:
    // attributes
    double m_eta{0.95};       //!< target utilisation eta
    uint32_t m_maxStage{0};   //!< additive increases before a multiplicative step
    DataRate m_rateAi;        //!< additive increase per update
    DataRate m_minRate;       //!< the rate never falls below this
    double m_sampleProb{1.0}; //!< share of ACKs read

    // state
    double m_u{0};               //!< U of the last digest read
    double m_refRate{0};         //!< Rc, bit/s
    uint32_t m_incStage{0};      //!< incStage
    bool m_started{false};       //!< the first digest arrived
    uint64_t m_lastUpdateSeq{0}; //!< snd_nxt at the last Rc update
    double m_logBase{0};         //!< RocePintLogBase, read at Init
};

} // namespace ns3

#endif /* ROCE_CC_HPCC_PINT_H */
