#pragma once
// Helpers shared by the test suites: readable QCOMPARE output for std::string and strong ids, and the source
// tree path.

#include <QtTest/QtTest>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace QTest {
template <> inline char* toString(const std::string& s)
{
    return qstrdup(s.c_str());
}
} // namespace QTest

namespace xps {
// A strong id (util/strong_id.h; declared here, not included: moc reads this header and cannot parse
// <compare>) in a failed QCOMPARE: its value, or "invalid" (found by argument-dependent lookup).
template <typename Tag, typename Rep> struct StrongId;
template <typename Tag, typename Rep> char* toString(StrongId<Tag, Rep> id)
{
    return qstrdup(id.valid() ? std::to_string(id.value).c_str() : "invalid");
}
} // namespace xps

namespace xps::test {

inline std::string sourceDir()
{
    const char* dir = std::getenv("XPS_SOURCE_DIR");
    return dir ? dir : XPS_TEST_SOURCE_DIR;
}

// The shared data folder (XPS_SHARED_DIR, set by CTest from the CMake cache path of that name; ../shared
// beside the source tree when run by hand).
inline std::string sharedDir()
{
    const char* dir = std::getenv("XPS_SHARED_DIR");
    return dir ? dir : sourceDir() + "/../shared";
}

inline std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void writeFile(const std::string& path, const std::string& content)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
}

} // namespace xps::test
