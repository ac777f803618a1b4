/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The selective-repeat receive option of RoceQueuePair (ReceiveWindow) on
// real loss, against go-back-N. Reordering by packet spraying is in
// test/fabric/rocev2-load-balancing-test-suite.cc.

#include "../rocev2-frame-bytes.h"

#include "ns3/error-model.h"
#include "ns3/node-container.h"
#include "ns3/pointer.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \ingroup rocev2
 * \brief Drops the data frames whose PSN is in a set, each once.
 */
class RocePsnDropErrorModel : public ErrorModel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::RocePsnDropErrorModel").SetParent<ErrorModel>().SetGroupName("Rocev2");
        return tid;
    }

    /** \param psn a PSN to drop once */
    void Drop(uint32_t psn)
    {
        m_psns.push_back(psn);
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        RoceFrame f = RoceFrame::Parse(*p);
        if (!f.isRoce || !IsDataOpcode(f.opcode))
        {
            return false;
        }
        auto it = std::find(m_psns.begin(), m_psns.end(), f.psn);
        if (it == m_psns.end())
        {
            return false;
        }
        m_psns.erase(it);
        return true;
    }

    void DoReset() override
    {
    }

    std::vector<uint32_t> m_psns; //!< PSNs still to drop
};

/// What one two-host loss run saw.
struct LossResult
{
    RoceQueuePair::Stats sender;   //!< sender counters
    RoceQueuePair::Stats receiver; //!< receiver counters
};

/**
 * \brief One WRITE between two directly linked hosts, with one data packet lost.
 * \param window the receiver's ReceiveWindow
 * \param packets the message size in packets
 * \param lostPsn the PSN lost (once)
 * \return the counters
 */
LossResult
RunLoss(uint32_t window, uint32_t packets, uint32_t lostPsn)
{
    RoceHelper roce;
    roce.SetQpAttribute("ReceiveWindow", UintegerValue(window));
    roce.SetQpAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
    NodeContainer nodes(2);
    NetDeviceContainer d = roce.Install(nodes.Get(0), nodes.Get(1));
    Ptr<RocePsnDropErrorModel> em = CreateObject<RocePsnDropErrorModel>();
    em->Drop(lostPsn);
    d.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    auto [s, r] = roce.CreateQp(d.Get(0), d.Get(1));
    s->PostWrite(uint64_t(packets) * MTU);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    LossResult res{s->GetStats(), r->GetStats()};
    Simulator::Destroy();
    return res;
}

} // namespace

/**
 * \ingroup rocev2
 * Selective repeat on real loss: a lost packet leaves a gap the receiver
 * holds the later packets behind, without a NAK; the requester's RTO resends
 * from the gap and the cumulative ACK then jumps over everything held. A
 * packet beyond the window is NAK'd as in go-back-N. Every byte is delivered
 * exactly once in both cases.
 */
class SelectiveRepeatLossTestCase : public TestCase
{
  public:
    SelectiveRepeatLossTestCase()
        : TestCase("selective repeat: RTO recovers a loss without NAK; beyond the window a "
                   "NAK")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t packets = 200;
        const uint32_t lost = 10;
        const uint64_t bytes = uint64_t(packets) * MTU;

        // Go-back-N: one NAK, resent from the gap, no timeout.
        LossResult gbn = RunLoss(0, packets, lost);
        NS_TEST_EXPECT_MSG_EQ(gbn.receiver.bytesDelivered, bytes, "go-back-N bytes delivered");
        NS_TEST_EXPECT_MSG_EQ(gbn.receiver.naksSent, 1, "go-back-N NAKs");
        NS_TEST_EXPECT_MSG_EQ(gbn.sender.timeouts, 0, "go-back-N timeouts");

        // Selective repeat, window larger than the message: no NAK, the RTO
        // resends from the gap; the 189 packets held behind it are not
        // delivered twice.
        LossResult sr = RunLoss(1024, packets, lost);
        NS_TEST_EXPECT_MSG_EQ(sr.receiver.bytesDelivered, bytes, "selective repeat bytes");
        NS_TEST_EXPECT_MSG_EQ(sr.receiver.messagesReceived, 1, "selective repeat messages");
        NS_TEST_EXPECT_MSG_EQ(sr.receiver.naksSent, 0, "selective repeat NAKs");
        NS_TEST_EXPECT_MSG_EQ(sr.sender.timeouts, 1, "selective repeat timeouts");
        NS_TEST_EXPECT_MSG_EQ(sr.receiver.outOfOrderReceived,
                              packets - lost - 1,
                              "packets held behind the gap");
        NS_TEST_EXPECT_MSG_EQ(sr.sender.messagesCompleted, 1, "message completed");
        // Whatever the RTO resent beyond the gap arrived as a duplicate.
        NS_TEST_EXPECT_MSG_EQ(sr.receiver.duplicatesReceived,
                              sr.sender.retransmittedPackets - 1,
                              "resent packets other than the lost one are duplicates");

        // Selective repeat with a window of 8: the 9th packet past the gap
        // is beyond it and NAK'd; go-back-N from there.
        LossResult small = RunLoss(8, packets, lost);
        NS_TEST_EXPECT_MSG_EQ(small.receiver.bytesDelivered, bytes, "window 8 bytes");
        NS_TEST_EXPECT_MSG_EQ(small.receiver.naksSent, 1, "window 8 NAKs");
        NS_TEST_EXPECT_MSG_EQ(small.sender.timeouts, 0, "window 8 timeouts");
    }
};

/**
 * \ingroup rocev2
 * rocev2-selective-repeat suite.
 */
class RoceSelectiveRepeatTestSuite : public TestSuite
{
  public:
    RoceSelectiveRepeatTestSuite()
        : TestSuite("rocev2-selective-repeat", TestSuite::Type::UNIT)
    {
        AddTestCase(new SelectiveRepeatLossTestCase, RoceTestDuration::QUICK);
    }
};

/// The suite's static instance.
static RoceSelectiveRepeatTestSuite g_selectiveRepeatTestSuite;
