/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CC_NONE_H
#define ROCE_CC_NONE_H

#include "roce-congestion-ops.h"

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief No end-to-end congestion control: line rate, PFC only.
 *
 * Meta ran its RoCE training fabric this way in production.
 */
class RoceCcNone : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    std::string GetName() const override;
    Ptr<RoceCongestionOps> Fork() override;
};

} // namespace ns3

#endif /* ROCE_CC_NONE_H */
