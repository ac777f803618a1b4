/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NS3_COMPAT_H
#define ROCE_NS3_COMPAT_H

#include "ns3/attribute-accessor-helper.h"
#include "ns3/enum.h"
#include "ns3/test.h"

#include <type_traits>

/**
 * \file
 * \ingroup rocev2
 * The differences between the ns-3 releases the module builds against
 * (Debian's 3.37 and 3.48; doc/rocev2.rst, "Supported ns-3 versions"), in one
 * place. Each is detected from the API itself, not from a version number: a
 * release between the two, or a patched tree, gets what its headers declare.
 *
 * - ns-3.41 made EnumValue a class template over the enum (EnumValue<T>) and
 *   MakeEnumAccessor take the enum as its first template argument. Code that
 *   names the type writes RoceEnumValue<T>; attributes use
 *   RoceMakeEnumAccessor<T>. EnumValue(x) with class template argument
 *   deduction builds one on both.
 * - ns-3.42 replaced TestCase's unscoped TestDuration by the scoped
 *   TestCase::Duration (TestCase::QUICK is deprecated there and gone in
 *   3.48): test suites write RoceTestDuration::QUICK, which is valid for the
 *   unscoped enum too.
 *
 * Differences with a spelling valid on both need nothing here (ns-3.42
 * deprecated both, 3.48 has neither): EventId::IsRunning (the module writes
 * !IsExpired(), its definition on every release) and TestSuite::UNIT
 * (TestSuite::Type::UNIT).
 */

namespace ns3
{
namespace rocecompat
{

// EnumValueOf<T, EnumValue>: EnumValue<T> where EnumValue is a class
// template, EnumValue where it is a class. An explicit template argument of
// the wrong kind removes an overload from the set (a deduction failure), so
// exactly one of the two declarations is viable on each release. Declared
// only: they are used in decltype.
template <typename T, template <typename> class E>
E<T> EnumValueOf(int);
template <typename T, typename E>
E EnumValueOf(long);

// DurationOf<TestCase>::type: TestCase::Duration where it exists (3.42 and
// later), else TestCase::TestDuration.
template <typename C, typename = void>
struct DurationOf
{
    using type = typename C::TestDuration;
};

template <typename C>
struct DurationOf<C, std::void_t<typename C::Duration>>
{
    using type = typename C::Duration;
};

} // namespace rocecompat

/**
 * \ingroup rocev2
 * The attribute value type of an enum attribute over enum \p T: EnumValue<T>
 * (ns-3.41 and later) or EnumValue.
 */
template <typename T>
using RoceEnumValue = decltype(rocecompat::EnumValueOf<T, EnumValue>(0));

/**
 * \ingroup rocev2
 * MakeEnumAccessor for an attribute over enum \p T on every supported
 * release: a member variable, or a setter and a getter.
 * \param [in] a the member variable, or the setter or getter
 * \return the accessor
 */
template <typename T, typename... A>
Ptr<const AttributeAccessor>
RoceMakeEnumAccessor(A... a)
{
    return MakeAccessorHelper<RoceEnumValue<T>>(a...);
}

/**
 * \ingroup rocev2
 * A test case's duration: TestCase::Duration (ns-3.42 and later) or
 * TestCase::TestDuration. Write RoceTestDuration::QUICK.
 */
using RoceTestDuration = rocecompat::DurationOf<TestCase>::type;

} // namespace ns3

#endif /* ROCE_NS3_COMPAT_H */
