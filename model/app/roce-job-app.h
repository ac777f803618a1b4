/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_JOB_APP_H
#define ROCE_JOB_APP_H

#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/roce-collective.h"
#include "ns3/roce-communicator.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A training job: Iterations of a list of steps, each a compute gap
 * followed by a collective on one of the job's communicators.
 *
 * *Steps.* Step i is {op, size, communicator, gap g_i, overlap}. Its
 * collective starts g_i after its *anchor*:
 * - overlap false: the anchor is the end of step i-1's collective (it runs
 *   after the previous step);
 * - overlap true: the anchor is the start of step i-1's collective (it runs
 *   alongside it, e.g. a gradient bucket reduced while the next bucket is
 *   computed);
 * - step 0's anchor is the start of the iteration.
 * Every step runs on its own RoceCollective, so overlapping steps on one
 * communicator are independent operations. An iteration ends when all its
 * steps have finished; the next one starts then.
 *
 * *Network wait.* The gaps model compute. Step i's collective cannot start
 * before C_i = g_0 + ... + g_i after the iteration start (each anchor lies
 * after the previous step's gap), so C_i is the compute on the chain of
 * steps leading to it. Let k be the step that finished last (on a tie the
 * later step): the iteration time is T, its compute on the critical path is
 * C = C_k <= T, and the share of the iteration spent waiting on the network
 * is W = (T - C) / T. With no overlap, k is the last step and C is the sum of
 * all gaps; a step that overlaps and finishes early hides its gap behind the
 * network and does not count. Over several iterations the job's share is
 * sum(T - C) / sum(T).
 *
 * One application drives all ranks of the job; it is installed on the node
 * of the first rank of the first step's communicator (RoceJobHelper does
 * this). Several jobs (several RoceJobApps with their own communicators) may
 * run at once on one fabric.
 */
class RoceJobApp : public Application
{
  public:
    /** One step of an iteration. */
    struct Step
    {
        RoceCollective::Op op{RoceCollective::ALL_REDUCE};    //!< operation
        RoceCollective::Algorithm algo{RoceCollective::RING}; //!< algorithm
        uint64_t bytes{0};                                    //!< size S, as nccl-tests counts it
        Ptr<RoceCommunicator> comm;                           //!< ranks it runs on
        std::string commName;                                 //!< for the output
        Time gap;                                             //!< compute before it
        bool overlap{false}; //!< starts with the previous step instead of after it
    };

    /** One finished iteration. */
    struct Iteration
    {
        Time start;                 //!< when it started
        Time time;                  //!< T: until its last step finished
        Time compute;               //!< C: compute on the critical path
        uint32_t lastStep{0};       //!< k: the step that finished last
        std::vector<Time> stepTime; //!< per step: its collective's duration
    };

    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceJobApp();
    ~RoceJobApp() override;

    /** \param step a step, appended to the iteration */
    void AddStep(const Step& step);
    /** \return the steps */
    const std::vector<Step>& GetSteps() const;
    /**
     * \brief Set an attribute of the collectives the steps run on (Channels,
     * ChunkSize, Steps, Root); applies to collectives made at the start.
     * \param name attribute \param value value
     */
    void SetCollectiveAttribute(std::string name, const AttributeValue& value);
    /** \param i a step \return the collective it runs on (made at the start) */
    Ptr<RoceCollective> GetCollective(uint32_t i) const;

    /** \return the job's name */
    std::string GetJobName() const;
    /** \return the finished iterations */
    const std::vector<Iteration>& GetIterations() const;
    /** \return true once every iteration has finished */
    bool IsFinished() const;
    /** \param i an iteration \return its network-wait share (T - C) / T */
    double GetNetworkWaitShare(uint32_t i) const;
    /** \return the share over all finished iterations: sum(T - C) / sum(T) */
    double GetNetworkWaitShare() const;
    /** \return the mean iteration time (0 before the first has finished) */
    Time GetMeanIterationTime() const;

    /**
     * \brief Print the job's steps (mean collective time each) and, per
     * iteration, start, time, compute on the critical path, network wait and
     * its share.
     * \param os where
     */
    void PrintTable(std::ostream& os) const;
    /**
     * \brief Write the job as a JSON object: {name, iterations: [{iteration,
     * start_us, time_us, compute_us, network_wait_share, last_step,
     * steps_us}], mean_time_us, network_wait_share}.
     * \param os where
     */
    void WriteJson(std::ostream& os) const;

  private:
    void DoDispose() override;
    void StartApplication() override;
    void StopApplication() override;
    /** \brief Start an iteration now. */
    void StartIteration();
    /** \brief Start step i's collective now. \param i step */
    void StartStep(uint32_t i);
    /** \brief Step i's collective finished. \param i step */
    void StepDone(uint32_t i);

    std::string m_name;
    uint32_t m_iterations;
    std::vector<Step> m_steps;
    ObjectFactory m_collectiveFactory;
    std::vector<Ptr<RoceCollective>> m_collectives; //!< one per step
    std::vector<Time> m_pathCompute;                //!< per step: C_i
    std::vector<Iteration> m_done;
    Iteration m_current;
    uint32_t m_stepsLeft{0};
    Time m_lastFinish;
    bool m_stopped{false};
};

} // namespace ns3

#endif /* ROCE_JOB_APP_H */
