#include "trace/trace_container.h"
#include "util/json_text.h"

#include "trace/trace_json.h"
#include "trace/trace_validate.h"
#include "util/atomic_file.h"
#include "util/sqlite.h"
#include "util/text.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace xps::trace {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE chips(chip INTEGER PRIMARY KEY, document TEXT NOT NULL);
CREATE TABLE blob_chunks(blob INTEGER NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(blob, seq));
)sql";

class BlobWriter final : public PayloadWriter
{
public:
    explicit BlobWriter(sql::Database& db)
        : m_insert(db, "INSERT INTO blob_chunks(blob, seq, data) VALUES(?, ?, ?)")
    {
    }

    void write(nlohmann::ordered_json& object, std::span<const std::uint8_t> bytes) override
    {
        const std::int64_t id = m_next++;
        std::int64_t seq = 0;
        for (std::size_t offset = 0; offset < bytes.size(); offset += kBlobChunkBytes, ++seq) {
            m_insert.bind(1, id);
            m_insert.bind(2, seq);
            m_insert.bindBlob(3, bytes.subspan(offset, std::min(kBlobChunkBytes, bytes.size() - offset)));
            if (m_insert.step() != SQLITE_DONE)
                m_failed = true;
            m_insert.reset();
        }
        object["blob"] = id;
    }
    bool failed() const { return m_failed; }

private:
    sql::Statement m_insert;
    std::int64_t m_next = 1;
    bool m_failed = false;
};

class BlobReader final : public PayloadReader
{
public:
    // `fileBytes`: the container's size; no blob in it can hold more.
    BlobReader(sql::Database& db, std::uint64_t fileBytes)
        : m_fileBytes(fileBytes), m_size(db, "SELECT count(*), coalesce(sum(length(data)), 0), coalesce(max(seq), -1) FROM "
                     "blob_chunks WHERE blob = ?"),
          m_chunks(db, "SELECT data FROM blob_chunks WHERE blob = ? ORDER BY seq")
    {
    }

    void read(const JsonCursor& object, std::uint64_t size, std::vector<std::uint8_t>& out) override
    {
        const auto ref = object.find("blob");
        if (!ref)
            object.fail("expected a \"blob\" reference or a \"generator\"");
        const auto id = static_cast<std::int64_t>(ref->u64(INT64_MAX));
        // Sizes come from the chunk headers; nothing is allocated until they match the declaration.
        if (!m_size.valid() || !m_chunks.valid())
            ref->fail("table blob_chunks is missing or unreadable (corrupt container?)");
        m_size.bind(1, id);
        m_size.step();
        const std::int64_t chunks = m_size.int64(0);
        const auto stored = static_cast<std::uint64_t>(m_size.int64(1));
        const std::int64_t lastSeq = m_size.int64(2);
        m_size.reset();
        if (chunks == 0)
            ref->fail("blob " + std::to_string(id) + " is missing from table blob_chunks");
        if (lastSeq != chunks - 1)
            ref->fail("blob " + std::to_string(id) + " in table blob_chunks has gaps in its chunk sequence");
        if (stored != size)
            ref->fail("blob " + std::to_string(id) + " holds " + std::to_string(stored) +
                      " bytes; the region declares " + std::to_string(size));
        // SQLite's length() reads the size a record declares, not its data: a corrupt or hostile file can
        // claim a blob far larger than itself. Refuse before allocating.
        if (stored > m_fileBytes)
            ref->fail("blob " + std::to_string(id) + " declares " + std::to_string(stored) +
                      " bytes, more than the whole container (" + std::to_string(m_fileBytes) +
                      " bytes): the file is corrupt");
        out.resize(size);
        std::size_t offset = 0;
        m_chunks.bind(1, id);
        int rc;
        while ((rc = m_chunks.step()) == SQLITE_ROW) {
            const auto data = m_chunks.blob(0);
            if (offset + data.size() > out.size())
                break;
            if (!data.empty())
                std::memcpy(out.data() + offset, data.data(), data.size());
            offset += data.size();
        }
        m_chunks.reset();
        if (rc != SQLITE_DONE || offset != size)
            ref->fail("blob " + std::to_string(id) + " could not be read completely (corrupt container?)");
    }

private:
    std::uint64_t m_fileBytes;
    sql::Statement m_size;
    sql::Statement m_chunks;
};

std::string metaValue(sql::Database& db, const char* key, bool& found)
{
    sql::Statement s(db, "SELECT value FROM meta WHERE key = ?");
    s.bind(1, std::string_view(key));
    found = s.step() == SQLITE_ROW;
    return found ? s.text(0) : std::string();
}

} // namespace

bool looksLikeContainer(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char header[16] = {};
    in.read(header, sizeof header);
    return in.gcount() == 16 && std::memcmp(header, "SQLite format 3", 16) == 0;
}

namespace {
// A fresh container in `temp` with its header pragmas, inside a transaction; an error text, empty on success.
std::string beginContainer(sql::Database& db, const std::string& temp, int pageSize)
{
    if (std::string e = db.open(temp, false); !e.empty())
        return e;
    // A fresh temporary file: no journal needed; durability comes from the final rename.
    const std::string pragmas = "PRAGMA page_size=" + std::to_string(pageSize) +
                                "; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                                "PRAGMA application_id=" +
                                std::to_string(kContainerAppId) +
                                "; PRAGMA user_version=" + std::to_string(kContainerSchemaVersion) + ";";
    if (std::string e = db.exec(pragmas.c_str()); !e.empty())
        return e;
    return db.exec("BEGIN");
}
} // namespace

Status writeContainer(const std::string& path, const ContainerExtension& extend)
{
    return writeFileAtomically(path, [&](const std::string& temp) -> Status {
        sql::Database db;
        std::string e = beginContainer(db, temp, 4096);
        if (e.empty())
            e = extend(db);
        if (e.empty())
            e = db.exec("COMMIT");
        if (!e.empty())
            return Error(path, "could not write the container: " + e);
        return Ok{};
    });
}

Status writeTraceContainer(const Trace& trace, const std::string& path, const ContainerExtension& extend)
{
    return writeFileAtomically(path, [&](const std::string& temp) -> Status {
        sql::Database db;
        auto fail = [&](const std::string& why) -> Status {
            return Error(path, "could not write the container: " + why);
        };
        // Large pages read large snapshots at disk speed; small pages keep small traces small.
        const int pageSize = trace.snapshotBytes() >= (16u << 20) ? 65536 : 4096;
        if (std::string e = beginContainer(db, temp, pageSize); !e.empty())
            return fail(e);
        if (std::string e = db.exec(kSchema); !e.empty())
            return fail(e);
        {
            sql::Statement meta(db, "INSERT INTO meta(key, value) VALUES(?, ?)");
            const auto put = [&](std::string_view key, const std::string& value) {
                meta.bind(1, key);
                meta.bind(2, value);
                const bool ok = meta.step() == SQLITE_DONE;
                meta.reset();
                return ok;
            };
            bool ok = put("format", std::string(kFormatName)) &&
                      put("version", std::to_string(kFormatVersion)) && put("name", trace.name) &&
                      put("machine", text::jsonText(isa::machineConfigToJson(trace.machine)));
            if (trace.recorded)
                ok = ok && put("recorded", text::jsonText(recordedToJson(*trace.recorded)));
            if (trace.generatedBy)
                ok = ok && put("generator", text::jsonText(generatedByToJson(*trace.generatedBy)));
            if (!ok)
                return fail(db.lastError());
            BlobWriter blobs(db);
            sql::Statement chip(db, "INSERT INTO chips(chip, document) VALUES(?, ?)");
            for (const ChipTrace& c : trace.chips) {
                const std::string document = text::jsonText(chipToJson(c, blobs));
                chip.bind(1, static_cast<std::int64_t>(c.chip.value));
                chip.bind(2, document);
                if (chip.step() != SQLITE_DONE)
                    return fail(db.lastError());
                chip.reset();
            }
            if (blobs.failed())
                return fail(db.lastError());
        }
        if (extend)
            if (std::string e = extend(db); !e.empty())
                return fail(e);
        if (std::string e = db.exec("COMMIT"); !e.empty())
            return fail(e);
        return Ok{};
    });
}

namespace {
// SQLite reads missing pages of a cut-off file as zeros; compare the header's page count with the file size
// so a truncated copy is reported as such instead of loading whatever survived.
std::string truncationProblem(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    unsigned char header[100] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    if (in.gcount() < 100)
        return "file is truncated: shorter than the 100-byte SQLite header";
    std::uint64_t pageSize = (header[16] << 8) | header[17];
    if (pageSize == 1)
        pageSize = 65536;
    const std::uint64_t pages =
        (std::uint64_t(header[28]) << 24) | (header[29] << 16) | (header[30] << 8) | header[31];
    std::error_code ec;
    const std::uint64_t actual = std::filesystem::file_size(path, ec);
    if (!ec && pages * pageSize > actual)
        return "file is truncated: its header promises " + std::to_string(pages * pageSize) + " bytes (" +
               std::to_string(pages) + " pages of " + std::to_string(pageSize) + ") but the file has " +
               std::to_string(actual);
    return {};
}
} // namespace

Result<Trace> readTraceContainer(const std::string& path)
{
    if (!looksLikeContainer(path))
        return Error(path, "not an xpushark container: the file does not start with the SQLite header");
    if (std::string problem = truncationProblem(path); !problem.empty())
        return Error(path, problem);
    sql::Database db;
    if (std::string e = db.open(path, true); !e.empty())
        return Error(path, "cannot open the container: " + e);
    auto pragma = [&](const char* sql, std::int64_t& value) {
        sql::Statement s(db, sql);
        if (!s.valid() || s.step() != SQLITE_ROW)
            return false;
        value = s.int64(0);
        return true;
    };
    std::int64_t appId = 0, version = 0;
    if (!pragma("PRAGMA application_id", appId) || !pragma("PRAGMA user_version", version))
        return Error(path, "corrupt container: " + db.lastError());
    if (appId != kContainerAppId)
        return Error(path, "not an xpushark container: SQLite application_id is " +
                               text::hex(static_cast<std::uint32_t>(appId)) + ", expected " +
                               text::hex(static_cast<std::uint32_t>(kContainerAppId)));
    if (version > kContainerSchemaVersion)
        return Error(path, "written by a newer xpushark (container schema version " +
                               std::to_string(version) + "; this build reads versions up to " +
                               std::to_string(kContainerSchemaVersion) + "): please update xpushark");
    if (version < 1)
        return Error(path, "corrupt container: schema version " + std::to_string(version));

    {
        // A session on an imported profile has session tables and no trace (core/session): say so.
        sql::Statement s(db, "SELECT value FROM session_meta WHERE key = 'profile_source'");
        if (s.valid() && s.step() == SQLITE_ROW)
            return Error(path, "a session on the imported profile " + s.text(0) +
                                   ", not a trace: open it in the explorer (xpushark " + path + ")");
    }
    Trace trace;
    const std::string at = path + ": ";
    try {
        bool found = false;
        std::string machineText = metaValue(db, "machine", found);
        if (!found)
            return Error(at + "table meta", "missing row 'machine'" + (db.lastError() != "not an error"
                                                                           ? " (" + db.lastError() + ")"
                                                                           : std::string()));
        std::string syntax;
        const nlohmann::json machine =
            parseJsonText(machineText, path + " (table meta, row machine)", syntax);
        if (!syntax.empty())
            return Error(at + "table meta, row machine", syntax);
        auto config = isa::machineConfigFromJson(machine, {}, "$");
        if (!config)
            return Error(at + "table meta, row machine", config.error().message());
        trace.machine = std::move(config).value();
        trace.name = metaValue(db, "name", found);

        std::error_code sizeError;
        const std::uint64_t fileBytes = std::filesystem::file_size(path, sizeError);
        BlobReader blobs(db, sizeError ? 0 : fileBytes);
        sql::Statement chips(db, "SELECT chip, document FROM chips ORDER BY chip");
        if (!chips.valid())
            return Error(at + "table chips", "cannot read: " + db.lastError());
        int rc;
        while ((rc = chips.step()) == SQLITE_ROW) {
            const std::int64_t id = chips.int64(0);
            const std::string where = "table chips, row chip=" + std::to_string(id);
            if (static_cast<std::int64_t>(trace.chips.size()) >= trace.machine.chips)
                return Error(at + where,
                             "more chip rows than machine.chips=" + std::to_string(trace.machine.chips));
            const nlohmann::json doc = parseJsonText(chips.text(1), path + " (" + where + ")", syntax);
            if (!syntax.empty())
                return Error(at + where, syntax);
            try {
                trace.chips.push_back(chipFromJson(JsonCursor(doc, "$"), trace.machine, blobs));
            } catch (const JsonError& e) {
                return Error(at + where + ": " + e.path, e.message);
            }
        }
        if (rc != SQLITE_DONE)
            return Error(at + "table chips", "corrupt container: " + db.lastError());
        std::string recorded = metaValue(db, "recorded", found);
        if (found) {
            const nlohmann::json doc = parseJsonText(recorded, path + " (table meta, row recorded)", syntax);
            if (!syntax.empty())
                return Error(at + "table meta, row recorded", syntax);
            trace.recorded = recordedFromJson(JsonCursor(doc, "$"));
        }
        std::string generator = metaValue(db, "generator", found);
        if (found) {
            const nlohmann::json doc = parseJsonText(generator, path + " (table meta, row generator)", syntax);
            if (!syntax.empty())
                return Error(at + "table meta, row generator", syntax);
            trace.generatedBy = generatedByFromJson(JsonCursor(doc, "$"));
        }
    } catch (const JsonError& e) {
        return Error(at + "table meta: " + e.path, e.message);
    }
    std::vector<Diagnostic> findings = validateTrace(trace, [&](const Where& w) {
        const std::string jsonPath = jsonPathOf(w);
        if (!w.chip.valid())
            return at + "table meta: " + jsonPath;
        return at + "table chips, row chip=" + std::to_string(w.chip.value) + ": $" +
               jsonPath.substr(jsonPath.find(']') + 1);
    });
    if (!findings.empty())
        return Error(std::move(findings));
    return trace;
}

} // namespace xps::trace
