/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ROCE_GPU_PLACEMENT_H
#define ROCE_GPU_PLACEMENT_H

#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class RoceAiZone;

/**
 * \ingroup rocev2
 * \brief Chooses the GPUs of training jobs on an AI Zone fabric, the way a
 * cluster scheduler would: contiguous, fragmented over partly used racks, or
 * random.
 *
 * The placement copies the counts of a RoceAiZone (GPUs, GPUs per server G,
 * servers per rack S) and keeps no pointer to it. GPU g lives on server
 * g / G and in rack g / (S*G), racks numbered across zones, zone-major. The
 * placement remembers which GPUs earlier jobs took, so several jobs can be
 * placed one after another on one fabric; Release() gives a job's GPUs back
 * and MarkTaken() reserves GPUs chosen elsewhere (failed GPUs, a job read
 * from a trace).
 *
 * *Allocation unit.* When n is a multiple of G, a job gets whole servers
 * (what schedulers do for training jobs: no job shares a server's NVLink
 * domain or NICs with another) and only servers with all G GPUs free are
 * candidates. Otherwise the job gets single GPUs, from any free GPU.
 *
 * *Order.* Every call returns its GPU indices in ascending order, which is
 * the rank order a collective should use: element r is rank r, and the
 * GPUs of one server, then of one rack, hold consecutive ranks.
 *
 * - Contiguous(n): the lowest-numbered run of consecutive free units (first
 *   fit over servers, or over GPUs), so an empty fabric gives 0..n-1 and a
 *   second job starts at the first free server after the first job. When
 *   free units remain but no run is long enough, it aborts: Fragmented or
 *   Random place such a job.
 * - Fragmented(n, perRack): min(perRack, GPUs still to place) GPUs from
 *   each rack (in whole servers, perRack rounded down to a multiple of G,
 *   when n is), racks in order, skipping racks with fewer free than that;
 *   the job spans ceil(n / perRack) racks and, since perRack is less than a
 *   rack, leaves every rack it touches partly used: the layout a busy
 *   cluster gives.
 * - Random(n, rng): n/G servers (or n GPUs) drawn uniformly without
 *   replacement from the free ones. Random(n, stream) makes its own
 *   UniformRandomVariable on that stream, so the same seed, run and stream
 *   give the same list and changing RngRun changes it.
 *
 * Bad input aborts with a message naming the argument and its value: n = 0,
 * more GPUs (or whole servers) than are free, no run or no racks that fit,
 * perRack = 0, less than a server or not less than a rack, a GPU out of
 * range, taking a taken GPU or releasing a free one.
 *
 * \code
 *   RoceAiZone fabric = zoneHelper.Build();
 *   RoceGpuPlacement place(fabric);
 *   std::vector<uint32_t> a = place.Contiguous(512);      // 64 servers, GPUs 0..511
 *   std::vector<uint32_t> b = place.Fragmented(256, 8);   // 8 GPUs in each of 32 racks
 *   std::vector<uint32_t> c = place.Random(1024, 7);      // 128 random free servers
 *   Ptr<RoceNetDevice> nic = fabric.GetNic(c[r]);        // the NIC of rank r
 *   place.Release(a);
 * \endcode
 */
class RoceGpuPlacement
{
  public:
    /**
     * \param zone the fabric; its GPU count must be whole racks of
     *        serversPerRack x gpusPerServer GPUs
     */
    explicit RoceGpuPlacement(const RoceAiZone& zone);

    /**
     * \brief Place a job on the lowest-numbered run of consecutive free
     * servers (n a multiple of G) or GPUs, and mark it taken.
     * \param n GPUs of the job
     * \return its GPUs, ascending
     */
    std::vector<uint32_t> Contiguous(uint32_t n);

    /**
     * \brief Place a job over partly used racks: at most perRack GPUs from
     * each rack, racks in ascending order, each rack giving its
     * lowest-numbered free servers (or GPUs); racks with fewer free than the
     * job still needs from one rack are skipped.
     * \param n GPUs of the job
     * \param perRack most GPUs taken from one rack (rounded down to whole
     *        servers when n is a multiple of G); must be less than a rack
     * \return its GPUs, ascending
     */
    std::vector<uint32_t> Fragmented(uint32_t n, uint32_t perRack);

    /**
     * \brief Place a job on free servers (n a multiple of G) or GPUs drawn
     * uniformly at random without replacement.
     * \param n GPUs of the job
     * \param rng where the draws come from (GetInteger(min, max))
     * \return its GPUs, ascending
     */
    std::vector<uint32_t> Random(uint32_t n, Ptr<UniformRandomVariable> rng);

    /**
     * \brief Random(n, rng) with a UniformRandomVariable on the given
     * stream: the same seed, run and stream give the same list.
     * \param n GPUs of the job
     * \param stream the random stream (see AssignStreams)
     * \return its GPUs, ascending
     */
    std::vector<uint32_t> Random(uint32_t n, int64_t stream);

    /** \param gpus GPUs to mark taken; each must be in range and free */
    void MarkTaken(const std::vector<uint32_t>& gpus);
    /** \param gpus GPUs to give back; each must be in range and taken */
    void Release(const std::vector<uint32_t>& gpus);

    /** \return GPUs not taken */
    uint32_t GetNFree() const;
    /** \param gpu a GPU index \return whether no job holds it */
    bool IsFree(uint32_t gpu) const;
    /** \return GPUs of the fabric */
    uint32_t GetNGpus() const;

  private:
    /** \brief Abort unless n is positive and at most the free GPUs (whole
     *  servers when n is a multiple of G). \param what caller \param n GPUs */
    void CheckCount(const char* what, uint32_t n) const;
    /** \brief Abort unless gpu is a GPU of the fabric. \param what caller
     *  \param gpu index */
    void CheckGpu(const char* what, uint32_t gpu) const;
    /** \param n GPUs of a job \return whether it is placed in whole servers */
    bool WholeServers(uint32_t n) const;
    /** \param unit a server (whole servers) or GPU index \param whole unit
     *  kind \return whether all its GPUs are free */
    bool UnitFree(uint32_t unit, bool whole) const;
    /** \param units servers or GPUs \param whole unit kind \return their
     *  GPUs, ascending, after marking them taken */
    std::vector<uint32_t> Take(const std::vector<uint32_t>& units, bool whole);

    uint32_t m_nGpus{0};                  //!< GPUs of the fabric
    uint32_t m_gpusPerServer{0};          //!< G
    uint32_t m_serversPerRack{0};         //!< S
    uint32_t m_nFree{0};                  //!< GPUs not taken
    std::vector<bool> m_taken;            //!< per GPU
    std::vector<uint32_t> m_freeOfServer; //!< free GPUs of each server
};

} // namespace ns3

#endif /* ROCE_GPU_PLACEMENT_H */
