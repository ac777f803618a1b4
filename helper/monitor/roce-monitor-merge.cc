/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RoceMonitor across MPI ranks: a rank's rows as text (Pack), rank 0's
// union of every rank's text (Merge), in an order that does not depend on
// the split, and RoceMpiHelper::Gather(monitor), which brings the texts to
// rank 0 (defined here so that the MPI helper does not depend on the
// monitor, which asks it IsLocal).
#include "roce-monitor-helper.h"

#include "ns3/roce-error.h"
#include "ns3/roce-mpi-helper.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <tuple>

namespace ns3
{

namespace
{

/**
 * \param v a double
 * \return its shortest text that reads back as the same double
 */
std::string
Exact(double v)
{
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    return buf;
}

/** Reads the fields of one packed line and names the line when one is missing. */
class PackedLine
{
  public:
    /**
     * \param text the line's fields after its tag
     * \param part the rank's part \param line the line number
     */
    PackedLine(const std::string& text, std::size_t part, std::size_t line)
        : m_in(text),
          m_part(part),
          m_line(line)
    {
    }

    /** \return the next field as an unsigned integer */
    uint64_t U()
    {
        uint64_t v = 0;
        ROCE_ERROR_IF(!(m_in >> v), Where() << "a missing or malformed integer");
        return v;
    }

    /** \return the next field as a signed integer */
    int64_t I()
    {
        int64_t v = 0;
        ROCE_ERROR_IF(!(m_in >> v), Where() << "a missing or malformed integer");
        return v;
    }

    /** \return the next field as a double */
    double D()
    {
        std::string word;
        ROCE_ERROR_IF(!(m_in >> word), Where() << "a missing number");
        char* end = nullptr;
        const double v = std::strtod(word.c_str(), &end);
        ROCE_ERROR_IF(end == word.c_str() || *end != '\0',
                      Where() << "'" << word << "' is not a number");
        return v;
    }

  private:
    /** \return the line's place, for an error */
    std::string Where() const
    {
        return "RoceMonitor::Merge: part " + std::to_string(m_part) + ", line " +
               std::to_string(m_line) + ": ";
    }

    std::istringstream m_in; //!< the fields
    std::size_t m_part;      //!< the rank's part
    std::size_t m_line;      //!< the line, from 1
};

} // namespace

std::string
RoceMonitor::Pack() const
{
    std::ostringstream os;
    for (const auto* log : {&m_pfcTx, &m_pfcRx})
    {
        for (const PfcEvent& e : *log)
        {
            os << (log == &m_pfcTx ? "P " : "R ") << e.timeNs << " " << e.node << " " << e.ifIndex
               << " " << unsigned(e.priority) << " " << e.xoff << " " << e.isSwitch << "\n";
        }
    }
    for (const QueueSample& q : m_queue)
    {
        os << "Q " << q.timeNs << " " << q.node << " " << q.ifIndex << " " << unsigned(q.priority)
           << " " << q.bytes << "\n";
    }
    for (const LinkSample& l : m_link)
    {
        os << "L " << l.timeNs << " " << l.node << " " << l.ifIndex << " " << l.bytes << " "
           << l.frames << " " << Exact(l.util) << "\n";
    }
    for (const RateSample& r : m_rate)
    {
        os << "T " << r.timeNs << " " << r.node << " " << r.qpn << " " << Exact(r.rateBps) << " "
           << r.window << "\n";
    }
    for (const CnpCount& c : GetCnpCounts())
    {
        os << "C " << c.node << " " << c.qpn << " " << c.sport << " " << c.dstIp << " " << c.cnpSent
           << " " << c.cnpReceived << "\n";
    }
    for (const PortMax& m : GetPortMaxQueues())
    {
        os << "M " << m.node << " " << m.ifIndex << " " << m.maxBytes << " " << m.maxSampled
           << "\n";
    }
    return os.str();
}

void
RoceMonitor::Merge(const std::vector<std::string>& packs)
{
    std::vector<PfcEvent> pfcTx;
    std::vector<PfcEvent> pfcRx;
    std::vector<QueueSample> queue;
    std::vector<LinkSample> link;
    std::vector<RateSample> rate;
    std::vector<CnpCount> cnp;
    std::vector<PortMax> portMax;
    for (std::size_t k = 0; k < packs.size(); ++k)
    {
        std::istringstream in(packs[k]);
        std::string text;
        for (std::size_t n = 1; std::getline(in, text); ++n)
        {
            if (text.empty())
            {
                continue;
            }
            PackedLine f(text.substr(1), k, n);
            switch (text[0])
            {
            case 'P':
            case 'R': {
                PfcEvent e;
                e.timeNs = f.I();
                e.node = f.U();
                e.ifIndex = f.U();
                e.priority = f.U();
                e.xoff = f.U() != 0;
                e.isSwitch = f.U() != 0;
                (text[0] == 'P' ? pfcTx : pfcRx).push_back(e);
                break;
            }
            case 'Q':
                queue.push_back(QueueSample{f.I(),
                                            static_cast<uint32_t>(f.U()),
                                            static_cast<uint32_t>(f.U()),
                                            static_cast<uint8_t>(f.U()),
                                            f.U()});
                break;
            case 'L':
                link.push_back(LinkSample{f.I(),
                                          static_cast<uint32_t>(f.U()),
                                          static_cast<uint32_t>(f.U()),
                                          f.U(),
                                          static_cast<uint32_t>(f.U()),
                                          f.D()});
                break;
            case 'T':
                rate.push_back(RateSample{f.I(),
                                          static_cast<uint32_t>(f.U()),
                                          static_cast<uint32_t>(f.U()),
                                          f.D(),
                                          f.U()});
                break;
            case 'C':
                cnp.push_back(CnpCount{static_cast<uint32_t>(f.U()),
                                       static_cast<uint32_t>(f.U()),
                                       static_cast<uint16_t>(f.U()),
                                       static_cast<uint32_t>(f.U()),
                                       f.U(),
                                       f.U()});
                break;
            case 'M':
                portMax.push_back(PortMax{static_cast<uint32_t>(f.U()),
                                          static_cast<uint32_t>(f.U()),
                                          f.U(),
                                          f.U()});
                break;
            default:
                ROCE_ERROR("RoceMonitor::Merge: part " << k << ", line " << n << ": unknown row '"
                                                       << text[0] << "'");
            }
        }
    }
    // Braced initialisers evaluate in order, so the fields above were read
    // left to right. Now the order one process's samplers give.
    auto pfcKey = [](const PfcEvent& e) {
        return std::make_tuple(e.timeNs, e.node, e.ifIndex, e.priority, e.xoff);
    };
    for (auto* log : {&pfcTx, &pfcRx})
    {
        std::stable_sort(log->begin(), log->end(), [&pfcKey](const PfcEvent& a, const PfcEvent& b) {
            return pfcKey(a) < pfcKey(b);
        });
    }
    std::stable_sort(queue.begin(), queue.end(), [](const QueueSample& a, const QueueSample& b) {
        return std::tie(a.timeNs, a.node, a.ifIndex, a.priority) <
               std::tie(b.timeNs, b.node, b.ifIndex, b.priority);
    });
    std::stable_sort(link.begin(), link.end(), [](const LinkSample& a, const LinkSample& b) {
        return std::tie(a.timeNs, a.node, a.ifIndex) < std::tie(b.timeNs, b.node, b.ifIndex);
    });
    std::stable_sort(rate.begin(), rate.end(), [](const RateSample& a, const RateSample& b) {
        return std::tie(a.timeNs, a.node, a.qpn) < std::tie(b.timeNs, b.node, b.qpn);
    });
    std::stable_sort(cnp.begin(), cnp.end(), [](const CnpCount& a, const CnpCount& b) {
        return std::tie(a.node, a.qpn) < std::tie(b.node, b.qpn);
    });
    std::stable_sort(portMax.begin(), portMax.end(), [](const PortMax& a, const PortMax& b) {
        return std::tie(a.node, a.ifIndex) < std::tie(b.node, b.ifIndex);
    });
    m_pfcTx = std::move(pfcTx);
    m_pfcRx = std::move(pfcRx);
    m_queue = std::move(queue);
    m_link = std::move(link);
    m_rate = std::move(rate);
    m_mergedCnp = std::move(cnp);
    m_mergedPortMax = std::move(portMax);
    m_merged = true;
}

void
RoceMpiHelper::Gather(Ptr<RoceMonitor> monitor)
{
    ROCE_ERROR_IF(!monitor, "RoceMpiHelper::Gather: no RoceMonitor");
    const std::vector<std::string> parts = Gather(monitor->Pack());
    if (GetRank() == 0)
    {
        monitor->Merge(parts);
    }
}

} // namespace ns3
