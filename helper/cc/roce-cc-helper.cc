/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-cc-helper.h"

#include "ns3/boolean.h"
#include "ns3/object-factory.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-cc-dcqcn-preset.h"
#include "ns3/roce-congestion-ops.h"
#include "ns3/roce-error.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/string.h"

namespace ns3
{

namespace
{

/**
 * \param tid a type \param name one of its attributes
 * \return true if the program changed the attribute's default
 *         (Config::SetDefault, or a --ns3::Type::Name=VALUE flag): such a
 *         choice is the user's and wins over a preset's value
 */
bool
DefaultChanged(TypeId tid, const std::string& name)
{
    struct TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        return false;
    }
    return info.initialValue->SerializeToString(info.checker) !=
           info.originalInitialValue->SerializeToString(info.checker);
}

/** \return the switches' queue disc type */
TypeId
QueueDiscType()
{
    return TypeId::LookupByName("ns3::RoceEgressQueueDisc");
}

} // namespace

RoceCcHelper::RoceCcHelper()
    : RoceCcHelper("none")
{
}

RoceCcHelper::RoceCcHelper(const std::string& algorithm, const std::string& dcqcnPreset)
    : m_algorithm(algorithm),
      m_tid(RoceCongestionOps::LookupByName(algorithm)),
      m_stepK(QueueSizeUnit::BYTES, DCTCP_K_BYTES),
      m_stepRate(DCTCP_K_RATE)
{
    const bool dcqcn = m_tid.GetName() == "ns3::RoceCcDcqcn";
    ROCE_ERROR_IF(!dcqcnPreset.empty() && !dcqcn,
                  "DCQCN preset '" << dcqcnPreset << "' (--dcqcn-preset) needs congestion control "
                                   << "dcqcn, not '" << algorithm << "' (--cc)");
    if (dcqcn)
    {
        m_preset =
            RoceDcqcnPreset::Get(dcqcnPreset.empty() ? RoceDcqcnPreset::DEFAULT : dcqcnPreset).name;
    }
}

void
RoceCcHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    ObjectFactory probe;
    probe.SetTypeId(m_tid);
    try
    {
        RoceSetFactoryAttribute(probe, name, value);
    }
    catch (const RoceError& e)
    {
        ROCE_ERROR("congestion control " << m_algorithm << ": " << e.what());
    }
    m_attributes.emplace_back(name, value.Copy());
}

bool
RoceCcHelper::IsDctcp() const
{
    return m_tid.GetName() == "ns3::RoceCcDctcp" || m_tid.GetName() == "ns3::RoceCcDctcpRate";
}

void
RoceCcHelper::SetStepMarking(QueueSize k, DataRate atRate)
{
    ROCE_ERROR_IF(!IsDctcp(),
                  "step marking (K = " << k << ") is DCTCP's; congestion control '" << m_algorithm
                                       << "' (--cc) marks as "
                                       << (m_preset.empty() ? "the switches default to"
                                                            : "its preset " + m_preset + " says"));
    ROCE_ERROR_IF(k.GetUnit() != QueueSizeUnit::BYTES,
                  "DCTCP step marking: K=" << k << " must be in bytes");
    m_stepK = k;
    m_stepRate = atRate;
    m_stepSet = true;
}

const std::string&
RoceCcHelper::GetAlgorithm() const
{
    return m_algorithm;
}

const std::string&
RoceCcHelper::GetDcqcnPreset() const
{
    return m_preset;
}

void
RoceCcHelper::Configure(RoceHelper& nics, RoceSwitchHelper& switches) const
{
    Configure(nics);
    ConfigureSwitches(switches);
}

void
RoceCcHelper::Configure(RoceHelper& nics) const
{
    nics.SetCongestionControl(m_tid.GetName());
    if (!m_preset.empty())
    {
        for (const auto& [name, value] : RoceDcqcnPreset::Get(m_preset).nic)
        {
            if (!DefaultChanged(m_tid, name))
            {
                nics.SetCongestionControlAttribute(name, StringValue(value));
            }
        }
    }
    for (const auto& [name, value] : m_attributes)
    {
        nics.SetCongestionControlAttribute(name, *value);
    }
}

void
RoceCcHelper::Configure(RoceAiZoneHelper& zone) const
{
    Configure(zone.GetRoceHelper(), zone.GetSwitchHelper(RoceAiZoneHelper::RTSW));
    ConfigureSwitches(zone.GetSwitchHelper(RoceAiZoneHelper::CTSW));
    ConfigureSwitches(zone.GetSwitchHelper(RoceAiZoneHelper::ATSW));
}

void
RoceCcHelper::ConfigureSwitches(RoceSwitchHelper& switches) const
{
    if (!m_preset.empty())
    {
        for (const auto& [name, value] : RoceDcqcnPreset::Get(m_preset).marking)
        {
            if (!DefaultChanged(QueueDiscType(), name))
            {
                switches.SetQueueDiscAttribute(name, StringValue(value));
            }
        }
        if (!DefaultChanged(QueueDiscType(), "EcnEnabled"))
        {
            switches.SetQueueDiscAttribute("EcnEnabled", BooleanValue(true));
        }
    }
    else if (m_tid.GetName() == "ns3::RoceCcHpccPint" &&
             !DefaultChanged(QueueDiscType(), "PintRtt"))
    {
        // The switches' utilization averages over the T the senders use.
        for (const auto& [name, value] : m_attributes)
        {
            if (name == "BaseRtt")
            {
                switches.SetQueueDiscAttribute("PintRtt", *value);
            }
        }
    }
    else if (IsDctcp())
    {
        // A K the program chose here wins; else a changed ECN default does.
        bool changed = false;
        for (const char* name : {"EcnEnabled", "EcnKmin", "EcnKmax", "EcnPmax", "EcnThresholdRate"})
        {
            changed = changed || DefaultChanged(QueueDiscType(), name);
        }
        if (m_stepSet || !changed)
        {
            switches.SetEcnStepMarking(m_stepK, m_stepRate);
        }
    }
}

} // namespace ns3
