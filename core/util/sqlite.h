#pragma once
// A thin RAII layer over the SQLite C API: a connection, prepared statements, and errors as text.

#include <sqlite3.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace xps::sql {

class Database
{
public:
    Database() = default;
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Returns an empty string on success, else SQLite's reason.
    std::string open(const std::string& path, bool readOnly);
    std::string exec(const char* sql);
    std::string lastError() const;
    sqlite3* handle() const { return m_db; }

private:
    sqlite3* m_db = nullptr;
};

class Statement
{
public:
    Statement(const Database& db, const char* sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    bool valid() const { return m_stmt != nullptr; }
    void bind(int index, std::int64_t value);
    void bind(int index, std::string_view text);
    void bindBlob(int index, std::span<const std::uint8_t> bytes);
    // SQLITE_ROW, SQLITE_DONE or an error code.
    int step();
    void reset();

    std::int64_t int64(int column) const;
    std::string text(int column) const;
    std::span<const std::uint8_t> blob(int column) const;
    bool isNull(int column) const;

private:
    sqlite3_stmt* m_stmt = nullptr;
};

} // namespace xps::sql
