/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Training jobs read from a JSON job file, run on an AI Zone.
 *
 *   ./rocev2 run rocev2-ai-zone-job --job=examples/jobs/dp-buckets.json
 *   ./rocev2 run rocev2-ai-zone-job --job=examples/jobs/tp-dp.json --json=out.json
 *
 * The file format is in helper/roce-job-helper.h (RoceJobHelper). The fabric
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
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rocev2-module.h"

#include <fstream>
#include <iostream>

using namespace ns3;

namespace
{

/** \return path, or the first of ../path, ../contrib/rocev2/path, ... that exists */
std::string
FindJobFile(const std::string& path)
{
    if (path.empty() || path[0] == '/' || std::ifstream(path).good())
    {
        return path;
    }
    std::string up;
    for (int i = 0; i < 6; ++i)
    {
        for (const std::string& dir : {up, up + "contrib/rocev2/"})
        {
            if (std::ifstream(dir + path).good())
            {
                return dir + path;
            }
        }
        up += "../";
    }
    return path;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string jobFile;
    std::string json;
    uint32_t fabricGpus = 0;
    uint32_t uplinks = 16;
    uint32_t channels = 4;
    uint64_t chunk = 512 * 1024;
    std::string cc = "none";

    CommandLine cmd(__FILE__);
    cmd.AddValue("job", "The job file (JSON; format in roce-job-helper.h)", jobFile);
    cmd.AddValue("json", "Write the results as JSON to this file", json);
    cmd.AddValue("fabric-gpus",
                 "GPUs of the fabric (0: the smallest zone that holds the jobs)",
                 fabricGpus);
    cmd.AddValue("uplinks", "Uplinks per RTSW (16: non-blocking)", uplinks);
    cmd.AddValue("channels", "Channels (rings) of every collective", channels);
    cmd.AddValue("chunk", "Largest message of a step, bytes", chunk);
    cmd.AddValue("cc", "Congestion control: none, dcqcn, hpcc, timely or dctcp", cc);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(jobFile.empty(), "--job=FILE is required");

    const std::string path = FindJobFile(jobFile);
    const std::vector<RoceJobHelper::JobSpec> jobs = RoceJobHelper::Read(path);
    const uint32_t needed = RoceJobHelper::GetGpusNeeded(jobs);
    if (fabricGpus == 0)
    {
        fabricGpus = (needed + 15) / 16 * 16;
    }
    NS_ABORT_MSG_IF(needed > fabricGpus,
                    path << ": the jobs need " << needed
                         << " GPUs but --fabric-gpus=" << fabricGpus);

    RoceAiZoneHelper zoneHelper;
    zoneHelper.SetTiers(2);
    zoneHelper.SetGpus(fabricGpus);
    zoneHelper.SetUplinks(uplinks);
    zoneHelper.SetCtsws(std::min<uint32_t>(16, uplinks));
    if (cc == "dcqcn")
    {
        zoneHelper.GetRoceHelper().SetDcqcnPreset("nvidia-cx");
        zoneHelper.SetEcnForDcqcnPreset("nvidia-cx");
    }
    else
    {
        zoneHelper.GetRoceHelper().SetCongestionControl(cc);
    }
    RoceAiZone fabric = zoneHelper.Build();

    RoceJobHelper helper;
    helper.SetCollectiveAttribute("Channels", UintegerValue(channels));
    helper.SetCollectiveAttribute("ChunkSize", UintegerValue(chunk));
    std::vector<Ptr<RoceJobApp>> apps = helper.Install(fabric, jobs);

    std::cout << "rocev2-ai-zone-job: " << jobs.size() << " job(s) from " << path << " on "
              << fabric.GetNGpus() << " GPUs (" << needed << " used), 2 tiers, " << uplinks
              << " uplinks; " << channels << " channels, cc " << cc << "\n";
    Simulator::Run();
    RoceJobHelper::PrintTable(std::cout, apps);
    if (!json.empty())
    {
        std::ofstream out(json);
        RoceJobHelper::WriteJson(out, apps);
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
    return 0;
}
