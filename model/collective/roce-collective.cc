/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-collective.h"

#include "ns3/log.h"
#include "ns3/roce-error.h"
#include "ns3/roce-simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCollective");
NS_OBJECT_ENSURE_REGISTERED(RoceCollective);

namespace
{

/** Field widths of a ring chunk's tag: channel 8, position 16, step 16, chunk 16 bits. */
constexpr uint32_t FIELD = 0xFFFF;

uint64_t
RingTag(uint32_t channel, uint32_t position, uint32_t step, uint32_t chunk)
{
    return (uint64_t(channel) << 48) | (uint64_t(position) << 32) | (uint64_t(step) << 16) | chunk;
}

} // namespace

TypeId
RoceCollective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceCollective")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceCollective>()
            .AddAttribute("Channels",
                          "Rings the data is split over (NCCL channels); fewer are used when the "
                          "size gives less than one byte per rank and channel",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RoceCollective::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("ChunkSize",
                          "Largest message a step moves: a channel's slice is cut into chunks of "
                          "at most this many bytes (NCCL's 4 MiB buffer over 8 steps)",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&RoceCollective::m_chunkSize),
                          MakeUintegerChecker<uint64_t>(1024))
            .AddAttribute("Steps",
                          "Chunks of one ring edge in flight at most (NCCL_STEPS)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RoceCollective::m_steps),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("Root",
                          "Rank Broadcast sends from",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceCollective::m_root),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RoceCollective::RoceCollective()
    : m_channels(8),
      m_chunkSize(512 * 1024),
      m_steps(8),
      m_root(0)
{
    m_ringArrived = MakeCallback(&RoceCollective::RingArrived, this);
    m_directArrived = MakeCallback(&RoceCollective::DirectArrived, this);
    m_scheduleArrived = MakeCallback(&RoceCollective::ScheduleArrived, this);
}

RoceCollective::~RoceCollective() = default;

void
RoceCollective::DoDispose()
{
    m_comm = nullptr;
    m_rings.clear();
    m_schedule.Clear();
    m_done = Callback<void>();
    m_rankDone = Callback<void, uint32_t>();
    Object::DoDispose();
}

void
RoceCollective::SetCommunicator(Ptr<RoceCommunicator> comm)
{
    m_comm = comm;
    if (comm)
    {
        // Every process registers the sinks in the same order (when objects are built).
        m_ringSink = comm->AddSink(MakeCallback(&RoceCollective::RingReceived, this),
                                   MakeCallback(&RoceCollective::RingSent, this));
        m_directSink = comm->AddSink(MakeCallback(&RoceCollective::DirectReceived, this),
                                     MakeCallback(&RoceCollective::DirectSent, this));
        m_scheduleSink = comm->AddSink(MakeCallback(&RoceCollective::ScheduleReceived, this),
                                       MakeCallback(&RoceCollective::ScheduleSent, this));
    }
}

void
RoceCollective::SetRankDoneCallback(Callback<void, uint32_t> rankDone)
{
    m_rankDone = rankDone;
}

Ptr<RoceCommunicator>
RoceCollective::GetCommunicator() const
{
    return m_comm;
}

RoceCollective::Op
RoceCollective::OpByName(const std::string& name)
{
    for (Op op :
         {ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, BROADCAST, SEND_RECV, ALL_TO_ALLV})
    {
        if (GetOpName(op) == name)
        {
            return op;
        }
    }
    ROCE_ERROR("RoceCollective: unknown operation '"
               << name
               << "' (known: allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv, "
                  "alltoallv)");
    return ALL_REDUCE;
}

std::string
RoceCollective::GetOpName(Op op)
{
    switch (op)
    {
    case ALL_REDUCE:
        return "allreduce";
    case ALL_GATHER:
        return "allgather";
    case REDUCE_SCATTER:
        return "reducescatter";
    case ALL_TO_ALL:
        return "alltoall";
    case BROADCAST:
        return "broadcast";
    case SEND_RECV:
        return "sendrecv";
    case ALL_TO_ALLV:
        return "alltoallv";
    }
    return "?";
}

RoceCollective::Algorithm
RoceCollective::AlgorithmByName(const std::string& name)
{
    for (Algorithm a : {RING, DIRECT, TREE, HALVING_DOUBLING, HIERARCHICAL})
    {
        if (GetAlgorithmName(a) == name)
        {
            return a;
        }
    }
    ROCE_ERROR("RoceCollective: unknown algorithm '" << name
                                                     << "' (known: ring, direct, tree, hd, hier)");
    return RING;
}

std::string
RoceCollective::GetAlgorithmName(Algorithm algo)
{
    switch (algo)
    {
    case RING:
        return "ring";
    case DIRECT:
        return "direct";
    case TREE:
        return "tree";
    case HALVING_DOUBLING:
        return "hd";
    case HIERARCHICAL:
        return "hier";
    }
    return "?";
}

bool
RoceCollective::HasAlgorithm(Op op, Algorithm algo)
{
    const bool direct = op == ALL_TO_ALL || op == SEND_RECV || op == ALL_TO_ALLV;
    switch (algo)
    {
    case RING:
        return !direct;
    case DIRECT:
        return direct;
    case TREE:
        return op == ALL_REDUCE || op == BROADCAST;
    default:
        return op == ALL_REDUCE;
    }
}

RoceCollective::Algorithm
RoceCollective::DefaultAlgorithm(Op op)
{
    return op == ALL_TO_ALL || op == SEND_RECV || op == ALL_TO_ALLV ? DIRECT : RING;
}

std::string
RoceCollective::GetAlgorithmTable()
{
    return "allreduce: ring, tree, hd, hier; broadcast: ring, tree; allgather, "
           "reducescatter: ring; alltoall, alltoallv, sendrecv: direct";
}

double
RoceCollective::BusBandwidthFactor(Op op, uint32_t ranks)
{
    const double p = ranks;
    switch (op)
    {
    case ALL_REDUCE:
        return 2 * (p - 1) / p;
    case BROADCAST:
    case SEND_RECV:
        return 1;
    default:
        return (p - 1) / p;
    }
}

bool
RoceCollective::IsRunning() const
{
    return m_running;
}

Time
RoceCollective::GetStartTime() const
{
    return m_start;
}

Time
RoceCollective::GetFinishTime() const
{
    return m_finish;
}

Time
RoceCollective::GetRankFinishTime(uint32_t r) const
{
    return m_rankFinish.at(r);
}

void
RoceCollective::Start(Op op, Algorithm algo, uint64_t bytes, Callback<void> done)
{
    ROCE_ERROR_IF(!m_comm, "RoceCollective::Start: no communicator");
    const std::string name = GetOpName(op);
    ROCE_ERROR_IF(m_running,
                  "RoceCollective::Start: " << name << " of size " << bytes << " while the "
                                            << GetOpName(m_op) << " of size " << m_bytes
                                            << " started at " << m_start.As(Time::US)
                                            << " is still running (one operation at a time)");
    const uint32_t p = m_comm->GetNRanks();
    ROCE_ERROR_IF(p == 0, "RoceCollective::Start: the communicator has no ranks");
    ROCE_ERROR_IF(!HasAlgorithm(op, algo),
                  "RoceCollective: " << name << " has no " << GetAlgorithmName(algo)
                                     << " algorithm (" << GetAlgorithmTable() << ")");
    ROCE_ERROR_IF(algo == HALVING_DOUBLING && (p & (p - 1)) != 0,
                  "RoceCollective: hd needs a power-of-two number of ranks (partners at "
                  "distance p/2, p/4, ..., 1), not "
                      << p);
    for (uint32_t s = 1; algo == HIERARCHICAL && s < m_comm->GetNServers(); ++s)
    {
        ROCE_ERROR_IF(m_comm->GetServerRanks(s).size() != m_comm->GetServerRanks(0).size(),
                      "RoceCollective: hier needs every server to hold the same number of "
                      "ranks (one rail ring per local index), but server "
                          << s << " holds " << m_comm->GetServerRanks(s).size() << " and server 0 "
                          << m_comm->GetServerRanks(0).size());
    }
    ROCE_ERROR_IF(bytes == 0, "RoceCollective: " << name << " size 0 (must be > 0)");
    ROCE_ERROR_IF(op == ALL_REDUCE && bytes < p,
                  "RoceCollective: allreduce size " << bytes << " is less than the " << p
                                                    << " ranks (a ring needs a byte per rank)");
    ROCE_ERROR_IF((op == ALL_GATHER || op == REDUCE_SCATTER || op == ALL_TO_ALL) && bytes % p != 0,
                  "RoceCollective: " << name << " size " << bytes << " is not a multiple of the "
                                     << p << " ranks (each rank's share is size / ranks)");
    ROCE_ERROR_IF(op == BROADCAST && m_root >= p,
                  "RoceCollective: Root=" << m_root << " is not a rank (" << p << " ranks)");
    ROCE_ERROR_IF(op == ALL_TO_ALLV && m_matrix.size() != p,
                  "RoceCollective: alltoallv needs its sizes per pair (StartAllToAllv)");
    m_op = op;
    m_algo = algo;
    m_bytes = bytes;
    m_done = done;
    m_running = true;
    m_start = RoceNow();
    m_finish = m_start;
    m_sendsLeft.assign(p, 0);
    m_recvsLeft.assign(p, 0);
    m_rankFinish.assign(p, Time(-1));
    m_rankLast.assign(p, Time(0));
    m_ranksLeft = p;
    StartDistributed(p);
    if (p > 1)
    {
        if (algo == RING)
        {
            StartRing();
        }
        else if (algo == DIRECT)
        {
            StartDirect();
        }
        else
        {
            // As the ring: at most one channel per byte of a rank's share.
            const uint64_t perRank = op == BROADCAST ? bytes : bytes / p;
            StartSchedule(std::max<uint64_t>(1, std::min<uint64_t>(m_channels, perRank)));
        }
    }
    // Ranks with nothing to do (one rank) finish now, after Start returns.
    Simulator::ScheduleNow([this, p]() {
        for (uint32_t r = 0; r < p; ++r)
        {
            CheckRank(r);
        }
        if (m_distributed && m_running && m_ranksLeft == 0)
        {
            // None of the ranks runs in this process.
            m_running = false;
            if (!m_done.IsNull())
            {
                m_done();
            }
        }
    });
}

void
RoceCollective::StartAllToAllv(const std::vector<std::vector<uint64_t>>& bytes, Callback<void> done)
{
    ROCE_ERROR_IF(!m_comm, "RoceCollective::StartAllToAllv: no communicator");
    const uint32_t p = m_comm->GetNRanks();
    ROCE_ERROR_IF(bytes.size() != p,
                  "RoceCollective: alltoallv sizes have " << bytes.size() << " rows for " << p
                                                          << " ranks");
    uint64_t total = 0;
    for (uint32_t r = 0; r < p; ++r)
    {
        ROCE_ERROR_IF(bytes[r].size() != p,
                      "RoceCollective: alltoallv sizes row " << r << " has " << bytes[r].size()
                                                             << " entries for " << p << " ranks");
        for (uint32_t j = 0; j < p; ++j)
        {
            total += j != r ? bytes[r][j] : 0;
        }
    }
    ROCE_ERROR_IF(total == 0, "RoceCollective: alltoallv of size 0 (every pair sends 0)");
    m_matrix = bytes;
    // Reported S: the mean bytes a rank sends (at least 1).
    Start(ALL_TO_ALLV, DIRECT, std::max<uint64_t>(1, total / p), done);
}

void
RoceCollective::BuildRings(uint32_t channels)
{
    m_rings.assign(channels, Ring());
    for (uint32_t c = 0; c < channels; ++c)
    {
        std::vector<uint32_t> order;
        std::vector<uint32_t> entry; // per position: the rank that entered its server
        for (uint32_t s = 0; s < m_comm->GetNServers(); ++s)
        {
            const std::vector<uint32_t>& local = m_comm->GetServerRanks(s);
            const uint32_t m = local.size();
            for (uint32_t i = 0; i < m; ++i)
            {
                order.push_back(local[(c % m + i) % m]);
                entry.push_back(local[c % m]);
            }
        }
        const uint32_t p = order.size();
        Ring& ring = m_rings[c];
        ring.nodes.resize(p);
        for (uint32_t q = 0; q < p; ++q)
        {
            RingNode& n = ring.nodes[q];
            n.rank = order[q];
            n.next = order[(q + 1) % p];
            if (m_comm->SameDomain(n.rank, n.next))
            {
                continue;
            }
            const bool leaves = m_comm->GetRank(n.rank).server != m_comm->GetRank(n.next).server;
            // Between servers the channel's rail NIC carries the data: the
            // one of the rank that entered this server, into the next
            // server's entry rank.
            n.srcNic = m_comm->GetRank(leaves ? entry[q] : n.rank).nic;
            n.dstNic = m_comm->GetRank(n.next).nic;
        }
    }
}

uint64_t
RoceCollective::ChunkBytes(uint32_t c, uint32_t s, uint32_t k) const
{
    const Ring& ring = m_rings[c];
    const uint64_t p = ring.nodes.size();
    const uint64_t slice =
        m_op == BROADCAST ? ring.bytes : ring.bytes / p + (s < ring.bytes % p ? 1 : 0);
    return slice / ring.chunks + (k < slice % ring.chunks ? 1 : 0);
}

void
RoceCollective::StartRing()
{
    const uint32_t p = m_comm->GetNRanks();
    // At least one byte per rank and channel.
    const uint64_t perRank = m_op == BROADCAST ? m_bytes : m_bytes / p;
    const uint32_t channels = std::max<uint64_t>(1, std::min<uint64_t>(m_channels, perRank));
    ROCE_ERROR_IF(p > FIELD, "RoceCollective: " << p << " ranks (at most " << FIELD << ")");
    BuildRings(channels);
    ConnectRings();
    m_ringSteps = m_op == ALL_REDUCE ? 2 * (p - 1) : p - 1;
    for (uint32_t c = 0; c < channels; ++c)
    {
        Ring& ring = m_rings[c];
        ring.bytes = m_bytes / channels + (c < m_bytes % channels ? 1 : 0);
        const uint64_t sliceMax = m_op == BROADCAST ? ring.bytes : (ring.bytes + p - 1) / p;
        const uint64_t chunks = (sliceMax + m_chunkSize - 1) / m_chunkSize;
        ROCE_ERROR_IF(chunks > FIELD,
                      "RoceCollective: " << chunks << " chunks per slice (at most " << FIELD
                                         << "): raise ChunkSize=" << m_chunkSize);
        ring.chunks = chunks;
        if (m_op == BROADCAST)
        {
            // The root's position in this channel's ring; every chunk goes p - 1 hops.
            uint32_t rootPos = 0;
            for (uint32_t q = 0; q < p; ++q)
            {
                rootPos = ring.nodes[q].rank == m_root ? q : rootPos;
            }
            for (uint32_t h = 0; h < p; ++h)
            {
                const uint32_t rank = ring.nodes[(rootPos + h) % p].rank;
                m_sendsLeft[rank] += h + 1 < p ? chunks : 0;
                m_recvsLeft[rank] += h > 0 ? chunks : 0;
            }
            for (uint32_t k = 0; k < chunks; ++k)
            {
                ring.nodes[rootPos].ready.push_back(k);
            }
            continue;
        }
        for (uint32_t q = 0; q < p; ++q)
        {
            const uint32_t rank = ring.nodes[q].rank;
            m_sendsLeft[rank] += uint64_t(m_ringSteps) * chunks;
            m_recvsLeft[rank] += uint64_t(m_ringSteps) * chunks;
            for (uint32_t k = 0; k < chunks; ++k)
            {
                ring.nodes[q].ready.push_back(k); // step 0
            }
        }
    }
    for (uint32_t c = 0; c < channels; ++c)
    {
        for (uint32_t q = 0; q < p; ++q)
        {
            Pump(c, q);
        }
    }
}

void
RoceCollective::Pump(uint32_t c, uint32_t q)
{
    Ring& ring = m_rings[c];
    RingNode& n = ring.nodes[q];
    const uint32_t p = ring.nodes.size();
    if (m_distributed && !m_local[n.rank])
    {
        return;
    }
    while (n.inFlight < m_steps && !n.ready.empty())
    {
        const uint64_t item = n.ready.front();
        n.ready.pop_front();
        const uint32_t step = item >> 32;
        const uint32_t k = item & 0xFFFFFFFF;
        // At step t position q sends slice (q - t) mod p (Broadcast: the chunk of S_c).
        const uint32_t slice = (q + uint64_t(p) * m_ringSteps - step) % p;
        ++n.inFlight;
        Post(n.rank,
             n.next,
             n.srcNic,
             n.dstNic,
             ChunkBytes(c, slice, k),
             RingTag(c, (q + 1) % p, step, k),
             m_ringSink,
             m_ringArrived);
    }
}

RoceCollective::RingChunk
RoceCollective::DecodeRingTag(uint64_t tag)
{
    return RingChunk{uint32_t(tag >> 48),
                     uint32_t((tag >> 32) & FIELD),
                     uint32_t((tag >> 16) & FIELD),
                     uint32_t(tag & FIELD)};
}

bool
RoceCollective::RingForwards(const RingChunk& x) const
{
    const Ring& ring = m_rings[x.c];
    const uint32_t p = ring.nodes.size();
    // Broadcast: a chunk goes on until the position before the root.
    return m_op == BROADCAST ? ring.nodes[(x.q + 1) % p].rank != m_root : x.step + 1 < m_ringSteps;
}

void
RoceCollective::RingArrived(uint64_t tag)
{
    const RingChunk x = DecodeRingTag(tag);
    const uint32_t c = x.c;
    const uint32_t q = x.q;
    Ring& ring = m_rings[c];
    const uint32_t p = ring.nodes.size();
    const uint32_t from = (q + p - 1) % p;
    --ring.nodes[from].inFlight;
    const bool forward = RingForwards(x);
    if (forward)
    {
        ring.nodes[q].ready.push_back((uint64_t(x.step + 1) << 32) | x.k);
    }
    Account(ring.nodes[from].rank, ring.nodes[q].rank);
    Pump(c, from);
    if (forward)
    {
        Pump(c, q);
    }
}

void
RoceCollective::StartDirect()
{
    const uint32_t p = m_comm->GetNRanks();
    // AllToAll: S/p to each of the p - 1 others; SendRecv: S to the next
    // rank; AllToAllv: its matrix.
    auto pairBytes = [this, p](uint32_t r, uint32_t j) -> uint64_t {
        switch (m_op)
        {
        case SEND_RECV:
            return j == (r + 1) % p ? m_bytes : 0;
        case ALL_TO_ALLV:
            return m_matrix[r][j];
        default:
            return m_bytes / p;
        }
    };
    auto chunksOf = [this](uint64_t b) { return (b + m_chunkSize - 1) / m_chunkSize; };
    uint64_t maxChunks = 0;
    for (uint32_t r = 0; r < p; ++r)
    {
        for (uint32_t i = 1; i < p; ++i)
        {
            const uint32_t j = (r + i) % p;
            const uint64_t k = chunksOf(pairBytes(r, j));
            m_sendsLeft[r] += k;
            m_recvsLeft[j] += k;
            maxChunks = std::max(maxChunks, k);
        }
    }
    // Peers in the order r + 1, r + 2, ..., so that at any moment every rank
    // sends to a different one.
    for (uint32_t i = 1; m_distributed && i < p; ++i)
    {
        for (uint32_t r = 0; r < p; ++r)
        {
            const uint32_t j = (r + i) % p;
            if (pairBytes(r, j) > 0 && !m_comm->SameDomain(r, j))
            {
                m_comm->Connect(m_comm->GetRank(r).nic, m_comm->GetRank(j).nic);
            }
        }
    }
    for (uint64_t k = 0; k < maxChunks; ++k)
    {
        for (uint32_t i = 1; i < p; ++i)
        {
            for (uint32_t r = 0; r < p; ++r)
            {
                const uint32_t j = (r + i) % p;
                const uint64_t per = pairBytes(r, j);
                const uint64_t chunks = chunksOf(per);
                if (k >= chunks || (m_distributed && !m_local[r]))
                {
                    continue;
                }
                Post(r,
                     j,
                     m_comm->GetRank(r).nic,
                     m_comm->GetRank(j).nic,
                     per / chunks + (k < per % chunks ? 1 : 0),
                     (uint64_t(r) << 32) | j,
                     m_directSink,
                     m_directArrived);
            }
        }
    }
}

void
RoceCollective::DirectArrived(uint64_t tag)
{
    Account(tag >> 32, tag & 0xFFFFFFFF);
}

void
RoceCollective::StartSchedule(uint32_t channels)
{
    RoceCollectiveSchedule::Params params;
    params.bytes = m_bytes;
    params.channels = channels;
    params.chunkSize = m_chunkSize;
    params.broadcast = m_op == BROADCAST;
    params.root = m_root;
    m_schedule.Clear();
    switch (m_algo)
    {
    case TREE:
        RoceCollectiveBuildTree(*m_comm, params, m_schedule);
        break;
    case HALVING_DOUBLING:
        RoceCollectiveBuildHalvingDoubling(*m_comm, params, m_schedule);
        break;
    default:
        RoceCollectiveBuildHierarchical(*m_comm, params, m_schedule);
    }
    m_schedule.Finalize();
    ConnectSchedule();
    const uint32_t n = m_schedule.GetN();
    for (uint32_t i = 0; i < n; ++i)
    {
        const RoceCollectiveSchedule::Transfer& x = m_schedule.Get(i);
        m_sendsLeft[x.src] += x.bytes > 0 ? 1 : 0;
        m_recvsLeft[x.dst] += x.bytes > 0 ? 1 : 0;
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        RoceCollectiveSchedule::Transfer& x = m_schedule.Get(i);
        if (x.waiting > 0)
        {
            continue;
        }
        if (x.bytes == 0)
        {
            Release(i);
            continue;
        }
        m_schedule.GetLane(x.lane).ready.push_back(i);
        PumpLane(x.lane);
    }
}

void
RoceCollective::Release(uint32_t i)
{
    // Iterative, since empty transfers release others at once.
    m_released.assign(1, i);
    while (!m_released.empty())
    {
        const uint32_t j = m_released.back();
        m_released.pop_back();
        const auto succ = m_schedule.Successors(j);
        for (const uint32_t* it = succ.first; it != succ.second; ++it)
        {
            RoceCollectiveSchedule::Transfer& x = m_schedule.Get(*it);
            NS_ASSERT(x.waiting > 0);
            if (--x.waiting > 0)
            {
                continue;
            }
            if (x.bytes == 0)
            {
                m_released.push_back(*it);
                continue;
            }
            m_schedule.GetLane(x.lane).ready.push_back(*it);
            PumpLane(x.lane);
        }
    }
}

void
RoceCollective::PumpLane(uint32_t l)
{
    RoceCollectiveSchedule::Lane& lane = m_schedule.GetLane(l);
    if (m_distributed && !lane.ready.empty() && !m_local[m_schedule.Get(lane.ready.front()).src])
    {
        return;
    }
    while (lane.inFlight < m_steps && !lane.ready.empty())
    {
        const uint32_t i = lane.ready.front();
        lane.ready.pop_front();
        ++lane.inFlight;
        const RoceCollectiveSchedule::Transfer& x = m_schedule.Get(i);
        Post(x.src,
             x.dst,
             m_comm->GetRank(x.src).nic,
             m_comm->GetRank(x.dst).nic,
             x.bytes,
             i,
             m_scheduleSink,
             m_scheduleArrived);
    }
}

void
RoceCollective::ScheduleArrived(uint64_t tag)
{
    const uint32_t i = tag;
    const RoceCollectiveSchedule::Transfer x = m_schedule.Get(i);
    --m_schedule.GetLane(x.lane).inFlight;
    Release(i);
    PumpLane(x.lane);
    // Last, as the operation's done callback may start the next one.
    Account(x.src, x.dst);
}

void
RoceCollective::Account(uint32_t sender, uint32_t receiver)
{
    NS_ASSERT(m_sendsLeft[sender] > 0 && m_recvsLeft[receiver] > 0);
    --m_sendsLeft[sender];
    --m_recvsLeft[receiver];
    CheckRank(sender);
    CheckRank(receiver);
}

void
RoceCollective::Post(uint32_t src,
                     uint32_t dst,
                     const Ptr<NetDevice>& srcNic,
                     const Ptr<NetDevice>& dstNic,
                     uint64_t bytes,
                     uint64_t tag,
                     uint32_t sink,
                     const RoceCommunicator::ArrivalCallback& arrived)
{
    if (m_distributed)
    {
        m_comm->Send(src, dst, srcNic, dstNic, bytes, tag, sink);
        return;
    }
    m_comm->Send(src, dst, srcNic, dstNic, bytes, tag, arrived);
}

void
RoceCollective::CheckRank(uint32_t r)
{
    if (!m_running || m_sendsLeft[r] > 0 || m_recvsLeft[r] > 0 || m_rankFinish[r] >= Time(0) ||
        (m_distributed && !m_local[r]))
    {
        return;
    }
    // Distributed: the last arrival, which a notice reports after the fact.
    m_rankFinish[r] = m_distributed ? m_rankLast[r] : RoceNow();
    m_finish = std::max(m_finish, m_rankFinish[r]);
    const bool last = --m_ranksLeft == 0;
    if (last)
    {
        m_running = false;
    }
    if (!m_rankDone.IsNull())
    {
        m_rankDone(r);
    }
    if (last)
    {
        if (!m_done.IsNull())
        {
            m_done();
        }
    }
}

} // namespace ns3
