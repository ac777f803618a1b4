/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer harness of the job file reader (RoceJobHelper::Parse, the JSON
 * of rocev2-ai-zone-job --job=FILE). An accepted file must give jobs with
 * at least one communicator and one step each, steps on communicators of
 * their job with a positive size, and a GPU count (GetGpusNeeded) at least as
 * large as each communicator's.
 *
 * Built a second time with ROCEV2_FUZZ_PLANTED_BUG as
 * rocev2-fuzz-job-file-planted, for the test that proves a crash is caught
 * (fuzz/planted/).
 */

#include "rocev2-fuzz-common.h"

#include "ns3/roce-job-helper.h"

#include <algorithm>

using namespace ns3;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    RoceFuzz::PlantedBug(data, size);
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<RoceJobHelper::JobSpec> jobs;
    if (!RoceFuzz::Accepts([&] { jobs = RoceJobHelper::Parse(text, "fuzz.json"); }))
    {
        return 0;
    }
    ROCE_FUZZ_CHECK(!jobs.empty(), "no job");
    const uint64_t needed = RoceJobHelper::GetGpusNeeded(jobs);
    for (const auto& job : jobs)
    {
        ROCE_FUZZ_CHECK(!job.comms.empty() && !job.steps.empty(), job.where);
        ROCE_FUZZ_CHECK(job.iterations >= 1, job.where);
        ROCE_FUZZ_CHECK(!job.start.IsStrictlyNegative(), job.where << ": start " << job.start);
        for (const auto& c : job.comms)
        {
            ROCE_FUZZ_CHECK(c.gpus >= 1, c.where);
            ROCE_FUZZ_CHECK(needed >= c.gpus,
                            c.where << ": " << c.gpus << " GPUs, " << needed << " needed in all");
            for (uint32_t g : c.gpuList)
            {
                ROCE_FUZZ_CHECK(needed > g,
                                c.where << ": GPU " << g << ", " << needed << " needed in all");
            }
        }
        for (const auto& s : job.steps)
        {
            ROCE_FUZZ_CHECK(s.comm < job.comms.size(), job.where);
            ROCE_FUZZ_CHECK(s.bytes > 0, job.where);
            ROCE_FUZZ_CHECK(!s.gap.IsStrictlyNegative(), job.where << ": gap " << s.gap);
        }
    }
    return 0;
}
