/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-fct-stats.h"

#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-error.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc-net-device.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <deque>
#include <iomanip>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFctStats");
NS_OBJECT_ENSURE_REGISTERED(RoceFctStats);

namespace
{

/** Frame bytes of a data packet beyond its payload: Ethernet, IPv4, UDP, BTH, ICRC. */
constexpr uint32_t DATA_FRAME_OVERHEAD = 14 + 20 + 8 + 12 + 4;
/** RETH, in the first packet of an RDMA WRITE. */
constexpr uint32_t RETH_BYTES = 16;
/** Frame bytes of an ACK: Ethernet, IPv4, UDP, BTH, AETH, ICRC. */
constexpr uint32_t ACK_FRAME_BYTES = 14 + 20 + 8 + 12 + 4 + 4;

/**
 * \param frame frame bytes without FCS
 * \return its bytes on the wire
 */
double
Wire(uint64_t frame)
{
    return static_cast<double>(RocePfcNetDevice::WireBytes(static_cast<uint32_t>(frame)));
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
    static TypeId tid = TypeId("ns3::RoceFctStats")
                            .SetParent<Object>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceFctStats>();
    return tid;
}

RoceFctStats::RoceFctStats()
    : m_edges{3000, 12000, 48000, 192000, 768000, 3000000, 12000000}
{
}

RoceFctStats::~RoceFctStats() = default;

void
RoceFctStats::DoDispose()
{
    m_searches.clear();
    m_allDone = Callback<void>();
    Object::DoDispose();
}

RoceFctStats::Search
RoceFctStats::SearchFrom(Ptr<RoceNetDevice> src)
{
    Search s;
    s.via.assign(NodeList::GetNNodes(), nullptr);
    Ptr<RoceChannel> first = DynamicCast<RoceChannel>(src->GetChannel());
    ROCE_ERROR_IF(!first, "RoceFctStats: NIC " << src->GetIpv4Address() << " has no link");
    Ptr<RocePfcNetDevice> peer = first->GetPeer(PeekPointer(src));
    std::deque<uint32_t> queue;
    uint32_t start = peer->GetNode()->GetId();
    s.via[start] = PeekPointer(src);
    queue.push_back(start);
    while (!queue.empty())
    {
        Ptr<Node> node = NodeList::GetNode(queue.front());
        queue.pop_front();
        bool host = false;
        for (uint32_t i = 0; i < node->GetNDevices() && !host; ++i)
        {
            host = DynamicCast<RoceNetDevice>(node->GetDevice(i)) != nullptr;
        }
        if (host)
        {
            continue; // hosts do not forward
        }
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<RocePfcNetDevice> dev = DynamicCast<RocePfcNetDevice>(node->GetDevice(i));
            Ptr<RoceChannel> ch = dev ? DynamicCast<RoceChannel>(dev->GetChannel()) : nullptr;
            if (!ch)
            {
                continue;
            }
            uint32_t next = ch->GetPeer(PeekPointer(dev))->GetNode()->GetId();
            if (!s.via[next])
            {
                s.via[next] = PeekPointer(dev);
                queue.push_back(next);
            }
        }
    }
    return s;
}

std::vector<RoceFctStats::Hop>
RoceFctStats::PathOf(const Search& search, Ptr<RoceNetDevice> src, Ptr<RoceNetDevice> dst)
{
    // Last hop: the device at the other end of dst's link sends into dst.
    Ptr<RoceChannel> last = DynamicCast<RoceChannel>(dst->GetChannel());
    ROCE_ERROR_IF(!last, "RoceFctStats: NIC " << dst->GetIpv4Address() << " has no link");
    std::vector<Hop> hops;
    RocePfcNetDevice* tx = PeekPointer(last->GetPeer(PeekPointer(dst)));
    RocePfcNetDevice* rx = PeekPointer(dst);
    while (true)
    {
        auto ch = DynamicCast<RoceChannel>(tx->GetChannel());
        hops.push_back({8.0 / static_cast<double>(tx->GetDataRate().GetBitRate()),
                        8.0 / static_cast<double>(rx->GetDataRate().GetBitRate()),
                        ch->GetDelay().GetSeconds()});
        if (tx == PeekPointer(src))
        {
            break;
        }
        uint32_t node = tx->GetNode()->GetId();
        RocePfcNetDevice* into = node < search.via.size() ? search.via[node] : nullptr;
        ROCE_ERROR_IF(!into || hops.size() > search.via.size(),
                      "RoceFctStats: no path from NIC " << src->GetIpv4Address() << " to NIC "
                                                        << dst->GetIpv4Address());
        rx = PeekPointer(DynamicCast<RoceChannel>(into->GetChannel())->GetPeer(into));
        tx = into;
    }
    std::reverse(hops.begin(), hops.end());
    return hops;
}

Time
RoceFctStats::IdealOnPath(const std::vector<Hop>& hops, uint32_t mtu, uint64_t bytes)
{
    const std::size_t h = hops.size();
    const uint64_t n = std::max<uint64_t>(1, (bytes + mtu - 1) / mtu);
    const uint64_t firstPayload = std::min<uint64_t>(bytes, mtu);
    const uint64_t lastPayload = bytes - (n - 1) * mtu;
    const double w1 = Wire(firstPayload + DATA_FRAME_OVERHEAD + RETH_BYTES);
    const double wm = Wire(mtu + DATA_FRAME_OVERHEAD);
    const double wn = Wire(lastPayload + DATA_FRAME_OVERHEAD);
    // prefix[i] = sum of t over hops [0, i)
    std::vector<double> prefix(h + 1, 0.0);
    double delays = 0;
    double ackTime = 0;
    for (std::size_t i = 0; i < h; ++i)
    {
        prefix[i + 1] = prefix[i] + hops[i].fwdSecondsPerByte;
        delays += hops[i].delay;
        ackTime += Wire(ACK_FRAME_BYTES) * hops[i].revSecondsPerByte;
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
RoceFctStats::IdealFct(Ptr<RoceNetDevice> src, Ptr<RoceNetDevice> dst, uint64_t bytes)
{
    ROCE_ERROR_IF(!src || !dst || src == dst, "RoceFctStats::IdealFct: needs two NICs");
    return IdealOnPath(PathOf(SearchFrom(src), src, dst), src->GetPayloadMtu(), bytes);
}

Time
RoceFctStats::GetIdealFct(Ptr<RoceNetDevice> src, Ptr<RoceNetDevice> dst, uint64_t bytes)
{
    ROCE_ERROR_IF(!src || !dst || src == dst, "RoceFctStats::GetIdealFct: needs two NICs");
    auto it = m_searches.find(PeekPointer(src));
    if (it == m_searches.end())
    {
        it = m_searches.emplace(PeekPointer(src), SearchFrom(src)).first;
    }
    return IdealOnPath(PathOf(it->second, src, dst), src->GetPayloadMtu(), bytes);
}

void
RoceFctStats::AddExpected(uint64_t n)
{
    m_expected += n;
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
    if (m_completed + m_failed == m_expected && !m_allDone.IsNull())
    {
        m_allDone();
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
