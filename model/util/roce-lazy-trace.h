/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_LAZY_TRACE_H
#define ROCE_LAZY_TRACE_H

#include "ns3/callback.h"
#include "ns3/object-base.h"
#include "ns3/ptr.h"
#include "ns3/trace-source-accessor.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Trace sources an object keeps behind one pointer, allocated when the
 * first of them is connected.
 *
 * Queue pairs and their congestion control exist by the thousand and are
 * mostly never traced: each TracedCallback is a list of 24 bytes, so an object
 * with several of them pays for them idle. The owner keeps its
 * TracedCallbacks in a struct behind a RoceLazyTraces; firing one nobody
 * connected costs one null test (`if (auto* t = m_traces.Get())`), and the
 * trace sources are registered with MakeRoceLazyTraceAccessor, so Config paths
 * and TraceConnect work as for any ns-3 trace source.
 *
 * \tparam Traces the struct of TracedCallbacks
 */
template <typename Traces>
class RoceLazyTraces
{
  public:
    /** \return the traces, or nullptr when nothing was ever connected */
    Traces* Get() const
    {
        return m_traces.get();
    }

    /** \return the traces, allocated on first use */
    Traces& GetOrCreate()
    {
        if (!m_traces)
        {
            m_traces = std::make_unique<Traces>();
        }
        return *m_traces;
    }

    /** \brief Drop the traces and their callbacks (on dispose: a callback
     * holding its own object would otherwise keep it alive). */
    void Reset()
    {
        m_traces.reset();
    }

  private:
    std::unique_ptr<Traces> m_traces; //!< null until a trace source is connected
};

/**
 * \ingroup rocev2
 * \brief The accessor of a trace source kept in a RoceLazyTraces: connecting
 * allocates the traces.
 * \tparam Owner the class that has the trace source; it has a member
 *         `RoceLazyTraces<Traces> Owner::*` passed to the constructor
 * \tparam Traces the struct of TracedCallbacks
 * \tparam Source the TracedCallback type
 */
template <typename Owner, typename Traces, typename Source>
class RoceLazyTraceAccessor : public TraceSourceAccessor
{
  public:
    /**
     * \param traces the owner's member holding the traces
     * \param source the member of Traces
     */
    RoceLazyTraceAccessor(RoceLazyTraces<Traces> Owner::*traces, Source Traces::*source)
        : m_traces(traces),
          m_source(source)
    {
    }

    bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        Source* s = Find(obj);
        if (s != nullptr)
        {
            s->ConnectWithoutContext(cb);
        }
        return s != nullptr;
    }

    bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        Source* s = Find(obj);
        if (s != nullptr)
        {
            s->Connect(cb, context);
        }
        return s != nullptr;
    }

    bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        Source* s = Find(obj);
        if (s != nullptr)
        {
            s->DisconnectWithoutContext(cb);
        }
        return s != nullptr;
    }

    bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        Source* s = Find(obj);
        if (s != nullptr)
        {
            s->Disconnect(cb, context);
        }
        return s != nullptr;
    }

  private:
    /**
     * \param obj the object
     * \return its trace source, or nullptr if obj is not an Owner
     */
    Source* Find(ObjectBase* obj) const
    {
        auto owner = dynamic_cast<Owner*>(obj);
        return owner == nullptr ? nullptr : &((owner->*m_traces).GetOrCreate().*m_source);
    }

    RoceLazyTraces<Traces> Owner::*m_traces; //!< the owner's traces
    Source Traces::*m_source;                //!< the trace source in Traces
};

/**
 * \ingroup rocev2
 * \brief Make the accessor of a trace source kept in a RoceLazyTraces.
 * \param traces the owner's member holding the traces
 * \param source the member of Traces
 * \return the accessor, for TypeId::AddTraceSource
 */
template <typename Owner, typename Traces, typename Source>
Ptr<const TraceSourceAccessor>
MakeRoceLazyTraceAccessor(RoceLazyTraces<Traces> Owner::*traces, Source Traces::*source)
{
    return Ptr<const TraceSourceAccessor>(
        new RoceLazyTraceAccessor<Owner, Traces, Source>(traces, source),
        false);
}

} // namespace ns3

#endif /* ROCE_LAZY_TRACE_H */
