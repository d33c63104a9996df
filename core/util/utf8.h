#pragma once
// UTF-8 checks and repair. Text from other tools' files may hold invalid sequences (a truncated name, a
// Latin-1 file name, random bytes in a fuzzed trace); xpushark keeps such text with each invalid sequence
// replaced by U+FFFD, as browsers and Python's errors="replace" do, so nothing it writes is invalid.

#include <cstddef>
#include <string>
#include <string_view>

namespace xps::text {

// True when every byte is below 0x80: the common case, checked first because it is cheap.
inline bool isAscii(std::string_view s)
{
    unsigned char any = 0;
    for (const char c : s)
        any |= static_cast<unsigned char>(c);
    return any < 0x80;
}

bool isValidUtf8(std::string_view s);
// Replaces each maximal invalid subsequence (the Unicode standard's "substitution of maximal subparts":
// overlong forms, surrogates, code points above U+10FFFF, stray continuation and cut-off lead bytes) with
// U+FFFD. Returns how many replacements were made (0: the string was valid and is unchanged).
std::size_t repairUtf8(std::string& s);
// The string as a JSON string literal (quotes, escapes), valid UTF-8 whatever the input.
void appendJsonString(std::string& out, std::string_view s);

} // namespace xps::text
