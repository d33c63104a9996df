#pragma once
// Typed, path-tracking access to a parsed JSON document. Every accessor checks type and range and, on
// failure, throws JsonError naming the JSON path ($.chips[0].buffers[2].size) and what was expected.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xps::trace {

struct JsonError
{
    std::string path;
    std::string message;
};

class JsonCursor
{
public:
    JsonCursor(const nlohmann::json& value, std::string path) : m_value(&value), m_path(std::move(path)) {}

    const nlohmann::json& json() const { return *m_value; }
    const std::string& path() const { return m_path; }

    // Object access. `keys` lists every key the object may have; others are reported as unknown.
    void expectObject(std::initializer_list<std::string_view> keys) const;
    JsonCursor at(std::string_view key) const; // required member
    std::optional<JsonCursor> find(std::string_view key) const;

    // Every member of an object (at most `maximum` of them), in key order.
    std::vector<std::pair<std::string, JsonCursor>> members(std::size_t maximum, std::string_view what) const;

    // Array access.
    std::size_t arraySize(std::size_t maximum, std::string_view what) const;
    JsonCursor operator[](std::size_t index) const;

    std::uint64_t u64(std::uint64_t maximum = UINT64_MAX) const;
    std::int64_t i64(std::int64_t minimum, std::int64_t maximum) const;
    double real() const;
    const std::string& str(std::size_t maxLength = 4096) const;

    [[noreturn]] void fail(std::string message) const;

private:
    const nlohmann::json* m_value;
    std::string m_path;
};

std::string_view jsonTypeName(const nlohmann::json& value);

inline constexpr std::uint64_t kMaxJsonValues = 32u << 20;

// Parses JSON text. Nesting deeper than `maxDepth` (only ever hostile: deep trees cost stack) and more than
// `maxValues` values (bounded memory) are refused. On failure returns null and sets `error` to
// "file:line:column: what" or "file: what".
nlohmann::json parseJsonText(std::string_view text, std::string_view fileName, std::string& error,
                             int maxDepth = 64, std::uint64_t maxValues = kMaxJsonValues);

} // namespace xps::trace
