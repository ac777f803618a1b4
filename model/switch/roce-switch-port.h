/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_PORT_H
#define ROCE_SWITCH_PORT_H

#include "roce-egress-queue-disc.h"

#include "ns3/roce-pfc-net-device.h"

namespace ns3
{

class RoceSwitch;

/**
 * \ingroup rocev2
 * \brief One port of a RoceSwitch: the shared PFC-capable wire end plus an
 * egress queue disc.
 *
 * Received frames go to the switch (ingress: MMU admission, forwarding);
 * the wire takes frames from the port's RoceEgressQueueDisc, which skips the
 * priorities the downstream device paused. The queue disc is the Pointer
 * attribute EgressQueueDisc, so
 * /NodeList/N/DeviceList/D/$ns3::RoceSwitchPort/EgressQueueDisc/... reaches it.
 */
class RoceSwitchPort : public RocePfcNetDevice
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceSwitchPort();
    ~RoceSwitchPort() override;

    /**
     * \brief Join a switch.
     * \param sw the switch
     * \param index this port's index on it
     * \param qdisc the egress queue disc
     */
    void SetSwitch(RoceSwitch* sw, uint32_t index, Ptr<RoceEgressQueueDisc> qdisc);

    /** \return the port's index on its switch */
    uint32_t GetPortIndex() const;

    /** \return the egress queue disc */
    Ptr<RoceEgressQueueDisc> GetQueueDisc() const;

    /**
     * \brief Queue a frame for transmission (it has been routed here).
     * \param p the frame
     * \param ingress the index on the switch of the port it arrived on
     * \param priority its priority (= ingress PG = egress queue)
     * \param ect the frame is ECN-capable
     * \param intRequest the frame asks for INT records
     * \return true if queued, false if the MMU dropped it
     */
    bool Enqueue(Ptr<Packet> p, uint16_t ingress, uint8_t priority, bool ect, bool intRequest);

  protected:
    void DoDispose() override;
    Ptr<Packet> DequeueData(uint8_t pausedMask) override;
    void ReceiveFrame(Ptr<Packet> p, const RoceFrame& frame) override;
    /** \return true: a dead port drops what is queued to it */
    bool DropsWhenLinkDown() const override;

  private:
    /**
     * \brief Append this hop's INT record before the ICRC and count it in BTH.
     *
     * The frame's first bytes are patched in place (RoceRawHeader::StampInt);
     * no header is re-serialised. A frame that already carries
     * RoceIntRecord::MAX_HOPS records is left as it is.
     * \param p the frame leaving the port
     * \param priority its egress queue
     */
    void StampInt(Ptr<Packet> p, uint8_t priority);

    RoceSwitch* m_switch{nullptr};
    uint32_t m_index{0};
    Ptr<RoceEgressQueueDisc> m_qdisc;

  protected:
    /**
     * \brief Exact: whether the egress queue holds bytes in a priority that
     * is not paused.
     * \param pausedMask bit p set if priority p is paused by the peer
     * \return true if DequeueData may give a frame
     */
    bool HasWaitingData(uint8_t pausedMask) const override;
};

} // namespace ns3

#endif /* ROCE_SWITCH_PORT_H */
