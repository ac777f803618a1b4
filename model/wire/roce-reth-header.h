/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_RETH_HEADER_H
#define ROCE_RETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief RDMA Extended Transport Header (16 bytes): virtual address, R_Key and
 * DMA length. Carried by the first (or only) packet of an RDMA WRITE.
 */
class RoceRethHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 16; //!< serialized size in bytes

    RoceRethHeader();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /** \param va remote virtual address */
    void SetVirtualAddress(uint64_t va);
    /** \return remote virtual address */
    uint64_t GetVirtualAddress() const;
    /** \param rkey remote key */
    void SetRkey(uint32_t rkey);
    /** \return remote key */
    uint32_t GetRkey() const;
    /** \param len DMA length of the whole message in bytes */
    void SetDmaLength(uint32_t len);
    /** \return DMA length of the whole message in bytes */
    uint32_t GetDmaLength() const;

  private:
    uint64_t m_va{0};
    uint32_t m_rkey{0};
    uint32_t m_dmaLength{0};
};

} // namespace ns3

#endif /* ROCE_RETH_HEADER_H */
