#pragma once
// A pull reader over JSON text that streams from disk: plain or gzip-compressed (zlib's gzread reads both),
// in blocks read ahead on a thread of their own (read_ahead_file.h; 1 MiB in all), so a 1 GB trace is never
// held as text. It hands out one token at a time and can capture any value as compact JSON text (how the
// importers keep an event's `args`). Errors name the file, the line and column (found by re-reading the file
// up to the failing byte, so the fast path counts nothing) and what was expected. Limits keep hostile input
// bounded: nesting depth, string length.

#include "util/result.h"
#include "util/utf8.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace xps::importing {

class ReadAheadFile;

struct JsonSyntaxError
{
    std::uint64_t offset = 0; // byte offset in the (decompressed) text
    std::string message;
};

enum class JsonKind { Object, Array, String, Number, True, False, Null, End };

class JsonReader
{
public:
    static constexpr int kMaxDepth = 64;
    static constexpr std::size_t kMaxString = 16u << 20;

    // Opens `path` (gzip or plain). Errors: missing, unreadable, a directory.
    // A compressed file that decompresses past `maxDecompressedBytes` fails with `expansionMessage`.
    static Result<std::unique_ptr<JsonReader>> open(const std::string& path,
                                                    std::uint64_t maxDecompressedBytes = UINT64_MAX,
                                                    std::string expansionMessage = {});
    ~JsonReader();

    // Skips whitespace and tells what the next value is, without consuming it. End: no more input.
    JsonKind peek();
    // The next non-whitespace byte, or -1 at the end of input.
    int peekByte();
    bool atEnd() { return peekByte() < 0; }
    // True once a read found no more input (a file cut off shows as an error with this set).
    bool reachedEnd() const { return m_reachedEnd; }

    // Structural tokens. expect() throws JsonSyntaxError naming what was expected.
    void expect(char c);
    // After '{' or ',' in an object: reads `"key":` into `key`. After the last member: returns false and
    // consumes '}'. Call with first = true right after '{'.
    bool nextMember(std::string& key, bool& first);
    // Inside an array: true if another element follows (consumes the ',' before it), false at ']' (consumed).
    bool nextElement(bool& first);

    void readString(std::string& out);
    // The number's text (as written: "12.5e3"); throws if the next value is not a number.
    std::string_view readNumberText();
    bool readBool();
    void readNull();
    // Skips any value; appends it as compact JSON text to `out` if given (strings re-escaped minimally).
    void skipValue(std::string* out = nullptr);

    std::uint64_t offset() const { return m_consumed + m_pos; }
    // Strings that held invalid UTF-8 (each invalid sequence was replaced by U+FFFD), and where the first
    // one started: importers report them as one repair.
    std::uint64_t repairedStrings() const { return m_repairedStrings; }
    std::uint64_t firstRepairOffset() const { return m_firstRepairOffset; }
    const std::string& path() const { return m_path; }
    // True when the input is gzip-compressed.
    bool compressed() const { return m_compressed; }
    // Bytes of the file read so far (compressed size for gzip): for progress.
    std::uint64_t fileOffset() const;

    // "file:line:column: message", counting lines by reading the file again up to `offset`.
    Error errorAt(std::uint64_t offset, const std::string& message) const;

private:
    JsonReader() = default;
    bool refill();
    int get()
    {
        if (m_pos < m_end || refill())
            return static_cast<unsigned char>(m_buffer[m_pos++]);
        return -1;
    }
    int peekRaw()
    {
        if (m_pos < m_end || refill())
            return static_cast<unsigned char>(m_buffer[m_pos]);
        return -1;
    }
    void skipWhitespace();
    [[noreturn]] void fail(const std::string& message) const;
    void readStringBody(std::string& out);
    void appendCodePoint(std::string& out, std::uint32_t cp);
    void skipValueAt(std::string* out, int depth);

    std::string m_path;
    std::unique_ptr<ReadAheadFile> m_file;
    bool m_compressed = false;
    bool m_reachedEnd = false;
    std::uint64_t m_maxDecompressed = UINT64_MAX;
    std::string m_expansionMessage;
    std::uint64_t m_repairedStrings = 0;
    std::uint64_t m_firstRepairOffset = 0;
    const char* m_buffer = nullptr; // the block being parsed: m_file's, valid until the next refill
    std::size_t m_pos = 0, m_end = 0;
    std::uint64_t m_consumed = 0; // bytes before m_buffer[0]
    std::string m_number;
};

// Appends `s` as a JSON string literal (quotes, minimal escapes; invalid UTF-8 replaced by U+FFFD).
using text::appendJsonString;

// Parses a JSON number's text exactly into an integer count of 1/scale units: "1.5" at scale 1000 is 1500,
// "12.3456" at scale 1000 is 12346 (rounded half away from zero). Exponents are applied; false for a
// number out of the int64 range or not a number.
bool parseScaled(std::string_view text, std::int64_t scale, std::int64_t& out);

} // namespace xps::importing
