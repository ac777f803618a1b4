/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Running a JSON job file on the smallest AI Zone that holds it: shared by
 * rocev2-ai-zone-job and rocev2-ai-zone-allreduce --job=FILE.
 */
#ifndef ROCEV2_JOB_RUN_H
#define ROCEV2_JOB_RUN_H

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <fstream>
#include <iostream>
#include <string>

namespace ns3
{
namespace RoceExampleJobs
{

/**
 * \brief Build the fabric, install the jobs of a file, run them and print
 * their tables (and JSON).
 * \param jobFile the job file \param json JSON output file, or empty
 * \param fabricGpus GPUs of the fabric (0: the smallest that holds the jobs)
 * \param uplinks uplinks per RTSW \param channels channels of every collective
 * \param chunk largest message of a step \param cc congestion control
 * \param faults a fault file (--faults), or empty
 * \param fidelity the --fidelity value: packet or flow
 * \return the exit status: 0, or 1 if a job did not finish
 */
inline int
RunJobFile(const std::string& jobFile,
           const std::string& json,
           uint32_t fabricGpus,
           uint32_t uplinks,
           uint32_t channels,
           uint64_t chunk,
           const RoceCcHelper& cc,
           const std::string& faults = "",
           const std::string& fidelity = "packet")
{
    const std::string path = RoceCli::FindDataFile(jobFile);
    const std::vector<RoceJobHelper::JobSpec> jobs = RoceJobHelper::Read(path);
    const uint32_t needed = RoceJobHelper::GetGpusNeeded(jobs);
    if (fabricGpus == 0)
    {
        fabricGpus = (needed + 15) / 16 * 16;
    }
    ROCE_ERROR_IF(needed > fabricGpus,
                  path << ": the jobs need " << needed << " GPUs but --fabric-gpus=" << fabricGpus);

    RoceAiZoneHelper zoneHelper;
    zoneHelper.SetTiers(2);
    zoneHelper.SetGpus(fabricGpus);
    zoneHelper.SetUplinks(uplinks);
    zoneHelper.SetCtsws(std::min<uint32_t>(16, uplinks));
    cc.Configure(zoneHelper);
    RoceAiZone fabric = zoneHelper.Build();
    RoceFaultHelper faultHelper;
    faultHelper.AddNames(fabric);
    Ptr<RoceFlowEngine> engine = RoceCli::ApplyFidelity(fidelity);
    RoceCli::LoadFaults(faultHelper, faults);

    RoceJobHelper helper;
    helper.SetCollectiveAttribute("Channels", UintegerValue(channels));
    helper.SetCollectiveAttribute("ChunkSize", UintegerValue(chunk));
    std::vector<Ptr<RoceJobApp>> apps = helper.Install(fabric, jobs);

    std::cout << "rocev2-ai-zone-job: " << jobs.size() << " job(s) from " << path << " on "
              << fabric.GetNGpus() << " GPUs (" << needed << " used), 2 tiers, " << uplinks
              << " uplinks; " << channels << " channels, cc " << cc.GetAlgorithm()
              << (engine ? ", flow level" : "") << "\n";
    Simulator::Run();
    RoceJobHelper::PrintTable(std::cout, apps);
    RoceCli::PrintFaults(faultHelper, std::cout);
    const RoceInvariantReport invariants = RoceCli::CheckInvariants(!faults.empty(), std::cout);
    if (!json.empty())
    {
        RoceCli::WriteJson(
            json,
            [&apps](std::ostream& os) { RoceJobHelper::WriteJson(os, apps); },
            invariants);
    }
    bool finished = true;
    for (const Ptr<RoceJobApp>& app : apps)
    {
        finished = finished && app->IsFinished();
    }
    Simulator::Destroy();
    if (!finished)
    {
        std::cerr << "rocev2-ai-zone-job: a job did not finish\n";
        return 1;
    }
    return invariants.Ok() ? 0 : 1;
}

} // namespace RoceExampleJobs
} // namespace ns3

#endif // ROCEV2_JOB_RUN_H
