/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CC_HELPER_H
#define ROCE_CC_HELPER_H

#include "ns3/attribute.h"
#include "ns3/data-rate.h"
#include "ns3/ptr.h"
#include "ns3/queue-size.h"
#include "ns3/type-id.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class RoceAiZoneHelper;
class RoceHelper;
class RoceSwitchHelper;

/**
 * \ingroup rocev2
 * \brief One congestion-control choice, both halves: the algorithm and
 * parameters of the NICs' queue pairs, and the switch marking that goes with
 * them. Every example, the HPCC-format fabric and the Python bindings choose
 * congestion control through this class, so that a name means the same
 * everywhere.
 *
 * | algorithm | NICs (RoceCongestionOps)         | switches (RoceEgressQueueDisc)          |
 * |-----------|----------------------------------|-----------------------------------------|
 * | none      | RoceCcNone (PFC only)            | default RED marking (counted, unused)   |
 * | dcqcn     | RoceCcDcqcn with a preset        | the preset's RED marking                |
 * | hpcc      | RoceCcHpcc                       | default marking; every port stamps INT on the
 * packets an HPCC QP sends | | timely    | RoceCcTimely                     | default marking
 * (unused: TIMELY reads RTTs) | | dctcp     | RoceCcDctcp                      | step marking, K =
 * 30 KB per 100 Gb/s     |
 *
 * DCQCN's preset is nvidia-cx unless one is named (RoceDcqcnPreset). DCTCP's
 * K follows Alizadeh et al. (SIGCOMM'10): K > C x RTT / 7, and C x RTT is
 * 54 KB at 100 Gb/s over 1 us links; K scales with each port's rate.
 *
 * A default the program changed wins over a preset: an attribute flag
 * (--ns3::RoceCcDcqcn::RateAi=20Mbps, --ns3::RoceEgressQueueDisc::EcnKmin=50KB)
 * or Config::SetDefault keeps its value, and DCTCP's default step marking is
 * left out when any ECN default of the queue disc was changed (a K given to
 * SetStepMarking still applies).
 *
 * A combination that does not make sense is refused when it is made, with a
 * RoceError naming the values: a DCQCN preset with another algorithm, step
 * marking with an algorithm other than DCTCP, an attribute the algorithm
 * does not have.
 *
 * \code
 *   RoceCcHelper cc("dcqcn", "paper-2015");
 *   cc.SetAttribute("RateAi", DataRateValue(DataRate("20Mbps")));
 *   cc.Configure(roce, switches); // before roce.Install and switches.Install
 * \endcode
 */
class RoceCcHelper
{
  public:
    /** No end-to-end congestion control: PFC alone. */
    RoceCcHelper();
    /**
     * \param algorithm none, dcqcn, hpcc, timely, dctcp, or a RoceCongestionOps
     *        TypeId name (the switches then keep their default marking)
     * \param dcqcnPreset a DCQCN preset (RoceDcqcnPreset::GetNames), only with
     *        dcqcn; "" for DCQCN's default, RoceDcqcnPreset::DEFAULT
     */
    explicit RoceCcHelper(const std::string& algorithm, const std::string& dcqcnPreset = "");

    /**
     * \brief Set an attribute of the algorithm, over its preset's value;
     * checked now (the algorithm must have it and the value must fit).
     * \param name e.g. "BaseRtt", "RateAi", "Eta" \param value its value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \brief DCTCP's step-marking threshold, instead of 30 KB per 100 Gb/s.
     * Refused for any algorithm but DCTCP.
     * \param k the threshold at `atRate` (bytes)
     * \param atRate the rate K is given for; 0 uses K at every rate
     */
    void SetStepMarking(QueueSize k, DataRate atRate);

    /** \return the algorithm as given (a short name or a TypeId name) */
    const std::string& GetAlgorithm() const;
    /** \return the DCQCN preset in force, "" for any other algorithm */
    const std::string& GetDcqcnPreset() const;

    /**
     * \brief Apply the choice to the NICs and switches these helpers install
     * from now on. Attributes set on the helpers after this call win.
     * \param nics the NIC helper \param switches the switch helper
     */
    void Configure(RoceHelper& nics, RoceSwitchHelper& switches) const;
    /**
     * \brief Apply the choice to a fabric without switches (hosts linked
     * directly): the NICs' half only.
     * \param nics the NIC helper
     */
    void Configure(RoceHelper& nics) const;
    /**
     * \brief Apply the choice to an AI Zone: its NICs, and the switches of
     * every tier. Call before RoceAiZoneHelper::Build.
     * \param zone the zone helper
     */
    void Configure(RoceAiZoneHelper& zone) const;

    /// DCTCP's default step-marking threshold, at DCTCP_K_RATE
    static constexpr uint32_t DCTCP_K_BYTES = 30000;
    /// The rate DCTCP_K_BYTES is given for, in bit/s
    static constexpr uint64_t DCTCP_K_RATE = 100000000000ULL;

  private:
    /** \return true for DCTCP on a window or on a rate: both mark at one step */
    bool IsDctcp() const;

    /** \param switches the helper whose queue discs get this choice's marking */
    void ConfigureSwitches(RoceSwitchHelper& switches) const;

    std::string m_algorithm; //!< as given
    TypeId m_tid;            //!< the RoceCongestionOps subclass
    std::string m_preset;    //!< the DCQCN preset, "" for other algorithms
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_attributes; //!< overrides
    QueueSize m_stepK;                                                     //!< DCTCP's K
    DataRate m_stepRate;   //!< the rate K is given for
    bool m_stepSet{false}; //!< SetStepMarking was called
};

} // namespace ns3

#endif // ROCE_CC_HELPER_H
