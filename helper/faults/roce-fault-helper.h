/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FAULT_HELPER_H
#define ROCE_FAULT_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class RoceAiZone;
class RoceFaultInjector;

/**
 * \ingroup rocev2
 * \brief Schedules the operational hazards of a RoCE fabric: links that go
 * down, come back and flap, failed switches, lossy links (bit errors or a
 * "bad optic" that drops a share of frames), slow receivers and PFC storms.
 *
 * Faults are scheduled from code (LinkDown(), SlowReceiver(), ...) or read
 * from a fault file (Load(), and the examples' `--faults=FILE`). Every fault
 * is applied at its time by the model objects themselves:
 * RoceChannel::SetLinkUp for links (both ends: frames in flight are lost, a
 * switch port drops what is queued to it), a ns-3 RateErrorModel as the
 * devices' ReceiveErrorModel for loss, RoceNetDevice's RxDrainRate for a slow
 * receiver, and RocePfcNetDevice::SetXoff for a storm.
 *
 * Routing reacts after a detection delay (SetDetectionDelay, or the
 * attribute ns3::RoceFaultInjector::DetectionDelay, default 1 ms, standing
 * for loss-of-signal detection plus routing convergence): the
 * routes of every switch are then computed again by
 * RoceSwitchHelper::PopulateRoutes over the links known to be up at that
 * time, so a failed link leaves its ECMP groups and a switch that lost its
 * only way to a rack is avoided by the others; when the link returns it
 * joins them again after the same delay. Until then frames routed to a down
 * link are dropped (reason "link-down") and the queue pairs' retransmission
 * timeout recovers them. SetReroute(false) (attribute Reroute) leaves
 * routes alone. The attributes' defaults can be set from any example's
 * command line, e.g. --ns3::RoceFaultInjector::DetectionDelay=100us.
 *
 * The helper's state lives on after the helper object itself: it may go out
 * of scope before Simulator::Run.
 */
class RoceFaultHelper
{
  public:
    RoceFaultHelper();
    ~RoceFaultHelper();
    /** \brief Copies share their state. \param other the helper */
    RoceFaultHelper(const RoceFaultHelper& other);
    /** \brief Copies share their state. \param other the helper \return this */
    RoceFaultHelper& operator=(const RoceFaultHelper& other);

    /**
     * \param delay time from a link change to the routes that reflect it
     */
    void SetDetectionDelay(Time delay);

    /** \param reroute false to leave the forwarding tables as they are */
    void SetReroute(bool reroute);

    /**
     * \brief Name a node for fault files (besides its node id).
     * \param name the name, e.g. "ctsw3" \param node the node
     */
    void AddName(const std::string& name, Ptr<Node> node);

    /**
     * \brief Name a device (a NIC) for fault files.
     * \param name the name, e.g. "gpu5" \param dev the device
     */
    void AddName(const std::string& name, Ptr<RocePfcNetDevice> dev);

    /**
     * \brief Name the nodes and NICs of an AI Zone: switches rtsw<i>, ctsw<i>,
     * atsw<i> and servers server<i> (container order), and each GPU's NIC
     * gpu<i> (GPU index).
     * \param zone the zone
     */
    void AddNames(const RoceAiZone& zone);

    /**
     * \param a one node \param b another
     * \return every link between them (parallel links included), in a's
     *         device order; empty if none
     */
    static std::vector<Ptr<RoceChannel>> LinksBetween(Ptr<Node> a, Ptr<Node> b);

    /** \brief Take a link down at a time. \param at when \param link the link */
    void LinkDown(Time at, Ptr<RoceChannel> link);

    /** \brief Bring a link up at a time. \param at when \param link the link */
    void LinkUp(Time at, Ptr<RoceChannel> link);

    /**
     * \brief A flapping link: down at `start`, up after downFraction x period,
     * down again at start + period, and so on; up for good at `stop`.
     * \param start first down \param link the link \param period the cycle
     * \param downFraction share of each cycle spent down, in (0, 1)
     * \param stop when it stops flapping (and stays up)
     */
    void LinkFlap(Time start, Ptr<RoceChannel> link, Time period, double downFraction, Time stop);

    /** \brief All links of a switch down. \param at when \param sw the switch node */
    void SwitchDown(Time at, Ptr<Node> sw);

    /**
     * \brief A failed switch comes back: its links come up, except those
     * whose other end is a switch that is still down.
     * \param at when \param sw the switch node
     */
    void SwitchUp(Time at, Ptr<Node> sw);

    /**
     * \brief Loss on a link, in both directions, from a time on.
     * \param at when it starts
     * \param link the link
     * \param rate the bit error rate (perBit) or the share of frames lost
     *        (a bad optic), in [0, 1]
     * \param perBit true for a bit error rate (a frame of n bytes is lost
     *        with probability 1 - (1 - rate)^(8n)), false for a frame share
     * \param until when it ends (Time::Max(): never)
     */
    void LinkLoss(Time at, Ptr<RoceChannel> link, double rate, bool perBit, Time until);

    /**
     * \brief A slow receiver: the NIC's host side (PCIe, GPU memory) drains
     * received frames at `rate` for a time, pushing back through PFC
     * (RoceNetDevice RxDrainRate, RxXoffThreshold).
     * \param at when \param nic the NIC \param rate the drain rate
     * \param duration how long
     */
    void SlowReceiver(Time at, Ptr<RoceNetDevice> nic, DataRate rate, Time duration);

    /**
     * \brief A PFC storm: a device that keeps its peer paused on a priority
     * (XOFF sent and refreshed) for a time, whatever its buffer holds.
     * \param at when \param dev the device (a NIC, or a switch port)
     * \param priority the priority \param duration how long
     */
    void PfcStorm(Time at, Ptr<RocePfcNetDevice> dev, uint8_t priority, Time duration);

    /**
     * \brief Schedule the faults of a fault file. Bad lines abort with
     * `file:line: field 'value' ...`.
     *
     * One fault per line, `#` starts a comment:
     * \code
     * # time  fault          target           parameters
     * 10ms    link-down      rtsw0 ctsw1      # every link between two nodes
     * 30ms    link-up        rtsw0 ctsw1
     * 0s      link-flap      5:2              period=2ms down=0.5 until=40ms
     * 5ms     switch-down    ctsw1
     * 15ms    switch-up      ctsw1
     * 0s      link-loss      rtsw3 ctsw0      ber=1e-7
     * 0s      link-loss      rtsw3 ctsw1      drop=0.01 until=20ms
     * 2ms     slow-receiver  gpu5             rate=50Gbps for=5ms
     * 2ms     pfc-storm      gpu9             priority=3 for=10ms
     * \endcode
     * A node is a node id or a name (AddName, AddNames); `node:d` names the
     * node's device d, and a device name (gpu5) names a NIC. A link is two
     * nodes (every link between them) or one device (its link). Times take
     * a unit.
     * \param path the fault file
     */
    void Load(const std::string& path);

    /**
     * \brief Fix the random streams of the loss models made so far.
     * \param stream first stream index \return streams used
     */
    int64_t AssignStreams(int64_t stream);

    /** \brief Print the faults applied so far, one per line with its time. \param os where */
    void PrintLog(std::ostream& os) const;

    /** \return the faults applied so far, "time description" each */
    std::vector<std::string> GetLog() const;

    /** \return route recomputations done so far */
    uint32_t GetReroutes() const;

    /** \return the node names known to fault files */
    const std::map<std::string, Ptr<Node>>& GetNodeNames() const;

    /** \return the device names known to fault files */
    const std::map<std::string, Ptr<RocePfcNetDevice>>& GetDeviceNames() const;

  private:
    Ptr<RoceFaultInjector> m_state; //!< shared with the scheduled events
};

} // namespace ns3

#endif /* ROCE_FAULT_HELPER_H */
