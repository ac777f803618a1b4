/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_STATS_HELPER_H
#define ROCE_STATS_HELPER_H

#include <cstdint>
#include <ostream>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Fabric-wide counters, summed over every RoCE device, switch and
 * queue pair in the simulation. Examples and benchmarks print them; tests
 * assert on them.
 */
struct RoceFabricStats
{
    uint64_t packetHops{0};     //!< frames put on the wire by any device (data, ACK, CNP, PFC)
    uint64_t pfcPauseTx{0};     //!< PFC pause frames sent (XOFF and refreshes), all devices
    uint64_t pfcResumeTx{0};    //!< PFC XON frames sent
    uint64_t drops{0};          //!< frames dropped anywhere (switch buffers, devices, no route)
    uint64_t ecnMarked{0};      //!< packets CE-marked by switches
    uint64_t maxQueueBytes{0};  //!< largest egress queue seen on any switch port and priority
    uint64_t bufferedBytes{0};  //!< bytes switch MMUs still count (0 once drained)
    uint64_t cnpSent{0};        //!< CNPs sent by receivers
    uint64_t retransmits{0};    //!< data packets sent more than once
    uint64_t timeouts{0};       //!< retransmission timer expiries
    uint64_t bytesDelivered{0}; //!< payload accepted in order by receivers

    /** \return the counters of the current simulation */
    static RoceFabricStats Collect();

    /**
     * \brief Write the counters as JSON members ("name": value, ...), without braces.
     * \param os the stream
     * \param indent spaces before each member
     */
    void WriteJsonMembers(std::ostream& os, int indent = 2) const;

    /**
     * \brief Write "BENCH key=value" lines for bench/run-bench.py.
     * \param os the stream
     */
    void WriteBenchLines(std::ostream& os) const;
};

} // namespace ns3

#endif /* ROCE_STATS_HELPER_H */
