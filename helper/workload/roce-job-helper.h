/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_JOB_HELPER_H
#define ROCE_JOB_HELPER_H

#include "ns3/nstime.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-collective.h"
#include "ns3/roce-gpu-placement.h"
#include "ns3/roce-job-app.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Reads training jobs from a JSON file and builds them on an AI Zone:
 * their communicators, placed on the fabric, and one RoceJobApp per job.
 *
 * *File format.* The file holds one job object, or {"jobs": [job, ...]} to
 * run several jobs at once on one fabric (they share its links; each has its
 * own GPUs). A job:
 *
 * \code{.json}
 *   {
 *     "name": "gpt",                 // optional; [A-Za-z0-9_.-], default job<i>
 *     "iterations": 2,               // optional, >= 1, default 1
 *     "start_us": 0,                 // optional, >= 0: when the job starts
 *     "communicators": [
 *       {"name": "dp", "gpus": 64, "placement": "contiguous"},
 *       {"name": "b", "gpus": 32, "placement": "fragmented", "per_rack": 8},
 *       {"name": "c", "gpus": 16, "placement": "random", "seed": 1},
 *       {"name": "tp", "gpu_list": [0, 1, 2, 3]}
 *     ],
 *     "steps": [
 *       {"op": "allreduce", "size": "16M", "comm": "dp", "gap_us": 100, "overlap": false},
 *       {"op": "allgather", "size": 1048576, "comm": "tp", "overlap": true}
 *     ]
 *   }
 * \endcode
 *
 * (JSON has no comments: they are notes here only.)
 *
 * - A communicator is placed by RoceGpuPlacement, in file order and jobs in
 *   file order: "contiguous", "fragmented" (needs "per_rack", GPUs taken from
 *   one rack at most) or "random" ("seed", default 1: the random stream, so
 *   one seed gives one list); its ranks are its GPUs in ascending order. Or
 *   "gpu_list" names the fabric's GPUs explicitly, in rank order; those GPUs
 *   may be shared with the job's other communicators (a tensor-parallel group
 *   inside a data-parallel one) but not with another job.
 * - A step: "op" (allreduce, allgather, reducescatter, alltoall, broadcast),
 *   "size" (S as nccl-tests counts it: a positive integer of bytes, or a
 *   string with a binary unit as nccl-tests reads them, "16M" = 16 MiB, also
 *   K, G, T, KiB, MiB, GiB, TiB, and B), "comm" (a communicator of the job),
 *   optional "gap_us" (compute before it, >= 0, default 0), "overlap" (starts
 *   with the previous step instead of after it, default false) and "algo"
 *   (ring, or direct for alltoall; default the op's). Sizes must suit the
 *   op: at least a byte per rank for allreduce, a multiple of the ranks for
 *   allgather, reducescatter and alltoall.
 * - See RoceJobApp for how steps, overlap and the network-wait share work.
 *
 * *Errors.* Every error aborts with "FILE:LINE:COLUMN: " and the field and
 * value at fault: JSON syntax errors (nlohmann's parse_error, its byte offset
 * turned into line:column), a missing or unknown field, a value of the wrong
 * type, an unknown op, algo, placement or communicator name, a negative gap, a
 * size the op cannot split, a communicator bigger than the free GPUs or a GPU
 * the fabric does not have.
 *
 * \code
 *   RoceAiZone fabric = zoneHelper.Build();
 *   RoceJobHelper jobs;
 *   jobs.SetCollectiveAttribute("Channels", UintegerValue(4));
 *   std::vector<Ptr<RoceJobApp>> apps = jobs.Install(fabric, RoceJobHelper::Read("job.json"));
 *   Simulator::Run();
 *   RoceJobHelper::PrintTable(std::cout, apps);
 * \endcode
 */
class RoceJobHelper
{
  public:
    /** A communicator as the file describes it. */
    struct CommunicatorSpec
    {
        std::string name;              //!< its name in the job
        std::string placement;         //!< contiguous, fragmented, random, or "list"
        uint32_t gpus{0};              //!< ranks
        uint32_t perRack{0};           //!< fragmented: most GPUs from one rack
        int64_t seed{1};               //!< random: the stream
        std::vector<uint32_t> gpuList; //!< "list": the GPUs, in rank order
        std::string where;             //!< FILE:LINE:COLUMN of it
    };

    /** A step as the file describes it. */
    struct StepSpec
    {
        RoceCollective::Op op{RoceCollective::ALL_REDUCE};    //!< operation
        RoceCollective::Algorithm algo{RoceCollective::RING}; //!< algorithm
        uint64_t bytes{0};                                    //!< S
        uint32_t comm{0};                                     //!< index in the job's communicators
        Time gap;                                             //!< compute before it
        bool overlap{false};                                  //!< starts with the previous step
    };

    /** A job as the file describes it. */
    struct JobSpec
    {
        std::string name;                    //!< its name
        uint32_t iterations{1};              //!< iterations
        Time start;                          //!< start time
        std::vector<CommunicatorSpec> comms; //!< communicators
        std::vector<StepSpec> steps;         //!< steps of an iteration
        std::string where;                   //!< FILE:LINE:COLUMN of it
    };

    RoceJobHelper();

    /** \param name RoceCommunicator attribute (QpsPerConnection, QpMode) \param value value */
    void SetCommunicatorAttribute(std::string name, const AttributeValue& value);
    /** \param name RoceQueuePair attribute \param value value */
    void SetQpAttribute(std::string name, const AttributeValue& value);
    /** \param name RoceCollective attribute (Channels, ChunkSize, Steps, Root) \param value value
     */
    void SetCollectiveAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Parse a job file's text; aborts on the first error.
     * \param text the JSON text
     * \param file the file name the errors give
     * \return the jobs, in file order
     */
    static std::vector<JobSpec> Parse(const std::string& text, const std::string& file);
    /**
     * \brief Read and parse a job file; aborts if it cannot be read or on the first error.
     * \param file its path
     * \return the jobs, in file order
     */
    static std::vector<JobSpec> Read(const std::string& file);
    /**
     * \param jobs parsed jobs
     * \return the GPUs a fabric needs to hold them all: the placed
     *         communicators' GPUs plus the distinct listed GPUs, and at least
     *         the highest listed GPU + 1
     */
    static uint32_t GetGpusNeeded(const std::vector<JobSpec>& jobs);

    /**
     * \brief Place the jobs' communicators on the fabric and install one
     * RoceJobApp per job (starting at the job's start time); aborts, naming
     * the file and line, when a communicator does not fit.
     * \param zone the fabric
     * \param place its placement (GPUs other jobs hold are already taken)
     * \param jobs parsed jobs
     * \return the applications, in job order
     */
    std::vector<Ptr<RoceJobApp>> Install(const RoceAiZone& zone,
                                         RoceGpuPlacement& place,
                                         const std::vector<JobSpec>& jobs);
    /**
     * \brief Install(zone, place, jobs) with a placement of an empty fabric.
     * \param zone the fabric \param jobs parsed jobs \return the applications
     */
    std::vector<Ptr<RoceJobApp>> Install(const RoceAiZone& zone, const std::vector<JobSpec>& jobs);

    /** \param i a job, in Install order \param c a communicator of it \return it */
    Ptr<RoceCommunicator> GetCommunicator(uint32_t i, uint32_t c) const;

    /** \brief Print every job's table (RoceJobApp::PrintTable). \param os where \param apps jobs */
    static void PrintTable(std::ostream& os, const std::vector<Ptr<RoceJobApp>>& apps);
    /** \brief Write {"jobs": [RoceJobApp::WriteJson, ...]}. \param os where \param apps jobs */
    static void WriteJson(std::ostream& os, const std::vector<Ptr<RoceJobApp>>& apps);

  private:
    RoceCollectiveHelper m_coll;
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_collective;
    std::vector<std::vector<Ptr<RoceCommunicator>>> m_comms; //!< per installed job
};

} // namespace ns3

#endif /* ROCE_JOB_HELPER_H */
