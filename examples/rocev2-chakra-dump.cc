/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Summarise a Chakra execution trace (ET) as RoceChakraTrace reads it: the
 * node counts by type (CPU-side and GPU-side), the total GPU compute time,
 * and each GPU-side collective with its comm_type, comm_size and pg_name.
 *
 *   ./rocev2 run rocev2-chakra-dump --et=data/chakra/pytorch-ddp/chakra.0.et
 *   ./rocev2 run rocev2-chakra-dump --et=data/chakra/synthetic-8/chakra.3.et --all
 *
 * --all lists every collective and point-to-point node, CPU-side ones too;
 * --nodes lists every node with its type, duration and dependencies.
 * A malformed trace is a fatal error naming the file, the node index and the
 * byte offset.
 */
#include "ns3/command-line.h"
#include "ns3/roce-chakra-trace.h"
#include "ns3/roce-command-line.h"
#include "ns3/roce-error.h"

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string et;
    bool all = false;
    bool nodes = false;
    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("et", "the Chakra .et file to read", et);
    cmd.AddValue("all", "list CPU-side communication nodes and point-to-point nodes too", all);
    cmd.AddValue("nodes", "list every node with its duration and dependencies", nodes);
    cmd.Parse(argc, argv);
    ROCE_ERROR_IF(et.empty(), "--et=FILE is required (a Chakra .et trace)");

    const RoceChakraTrace trace = RoceChakraTrace::Read(et);
    std::cout << et << ": version " << trace.version << ", " << trace.nodes.size() << " nodes\n";

    uint64_t cpu[RoceChakraNode::TYPE_COUNT] = {};
    uint64_t gpu[RoceChakraNode::TYPE_COUNT] = {};
    uint64_t gpuComputeUs = 0;
    uint64_t gpuCollBytes = 0;
    for (const RoceChakraNode& n : trace.nodes)
    {
        (n.isCpuOp ? cpu : gpu)[n.type]++;
        if (!n.isCpuOp && n.type == RoceChakraNode::COMP)
        {
            gpuComputeUs += n.durationMicros;
        }
    }
    std::cout << "  type              cpu    gpu\n";
    for (int t = 0; t < RoceChakraNode::TYPE_COUNT; ++t)
    {
        if (cpu[t] + gpu[t] > 0)
        {
            std::cout << "  " << std::left << std::setw(16)
                      << RoceChakraNode::TypeName(static_cast<RoceChakraNode::Type>(t))
                      << std::right << std::setw(5) << cpu[t] << std::setw(7) << gpu[t] << "\n";
        }
    }
    std::cout << "  GPU compute: " << gpuComputeUs << " us in " << gpu[RoceChakraNode::COMP]
              << " nodes\n";
    std::cout << "  communication nodes" << (all ? "" : " (GPU-side)") << ":\n";
    for (const RoceChakraNode& n : trace.nodes)
    {
        const bool comm = n.type == RoceChakraNode::COMM_COLL ||
                          n.type == RoceChakraNode::COMM_SEND ||
                          n.type == RoceChakraNode::COMM_RECV;
        if (!comm || (n.isCpuOp && !all))
        {
            continue;
        }
        std::cout << "    id " << n.id << " " << RoceChakraNode::TypeName(n.type);
        if (n.type == RoceChakraNode::COMM_COLL)
        {
            std::cout << " " << RoceChakraNode::CommTypeName(n.commType);
            if (!n.isCpuOp && n.commSize > 0)
            {
                gpuCollBytes += static_cast<uint64_t>(n.commSize);
            }
        }
        else
        {
            std::cout << " src " << n.commSrc << " dst " << n.commDst << " tag " << n.commTag;
        }
        std::cout << " size " << n.commSize << " B, pg '" << n.pgName << "'"
                  << (n.isCpuOp ? " (cpu)" : "") << ", " << n.durationMicros << " us\n";
    }
    std::cout << "  GPU-side collective bytes: " << gpuCollBytes << "\n";
    if (nodes)
    {
        std::cout << "  nodes (id type cpu/gpu duration: data deps | control deps):\n";
        for (const RoceChakraNode& n : trace.nodes)
        {
            std::cout << "    " << n.id << " " << RoceChakraNode::TypeName(n.type) << " @"
                      << n.startMicros << " " << (n.isCpuOp ? "cpu" : "gpu") << " "
                      << n.durationMicros << " us:";
            for (uint64_t d : n.dataDeps)
            {
                std::cout << " " << d;
            }
            std::cout << " |";
            for (uint64_t d : n.ctrlDeps)
            {
                std::cout << " " << d;
            }
            std::cout << "  " << n.name << "\n";
        }
    }
    return 0;
}
