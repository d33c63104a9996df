#pragma once
// Small text helpers shared by the assembler and the trace readers.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace xps::text {

// Levenshtein distance, for "did you mean ...?" suggestions.
std::size_t editDistance(std::string_view a, std::string_view b);

// The candidate nearest to `word` if it is close enough to be a plausible typo, else empty.
std::string nearest(std::string_view word, std::span<const std::string_view> candidates);
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// 1-based line and column of a byte offset in `text`.
struct LineColumn
{
    std::size_t line = 1;
    std::size_t column = 1;
};
LineColumn lineColumnAt(std::string_view text, std::size_t offset);

std::string base64Encode(std::span<const std::uint8_t> bytes);
// Returns false (and leaves `out` in an unspecified state) on a character outside the alphabet or bad
// padding.
bool base64Decode(std::string_view text, std::vector<std::uint8_t>& out);
// Number of bytes a well-formed base64 text of this length decodes to (upper bound before padding is seen).
std::size_t base64DecodedSizeBound(std::size_t encodedLength);

std::string lower(std::string_view s); // ASCII
std::string hex(std::uint64_t value);
std::string formatBytes(std::uint64_t bytes); // "32 MiB", "1.5 KiB", "17 B"
// A size as a person types one: whole bytes ("4096", "4096B"), or a number (a fraction to six digits allowed)
// with a binary unit K, M, G or T, optionally followed by "iB" ("512M", "1.5GiB"; 1K = 1,024 bytes, as
// formatBytes writes them), rounded down to a whole byte. Nothing for any other text, or a size past 2^64 - 1
// bytes.
std::optional<std::uint64_t> parseBytes(std::string_view text);
std::string withThousands(std::uint64_t value); // "1,234,567"
std::string formatDouble(double value); // shortest of %g with up to 6 significant digits: "1200", "2.5"

} // namespace xps::text
