#include "import/read_ahead_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace xps::importing {

Result<std::unique_ptr<ReadAheadFile>> ReadAheadFile::open(const std::string& path)
{
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz)
        return Error(path, std::string("cannot open: ") + std::strerror(errno));
    gzbuffer(gz, 1u << 18);
    return std::unique_ptr<ReadAheadFile>(new ReadAheadFile(gz));
}

ReadAheadFile::ReadAheadFile(void* gz) : m_gz(gz)
{
    m_reader = std::thread([this] { readLoop(); });
}

ReadAheadFile::~ReadAheadFile()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_reader.join(); // within one block's read: a few milliseconds of inflate at most
    gzclose(static_cast<gzFile>(m_gz));
}

void ReadAheadFile::readLoop()
{
    gzFile gz = static_cast<gzFile>(m_gz);
    for (int tail = 0;; tail = (tail + 1) % kBlocksAhead) {
        Slot& slot = m_slots[static_cast<std::size_t>(tail)];
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [&] { return m_stop || !slot.full; });
            if (m_stop)
                return;
        }
        // The slot is free: only this thread touches it until it is marked full.
        const int n = gzread(gz, slot.bytes.get(), static_cast<unsigned>(kBlockBytes));
        Block block;
        block.data = slot.bytes.get();
        if (n > 0) {
            block.size = static_cast<std::size_t>(n);
        } else {
            int code = Z_OK;
            const char* message = gzerror(gz, &code);
            // A gzip stream cut off reads what it holds, then ends with Z_BUF_ERROR ("unexpected end of
            // file"): zlib 1.2.13 returns 0 for it, older versions -1.
            if (code == Z_BUF_ERROR)
                block.truncated = true;
            else if (n < 0 || code != Z_OK)
                block.error = message && *message ? message : "zlib error";
        }
        const bool last = block.size == 0;
        const z_off_t offset = gzoffset(gz);
        {
            std::lock_guard lock(m_mutex);
            slot.block = std::move(block);
            slot.fileOffset = offset < 0 ? 0 : static_cast<std::uint64_t>(offset);
            slot.full = true;
        }
        m_changed.notify_all();
        if (last)
            return;
    }
}

const ReadAheadFile::Block& ReadAheadFile::next()
{
    if (m_ended)
        return m_end;
    std::unique_lock lock(m_mutex);
    if (m_holding) { // give the previous block back to the reader
        m_slots[static_cast<std::size_t>((m_head + kBlocksAhead - 1) % kBlocksAhead)].full = false;
        m_holding = false;
        m_changed.notify_all();
    }
    Slot& slot = m_slots[static_cast<std::size_t>(m_head)];
    m_changed.wait(lock, [&] { return slot.full; });
    m_head = (m_head + 1) % kBlocksAhead;
    m_holding = true;
    m_fileOffset = slot.fileOffset;
    if (slot.block.size == 0) {
        m_ended = true;
        m_end = slot.block;
        return m_end;
    }
    return slot.block;
}

} // namespace xps::importing
