/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FLOW_APP_H
#define ROCE_FLOW_APP_H

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class RoceNetDevice;
class RoceFctStats;
struct RoceCompletion;

/**
 * \ingroup rocev2
 * \brief One flow of a workload: an RDMA WRITE of `bytes` from host `src`
 * to host `dst`, posted at `start`. src and dst index the NodeContainer
 * given to RoceWorkloadHelper::Install (for HPCC-format files, the HPCC node
 * ids).
 */
struct RoceFlowSpec
{
    uint32_t src{0};     //!< sending host (index)
    uint32_t dst{0};     //!< receiving host (index)
    uint8_t priority{3}; //!< traffic class 0..7 of its queue pair
    uint16_t dport{100}; //!< destination port, reported in the FCT output
    uint64_t bytes{0};   //!< size
    Time start;          //!< when it is posted
};

/**
 * \ingroup rocev2
 * \brief Runs the flows of one sending host.
 *
 * The flows are kept sorted by start time with one pending event, the next
 * start. At each start the app creates a fresh RC queue pair to the
 * destination NIC (one QP per flow, as the HPCC-lineage simulators do), with
 * the flow's priority and its own UDP source port (FirstSourcePort, +1 per
 * flow of this host, so ECMP spreads the flows), and posts one RDMA WRITE.
 * Its completion becomes a RoceFctRecord in the shared RoceFctStats. Nothing
 * happens per packet.
 *
 * Memory: a NIC keeps its queue pairs (QP numbers are slots), so each flow
 * leaves two idle QPs behind; the app itself drops a flow's description once
 * it is posted.
 *
 * Across MPI ranks (RoceWorkloadHelper installs an app on every sending
 * host on every rank): every rank creates and connects every flow's QPs at
 * its start, so QP numbers and UDP ports are those of one process, and only
 * the app whose node runs on this rank posts the WRITE and records it.
 */
class RoceFlowApp : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceFlowApp();
    ~RoceFlowApp() override;

    /**
     * \brief Set the NIC the flows leave from and the statistics they go to.
     * \param nic this host's NIC (across MPI ranks, on a rank that does not
     *        run the host, the RoceAbsentDevice that may stand in for it)
     * \param stats where finished flows are recorded
     */
    void Setup(Ptr<NetDevice> nic, Ptr<RoceFctStats> stats);

    /**
     * \brief Add a flow.
     * \param flow the flow (its src field is not used)
     * \param dst the receiving NIC, or the device that stands in for it
     */
    void AddFlow(const RoceFlowSpec& flow, Ptr<NetDevice> dst);

    /**
     * \brief The factory of the queue pairs created (attributes such as
     * RetransmitTimeout; Priority and SourcePort are set per flow).
     * \param factory a RoceQueuePair factory
     */
    void SetQpFactory(const ObjectFactory& factory);

    /** \return flows added and not started yet */
    uint32_t GetNPending() const;
    /** \return flows started */
    uint32_t GetNStarted() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /** \brief Post every flow due now and schedule the next start. */
    void StartDue();
    /** \brief Schedule the next start, if any. */
    void ScheduleNext();

    /** A flow not yet posted. */
    struct Pending
    {
        RoceFlowSpec spec;  //!< the flow
        Ptr<NetDevice> dst; //!< the receiving NIC
    };

    /**
     * \brief A flow finished.
     * \param dst its receiving NIC
     * \param sport its source port
     * \param dport its destination port
     * \param c the completion
     */
    void Completed(Ptr<NetDevice> dst, uint16_t sport, uint16_t dport, const RoceCompletion& c);

    Ptr<NetDevice> m_nic;
    Ptr<RoceFctStats> m_stats;
    ObjectFactory m_qpFactory;
    std::vector<Pending> m_flows; //!< sorted by start once the app starts
    std::size_t m_next{0};        //!< the next flow to start
    EventId m_event;              //!< the next start
    uint16_t m_firstSport{10000};
    uint32_t m_started{0};
    bool m_local{true}; //!< the node runs on this MPI rank: it posts its flows
};

} // namespace ns3

#endif /* ROCE_FLOW_APP_H */
