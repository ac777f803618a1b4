/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-error.h"

#include "ns3/string.h"
#include "ns3/type-id.h"

namespace ns3
{

void
RoceThrowError(const std::string& msg)
{
    throw RoceError(msg);
}

namespace
{
/** \return the checked value of attribute name of tid (a RoceError if there is none) */
Ptr<AttributeValue>
CheckedValue(TypeId tid, const std::string& name, const AttributeValue& value)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        std::string known;
        for (TypeId t = tid;; t = t.GetParent())
        {
            for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
            {
                known += (known.empty() ? "" : ", ") + t.GetAttribute(i).name;
            }
            if (t == t.GetParent())
            {
                break;
            }
        }
        ROCE_ERROR(tid.GetName() << " has no attribute " << name << " (it has: " << known << ")");
    }
    Ptr<AttributeValue> v = info.checker->CreateValidValue(value);
    if (!v)
    {
        const auto* text = dynamic_cast<const StringValue*>(&value);
        ROCE_ERROR(tid.GetName() << "::" << name << "="
                                 << (text ? text->Get() : value.SerializeToString(info.checker))
                                 << " is not a valid value (" << info.checker->GetValueTypeName()
                                 << (info.checker->HasUnderlyingTypeInformation()
                                         ? ": " + info.checker->GetUnderlyingTypeInformation()
                                         : std::string())
                                 << ")");
    }
    return v;
}
} // namespace

void
RoceSetFactoryAttribute(ObjectFactory& factory,
                        const std::string& name,
                        const AttributeValue& value)
{
    factory.Set(name, *CheckedValue(factory.GetTypeId(), name, value));
}

void
RoceSetAttribute(ObjectBase& object, const std::string& name, const AttributeValue& value)
{
    object.SetAttribute(name, *CheckedValue(object.GetInstanceTypeId(), name, value));
}

} // namespace ns3
