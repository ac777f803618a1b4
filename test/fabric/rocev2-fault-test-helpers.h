/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// What the fault test suites share: a leaf-spine, drop counting by reason,
// and message completions.

#ifndef ROCEV2_FAULT_TEST_HELPERS_H
#define ROCEV2_FAULT_TEST_HELPERS_H

#include "../rocev2-frame-bytes.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/node-container.h"
#include "ns3/queue-size.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/uinteger.h"

#include <map>
#include <string>
#include <vector>

namespace rocev2test
{

using namespace ns3;

/// Drops seen on every RoCE device, by reason, and data frames among them.
struct DropLog
{
    std::map<std::string, uint64_t> byReason;     //!< frames per reason
    std::map<std::string, uint64_t> dataByReason; //!< data frames per reason
};

/**
 * Drop trace sink.
 * \param log where to count \param p the frame \param reason why
 */
inline void
OnDrop(DropLog* log, Ptr<const Packet> p, const char* reason)
{
    ++log->byReason[reason];
    RoceFrame f = RoceFrame::Parse(*p);
    if (f.isRoce && IsDataOpcode(f.opcode))
    {
        ++log->dataByReason[reason];
    }
}

/**
 * \param log where drops go
 * \brief Count the drops of every RoCE device from now on.
 */
inline void
TraceDrops(DropLog* log)
{
    Config::ConnectWithoutContextFailSafe("/NodeList/*/DeviceList/*/$ns3::RocePfcNetDevice/Drop",
                                          MakeBoundCallback(&OnDrop, log));
}

/**
 * A leaf-spine: hosts below leaves, every leaf linked to every spine, 100G,
 * 1 us links, shortest-path ECMP routes.
 */
struct LeafSpine
{
    NodeContainer leaves;                                   //!< leaf switches
    NodeContainer spines;                                   //!< spine switches
    NodeContainer hosts;                                    //!< hosts, leaf-major
    std::vector<Ptr<NetDevice>> nics;                       //!< NIC of each host
    std::vector<std::vector<Ptr<RoceChannel>>> up;          //!< up[leaf][spine]
    std::vector<std::vector<Ptr<RocePfcNetDevice>>> upPort; //!< leaf side of up[l][s]
    RoceHelper roce;                                        //!< the NIC helper

    /**
     * \param nLeaves leaves \param nSpines spines \param hostsPerLeaf hosts per leaf
     * \param rto the QPs' retransmission timeout
     * \param bufferSize each switch's shared buffer
     */
    LeafSpine(uint32_t nLeaves,
              uint32_t nSpines,
              uint32_t hostsPerLeaf,
              Time rto,
              QueueSize bufferSize = QueueSize("4MB"))
    {
        leaves.Create(nLeaves);
        spines.Create(nSpines);
        hosts.Create(nLeaves * hostsPerLeaf);
        RoceSwitchHelper sh;
        sh.SetSwitchAttribute("EcmpUseQp", BooleanValue(true));
        sh.SetMmuAttribute("BufferSize", QueueSizeValue(bufferSize));
        sh.Install(leaves);
        sh.Install(spines);
        roce.SetQpAttribute("RetransmitTimeout", TimeValue(rto));
        roce.SetQpAttribute("RetryCount", UintegerValue(20));
        for (uint32_t h = 0; h < hosts.GetN(); ++h)
        {
            nics.push_back(roce.Install(hosts.Get(h), leaves.Get(h / hostsPerLeaf)).Get(0));
        }
        up.resize(nLeaves);
        upPort.resize(nLeaves);
        for (uint32_t l = 0; l < nLeaves; ++l)
        {
            for (uint32_t s = 0; s < nSpines; ++s)
            {
                NetDeviceContainer d = roce.Install(leaves.Get(l), spines.Get(s));
                upPort[l].push_back(DynamicCast<RocePfcNetDevice>(d.Get(0)));
                up[l].push_back(DynamicCast<RoceChannel>(d.Get(0)->GetChannel()));
            }
        }
        RoceSwitchHelper::PopulateRoutes();
    }

    /** \return the NIC of a host */
    Ptr<RoceNetDevice> Nic(uint32_t h) const
    {
        return DynamicCast<RoceNetDevice>(nics[h]);
    }
};

/// One message's completion.
struct Done
{
    Time fct{Time::Max()}; //!< completion - post (Max if it never completed)
    bool success{false};   //!< acknowledged in full
};

/**
 * \param done where to write \param c the completion
 */
inline void
OnComplete(Done* done, const RoceCompletion& c)
{
    done->fct = c.completed - c.posted;
    done->success = c.success;
}

/**
 * \param qps receiving queue pairs \return payload bytes they accepted in order
 */
inline uint64_t
Delivered(const std::vector<Ptr<RoceQueuePair>>& qps)
{
    uint64_t b = 0;
    for (const auto& qp : qps)
    {
        b += qp->GetStats().bytesDelivered;
    }
    return b;
}

} // namespace rocev2test

#endif // ROCEV2_FAULT_TEST_HELPERS_H
