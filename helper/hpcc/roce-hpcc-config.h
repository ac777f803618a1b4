/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_CONFIG_H
#define ROCE_HPCC_CONFIG_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/roce-hpcc-format.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class RoceHelper;
class RoceSwitchHelper;

/**
 * \ingroup rocev2
 * \brief The `config.txt` of the HPCC-lineage simulators: read, checked, and
 * applied to the helpers, so that an experiment of that lineage runs here
 * unmodified.
 *
 * A config file has one `KEY value...` per line (blank lines and text after
 * `#` are skipped). Keys absent keep the DCQCN `hpcc-sim` preset (see
 * RoceCcHelper) and the module's defaults. The keys and what
 * they set are in doc/rocev2.rst, "HPCC-lineage config files"; in short:
 *
 * - files: TOPOLOGY_FILE, FLOW_FILE, FCT_OUTPUT_FILE, PFC_OUTPUT_FILE,
 *   QLEN_MON_FILE (+ QLEN_MON_START, QLEN_MON_END in ns); relative paths are
 *   taken from the working directory if they exist there, else from the
 *   config file's folder (Resolve());
 * - CC_MODE 1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP; the DCQCN keys (RATE_AI,
 *   RATE_HAI, MIN_RATE, RP_TIMER, ALPHA_RESUME_INTERVAL and
 *   RATE_DECREASE_INTERVAL in us, EWMA_GAIN, FAST_RECOVERY_TIMES,
 *   CLAMP_TARGET_RATE); HPCC's U_TARGET and MI_THRESH (RATE_AI becomes its
 *   W_AI over the largest base RTT); TIMELY's RATE_AI and RATE_HAI;
 * - the fabric: PACKET_PAYLOAD_SIZE, BUFFER_SIZE (MiB),
 *   USE_DYNAMIC_PFC_THRESHOLD, ENABLE_QCN, KMIN_MAP / KMAX_MAP (KB) /
 *   PMAX_MAP (`n rate_bps value ...`), ERROR_RATE_PER_LINK, HAS_WIN (a
 *   window of one largest BDP), L2_ACK_INTERVAL (bytes), SIMULATOR_STOP_TIME
 *   (s).
 *
 * ECN thresholds follow the maps exactly for the link speeds they list; a
 * speed they do not list (or no map) gets the thresholds of the preset at that
 * speed: K scales linearly with the rate (100/400 KB at 25 Gb/s, Pmax 0.2; for
 * DCTCP 30 KB at 10 Gb/s, Pmax 1). Keys that are read but not modelled
 * (trace output, PINT, INT encoding, ...) and keys this reader does not know
 * are listed in one warning (GetWarning()). A malformed line aborts with
 * `file:line:` and the key and value.
 */
class RoceHpccConfig
{
  public:
    /// The lineage's own DCQCN values: CC_MODE 1, and what HPCC-format runs
    /// take when no congestion control is named (rocev2-hpcc-compat, Python)
    static constexpr const char* DCQCN_PRESET = "hpcc-sim";

    /** `n rate value ...`: one value per link speed. */
    using RateMap = std::map<uint64_t, double>;

    /**
     * How frames take the wire (the program's choice, not a config key).
     * ETHERNET: RoCEv2 frames on Ethernet, as the module always models
     * them; a 1,000-byte payload is a 1,058-byte frame and 1,082 bytes on
     * the wire (FCS, preamble, SFD, IFG). HPCC_SIM: the HPCC simulator's
     * point-to-point packets, a PPP header (2), IPv4 (20), UDP (8) and its
     * sequence header (6) with the mode's INT header (TIMELY's timestamp 8,
     * PINT's 2, none for DCQCN and DCTCP): 1,036 bytes on its wire for the
     * same payload with DCQCN. Apply() sets RoceFrameWireOverhead so that a
     * data frame takes those bytes.
     */
    enum Framing
    {
        ETHERNET,
        HPCC_SIM,
    };

    /**
     * \param name `ethernet` or `hpcc-sim`
     * \param field where the name came from, for the error (e.g. `--framing`)
     * \return the framing (aborts naming the field and value otherwise)
     */
    static Framing ParseFraming(const std::string& name, const std::string& field);

    /**
     * \param path a config file
     * \return its contents (aborts with file:line on malformed input)
     */
    static RoceHpccConfig Read(const std::string& path);

    /** \return ERROR_RATE_PER_LINK (0 if absent), the error rate of links the topology gives 0 */
    double GetErrorRatePerLink() const;

    /** \return the congestion-control name of CC_MODE (dcqcn, hpcc, timely, dctcp) */
    std::string GetCcName() const;

    /**
     * \return one line listing the keys read but not modelled and the
     * unknown keys, each with its line; empty when there are none
     */
    std::string GetWarning() const;

    /**
     * \param file a path as the config gives it
     * \return the path to open: as given if it exists from the working
     *         directory, else relative to the config file's folder
     */
    std::string Resolve(const std::string& file) const;

    /**
     * \brief Configure the helpers before the fabric is built: congestion
     * control and its parameters, NIC payload size, switch buffer and PFC
     * threshold mode, ECN on or off, queue-pair ACK interval and window.
     * \param roce the link and NIC helper
     * \param switches the switch helper
     * \param topology the topology (its link rates and delays give the base
     *        RTT and BDP that HPCC's W_AI and HAS_WIN need)
     */
    void Apply(RoceHelper& roce,
               RoceSwitchHelper& switches,
               const RoceHpccFormat::Topology& topology) const;

    /**
     * \brief Set every switch port's ECN thresholds by its link speed, from
     * KMIN_MAP / KMAX_MAP / PMAX_MAP or the defaults. Call after the fabric
     * is built.
     */
    void ApplyEcnByRate() const;

    /**
     * \param rate a link speed
     * \return the (Kmin bytes, Kmax bytes, Pmax) that ApplyEcnByRate gives a
     *         port of that speed
     */
    std::pair<std::pair<uint64_t, uint64_t>, double> EcnAt(DataRate rate) const;

    /**
     * \param topology a topology
     * \return the largest base RTT between two hosts as the HPCC-lineage
     *         simulator computes it: two ways of propagation and one way of
     *         one payload-size packet's serialisation per hop, over a
     *         shortest path
     */
    Time MaxBaseRtt(const RoceHpccFormat::Topology& topology) const;

    std::string path;          //!< the config file
    std::string topologyFile;  //!< TOPOLOGY_FILE, as written
    std::string flowFile;      //!< FLOW_FILE, as written
    std::string fctFile;       //!< FCT_OUTPUT_FILE ("" if absent)
    std::string pfcFile;       //!< PFC_OUTPUT_FILE ("" if absent)
    std::string qlenFile;      //!< QLEN_MON_FILE ("" if absent)
    Time qlenStart;            //!< QLEN_MON_START
    Time qlenEnd;              //!< QLEN_MON_END (0: to the end)
    Time stopTime;             //!< SIMULATOR_STOP_TIME (0: run to completion)
    uint32_t ccMode{1};        //!< CC_MODE
    Framing framing{ETHERNET}; //!< how frames take the wire (rocev2-hpcc-compat --framing)

    /**
     * \return the RoceFrameWireOverhead of the framing: 24 (Ethernet, which
     *         Apply() leaves as the program set it) or, set by Apply(),
     *         with HPCC_SIM, the simulator's data packet less this module's
     *         data frame for CC_MODE: -22 for DCQCN, DCTCP and HPCC-PINT
     *         (which both frames carry a 2-byte digest in), -14 for TIMELY.
     *         Aborts for HPCC (CC_MODE 3): the simulator's INT header is 42
     *         bytes on every packet, this module's 8 bytes per hop crossed,
     *         which no per-frame constant matches.
     */
    int32_t GetWireOverhead() const;

    /** Keys present, with their values as written (for Apply and reports). */
    std::map<std::string, std::vector<std::string>> values;
    /** Line of each key present. */
    std::map<std::string, uint32_t> lines;
    /** Keys read but not modelled, each with its line. */
    std::vector<std::pair<std::string, uint32_t>> unmodelled;
    /** Unknown keys, each with its line. */
    std::vector<std::pair<std::string, uint32_t>> unknown;

    RateMap kmin; //!< KMIN_MAP, KB by rate
    RateMap kmax; //!< KMAX_MAP, KB by rate
    RateMap pmax; //!< PMAX_MAP by rate

  private:
    /** \return the number value of a key present (its default if absent) */
    double Number(const std::string& key, double dflt) const;
    /** \return the rate value of a key present (its default if absent) */
    DataRate RateOf(const std::string& key, DataRate dflt) const;
    /** \return whether a key is present */
    bool Has(const std::string& key) const;
};

} // namespace ns3

#endif /* ROCE_HPCC_CONFIG_H */
