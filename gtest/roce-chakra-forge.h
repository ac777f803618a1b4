/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Reading and forging Chakra trace files for the gtests: the frames of a
 * file read independently of the module's reader, protobuf fields encoded by
 * hand, forged Node messages, and temporary trace files.
 */
#ifndef ROCE_CHAKRA_FORGE_H
#define ROCE_CHAKRA_FORGE_H

#include "ns3/roce-chakra-trace.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace chakraforge
{

/** \return the bytes of a file */
inline std::string
Bytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/** One length-prefixed message of a trace file. */
struct Frame
{
    std::size_t prefix;  //!< byte offset of the length varint
    std::size_t payload; //!< byte offset of the message
    std::size_t length;  //!< message length
};

/** \return the frames of a well-formed trace, read independently of the reader */
inline std::vector<Frame>
Frames(const std::string& b)
{
    std::vector<Frame> frames;
    std::size_t i = 0;
    while (i < b.size())
    {
        Frame f{i, 0, 0};
        int shift = 0;
        uint8_t c;
        do
        {
            c = static_cast<uint8_t>(b[i++]);
            f.length |= static_cast<std::size_t>(c & 0x7f) << shift;
            shift += 7;
        } while (c & 0x80);
        f.payload = i;
        i += f.length;
        frames.push_back(f);
    }
    return frames;
}

/** \return v as a protobuf varint */
inline std::string
Varint(uint64_t v)
{
    std::string s;
    do
    {
        s.push_back(static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
        v >>= 7;
    } while (v != 0);
    return s;
}

/** \return a length-delimited field (wire type 2) */
inline std::string
Field(int number, const std::string& body)
{
    return Varint(static_cast<uint64_t>(number) << 3 | 2) + Varint(body.size()) + body;
}

/** \return a varint field (wire type 0) */
inline std::string
VarintField(int number, uint64_t v)
{
    return Varint(static_cast<uint64_t>(number) << 3) + Varint(v);
}

/**
 * \param id node id
 * \param type node type value
 * \param dataDeps data dependencies
 * \param ctrlDeps control dependencies
 * \param extra more encoded fields (attributes)
 * \return the framed Node message
 */
inline std::string
ForgedNode(uint64_t id,
           uint64_t type,
           const std::vector<uint64_t>& dataDeps = {},
           const std::vector<uint64_t>& ctrlDeps = {},
           const std::string& extra = "")
{
    std::string m = VarintField(1, id) + Field(2, "forged") + VarintField(3, type);
    std::string packed;
    for (uint64_t d : ctrlDeps)
    {
        packed += Varint(d);
    }
    m += ctrlDeps.empty() ? "" : Field(4, packed);
    packed.clear();
    for (uint64_t d : dataDeps)
    {
        packed += Varint(d);
    }
    m += dataDeps.empty() ? "" : Field(5, packed);
    m += extra;
    return Varint(m.size()) + m;
}

/** A file in the temporary folder, removed at the end of the test. */
class TempTrace
{
  public:
    /** \param bytes the file's content */
    explicit TempTrace(const std::string& bytes)
    {
        static int count = 0;
        m_path = "/tmp/rocev2-chakra-" + std::to_string(getpid()) + "-" + std::to_string(count++) +
                 ".et";
        std::ofstream(m_path, std::ios::binary) << bytes;
    }

    ~TempTrace()
    {
        std::remove(m_path.c_str());
    }

    /** \return the file's path */
    const std::string& Path() const
    {
        return m_path;
    }

    /**
     * \param strict strictCtrlDeps
     * \return the error reading the file gives ("" if it reads)
     */
    std::string Error(bool strict = false) const
    {
        RoceChakraTrace t;
        std::string error;
        return RoceChakraTrace::Read(m_path, t, &error, strict) ? "" : error;
    }

  private:
    std::string m_path; //!< the file
};

} // namespace chakraforge
} // namespace ns3

#endif /* ROCE_CHAKRA_FORGE_H */
