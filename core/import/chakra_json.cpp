#include "import/chakra_json.h"

#include "trace/trace_io.h"
#include "util/text.h"

#include <google/protobuf/util/json_util.h>
#include <zlib.h>

#include <filesystem>
#include <memory>
#include <optional>

namespace xps::importing {
namespace pb = ChakraProtoMsg;

namespace {

// One node's JSON is a few hundred bytes; a top-level object this large is not a node.
constexpr std::size_t kMaxObjectBytes = 64u << 20;

struct Location
{
    std::uint64_t line = 1;
    std::uint64_t column = 1;
};

std::string at(const std::string& path, Location l)
{
    return path + ":" + std::to_string(l.line) + ":" + std::to_string(l.column);
}

// Splits JSON text, fed in blocks, into its top-level objects: the elements of one top-level array, or
// objects written one after another. Only strings and nesting are tracked; each object's own syntax is
// left to protobuf's JSON parser.
class ObjectSplitter
{
public:
    explicit ObjectSplitter(std::string path) : m_path(std::move(path)) {}

    // Calls emit(text, where it starts) for each completed object, which returns an error or nothing.
    template <typename Emit> std::optional<Error> feed(std::string_view block, Emit&& emit)
    {
        for (const char c : block) {
            if (m_depth == 0) {
                if (std::string err = between(c); !err.empty())
                    return Error(at(m_path, m_here), err);
            } else {
                if (m_object.size() >= kMaxObjectBytes)
                    return Error(at(m_path, m_start), "this object is over " +
                                                          text::formatBytes(kMaxObjectBytes) +
                                                          ": not a Chakra node");
                m_object.push_back(c);
                if (m_inString) {
                    if (m_escaped)
                        m_escaped = false;
                    else if (c == '\\')
                        m_escaped = true;
                    else if (c == '"')
                        m_inString = false;
                } else if (c == '"') {
                    m_inString = true;
                } else if (c == '{' || c == '[') {
                    ++m_depth;
                } else if ((c == '}' || c == ']') && --m_depth == 0) {
                    if (std::optional<Error> err = emit(m_object, m_start))
                        return err;
                    m_object.clear();
                    m_afterObject = true;
                }
            }
            advance(c);
        }
        return std::nullopt;
    }

    // At the end of the input: an error if it was cut off.
    std::optional<Error> finish() const
    {
        if (m_depth > 0)
            return Error(at(m_path, m_start), "cut off inside this object (the file ends first)");
        if (m_inArray && !m_arrayClosed)
            return Error(at(m_path, m_here), "cut off: the array that holds the nodes is not closed");
        return std::nullopt;
    }

    Location here() const { return m_here; }

private:
    std::string between(char c)
    {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            return {};
        const auto unexpected = [&](const char* expected) {
            return std::string("expected ") + expected + ", found '" + c + "'";
        };
        if (m_arrayClosed)
            return unexpected("nothing after the closing ']'");
        if (c == '[' && !m_inArray && !m_afterObject) {
            m_inArray = true;
            return {};
        }
        if (c == ',' && m_inArray && m_afterObject) {
            m_afterObject = false;
            return {};
        }
        if (c == ']' && m_inArray) {
            m_arrayClosed = true;
            return {};
        }
        if (c == '{' && !(m_inArray && m_afterObject)) {
            m_depth = 1;
            m_start = m_here;
            m_object.assign(1, c);
            return {};
        }
        return unexpected(m_inArray ? (m_afterObject ? "',' or ']'" : "'{' (a node)") : "'{' (a node)");
    }

    void advance(char c)
    {
        if (c == '\n') {
            ++m_here.line;
            m_here.column = 1;
        } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) { // columns count characters, not bytes
            ++m_here.column;
        }
    }

    std::string m_path;
    std::string m_object;
    int m_depth = 0;
    bool m_inString = false;
    bool m_escaped = false;
    bool m_inArray = false;
    bool m_arrayClosed = false;
    bool m_afterObject = false;
    Location m_here;
    Location m_start;
};

bool skipTo(std::string_view s, std::size_t& i, char c)
{
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        ++i;
    if (i < s.size() && s[i] == c) {
        ++i;
        return true;
    }
    return false;
}

} // namespace

bool looksLikeChakraJson(std::string_view head)
{
    // A node's "type" is a NodeType name (COMP_NODE, COMM_COLL_NODE, ...). A Chrome trace event may carry
    // such a value in its args, but every Chrome event has a phase ("ph") and no Chakra node has one.
    if (head.find("\"ph\"") != std::string_view::npos ||
        head.find("\"traceEvents\"") != std::string_view::npos)
        return false;
    for (std::size_t k = head.find("\"type\""); k != std::string_view::npos;
         k = head.find("\"type\"", k + 1)) {
        std::size_t i = k + 6;
        if (!skipTo(head, i, ':') || !skipTo(head, i, '"'))
            continue;
        const std::size_t end = head.find('"', i);
        if (end != std::string_view::npos && end - i > 5 && head.substr(end - 5, 5) == "_NODE")
            return true;
    }
    return false;
}

std::string NodeChecks::refuse(const pb::Node& node, std::size_t index)
{
    if (m_limits.maxEvents != 0 && index >= m_limits.maxEvents)
        return m_limits.eventsMessage();
    const auto [it, added] = m_indexOfId.try_emplace(node.id(), index);
    if (!added)
        return "node " + std::to_string(index) + " repeats the id " + std::to_string(node.id()) + " of node " +
               std::to_string(it->second) + ": node ids must be unique within a rank";
    return {};
}

Result<std::vector<pb::Node>> readChakraJsonNodes(const std::string& path, std::string& version,
                                                  const ImportOptions& options)
{
    if (Status readable = trace::checkInputFile(path); !readable)
        return readable.error();
    const std::unique_ptr<gzFile_s, int (*)(gzFile)> gz(gzopen(path.c_str(), "rb"), gzclose);
    if (!gz)
        return Error(path, "cannot open");
    google::protobuf::util::JsonParseOptions parse;
    parse.ignore_unknown_fields = true; // fields of a newer schema than ours
    std::vector<pb::Node> nodes;
    NodeChecks checks(options.limits);
    std::error_code sizeError;
    const std::uint64_t fileBytes = std::filesystem::file_size(path, sizeError);
    const std::uint64_t allowance =
        gzdirect(gz.get()) ? UINT64_MAX : options.limits.decompressedAllowance(sizeError ? 0 : fileBytes);
    std::uint64_t decompressed = 0;
    bool metadataSeen = false;
    std::uint64_t objects = 0;
    const auto emit = [&](const std::string& json, Location start) -> std::optional<Error> {
        ++objects;
        if (!metadataSeen) {
            metadataSeen = true;
            // The jsonizer writes the GlobalMetadata first; a file without one starts with a node.
            pb::GlobalMetadata meta;
            google::protobuf::util::JsonParseOptions strict;
            if (google::protobuf::util::JsonStringToMessage(json, &meta, strict).ok()) {
                version = meta.version();
                return std::nullopt;
            }
        }
        pb::Node node;
        const auto status = google::protobuf::util::JsonStringToMessage(json, &node, parse);
        if (!status.ok())
            return Error(at(path, start), "node " + std::to_string(nodes.size()) +
                                              " is not a Chakra node: " + status.ToString());
        if (std::string why = checks.refuse(node, nodes.size()); !why.empty())
            return Error(at(path, start), why);
        nodes.push_back(std::move(node));
        return std::nullopt;
    };
    ObjectSplitter splitter(path);
    std::string block(1 << 20, '\0');
    std::uint64_t lastReport = 0;
    for (;;) {
        const int n = gzread(gz.get(), block.data(), static_cast<unsigned>(block.size()));
        if (n < 0) {
            int code = 0;
            const char* message = gzerror(gz.get(), &code);
            return Error(at(path, splitter.here()), std::string("cannot read: ") + message);
        }
        if (n == 0)
            break;
        decompressed += static_cast<std::uint64_t>(n);
        if (decompressed > allowance)
            return Error(at(path, splitter.here()), options.limits.expansionMessage(fileBytes));
        if (std::optional<Error> err = splitter.feed({block.data(), static_cast<std::size_t>(n)}, emit))
            return *err;
        const auto read = static_cast<std::uint64_t>(gzoffset(gz.get()));
        if (options.progress && read - lastReport >= (16u << 20)) {
            lastReport = read;
            if (!options.progress(read))
                return Error(path, "cancelled");
        }
    }
    if (std::optional<Error> err = splitter.finish())
        return *err;
    if (objects == 0)
        return Error(path,
                     "the file holds no JSON object: expected Chakra's JSON form (a GlobalMetadata, then "
                     "nodes)");
    return nodes;
}

} // namespace xps::importing
