#include "util/sqlite.h"

namespace xps::sql {

Database::~Database()
{
    if (m_db)
        sqlite3_close(m_db);
}

std::string Database::open(const std::string& path, bool readOnly)
{
    const int flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (sqlite3_open_v2(path.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK)
        return lastError();
    return {};
}

std::string Database::exec(const char* sql)
{
    char* message = nullptr;
    if (sqlite3_exec(m_db, sql, nullptr, nullptr, &message) == SQLITE_OK)
        return {};
    std::string error = message ? message : lastError();
    sqlite3_free(message);
    return error;
}

std::string Database::lastError() const
{
    return m_db ? sqlite3_errmsg(m_db) : "out of memory";
}

Statement::Statement(const Database& db, const char* sql)
{
    if (sqlite3_prepare_v2(db.handle(), sql, -1, &m_stmt, nullptr) != SQLITE_OK)
        m_stmt = nullptr;
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

void Statement::bind(int index, std::int64_t value)
{
    sqlite3_bind_int64(m_stmt, index, value);
}

void Statement::bind(int index, std::string_view text)
{
    sqlite3_bind_text64(m_stmt, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void Statement::bindBlob(int index, std::span<const std::uint8_t> bytes)
{
    // SQLITE_STATIC: the caller keeps the bytes alive until step(); no copy of large snapshots.
    sqlite3_bind_blob64(m_stmt, index, bytes.data(), bytes.size(), SQLITE_STATIC);
}

int Statement::step()
{
    return sqlite3_step(m_stmt);
}

void Statement::reset()
{
    // A statement that failed to prepare (a corrupt file's missing table) is null: sqlite3_step and the
    // column functions answer it safely, sqlite3_clear_bindings does not (found by fuzz_container).
    if (!m_stmt)
        return;
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

std::int64_t Statement::int64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

std::string Statement::text(int column) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))) : std::string();
}

std::span<const std::uint8_t> Statement::blob(int column) const
{
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(m_stmt, column));
    return {p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))};
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

} // namespace xps::sql
