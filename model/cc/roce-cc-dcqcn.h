/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CC_DCQCN_H
#define ROCE_CC_DCQCN_H

#include "roce-congestion-ops.h"

#include "ns3/event-id.h"
#include "ns3/roce-lazy-trace.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <limits>
#include <memory>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The parameters of DCQCN's reaction point that the rate arithmetic
 * uses (timers and intervals live in RoceCcDcqcn).
 */
struct RoceDcqcnRpParams
{
    double lineRate{100e9};         //!< bit/s; Rc and Rt never exceed it
    double g{1.0 / 256};            //!< alpha gain
    double initialAlpha{1.0};       //!< alpha when the QP connects
    double rateAi{40e6};            //!< additive increase R_AI, bit/s
    double rateHai{400e6};          //!< hyper increase R_HAI, bit/s
    double minRate{1e6};            //!< Rc never falls below it, bit/s
    double minDecreaseFactor{0.0};  //!< a CNP leaves Rc at least this fraction of itself
    uint32_t fastRecovery{5};       //!< F: stages of fast recovery
    bool clampTargetRate{true};     //!< every CNP sets Rt to Rc (else only after an increase)
    bool byteCounterEnabled{false}; //!< BC counts; when off, BC follows T
    bool hyperConstant{false};      //!< hyper increase adds R_HAI per step, not (i - F) R_HAI
};

/**
 * \ingroup rocev2
 * \brief DCQCN's reaction-point arithmetic (Zhu et al., SIGCOMM 2015), with
 * no simulator in it: the current rate Rc, target rate Rt, alpha and the
 * increase counters T (timer) and BC (byte counter), driven by events.
 *
 * - Decrease() is the reaction to a CNP: Rt <- Rc (always when
 *   clampTargetRate, else only if Rc rose since the last decrease),
 *   Rc <- max(Rc (1 - alpha/2), Rc minDecreaseFactor, MinRate),
 *   alpha <- (1 - g) alpha + g, T = BC = 0.
 * - AlphaTimer(): alpha <- (1 - g) alpha (no CNP for one alpha period).
 * - TimerExpired() / ByteCounterExpired(): with T and BC counting the
 *   expiries before this one,
 *   max(T, BC) < F: fast recovery, Rc <- (Rt + Rc)/2;
 *   min(T, BC) > F: hyper increase, Rt += (min(T, BC) - F) R_HAI;
 *   else additive increase, Rt += R_AI; then Rc <- (Rt + Rc)/2;
 *   then T or BC += 1. So exactly F expiries of fast recovery follow a CNP,
 *   as the paper describes (ConnectX's rpg_threshold counts the same way).
 *   With the byte counter disabled, BC is taken equal to T, so the timer
 *   alone walks the stages.
 * - Rt and Rc never exceed the line rate; an Rc within 1 bit/s of it snaps to it.
 */
class RoceDcqcnRateMachine
{
  public:
    /** The increase stage an increase event applied. */
    enum Stage
    {
        FAST_RECOVERY, //!< Rc moved halfway to Rt
        ADDITIVE,      //!< Rt grew by R_AI
        HYPER,         //!< Rt grew by i R_HAI
    };

    /**
     * \brief Start at line rate with the initial alpha.
     * \param p the parameters; not checked here
     */
    void Init(const RoceDcqcnRpParams& p);

    /**
     * \brief React to a CNP: cut the rate, raise alpha, reset the counters.
     * \param raiseAlpha alpha <- (1 - g) alpha + g (false: alpha follows
     * its timer alone, RoceCcDcqcn's AlphaUpdate PerInterval)
     */
    void Decrease(bool raiseAlpha = true);

    /**
     * \brief Alpha periods passed: alpha <- (1 - g)^n alpha, or with a CNP
     * in the first of them (1 - g)^(n-1) ((1 - g) alpha + g).
     * \param periods n
     * \param cnpInFirst a CNP arrived in the first period
     */
    void AlphaTimer(uint64_t periods = 1, bool cnpInFirst = false);

    /** \brief alpha <- InitialAlpha (the first CNP, with AlphaUpdate PerInterval). */
    void ResetAlpha();

    /** \brief The rate-increase timer expired. \return the stage applied */
    Stage TimerExpired();

    /** \brief The byte counter expired. \return the stage applied */
    Stage ByteCounterExpired();

    /** \return Rc, bit/s */
    double GetRate() const;
    /** \return Rt, bit/s */
    double GetTargetRate() const;
    /** \return alpha */
    double GetAlpha() const;
    /** \return T, timer expiries since the last decrease */
    uint32_t GetTimerCount() const;
    /** \return BC, byte-counter expiries since the last decrease */
    uint32_t GetByteCount() const;
    /** \return true while Rc or Rt is below the line rate (increase events matter) */
    bool IsRecovering() const;

    /**
     * \brief The parameters, for changing them (they apply from the next event on).
     * \return the parameters
     */
    RoceDcqcnRpParams& GetParams();
    /** \return the parameters */
    const RoceDcqcnRpParams& GetParams() const;

  private:
    /** \brief Apply the increase stage the counters select. \return it */
    Stage Increase();

    RoceDcqcnRpParams m_p;
    double m_rc{0};    //!< Rc, bit/s (0 until Init)
    double m_rt{0};    //!< Rt, bit/s (0 until Init)
    double m_alpha{0}; //!< alpha (0 until Init)
    uint32_t m_t{0};
    uint32_t m_bc{0};
    bool m_increased{false}; //!< Rc rose since the last decrease
};

/**
 * \ingroup rocev2
 * \brief DCQCN: the notification point (receiver: CNPs at most once per
 * CnpInterval) and the reaction point (sender: RoceDcqcnRateMachine driven by
 * CNPs, the alpha timer, the rate-increase timer and the byte counter).
 *
 * Events per QP: the rate-increase timer is one rescheduled event that runs
 * only while the rate is below line rate and, with IdleTimers "sleep" (the
 * default), only while the queue pair has something to send: when an expiry
 * finds the queue pair idle (RoceCcRateListener::IsIdle()) the timer is not
 * re-armed, and the next GetRate(), CNP or other hook applies the expiries
 * that fell in between, strictly before the current time, one by one as the
 * timer would have, and re-arms the timer at the phase it would have had
 * (if the queue pair is busy again). Nothing observable changes: an idle
 * queue pair's rate is read by nobody, and the queue pair's reaction to a
 * rise (sending a paced packet earlier) has nothing to act on. A connected
 * Rate, TargetRate or Alpha trace keeps the timer running. Alpha's timer is evaluated lazily
 * (the number of whole alpha periods since the last CNP or update is applied
 * when alpha is next needed), so it costs no events; a deferred decrease is
 * one event when CNPs arrive within RateDecreasePeriod of the last decrease.
 * CNPs arriving within one RateDecreasePeriod cause one decrease; a CNP that
 * arrives while that deferred decrease is pending (even at the very instant
 * it is due) joins it.
 *
 * The switch's ECN marking is the congestion point; RoceCcHelper("dcqcn",
 * preset) sets both ends to one of the published parameter sets
 * (RoceDcqcnPreset).
 */
class RoceCcDcqcn : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /** What a hyper-increase step adds (the HyperIncrease attribute). */
    enum HyperIncrease
    {
        HYPER_GROWING,  //!< (i - F) RateHai at the i-th step (the paper)
        HYPER_CONSTANT, //!< RateHai at every step (ConnectX, the HPCC simulator)
    };

    /** How alpha follows the CNPs (the AlphaUpdate attribute). */
    enum AlphaUpdate
    {
        ALPHA_ON_CNP,       //!< each decrease raises alpha; the timer decays it (the paper)
        ALPHA_PER_INTERVAL, //!< each timer period raises it if a CNP came, else decays it
    };

    /** When a CNP's rate decrease applies (the DecreaseTiming attribute). */
    enum DecreaseTiming
    {
        DECREASE_AT_CNP,  //!< at the CNP, or at the end of the RateDecreasePeriod it fell in
        DECREASE_ON_GRID, //!< on a RateDecreasePeriod grid from the first CNP (the HPCC simulator)
    };

    /** How the notification point tells the reaction point (the Notification attribute). */
    enum Notification
    {
        NOTIFY_CNP,     //!< CNP frames, at most one per CnpInterval (RoCEv2, ConnectX)
        NOTIFY_ACK_ECN, //!< the ACK of a CE-marked packet, flagged BECN (the HPCC simulator)
    };

    /** What the rate-increase timer does while the queue pair is idle. */
    enum IdleTimers
    {
        IDLE_RUN,   //!< it keeps firing until the rate is back at line rate
        IDLE_SLEEP, //!< it sleeps; its expiries are applied when the state is next needed
    };

    RoceCcDcqcn();
    /**
     * \brief Copy constructor, used by Fork().
     * \param other the prototype
     */
    RoceCcDcqcn(const RoceCcDcqcn& other);
    ~RoceCcDcqcn() override;

    std::string GetName() const override;
    Ptr<RoceCongestionOps> Fork() override;
    void Init(const RoceCcContext& ctx) override;
    void OnSend(uint32_t payloadBytes, uint32_t wireBytes) override;
    void OnAck(const RoceAckEvent& ack) override;
    void OnCnp() override;
    bool OnCeReceived() override;
    bool EcnEchoIsCnp() const override;

    /**
     * \brief The rate-machine parameters these attributes give.
     * \param lineRate the line rate
     * \return the parameters
     */
    RoceDcqcnRpParams GetRpParams(DataRate lineRate) const;

    /**
     * \return the rate machine (state after the events so far, including
     * the increase-timer expiries a sleeping timer skipped)
     */
    const RoceDcqcnRateMachine& GetRateMachine() const;

    /** \return alpha, with the alpha periods elapsed so far applied */
    double GetAlpha();
    /** \return the target rate Rt, bit/s */
    double GetTargetRate() const;
    /** \return rate decreases applied */
    uint64_t GetDecreases() const;

  protected:
    void DoDispose() override;
    void WakeUp() override;

  private:
    /** \brief WakeUp() if the timer sleeps (callable from const getters). */
    void Refresh() const;
    /** \brief Apply the alpha periods that have elapsed. */
    void CatchUpAlpha();
    /** \brief Apply one CNP reaction now. */
    void DoDecrease();
    /** \brief The deferred decrease of a coalesced CNP. */
    void DeferredDecrease();
    /** \brief The rate-increase timer fired. */
    void IncreaseTimer();
    /** \brief (Re)start the rate-increase timer if the rate is below line rate. */
    void RestartIncreaseTimer();
    /**
     * \brief Copy Rc, Rt and alpha to the traces.
     * \param oldAlpha alpha as last published (before the rate machine changed it)
     * \param oldTarget Rt as last published
     */
    void Publish(double oldAlpha, double oldTarget);

    /**
     * \brief Set a rate-machine parameter (attribute setter).
     * \tparam V the parameter's type
     * \tparam M the parameter
     * \param v the value
     */
    template <typename V, V RoceDcqcnRpParams::*M>
    void SetParam(V v);
    /**
     * \brief Get a rate-machine parameter (attribute getter).
     * \tparam V the parameter's type
     * \tparam M the parameter
     * \return the value
     */
    template <typename V, V RoceDcqcnRpParams::*M>
    V GetParam() const;
    /**
     * \brief Set a rate parameter of the rate machine, held in bit/s.
     * \tparam M the parameter
     * \param rate the rate
     */
    template <double RoceDcqcnRpParams::*M>
    void SetRateParam(DataRate rate);
    /**
     * \brief Get a rate parameter of the rate machine.
     * \tparam M the parameter
     * \return the rate
     */
    template <double RoceDcqcnRpParams::*M>
    DataRate GetRateParam() const;
    /**
     * \brief ByteCounter attribute setter: also tells the rate machine whether BC counts.
     * \param bytes bytes per byte-counter event, 0 for none
     */
    void SetByteCounter(uint64_t bytes);
    /** \return the ByteCounter attribute */
    uint64_t GetByteCounter() const;

    /**
     * \brief The rarely used reaction-point state of CNP coalescing
     * (RateDecreasePeriod), allocated at the first decrease.
     */
    struct DecreaseState
    {
        Time lastDecrease;      //!< when the last decrease applied
        EventId deferredEvent;  //!< the deferred decrease
        bool cnpPending{false}; //!< a CNP awaits the deferred decrease
        int64_t gridAnchor{0};  //!< DECREASE_ON_GRID: the first CNP, time steps
    };

    /** \param h the HyperIncrease attribute */
    void SetHyperIncrease(HyperIncrease h);
    /** \return the HyperIncrease attribute */
    HyperIncrease GetHyperIncrease() const;
    /** \param t the AlphaUpdateInterval attribute */
    void SetAlphaInterval(Time t);
    /** \return the AlphaUpdateInterval attribute */
    Time GetAlphaInterval() const;
    /** \param t the RateIncreaseTimer attribute */
    void SetIncreaseInterval(Time t);
    /** \return the RateIncreaseTimer attribute */
    Time GetIncreaseInterval() const;
    /** \param t the RateDecreasePeriod attribute */
    void SetDecreasePeriod(Time t);
    /** \return the RateDecreasePeriod attribute */
    Time GetDecreasePeriod() const;
    /** \param t the CnpInterval attribute */
    void SetCnpInterval(Time t);
    /** \return the CnpInterval attribute */
    Time GetCnpInterval() const;

    // Attributes. The rate-machine parameters (G, InitialAlpha, RateAi,
    // RateHai, MinRate, MinDecreaseFactor, ClampTargetRate, FastRecoveryStages)
    // are held once, in m_rm.
    // Times as int64_t time steps: ns-3 records every Time object built before
    // Simulator::Run (about 48 bytes each), which every idle QP would pay.
    int64_t m_alphaInterval{0};    //!< AlphaUpdateInterval, time steps
    int64_t m_increaseInterval{0}; //!< RateIncreaseTimer, time steps
    uint64_t m_byteCounter;
    int64_t m_decreasePeriod{0}; //!< RateDecreasePeriod, time steps
    int64_t m_cnpInterval{0};    //!< CnpInterval, time steps

    RoceDcqcnRateMachine m_rm;

    // The Alpha and TargetRate trace sources: the values they report are the
    // rate machine's, so only the callbacks are kept here.
    /** The Alpha and TargetRate trace sources, allocated when one is connected. */
    struct Traces
    {
        TracedCallback<double, double> alpha;  //!< Alpha: alpha after each update
        TracedCallback<double, double> target; //!< TargetRate: Rt
    };

    RoceLazyTraces<Traces> m_traces; //!< null until a trace source is connected
    int64_t m_alphaAnchor{0};        //!< start of the current alpha period, time steps
    std::unique_ptr<DecreaseState> m_decreaseState; //!< null until the first decrease
    EventId m_increaseEvent;
    uint64_t m_bytesSinceBc{0};
    uint64_t m_decreases{0};
    int64_t m_nextIncrease{0};               //!< while asleep: the timer's next expiry, time steps
    IdleTimers m_idleTimers{IDLE_SLEEP};     //!< IdleTimers attribute
    AlphaUpdate m_alphaUpdate{ALPHA_ON_CNP}; //!< AlphaUpdate attribute
    DecreaseTiming m_decreaseTiming{DECREASE_AT_CNP}; //!< DecreaseTiming attribute
    Notification m_notification{NOTIFY_CNP};          //!< Notification attribute
    bool m_alphaStarted{false};                       //!< PerInterval: the first CNP came
    bool m_cnpInPeriod{false};                        //!< PerInterval: a CNP in the current period
    int64_t m_lastCnpSent{NEVER}; //!< NP: when this QP last asked for a CNP, time steps

    /** m_lastCnpSent before the first CNP */
    static constexpr int64_t NEVER = std::numeric_limits<int64_t>::min();
};

} // namespace ns3

#endif /* ROCE_CC_DCQCN_H */
