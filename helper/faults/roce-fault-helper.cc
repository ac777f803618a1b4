/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-fault-helper.h"

#include "../formats/roce-field-reader.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-error.h"
#include "ns3/roce-flow-engine.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <iomanip>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFaultHelper");

/**
 * \ingroup rocev2
 * What a RoceFaultHelper and the events it scheduled share: the routing
 * settings (attributes), the names, the link state routing knows, and the
 * log. It lives as long as a helper copy or a scheduled fault holds it.
 */
class RoceFaultInjector : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::RoceFaultInjector")
                .SetParent<Object>()
                .SetGroupName("Rocev2")
                .AddConstructor<RoceFaultInjector>()
                .AddAttribute("DetectionDelay",
                              "Time from a link going down or up to the routes that reflect "
                              "it (loss-of-signal detection plus routing convergence).",
                              TimeValue(MilliSeconds(1)),
                              MakeTimeAccessor(&RoceFaultInjector::detectionDelay),
                              MakeTimeChecker(Time(0)))
                .AddAttribute("Reroute",
                              "Recompute every switch's routes after each link change "
                              "(false: routes stay, frames to a down link are dropped).",
                              BooleanValue(true),
                              MakeBooleanAccessor(&RoceFaultInjector::reroute),
                              MakeBooleanChecker());
        return tid;
    }

    Time detectionDelay;                                   //!< link change to routes that know it
    bool reroute{true};                                    //!< recompute routes after link changes
    std::map<std::string, Ptr<Node>> nodeNames;            //!< names of nodes
    std::map<std::string, Ptr<RocePfcNetDevice>> devNames; //!< names of devices
    std::map<const RoceChannel*, bool> routedUp;           //!< link state routing knows
    std::map<Time, std::vector<std::pair<Ptr<RoceChannel>, bool>>> pending; //!< to reroute
    std::set<uint32_t> downSwitches;                                        //!< failed switches
    std::vector<Ptr<RateErrorModel>> lossModels;                            //!< for AssignStreams
    std::vector<std::string> log;                                           //!< applied faults
    uint32_t reroutes{0}; //!< route recomputations

    /**
     * \return the flow-level engine that carries the NICs' messages, null at
     *         packet level (looked up at each call: it may be installed after
     *         the faults are scheduled)
     */
    static RoceFlowEngine* FlowEngine()
    {
        RoceFlowEngine* engine = nullptr;
        for (auto it = NodeList::Begin(); it != NodeList::End() && !engine; ++it)
        {
            for (uint32_t d = 0; d < (*it)->GetNDevices() && !engine; ++d)
            {
                if (Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>((*it)->GetDevice(d)))
                {
                    engine = dynamic_cast<RoceFlowEngine*>(nic->GetMessageOffload());
                }
            }
        }
        return engine;
    }

    /**
     * \brief Refuse a fault flow level does not model.
     * \param kind the fault's name in the fault file
     */
    static void RefuseAtFlowLevel(const std::string& kind)
    {
        ROCE_ERROR_IF(FlowEngine(),
                      "RoceFaultHelper: " << kind
                                          << " at flow level: it has no frames to lose, no "
                                             "receive buffer and no PFC (use --fidelity=packet); "
                                             "link-down/up/flap and switch-down/up are modelled");
    }

    /** \param what a fault applied now */
    void Record(const std::string& what)
    {
        std::ostringstream os;
        os << std::fixed << std::setprecision(6) << Simulator::Now().GetSeconds() * 1e3 << "ms "
           << what;
        log.push_back(os.str());
        NS_LOG_INFO(os.str());
    }

    /** \return a node's name, or n<id> */
    std::string NameOf(Ptr<Node> node) const
    {
        for (const auto& [name, n] : nodeNames)
        {
            if (n == node)
            {
                return name;
            }
        }
        return "n" + std::to_string(node->GetId());
    }

    /** \return a link as "a:d-b:e" */
    std::string NameOf(Ptr<RoceChannel> ch) const
    {
        std::string s;
        for (std::size_t i = 0; i < ch->GetNDevices(); ++i)
        {
            Ptr<NetDevice> d = ch->GetDevice(i);
            s += (i ? "-" : "") + NameOf(d->GetNode()) + ":" + std::to_string(d->GetIfIndex());
        }
        return s;
    }

    /**
     * \brief Change a link now; routing learns it after the detection delay.
     * \param ch the link \param up its new state
     */
    void SetLink(Ptr<RoceChannel> ch, bool up)
    {
        if (ch->IsLinkUp() == up)
        {
            return;
        }
        ch->SetLinkUp(up);
        if (RoceFlowEngine* engine = FlowEngine())
        {
            engine->LinkChanged(ch);
        }
        if (!reroute)
        {
            return;
        }
        Time t = Simulator::Now() + detectionDelay;
        auto& at = pending[t];
        if (at.empty())
        {
            Ptr<RoceFaultInjector> self(this);
            Simulator::Schedule(detectionDelay, [self, t]() { self->Reconverge(t); });
        }
        at.emplace_back(ch, up);
    }

    /** \brief Routing learns the link changes of one instant. \param t their time + delay */
    void Reconverge(Time t)
    {
        for (const auto& [ch, up] : pending[t])
        {
            routedUp[PeekPointer(ch)] = up;
        }
        pending.erase(t);
        RoceSwitchHelper::PopulateRoutes([this](Ptr<RoceChannel> ch) {
            auto it = routedUp.find(PeekPointer(ch));
            return it == routedUp.end() ? ch->IsLinkUp() : it->second;
        });
        ++reroutes;
        if (RoceFlowEngine* engine = FlowEngine())
        {
            engine->RoutesChanged();
        }
        Record("routes recomputed (" + std::to_string(reroutes) + ")");
    }

    /** \brief One step of a flapping link. */
    void Flap(Ptr<RoceChannel> ch, Time period, double downFraction, Time stop)
    {
        SetLink(ch, false);
        Record("link-flap " + NameOf(ch) + " down");
        Time upAt = Simulator::Now() + period * downFraction;
        Ptr<RoceFaultInjector> self(this);
        if (upAt >= stop)
        {
            Simulator::Schedule(stop - Simulator::Now(), [self, ch]() {
                self->SetLink(ch, true);
                self->Record("link-flap " + self->NameOf(ch) + " up (end)");
            });
            return;
        }
        Time nextDown = Simulator::Now() + period;
        Simulator::Schedule(upAt - Simulator::Now(),
                            [self, ch, period, downFraction, stop, nextDown]() {
                                self->SetLink(ch, true);
                                self->Record("link-flap " + self->NameOf(ch) + " up");
                                if (nextDown < stop)
                                {
                                    Simulator::Schedule(
                                        nextDown - Simulator::Now(),
                                        [self, ch, period, downFraction, stop]() {
                                            self->Flap(ch, period, downFraction, stop);
                                        });
                                }
                            });
    }
};

NS_OBJECT_ENSURE_REGISTERED(RoceFaultInjector);

RoceFaultHelper::RoceFaultHelper()
    : m_state(CreateObject<RoceFaultInjector>())
{
}

RoceFaultHelper::~RoceFaultHelper() = default;

RoceFaultHelper::RoceFaultHelper(const RoceFaultHelper& other) = default;

RoceFaultHelper& RoceFaultHelper::operator=(const RoceFaultHelper& other) = default;

void
RoceFaultHelper::SetDetectionDelay(Time delay)
{
    ROCE_ERROR_IF(delay.IsStrictlyNegative(),
                  "RoceFaultHelper: detection delay " << delay << " is negative");
    m_state->detectionDelay = delay;
}

void
RoceFaultHelper::SetReroute(bool reroute)
{
    m_state->reroute = reroute;
}

void
RoceFaultHelper::AddName(const std::string& name, Ptr<Node> node)
{
    m_state->nodeNames[name] = node;
}

void
RoceFaultHelper::AddName(const std::string& name, Ptr<RocePfcNetDevice> dev)
{
    m_state->devNames[name] = dev;
}

void
RoceFaultHelper::AddNames(const RoceAiZone& zone)
{
    auto add = [this](const std::string& prefix, const NodeContainer& nodes) {
        for (uint32_t i = 0; i < nodes.GetN(); ++i)
        {
            AddName(prefix + std::to_string(i), nodes.Get(i));
        }
    };
    add("rtsw", zone.rtsw);
    add("ctsw", zone.ctsw);
    add("atsw", zone.atsw);
    add("server", zone.servers);
    for (uint32_t g = 0; g < zone.nics.size(); ++g)
    {
        // Across MPI ranks, the NICs this rank builds.
        if (Ptr<RocePfcNetDevice> nic = DynamicCast<RocePfcNetDevice>(zone.nics[g]))
        {
            AddName("gpu" + std::to_string(g), nic);
        }
    }
}

std::vector<Ptr<RoceChannel>>
RoceFaultHelper::LinksBetween(Ptr<Node> a, Ptr<Node> b)
{
    std::vector<Ptr<RoceChannel>> links;
    for (uint32_t d = 0; d < a->GetNDevices(); ++d)
    {
        Ptr<RocePfcNetDevice> dev = DynamicCast<RocePfcNetDevice>(a->GetDevice(d));
        Ptr<RoceChannel> ch = dev ? DynamicCast<RoceChannel>(dev->GetChannel()) : nullptr;
        Ptr<RocePfcNetDevice> peer = ch ? ch->GetPeer(PeekPointer(dev)) : nullptr;
        if (peer && peer->GetNode() == b)
        {
            links.push_back(ch);
        }
    }
    return links;
}

namespace
{
/// A rate as "25 Gb/s".
std::string
RateText(DataRate rate)
{
    std::ostringstream os;
    os << rate.GetBitRate() / 1e9 << " Gb/s";
    return os.str();
}

/// Abort unless a time is not in the past.
void
CheckStart(Time at, const char* what)
{
    ROCE_ERROR_IF(at < Simulator::Now(),
                  "RoceFaultHelper: " << what << " at " << at << " is in the past (now "
                                      << Simulator::Now() << ")");
}
} // namespace

void
RoceFaultHelper::LinkDown(Time at, Ptr<RoceChannel> link)
{
    CheckStart(at, "link-down");
    Ptr<RoceFaultInjector> s = m_state;
    Simulator::Schedule(at - Simulator::Now(), [s, link]() {
        s->SetLink(link, false);
        s->Record("link-down " + s->NameOf(link));
    });
}

void
RoceFaultHelper::LinkUp(Time at, Ptr<RoceChannel> link)
{
    CheckStart(at, "link-up");
    Ptr<RoceFaultInjector> s = m_state;
    Simulator::Schedule(at - Simulator::Now(), [s, link]() {
        s->SetLink(link, true);
        s->Record("link-up " + s->NameOf(link));
    });
}

void
RoceFaultHelper::LinkFlap(Time start,
                          Ptr<RoceChannel> link,
                          Time period,
                          double downFraction,
                          Time stop)
{
    CheckStart(start, "link-flap");
    ROCE_ERROR_IF(!period.IsStrictlyPositive(),
                  "RoceFaultHelper: link-flap period " << period << " must be positive");
    ROCE_ERROR_IF(!(downFraction > 0 && downFraction < 1),
                  "RoceFaultHelper: link-flap down fraction " << downFraction
                                                              << " must be in (0, 1)");
    ROCE_ERROR_IF(stop <= start,
                  "RoceFaultHelper: link-flap until " << stop << " must be after its start "
                                                      << start);
    Ptr<RoceFaultInjector> s = m_state;
    Simulator::Schedule(start - Simulator::Now(), [s, link, period, downFraction, stop]() {
        s->Flap(link, period, downFraction, stop);
    });
}

namespace
{
/// Every link of a node.
std::vector<Ptr<RoceChannel>>
LinksOf(Ptr<Node> node)
{
    std::vector<Ptr<RoceChannel>> links;
    for (uint32_t d = 0; d < node->GetNDevices(); ++d)
    {
        Ptr<RocePfcNetDevice> dev = DynamicCast<RocePfcNetDevice>(node->GetDevice(d));
        Ptr<RoceChannel> ch = dev ? DynamicCast<RoceChannel>(dev->GetChannel()) : nullptr;
        if (ch)
        {
            links.push_back(ch);
        }
    }
    return links;
}
} // namespace

void
RoceFaultHelper::SwitchDown(Time at, Ptr<Node> sw)
{
    CheckStart(at, "switch-down");
    ROCE_ERROR_IF(!sw->GetObject<RoceSwitch>(),
                  "RoceFaultHelper: switch-down: node " << sw->GetId() << " is not a switch");
    Ptr<RoceFaultInjector> s = m_state;
    Simulator::Schedule(at - Simulator::Now(), [s, sw]() {
        s->downSwitches.insert(sw->GetId());
        for (const auto& ch : LinksOf(sw))
        {
            s->SetLink(ch, false);
        }
        s->Record("switch-down " + s->NameOf(sw));
    });
}

void
RoceFaultHelper::SwitchUp(Time at, Ptr<Node> sw)
{
    CheckStart(at, "switch-up");
    ROCE_ERROR_IF(!sw->GetObject<RoceSwitch>(),
                  "RoceFaultHelper: switch-up: node " << sw->GetId() << " is not a switch");
    Ptr<RoceFaultInjector> s = m_state;
    Simulator::Schedule(at - Simulator::Now(), [s, sw]() {
        s->downSwitches.erase(sw->GetId());
        for (const auto& ch : LinksOf(sw))
        {
            Ptr<NetDevice> far = ch->GetNDevices() < 2               ? nullptr
                                 : ch->GetDevice(0)->GetNode() == sw ? ch->GetDevice(1)
                                                                     : ch->GetDevice(0);
            if (!far || s->downSwitches.count(far->GetNode()->GetId()) == 0)
            {
                s->SetLink(ch, true);
            }
        }
        s->Record("switch-up " + s->NameOf(sw));
    });
}

void
RoceFaultHelper::LinkLoss(Time at, Ptr<RoceChannel> link, double rate, bool perBit, Time until)
{
    CheckStart(at, "link-loss");
    RoceFaultInjector::RefuseAtFlowLevel("link-loss");
    ROCE_ERROR_IF(!(rate >= 0 && rate <= 1),
                  "RoceFaultHelper: link-loss " << (perBit ? "ber" : "drop") << " " << rate
                                                << " is not in [0, 1]");
    ROCE_ERROR_IF(until <= at,
                  "RoceFaultHelper: link-loss until " << until << " must be after its start "
                                                      << at);
    std::vector<std::pair<Ptr<RocePfcNetDevice>, Ptr<RateErrorModel>>> ends;
    for (std::size_t i = 0; i < link->GetNDevices(); ++i)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(perBit ? RateErrorModel::ERROR_UNIT_BIT : RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(rate);
        m_state->lossModels.push_back(em);
        ends.emplace_back(DynamicCast<RocePfcNetDevice>(link->GetDevice(i)), em);
    }
    Ptr<RoceFaultInjector> s = m_state;
    std::ostringstream what;
    what << "link-loss " << (perBit ? "ber=" : "drop=") << rate;
    std::string desc = what.str();
    Simulator::Schedule(at - Simulator::Now(), [s, link, ends, desc]() {
        RoceFaultInjector::RefuseAtFlowLevel("link-loss");
        for (const auto& [dev, em] : ends)
        {
            dev->SetReceiveErrorModel(em);
        }
        s->Record(desc + " on " + s->NameOf(link));
    });
    if (until != Time::Max())
    {
        Simulator::Schedule(until - Simulator::Now(), [s, link, ends]() {
            for (const auto& [dev, em] : ends)
            {
                dev->SetReceiveErrorModel(nullptr);
            }
            s->Record("link-loss ends on " + s->NameOf(link));
        });
    }
}

void
RoceFaultHelper::SlowReceiver(Time at, Ptr<RoceNetDevice> nic, DataRate rate, Time duration)
{
    CheckStart(at, "slow-receiver");
    RoceFaultInjector::RefuseAtFlowLevel("slow-receiver");
    ROCE_ERROR_IF(rate.GetBitRate() == 0, "RoceFaultHelper: slow-receiver rate must be positive");
    ROCE_ERROR_IF(!duration.IsStrictlyPositive(),
                  "RoceFaultHelper: slow-receiver duration " << duration << " must be positive");
    Ptr<RoceFaultInjector> s = m_state;
    Simulator::Schedule(at - Simulator::Now(), [s, nic, rate, duration]() {
        RoceFaultInjector::RefuseAtFlowLevel("slow-receiver");
        DataRateValue before;
        nic->GetAttribute("RxDrainRate", before);
        nic->SetAttribute("RxDrainRate", DataRateValue(rate));
        s->Record("slow-receiver " + s->NameOf(nic->GetNode()) + ":" +
                  std::to_string(nic->GetIfIndex()) + " drains at " + RateText(rate));
        DataRate old = before.Get();
        Simulator::Schedule(duration, [s, nic, old]() {
            nic->SetAttribute("RxDrainRate", DataRateValue(old));
            s->Record("slow-receiver " + s->NameOf(nic->GetNode()) + ":" +
                      std::to_string(nic->GetIfIndex()) + " ends");
        });
    });
}

void
RoceFaultHelper::PfcStorm(Time at, Ptr<RocePfcNetDevice> dev, uint8_t priority, Time duration)
{
    CheckStart(at, "pfc-storm");
    RoceFaultInjector::RefuseAtFlowLevel("pfc-storm");
    ROCE_ERROR_IF(priority >= ROCE_NUM_PRIORITIES,
                  "RoceFaultHelper: pfc-storm priority " << +priority << " is not in 0..7");
    ROCE_ERROR_IF(!duration.IsStrictlyPositive(),
                  "RoceFaultHelper: pfc-storm duration " << duration << " must be positive");
    Ptr<RoceFaultInjector> s = m_state;
    Simulator::Schedule(at - Simulator::Now(), [s, dev, priority, duration]() {
        RoceFaultInjector::RefuseAtFlowLevel("pfc-storm");
        dev->SetXoff(priority, true);
        std::string name = s->NameOf(dev->GetNode()) + ":" + std::to_string(dev->GetIfIndex());
        s->Record("pfc-storm " + name + " priority " + std::to_string(priority));
        Simulator::Schedule(duration, [s, dev, priority, name]() {
            dev->SetXoff(priority, false);
            s->Record("pfc-storm " + name + " ends");
        });
    });
}

int64_t
RoceFaultHelper::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (const auto& em : m_state->lossModels)
    {
        used += em->AssignStreams(stream + used);
    }
    return used;
}

void
RoceFaultHelper::PrintLog(std::ostream& os) const
{
    for (const auto& line : m_state->log)
    {
        os << line << "\n";
    }
}

std::vector<std::string>
RoceFaultHelper::GetLog() const
{
    return m_state->log;
}

uint32_t
RoceFaultHelper::GetReroutes() const
{
    return m_state->reroutes;
}

const std::map<std::string, Ptr<Node>>&
RoceFaultHelper::GetNodeNames() const
{
    return m_state->nodeNames;
}

const std::map<std::string, Ptr<RocePfcNetDevice>>&
RoceFaultHelper::GetDeviceNames() const
{
    return m_state->devNames;
}

} // namespace ns3
