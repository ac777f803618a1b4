/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the NIC test suites (rocev2-nic, rocev2-nic-pfc, rocev2-nic-message)
 * share: two hosts on one link, frame times, and logs of deliveries,
 * completions and drops.
 */
#ifndef ROCEV2_NIC_TEST_HELPERS_H
#define ROCEV2_NIC_TEST_HELPERS_H

#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/mac48-address.h"
#include "ns3/node-container.h"
#include "ns3/pointer.h"
#include "ns3/queue-size.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-pfc-header.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Propagation delay of every test link.
const Time g_delay = MicroSeconds(1);

/// Bytes of a data frame beyond its payload, without FCS: Ethernet, IPv4, UDP, BTH, ICRC.
constexpr uint32_t DATA_FRAME_HEADERS = 14 + 20 + 8 + 12 + 4;

/// Bytes of an ACK frame without FCS: Ethernet, IPv4, UDP, BTH, AETH, ICRC.
constexpr uint32_t ACK_FRAME_BYTES = 14 + 20 + 8 + 12 + 4 + 4;

/// Offset of the BTH in a RoCEv2 frame.
constexpr uint32_t BTH_OFFSET = RoceFrame::ETH_BYTES + RoceFrame::IPV4_BYTES + RoceFrame::UDP_BYTES;

/**
 * \param rate a line rate
 * \param frameBytes a frame's size without FCS
 * \return its serialization time, padding, FCS, preamble and IFG included
 */
inline Time
FrameTime(DataRate rate, uint32_t frameBytes)
{
    return Seconds(RocePfcNetDevice::WireBytes(frameBytes) * 8.0 / rate.GetBitRate());
}

/**
 * \param quanta PFC pause quanta
 * \param rate the line rate
 * \return the pause time (one quantum is 512 bit times)
 */
inline Time
PauseTime(uint16_t quanta, DataRate rate)
{
    return Seconds(quanta * 512.0 / rate.GetBitRate());
}

/**
 * \param p a frame
 * \param[out] opcode its BTH opcode
 * \param[out] psn its BTH PSN
 * \return true if p is a RoCEv2 frame
 */
inline bool
ParseBth(Ptr<const Packet> p, uint8_t& opcode, uint32_t& psn)
{
    RoceFrame f = RoceFrame::Parse(*p);
    if (!f.isRoce)
    {
        return false;
    }
    uint8_t b[RoceFrame::HEADER_BYTES];
    p->CopyData(b, RoceFrame::HEADER_BYTES);
    opcode = f.opcode;
    psn = (uint32_t(b[BTH_OFFSET + 9]) << 16) | (uint32_t(b[BTH_OFFSET + 10]) << 8) |
          b[BTH_OFFSET + 11];
    return true;
}

/// Two hosts joined by one link, host 0 sending to host 1.
struct TwoHosts
{
    NodeContainer nodes;         //!< the hosts
    Ptr<RoceNetDevice> sender;   //!< host 0's NIC
    Ptr<RoceNetDevice> receiver; //!< host 1's NIC
};

/**
 * \brief Join two new hosts with a link configured by a helper.
 * \param roce the helper, with any extra attributes already set
 * \param rate the line rate
 * \param mtu the RoCE payload MTU
 * \return the hosts and their NICs
 */
inline TwoHosts
MakeTwoHosts(RoceHelper& roce, DataRate rate, uint32_t mtu)
{
    roce.SetDeviceAttribute("DataRate", DataRateValue(rate));
    roce.SetNicAttribute("PayloadMtu", UintegerValue(mtu));
    roce.SetChannelAttribute("Delay", TimeValue(g_delay));
    TwoHosts h;
    h.nodes.Create(2);
    NetDeviceContainer d = roce.Install(h.nodes.Get(0), h.nodes.Get(1));
    h.sender = DynamicCast<RoceNetDevice>(d.Get(0));
    h.receiver = DynamicCast<RoceNetDevice>(d.Get(1));
    return h;
}

/**
 * \brief Records a receiver QP's in-order deliveries ("Deliver" trace) and
 * checks that PSNs follow one another in the 24-bit space, with no repeat.
 */
class DeliveryLog
{
  public:
    /** \param qp the receiving queue pair */
    void Attach(Ptr<RoceQueuePair> qp)
    {
        qp->TraceConnectWithoutContext("Deliver", MakeCallback(&DeliveryLog::Deliver, this));
    }

    /** \param psn the PSN accepted \param bytes its payload */
    void Deliver(uint32_t psn, uint32_t bytes)
    {
        Time now = Simulator::Now();
        if (packets == 0)
        {
            firstPsn = psn;
            firstTime = now;
            firstBytes = bytes;
        }
        else
        {
            if (psn != ((lastPsn + 1) & 0xFFFFFF))
            {
                ++outOfSequence;
            }
            if (psn < lastPsn)
            {
                ++wraps;
            }
        }
        lastPsn = psn;
        lastTime = now;
        ++packets;
        this->bytes += bytes;
    }

    uint64_t packets{0};       //!< packets delivered
    uint64_t bytes{0};         //!< payload bytes delivered
    uint64_t outOfSequence{0}; //!< deliveries whose PSN does not follow the previous one
    uint64_t wraps{0};         //!< times the PSN went from 2^24-1 back to 0
    uint32_t firstPsn{0};      //!< PSN of the first delivery
    uint32_t lastPsn{0};       //!< PSN of the last delivery
    uint32_t firstBytes{0};    //!< payload of the first delivery
    Time firstTime;            //!< time of the first delivery
    Time lastTime;             //!< time of the last delivery
};

/// Records completions, from the callbacks given to PostWrite/PostSend.
class CompletionLog
{
  public:
    /** \return a callback that appends to this log */
    RoceQueuePair::CompletionCallback Callback()
    {
        return MakeCallback(&CompletionLog::Complete, this);
    }

    /** \param c a completion */
    void Complete(const RoceCompletion& c)
    {
        all.push_back(c);
    }

    std::vector<RoceCompletion> all; //!< completions, in the order they fired
};

/// Counts a device's drops by reason ("Drop" trace).
class DropLog
{
  public:
    /** \param dev the device */
    void Attach(Ptr<RocePfcNetDevice> dev)
    {
        dev->TraceConnectWithoutContext("Drop", MakeCallback(&DropLog::Drop, this));
    }

    /** \param p the frame \param reason why */
    void Drop(Ptr<const Packet> /* p */, const char* reason)
    {
        ++byReason[reason];
        ++total;
    }

    /**
     * \param reason a drop reason
     * \return drops with that reason
     */
    uint64_t Count(const std::string& reason) const
    {
        auto it = byReason.find(reason);
        return it == byReason.end() ? 0 : it->second;
    }

    std::map<std::string, uint64_t> byReason; //!< drops per reason
    uint64_t total{0};                        //!< all drops
};

/**
 * \brief Set a packet-loss RateErrorModel on a device, on a fixed random stream.
 * \param dev the receiving device
 * \param rate loss probability per frame
 * \param stream the random stream
 */
inline void
SetLoss(Ptr<NetDevice> dev, double rate, int64_t stream)
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(rate);
    em->AssignStreams(stream);
    dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
}

/**
 * \brief Destroys the simulator when a test case returns, also on an early
 * return from a failed NS_TEST_ASSERT, so the next case starts clean.
 */
class SimulatorGuard
{
  public:
    ~SimulatorGuard()
    {
        Simulator::Destroy();
    }
};

/// Restores the global seed and run number when a test case ends.
class SeedGuard
{
  public:
    /** \param seed the seed to use \param run the run to use */
    SeedGuard(uint32_t seed, uint64_t run)
        : m_seed(RngSeedManager::GetSeed()),
          m_run(RngSeedManager::GetRun())
    {
        RngSeedManager::SetSeed(seed);
        RngSeedManager::SetRun(run);
    }

    ~SeedGuard()
    {
        RngSeedManager::SetSeed(m_seed);
        RngSeedManager::SetRun(m_run);
    }

  private:
    uint32_t m_seed; //!< seed to restore
    uint64_t m_run;  //!< run to restore
};

} // namespace

#endif /* ROCEV2_NIC_TEST_HELPERS_H */
