/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FCT_STATS_H
#define ROCE_FCT_STATS_H

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class RoceNetDevice;
class NetDevice;
class RocePfcNetDevice;

/**
 * \ingroup rocev2
 * \brief The outcome of one flow (one RDMA WRITE on its own queue pair).
 */
struct RoceFctRecord
{
    Ipv4Address sip;    //!< sender NIC address
    Ipv4Address dip;    //!< receiver NIC address
    uint16_t sport{0};  //!< UDP source port of the flow's queue pair
    uint16_t dport{0};  //!< the flow's destination port (as the flow file gives it)
    uint64_t bytes{0};  //!< flow size
    Time start;         //!< when it was posted
    Time fct;           //!< posting to completion (to failure if failed)
    Time idealFct;      //!< FCT of the flow alone on its path (RoceFctStats::IdealFct)
    bool failed{false}; //!< the queue pair went to the error state
};

/**
 * \ingroup rocev2
 * \brief Flow completion times and slowdowns of a workload.
 *
 * RoceFlowApp hands every finished flow to Add(). Slowdown = fct / idealFct.
 *
 * Ideal FCT (IdealFct): the flow alone on a shortest path of H links
 * (hop i: forward rate R_i, reverse rate R'_i, propagation delay d_i), sent
 * at line rate and forwarded store-and-forward. The message of B bytes is
 * cut into N = ceil(B / MTU) packets (MTU = the sender's PayloadMtu); packet
 * k occupies w_k = max(f_k, 60) + o bytes on the wire, o the sender NIC's
 * wire overhead (RoceFrameWireOverhead: 24 for FCS, preamble, SFD and IFG
 * unless a program set another framing), with frame f_k = payload_k + 58 (Ethernet 14, IPv4 20, UDP
 * 8, BTH 12, ICRC 4) + 16 for the RETH of the first packet. With t_i = 8 / R_i, packet k leaves hop
 * i at D(k,i) = max(D(k,i-1) + d_{i-1}, D(k-1,i)) + w_k t_i; the delays factor out and D(N,H) -
 * sum(d) is the heaviest monotone path through the N x H grid of w_k t_i. With one first packet
 * (w_1), M = N-2 equal middle packets (w_m) and a last one (w_N) that path is S = max over 1 <= p
 * <= q <= H of w_1 sum_{i<=p} t_i + w_m (sum_{p<=i<=q} t_i + (M-1) max_{p<=i<=q} t_i)
 *       + w_N sum_{i>=q} t_i
 * (N = 2: max_p w_1 sum_{i<=p} t_i + w_2 sum_{i>=p} t_i; N = 1: w_1 sum t_i).
 * The receiver acknowledges the last packet with an ACK of a = 62 + o wire
 * bytes (62-byte frame: BTH 12, AETH 4, ICRC 4; no INT records), forwarded
 * back store-and-forward:
 *   IdealFct = S + 2 sum_i d_i + a sum_i 8 / R'_i.
 * For equal rates R this is (sum_k w_k + (H-1) w_1 + H a) 8/R + 2 sum d: the
 * bottleneck carries every byte once, the other hops add one packet each.
 * The model's own jitter against it: each device rounds a frame's time to
 * the simulator's time step with a carry, so an FCT differs from it by less
 * than one time step per device on the path and back.
 *
 * The path is found by breadth-first search over the RoceChannel graph from
 * the sender's NIC, through switches only (nodes without a RoceNetDevice);
 * an instance caches one search per sender NIC, so a workload of many flows
 * costs one search per sending host.
 *
 * Percentiles are nearest-rank: the p-th percentile of n sorted values is
 * the value at rank ceil(p/100 n) (1-based; p = 0 gives the smallest).
 * Size buckets: upper edges 3 KB, 12 KB, 48 KB, 192 KB, 768 KB, 3 MB, 12 MB
 * (decimal; factor 4 apart, the HPCC paper's style of a web-search FCT
 * figure), and one bucket above 12 MB; SetSizeBuckets changes them.
 */
class RoceFctStats : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceFctStats();
    ~RoceFctStats() override;

    /**
     * \param src the sending NIC
     * \param dst the receiving NIC
     * \param bytes the flow size
     * \return the FCT of the flow alone on a shortest path (see the class
     *         doc); aborts if no path joins the NICs
     */
    static Time IdealFct(Ptr<RoceNetDevice> src, Ptr<NetDevice> dst, uint64_t bytes);

    /**
     * \brief IdealFct with this object's path cache (one search per sender).
     * \param src the sending NIC \param dst the receiving NIC \param bytes the flow size
     * \return the ideal FCT
     */
    Time GetIdealFct(Ptr<RoceNetDevice> src, Ptr<NetDevice> dst, uint64_t bytes);

    /**
     * \brief Expect n more flows whose outcome this process records
     * (RoceWorkloadHelper::Install calls this with the flows that start on
     * this rank). With Distributed, every flow is installed before
     * Simulator::Run: a call after this rank has told the others that its
     * flows are done is refused.
     * \param n the number of flows
     */
    void AddExpected(uint64_t n);

    /**
     * \brief Called once every expected flow has completed or failed.
     *
     * Without Distributed, at the last flow's completion (never if no flow
     * is expected). With Distributed, every rank tells every rank, by a
     * RoceRankCall NotifyDelay after its own last flow (or after time 0 if
     * it expects none), and the callback runs on every rank when the last
     * of those notices arrives: NotifyDelay after the last flow of the
     * whole run, the same time on any number of ranks (and in one
     * process).
     * \param cb the callback
     */
    void SetAllDoneCallback(Callback<void> cb);

    /**
     * \brief This process's records and counts as text, for
     * RoceMpiHelper::Gather.
     * \return the text
     */
    std::string Pack() const;

    /**
     * \brief Replace the records and counts with those of every rank's
     * Pack(). The records are then ordered by completion time, then sender
     * address, source port, receiver address, destination port, posting
     * time and size: an order that does not depend on how the flows were
     * split over ranks. Malformed text is a RoceError.
     * \param packs the Pack() of every rank
     */
    void Merge(const std::vector<std::string>& packs);

    /**
     * \brief Record a finished flow.
     * \param record its outcome
     */
    void Add(const RoceFctRecord& record);

    /**
     * \brief Set the flow-size buckets of the per-size percentiles.
     * \param upperEdges increasing upper edges in bytes (inclusive); one more
     *        bucket holds the flows above the last edge
     */
    void SetSizeBuckets(const std::vector<uint64_t>& upperEdges);

    /** \return the records, in completion order */
    const std::vector<RoceFctRecord>& GetRecords() const;
    /** \return the number of flows expected */
    uint64_t GetExpected() const;
    /** \return the number of flows completed successfully */
    uint64_t GetCompleted() const;
    /** \return the number of failed flows */
    uint64_t GetFailed() const;

    /**
     * \param p a percentile, 0..100
     * \return the nearest-rank p-th percentile of the completed flows'
     *         slowdowns (0 if none)
     */
    double GetSlowdownPercentile(double p) const;

    /**
     * \param p a percentile, 0..100
     * \return the nearest-rank p-th percentile of the completed flows' FCTs
     */
    Time GetFctPercentile(double p) const;

    /** Slowdown percentiles of one flow-size bucket. */
    struct Bucket
    {
        uint64_t minBytes;    //!< smallest size it takes (previous edge + 1)
        uint64_t maxBytes;    //!< largest size it takes (UINT64_MAX for the last)
        uint64_t flows;       //!< completed flows in it
        double p50, p95, p99; //!< slowdown percentiles (0 if empty)
    };

    /** \return the buckets (all of them, empty ones included) */
    std::vector<Bucket> GetBuckets() const;

    /**
     * \brief Write one line per completed flow, in completion order, in the
     * HPCC format `sip dip sport dport size start_ns fct_ns standalone_fct_ns`
     * (addresses as 8 hex digits).
     * \param os the stream
     */
    void WriteHpccFct(std::ostream& os) const;

    /**
     * \brief Write the summary as JSON members ("name": value, ...), without
     * braces: flows_total, flows_completed, flows_failed, slowdown_p50/p95/p99,
     * fct_p50_us/p95_us/p99_us and slowdown_by_size (non-empty buckets; the
     * last bucket's max_bytes is the largest flow it holds).
     * \param os the stream
     * \param indent spaces before each member
     */
    void WriteJsonMembers(std::ostream& os, int indent = 2) const;

    /**
     * \brief Write a slowdown table per size bucket, for people.
     * \param os the stream
     */
    void PrintTable(std::ostream& os) const;

  protected:
    void DoDispose() override;

  private:
    /** One link of a path, in the flow's direction. */
    struct Hop
    {
        double fwdSecondsPerByte; //!< 8 / forward rate
        double revSecondsPerByte; //!< 8 / reverse rate
        double delay;             //!< propagation delay, seconds
    };

    /** Breadth-first search from one NIC: how each node was reached. */
    struct Search
    {
        std::vector<NetDevice*> via; //!< by node id: the device that sends into it
    };

    /**
     * \param search a search from src
     * \param src the sender \param dst the receiver
     * \return the hops from src to dst
     */
    static std::vector<Hop> PathOf(const Search& search,
                                   Ptr<RoceNetDevice> src,
                                   Ptr<NetDevice> dst);
    /** \param src a NIC \return the search from it */
    static Search SearchFrom(Ptr<RoceNetDevice> src);
    /**
     * \param hops the path \param mtu payload bytes per packet
     * \param overhead the sender's wire overhead (RoceFrameWireOverhead)
     * \param bytes flow size
     * \return the ideal FCT
     */
    static Time IdealOnPath(const std::vector<Hop>& hops,
                            uint32_t mtu,
                            int32_t overhead,
                            uint64_t bytes);

    /** \param r a record \return its slowdown */
    static double Slowdown(const RoceFctRecord& r);

    /** \brief With Distributed: tell every rank once this rank's flows are done. */
    void CheckLocalDone();
    /** \brief With Distributed: a rank's notice that its flows are done. \param words its rank */
    void Notice(const std::vector<uint64_t>& words);

    std::vector<RoceFctRecord> m_records;
    std::map<const RoceNetDevice*, Search> m_searches;
    std::vector<uint64_t> m_edges;
    uint64_t m_expected{0};
    uint64_t m_completed{0};
    uint64_t m_failed{0};
    Callback<void> m_allDone;
    bool m_distributed{false};    //!< all-done across MPI ranks (attribute Distributed)
    Time m_notifyDelay;           //!< a rank's notice of its last flow comes this much later
    uint32_t m_service{0};        //!< RoceRankCall service of the notices
    bool m_checkScheduled{false}; //!< the time-0 check of a rank without flows is scheduled
    bool m_noticeSent{false};     //!< this rank has told the others
    uint32_t m_noticesIn{0};      //!< notices received
};

} // namespace ns3

#endif /* ROCE_FCT_STATS_H */
