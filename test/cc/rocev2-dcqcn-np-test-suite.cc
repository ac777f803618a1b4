/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN on running queue pairs: the notification point's CNP pacing
 * against real ECN marks, notifications carried by ACKs (Notification
 * AckEcn), and the parameters each preset installs on NICs and switches.
 *
 * Expected values come from the equations of DCQCN (Zhu et al., SIGCOMM
 * 2015; DESIGN §6, doc/rocev2.rst), transcribed here independently of the
 * model, and from the times at which CNP frames arrive on the sender's wire.
 */
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/node-container.h"
#include "ns3/queue-size.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-cc-dcqcn.h"
#include "ns3/roce-cc-helper.h"
#include "ns3/roce-egress-queue-disc.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-pfc-net-device.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch-port.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/// Payload MTU of these tests: every data packet carries exactly this many bytes.
constexpr uint32_t MTU = 1000;

/// The 2:1 incast of the notification-point cases, built and posted.
struct NpIncast
{
    NetDeviceContainer nics;                   //!< receiver first, then the two senders
    std::vector<Ptr<RoceQueuePair>> senders;   //!< the senders' QPs
    std::vector<Ptr<RoceQueuePair>> receivers; //!< their peers on the receiver
};

/**
 * Two senders write `bytes` each to one receiver at 25 Gb/s through one
 * switch with paper-2015's DCQCN and step marking above 20 KB (DCTCP-style,
 * so that CE marks come in runs).
 * \param ccAttributes DCQCN attributes set over the preset's
 * \param bytes bytes each sender writes
 * \return the NICs and queue pairs
 */
NpIncast
MakeNpIncast(const std::vector<std::pair<std::string, std::string>>& ccAttributes, uint64_t bytes)
{
    NodeContainer sw(1);
    NodeContainer hosts(3);
    RoceSwitchHelper switches;
    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", StringValue("25Gbps"));
    roce.SetChannelAttribute("Delay", StringValue("1us"));
    roce.SetNicAttribute("PayloadMtu", UintegerValue(MTU));
    RoceCcHelper("dcqcn", "paper-2015").Configure(roce, switches);
    for (const auto& [name, value] : ccAttributes)
    {
        roce.SetCongestionControlAttribute(name, StringValue(value));
    }
    switches.SetEcnStepMarking(QueueSize("20KB"), DataRate(0));
    switches.Install(sw);
    NpIncast x;
    for (uint32_t h = 0; h < 3; ++h)
    {
        x.nics.Add(roce.Install(hosts.Get(h), sw.Get(0)).Get(0));
    }
    RoceSwitchHelper::PopulateRoutes();
    RoceSwitchHelper::AssignStreams(7);
    for (uint32_t s = 1; s < 3; ++s)
    {
        auto qps = roce.CreateQp(x.nics.Get(s), x.nics.Get(0));
        x.senders.push_back(qps.first);
        x.receivers.push_back(qps.second);
        qps.first->PostWrite(bytes);
    }
    return x;
}

} // namespace

/**
 * \ingroup rocev2
 * The notification point on the wire: two senders write 1 MB each to one
 * receiver at 25 Gb/s through a switch with paper-2015's RED marking, so CE
 * marks arrive in bursts and gaps. From the CE-marked data frames arriving
 * at the receiver (its MacRx), the rule "a CE mark gets a CNP unless one was
 * sent within CnpInterval" gives, per QP, the decision times d_1 = first CE,
 * d_(j+1) = first CE at or after d_j + CnpInterval. The receiver's CNP frames
 * (its MacTx) must be exactly as many, the j-th leaving in [d_j, d_j + delta]:
 * the NIC sends a CNP ahead of its ACKs but may be serializing one frame,
 * and the other QP's CNP may be queued ahead, so delta is two of its largest
 * frames at line rate. So at most one CNP per interval, and at least one in
 * every interval in which CE marks arrive. With CnpInterval = 0 every CE
 * mark gets its CNP.
 */
class DcqcnCnpIntervalTestCase : public TestCase
{
  public:
    /** \param interval CnpInterval */
    DcqcnCnpIntervalTestCase(Time interval)
        : TestCase("DCQCN NP: exactly the CNPs the CnpInterval rule gives for the CE marks "
                   "that arrive, interval " +
                   std::to_string(interval.GetMicroSeconds()) + " us"),
          m_interval(interval)
    {
    }

  private:
    void DoRun() override
    {
        const std::string rate = "25Gbps";
        std::ostringstream interval;
        interval << m_interval.GetNanoSeconds() << "ns";
        NpIncast x = MakeNpIncast({{"CnpInterval", interval.str()}}, FLOW_BYTES);
        const NetDeviceContainer& nics = x.nics;
        const std::vector<Ptr<RoceQueuePair>>& receivers = x.receivers;
        std::map<uint32_t, std::vector<Time>> ce;   // receiver QPN -> CE arrivals
        std::map<uint32_t, std::vector<Time>> cnps; // sender address -> CNPs on the wire
        uint32_t largest = 0;
        Ptr<NetDevice> rx = nics.Get(0);
        rx->TraceConnectWithoutContext(
            "MacRx",
            Callback<void, Ptr<const Packet>>([&ce](Ptr<const Packet> p) {
                RoceFrame f = RoceFrame::Parse(*p);
                if (f.isRoce && f.opcode != RoceBthHeader::CNP &&
                    f.opcode != RoceBthHeader::ACKNOWLEDGE && f.ecn == Ipv4Header::ECN_CE)
                {
                    ce[f.destQp].push_back(Simulator::Now());
                }
            }));
        rx->TraceConnectWithoutContext(
            "MacTx",
            Callback<void, Ptr<const Packet>>([&cnps, &largest](Ptr<const Packet> p) {
                largest = std::max(largest, p->GetSize());
                RoceFrame f = RoceFrame::Parse(*p);
                if (f.isRoce && f.opcode == RoceBthHeader::CNP)
                {
                    cnps[f.dstIp].push_back(Simulator::Now());
                }
            }));
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();

        // Frame on the wire: at least 60 B, plus FCS, preamble and gap.
        uint64_t wire = std::max<uint64_t>(largest, RocePfcNetDevice::MIN_FRAME_BYTES) +
                        RocePfcNetDevice::FCS_BYTES + RocePfcNetDevice::PREAMBLE_IFG_BYTES;
        uint64_t bps = DataRate(rate).GetBitRate();
        Time delta = PicoSeconds(static_cast<int64_t>(2 * wire * 8 * 1000000000000ULL / bps) + 1);
        for (std::size_t q = 0; q < receivers.size(); ++q)
        {
            const std::vector<Time>& marks = ce[receivers[q]->GetQpn()];
            const std::vector<Time>& sent = cnps[receivers[q]->GetRemoteAddress().Get()];
            NS_TEST_ASSERT_MSG_EQ(receivers[q]->GetStats().bytesDelivered, FLOW_BYTES, "delivered");
            NS_TEST_ASSERT_MSG_EQ(marks.size(), receivers[q]->GetStats().ceReceived, "CE seen");
            NS_TEST_ASSERT_MSG_GT(marks.size(), 10u, "the switch marked this flow");
            std::vector<Time> decisions;
            for (Time t : marks)
            {
                if (decisions.empty() || t >= decisions.back() + m_interval)
                {
                    decisions.push_back(t);
                }
            }
            if (m_interval.IsStrictlyPositive())
            {
                NS_TEST_ASSERT_MSG_GT(marks.size(),
                                      decisions.size(),
                                      "the interval held some back");
            }
            NS_TEST_ASSERT_MSG_EQ(sent.size(), decisions.size(), "one CNP per decision, QP " << q);
            for (std::size_t j = 0; j < sent.size() && j < decisions.size(); ++j)
            {
                NS_TEST_ASSERT_MSG_GT_OR_EQ(sent[j], decisions[j], "CNP " << j << " not early");
                NS_TEST_ASSERT_MSG_LT_OR_EQ(sent[j], decisions[j] + delta, "CNP " << j << " sent");
                if (j > 0 && m_interval.IsStrictlyPositive())
                {
                    NS_TEST_ASSERT_MSG_GT_OR_EQ(sent[j] - sent[j - 1] + delta,
                                                m_interval,
                                                "at most one CNP per interval");
                }
            }
            NS_TEST_ASSERT_MSG_EQ(receivers[q]->GetStats().cnpSent, sent.size(), "stats agree");
        }
        Simulator::Destroy();
    }

    static constexpr uint64_t FLOW_BYTES = 4000000; //!< bytes each sender writes
    Time m_interval;                                //!< CnpInterval
};

/**
 * \ingroup rocev2
 * Notification AckEcn (the HPCC simulator's DCQCN): the scenario of the
 * CnpInterval case, every CE mark a notification (CnpInterval 0) and every
 * notification a decrease (RateDecreasePeriod 0). The receiver sends no CNP
 * frame although CE marks arrive; each of its ACKs carries BECN exactly when
 * a CE-marked packet arrived since its previous ACK; and each sender
 * decreases once per BECN ACK that reaches its wire (its MacRx), no more, no
 * fewer.
 */
class DcqcnAckEcnTestCase : public TestCase
{
  public:
    DcqcnAckEcnTestCase()
        : TestCase("DCQCN Notification AckEcn: no CNP frames, one decrease per ACK with BECN")
    {
    }

  private:
    void DoRun() override
    {
        NpIncast x = MakeNpIncast(
            {{"CnpInterval", "0s"}, {"RateDecreasePeriod", "0s"}, {"Notification", "AckEcn"}},
            FLOW_BYTES);
        const NetDeviceContainer& nics = x.nics;
        const std::vector<Ptr<RoceQueuePair>>& senders = x.senders;
        const std::vector<Ptr<RoceQueuePair>>& receivers = x.receivers;
        // The receiver's frames in order: a CE-marked data frame sets "marked",
        // its next ACK must carry BECN and clears it.
        std::map<uint32_t, bool> marked; // sender address -> CE since the last ACK
        uint32_t cnpFrames = 0;
        uint32_t wrongBecn = 0;
        uint32_t becnSent = 0;
        Ptr<NetDevice> rx = nics.Get(0);
        rx->TraceConnectWithoutContext(
            "MacRx",
            Callback<void, Ptr<const Packet>>([&marked](Ptr<const Packet> p) {
                RoceFrame f = RoceFrame::Parse(*p);
                if (f.isRoce && RoceBthHeader::IsData(f.opcode) && f.ecn == Ipv4Header::ECN_CE)
                {
                    marked[f.srcIp] = true;
                }
            }));
        rx->TraceConnectWithoutContext("MacTx",
                                       Callback<void, Ptr<const Packet>>([&](Ptr<const Packet> p) {
                                           RoceFrame f = RoceFrame::Parse(*p);
                                           if (f.isRoce && f.opcode == RoceBthHeader::CNP)
                                           {
                                               ++cnpFrames;
                                           }
                                           else if (f.isRoce &&
                                                    f.opcode == RoceBthHeader::ACKNOWLEDGE)
                                           {
                                               bool becn = (f.bthByte4 & BECN) != 0;
                                               wrongBecn += becn != marked[f.dstIp];
                                               becnSent += becn;
                                               marked[f.dstIp] = false;
                                           }
                                       }));
        std::vector<uint32_t> becnArrived(senders.size(), 0);
        for (std::size_t q = 0; q < senders.size(); ++q)
        {
            nics.Get(q + 1)->TraceConnectWithoutContext(
                "MacRx",
                Callback<void, Ptr<const Packet>>([&becnArrived, q](Ptr<const Packet> p) {
                    RoceFrame f = RoceFrame::Parse(*p);
                    if (f.isRoce && f.opcode == RoceBthHeader::ACKNOWLEDGE &&
                        (f.bthByte4 & BECN) != 0)
                    {
                        ++becnArrived[q];
                    }
                }));
        }
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(cnpFrames, 0u, "the receiver sent CNP frames");
        NS_TEST_EXPECT_MSG_EQ(wrongBecn, 0u, "ACKs whose BECN is not the CE since the last ACK");
        uint64_t ce = 0;
        for (std::size_t q = 0; q < senders.size(); ++q)
        {
            NS_TEST_EXPECT_MSG_EQ(receivers[q]->GetStats().bytesDelivered, FLOW_BYTES, "delivered");
            NS_TEST_EXPECT_MSG_EQ(receivers[q]->GetStats().cnpSent, 0u, "no CNP counted");
            ce += receivers[q]->GetStats().ceReceived;
            Ptr<RoceCcDcqcn> cc = DynamicCast<RoceCcDcqcn>(senders[q]->GetCongestionControl());
            NS_TEST_EXPECT_MSG_GT(becnArrived[q], 10u, "sender " << q << " saw BECN ACKs");
            NS_TEST_EXPECT_MSG_EQ(cc->GetDecreases(),
                                  becnArrived[q],
                                  "sender " << q << ": one decrease per ACK with BECN");
            NS_TEST_EXPECT_MSG_EQ(senders[q]->GetStats().cnpReceived,
                                  becnArrived[q],
                                  "sender " << q << ": each ACK with BECN counted as a CNP");
        }
        NS_TEST_EXPECT_MSG_GT(ce, 20u, "the switch marked");
        NS_TEST_EXPECT_MSG_EQ(becnArrived[0] + becnArrived[1], becnSent, "every BECN ACK arrived");
        Simulator::Destroy();
    }

    static constexpr uint64_t FLOW_BYTES = 4000000; //!< bytes each sender writes
    static constexpr uint8_t BECN = 0x40;           //!< BTH byte 4: BECN
};

/**
 * \ingroup rocev2
 * What RoceCcHelper installs for a DCQCN preset, read back from a running
 * fabric at several link rates: the switch ports' RoceEgressQueueDisc
 * Kmin, Kmax (at the port's rate) and Pmax, and the DCQCN attributes of both
 * ends of a QP, against the published values (DESIGN §6, doc/rocev2.rst):
 * paper-2015 5 KB / 200 KB / 1 % at every rate; nvidia-cx 150 KB / 1500 KB /
 * 100 % at every rate; hpcc-sim 100 KB / 400 KB at 25 Gb/s scaled with the
 * rate, 20 %.
 */
class DcqcnPresetTestCase : public TestCase
{
  public:
    /** The published values of one preset. */
    struct Spec
    {
        std::string name;     //!< preset
        double kmin;          //!< bytes (at 25 Gb/s if scaled)
        double kmax;          //!< bytes (at 25 Gb/s if scaled)
        bool scaled;          //!< K scale with the link rate
        double pmax;          //!< marking probability at Kmax
        double g;             //!< G
        Time alphaInterval;   //!< AlphaUpdateInterval
        Time timer;           //!< RateIncreaseTimer
        uint64_t byteCounter; //!< ByteCounter (0: off)
        uint32_t f;           //!< FastRecoveryStages
        uint64_t rai;         //!< RateAi, bit/s
        uint64_t rhai;        //!< RateHai, bit/s
        uint64_t minRate;     //!< MinRate, bit/s
        double minFactor;     //!< MinDecreaseFactor
        bool clamp;           //!< ClampTargetRate
        Time decreasePeriod;  //!< RateDecreasePeriod
        Time cnpInterval;     //!< CnpInterval
    };

    /** \param spec the published values */
    DcqcnPresetTestCase(const Spec& spec)
        : TestCase("DCQCN preset " + spec.name + ": switch ECN at the port rate and NIC values"),
          m_spec(spec)
    {
    }

  private:
    void DoRun() override
    {
        const Spec& s = m_spec;
        for (const char* rate : {"25Gbps", "100Gbps", "400Gbps"})
        {
            NodeContainer sw(1);
            NodeContainer hosts(2);
            RoceSwitchHelper switches;
            RoceHelper roce;
            roce.SetDeviceAttribute("DataRate", StringValue(rate));
            RoceCcHelper("dcqcn", s.name).Configure(roce, switches);
            switches.Install(sw);
            Ptr<NetDevice> a = roce.Install(hosts.Get(0), sw.Get(0)).Get(0);
            Ptr<NetDevice> b = roce.Install(hosts.Get(1), sw.Get(0)).Get(0);
            RoceSwitchHelper::PopulateRoutes();
            auto qps = roce.CreateQp(a, b);
            Simulator::Stop(MicroSeconds(1));
            Simulator::Run();

            const double scale = s.scaled ? DataRate(rate).GetBitRate() / 25e9 : 1.0;
            Ptr<RoceSwitch> rs = sw.Get(0)->GetObject<RoceSwitch>();
            NS_TEST_ASSERT_MSG_EQ(rs->GetNPorts(), 2u, "two ports");
            for (uint32_t i = 0; i < rs->GetNPorts(); ++i)
            {
                Ptr<RoceEgressQueueDisc> qd = rs->GetPort(i)->GetQueueDisc();
                BooleanValue enabled;
                DoubleValue pmax;
                qd->GetAttribute("EcnEnabled", enabled);
                qd->GetAttribute("EcnPmax", pmax);
                NS_TEST_ASSERT_MSG_EQ(enabled.Get(), true, s.name << ": ECN on");
                NS_TEST_ASSERT_MSG_EQ(qd->GetKmin(),
                                      static_cast<uint64_t>(s.kmin * scale),
                                      s.name << " Kmin at " << rate);
                NS_TEST_ASSERT_MSG_EQ(qd->GetKmax(),
                                      static_cast<uint64_t>(s.kmax * scale),
                                      s.name << " Kmax at " << rate);
                NS_TEST_ASSERT_MSG_EQ_TOL(pmax.Get(), s.pmax, 1e-12, s.name << " Pmax");
                NS_TEST_ASSERT_MSG_EQ_TOL(qd->MarkProbability(qd->GetKmax()),
                                          s.pmax,
                                          1e-12,
                                          s.name << ": Pmax applies at Kmax");
            }
            for (Ptr<RoceQueuePair> qp : {qps.first, qps.second})
            {
                Ptr<RoceCongestionOps> cc = qp->GetCongestionControl();
                NS_TEST_ASSERT_MSG_EQ(cc->GetName(), "dcqcn", "DCQCN selected");
                DoubleValue d;
                TimeValue t;
                UintegerValue u;
                DataRateValue r;
                BooleanValue bo;
                cc->GetAttribute("G", d);
                NS_TEST_ASSERT_MSG_EQ_TOL(d.Get(), s.g, 1e-15, s.name << " g");
                cc->GetAttribute("InitialAlpha", d);
                NS_TEST_ASSERT_MSG_EQ(d.Get(), 1.0, s.name << " initial alpha");
                cc->GetAttribute("AlphaUpdateInterval", t);
                NS_TEST_ASSERT_MSG_EQ(t.Get(), s.alphaInterval, s.name << " alpha period");
                cc->GetAttribute("RateIncreaseTimer", t);
                NS_TEST_ASSERT_MSG_EQ(t.Get(), s.timer, s.name << " increase timer");
                cc->GetAttribute("ByteCounter", u);
                NS_TEST_ASSERT_MSG_EQ(u.Get(), s.byteCounter, s.name << " byte counter");
                cc->GetAttribute("FastRecoveryStages", u);
                NS_TEST_ASSERT_MSG_EQ(u.Get(), s.f, s.name << " F");
                cc->GetAttribute("RateAi", r);
                NS_TEST_ASSERT_MSG_EQ(r.Get().GetBitRate(), s.rai, s.name << " R_AI");
                cc->GetAttribute("RateHai", r);
                NS_TEST_ASSERT_MSG_EQ(r.Get().GetBitRate(), s.rhai, s.name << " R_HAI");
                cc->GetAttribute("MinRate", r);
                NS_TEST_ASSERT_MSG_EQ(r.Get().GetBitRate(), s.minRate, s.name << " min rate");
                cc->GetAttribute("MinDecreaseFactor", d);
                NS_TEST_ASSERT_MSG_EQ(d.Get(), s.minFactor, s.name << " min decrease factor");
                cc->GetAttribute("ClampTargetRate", bo);
                NS_TEST_ASSERT_MSG_EQ(bo.Get(), s.clamp, s.name << " target clamping");
                cc->GetAttribute("RateDecreasePeriod", t);
                NS_TEST_ASSERT_MSG_EQ(t.Get(), s.decreasePeriod, s.name << " decrease period");
                cc->GetAttribute("CnpInterval", t);
                NS_TEST_ASSERT_MSG_EQ(t.Get(), s.cnpInterval, s.name << " CNP interval");
            }
            Simulator::Destroy();
        }
    }

    Spec m_spec; //!< the published values
};

/**
 * \ingroup rocev2
 * rocev2-dcqcn-np suite.
 */
class RoceDcqcnNpTestSuite : public TestSuite
{
  public:
    RoceDcqcnNpTestSuite()
        : TestSuite("rocev2-dcqcn-np", Type::SYSTEM)
    {
        AddTestCase(new DcqcnCnpIntervalTestCase(MicroSeconds(20)), RoceTestDuration::QUICK);
        AddTestCase(new DcqcnCnpIntervalTestCase(Time(0)), RoceTestDuration::QUICK);
        AddTestCase(new DcqcnAckEcnTestCase, RoceTestDuration::QUICK);
        using Spec = DcqcnPresetTestCase::Spec;
        AddTestCase(new DcqcnPresetTestCase(Spec{"paper-2015",
                                                 5e3,
                                                 200e3,
                                                 false,
                                                 0.01,
                                                 1.0 / 256,
                                                 MicroSeconds(55),
                                                 MicroSeconds(55),
                                                 10000000,
                                                 5,
                                                 40000000,
                                                 400000000,
                                                 1000000,
                                                 0.0,
                                                 true,
                                                 Time(0),
                                                 MicroSeconds(50)}),
                    RoceTestDuration::QUICK);
        AddTestCase(new DcqcnPresetTestCase(Spec{"nvidia-cx",
                                                 150e3,
                                                 1500e3,
                                                 false,
                                                 1.0,
                                                 5.0 / 1024,
                                                 MicroSeconds(1),
                                                 MicroSeconds(300),
                                                 0,
                                                 1,
                                                 5000000,
                                                 50000000,
                                                 1000000,
                                                 0.5,
                                                 false,
                                                 MicroSeconds(4),
                                                 MicroSeconds(4)}),
                    RoceTestDuration::QUICK);
        AddTestCase(new DcqcnPresetTestCase(Spec{"hpcc-sim",
                                                 100e3,
                                                 400e3,
                                                 true,
                                                 0.2,
                                                 1.0 / 256,
                                                 MicroSeconds(1),
                                                 MicroSeconds(900),
                                                 0,
                                                 1,
                                                 50000000,
                                                 100000000,
                                                 100000000,
                                                 0.0,
                                                 false,
                                                 MicroSeconds(4),
                                                 Time(0)}),
                    RoceTestDuration::QUICK);
    }
};

static RoceDcqcnNpTestSuite g_roceDcqcnNpTestSuite; //!< static instance
