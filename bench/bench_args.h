#pragma once
// What the benchmarks share on their command line and platform.

#include <QtGlobal>

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

// The sizes given as arguments from argv[first] on, or `defaults` when there are none.
inline std::vector<std::uint64_t> sizesFromArgs(int argc, char** argv, int first,
                                                std::vector<std::uint64_t> defaults)
{
    std::vector<std::uint64_t> sizes;
    for (int i = first; i < argc; ++i)
        sizes.push_back(std::stoull(argv[i]));
    return sizes.empty() ? defaults : sizes;
}

// Qt benchmarks draw offscreen unless QT_QPA_PLATFORM says otherwise; call before QApplication.
inline void useOffscreenUnlessSet()
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

} // namespace bench
