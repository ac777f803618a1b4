/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The topology the HPCC flow and config harnesses read their inputs against.
 */

#ifndef ROCEV2_FUZZ_HPCC_H
#define ROCEV2_FUZZ_HPCC_H

#include "rocev2-fuzz-common.h"

#include "ns3/roce-hpcc-format.h"

#include <string>

namespace ns3
{
namespace RoceFuzz
{

/**
 * \return examples/hpcc/tiny-topology.txt (hosts 0 to 5, switches 6, 7 and
 * 8), read once
 */
inline const RoceHpccFormat::Topology&
TinyTopology()
{
    static const RoceHpccFormat::Topology t = [] {
        const RoceFuzzTempFile file("hpcc-topology-tiny", ".txt");
        const std::string text = "9 3 8\n"
                                 "6 7 8\n"
                                 "0 6 25Gbps 1000ns 0\n"
                                 "1 6 25Gbps 1000ns 0\n"
                                 "2 6 25Gbps 1000ns 0\n"
                                 "3 7 25Gbps 1000ns 0\n"
                                 "4 7 25Gbps 1000ns 0\n"
                                 "5 7 25Gbps 1000ns 0\n"
                                 "6 8 100Gbps 2000ns 0\n"
                                 "7 8 100Gbps 2000ns 0\n";
        return RoceHpccFormat::ReadTopology(
            file.Write(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    }();
    return t;
}

} // namespace RoceFuzz
} // namespace ns3

#endif // ROCEV2_FUZZ_HPCC_H
