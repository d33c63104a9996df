#pragma once
// A file read (and gunzipped, through zlib's gzread, which reads plain files too) on a thread of its own, a
// few blocks ahead of whoever parses it: the parser never waits for the disk or for inflate while there is
// text left to parse. On a 268 MB Kineto trace gzip imports went from 3.6 s to 3.2-3.5 s with a fuzzer on the
// other core (README, Performance); four 256 KiB blocks hold what the parser's one 1 MiB block did.
//
// One reader, one parser: next() hands out one block at a time, valid until the following call. Closing
// (the destructor) stops the reader within one block's read and joins it, so a cancelled import leaves no
// thread behind.

#include "util/result.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace xps::importing {

class ReadAheadFile
{
public:
    static constexpr std::size_t kBlockBytes = 256u << 10;
    static constexpr int kBlocksAhead = 4; // 1 MiB in all, what the parser held before it read ahead

    // Opens `path` and starts reading. Errors: cannot open.
    static Result<std::unique_ptr<ReadAheadFile>> open(const std::string& path);
    ~ReadAheadFile();
    ReadAheadFile(const ReadAheadFile&) = delete;
    ReadAheadFile& operator=(const ReadAheadFile&) = delete;

    struct Block
    {
        const char* data = nullptr;
        std::size_t size = 0; // 0: the end of the input (or of what a truncated gzip stream held)
        // The read failed (zlib's message, e.g. "invalid distance too far back"); size is 0 then.
        std::string error;
        bool truncated = false; // a gzip stream cut off: what it held was all read, then this
    };
    // The next block; the previous one is given back to the reader. After the end, keeps returning it.
    const Block& next();
    // Bytes of the file (compressed bytes for gzip) behind the blocks handed out so far: for progress.
    std::uint64_t fileOffset() const { return m_fileOffset; }

private:
    struct Slot
    {
        std::unique_ptr<char[]> bytes = std::make_unique<char[]>(kBlockBytes);
        Block block;
        std::uint64_t fileOffset = 0;
        bool full = false;
    };
    explicit ReadAheadFile(void* gz);
    void readLoop();

    void* m_gz; // gzFile, used by the reader thread only once it runs
    std::vector<Slot> m_slots = std::vector<Slot>(kBlocksAhead);
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_stop = false;
    int m_head = 0;         // the slot next() hands out next (parser side)
    bool m_holding = false; // the parser holds the slot before m_head
    bool m_ended = false;   // the parser has seen the last block
    Block m_end;            // returned after the end
    std::uint64_t m_fileOffset = 0;
    std::thread m_reader;
};

} // namespace xps::importing
