/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The decisions of the PFC watchdog (model/switch/roce-pfc-watchdog.h),
// driven by hand with times, paused and backlogged priorities: when a stall
// starts, when it fires, recovery, restore and re-arming, and the checks of
// its settings. The port that runs it on real traffic is tested in
// test/switch/rocev2-pfc-watchdog-test-suite.cc.

#include "roce-gtest-error.h"

#include "ns3/boolean.h"
#include "ns3/nstime.h"
#include "ns3/roce-pfc-watchdog.h"

#include <gtest/gtest.h>

namespace
{

using namespace ns3;

constexpr uint8_t P3 = 1u << 3; //!< priority 3's bit
constexpr uint8_t P4 = 1u << 4; //!< priority 4's bit

/// A watchdog with Timeout 2 ms, enabled.
Ptr<RocePfcWatchdog>
Watchdog()
{
    Ptr<RocePfcWatchdog> wd = CreateObject<RocePfcWatchdog>();
    wd->SetAttribute("Enabled", BooleanValue(true));
    wd->SetAttribute("Timeout", TimeValue(MilliSeconds(2)));
    return wd;
}

/// \param us microseconds \return the time
Time
Us(int64_t us)
{
    return MicroSeconds(us);
}

TEST(PfcWatchdog, Defaults)
{
    Ptr<RocePfcWatchdog> wd = CreateObject<RocePfcWatchdog>();
    EXPECT_FALSE(wd->IsEnabled());
    EXPECT_EQ(wd->GetTimeout(), MilliSeconds(200));
    EXPECT_EQ(wd->GetInterval(), MilliSeconds(10));
    EXPECT_EQ(wd->GetRecoveryTime(), MilliSeconds(200));
    EXPECT_EQ(wd->GetAction(), RocePfcWatchdog::DROP);
    EXPECT_FALSE(RocePfcWatchdog::IsEnabledByDefault());
}

TEST(PfcWatchdog, FiresOneTimeoutAfterABackloggedPause)
{
    Ptr<RocePfcWatchdog> wd = Watchdog();
    wd->NotifyPause(3, Us(100), true);
    EXPECT_EQ(wd->Check(Us(2000), P3, P3), 0);
    EXPECT_EQ(wd->GetStall(3, Us(2000)), Us(1900));
    EXPECT_EQ(wd->Check(Us(2099), P3, P3), 0);
    EXPECT_EQ(wd->Check(Us(2100), P3, P3), P3);
    EXPECT_EQ(wd->GetRecoveryMask(), P3);
    EXPECT_EQ(wd->GetStats().triggers[3], 1u);
    EXPECT_EQ(wd->GetStats().lastTrigger[3], Us(2100));
    EXPECT_EQ(wd->GetStats().lastStall[3], Us(2000));
    // In recovery: no more checks needed for it, and it does not fire again.
    EXPECT_FALSE(wd->NeedsCheck(P3));
    EXPECT_EQ(wd->Check(Us(9000), P3, P3), 0);
    EXPECT_EQ(wd->GetStats().triggers[3], 1u);
}

TEST(PfcWatchdog, StallStartsWhenFramesAreFirstSeen)
{
    // Paused while empty: the stall starts at the first check that sees
    // frames, so the watchdog never fires before the frames waited a timeout.
    Ptr<RocePfcWatchdog> wd = Watchdog();
    wd->NotifyPause(3, Us(0), false);
    EXPECT_EQ(wd->Check(Us(1000), P3, 0), 0);
    EXPECT_EQ(wd->GetStall(3, Us(1000)), Time(0));
    EXPECT_EQ(wd->Check(Us(1500), P3, P3), 0);
    EXPECT_EQ(wd->Check(Us(3400), P3, P3), 0);
    EXPECT_EQ(wd->Check(Us(3500), P3, P3), P3);
    EXPECT_EQ(wd->GetStats().lastStall[3], MilliSeconds(2));
}

TEST(PfcWatchdog, ResumeEndsTheStall)
{
    Ptr<RocePfcWatchdog> wd = Watchdog();
    wd->NotifyPause(3, Us(0), true);
    wd->NotifyResume(3);
    EXPECT_EQ(wd->Check(Us(1000), 0, P3), 0);
    EXPECT_FALSE(wd->NeedsCheck(0));
    wd->NotifyPause(3, Us(1500), true);
    EXPECT_TRUE(wd->NeedsCheck(P3));
    EXPECT_EQ(wd->Check(Us(3000), P3, P3), 0);
    EXPECT_EQ(wd->Check(Us(3500), P3, P3), P3);
}

TEST(PfcWatchdog, RestoreRestartsTheStallIfStillPaused)
{
    Ptr<RocePfcWatchdog> wd = Watchdog();
    wd->NotifyPause(3, Us(0), true);
    ASSERT_EQ(wd->Check(Us(2000), P3, P3), P3);
    // A pause refreshed during recovery changes nothing.
    wd->NotifyPause(3, Us(2500), true);
    wd->Restore(3, Us(4000), true, true);
    EXPECT_EQ(wd->GetRecoveryMask(), 0);
    EXPECT_EQ(wd->GetStats().restores[3], 1u);
    EXPECT_EQ(wd->GetStall(3, Us(5000)), Us(1000));
    EXPECT_EQ(wd->Check(Us(5999), P3, P3), 0);
    EXPECT_EQ(wd->Check(Us(6000), P3, P3), P3);
    EXPECT_EQ(wd->GetStats().triggers[3], 2u);
    // Restored with the pause gone: no stall.
    wd->Restore(3, Us(8000), false, true);
    EXPECT_EQ(wd->GetStall(3, Us(9000)), Time(0));
    EXPECT_EQ(wd->Check(Us(20000), 0, P3), 0);
    // A restore of a queue not in recovery is ignored.
    wd->Restore(3, Us(21000), true, true);
    EXPECT_EQ(wd->GetStats().restores[3], 2u);
}

TEST(PfcWatchdog, PrioritiesAreIndependent)
{
    Ptr<RocePfcWatchdog> wd = Watchdog();
    wd->NotifyPause(3, Us(0), true);
    wd->NotifyPause(4, Us(1000), true);
    EXPECT_EQ(wd->Check(Us(2000), P3 | P4, P3 | P4), P3);
    EXPECT_TRUE(wd->NeedsCheck(P3 | P4));
    EXPECT_EQ(wd->Check(Us(3000), P3 | P4, P3 | P4), P4);
    EXPECT_EQ(wd->GetRecoveryMask(), P3 | P4);
    wd->CountDrops(3, 10, 10820);
    wd->CountDrops(3, 1, 1082);
    EXPECT_EQ(wd->GetStats().droppedFrames[3], 11u);
    EXPECT_EQ(wd->GetStats().droppedBytes[3], 11902u);
    EXPECT_EQ(wd->GetStats().droppedFrames[4], 0u);
}

TEST(PfcWatchdogErrorTest, BadSettingsAbort)
{
    EXPECT_ROCE_ERROR(
        {
            Ptr<RocePfcWatchdog> wd = CreateObject<RocePfcWatchdog>();
            wd->SetAttribute("Timeout", TimeValue(Seconds(0)));
        },
        "Timeout=\\+0ns must be positive");
    EXPECT_ROCE_ERROR(
        {
            Ptr<RocePfcWatchdog> wd = CreateObject<RocePfcWatchdog>();
            wd->SetAttribute("Interval", TimeValue(Seconds(0)));
        },
        "Interval=\\+0ns must be positive");
    EXPECT_ROCE_ERROR(
        {
            Ptr<RocePfcWatchdog> wd = CreateObject<RocePfcWatchdog>();
            wd->SetAttribute("RecoveryTime", TimeValue(Seconds(0)));
        },
        "RecoveryTime=\\+0ns must be positive");
    EXPECT_ROCE_ERROR(
        {
            Ptr<RocePfcWatchdog> wd = CreateObject<RocePfcWatchdog>();
            Ptr<Object> a = CreateObject<Object>();
            Ptr<Object> b = CreateObject<Object>();
            wd->SetOwner(PeekPointer(a));
            wd->SetOwner(PeekPointer(b));
        },
        "already serves another port");
}

} // namespace
