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

#include <string>

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

} // namespace xps::test
