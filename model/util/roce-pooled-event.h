/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_POOLED_EVENT_H
#define ROCE_POOLED_EVENT_H

#include "roce-simulator-impl.h"

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/simulator.h"

#include <cstddef>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

// ROCE_ASAN: built with AddressSanitizer (GCC defines __SANITIZE_ADDRESS__,
// Clang answers __has_feature(address_sanitizer)).
#if defined(__SANITIZE_ADDRESS__)
#define ROCE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROCE_ASAN 1
#endif
#endif

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Memory for events of one size, reused last-freed-first.
 *
 * The packet path schedules one event per frame and hop. ns-3 allocates each
 * with `new` and frees it after it ran; with thousands of frames in flight
 * the allocator hands out blocks that left the cache long ago. This list
 * gives back the block freed last, which the event that just ran still has
 * in cache, and carves new blocks from 64-block slabs. Blocks are never
 * returned to the system: the list holds at most the peak of pending events
 * of its kind. Under AddressSanitizer the blocks come from `new` and go
 * back with `delete`, so a use after free is still reported.
 */
class RoceEventFreeList
{
  public:
    /** \param blockSize bytes per block, at least one pointer */
    explicit RoceEventFreeList(std::size_t blockSize);

    RoceEventFreeList(const RoceEventFreeList&) = delete;
    RoceEventFreeList& operator=(const RoceEventFreeList&) = delete;

    /** \return a block of the list's size */
    void* Take()
    {
#ifndef ROCE_ASAN
        if (m_head != nullptr)
        {
            Node* n = m_head;
            m_head = n->next;
            return n;
        }
#endif
        return Refill();
    }

    /** \param block a block Take() returned */
    void Give(void* block)
    {
#ifdef ROCE_ASAN
        ::operator delete(block);
#else
        auto* n = static_cast<Node*>(block);
        n->next = m_head;
        m_head = n;
#endif
    }

  private:
    /** A free block. */
    struct Node
    {
        Node* next; //!< the next free block
    };

    /** \return a new block, after carving a slab into the list */
    void* Refill();

    std::size_t m_blockSize;                //!< bytes per block, a multiple of the alignment
    [[maybe_unused]] Node* m_head{nullptr}; //!< the block freed last (unused under ASan)
};

/**
 * \ingroup rocev2
 * \brief Base of an event class whose objects come from a RoceEventFreeList
 * of its own size: `new Derived(...)` and ns-3's final Unref() (a virtual
 * destructor, so the derived class's deallocation) take and give blocks of
 * that list. One list per class, created on first use and never destroyed,
 * so an event freed by Simulator::Destroy during exit finds it.
 * \tparam Derived the event class (CRTP)
 */
template <typename Derived>
class RocePooledEvent : public EventImpl
{
  public:
    /** \param size the object's size \return a block from the class's list */
    static void* operator new(std::size_t size)
    {
        return List(size).Take();
    }

    /** \param block an object's memory */
    static void operator delete(void* block)
    {
        List(sizeof(Derived)).Give(block);
    }

  private:
    /** \param size the class's size \return its list */
    static RoceEventFreeList& List(std::size_t size)
    {
        static RoceEventFreeList* list = new RoceEventFreeList(size);
        return *list;
    }
};

/**
 * \ingroup rocev2
 * \brief A pooled event that calls member function F of an object with
 * the arguments it was made with (ns-3's MakeEvent, in pooled memory). The
 * arguments are moved into the call, so F takes them by value or by const
 * reference.
 * \tparam F the member function \tparam T the object's class
 * \tparam Args the stored arguments
 */
template <auto F, typename T, typename... Args>
class RoceMemberEvent final : public RocePooledEvent<RoceMemberEvent<F, T, Args...>>
{
  public:
    /** \param obj the object \param args the arguments F is called with */
    template <typename... Us>
    explicit RoceMemberEvent(T* obj, Us&&... args)
        : m_obj(obj),
          m_args(std::forward<Us>(args)...)
    {
    }

  protected:
    void Notify() override
    {
        // An event runs once: its arguments move into the call (a frame's
        // Ptr<Packet> changes hands without a reference count round trip).
        std::apply([this](auto&... a) { (m_obj->*F)(std::move(a)...); }, m_args);
    }

  private:
    T* m_obj;                   //!< the object
    std::tuple<Args...> m_args; //!< the arguments
};

/**
 * \ingroup rocev2
 * \brief Simulator::Schedule(delay, F, obj, args...) with the event in
 * pooled memory: the same event, uid and order as ns-3's template.
 * \tparam F the member function
 * \param delay from now \param obj the object \param args F's arguments
 * \return the event's id
 */
template <auto F, typename T, typename... Us>
EventId
RoceSchedule(const Time& delay, T* obj, Us&&... args)
{
    // The event's first reference becomes the simulator's: ScheduleOwned
    // keeps it; Simulator::Schedule takes its own (GetPointer), and the Ptr
    // adopts the first one and drops it on return.
    auto* ev = new RoceMemberEvent<F, T, std::decay_t<Us>...>(obj, std::forward<Us>(args)...);
    if (RoceSimulatorImpl* s = RoceSimulatorImpl::Running())
    {
        return s->ScheduleOwned(delay, ev);
    }
    return Simulator::Schedule(delay, Ptr<EventImpl>(ev, false));
}

/**
 * \ingroup rocev2
 * \brief Simulator::ScheduleWithContext(context, delay, F, obj, args...) with
 * the event in pooled memory.
 * \tparam F the member function
 * \param context the event's context \param delay from now
 * \param obj the object \param args F's arguments
 */
template <auto F, typename T, typename... Us>
void
RoceScheduleWithContext(uint32_t context, const Time& delay, T* obj, Us&&... args)
{
    auto* ev = new RoceMemberEvent<F, T, std::decay_t<Us>...>(obj, std::forward<Us>(args)...);
    if (RoceSimulatorImpl* s = RoceSimulatorImpl::Running())
    {
        s->ScheduleWithContextOwned(context, delay, ev);
        return;
    }
    Simulator::ScheduleWithContext(context, delay, ev);
}

/**
 * \ingroup rocev2
 * \brief EventId::Cancel() without the trip through the simulator: marks
 * the event cancelled, which is all ns-3's Cancel does to a pending event
 * (and harmless on one that ran: it stays expired). For the hot paths that
 * cancel and reschedule at every step; Simulator::Cancel costs a few hundred
 * instructions of checks in a logging build of ns-3.
 * \param id the event; a default EventId is left alone
 */
inline void
RoceCancel(const EventId& id)
{
    if (EventImpl* ev = id.PeekEventImpl())
    {
        ev->Cancel();
    }
}

} // namespace ns3

#endif /* ROCE_POOLED_EVENT_H */
