/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_COMMUNICATOR_H
#define ROCE_COMMUNICATOR_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/roce-fifo.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-nvlink-domain.h"
#include "ns3/roce-queue-pair.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The ranks of a collective job and the transport between them.
 *
 * A communicator is an ordered list of GPUs (ranks), each with its RoCE NIC
 * and, when its server has one, its server's scale-up domain
 * (RoceNvlinkDomain) and index in it. Collectives (RoceCollective) move data
 * with one call, Send(src, dst, srcNic, dstNic, bytes, tag, arrived):
 *
 * - between two ranks of one scale-up domain, as a copy in that domain;
 * - otherwise as RDMA WRITEs from srcNic to dstNic over a *connection*: the
 *   QpsPerConnection RC queue pairs between those two NICs, made on first
 *   use (each with its own UDP source port, so ECMP can spread them, as
 *   NCCL_IB_QPS_PER_CONNECTION does). QpMode "split" cuts every message into
 *   one piece per QP; "rr" sends whole messages round-robin over the QPs.
 *
 * *Receiver-driven admission* (ClearToSend, Meta's clear-to-send): the
 * receiving NIC grants each message with a CtsBytes SEND on priority
 * CtsPriority, over a QP of its own towards the sender, and the sender
 * posts the WRITE when the grant arrives. A receiving NIC grants while it
 * has fewer than CtsGrants messages and CtsWindow bytes granted and not yet
 * arrived; the others wait in the order they were sent. A 16:1 incast of
 * 512 KiB chunks then has at most 4 writes (2 MiB) on the receiver's link
 * instead of 16, and a pipeline of small chunks still has a
 * bandwidth-delay product in flight.
 *
 * With CtsAhead (the default), a receiving NIC also grants ahead, as a
 * collective library's receiver does when buffer slots free: when a
 * message arrives and no other message waits, the receiver grants that
 * connection's next messages at once, as many as CtsGrants leaves. The
 * sender holds the grants and posts its next messages without a grant
 * round trip, so a pipeline of chunks (a ring's steps) pays the round trip
 * once rather than per chunk. A held grant counts against CtsGrants; when another
 * sender's message waits and none is left, the receiver takes back an
 * unused held grant. Without CtsAhead every message waits for its own
 * grant, sent when the sender has the message.
 *
 * *Distributed* (RoceMpiHelper::Enable sets it): the communicator behaves
 * alike whether its ranks run in one process or on several MPI ranks
 * (RoceRankCall). Connect() makes the connections an operation uses before
 * it starts, in the operation's order, so queue pair numbers (and UDP
 * ports, hence ECMP paths) do not depend on which rank sends first. A
 * message to a NIC on another rank is described to that rank (its size,
 * tag and sink, RoceRankCall::Deliver) as it is posted, and only the
 * receiver keeps it. A *sink* (AddSink) splits a message's completion: its
 * receiver part runs when the last byte arrives; its sender part runs on
 * the sender's node NotifyDelay later (at once within a node), as the
 * credit a receiving collective library writes back to the sender, with
 * the arrival time. ClearToSend, whose admission state the sender and the
 * receiver share, is refused in this mode.
 *
 * `arrived(tag)` runs when the last byte is at the destination: the
 * receiving QP's MessageReceived (pieces counted per message) or the
 * domain's delivery. A QP delivers in order, so each QP keeps a FIFO of the
 * messages posted on it. The communicator counts bytes sent and received per
 * rank, over NICs and over the scale-up domain.
 */
class RoceCommunicator : public Object
{
  public:
    /** How a connection's messages use its QPs. */
    enum QpMode
    {
        SPLIT,       //!< every message cut into one piece per QP
        ROUND_ROBIN, //!< whole messages rotate over the QPs
    };

    /** One rank. */
    struct Rank
    {
        Ptr<NetDevice> nic;           //!< its RoCE NIC (or, on an MPI rank that does not run it,
                                      //!< the RoceAbsentDevice that stands in for it)
        Ptr<RoceNvlinkDomain> nvlink; //!< its server's scale-up domain, or nullptr
        uint32_t localGpu{0};         //!< its index in the domain
        uint32_t server{0};           //!< its server, numbered in order of first rank
        uint32_t node{0};             //!< its NIC's node id
    };

    /** Called with the tag of a message when it has arrived. */
    typedef Callback<void, uint64_t> ArrivalCallback;
    /** Called on the sender's node with a message's tag and the time it arrived. */
    typedef Callback<void, uint64_t, Time> SentCallback;

    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceCommunicator();
    ~RoceCommunicator() override;

    /**
     * \brief Append a rank.
     * \param nic its NIC: a RoceNetDevice, or across MPI ranks the
     *        RoceAbsentDevice that stands in for a NIC of another rank
     *        (RoceAiZone::nics holds either)
     * \param nvlink its server's scale-up domain, or nullptr
     * \param localGpu its index in the domain
     * \return the rank number
     */
    uint32_t AddRank(Ptr<NetDevice> nic, Ptr<RoceNvlinkDomain> nvlink, uint32_t localGpu);
    /** \return the number of ranks */
    uint32_t GetNRanks() const;
    /** \param r a rank \return it */
    const Rank& GetRank(uint32_t r) const;
    /** \return the number of servers the ranks are on */
    uint32_t GetNServers() const;
    /** \param s a server \return its ranks, in rank order */
    const std::vector<uint32_t>& GetServerRanks(uint32_t s) const;
    /** \param a a rank \param b another \return true if a copy between them uses the scale-up
     * domain */
    bool SameDomain(uint32_t a, uint32_t b) const;

    /**
     * \brief Set an attribute of the queue pairs connections make.
     * \param name attribute \param value value
     */
    void SetQpAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Move bytes from rank src to rank dst.
     * \param src sending rank \param dst receiving rank
     * \param srcNic NIC the data leaves by (unused within a domain)
     * \param dstNic NIC the data arrives at (unused within a domain)
     * \param bytes size (> 0)
     * \param tag passed back to arrived
     * \param arrived called when the last byte is at dst
     */
    void Send(uint32_t src,
              uint32_t dst,
              Ptr<NetDevice> srcNic,
              Ptr<NetDevice> dstNic,
              uint64_t bytes,
              uint64_t tag,
              ArrivalCallback arrived);

    /**
     * \brief Register what a message's arrival does at its receiver and
     * its sender. Call in the same order on every MPI rank (when objects are
     * built), as RoceCollective does.
     * \param atReceiver run with the tag when the last byte arrives
     * \param atSender run on the sender's node with the tag and the arrival
     *        time: at once when not Distributed or within a node, else
     *        NotifyDelay after the arrival
     * \return the sink's number, for Send
     */
    uint32_t AddSink(ArrivalCallback atReceiver, SentCallback atSender);

    /**
     * \brief Move bytes from rank src to rank dst, completing at a sink.
     * \param src sending rank \param dst receiving rank
     * \param srcNic NIC the data leaves by \param dstNic NIC it arrives at
     * \param bytes size (> 0) \param tag passed to the sink
     * \param sink a number from AddSink
     */
    void Send(uint32_t src,
              uint32_t dst,
              Ptr<NetDevice> srcNic,
              Ptr<NetDevice> dstNic,
              uint64_t bytes,
              uint64_t tag,
              uint32_t sink);

    /**
     * \brief Make the connection from one NIC to another now (it is made on
     * first use otherwise). Distributed operations connect every pair they
     * use before they start.
     * \param a source NIC \param b destination NIC
     */
    void Connect(Ptr<NetDevice> a, Ptr<NetDevice> b);

    /** \return true in Distributed mode */
    bool IsDistributed() const;
    /**
     * \brief Check that Distributed mode can run here: no ClearToSend, and
     * a NotifyDelay beyond the MPI lookahead (RoceError otherwise).
     */
    void CheckDistributed() const;
    /** \param r a rank \return true if its node runs in this process */
    bool IsLocal(uint32_t r) const;

    /** \param r a rank \return bytes it sent (NIC and scale-up) */
    uint64_t GetBytesSent(uint32_t r) const;
    /** \param r a rank \return bytes that arrived for it */
    uint64_t GetBytesReceived(uint32_t r) const;
    /** \return bytes that crossed NICs, all ranks */
    uint64_t GetNicBytes() const;
    /** \return bytes copied in scale-up domains, all ranks */
    uint64_t GetScaleUpBytes() const;
    /** \return queue pairs made so far for data (both ends counted once) */
    uint32_t GetNQps() const;
    /** \return grants (CTS messages) sent */
    uint64_t GetNGrants() const;
    /** \brief Set the per-rank byte counters to 0. */
    void ResetCounters();

  private:
    void DoDispose() override;

    /** A message in flight on a connection. */
    struct Message
    {
        uint32_t dst;            //!< receiving rank
        uint64_t bytes;          //!< size
        uint64_t tag;            //!< passed back
        uint32_t piecesLeft;     //!< pieces not yet received
        ArrivalCallback arrived; //!< completion
        int64_t admission{-1};   //!< receiving NIC's admission queue (ClearToSend), or -1
        bool grant{false};       //!< a CTS, not data: counted nowhere
        uint32_t conn{0};        //!< the connection it is posted on
        uint32_t src{0};         //!< sending rank
        uint32_t sink{0};        //!< AddSink's number + 1, or 0
    };

    /** A message waiting for its receiver's grant. */
    struct Waiting
    {
        uint32_t conn;   //!< its data connection
        uint32_t cts;    //!< the connection grants come back on (receiver to sender)
        Message message; //!< what to post once granted
    };

    /** A receiving NIC's grants (ClearToSend). */
    struct Admission
    {
        RoceFifo<Waiting> waiting;  //!< in sending order
        uint32_t granted{0};        //!< granted and not yet arrived
        uint64_t grantedBytes{0};   //!< their bytes (grants ahead: as reserved)
        std::vector<uint32_t> held; //!< connections holding an unused grant ahead
    };

    /** The QPs between two NICs and what is in flight on them. */
    struct Connection
    {
        std::vector<Ptr<RoceQueuePair>> senders;        //!< on the source NIC
        std::vector<Ptr<RoceQueuePair>> receivers;      //!< on the destination NIC
        std::vector<RoceFifo<uint64_t>> fifo;           //!< per QP: message ids in posting order
        std::unordered_map<uint64_t, Message> messages; //!< in flight, by id
        uint64_t nextId{0};                             //!< next message id
        uint32_t nextQp{0};                             //!< round-robin cursor
        uint32_t receiver{0};    //!< the destination NIC's number (ClearToSend)
        uint32_t cts{0};         //!< the grant connection back to the source (ClearToSend)
        uint32_t held{0};        //!< grants ahead arrived and unused (ClearToSend)
        uint32_t ahead{0};       //!< grants ahead on their way (ClearToSend)
        uint64_t aheadBytes{0};  //!< bytes each grant ahead reserves (ClearToSend)
        RoceFifo<Message> early; //!< sent while grants ahead travel, at most ahead
        uint32_t dstNode{0};     //!< the destination NIC's node id
        bool remote{false};      //!< the destination NIC runs on another MPI rank
    };

    /** \return the NIC's small number */
    uint32_t NicNumber(Ptr<NetDevice> nic);
    /**
     * \return the index of the connection from one NIC to another (a grant
     * connection when cts), made on first use
     */
    uint32_t GetConnection(Ptr<NetDevice> a, Ptr<NetDevice> b, bool cts);
    /** \brief Send with a callback (sink 0) or a sink (its number + 1). */
    void SendMessage(uint32_t src,
                     uint32_t dst,
                     const Ptr<NetDevice>& srcNic,
                     const Ptr<NetDevice>& dstNic,
                     uint64_t bytes,
                     uint64_t tag,
                     ArrivalCallback arrived,
                     uint32_t sink);
    /** \brief Post a message on a connection (split or round-robin). */
    void Post(uint32_t conn, Message m);
    /** \brief Grant what a receiving NIC may take now. */
    void Grant(uint32_t nic);
    /** \param a a receiving NIC's grants \return whether it may grant no more now */
    bool Full(const Admission& a) const;
    /**
     * \brief Grant a connection's next messages ahead (CtsAhead).
     * \param conn data connection \param bytes size of the message that arrived
     */
    void GrantAhead(uint32_t conn, uint64_t bytes);
    /** \brief A grant ahead reached the sender. \param conn data connection */
    void AheadArrived(uint32_t conn);
    /** \brief A message arrived in full. */
    void Complete(Message& m);
    /** \brief A receiving QP got a whole message. */
    void QpMessage(uint32_t conn, uint32_t qp, uint64_t bytes, uint64_t msn);
    /** \brief A scale-up copy arrived. \param slot its entry in m_scaleUp */
    void ScaleUpArrived(uint64_t slot);
    /** \brief Account an arrival and call back (or run the sink). */
    void Arrive(uint32_t dst,
                uint64_t bytes,
                uint64_t tag,
                const ArrivalCallback& arrived,
                uint32_t src,
                uint32_t sink);
    /** \brief Handle a RoceRankCall: a message description or a sender's notice. */
    void Call(const std::vector<uint64_t>& words);
    /** \brief Post to a connection whose receiver is on another rank. */
    void PostRemote(uint32_t conn, const Message& m, uint64_t id, uint32_t q, uint32_t n);
    /** \brief Store a message description for this rank's receiving QPs. */
    void AddMessage(uint32_t conn, uint64_t id, Message m, uint32_t q, uint32_t n);

    /** A sink's two parts. */
    struct Sink
    {
        ArrivalCallback atReceiver; //!< at the receiver, on arrival
        SentCallback atSender;      //!< at the sender, notified
    };

    bool m_distributed{false};
    Time m_notifyDelay{MicroSeconds(2)};
    uint32_t m_service{0}; //!< this communicator's RoceRankCall service
    std::vector<Sink> m_sinks;

    uint32_t m_qpsPerConnection;
    QpMode m_qpMode;
    bool m_cts;
    uint32_t m_ctsBytes;
    uint8_t m_ctsPriority;
    uint32_t m_ctsGrants;
    uint64_t m_ctsWindow;
    bool m_ctsAhead;
    std::vector<Admission> m_admission; //!< by NIC number
    uint64_t m_ctsSent{0};
    ObjectFactory m_qpFactory;
    std::vector<Rank> m_ranks;
    std::vector<std::vector<uint32_t>> m_serverRanks;
    std::map<uint32_t, uint32_t> m_serverOfNode; //!< node id -> server
    std::vector<Connection> m_connections;
    std::unordered_map<uint64_t, uint32_t> m_connectionIndex;  //!< (cts, NIC a, NIC b) -> index
    uint32_t m_nDataConnections{0};                            //!< connections that carry data
    std::unordered_map<const NetDevice*, uint32_t> m_nicIndex; //!< NIC -> small number
    std::vector<uint64_t> m_sent;
    std::vector<uint64_t> m_received;
    uint64_t m_nicBytes{0};
    uint64_t m_scaleUpBytes{0};

    /** A scale-up copy in flight: what its arrival reports. */
    struct ScaleUpCopy
    {
        uint32_t dst;            //!< receiving rank
        uint64_t bytes;          //!< size
        uint64_t tag;            //!< the sender's tag
        ArrivalCallback arrived; //!< the sender's callback
        uint32_t src{0};         //!< sending rank
        uint32_t sink{0};        //!< AddSink's number + 1, or 0
    };

    std::vector<ScaleUpCopy> m_scaleUp;        //!< copies in flight, by slot
    std::vector<uint32_t> m_scaleUpFree;       //!< free slots of m_scaleUp
    Callback<void, uint64_t> m_scaleUpArrived; //!< ScaleUpArrived, made once
};

} // namespace ns3

#endif /* ROCE_COMMUNICATOR_H */
