/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-fct-stats.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-absent-device.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-error.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-rank-call.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <deque>
#include <iomanip>
#include <limits>
#include <sstream>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFctStats");
NS_OBJECT_ENSURE_REGISTERED(RoceFctStats);

namespace
{

/** Frame bytes of a data packet beyond its payload: Ethernet, IPv4, UDP, BTH, ICRC. */
constexpr uint32_t DATA_FRAME_OVERHEAD = RoceNetDevice::DATA_FRAME_OVERHEAD;
/** RETH, in the first packet of an RDMA WRITE. */
constexpr uint32_t RETH_BYTES = 16;
/** Frame bytes of an ACK: Ethernet, IPv4, UDP, BTH, AETH, ICRC. */
constexpr uint32_t ACK_FRAME_BYTES = 14 + 20 + 8 + 12 + 4 + 4;

/**
 * \param frame frame bytes without FCS
 * \param overhead the wire overhead (RoceFrameWireOverhead)
 * \return its bytes on the wire
 */
double
Wire(uint64_t frame, int32_t overhead)
{
    return static_cast<double>(RocePfcNetDevice::WireBytes(static_cast<uint32_t>(frame), overhead));
}

/**
 * \param sorted sorted values
 * \param p percentile 0..100
 * \return the nearest-rank percentile
 */
template <typename T>
T
NearestRank(const std::vector<T>& sorted, double p)
{
    if (sorted.empty())
    {
        return T();
    }
    double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
    std::size_t i = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
    return sorted[std::min(i, sorted.size() - 1)];
}

} // namespace

TypeId
RoceFctStats::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceFctStats")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceFctStats>()
            .AddAttribute("Distributed",
                          "Behave alike on any number of MPI ranks: each rank records the "
                          "flows that start on it, and the all-done callback runs on every "
                          "rank NotifyDelay after the last flow of the whole run "
                          "(RoceMpiHelper::Enable sets it)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceFctStats::m_distributed),
                          MakeBooleanChecker())
            .AddAttribute("NotifyDelay",
                          "Distributed: how long after a rank's last flow the other ranks "
                          "learn that it is done; must exceed the MPI lookahead (the smallest "
                          "delay of a link between ranks)",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&RoceFctStats::m_notifyDelay),
                          MakeTimeChecker(Time(0)));
    return tid;
}

RoceFctStats::RoceFctStats()
    : m_edges{3000, 12000, 48000, 192000, 768000, 3000000, 12000000}
{
    m_service = RoceRankCall::Register(MakeCallback(&RoceFctStats::Notice, this));
}

RoceFctStats::~RoceFctStats()
{
    // Also when never disposed: no notice may reach a deleted object.
    RoceRankCall::Unregister(m_service);
}

void
RoceFctStats::DoDispose()
{
    m_searches.clear();
    m_allDone = Callback<void>();
    RoceRankCall::Unregister(m_service);
    Object::DoDispose();
}

RoceFctStats::Search
RoceFctStats::SearchFrom(Ptr<RoceNetDevice> src)
{
    // Links are walked as RoceLinkEnd: a built link, or one that this MPI
    // rank stands in for (RoceAbsentDevice), which holds the same facts.
    Search s;
    s.via.assign(NodeList::GetNNodes(), nullptr);
    RoceLinkEnd first;
    ROCE_ERROR_IF(!RoceLinkEnd::Of(src, &first),
                  "RoceFctStats: NIC " << src->GetIpv4Address() << " has no link");
    std::deque<uint32_t> queue;
    uint32_t start = first.peerNode;
    s.via[start] = PeekPointer(src);
    queue.push_back(start);
    while (!queue.empty())
    {
        Ptr<Node> node = NodeList::GetNode(queue.front());
        queue.pop_front();
        bool host = false;
        for (uint32_t i = 0; i < node->GetNDevices() && !host; ++i)
        {
            host = RoceNetDevice::IsNic(node->GetDevice(i));
        }
        if (host)
        {
            continue; // hosts do not forward
        }
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            RoceLinkEnd end;
            if (!RoceLinkEnd::Of(node->GetDevice(i), &end))
            {
                continue;
            }
            if (!s.via[end.peerNode])
            {
                s.via[end.peerNode] = PeekPointer(node->GetDevice(i));
                queue.push_back(end.peerNode);
            }
        }
    }
    return s;
}

std::vector<RoceFctStats::Hop>
RoceFctStats::PathOf(const Search& search, Ptr<RoceNetDevice> src, Ptr<NetDevice> dst)
{
    // Last hop: the device at the other end of dst's link sends into dst.
    RoceLinkEnd last;
    ROCE_ERROR_IF(!RoceLinkEnd::Of(dst, &last),
                  "RoceFctStats: NIC " << RoceNetDevice::AddressOf(dst) << " has no link");
    std::vector<Hop> hops;
    NetDevice* tx = PeekPointer(NodeList::GetNode(last.peerNode)->GetDevice(last.peerIf));
    while (true)
    {
        RoceLinkEnd end;
        RoceLinkEnd::Of(tx, &end);
        hops.push_back({8.0 / static_cast<double>(end.rate.GetBitRate()),
                        8.0 / static_cast<double>(end.peerRate.GetBitRate()),
                        end.delay.GetSeconds()});
        if (tx == PeekPointer(src))
        {
            break;
        }
        uint32_t node = tx->GetNode()->GetId();
        NetDevice* into = node < search.via.size() ? search.via[node] : nullptr;
        ROCE_ERROR_IF(!into || hops.size() > search.via.size(),
                      "RoceFctStats: no path from NIC " << src->GetIpv4Address() << " to NIC "
                                                        << RoceNetDevice::AddressOf(dst));
        tx = into;
    }
    std::reverse(hops.begin(), hops.end());
    return hops;
}

Time
RoceFctStats::IdealOnPath(const std::vector<Hop>& hops,
                          uint32_t mtu,
                          int32_t overhead,
                          uint64_t bytes)
{
    const std::size_t h = hops.size();
    const uint64_t n = std::max<uint64_t>(1, (bytes + mtu - 1) / mtu);
    const uint64_t firstPayload = std::min<uint64_t>(bytes, mtu);
    const uint64_t lastPayload = bytes - (n - 1) * mtu;
    const double w1 = Wire(firstPayload + DATA_FRAME_OVERHEAD + RETH_BYTES, overhead);
    const double wm = Wire(mtu + DATA_FRAME_OVERHEAD, overhead);
    const double wn = Wire(lastPayload + DATA_FRAME_OVERHEAD, overhead);
    // prefix[i] = sum of t over hops [0, i)
    std::vector<double> prefix(h + 1, 0.0);
    double delays = 0;
    double ackTime = 0;
    for (std::size_t i = 0; i < h; ++i)
    {
        prefix[i + 1] = prefix[i] + hops[i].fwdSecondsPerByte;
        delays += hops[i].delay;
        ackTime += Wire(ACK_FRAME_BYTES, overhead) * hops[i].revSecondsPerByte;
    }
    double s = 0;
    if (n == 1)
    {
        s = w1 * prefix[h];
    }
    else
    {
        const double middles = static_cast<double>(n - 2);
        for (std::size_t p = 0; p < h; ++p)
        {
            double slowest = 0;
            for (std::size_t q = p; q < h; ++q)
            {
                slowest = std::max(slowest, hops[q].fwdSecondsPerByte);
                double path = w1 * prefix[p + 1] + wn * (prefix[h] - prefix[q]);
                if (n == 2)
                {
                    if (q != p)
                    {
                        break; // no middle packets: the path turns once
                    }
                }
                else
                {
                    path += wm * ((prefix[q + 1] - prefix[p]) + (middles - 1) * slowest);
                }
                s = std::max(s, path);
            }
        }
    }
    return Seconds(s + 2 * delays + ackTime);
}

Time
RoceFctStats::IdealFct(Ptr<RoceNetDevice> src, Ptr<NetDevice> dst, uint64_t bytes)
{
    ROCE_ERROR_IF(!src || !dst || src == dst, "RoceFctStats::IdealFct: needs two NICs");
    return IdealOnPath(PathOf(SearchFrom(src), src, dst),
                       src->GetPayloadMtu(),
                       src->GetWireOverhead(),
                       bytes);
}

Time
RoceFctStats::GetIdealFct(Ptr<RoceNetDevice> src, Ptr<NetDevice> dst, uint64_t bytes)
{
    ROCE_ERROR_IF(!src || !dst || src == dst, "RoceFctStats::GetIdealFct: needs two NICs");
    auto it = m_searches.find(PeekPointer(src));
    if (it == m_searches.end())
    {
        it = m_searches.emplace(PeekPointer(src), SearchFrom(src)).first;
    }
    return IdealOnPath(PathOf(it->second, src, dst),
                       src->GetPayloadMtu(),
                       src->GetWireOverhead(),
                       bytes);
}

void
RoceFctStats::AddExpected(uint64_t n)
{
    ROCE_ERROR_IF(m_noticeSent,
                  "RoceFctStats::AddExpected: "
                      << n << " more flows after this rank told the others that its flows are "
                      << "done (with Distributed, install every flow before Simulator::Run)");
    m_expected += n;
    if (m_distributed && !m_checkScheduled)
    {
        // A rank without flows of its own is done from the start.
        m_checkScheduled = true;
        Simulator::ScheduleWithContext(0xffffffff, Time(0), &RoceFctStats::CheckLocalDone, this);
    }
}

void
RoceFctStats::CheckLocalDone()
{
    if (m_noticeSent || m_completed + m_failed < m_expected)
    {
        return;
    }
    m_noticeSent = true;
    ROCE_ERROR_IF(RoceRankCall::HasTransport() && m_notifyDelay <= RoceRankCall::GetLookahead(),
                  "RoceFctStats: NotifyDelay=" << m_notifyDelay.As(Time::US)
                                               << " must exceed the MPI lookahead "
                                               << RoceRankCall::GetLookahead().As(Time::US));
    // The first node of every rank receives the notice.
    std::map<uint32_t, uint32_t> anchors;
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        anchors.emplace((*it)->GetSystemId(), (*it)->GetId());
    }
    for (const auto& anchor : anchors)
    {
        RoceRankCall::Schedule(anchor.second,
                               m_notifyDelay,
                               m_service,
                               {uint64_t(RoceRankCall::GetRank()), uint64_t(anchors.size())});
    }
}

void
RoceFctStats::Notice(const std::vector<uint64_t>& words)
{
    ROCE_ERROR_IF(words.size() != 2,
                  "RoceFctStats: a done notice of " << words.size() << " words (2 expected)");
    if (++m_noticesIn == words[1] && !m_allDone.IsNull())
    {
        m_allDone();
    }
}

void
RoceFctStats::SetAllDoneCallback(Callback<void> cb)
{
    m_allDone = cb;
}

void
RoceFctStats::Add(const RoceFctRecord& record)
{
    m_records.push_back(record);
    ++(record.failed ? m_failed : m_completed);
    if (m_distributed)
    {
        CheckLocalDone();
    }
    else if (m_completed + m_failed == m_expected && !m_allDone.IsNull())
    {
        m_allDone();
    }
}

std::string
RoceFctStats::Pack() const
{
    std::ostringstream os;
    os << m_expected << " " << m_records.size() << "\n";
    for (const RoceFctRecord& r : m_records)
    {
        os << r.sip.Get() << " " << r.dip.Get() << " " << r.sport << " " << r.dport << " "
           << r.bytes << " " << r.start.GetTimeStep() << " " << r.fct.GetTimeStep() << " "
           << r.idealFct.GetTimeStep() << " " << (r.failed ? 1 : 0) << "\n";
    }
    return os.str();
}

void
RoceFctStats::Merge(const std::vector<std::string>& packs)
{
    std::vector<RoceFctRecord> records;
    uint64_t expected = 0;
    for (std::size_t k = 0; k < packs.size(); ++k)
    {
        std::istringstream in(packs[k]);
        uint64_t e = 0;
        uint64_t n = 0;
        ROCE_ERROR_IF(!(in >> e >> n), "RoceFctStats::Merge: part " << k << " has no counts");
        expected += e;
        for (uint64_t i = 0; i < n; ++i)
        {
            uint32_t sip = 0;
            uint32_t dip = 0;
            uint32_t sport = 0;
            uint32_t dport = 0;
            int64_t start = 0;
            int64_t fct = 0;
            int64_t ideal = 0;
            int failed = 0;
            RoceFctRecord r;
            ROCE_ERROR_IF(!(in >> sip >> dip >> sport >> dport >> r.bytes >> start >> fct >>
                            ideal >> failed) ||
                              sport > 65535 || dport > 65535,
                          "RoceFctStats::Merge: part " << k << ", record " << i << " is malformed");
            r.sip = Ipv4Address(sip);
            r.dip = Ipv4Address(dip);
            r.sport = static_cast<uint16_t>(sport);
            r.dport = static_cast<uint16_t>(dport);
            r.start = TimeStep(start);
            r.fct = TimeStep(fct);
            r.idealFct = TimeStep(ideal);
            r.failed = failed != 0;
            records.push_back(r);
        }
    }
    auto key = [](const RoceFctRecord& r) {
        return std::make_tuple(r.start + r.fct,
                               r.sip.Get(),
                               r.sport,
                               r.dip.Get(),
                               r.dport,
                               r.start,
                               r.bytes);
    };
    std::stable_sort(
        records.begin(),
        records.end(),
        [&key](const RoceFctRecord& a, const RoceFctRecord& b) { return key(a) < key(b); });
    m_records = std::move(records);
    m_expected = expected;
    m_completed = 0;
    m_failed = 0;
    for (const RoceFctRecord& r : m_records)
    {
        ++(r.failed ? m_failed : m_completed);
    }
}

void
RoceFctStats::SetSizeBuckets(const std::vector<uint64_t>& upperEdges)
{
    for (std::size_t i = 1; i < upperEdges.size(); ++i)
    {
        ROCE_ERROR_IF(upperEdges[i] <= upperEdges[i - 1],
                      "RoceFctStats::SetSizeBuckets: edges must increase (edge "
                          << i << " = " << upperEdges[i] << ")");
    }
    m_edges = upperEdges;
}

const std::vector<RoceFctRecord>&
RoceFctStats::GetRecords() const
{
    return m_records;
}

uint64_t
RoceFctStats::GetExpected() const
{
    return m_expected;
}

uint64_t
RoceFctStats::GetCompleted() const
{
    return m_completed;
}

uint64_t
RoceFctStats::GetFailed() const
{
    return m_failed;
}

double
RoceFctStats::Slowdown(const RoceFctRecord& r)
{
    return r.idealFct.IsStrictlyPositive() ? r.fct.GetSeconds() / r.idealFct.GetSeconds() : 0;
}

double
RoceFctStats::GetSlowdownPercentile(double p) const
{
    std::vector<double> v;
    v.reserve(m_completed);
    for (const auto& r : m_records)
    {
        if (!r.failed)
        {
            v.push_back(Slowdown(r));
        }
    }
    std::sort(v.begin(), v.end());
    return NearestRank(v, p);
}

Time
RoceFctStats::GetFctPercentile(double p) const
{
    std::vector<int64_t> v;
    v.reserve(m_completed);
    for (const auto& r : m_records)
    {
        if (!r.failed)
        {
            v.push_back(r.fct.GetTimeStep());
        }
    }
    std::sort(v.begin(), v.end());
    return TimeStep(NearestRank(v, p));
}

std::vector<RoceFctStats::Bucket>
RoceFctStats::GetBuckets() const
{
    std::vector<std::vector<double>> slow(m_edges.size() + 1);
    for (const auto& r : m_records)
    {
        if (r.failed)
        {
            continue;
        }
        std::size_t b = std::lower_bound(m_edges.begin(), m_edges.end(), r.bytes) - m_edges.begin();
        slow[b].push_back(Slowdown(r));
    }
    std::vector<Bucket> out;
    for (std::size_t b = 0; b < slow.size(); ++b)
    {
        std::sort(slow[b].begin(), slow[b].end());
        Bucket k;
        k.minBytes = b == 0 ? 0 : m_edges[b - 1] + 1;
        k.maxBytes = b < m_edges.size() ? m_edges[b] : std::numeric_limits<uint64_t>::max();
        k.flows = slow[b].size();
        k.p50 = NearestRank(slow[b], 50);
        k.p95 = NearestRank(slow[b], 95);
        k.p99 = NearestRank(slow[b], 99);
        out.push_back(k);
    }
    return out;
}

void
RoceFctStats::WriteHpccFct(std::ostream& os) const
{
    char line[160];
    for (const auto& r : m_records)
    {
        if (r.failed)
        {
            continue;
        }
        std::snprintf(line,
                      sizeof(line),
                      "%08x %08x %u %u %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
                      r.sip.Get(),
                      r.dip.Get(),
                      static_cast<unsigned>(r.sport),
                      static_cast<unsigned>(r.dport),
                      r.bytes,
                      r.start.GetNanoSeconds(),
                      r.fct.GetNanoSeconds(),
                      r.idealFct.GetNanoSeconds());
        os << line;
    }
}

void
RoceFctStats::WriteJsonMembers(std::ostream& os, int indent) const
{
    std::string pad(indent, ' ');
    std::ostringstream o;
    o << std::setprecision(6);
    o << pad << "\"flows_total\": " << m_expected << ",\n"
      << pad << "\"flows_completed\": " << m_completed << ",\n"
      << pad << "\"flows_failed\": " << m_failed << ",\n"
      << pad << "\"slowdown_p50\": " << GetSlowdownPercentile(50) << ",\n"
      << pad << "\"slowdown_p95\": " << GetSlowdownPercentile(95) << ",\n"
      << pad << "\"slowdown_p99\": " << GetSlowdownPercentile(99) << ",\n"
      << pad << "\"fct_p50_us\": " << GetFctPercentile(50).GetSeconds() * 1e6 << ",\n"
      << pad << "\"fct_p95_us\": " << GetFctPercentile(95).GetSeconds() * 1e6 << ",\n"
      << pad << "\"fct_p99_us\": " << GetFctPercentile(99).GetSeconds() * 1e6 << ",\n"
      << pad << "\"slowdown_by_size\": [";
    uint64_t largest = 0;
    for (const auto& r : m_records)
    {
        largest = r.failed ? largest : std::max(largest, r.bytes);
    }
    bool first = true;
    for (const auto& b : GetBuckets())
    {
        if (b.flows == 0)
        {
            continue;
        }
        uint64_t maxBytes =
            b.maxBytes == std::numeric_limits<uint64_t>::max() ? largest : b.maxBytes;
        o << (first ? "\n" : ",\n") << pad << "  {\"max_bytes\": " << maxBytes
          << ", \"flows\": " << b.flows << ", \"p50\": " << b.p50 << ", \"p95\": " << b.p95
          << ", \"p99\": " << b.p99 << "}";
        first = false;
    }
    o << (first ? "]" : "\n" + pad + "]");
    os << o.str();
}

void
RoceFctStats::PrintTable(std::ostream& os) const
{
    std::ostringstream o;
    o << std::fixed << std::setprecision(3);
    o << "flows " << m_completed << " completed, " << m_failed << " failed, of " << m_expected
      << "\n";
    o << "size bucket (bytes)         flows      p50      p95      p99\n";
    for (const auto& b : GetBuckets())
    {
        std::ostringstream range;
        range << b.minBytes << "..";
        if (b.maxBytes == std::numeric_limits<uint64_t>::max())
        {
            range << "inf";
        }
        else
        {
            range << b.maxBytes;
        }
        o << std::left << std::setw(26) << range.str() << std::right << std::setw(7) << b.flows
          << std::setw(9) << b.p50 << std::setw(9) << b.p95 << std::setw(9) << b.p99 << "\n";
    }
    o << std::left << std::setw(26) << "all" << std::right << std::setw(7) << m_completed
      << std::setw(9) << GetSlowdownPercentile(50) << std::setw(9) << GetSlowdownPercentile(95)
      << std::setw(9) << GetSlowdownPercentile(99) << "\n";
    os << o.str();
}

} // namespace ns3
