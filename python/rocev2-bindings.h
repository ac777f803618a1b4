/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Python bindings of the module (pybind11): the native extension
 * rocev2._rocev2, which python/rocev2/__init__.py wraps into the Pythonic
 * API. Handles hold ns-3 Ptrs by value; results cross as JSON text (the
 * same text the examples write) or as numpy columns.
 */
#ifndef ROCEV2_BINDINGS_H
#define ROCEV2_BINDINGS_H

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-monitor-helper.h"

#include <functional>
#include <pybind11/pybind11.h>
#include <sstream>
#include <string>

namespace ns3
{
namespace rocepy
{

/** \return the text a C++ printer (a callable taking a std::ostream&) writes */
template <typename F>
std::string
Print(F print)
{
    std::ostringstream os;
    print(os);
    return os.str();
}

/** A built AI Zone, as Python holds it. */
struct Zone
{
    RoceAiZone zone;        //!< the fabric
    double buildSeconds{0}; //!< wall time of Build
    uint64_t scenario{0};   //!< the scenario it was built in (ScenarioNumber)
};

/** \return the number of the current scenario (destroy() starts the next) */
uint64_t ScenarioNumber();

/**
 * \param z a zone \param what the call, for the message
 * \return its fabric; a RoceError if destroy() has freed it since (its
 *         nodes and devices are gone: using them would crash)
 */
const RoceAiZone& Live(const Zone& z, const char* what);

/**
 * \brief Register a workload of the current scenario (a collective, jobs,
 * flows, a replay): run() without a time runs until every registered
 * workload has finished, then stops the monitors.
 * \param finished tells whether it has finished
 */
void AddWorkload(std::function<bool()> finished);
/** \brief Register a monitor of the current scenario, stopped when its workloads have finished. */
void AddMonitor(Ptr<RoceMonitor> monitor);

/** \brief Bind simulator control, Config, the AI Zone, placement and collectives. */
void BindCore(pybind11::module_& m);
/** \brief Bind jobs, faults, monitors, fabric counters, workloads, HPCC-format scenarios, Chakra
 * replay and trace connections. */
void BindRuns(pybind11::module_& m);

} // namespace rocepy
} // namespace ns3

#endif /* ROCEV2_BINDINGS_H */
