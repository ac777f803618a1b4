/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Frame sizes the switch-port suites (rocev2-ecmp, rocev2-scheduler) count
 * on the wire, from the RoCEv2 wire format rather than from the model.
 */
#ifndef ROCEV2_FRAME_BYTES_H
#define ROCEV2_FRAME_BYTES_H

#include <cstdint>

namespace
{

/// Payload bytes per packet (RoceNetDevice PayloadMtu default).
constexpr uint32_t MTU = 1024;
/// Frame bytes of a data packet beyond its payload, as the port's MacTx sees
/// it: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 (FCS not included).
constexpr uint32_t FRAME_OVERHEAD = 58;
/// RETH, carried by the first packet of an RDMA WRITE.
constexpr uint32_t RETH_BYTES = 16;
/// Wire bytes of a frame beyond its MacTx size: FCS 4 + preamble, SFD and IFG 20.
constexpr uint32_t WIRE_EXTRA = 24;
/// Largest frame in these tests: a first WRITE packet.
constexpr uint32_t MAX_FRAME = MTU + FRAME_OVERHEAD + RETH_BYTES;

/**
 * \param opcode a BTH opcode
 * \return true for the RC SEND and RDMA WRITE opcodes (0x00..0x0A), false
 *         for ACK (0x11) and CNP (0x81)
 */
inline bool
IsDataOpcode(uint8_t opcode)
{
    return opcode <= 0x0A;
}

} // namespace

#endif /* ROCEV2_FRAME_BYTES_H */
