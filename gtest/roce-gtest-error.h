/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EXPECT_ROCE_ERROR(statement, pattern): the statement throws a RoceError
 * whose message matches the regular expression `pattern` (ECMAScript)
 * (searched, as gtest's death tests match), in the test's own process.
 */
#ifndef ROCE_GTEST_ERROR_H
#define ROCE_GTEST_ERROR_H

#include "ns3/roce-error.h"

#include <gtest/gtest.h>
#include <regex>
#include <string>

#define EXPECT_ROCE_ERROR(statement, pattern)                                                      \
    do                                                                                             \
    {                                                                                              \
        std::string roceWhat_;                                                                     \
        bool roceThrew_ = false;                                                                   \
        try                                                                                        \
        {                                                                                          \
            statement;                                                                             \
        }                                                                                          \
        catch (const ::ns3::RoceError& e)                                                          \
        {                                                                                          \
            roceThrew_ = true;                                                                     \
            roceWhat_ = e.what();                                                                  \
        }                                                                                          \
        EXPECT_TRUE(roceThrew_) << #statement << " threw no RoceError";                            \
        const std::string rocePattern_(pattern);                                                   \
        EXPECT_TRUE(!roceThrew_ || std::regex_search(roceWhat_, std::regex(rocePattern_)))         \
            << #statement << "\n  message: " << roceWhat_ << "\n  pattern: " << rocePattern_;      \
    } while (false)

#endif /* ROCE_GTEST_ERROR_H */
