#include "import/chakra_feeder_json.h"

#include "import/chakra_json.h"
#include "trace/trace_io.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <filesystem>
#include <memory>

namespace xps::importing {
namespace pb = ChakraProtoMsg;

bool looksLikeChakraFeederJson(std::string_view head)
{
    return head.find("\"workload_graph\"") != std::string_view::npos &&
           head.find("\"traceEvents\"") == std::string_view::npos &&
           head.find("\"ph\"") == std::string_view::npos;
}

namespace {

// "line L:C" of byte `offset` in `text`.
std::string lineColumn(const std::string& text, std::size_t offset)
{
    offset = std::min(offset, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return std::to_string(line) + ":" + std::to_string(column);
}

class NodeReader
{
public:
    NodeReader(const std::string& path, const nlohmann::json& node, std::size_t index)
        : m_path(path), m_node(node), m_where("$.workload_graph[" + std::to_string(index) + "]")
    {
    }

    // The unsigned integer at `key`, or an error naming its JSON path; `required` false: absent is 0.
    Result<std::uint64_t> unsignedAt(const char* key, bool required) const
    {
        const auto it = m_node.find(key);
        if (it == m_node.end()) {
            if (required)
                return error(key, "missing; expected an unsigned integer");
            return std::uint64_t{0};
        }
        if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
            return error(key, "expected an unsigned integer, found " + it->dump().substr(0, 40));
        return it->get<std::uint64_t>();
    }

    Error error(const std::string& key, const std::string& what) const
    {
        return Error(m_path, m_where + "." + key + ": " + what);
    }

    const nlohmann::json& node() const { return m_node; }

private:
    const std::string& m_path;
    const nlohmann::json& m_node;
    std::string m_where;
};

void addAttr(pb::Node& node, const char* name, std::int64_t value)
{
    pb::AttributeProto* a = node.add_attr();
    a->set_name(name);
    a->set_int64_val(value);
}

Result<pb::Node> readNode(const NodeReader& r)
{
    pb::Node n;
    auto id = r.unsignedAt("Id", true);
    if (!id)
        return id.error();
    n.set_id(*id);
    const auto name = r.node().find("Name");
    if (name == r.node().end() || !name->is_string())
        return r.error("Name", "expected a string");
    n.set_name(name->get<std::string>());
    auto type = r.unsignedAt("NodeType", true);
    if (!type)
        return type.error();
    if (!pb::NodeType_IsValid(static_cast<int>(std::min<std::uint64_t>(*type, 1000))))
        return r.error("NodeType", "expected a Chakra NodeType (0..10), found " + std::to_string(*type));
    n.set_type(static_cast<pb::NodeType>(*type));
    auto runtime = r.unsignedAt("runtime", false);
    if (!runtime)
        return runtime.error();
    n.set_duration_micros(*runtime);
    const auto cpu = r.node().find("is_cpu_op");
    if (cpu != r.node().end()) {
        if (!cpu->is_boolean())
            return r.error("is_cpu_op", "expected true or false");
        addAttr(n, "is_cpu_op", cpu->get<bool>() ? 1 : 0);
    }
    const auto deps = r.node().find("data_deps");
    if (deps != r.node().end()) {
        if (!deps->is_array())
            return r.error("data_deps", "expected an array of node ids");
        for (std::size_t i = 0; i < deps->size(); ++i) {
            const nlohmann::json& d = (*deps)[i];
            if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<std::int64_t>() >= 0))
                return r.error("data_deps[" + std::to_string(i) + "]", "expected a node id");
            n.add_data_deps(d.get<std::uint64_t>());
        }
    }
    if (n.type() == pb::COMM_SEND_NODE || n.type() == pb::COMM_RECV_NODE || n.type() == pb::COMM_COLL_NODE)
        for (const char* key :
             {"tensor_size", "comm_type", "comm_priority", "comm_size", "comm_src", "comm_dst", "comm_tag"}) {
            if (!r.node().contains(key))
                continue;
            auto v = r.unsignedAt(key, false);
            if (!v)
                return v.error();
            if (*v > static_cast<std::uint64_t>(INT64_MAX))
                return r.error(key, "out of range");
            addAttr(n, key, static_cast<std::int64_t>(*v));
        }
    return n;
}

} // namespace

Result<std::vector<pb::Node>> readChakraFeederJsonNodes(const std::string& path, const ImportOptions& options)
{
    if (Status readable = trace::checkInputFile(path); !readable)
        return readable.error();
    const std::unique_ptr<gzFile_s, int (*)(gzFile)> gz(gzopen(path.c_str(), "rb"), gzclose);
    if (!gz)
        return Error(path, "cannot open");
    std::error_code sizeError;
    const std::uint64_t fileBytes = std::filesystem::file_size(path, sizeError);
    const std::uint64_t allowance =
        gzdirect(gz.get()) ? UINT64_MAX : options.limits.decompressedAllowance(sizeError ? 0 : fileBytes);
    std::string text;
    char block[1 << 16];
    for (int got; (got = gzread(gz.get(), block, sizeof block)) > 0;) {
        text.append(block, static_cast<std::size_t>(got));
        if (text.size() > allowance)
            return Error(path, options.limits.expansionMessage(fileBytes));
    }
    // The whole document is one object: the feeder itself holds it in memory the same way.
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        const std::string what = e.what();
        return Error(path + ":" + lineColumn(text, e.byte > 0 ? e.byte - 1 : 0),
                     "not JSON: " +
                         what.substr(what.find(']') == std::string::npos ? 0 : what.find(']') + 2));
    }
    text.clear();
    text.shrink_to_fit();
    if (!doc.is_object() || !doc.contains("workload_graph") || !doc["workload_graph"].is_array())
        return Error(path, "$.workload_graph: expected an array of Chakra nodes");
    const nlohmann::json& graph = doc["workload_graph"];
    std::vector<pb::Node> nodes;
    nodes.reserve(graph.size());
    NodeChecks checks(options.limits);
    for (std::size_t i = 0; i < graph.size(); ++i) {
        if (!graph[i].is_object())
            return Error(path, "$.workload_graph[" + std::to_string(i) + "]: expected a node object");
        auto node = readNode(NodeReader(path, graph[i], i));
        if (!node)
            return node.error();
        if (std::string why = checks.refuse(*node, nodes.size()); !why.empty())
            return Error(path, "$.workload_graph[" + std::to_string(i) + "]: " + why);
        nodes.push_back(std::move(*node));
    }
    return nodes;
}

} // namespace xps::importing
