#pragma once
// Shared by the fuzz targets: most readers take a path (they stream from disk, detect gzip, stat the file),
// so the input is written to one scratch file per process and target, named with the extension the reader
// dispatches on. Everything a reader returns is then exercised the way the CLI's `analyze --json` would.

#include "profile/profile_analysis.h"
#include "profile/profile_report.h"
#include "util/json_text.h"
#include "util/utf8.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace xps::fuzz {

inline std::string scratchFile(const std::uint8_t* data, std::size_t size, const std::string& name)
{
    const std::string path = "/tmp/xps-fuzz-" + std::to_string(::getpid()) + "-" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        std::abort(); // the machine, not the input: stop loudly
    if (size > 0 && std::fwrite(data, 1, size, f) != size)
        std::abort();
    std::fclose(f);
    return path;
}

// A finding, whatever the sanitizers say: what we write must be valid UTF-8 JSON.
inline void requireValidUtf8(const std::string& text)
{
    if (!text::isValidUtf8(text))
        std::abort();
}

// What `analyze --json` does with an imported profile.
inline void analyzeAndWrite(const profile::Profile& p)
{
    requireValidUtf8(text::jsonText(profile::profileAnalysisJson(p, profile::analyzeProfile(p)), 2));
}

} // namespace xps::fuzz
