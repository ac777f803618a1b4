/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_COLLECTIVE_APP_H
#define ROCE_COLLECTIVE_APP_H

#include "roce-collective.h"

#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Runs a collective the way nccl-tests does: for each size, Warmup
 * iterations that are not counted, then Iterations that are, one after the
 * other (the next starts Gap after the last rank finished the previous).
 *
 * One application drives all ranks of a communicator (RoceCollective holds
 * the per-rank state); it is installed on the node of rank 0. Results: per
 * size the mean time of the counted iterations, algbw = S / t and busbw =
 * algbw x nccl-tests' factor (RoceCollective::BusBandwidthFactor), and the
 * spread of the ranks' finish times in the last iteration.
 *
 * Operation "alltoallv" draws, for every iteration, a size per pair of
 * S/p x (1 + AllToAllvSkew x u) with u uniform in [-1, 1) (the random
 * stream follows RngRun): the uneven token counts of a mixture-of-experts
 * layer. Its S is then the mean bytes a rank sends.
 */
class RoceCollectiveApp : public Application
{
  public:
    /** The result for one size, as nccl-tests prints it. */
    struct Result
    {
        std::string op;                   //!< operation name
        std::string algo;                 //!< algorithm name
        uint64_t size;                    //!< bytes (S)
        double timeUs;                    //!< mean time of the counted iterations
        double algbwGbps;                 //!< S / t, in Gb/s
        double busbwGbps;                 //!< algbw x factor, in Gb/s
        double spreadUs;                  //!< last rank's finish - first rank's, last iteration
        std::vector<double> rankFinishUs; //!< each rank's finish, from the start, last iteration
        uint32_t iterations;              //!< counted iterations
    };

    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceCollectiveApp();
    ~RoceCollectiveApp() override;

    /** \param comm the ranks */
    void SetCommunicator(Ptr<RoceCommunicator> comm);
    /** \return the collective it runs (set its attributes before the start) */
    Ptr<RoceCollective> GetCollective() const;
    /** \param sizes the sizes to run, in order */
    void SetSizes(const std::vector<uint64_t>& sizes);

    /**
     * \brief Check the Operation and Algorithm names and the sizes (a
     * RoceError names the bad one). RoceCollectiveHelper::Install calls it, so
     * a bad name is refused before the run; the start checks again.
     */
    void CheckConfiguration();
    /** \return one result per size run so far */
    const std::vector<Result>& GetResults() const;
    /** \return true once every size has run */
    bool IsFinished() const;

    /**
     * \brief Print the results as nccl-tests does: size, count (float
     * elements), type, time (us), algbw and busbw (GB/s), and the ranks'
     * spread.
     * \param os where
     */
    void PrintTable(std::ostream& os) const;
    /**
     * \brief Write the results as a JSON list of {op, algo, size, time_us,
     * algbw_gbps, busbw_gbps, spread_us, iterations, rank_finish_us}
     * (bandwidths in Gb/s; rank_finish_us: each rank's finish in the last
     * iteration, from its start).
     * \param os where
     */
    void WriteJsonResults(std::ostream& os) const;

  private:
    void DoDispose() override;
    void StartApplication() override;
    void StopApplication() override;
    /** \brief Start the next iteration, or the next size. */
    void Next();
    /** \brief An iteration finished. */
    void IterationDone();

    Ptr<RoceCollective> m_collective;
    double m_skew;                        //!< AllToAllv: per-pair size spread
    Ptr<UniformRandomVariable> m_skewRng; //!< AllToAllv: per-pair sizes
    std::string m_opName;
    std::string m_algoName;
    uint32_t m_iterations;
    uint32_t m_warmup;
    Time m_gap;
    std::vector<uint64_t> m_sizes;
    std::vector<Result> m_results;
    uint32_t m_sizeIndex{0};
    uint32_t m_iteration{0}; //!< of the current size, warm-up included
    Time m_counted;          //!< sum of counted iterations' times
    bool m_stopped{false};
};

} // namespace ns3

#endif /* ROCE_COLLECTIVE_APP_H */
