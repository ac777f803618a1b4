/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-stats-helper.h"

#include "ns3/node.h"
#include "ns3/roce-device-walk.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-progress.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <sstream>
#include <string>

namespace ns3
{

RoceFabricStats
RoceFabricStats::Collect()
{
    RoceFabricStats s;
    // Sums and a maximum: the devices and the switches may be walked apart.
    RoceForEachDevice<RocePfcNetDevice>([&s](const Ptr<Node>&, const Ptr<RocePfcNetDevice>& dev) {
        s.packetHops += dev->GetTxFrames();
        s.drops += dev->GetDrops();
        RocePfcNetDevice::PfcStats pfc = dev->GetPfcStats();
        for (uint32_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
        {
            s.pfcPauseTx += pfc.pauseTx[p];
            s.pfcResumeTx += pfc.resumeTx[p];
        }
        Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(dev);
        for (uint32_t q = 0; nic && q < nic->GetNQps(); ++q)
        {
            const RoceQueuePair::Stats& qs = nic->GetQpByIndex(q)->GetStats();
            s.cnpSent += qs.cnpSent;
            s.retransmits += qs.retransmittedPackets;
            s.timeouts += qs.timeouts;
            s.bytesDelivered += qs.bytesDelivered;
        }
    });
    RoceForEachNodeObject<RoceSwitch>([&s](const Ptr<Node>&, const Ptr<RoceSwitch>& sw) {
        s.bufferedBytes += sw->GetBufferedBytes();
        s.drops += sw->GetNoRouteDrops();
        for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
        {
            Ptr<RoceEgressQueueDisc> q = sw->GetPort(i)->GetQueueDisc();
            for (uint8_t p = 0; p < ROCE_NUM_PRIORITIES; ++p)
            {
                s.drops += q->GetDrops(p);
                s.ecnMarked += q->GetEcnMarks(p);
                s.maxQueueBytes = std::max(s.maxQueueBytes, q->GetMaxQueueBytes(p));
            }
        }
    });
    return s;
}

void
RoceFabricStats::WriteJsonMembers(std::ostream& os, int indent) const
{
    std::string pad(indent, ' ');
    os << pad << "\"packet_hops\": " << packetHops << ",\n"
       << pad << "\"pfc_pause_tx\": " << pfcPauseTx << ",\n"
       << pad << "\"pfc_resume_tx\": " << pfcResumeTx << ",\n"
       << pad << "\"drops\": " << drops << ",\n"
       << pad << "\"ecn_marked\": " << ecnMarked << ",\n"
       << pad << "\"cnp_sent\": " << cnpSent << ",\n"
       << pad << "\"max_queue_bytes\": " << maxQueueBytes << ",\n"
       << pad << "\"buffer_leftover_bytes\": " << bufferedBytes << ",\n"
       << pad << "\"retransmits\": " << retransmits << ",\n"
       << pad << "\"timeouts\": " << timeouts << ",\n"
       << pad << "\"bytes_delivered\": " << bytesDelivered;
}

void
RoceFabricStats::WriteBenchLines(std::ostream& os) const
{
    std::ostringstream t;
    t.precision(9);
    t << Simulator::Now().GetSeconds();
    os << "BENCH sim_time_s=" << t.str() << "\n"
       << "BENCH events=" << Simulator::GetEventCount() - RoceProgress::GetOwnEvents() << "\n"
       << "BENCH packet_hops=" << packetHops << "\n";
}

} // namespace ns3
