/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_PINT_DIGEST_H
#define ROCE_PINT_DIGEST_H

#include <cstdint>

namespace ns3
{

class Packet;

/**
 * \ingroup rocev2
 * \brief HPCC-PINT's 16-bit digest: the largest link utilization along a
 * packet's path, on a logarithmic scale (Ben Basat et al., "PINT:
 * Probabilistic In-band Network Telemetry", SIGCOMM 2020, section 5: HPCC
 * with 16 bits per packet instead of INT's per-hop records).
 *
 * A utilization u (1 = the link's rate, above 1 a standing queue) is scaled
 * by SCALE = 512 to an integer x = max(1, ceil(512 u)) and carried as the
 * exponent p with base^p close to x, base being the global value
 * RocePintLogBase (the HPCC simulator's PINT_LOG_BASE). Encode() rounds
 * log_base(x) up or down at random, up with probability
 * (x - base^lo) / (base^hi - base^lo), so that base^p is x in expectation;
 * Decode() returns base^p / 512.
 *
 * A sender asks for the digest with the PINT-request bit, BTH byte 8 bit 6
 * (a reserved bit of the IBTA layout); its data frames then carry the two
 * digest bytes, big-endian, just before the ICRC, zero when they leave. A
 * switch egress raises them to its port's encoded utilization if that is
 * larger; the receiver echoes the last digest on its ACK, with the same bit
 * set and the same two bytes before the ICRC.
 */
class RocePintDigest
{
  public:
    static constexpr uint32_t SIZE = 2;          //!< bytes on the wire
    static constexpr uint32_t SCALE = 512;       //!< utilization units per 1.0
    static constexpr uint8_t REQUEST_BIT = 0x40; //!< in BTH byte 8

    /**
     * \param u a utilization (>= 0)
     * \param base the logarithm's base (> 1)
     * \param uniform a draw from U[0, 1) that picks the rounding
     * \return the exponent, at most 65535
     */
    static uint16_t Encode(double u, double base, double uniform);

    /**
     * \param p an exponent
     * \param base the logarithm's base
     * \return the utilization it stands for, base^p / SCALE
     */
    static double Decode(uint16_t p, double base);

    /** \return the global value RocePintLogBase */
    static double GetLogBase();

    /**
     * \param b where (2 bytes)
     * \param p the exponent to write
     */
    static void Write(uint8_t* b, uint16_t p)
    {
        b[0] = static_cast<uint8_t>(p >> 8);
        b[1] = static_cast<uint8_t>(p);
    }

    /**
     * \param b from where (2 bytes)
     * \return the exponent
     */
    static uint16_t Read(const uint8_t* b)
    {
        return static_cast<uint16_t>((b[0] << 8) | b[1]);
    }

    /**
     * \brief Raise a frame's digest (the two bytes before its ICRC) to an
     * exponent if it is below it; the ICRC stays.
     * \param p the frame
     * \param p2 the exponent
     */
    static void Raise(Packet& p, uint16_t p2);
};

} // namespace ns3

#endif /* ROCE_PINT_DIGEST_H */
