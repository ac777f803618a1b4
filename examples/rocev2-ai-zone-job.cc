/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Training jobs read from a JSON job file, run on an AI Zone.
 *
 *   ./rocev2 run rocev2-ai-zone-job --job=examples/jobs/dp-buckets.json
 *   ./rocev2 run rocev2-ai-zone-job --job=examples/jobs/tp-dp.json --json=out.json
 *
 * The file format is in helper/workload/roce-job-helper.h (RoceJobHelper). The fabric
 * is the smallest 2-tier zone that holds every job's GPUs, in whole racks of
 * 16 GPUs (two 8-GPU servers), as rocev2-ai-zone-allreduce sizes it;
 * --fabric-gpus, --uplinks and --cc change it, --channels and --chunk the
 * collectives. It prints per job its steps and, per iteration, the time, the
 * compute on the critical path and the share spent waiting on the network,
 * and with --json the same as {"jobs": [...]}. A relative --job path that
 * does not exist is also looked for from the folders above the current one
 * (and their contrib/rocev2), so the sample files are found from a build
 * folder or an ns-3 tree. Exits 1 if a job did not finish.
 */
#include "rocev2-job-run.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rocev2-module.h"

#include <fstream>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    std::string jobFile;
    std::string json;
    uint32_t fabricGpus = 0;
    uint32_t uplinks = 16;
    uint32_t channels = 4;
    uint64_t chunk = 512 * 1024;
    std::string cc;
    std::string preset;
    std::string faults;
    std::string fidelity = "packet";

    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("job", "The job file (JSON; format in roce-job-helper.h)", jobFile);
    cmd.AddJson(json);
    cmd.AddValue("fabric-gpus",
                 "GPUs of the fabric (0: the smallest zone that holds the jobs)",
                 fabricGpus);
    cmd.AddUplinks(uplinks);
    cmd.AddChannels(channels);
    cmd.AddValue("chunk", "Largest message of a step, bytes", chunk);
    cmd.AddCongestionControl(cc, preset);
    cmd.AddFaults(faults);
    uint32_t seed = 1;
    cmd.AddSeed(seed);
    cmd.AddFidelity(fidelity);
    cmd.Parse(argc, argv);
    ROCE_ERROR_IF(jobFile.empty(), "--job=FILE is required");

    return RoceExampleJobs::RunJobFile(jobFile,
                                       json,
                                       fabricGpus,
                                       uplinks,
                                       channels,
                                       chunk,
                                       RoceCli::MakeCongestionControl(cc, preset),
                                       faults,
                                       fidelity);
}
