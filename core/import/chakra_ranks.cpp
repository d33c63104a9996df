// Chakra rank files: PREFIX.N.et (or PREFIX.N.json[.gz]) opens PREFIX.0 ... as the ranks of one trace; any
// other name is rank 0 alone.

#include "import/chakra_ranks.h"
#include "import/chakra.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

namespace xps::importing {

namespace chakra_ranks {

// The name's Chakra suffix: ".et" for the protobuf form, ".json" / ".json.gz" for the JSON form.
std::string chakraSuffix(const std::string& name)
{
    for (const char* suffix : {".et", ".json.gz", ".json"}) {
        const std::size_t n = std::strlen(suffix);
        if (name.size() > n && name.compare(name.size() - n, n, suffix) == 0)
            return suffix;
    }
    return {};
}

bool isRankFileName(const std::string& name)
{
    const std::string suffix = chakraSuffix(name);
    if (suffix.empty())
        return false;
    const std::string stem = name.substr(0, name.size() - suffix.size());
    const std::size_t dot = stem.rfind('.');
    return dot != std::string::npos && dot + 1 < stem.size() && stem.size() - dot - 1 <= 6 &&
           std::all_of(stem.begin() + static_cast<std::ptrdiff_t>(dot) + 1, stem.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::vector<std::pair<int, std::string>> rankFiles(const std::string& path)
{
    namespace fs = std::filesystem;
    const fs::path p(path);
    const std::string name = p.filename().string();
    const auto single = std::vector<std::pair<int, std::string>>{{0, path}};
    const std::string suffix = chakraSuffix(name);
    if (suffix.empty())
        return single;
    const std::string stem = name.substr(0, name.size() - suffix.size());
    const std::size_t dot = stem.rfind('.');
    if (dot == std::string::npos || dot + 1 == stem.size() ||
        !std::all_of(stem.begin() + static_cast<std::ptrdiff_t>(dot) + 1, stem.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return single;
    const std::string prefix = stem.substr(0, dot + 1);
    std::vector<std::pair<int, std::string>> out;
    std::error_code ec;
    for (const auto& entry :
         fs::directory_iterator(p.has_parent_path() ? p.parent_path() : fs::path("."), ec)) {
        const std::string n = entry.path().filename().string();
        if (n.size() <= prefix.size() + suffix.size() || n.compare(0, prefix.size(), prefix) != 0 ||
            n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string digits = n.substr(prefix.size(), n.size() - prefix.size() - suffix.size());
        if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char c) {
                return std::isdigit(static_cast<unsigned char>(c));
            }))
            continue;
        out.emplace_back(std::stoi(digits), entry.path().string());
    }
    std::sort(out.begin(), out.end());
    return out.empty() ? single : out;
}

} // namespace chakra_ranks

using chakra_ranks::isRankFileName;

std::string firstChakraRankIn(const std::string& directory)
{
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec))
        if (entry.is_regular_file(ec) && isRankFileName(entry.path().filename().string()))
            names.push_back(entry.path().string());
    std::sort(names.begin(), names.end()); // the same profile whatever order the directory lists
    return names.empty() ? std::string() : names.front();
}

std::string chakraRankOfPrefix(const std::string& prefix)
{
    std::error_code ec;
    if (prefix.empty() || std::filesystem::exists(prefix, ec))
        return {};
    for (const char* rank0 : {".0.et", ".0.json", ".0.json.gz"})
        if (std::filesystem::is_regular_file(prefix + rank0, ec))
            return prefix + rank0;
    return {};
}

} // namespace xps::importing
