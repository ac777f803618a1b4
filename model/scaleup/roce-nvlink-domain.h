/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NVLINK_DOMAIN_H
#define ROCE_NVLINK_DOMAIN_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class Node;

/**
 * \ingroup rocev2
 * \brief The scale-up domain (NVLink through NVSwitch) joining the GPUs of one
 * server: a non-blocking fluid model of bulk GPU-to-GPU copies.
 *
 * A server is one Node with G RoceNetDevices (NIC i = GPU i); this object,
 * aggregated onto that Node, carries what its GPUs send each other without
 * going through a NIC: ring steps between GPUs of one server, intra-server
 * all-to-all, the reduce-scatter before a NIC step. It carries no RoCE frames,
 * has no PFC, no buffers and never drops.
 *
 * **Ports.** Every GPU has an egress port and an ingress port of DataRate each
 * (per GPU per direction: 3600 Gb/s = 450 GB/s by default, H100 NVLink4's
 * 900 GB/s bidirectional). The switch between them is non-blocking: only the
 * 2 G ports limit a transfer, so transfers between disjoint GPU pairs never
 * slow each other.
 *
 * **Sharing.** Concurrent transfers share the ports max-min fairly (a fluid
 * model, no packets): the rates are the water-filling answer over the egress
 * port of each transfer's source and the ingress port of its destination. They
 * are recomputed only when a transfer starts or its last byte leaves, or when
 * DataRate changes; in between every transfer runs at a constant rate. One
 * event is pending at a time, at the next instant a last byte leaves; a start
 * cancels and reschedules it. Each recomputation costs O(transfers x GPUs)
 * (an 8-GPU all-to-all has 56 transfers).
 *
 * **Latency.** A transfer is delivered (its done callback and the Rx trace
 * run) Latency after its last byte has left the source in the fluid model:
 *   delivery = (time the last byte leaves) + Latency.
 * Latency (default 1 us) lumps what one copy costs besides serialisation: the
 * copy engine or SM kernel start, the NVLink link and the NVSwitch hop.
 *
 * **Time and bytes.** The fluid state runs on exact (long double) time, so
 * rounding never accumulates: an event that the fluid model places between
 * two simulator ticks runs at the next tick (rounded up to the simulator's
 * resolution, 1 ns by default), and each delivery happens within one tick
 * after its exact fluid time. Byte counts are whole: a transfer completes with
 * exactly the bytes it was given, and GetTxBytes/GetRxBytes add them whole.
 *
 * **Zero bytes.** Send with 0 bytes is allowed (an uneven split of a
 * collective may leave an empty chunk): it takes no port capacity and is
 * delivered Latency after it was sent.
 *
 * Misuse aborts with a message: src == dst, a GPU index >= NGpus, DataRate 0,
 * NGpus 0, and changing NGpus after the first Send.
 *
 * Config path: /NodeList/N/$ns3::RoceNvlinkDomain/<attribute or trace>. Once
 * aggregated onto a node, deliveries (done callbacks, the Rx trace) run in
 * that node's context, whoever called Send.
 */
class RoceNvlinkDomain : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceNvlinkDomain();
    ~RoceNvlinkDomain() override;

    /**
     * \brief TracedCallback signature of the Tx and Rx traces.
     * \param src the source GPU
     * \param dst the destination GPU
     * \param bytes the transfer's size
     * \param id the transfer's id (the value Send returned)
     */
    typedef void (*TransferTracedCallback)(uint32_t src, uint32_t dst, uint64_t bytes, uint64_t id);

    /**
     * \brief Create a domain of `gpus` GPUs and aggregate it onto a server.
     * \param server the server Node; it must not have a domain yet
     * \param gpus the GPUs of the server (NGpus)
     * \return the domain, also reachable as server->GetObject<RoceNvlinkDomain>()
     */
    static Ptr<RoceNvlinkDomain> Install(Ptr<Node> server, uint32_t gpus);

    /**
     * \brief Start copying `bytes` from GPU src to GPU dst now.
     * \param srcGpu the source GPU, below NGpus
     * \param dstGpu the destination GPU, below NGpus and not srcGpu
     * \param bytes the size; 0 is delivered after Latency alone
     * \param done called with the id when the last byte has arrived at dstGpu
     * \return the transfer's id: 0, 1, 2, ... in the order of Send calls
     */
    uint64_t Send(uint32_t srcGpu,
                  uint32_t dstGpu,
                  uint64_t bytes,
                  Callback<void, uint64_t> done = MakeNullCallback<void, uint64_t>());

    /**
     * \brief Send, calling done with the caller's own cookie instead of the
     * id: one callback made once serves every transfer, so a caller with many
     * transfers in flight binds nothing per transfer.
     * \param srcGpu the source GPU \param dstGpu the destination GPU
     * \param bytes the size \param done called with cookie at delivery
     * \param cookie any value the caller wants back
     * \return the transfer's id, as Send
     */
    uint64_t SendWithCookie(uint32_t srcGpu,
                            uint32_t dstGpu,
                            uint64_t bytes,
                            const Callback<void, uint64_t>& done,
                            uint64_t cookie);

    /**
     * \param gpu a GPU below NGpus
     * \return bytes of the transfers from gpu whose last byte has left it
     */
    uint64_t GetTxBytes(uint32_t gpu) const;

    /**
     * \param gpu a GPU below NGpus
     * \return bytes of the transfers to gpu that have been delivered
     */
    uint64_t GetRxBytes(uint32_t gpu) const;

    /** \return transfers sent and not yet delivered (sharing ports or in their Latency) */
    uint32_t GetNActive() const;

    /** \return the number of GPUs (NGpus) */
    uint32_t GetNGpus() const;

    /** \param gpus the number of GPUs; at least 1, and only before the first Send */
    void SetNGpus(uint32_t gpus);

    /** \return the per-GPU, per-direction port rate */
    DataRate GetDataRate() const;

    /**
     * \brief Set the per-GPU, per-direction port rate. Transfers under way
     * keep the bytes they have sent and continue at the new rates from now.
     * \param rate the rate, above 0
     */
    void SetDataRate(DataRate rate);

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    /** One transfer whose last byte has not left its source yet. */
    struct Transfer
    {
        uint64_t id;                   //!< Send's return value
        uint32_t src;                  //!< source GPU
        uint32_t dst;                  //!< destination GPU
        uint64_t bytes;                //!< size
        long double remainingBits;     //!< bits not yet sent (fluid)
        long double rate;              //!< current rate, bit/s
        bool frozen;                   //!< rate fixed in this water-filling pass
        Callback<void, uint64_t> done; //!< completion callback
        uint64_t cookie;               //!< the value done is called with
    };

    /** \return the simulator's current time in seconds, exactly */
    long double NowSeconds() const;

    /**
     * \param seconds an exact time
     * \return the first simulator tick at or after it
     */
    Time CeilToTick(long double seconds) const;

    /** \brief Move every transfer forward to fluid time `seconds` at its current rate. */
    void Advance(long double seconds);

    /** \brief Run the pending last-byte event now if it is due at the current tick. */
    void CatchUp();

    /** \brief Max-min fair rates (water-filling over the 2 G ports) and the next event. */
    void Reshare();

    /** \brief The last byte of the earliest transfer(s) left: release their ports. */
    void LastByteLeft();

    /**
     * \brief A transfer arrived at its destination.
     * \param src source GPU \param dst destination GPU \param bytes size
     * \param id transfer id \param done its completion callback
     * \param cookie the value done is called with
     */
    void Deliver(uint32_t src,
                 uint32_t dst,
                 uint64_t bytes,
                 uint64_t id,
                 Callback<void, uint64_t> done,
                 uint64_t cookie);

    /**
     * \brief Schedule the delivery of a transfer, in the server's context (its
     * node id) once the domain is aggregated onto a node, so that done
     * callbacks and Rx sinks run as events of that node.
     * \param delay from now \param t the transfer
     */
    void ScheduleDelivery(Time delay, const Transfer& t);

    /** \brief Abort unless gpu is below NGpus. \param gpu index \param what its role */
    void CheckGpu(uint32_t gpu, const char* what) const;

    DataRate m_rate;       //!< per GPU, per direction
    Time m_latency;        //!< first-byte latency of a transfer
    uint32_t m_nGpus;      //!< GPUs in the domain
    uint64_t m_nextId;     //!< id of the next Send
    uint32_t m_nInLatency; //!< transfers whose last byte left and that are not delivered yet

    std::vector<Transfer> m_active;  //!< transfers still sending
    std::vector<uint64_t> m_txBytes; //!< per GPU
    std::vector<uint64_t> m_rxBytes; //!< per GPU
    std::vector<long double> m_cap;  //!< spare capacity: egress of g at g, ingress at G + g
    std::vector<uint32_t> m_users;   //!< water-filling: unfrozen transfers per port
    long double m_fluidTime;         //!< time up to which remainingBits are counted (s)
    long double m_nextLastByte;      //!< exact time of the pending event (s)
    uint64_t m_nextLastByteId;       //!< the transfer that ends then
    EventId m_event;                 //!< the pending last-byte event
    int64_t m_eventAt{0};            //!< m_event's time step
    bool m_eventPending{false};      //!< m_event has neither run nor been cancelled
    uint32_t m_context;              //!< the server's node id, or Simulator::NO_CONTEXT
    long double m_ticksPerSecond;    //!< Seconds(1) in time steps (fixed before any Time exists)

    TracedCallback<uint32_t, uint32_t, uint64_t, uint64_t> m_txTrace; //!< transfer started
    TracedCallback<uint32_t, uint32_t, uint64_t, uint64_t> m_rxTrace; //!< transfer delivered
};

} // namespace ns3

#endif /* ROCE_NVLINK_DOMAIN_H */
