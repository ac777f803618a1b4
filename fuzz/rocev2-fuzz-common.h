/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the module's libFuzzer harnesses (fuzz/rocev2-fuzz-*.cc) share. Each
 * harness feeds one input file format of the module (topology, flow, config,
 * fault, job, trace and group files, command-line values) to its reader. A
 * RoceError is the reader's expected answer to bad input; anything else is a
 * finding: another exception, a crash, a sanitizer report, a leak, an abort,
 * a hang, or a property of the accepted input that does not hold
 * (ROCE_FUZZ_CHECK).
 */
#ifndef ROCEV2_FUZZ_COMMON_H
#define ROCEV2_FUZZ_COMMON_H

#include "ns3/roce-error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <unistd.h>

/**
 * \ingroup rocev2
 * \brief A property of an accepted input that must hold: when it does not, the
 * harness prints `msg` and aborts, which libFuzzer reports as a crash.
 */
#define ROCE_FUZZ_CHECK(cond, msg)                                                                 \
    do                                                                                             \
    {                                                                                              \
        if (!(cond))                                                                               \
        {                                                                                          \
            std::cerr << "rocev2-fuzz: property violated: " << #cond << ": " << msg << std::endl;  \
            std::abort();                                                                          \
        }                                                                                          \
    } while (false)

namespace ns3
{
namespace RoceFuzz
{

/** \return whether to print each RoceError (environment ROCEV2_FUZZ_VERBOSE=1) */
inline bool
Verbose()
{
    static const bool verbose = [] {
        const char* v = std::getenv("ROCEV2_FUZZ_VERBOSE");
        return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
    }();
    return verbose;
}

/**
 * \brief Run a reader on one input.
 * \param read the reading, a callable
 * \return true if it accepted the input, false if it refused it with a
 *         RoceError; any other exception escapes (a finding)
 */
template <typename Read>
bool
Accepts(Read&& read)
{
    try
    {
        read();
        return true;
    }
    catch (const RoceError& e)
    {
        if (Verbose())
        {
            std::cerr << "RoceError: " << e.what() << std::endl;
        }
        return false;
    }
}

/**
 * \ingroup rocev2
 * \brief The file that a harness writes each input to, for the readers that
 * take a path: one per process, in /dev/shm when it can be written (memory),
 * else in $TMPDIR or /tmp; removed when the process exits.
 */
class RoceFuzzTempFile
{
  public:
    /**
     * \param name the harness, part of the file name
     * \param suffix the file name's ending, e.g. ".txt"
     */
    RoceFuzzTempFile(const std::string& name, const std::string& suffix)
    {
        std::string dir = "/dev/shm";
        if (access(dir.c_str(), W_OK) != 0)
        {
            const char* tmp = std::getenv("TMPDIR");
            dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
        }
        m_path = dir + "/rocev2-fuzz-" + name + "-" + std::to_string(getpid()) + suffix;
    }

    ~RoceFuzzTempFile()
    {
        std::remove(m_path.c_str());
    }

    RoceFuzzTempFile(const RoceFuzzTempFile&) = delete;
    RoceFuzzTempFile& operator=(const RoceFuzzTempFile&) = delete;

    /**
     * \param data the bytes \param size their count
     * \return the file's path, now holding exactly these bytes
     */
    const std::string& Write(const uint8_t* data, size_t size) const
    {
        std::FILE* f = std::fopen(m_path.c_str(), "wb");
        if (f == nullptr || (size > 0 && std::fwrite(data, 1, size, f) != size) ||
            std::fclose(f) != 0)
        {
            std::perror(m_path.c_str());
            std::abort(); // the harness cannot work: not a finding of the reader
        }
        return m_path;
    }

    /** \return the file's path */
    const std::string& Path() const
    {
        return m_path;
    }

  private:
    std::string m_path; //!< the file
};

/** The first line of the input that triggers the planted bug. */
constexpr const char* PLANTED_MAGIC = "ROCEV2-FUZZ-PLANTED-HEAP-OVERFLOW";

/**
 * \brief The planted bug of the `fuzz/planted-crash` test: in a harness built
 * with ROCEV2_FUZZ_PLANTED_BUG, an input that starts with PLANTED_MAGIC
 * writes one byte past a heap buffer, which AddressSanitizer must report. In
 * every other build it does nothing.
 * \param data the input \param size its size
 */
inline void
PlantedBug(const uint8_t* data, size_t size)
{
#ifdef ROCEV2_FUZZ_PLANTED_BUG
    const size_t n = std::strlen(PLANTED_MAGIC);
    if (size >= n && std::memcmp(data, PLANTED_MAGIC, n) == 0)
    {
        volatile char* buffer = new char[16];
        buffer[16 + (size - size)] = 'x'; // one past the end
        delete[] buffer;
    }
#else
    (void)data;
    (void)size;
#endif
}

} // namespace RoceFuzz
} // namespace ns3

#endif /* ROCEV2_FUZZ_COMMON_H */
