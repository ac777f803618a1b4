/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_ERROR_H
#define ROCE_ERROR_H

#include "ns3/attribute.h"
#include "ns3/object-factory.h"

#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief An error the module reports: an attribute out of range, a
 * malformed topology, flow, job, fault or trace file, an unknown name, a
 * call out of order. Its what() is the message, naming the field and value
 * (and file:line for files).
 *
 * The module throws it where it would otherwise abort (ROCE_ERROR,
 * ROCE_ERROR_IF), so that a program can report it and go on: the Python
 * bindings raise it as rocev2.Error (a ValueError), and after
 * Simulator::Destroy the next scenario runs in the same process; the
 * examples print it in one line and exit with status 2. Another C++ program
 * that does not catch it ends as NS_FATAL_ERROR did, with the message on the
 * standard error (std::terminate prints what()).
 */
class RoceError : public std::invalid_argument
{
  public:
    using std::invalid_argument::invalid_argument;
};

/**
 * \ingroup rocev2
 * \brief Throw a RoceError (out of line, so that error sites stay small).
 * \param msg the message
 */
[[noreturn]] void RoceThrowError(const std::string& msg);

/**
 * \ingroup rocev2
 * \brief Set an attribute of the objects a factory makes, checked now: an
 * unknown name (the message lists the type's attributes) or a value the
 * attribute does not take is a RoceError, not ns-3's fatal error.
 * \param factory the factory (its TypeId set)
 * \param name the attribute \param value its value (a StringValue is parsed)
 */
void RoceSetFactoryAttribute(ObjectFactory& factory,
                             const std::string& name,
                             const AttributeValue& value);

/**
 * \ingroup rocev2
 * \brief Set an attribute of an object, checked as RoceSetFactoryAttribute.
 * \param object the object \param name the attribute \param value its value
 */
void RoceSetAttribute(ObjectBase& object, const std::string& name, const AttributeValue& value);

} // namespace ns3

/**
 * \ingroup rocev2
 * \brief Throw a RoceError whose message is `msg` (streamed, as NS_ABORT_MSG's).
 */
#define ROCE_ERROR(msg)                                                                            \
    do                                                                                             \
    {                                                                                              \
        std::ostringstream roceErrorStream_;                                                       \
        roceErrorStream_ << msg;                                                                   \
        ::ns3::RoceThrowError(roceErrorStream_.str());                                             \
    } while (false)

/**
 * \ingroup rocev2
 * \brief Throw a RoceError with message `msg` if `cond` holds. The message
 * is built in a cold, never-inlined lambda, so that a check on the packet
 * path costs its compare and branch only and does not keep its function
 * from being inlined.
 */
#define ROCE_ERROR_IF(cond, msg)                                                                   \
    do                                                                                             \
    {                                                                                              \
        if (__builtin_expect(static_cast<bool>(cond), false))                                      \
        {                                                                                          \
            [&]() __attribute__((cold, noinline))                                                  \
            {                                                                                      \
                ROCE_ERROR(msg);                                                                   \
            }                                                                                      \
            ();                                                                                    \
        }                                                                                          \
    } while (false)

#endif /* ROCE_ERROR_H */
