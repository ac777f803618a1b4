/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-int-record.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceIntRecord);

RoceIntRecord::RoceIntRecord() = default;

TypeId
RoceIntRecord::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceIntRecord")
                            .SetParent<Trailer>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceIntRecord>();
    return tid;
}

TypeId
RoceIntRecord::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceIntRecord::Print(std::ostream& os) const
{
    os << "INT hop=" << +hop << " rate=" << rateMbps << "Mbps qlen=" << queueBytes
       << " tx=" << txBytes << " ts=" << timestampNs << "ns";
}

uint32_t
RoceIntRecord::GetSerializedSize() const
{
    return SIZE;
}

void
RoceIntRecord::Serialize(Buffer::Iterator end) const
{
    end.Prev(SIZE);
    end.WriteU8(hop);
    end.WriteU8(0);
    end.WriteU8(0);
    end.WriteU8(0);
    end.WriteHtonU32(rateMbps);
    end.WriteHtonU64(queueBytes);
    end.WriteHtonU64(txBytes);
    end.WriteHtonU64(timestampNs);
}

uint32_t
RoceIntRecord::Deserialize(Buffer::Iterator end)
{
    end.Prev(SIZE);
    hop = end.ReadU8();
    end.Next(3);
    rateMbps = end.ReadNtohU32();
    queueBytes = end.ReadNtohU64();
    txBytes = end.ReadNtohU64();
    timestampNs = end.ReadNtohU64();
    return SIZE;
}

} // namespace ns3
