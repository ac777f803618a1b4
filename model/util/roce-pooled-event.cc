/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-pooled-event.h"

#include <algorithm>

namespace ns3
{

RoceEventFreeList::RoceEventFreeList(std::size_t blockSize)
{
    const std::size_t align = alignof(std::max_align_t);
    const std::size_t size = std::max(blockSize, sizeof(Node));
    m_blockSize = (size + align - 1) / align * align;
}

void*
RoceEventFreeList::Refill()
{
#ifdef ROCE_ASAN
    return ::operator new(m_blockSize);
#else
    // The slab is never freed; the list keeps its blocks reachable.
    constexpr std::size_t SLAB_BLOCKS = 64;
    auto* slab = static_cast<unsigned char*>(::operator new(SLAB_BLOCKS* m_blockSize));
    for (std::size_t i = SLAB_BLOCKS - 1; i >= 1; --i)
    {
        Give(slab + i * m_blockSize);
    }
    return slab;
#endif
}

} // namespace ns3
