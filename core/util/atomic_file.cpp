#include "util/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace xps {
namespace {

bool syncToDisk(const std::string& path, int flags)
{
    const int fd = ::open(path.c_str(), flags);
    if (fd < 0)
        return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

} // namespace

Status writeFileAtomically(const std::string& path,
                           const std::function<Status(const std::string& temporaryPath)>& write)
{
    // The pid keeps concurrent writers (two app instances) from sharing a temporary file.
    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    Status written = Ok{};
    try {
        written = write(temp);
    } catch (...) {
        // A writer that throws (a cancelled stage, bad_alloc) leaves no temporary file behind either.
        std::filesystem::remove(temp, ec);
        throw;
    }
    if (written && !syncToDisk(temp, O_RDONLY))
        written = Error(path, std::string("could not sync to disk: ") + std::strerror(errno));
    if (written) {
        std::filesystem::rename(temp, path, ec);
        if (ec)
            written = Error(path, "could not replace the file: " + ec.message());
    }
    if (!written) {
        std::filesystem::remove(temp, ec);
        return written;
    }
    // Make the rename itself durable.
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    syncToDisk(parent.empty() ? std::string(".") : parent.string(), O_RDONLY | O_DIRECTORY);
    return Ok{};
}

Status writeTextFileAtomically(const std::string& path, const std::string& content)
{
    return writeFileAtomically(path, [&](const std::string& temp) -> Status {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out)
            return Error(path, std::string("cannot write: ") + std::strerror(errno));
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out)
            return Error(path, "write failed (disk full?)");
        return Ok{};
    });
}

} // namespace xps
