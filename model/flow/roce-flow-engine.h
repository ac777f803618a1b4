/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FLOW_ENGINE_H
#define ROCE_FLOW_ENGINE_H

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/roce-message-offload.h"
#include "ns3/roce-queue-pair.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

class RoceChannel;
class RocePfcNetDevice;
class RoceNetDevice;

/**
 * \ingroup rocev2
 * \brief The flow-level engine: every message a queue pair is given is a
 * fluid flow on the path its packets would take, at a max-min fair rate.
 *
 * **Paths.** A queue pair's path is found once, by walking from its NIC over
 * the channels: at each switch the egress port is the one the switch would
 * give the queue pair's frames (a pinned entry, else RoceSwitch::SelectEgress
 * over the same 5-tuple, destination QP and seed), so ECMP collisions, E-ECMP
 * and QP scaling are those of the packet model. A link is one direction of a
 * channel, named by the device that transmits on it; its capacity is that
 * device's DataRate, in bytes on the wire per second. The ACKs of a message
 * take the peer queue pair's path back.
 *
 * **Rates.** A queue pair sends its messages one after the other, as its
 * packets do: only its oldest message is a flow. A flow's size is its bytes on
 * the wire (every frame's headers, RETH, pad, ICRC and the wire overhead of
 * RoceFrameWireOverhead). Flows share links max-min fairly (progressive
 * filling); a flow loads each link of its path by its rate and each link of
 * its ACKs' path by its rate times (the ACKs' wire bytes / its data's wire
 * bytes). Rates are recomputed when a flow starts or its last byte leaves:
 * changes at one instant are one computation, which covers only the links and
 * flows connected to the ones that changed. Most changes need none (the
 * FastPath attribute): when every flow that shared a link with an ended flow
 * still has a bottleneck (a full link on which no flow has a higher rate),
 * and a new flow can take the free capacity of its path with a bottleneck of
 * its own, the max-min rates are the old ones plus the new flow's, which is
 * exactly what a computation would find.
 *
 * **Times.** Fluid time is exact (long double seconds). The receiver learns
 * of a message (DeliverOffloaded, MessageReceived) when its last frame would
 * arrive: the fluid end, plus every link's propagation delay, plus the
 * largest frame's serialisation on every link after the first (store and
 * forward: on a path of equal rates, frames that follow one another leave
 * each later link W / C + the largest frame's time after the first starts,
 * the largest frame being the one that holds the others back).
 * The sender's completion follows after the last ACK's way back: the ACK
 * path's propagation delays and the ACK frame's serialisation on each of its
 * links. Events round up to the simulator's resolution.
 *
 * **Not modelled, refused.** Queues, PFC, ECN and drops do not exist at
 * flow level: a queue pair whose congestion control is not "none", a switch
 * whose LoadBalancing is not "ecmp" (flowlets, spraying and adaptive choices
 * follow queues), a device with a ReceiveErrorModel, a NIC with an
 * RxDrainRate, a link that is down on a queue pair's first path and a run
 * over MPI ranks are RoceErrors naming what was found. Links that go down
 * and up later, and the routes recomputed after them, are modelled
 * (LinkChanged, RoutesChanged).
 */
class RoceFlowEngine : public RoceMessageOffload
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceFlowEngine();
    ~RoceFlowEngine() override;

    /**
     * \brief Make an engine and attach it to every RoceNetDevice of the
     * simulation (RoceForEachDevice), so that every queue pair's messages
     * run at flow level. Refused in a run over more than one MPI rank.
     * \return the engine
     */
    static Ptr<RoceFlowEngine> Install();

    /** \param nic a NIC whose queue pairs' messages this engine carries */
    void Attach(Ptr<RoceNetDevice> nic);

    void Carry(RoceQueuePair* qp,
               uint64_t id,
               uint64_t bytes,
               bool write,
               Time posted,
               Callback<void, const RoceCompletion&> cb) override;

    /**
     * \param qp a connected sending queue pair
     * \return the devices that transmit its data frames, its NIC first and
     *         the last switch port (towards the receiving NIC) last
     */
    std::vector<Ptr<RocePfcNetDevice>> GetPath(Ptr<RoceQueuePair> qp);

    /**
     * \param qp a queue pair
     * \return the rate its message being carried now has, in bits on the
     *         wire per second (0 if none)
     */
    double GetRate(Ptr<RoceQueuePair> qp) const;

    /**
     * \param device a device that transmits
     * \return the bytes on the wire the flows carried over it so far (data
     *         and ACKs, counted when a message's last byte leaves its sender)
     */
    uint64_t GetLinkWireBytes(Ptr<RocePfcNetDevice> device) const;

    /** What the engine did. */
    struct Stats
    {
        uint64_t messages{0};          //!< messages carried
        uint64_t delivered{0};         //!< messages delivered to their receiver
        uint64_t rateComputations{0};  //!< max-min computations
        uint64_t fastComputations{0};  //!< changes settled without one (the fast path)
        uint64_t localComputations{0}; //!< changes settled by a local solve
        uint64_t replaced{0};          //!< flows that took their queue pair's ended message's rate
        uint64_t flowsRated{0};        //!< flows the computations covered, summed
        uint64_t maxActive{0};         //!< most flows active at once
        uint64_t stalls{0};            //!< flows stopped by a link down on their path
        uint64_t resumed{0};           //!< stalled flows a timeout put on a path again
        uint64_t moved{0};             //!< flows moved to a new path by new routes
    };

    /** \return the counters */
    const Stats& GetStats() const;

    /**
     * \brief A link changed state (RoceFaultHelper calls it after
     * RoceChannel::SetLinkUp). Flows whose data or ACKs cross it, if it went
     * down, stop: their frames are lost. A sender that is still putting
     * frames on the wire when the routes change (its message's rest and the
     * messages behind it, at its rate) sends the next ones on the new path,
     * and the receiver's NAK brings it back one round trip later; any other
     * resumes at its queue pair's first retransmission timeout
     * (RetransmitTimeout, counted from the failure) at which its paths are
     * up, as the packet model's go-back-N does. The bytes lost in flight are
     * not sent again.
     * \param channel the link
     */
    void LinkChanged(Ptr<RoceChannel> channel);

    /**
     * \brief The switches' routes changed (RoceFaultHelper calls it after
     * recomputing them): every queue pair's paths are walked again; a flow
     * whose path changed moves to the new one at once, as its next frames
     * would.
     */
    void RoutesChanged();

    /** \return flows active now (messages whose last byte has not left) */
    uint32_t GetNActive() const;

    /**
     * \brief Weighted max-min rates by progressive filling: every flow's rate
     * rises together until a link it loads is full.
     * \param capacity each link's capacity
     * \param flows each flow's links, with the weight it loads each by (load =
     *        weight x rate); every flow must load at least one link with a
     *        weight above 0
     * \return each flow's rate
     */
    static std::vector<double> MaxMin(
        const std::vector<double>& capacity,
        const std::vector<std::vector<std::pair<uint32_t, double>>>& flows);

  protected:
    void DoDispose() override;

  private:
    /** A flow's place on one of its links. */
    struct Hop
    {
        uint32_t link; //!< link index
        uint32_t pos;  //!< its index in the link's members
        double weight; //!< load per unit of rate
    };

    /** A flow on a link. */
    struct Member
    {
        uint32_t flow; //!< flow index
        uint32_t hop;  //!< the index of this link in the flow's hops
        double weight; //!< load per unit of rate
    };

    /** One direction of a channel. */
    struct Link
    {
        double capacity{0};                //!< bytes on the wire per second
        std::vector<Member> members;       //!< active flows loading it
        RocePfcNetDevice* device{nullptr}; //!< its transmitting device
        long double delay{0};              //!< propagation delay, seconds
        double bitRate{0};                 //!< bits per second
        uint64_t wireBytes{0};             //!< carried so far
        // progressive filling scratch
        double residual{0};
        double wsum{0};
        uint32_t unfrozen{0};
        uint32_t mark{0};
        bool dirty{false};
        // the checks' measure of it, valid while measured is m_rateVersion
        mutable double load{0};       //!< its load
        mutable double top{0};        //!< the highest rate on it
        mutable double second{0};     //!< the highest but one
        mutable uint32_t topFlow{0};  //!< the flow with the highest
        mutable uint64_t measured{0}; //!< the rates' version measured
        int64_t startTick{-1};        //!< the instant flows last started on it (a NIC's link)
        uint32_t startsAtTick{0};     //!< how many started then after the first
    };

    /** A message being carried. */
    struct Flow
    {
        std::vector<Hop> hops;                    //!< data path, then ACK path
        Callback<void, const RoceCompletion&> cb; //!< the sender's callback
        long double remaining{0};                 //!< wire bytes not yet sent
        long double since{0};                     //!< fluid time remaining was counted at
        double rate{0};                           //!< wire bytes per second
        double newRate{0};                        //!< scratch
        double oldRate{0};                        //!< scratch: the rate before a local solve
        uint64_t id{0};                           //!< message id
        uint64_t bytes{0};                        //!< size
        uint64_t packets{0};                      //!< packets it takes
        uint64_t wire{0};                         //!< its data's bytes on the wire
        uint64_t ackWire{0};                      //!< its ACKs' bytes on the wire
        Time posted;                              //!< when posted
        EventId finish;                           //!< when its last byte leaves
        uint32_t qp{0};                           //!< sender state index
        uint32_t maxFrame{0};                     //!< its largest frame's bytes
        uint32_t mark{0};
        bool frozen{false};
        bool active{false};
        bool fresh{false};           //!< started since the last computation, no rate yet
        bool stalled{false};         //!< its path went down; waiting for a timeout
        long double sendingUntil{0}; //!< stalled: when its sender runs out of frames
    };

    /** A message waiting behind its queue pair's current one. */
    struct Pending
    {
        uint64_t id;                              //!< message id
        uint64_t bytes;                           //!< size
        bool write;                               //!< WRITE or SEND
        Time posted;                              //!< when posted
        Callback<void, const RoceCompletion&> cb; //!< callback
    };

    /** A sending queue pair. */
    struct QpState
    {
        RoceQueuePair* qp{nullptr};   //!< the sender
        RoceQueuePair* peer{nullptr}; //!< the receiver
        std::vector<uint32_t> data;   //!< links of its data path
        std::vector<uint32_t> ack;    //!< links of its ACKs' path
        std::deque<Pending> waiting;  //!< messages behind the current one
        int64_t current{-1};          //!< its flow, IDLE or STARTING
        uint32_t ackInterval{1};      //!< the receiver's AckInterval
        uint32_t mtu{1024};           //!< payload per packet
        Time rto;                     //!< the sender's RetransmitTimeout
        int64_t removed{-1};          //!< its ended flow's index in m_removed, or -1
    };

    /**
     * Progressive filling over the given links and flows (their rates in
     * newRate); flows on those links whose mark is not mark keep their rates
     * and their loads are taken off the links' capacities.
     */
    static void Fill(std::vector<Link>& links,
                     std::vector<Flow>& flows,
                     const std::vector<uint32_t>& compLinks,
                     const std::vector<uint32_t>& compFlows,
                     uint32_t mark);

    /** \return the sender state of qp, its paths found on first use */
    uint32_t State(RoceQueuePair* qp);
    /** \return the link a device transmits on, added on first use */
    uint32_t LinkOf(RocePfcNetDevice* device);
    /**
     * \brief Walk from a NIC to the NIC that owns dst.
     * \param qp the queue pair whose frames take the walk (for errors)
     * \param dst the destination address
     * \param links filled with the links, in order
     * \param strict true: a link down or a missing route is a RoceError;
     *        false: the walk returns null with links empty
     * \return the destination NIC
     */
    RoceNetDevice* Walk(RoceQueuePair* qp,
                        uint32_t dst,
                        std::vector<uint32_t>& links,
                        bool strict = true);
    /**
     * \brief Start the first waiting message of a queue pair as a flow.
     * \param qp the sender state \param at the fluid time it may start (the
     *        end of the one before it, or now)
     * \param stagger true to start it a frame later per queue pair of the
     *        same NIC that started at this instant before it
     */
    void StartNext(uint32_t qp, long double at, bool stagger);
    /** \brief Put a flow on its queue pair's paths, as a new flow. \param flow its index */
    void AttachFlow(uint32_t flow);
    /**
     * \brief Take a flow off its links.
     * \param flow its index
     * \param ended true if its last byte left (a next message of its queue
     *        pair on the same paths may take its rate: Replace)
     */
    void DetachFlow(uint32_t flow, bool ended = false);
    /** \brief Count a flow's bytes sent at its rate up to now. \param f the flow */
    void Progress(Flow& f);
    /**
     * \brief A flow's path is down: it stops until a timeout finds a path.
     * \param flow its index \param attached true if it is on its links
     */
    void Stall(uint32_t flow, bool attached);
    /** \return the NIC with an address, null if none \param address the address */
    RoceNetDevice* NicOf(Ipv4Address address);
    /**
     * \brief Walk a queue pair's data and ACK paths again with the current routes.
     * \param qp the sender state
     * \return false (paths unchanged) if either has a link down or no route
     */
    bool Rewalk(uint32_t qp);
    /** \brief A stalled queue pair's retransmission timeout. \param qp the sender state */
    void RetransmitTimeout(uint32_t qp);
    /** \brief Put a stalled queue pair's flow on its (new) paths. \param qp the sender state */
    void Resume(uint32_t qp);
    /** \brief Mark a link as changed and make sure a computation is pending. */
    void Touch(uint32_t link);
    /**
     * \brief Settle what changed since the last computation: by the fast
     * path if it applies, else by recomputing the rates of the flows
     * connected to the changed links.
     */
    void Reshare();
    /**
     * \brief The fast path: the removed flows' neighbours all keep a
     * bottleneck, and each new flow can take its path's free capacity with a
     * bottleneck of its own. Then those are the max-min rates, and no other
     * flow's rate changes.
     * \return true if it applied (the new flows have their rates)
     */
    bool TryFast();
    /**
     * \brief Settle the queue pairs whose message ended and whose next one
     * started on the same links with the same weights in this change: the
     * new flow takes the old one's rate, and both leave the change.
     * \return true if nothing else changed (the change is settled)
     */
    bool Replace();
    /** \brief Forget the flows taken off since the last computation. */
    void ClearRemoved();
    /** \return the weight a flow loads its ACKs' links by \param f the flow */
    static double AckWeight(const Flow& f);
    /**
     * \brief The local solve: max-min rates for the flows around the change
     * with the others fixed, grown until every flow whose bottleneck could
     * have changed still has one (then they are the max-min rates).
     * \return true if it settled within its bounds (rates set, old ones in oldRate)
     */
    bool SolveLocal();
    /** \brief Fill m_compLinks and m_compFlows with what is connected to the changed links. */
    void Component();
    /** \brief Check a fast path's rates against a full computation (VerifyFastPath). */
    void Verify();
    /**
     * \brief A flow's rate was set: count its bytes up to now and move its end.
     * \param flow its index \param now the fluid time
     * \param sentAt the rate it sent at since it was last counted
     */
    void Restart(uint32_t flow, long double now, double sentAt);
    /** \brief A change was settled without a full computation: verify it and clear the lists. */
    void Settled();
    /**
     * \return a link, with its load and highest rates at the current rates
     *         measured (once per m_rateVersion) \param l the link
     */
    const Link& Measured(const Link& l) const;
    /** \return a link's load at the current rates */
    double LoadOf(const Link& l) const;
    /** \return the highest rate on a link of a flow other than except */
    double TopRateOn(const Link& l, uint32_t except) const;
    /** \return true if a flow has a full link on which no flow has a higher rate */
    bool HasBottleneck(uint32_t flow) const;
    /** \brief A flow's last byte left its sender. \param flow its index */
    void Finish(uint32_t flow);
    /** \return the fluid time now, seconds */
    long double Now() const;
    /** \return the delay from now to fluid time t, rounded up to the resolution */
    Time Until(long double t) const;

    std::vector<Link> m_links;
    std::vector<Flow> m_flows;
    std::vector<uint32_t> m_freeFlows;
    std::vector<QpState> m_qps;
    std::unordered_map<const RocePfcNetDevice*, uint32_t> m_linkIndex;
    std::unordered_map<const RoceQueuePair*, uint32_t> m_qpIndex;
    std::unordered_map<uint32_t, RoceNetDevice*> m_nicByAddress; //!< NicOf's index
    static constexpr int64_t IDLE = -1;                          //!< QpState::current: no message
    static constexpr int64_t STARTING = -2; //!< QpState::current: its next starts soon

    /** Relative tolerance of the fast path's comparisons (full, equal rates). */
    static constexpr double FAST_TIE = 1e-9;

    std::vector<uint32_t> m_dirty;
    std::vector<uint32_t> m_added;        //!< flows started since the last computation
    std::vector<uint32_t> m_removedLinks; //!< links of the flows ended since then

    /** A flow taken off its links since the last computation. */
    struct Removed
    {
        uint32_t qp;      //!< its queue pair's state
        double rate;      //!< its rate
        double ackWeight; //!< its ACKs' weight
        uint32_t first;   //!< its first link's index in m_removedLinks
        uint32_t count;   //!< its links there
        bool replaceable; //!< its last byte left with a rate
    };

    std::vector<Removed> m_removed;    //!< flows taken off since then
    bool m_fastPath{true};             //!< FastPath attribute
    bool m_verify{false};              //!< VerifyFastPath attribute
    uint32_t m_localSkip{0};           //!< changes the local solve still sits out
    uint32_t m_localBackoff{0};        //!< how many it sat out after its last failure
    std::vector<uint32_t> m_compLinks; //!< scratch
    std::vector<uint32_t> m_compFlows; //!< scratch
    EventId m_reshare;
    bool m_resharePending{false};
    uint32_t m_epoch{0};
    uint64_t m_rateVersion{1}; //!< raised before checks that follow a change of rates
    uint32_t m_active{0};
    long double m_ticksPerSecond;
    Stats m_stats;
};

} // namespace ns3

#endif /* ROCE_FLOW_ENGINE_H */
