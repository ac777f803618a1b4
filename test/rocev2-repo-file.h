/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCEV2_REPO_FILE_H
#define ROCEV2_REPO_FILE_H

#include <fstream>
#include <string>

namespace ns3
{

/**
 * \param path a file's path in the repository
 * \return the path from the source folder (the module built alone) or from
 *         an ns-3 tree's root (contrib/rocev2/), whichever exists; else path
 */
inline std::string
Rocev2RepoFile(const std::string& path)
{
    for (const std::string& dir : {std::string(), std::string("contrib/rocev2/")})
    {
        if (std::ifstream(dir + path).good())
        {
            return dir + path;
        }
    }
    return path;
}

} // namespace ns3

#endif /* ROCEV2_REPO_FILE_H */
