/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-raw-trailer.h"

#include "ns3/roce-error.h"

#include <cstring>
#include <iomanip>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceRawTrailer);

RoceRawTrailer::RoceRawTrailer() = default;

RoceRawTrailer::RoceRawTrailer(const uint8_t* bytes, uint32_t size)
    : m_size(size)
{
    ROCE_ERROR_IF(size > MAX_SIZE,
                  "RoceRawTrailer: " << size << " bytes; it holds at most " << MAX_SIZE);
    std::memcpy(m_bytes, bytes, size);
}

TypeId
RoceRawTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRawTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceRawTrailer>();
    return tid;
}

TypeId
RoceRawTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceRawTrailer::Print(std::ostream& os) const
{
    os << "raw trailer " << m_size << " B:";
    std::ios_base::fmtflags f = os.flags();
    for (uint32_t i = 0; i < m_size; ++i)
    {
        os << ' ' << std::hex << std::setw(2) << std::setfill('0') << +m_bytes[i];
    }
    os.flags(f);
}

uint32_t
RoceRawTrailer::GetSerializedSize() const
{
    return m_size;
}

void
RoceRawTrailer::Serialize(Buffer::Iterator end) const
{
    end.Prev(m_size);
    end.Write(m_bytes, m_size);
}

uint32_t
RoceRawTrailer::Deserialize(Buffer::Iterator end)
{
    end.Prev(m_size);
    RoceReadBytes(end, m_bytes, m_size);
    return m_size;
}

void
RoceRawTrailer::SetSize(uint32_t size)
{
    ROCE_ERROR_IF(size > MAX_SIZE,
                  "RoceRawTrailer: " << size << " bytes; it holds at most " << MAX_SIZE);
    m_size = size;
}

const uint8_t*
RoceRawTrailer::GetBytes() const
{
    return m_bytes;
}

uint8_t*
RoceRawTrailer::GetBytes()
{
    return m_bytes;
}

} // namespace ns3
