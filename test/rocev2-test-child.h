/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCEV2_TEST_CHILD_H
#define ROCEV2_TEST_CHILD_H

/**
 * \file
 * \ingroup rocev2
 * Run part of a test in a forked child process: for code that must abort
 * (NS_ABORT_MSG cannot be caught in the test runner) and for global modes that
 * cannot be turned off again (Packet::EnableChecking()). Where fork() is not
 * available, ROCEV2_TEST_CAN_FORK stays undefined and such cases check nothing.
 */

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#define ROCEV2_TEST_CAN_FORK 1
#endif

#include <cstddef>
#include <functional>
#include <iostream>
#include <string>

namespace ns3
{
namespace rocev2test
{

#ifdef ROCEV2_TEST_CAN_FORK
/**
 * \brief Run fn in a forked child with its standard error captured.
 * \param fn what to run; it ends the child with _exit(non-zero) or an abort
 *        to report failure, or returns for success
 * \param err receives the child's standard error
 * \return true if the child did not exit normally with status 0
 */
inline bool
RunInChild(const std::function<void()>& fn, std::string& err)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        return false;
    }
    std::cout.flush();
    std::cerr.flush();
    pid_t pid = fork();
    if (pid == 0)
    {
        struct rlimit noCore = {0, 0};
        setrlimit(RLIMIT_CORE, &noCore); // an expected abort leaves no core file
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        fn();
        std::cerr.flush();
        _exit(0);
    }
    close(fds[1]);
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    {
        err.append(buf, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
#endif

} // namespace rocev2test
} // namespace ns3

#endif /* ROCEV2_TEST_CHILD_H */
