/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NIC_SCHEDULER_H
#define ROCE_NIC_SCHEDULER_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/roce-frame.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

class RoceQueuePair;

/**
 * \ingroup rocev2
 * \brief Which queue pair of a NIC sends the next data packet.
 *
 * A plain class owned by RoceNetDevice. It holds all scheduling state,
 * indexed by the QP's slot on its NIC (QP number - RoceNetDevice::FIRST_QPN);
 * a queue pair offers only NextSendTime(now) and BuildNextPacket().
 *
 * Per priority there is a ready ring, served round robin with one packet per
 * turn, and a min-heap of the QPs waiting for their pacing time, keyed by that
 * time (first come first served among equal times). At each dequeue the QPs
 * whose time has come move from the heap to the tail of the ring. A QP that
 * has nothing to send or a full window leaves both and comes back through
 * Notify(). A heap entry is deleted lazily: each slot carries a generation
 * number, and an entry whose generation is not the slot's is skipped.
 *
 * Per packet the cost is O(1) for a QP sending at line rate and O(log H) for
 * a paced one, H being the number of QPs waiting for their pacing time; idle
 * QPs cost nothing. The ring and heap vectors grow with the number of QPs
 * that are active at once and are reused, so a packet allocates nothing.
 */
class RoceNicScheduler
{
  public:
    RoceNicScheduler();

    /**
     * \brief Give a queue pair the next slot.
     * \param qp the queue pair (owned by the NIC, which outlives the scheduler's use)
     * \return its slot, 0, 1, 2, ...
     */
    uint32_t AddSlot(RoceQueuePair* qp);

    /** \return the number of slots */
    uint32_t GetNSlots() const;

    /**
     * \brief The QP in a slot may have become able to send, or able to send
     * earlier than the scheduler thinks (a post, an ACK that opened its
     * window, a go-back, a rate rise). A QP waiting for its pacing time is
     * re-keyed when its new time is earlier.
     * \param slot the QP's slot
     * \param priority its priority
     * \param now the current time
     */
    void Notify(uint32_t slot, uint8_t priority, Time now);

    /**
     * \param priority a priority
     * \return true if no QP of that priority is ready or waiting (Dequeue
     *         would return nullptr and NextWakeTime ignores it)
     */
    bool IsIdle(uint8_t priority) const
    {
        return m_queues[priority].ring.count == 0 && m_queues[priority].heap.empty();
    }

    /**
     * \brief Build the next data packet of a priority.
     * \param priority the priority
     * \param now the current time
     * \return the packet, or nullptr if no QP of that priority may send now
     */
    RoceFramePtr Dequeue(uint8_t priority, Time now);

    /**
     * \param pausedMask bit p set: priority p is paused and does not count
     * \return the earliest pacing time of a waiting QP of an unpaused
     *         priority, or Time::Max() if none waits
     */
    Time NextWakeTime(uint8_t pausedMask);

    /**
     * \brief Whether a QP has started waiting, since the last NextWakeTime(),
     * with a pacing time before t. If not, and nothing was unpaused, a wake-up
     * already set for t is still the earliest one needed.
     * \param t a time
     * \return true if some QP now waits for a time before t
     */
    bool WaitsSinceBefore(Time t) const
    {
        return m_minWaitSince < t.GetTimeStep();
    }

    /** \brief Forget every QP (the NIC is disposed). */
    void Clear();

  private:
    /** Where a slot is. */
    enum Where : uint8_t
    {
        IDLE,    //!< in neither: nothing to send or window full
        READY,   //!< in its priority's ring
        WAITING, //!< in its priority's heap
    };

    /** Scheduling state of one slot. */
    struct Slot
    {
        RoceQueuePair* qp{nullptr}; //!< the queue pair
        int64_t key{0};             //!< its heap key (time steps) while WAITING
        uint32_t generation{0};     //!< heap entries of other generations are stale
        Where where{IDLE};          //!< where it is
    };

    /** One heap entry. */
    struct HeapEntry
    {
        int64_t time;        //!< the pacing time, in time steps
        uint64_t order;      //!< push order, breaks ties first come first served
        uint32_t slot;       //!< the slot
        uint32_t generation; //!< the slot's generation when pushed
    };

    /** A FIFO ring of slots that grows by doubling and never shrinks. */
    struct Ring
    {
        std::vector<uint32_t> buf; //!< storage, a power of two long (or empty)
        uint32_t head{0};          //!< index of the first element
        uint32_t count{0};         //!< number of elements
        /** \param slot append it */
        void Push(uint32_t slot);
        /** \return the first element, removed */
        uint32_t Pop();
    };

    /** Per-priority state. */
    struct Queue
    {
        Ring ring;                   //!< ready QPs, round robin
        std::vector<HeapEntry> heap; //!< waiting QPs, min-heap on (time, order)
    };

    /**
     * \brief Put a slot in its priority's heap.
     * \param q the priority's queues \param slot the slot \param t its pacing time
     */
    void Wait(Queue& q, uint32_t slot, Time t);
    /**
     * \brief Drop stale entries from the top of a heap.
     * \param q the priority's queues
     */
    void PruneTop(Queue& q);

    std::vector<Slot> m_slots;                       //!< by slot
    std::array<Queue, ROCE_NUM_PRIORITIES> m_queues; //!< by priority
    uint64_t m_order{0};                             //!< heap push counter
    int64_t m_minWaitSince{INT64_MAX};               //!< earliest key pushed since NextWakeTime()
};

} // namespace ns3

#endif /* ROCE_NIC_SCHEDULER_H */
