/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-cc-none.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceCcNone);

TypeId
RoceCcNone::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceCcNone")
                            .SetParent<RoceCongestionOps>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceCcNone>();
    return tid;
}

std::string
RoceCcNone::GetName() const
{
    return "none";
}

Ptr<RoceCongestionOps>
RoceCcNone::Fork()
{
    return CopyObject<RoceCcNone>(this);
}

} // namespace ns3
