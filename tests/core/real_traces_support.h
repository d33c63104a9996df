#pragma once
// Files of ../shared/real-traces (its README: what each is, who wrote it, under which licence, and which
// upstream test asserts which number): real traces and the tools' own outputs for them. They are read where
// the shared folder is (XPS_SHARED_DIR) and never copied into the tree; a test whose file is absent skips,
// saying so.
#include "test_support.h"

#include "import/import.h"
#include "profile/profile.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <QFileInfo>
#include <QTest>

#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace xps::test {

inline std::string realTrace(const std::string& pathInRealTraces)
{
    return sharedDir() + "/real-traces/" + pathInRealTraces;
}

// Skips the calling test when the file is absent.
#define XPS_REQUIRE_REAL_TRACE(path)                                                                         \
    do {                                                                                                     \
        if (!QFileInfo::exists(QString::fromStdString(path))) {                                              \
            const std::string why =                                                                          \
                path + " is absent: the shared real traces are not here (XPS_SHARED_DIR)";                   \
            QSKIP(why.c_str());                                                                              \
        }                                                                                                    \
    } while (false)

inline profile::Profile importRealTrace(const std::string& path)
{
    auto p = importing::importProfile(path);
    if (!p.ok())
        qFatal("%s: %s", p.error().location().c_str(), p.error().message().c_str());
    return std::move(*p);
}

// A file, gunzipped if it is gzip (zlib reads plain files as they are).
inline std::string readMaybeGzip(const std::string& path)
{
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz)
        qFatal("cannot open %s", path.c_str());
    std::string text;
    char block[1 << 16];
    for (int n; (n = gzread(gz, block, sizeof block)) > 0;)
        text.append(block, static_cast<std::size_t>(n));
    gzclose(gz);
    return text;
}

// TraceLens's gpu_timeline.csv ("type,time ms,percent,GROUP"): milliseconds by GROUP (its gpu_pid or
// is_recompute column) and type.
inline std::map<std::string, std::map<std::string, double>> traceLensTimeline(const std::string& path)
{
    std::map<std::string, std::map<std::string, double>> out;
    std::istringstream in(readFile(path));
    std::string line;
    std::getline(in, line); // the header
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string field; std::getline(fields, field, ',');)
            f.push_back(field);
        if (f.size() != 4)
            qFatal("%s: expected 4 fields: %s", path.c_str(), line.c_str());
        out[f[3]][f[0]] = std::stod(f[1]);
    }
    return out;
}

// The member `name` of a tar archive (gzip-compressed or not), as bytes; empty if it is not there. Reads
// ustar headers (512-byte blocks, sizes in octal), skipping pax and GNU extension records.
inline std::string tarMember(const std::string& archivePath, const std::string& name)
{
    const std::string tar = readMaybeGzip(archivePath);
    std::size_t at = 0;
    while (at + 512 <= tar.size() && tar[at] != '\0') {
        const std::string header = tar.substr(at, 512);
        const std::string member(header.c_str(), strnlen(header.c_str(), 100));
        const std::string prefix(header.c_str() + 345, strnlen(header.c_str() + 345, 155));
        const std::size_t size =
            std::stoull(std::string(header.c_str() + 124, strnlen(header.c_str() + 124, 12)), nullptr, 8);
        const char type = header[156];
        const std::string full = prefix.empty() ? member : prefix + "/" + member;
        if ((type == '0' || type == '\0') && (full == name || full.ends_with("/" + name)))
            return tar.substr(at + 512, size);
        at += 512 + (size + 511) / 512 * 512;
    }
    return {};
}

} // namespace xps::test
