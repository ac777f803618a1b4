/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CC_DCQCN_PRESET_H
#define ROCE_CC_DCQCN_PRESET_H

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A published DCQCN parameter set: the RoceCcDcqcn attributes of the
 * NICs and the switch ECN marking (RoceEgressQueueDisc attributes) it was
 * published with. The two halves go together; RoceCcHelper applies both.
 *
 * - paper-2015: Zhu et al., "Congestion Control for Large-Scale RDMA
 *   Deployments" (SIGCOMM'15), with its RED marking (5 KB / 200 KB, 1%).
 * - nvidia-cx: ConnectX firmware defaults, with NVIDIA's RoCE lossless-mode
 *   switch marking (150 KB / 1500 KB, 100%). The default of every example
 *   and of RoceCcHelper("dcqcn").
 * - hpcc-sim: the values of the HPCC paper's simulator (Li et al.,
 *   SIGCOMM'19), whose results this preset reproduces, with its marking
 *   (100 KB / 400 KB per 25 Gb/s, 20%).
 *
 * The values, with their sources, are in doc/rocev2.rst ("Congestion
 * control: choosing one").
 */
struct RoceDcqcnPreset
{
    /// (attribute name, value as text) pairs
    using Attributes = std::vector<std::pair<std::string, std::string>>;

    std::string name;   //!< the preset's name
    Attributes nic;     //!< RoceCcDcqcn attributes
    Attributes marking; //!< RoceEgressQueueDisc attributes (ECN is also enabled)

    /// The preset that DCQCN gets when none is named
    static constexpr const char* DEFAULT = "nvidia-cx";

    /**
     * \param name a preset name
     * \return the preset; a RoceError naming the known presets if unknown
     */
    static const RoceDcqcnPreset& Get(const std::string& name);
    /** \return every preset's name, in the order of the table */
    static std::vector<std::string> GetNames();
};

} // namespace ns3

#endif // ROCE_CC_DCQCN_PRESET_H
