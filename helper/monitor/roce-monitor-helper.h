/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_MONITOR_HELPER_H
#define ROCE_MONITOR_HELPER_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class RocePfcNetDevice;
class RoceEgressQueueDisc;
class RoceQueuePair;

/**
 * \ingroup rocev2
 * \brief The monitors of a RoCE fabric: a PFC event log, per-port queue
 * sampling, link utilisation sampling, per-QP CNP counts and optional per-QP
 * rate sampling, written as CSV and JSON.
 *
 * Create it after the topology (every RoCE NIC and switch port in NodeList
 * is watched; devices added later are not) and enable the monitors wanted
 * before Simulator::Run():
 *
 * \code
 *   Ptr<RoceMonitor> mon = CreateObject<RoceMonitor>();
 *   mon->EnablePfcLog();
 *   mon->EnableQueueSampling(MicroSeconds(10));
 *   mon->EnableLinkUtilisation(MicroSeconds(10));
 *   ... when the workload completes: mon->Stop();
 *   Simulator::Run();
 *   mon->WriteCsv("out/incast");       // before Simulator::Destroy()
 * \endcode
 *
 * Cost: nothing on the packet path. The PFC log connects to the devices'
 * PfcTx/PfcRx traces (PFC frames only) when enabled; each sampler is ONE
 * simulator event per interval for the whole fabric, and rows are small
 * fixed-size structs; only non-empty queues and busy links make rows.
 *
 * Samplers reschedule themselves, so they would keep a run-to-completion
 * Simulator::Run() alive forever: the owner of the workload calls Stop()
 * when the workload completes (the examples do so from their completion
 * callbacks), or sets SetStopTime() to the run's stop time. Sampling stops
 * at whichever comes first. The per-QP CNP counts are read from the queue
 * pairs when written, so write before Simulator::Destroy().
 *
 * Across MPI ranks each rank's monitor watches the devices of the nodes it
 * runs (RoceMpiHelper::IsLocal), and RoceMpiHelper::Gather(monitor) brings
 * every rank's rows to rank 0 (Pack, Merge), which writes them: the same
 * CSV and JSON as one process that gathered too. Samplers must then stop at
 * one time on every rank: at a stop time, or at RoceFctStats' all-done
 * callback with Distributed.
 */
class RoceMonitor : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceMonitor();
    ~RoceMonitor() override;

    /** One PFC frame sent (or, for the HPCC-format log, received) by a device. */
    struct PfcEvent
    {
        int64_t timeNs;   //!< simulated time, ns
        uint32_t node;    //!< node id
        uint32_t ifIndex; //!< device's interface index on its node
        uint8_t priority; //!< priority (0..7)
        bool xoff;        //!< true: pause (XOFF or a refresh), false: resume (XON)
        bool isSwitch;    //!< the device is a switch port (else a NIC)
    };

    /** One queue sample: a non-empty egress queue of a switch port. */
    struct QueueSample
    {
        int64_t timeNs;   //!< simulated time, ns
        uint32_t node;    //!< switch node id
        uint32_t ifIndex; //!< port's interface index
        uint8_t priority; //!< priority (0..7)
        uint64_t bytes;   //!< queued bytes (frames without FCS)
    };

    /** One utilisation sample of a device that sent something in the interval. */
    struct LinkSample
    {
        int64_t timeNs;   //!< end of the interval, ns
        uint32_t node;    //!< node id
        uint32_t ifIndex; //!< device's interface index
        uint64_t bytes;   //!< frame bytes (without FCS) sent in the interval
        uint32_t frames;  //!< frames sent in the interval
        double util;      //!< wire utilisation (see EnableLinkUtilisation)
    };

    /** One rate sample of a sending queue pair. */
    struct RateSample
    {
        int64_t timeNs;  //!< simulated time, ns
        uint32_t node;   //!< node id
        uint32_t qpn;    //!< QP number
        double rateBps;  //!< congestion-control rate, bit/s
        uint64_t window; //!< window in bytes (0 = none)
    };

    /** The CNP counts of one queue pair. */
    struct CnpCount
    {
        uint32_t node;        //!< node id
        uint32_t qpn;         //!< QP number
        uint16_t sport;       //!< UDP source port
        uint32_t dstIp;       //!< remote IPv4 address (host order)
        uint64_t cnpSent;     //!< CNPs sent (as receiver)
        uint64_t cnpReceived; //!< CNPs received (as sender)
    };

    /** The largest queue of one switch port. */
    struct PortMax
    {
        uint32_t node;       //!< switch node id
        uint32_t ifIndex;    //!< port's interface index
        uint64_t maxBytes;   //!< largest queue its queue disc saw (any priority)
        uint64_t maxSampled; //!< largest queue sample (all priorities)
    };

    /**
     * \brief Log every PFC frame: sent frames (time, node, port, priority,
     * XOFF/XON) for the CSV/JSON log; received frames for WritePfcHpcc().
     * A held pause is refreshed before it expires: each refresh is an XOFF row.
     */
    void EnablePfcLog();

    /**
     * \brief Sample every switch port's egress queue, per priority, every
     * interval; rows only for non-empty queues.
     * \param interval the sampling interval (> 0)
     */
    void EnableQueueSampling(Time interval);

    /**
     * \brief Sample every device's (NICs and switch ports) transmit
     * utilisation every interval; rows only for devices that sent.
     *
     * util = wire time of the frames sent in the interval / interval =
     * (Δbytes + Δframes × 24) × 8 / (rate × interval), where Δbytes counts
     * frames without FCS (RocePfcNetDevice::GetTxBytes) and 24 B per frame
     * are the FCS, preamble, SFD and IFG. Minimum-size padding is not counted
     * (it only concerns frames under 60 B: PFC frames). The CSV also carries
     * Δbytes, so the frame-byte rate is at hand.
     * \param interval the sampling interval (> 0)
     */
    void EnableLinkUtilisation(Time interval);

    /**
     * \brief Sample every queue pair's congestion-control rate and window
     * every interval, while the QP has data outstanding. Off by default.
     * \param interval the sampling interval (> 0)
     */
    void EnableRateSampling(Time interval);

    /**
     * \brief Stop every sampler now (pending sampling events are cancelled).
     * The PFC log keeps logging. Call it when the workload completes, so that
     * a run to completion ends.
     */
    void Stop();

    /**
     * \brief No sample is taken after this time.
     * \param stop absolute simulated time
     */
    void SetStopTime(Time stop);

    /** \return true once Stop() was called or the stop time passed */
    bool IsStopped() const;

    /** \return the queue-sampling events run so far */
    uint64_t GetQueueSampleCount() const;
    /** \return the link-sampling events run so far */
    uint64_t GetLinkSampleCount() const;
    /** \return the rate-sampling events run so far */
    uint64_t GetRateSampleCount() const;

    /** \return the PFC frames sent, in time order */
    const std::vector<PfcEvent>& GetPfcLog() const;
    /** \return the PFC frames received, in time order */
    const std::vector<PfcEvent>& GetPfcRxLog() const;
    /** \return the queue rows */
    const std::vector<QueueSample>& GetQueueSamples() const;
    /** \return the link rows */
    const std::vector<LinkSample>& GetLinkSamples() const;
    /** \return the rate rows */
    const std::vector<RateSample>& GetRateSamples() const;
    /** \return per-QP CNP counts of the current simulation (QPs with any CNP) */
    std::vector<CnpCount> GetCnpCounts() const;
    /** \return the switch ports that held any queue, by node and port */
    std::vector<PortMax> GetPortMaxQueues() const;

    /**
     * \brief This rank's rows, CNP counts and port maxima as text, for
     * RoceMpiHelper::Gather.
     * \return the text
     */
    std::string Pack() const;

    /**
     * \brief Replace the rows, CNP counts and port maxima with those of
     * every rank's Pack() (the sampling counts stay: every rank samples
     * alike). Rows are then ordered by time, node, port and priority (rate
     * rows by time, node and QP number), which one process's samplers give
     * too; PFC rows, which one process logs in event order, take that order
     * as well. Malformed text is a RoceError.
     * \param packs the Pack() of every rank
     */
    void Merge(const std::vector<std::string>& packs);

    /**
     * \brief Write PREFIX-pfc.csv, PREFIX-queue.csv, PREFIX-link.csv,
     * PREFIX-cnp.csv and PREFIX-rate.csv (the enabled monitors; CNP counts
     * always), each with a header line. The prefix's folder is created if
     * missing. Aborts naming the file if it cannot be written.
     * \param prefix path prefix
     */
    void WriteCsv(const std::string& prefix) const;

    /**
     * \brief Write the whole monitor output as one JSON object.
     * \param os the stream
     */
    void WriteJson(std::ostream& os) const;

    /**
     * \brief Write the monitor output as JSON members, without braces: a
     * "monitor_summary" object (counts, per-port max queue) and the rows as
     * arrays ("pfc_events", "queue_samples", "link_samples", "cnp_counts",
     * "rate_samples"; the enabled ones).
     * \param os the stream
     * \param indent spaces before each member
     */
    void WriteJsonMembers(std::ostream& os, int indent = 2) const;

    /**
     * \brief Write the PFC log in the HPCC-lineage PFC_OUTPUT_FILE format:
     * one line per PFC frame RECEIVED, "time_ns node_id node_type if_index
     * type", node_type 0 host / 1 switch, type 1 pause / 0 resume. That
     * lineage logs at the device that is paused or resumed (the receiver of
     * the PFC frame), so these rows are the PfcRx events, not the PfcTx ones.
     * \param os the stream
     */
    void WritePfcHpcc(std::ostream& os) const;

  protected:
    void DoDispose() override;

  private:
    /** A watched device. */
    struct Device
    {
        Ptr<RocePfcNetDevice> dev;     //!< the device
        Ptr<RoceEgressQueueDisc> disc; //!< its egress queue disc (switch ports), else null
        uint32_t node;                 //!< node id
        uint32_t ifIndex;              //!< interface index
        bool isSwitch;                 //!< a switch port
        uint64_t lastTxBytes;          //!< tx bytes at the last link sample
        uint64_t lastTxFrames;         //!< tx frames at the last link sample
    };

    /** \brief Find the devices of the simulation once. */
    void FindDevices();
    /** \brief Check an interval. \param what the method \param interval the interval */
    static void CheckInterval(const char* what, Time interval);
    /**
     * \param interval a sampler's interval
     * \return true if the sampler should take its next sample after interval
     */
    bool KeepSampling(Time interval) const;
    /** \brief Take a queue sample and reschedule. */
    void SampleQueues();
    /** \brief Take a link sample and reschedule. */
    void SampleLinks();
    /** \brief Take a rate sample and reschedule. */
    void SampleRates();
    /**
     * \brief Log a PFC frame.
     * \param log the log \param d the device \param priority priority \param quanta quanta
     */
    void LogPfc(std::vector<PfcEvent>* log, const Device* d, uint8_t priority, uint16_t quanta);

    std::vector<Device> m_devices; //!< watched devices
    bool m_found{false};           //!< devices found
    bool m_stopped{false};         //!< Stop() called
    Time m_stopTime{Time::Max()};  //!< no sample after this

    bool m_pfcEnabled{false};   //!< PFC log on
    Time m_queueInterval;       //!< 0 = off
    Time m_linkInterval;        //!< 0 = off
    Time m_rateInterval;        //!< 0 = off
    EventId m_queueEvent;       //!< next queue sample
    EventId m_linkEvent;        //!< next link sample
    EventId m_rateEvent;        //!< next rate sample
    uint64_t m_queueSamples{0}; //!< queue-sampling events run
    uint64_t m_linkSamples{0};  //!< link-sampling events run
    uint64_t m_rateSamples{0};  //!< rate-sampling events run
    Time m_lastLinkSample;      //!< start of the current link interval

    std::vector<PfcEvent> m_pfcTx;       //!< PFC frames sent
    std::vector<PfcEvent> m_pfcRx;       //!< PFC frames received
    std::vector<QueueSample> m_queue;    //!< queue rows
    std::vector<LinkSample> m_link;      //!< link rows
    std::vector<RateSample> m_rate;      //!< rate rows
    std::vector<uint64_t> m_portMaxSeen; //!< per device: largest sampled queue (all priorities)

    bool m_merged{false};                 //!< Merge() replaced the local rows
    std::vector<CnpCount> m_mergedCnp;    //!< CNP counts of every rank, after Merge()
    std::vector<PortMax> m_mergedPortMax; //!< port maxima of every rank, after Merge()
};

} // namespace ns3

#endif /* ROCE_MONITOR_HELPER_H */
