/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SPEC_LIST_H
#define ROCE_SPEC_LIST_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The one parser of the comma-separated lists that string attributes
 * hold (RocePfcNetDevice::DscpToPriority, RoceSharedBufferMmu::LosslessPriorities,
 * RoceEgressQueueDisc::DwrrWeights).
 *
 * Callers check each item and name the attribute and the item in their error.
 */
namespace RoceSpecList
{

/**
 * \brief Split a list at commas and trim blanks (spaces, tabs) around each item.
 * A blank item stays in the list as an empty string, so "" gives one empty
 * item and "1,,2" three items; callers decide whether blanks are allowed.
 * \param spec the list
 * \return its items, in order
 */
std::vector<std::string> Split(const std::string& spec);

/**
 * \brief Parse an item that is exactly an unsigned decimal integer.
 * \param item the item (already trimmed)
 * \param max the largest value accepted
 * \param[out] value the value, when the item is valid
 * \return true if the item is 1 to 9 digits and at most max
 */
bool ParseUnsigned(const std::string& item, uint32_t max, uint32_t& value);

} // namespace RoceSpecList
} // namespace ns3

#endif /* ROCE_SPEC_LIST_H */
