/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SHARED_BUFFER_MMU_H
#define ROCE_SHARED_BUFFER_MMU_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"
#include "ns3/roce-frame.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A switch's packet buffer: admission, accounting and PFC decisions.
 *
 * Every packet is counted at its ingress (port, priority group) from arrival
 * until it leaves its egress queue, in one of three pools:
 *
 * - **reserved**: a per-PG minimum guarantee (ReservedPerPg);
 * - **shared**: capped per PG by a threshold T, which is dynamic,
 *   T = Alpha * (shared pool - shared bytes in use), or static
 *   (StaticThreshold). In PARTITIONED mode (deep-buffer, CTSW-like switches)
 *   the buffer is split evenly among ports and T is dynamic within each
 *   port's partition;
 * - **headroom**: per lossless PG, what arrives after XOFF was sent. By
 *   default it is what the port's link needs:
 *   2 * rate * delay + 2 * MaxFrameSize + rate * PfcResponseTime.
 *
 * A lossless PG whose next packet no longer fits under T sends XOFF, and its
 * later arrivals go to headroom; it sends XON once its bytes fall to
 * T - XonOffset with its headroom empty (or to zero). A lossy PG drops what
 * does not fit. With
 * headroom as computed, a lossless PG never drops.
 *
 * The MMU decides and the switch acts: when a PG crosses into XOFF (in
 * Admit) or back to XON (in Release), the MMU calls the PFC callback its
 * switch gave it (SetPfcCallback) with the ingress port index, the PG and
 * the new state, and the switch tells that port to send the PFC frame. The
 * callback runs only on those transitions, never per packet. The class holds
 * no simulator state and no pointer to a port or a switch, which makes it
 * testable on its own.
 */
class RoceSharedBufferMmu : public Object
{
  public:
    /** How the shared threshold is set. */
    enum Mode
    {
        DYNAMIC,     //!< T = Alpha * free shared buffer
        STATIC,      //!< T = StaticThreshold
        PARTITIONED, //!< buffer split per port; T = Alpha * free bytes of the port's partition
    };

    /** Where an admitted packet is counted. */
    enum Pool : uint8_t
    {
        RESERVED = 0,
        SHARED = 1,
        HEADROOM = 2,
    };

    /** The answer to an admission request. */
    struct Admission
    {
        bool admitted{false};        //!< the packet may be buffered
        Pool pool{RESERVED};         //!< where it is counted
        bool sendXoff{false};        //!< the PG just crossed into XOFF (the PFC callback ran)
        const char* reason{nullptr}; //!< why it was dropped
    };

    /** The link attached to a port, from which headroom follows. */
    struct PortLink
    {
        DataRate rate; //!< line rate
        Time delay;    //!< one-way propagation delay
    };

    static constexpr const char* DROP_HEADROOM =
        "headroom-overflow"; //!< lossless PG beyond headroom
    static constexpr const char* DROP_THRESHOLD = "shared-threshold"; //!< lossy PG over threshold
    static constexpr const char* DROP_BUFFER_FULL = "buffer-full";    //!< shared pool exhausted

    /**
     * What the MMU calls when a PG changes PFC state: (ingress port index,
     * priority group, true for XOFF / false for XON).
     */
    typedef Callback<void, uint32_t, uint8_t, bool> PfcCallback;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceSharedBufferMmu();

    /**
     * \brief Size the pools for a set of ports. Call once all ports exist;
     * aborts if the buffer cannot hold the reserves and headroom it needs.
     * \param links one entry per port
     */
    void Configure(const std::vector<PortLink>& links);

    /** \return true once Configure() ran */
    bool IsConfigured() const;

    /**
     * \brief Set what to call when a PG crosses into XOFF or back to XON.
     *
     * The owner (RoceSwitch) acts on it by sending PFC on the ingress port.
     * Without a callback the decisions are only reported through the return
     * values of Admit() and Release().
     * \param cb the callback; a null callback removes it
     */
    void SetPfcCallback(PfcCallback cb);

    /**
     * \brief Ask to buffer a packet. If the packet puts its PG into XOFF, the
     * PFC callback is called (port, pg, true) once the packet is counted.
     * \param port ingress port
     * \param pg ingress priority group
     * \param bytes packet size
     * \return the decision
     */
    Admission Admit(uint32_t port, uint8_t pg, uint32_t bytes);

    /**
     * \brief A packet left its egress queue.
     *
     * A PG's bytes are one count split over the pools, and departures drain
     * headroom first, then shared, then reserved, as switch MMUs do: a
     * packet's bytes need not leave from the pool it arrived in, and headroom
     * empties as soon as the PG drains below its threshold.
     * \param port ingress port it was counted at
     * \param pg ingress priority group
     * \param bytes size
     * \return true if the PG should now send XON
     */
    bool Release(uint32_t port, uint8_t pg, uint32_t bytes);

    /**
     * \param pg a priority group
     * \return true if PFC protects it
     */
    bool IsLossless(uint8_t pg) const;

    /**
     * \param port a port \param pg a priority group
     * \return the current shared threshold T of the PG
     */
    uint64_t GetThreshold(uint32_t port, uint8_t pg) const;

    /** \param port a port \return headroom per lossless PG of the port */
    uint64_t GetHeadroom(uint32_t port) const;

    /**
     * \param port a configured port
     * \return its dynamic-threshold factor: Alpha, or more for a port
     *         faster than AlphaReferenceRate
     */
    double GetPortAlpha(uint32_t port) const;

    /** \param port a port \param pg a PG \return bytes the PG holds now */
    uint64_t GetPgBytes(uint32_t port, uint8_t pg) const;

    /** \param port a port \param pg a PG \return most bytes the PG has held */
    uint64_t GetPgMaxBytes(uint32_t port, uint8_t pg) const;

    /** \param port a port \param pg a PG \return headroom bytes the PG holds now */
    uint64_t GetPgHeadroomBytes(uint32_t port, uint8_t pg) const;

    /** \param port a port \param pg a PG \return most headroom bytes the PG has held */
    uint64_t GetPgMaxHeadroomBytes(uint32_t port, uint8_t pg) const;

    /** \param port a port \param pg a PG \return true while the PG holds XOFF */
    bool IsXoff(uint32_t port, uint8_t pg) const;

    /** \return bytes counted in all pools: zero once the switch has drained */
    uint64_t GetTotalBytes() const;

    /** \return bytes in the shared pool(s) */
    uint64_t GetSharedUsed() const;

    /** \return the shared pool size (per port in PARTITIONED mode) */
    uint64_t GetSharedPoolSize() const;

    /** \return the configured buffer size in bytes */
    uint64_t GetBufferSize() const;

    /** \return the mode */
    Mode GetMode() const;

    /** \param alpha the dynamic-threshold factor; must be > 0 */
    void SetAlpha(double alpha);
    /** \return the dynamic-threshold factor */
    double GetAlpha() const;
    /** \param rate the AlphaReferenceRate attribute (0: none) */
    void SetAlphaReferenceRate(DataRate rate);
    /** \return the AlphaReferenceRate attribute */
    DataRate GetAlphaReferenceRate() const;

  protected:
    void DoDispose() override;

  private:
    /** Counters of one (port, PG). */
    struct PgState
    {
        uint64_t reserved{0};    //!< bytes in the reserved pool
        uint64_t shared{0};      //!< bytes in the shared pool
        uint64_t headroom{0};    //!< bytes in headroom
        uint64_t maxBytes{0};    //!< high-water mark of all three
        uint64_t maxHeadroom{0}; //!< high-water mark of headroom
        bool xoff{false};        //!< XOFF held
    };

    /** \param port a port \return the index of its shared pool */
    uint32_t PoolIndex(uint32_t port) const;
    /** \brief Each port's factor from Alpha, AlphaReferenceRate and its rate. */
    void UpdatePortAlpha();
    /** \param s a lossless list such as "3" or "3,4" */
    void SetLossless(std::string s);
    /** \return the lossless list */
    std::string GetLossless() const;

    QueueSize m_bufferSize;
    Mode m_mode{DYNAMIC};
    double m_alpha{1.0 / 8};
    DataRate m_alphaReferenceRate; //!< 0: every port's factor is m_alpha
    QueueSize m_staticThreshold;
    QueueSize m_reservedPerPg;
    QueueSize m_headroomOverride;
    QueueSize m_maxFrameSize;
    Time m_pfcResponseTime;
    QueueSize m_xonOffset;
    bool m_pfcEnabled{true};
    std::string m_losslessSpec;
    uint8_t m_losslessMask{0x08};

    bool m_configured{false};
    uint32_t m_nPorts{0};
    std::vector<uint64_t> m_headroom; //!< per port
    std::vector<uint64_t> m_portRate; //!< per port, its line rate in bit/s
    std::vector<double> m_portAlpha;  //!< per port, the dynamic-threshold factor
    std::vector<PgState> m_pgs;       //!< port * ROCE_NUM_PRIORITIES + pg
    std::vector<uint64_t> m_poolSize; //!< one pool, or one per port
    std::vector<uint64_t> m_poolUsed;
    TracedValue<uint64_t> m_sharedUsed; //!< all shared pools together
    uint64_t m_totalBytes{0};
    PfcCallback m_pfcCallback; //!< the owner's PFC action (XOFF/XON transitions only)
};

} // namespace ns3

#endif /* ROCE_SHARED_BUFFER_MMU_H */
