/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RoceEgressQueueDisc: what the PFC watchdog (flush, drops) and the deadlock
// detector (scans) ask of a queue disc. Kept apart from the packet path in
// roce-egress-queue-disc.cc, whose inlining they would otherwise change.

#include "roce-egress-queue-disc.h"

#include "ns3/roce-error.h"

#include <algorithm>

namespace ns3
{

uint8_t
RoceEgressQueueDisc::GetBackloggedMask() const
{
    uint8_t mask = 0;
    for (uint32_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
    {
        if (m_bytes[p] > 0)
        {
            mask |= static_cast<uint8_t>(1u << p);
        }
    }
    return mask;
}

std::pair<uint32_t, uint64_t>
RoceEgressQueueDisc::Flush(uint8_t priority, const char* reason)
{
    ROCE_ERROR_IF(priority >= ROCE_NUM_PRIORITIES,
                  "RoceEgressQueueDisc: priority " << +priority << " out of range 0..7");
    Ring& ring = m_rings[priority];
    uint32_t frames = 0;
    uint64_t bytes = 0;
    while (ring.size() > 0)
    {
        // Take the entry out completely before the MMU release, which may
        // send XON and so start transmissions.
        Entry& e = ring.front();
        RoceFramePtr p = std::move(e.packet);
        uint32_t size = e.size;
        uint16_t ingress = e.ingress;
        ring.pop_front();
        m_bytes[priority] -= size;
        --m_nPackets;
        m_nBytes -= size;
        ++m_drops[priority];
        m_dropCounts.Add(reason);
        ++frames;
        bytes += size;
        m_mmu->Release(ingress, priority, size);
        if (!m_dropTrace.IsEmpty())
        {
            m_dropTrace(p->GetPacket(), priority, reason);
        }
    }
    return {frames, bytes};
}

void
RoceEgressQueueDisc::DropArrival(RoceWireFrame& p, uint8_t priority, const char* reason)
{
    ++m_drops[priority];
    m_dropCounts.Add(reason);
    if (!m_dropTrace.IsEmpty())
    {
        m_dropTrace(p.GetPacket(), priority, reason);
    }
}

bool
RoceEgressQueueDisc::HoldsFrameFrom(uint16_t ingress, uint8_t priority) const
{
    const Ring& ring = m_rings.at(priority);
    for (uint32_t i = 0; i < ring.size(); ++i)
    {
        if (ring.at(i).ingress == ingress)
        {
            return true;
        }
    }
    return false;
}

void
RoceEgressQueueDisc::CollectIngressPorts(uint8_t priority, std::vector<uint16_t>& ports) const
{
    ports.clear();
    const Ring& ring = m_rings.at(priority);
    for (uint32_t i = 0; i < ring.size(); ++i)
    {
        ports.push_back(ring.at(i).ingress);
    }
    std::sort(ports.begin(), ports.end());
    ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
}

} // namespace ns3
