/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-cc-dcqcn-preset.h"

#include "ns3/roce-error.h"

namespace ns3
{

namespace
{

/** \return the presets, in the order GetNames gives them */
const std::vector<RoceDcqcnPreset>&
Presets()
{
    static const std::vector<RoceDcqcnPreset> presets = {
        {"paper-2015",
         {{"G", "0.00390625"},
          {"InitialAlpha", "1"},
          {"AlphaUpdateInterval", "55us"},
          {"RateIncreaseTimer", "55us"},
          {"ByteCounter", "10000000"},
          {"FastRecoveryStages", "5"},
          {"RateAi", "40Mbps"},
          {"RateHai", "400Mbps"},
          {"MinRate", "1Mbps"},
          {"MinDecreaseFactor", "0"},
          {"ClampTargetRate", "true"},
          {"RateDecreasePeriod", "0s"},
          {"CnpInterval", "50us"}},
         {{"EcnKmin", "5KB"},
          {"EcnKmax", "200KB"},
          {"EcnPmax", "0.01"},
          {"EcnThresholdRate", "0bps"}}},
        {"nvidia-cx",
         {{"G", "0.0048828125"}, // dce_tcp_g 1019 of 1024: g = 5/1024
          {"InitialAlpha", "1"},
          {"AlphaUpdateInterval", "1us"},
          {"RateIncreaseTimer", "300us"},
          {"ByteCounter", "0"},
          {"FastRecoveryStages", "1"},
          {"RateAi", "5Mbps"},
          {"RateHai", "50Mbps"},
          {"MinRate", "1Mbps"},
          {"MinDecreaseFactor", "0.5"},
          {"ClampTargetRate", "false"},
          {"RateDecreasePeriod", "4us"},
          {"CnpInterval", "4us"}},
         {{"EcnKmin", "150KB"},
          {"EcnKmax", "1500KB"},
          {"EcnPmax", "1"},
          {"EcnThresholdRate", "0bps"}}},
        {"hpcc-sim",
         {{"G", "0.00390625"},
          {"InitialAlpha", "1"},
          {"AlphaUpdateInterval", "1us"},
          {"RateIncreaseTimer", "900us"},
          {"ByteCounter", "0"},
          {"FastRecoveryStages", "1"},
          {"RateAi", "50Mbps"},
          {"RateHai", "100Mbps"},
          {"MinRate", "100Mbps"},
          {"MinDecreaseFactor", "0"},
          {"ClampTargetRate", "false"},
          {"RateDecreasePeriod", "4us"},
          {"CnpInterval", "0s"},
          {"AlphaUpdate", "PerInterval"},
          {"HyperIncrease", "Constant"}},
         {{"EcnKmin", "100KB"},
          {"EcnKmax", "400KB"},
          {"EcnPmax", "0.2"},
          {"EcnThresholdRate", "25Gbps"}}},
    };
    return presets;
}

} // namespace

const RoceDcqcnPreset&
RoceDcqcnPreset::Get(const std::string& name)
{
    for (const auto& p : Presets())
    {
        if (p.name == name)
        {
            return p;
        }
    }
    std::string known;
    for (const auto& p : Presets())
    {
        known += (known.empty() ? "" : ", ") + p.name;
    }
    ROCE_ERROR("unknown DCQCN preset '" << name << "' (known: " << known << ")");
    return Presets().front();
}

std::vector<std::string>
RoceDcqcnPreset::GetNames()
{
    std::vector<std::string> names;
    for (const auto& p : Presets())
    {
        names.push_back(p.name);
    }
    return names;
}

} // namespace ns3
