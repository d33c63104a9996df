#pragma once
// Chakra ranks written as Chakra writes them, for the import tests: the protobuf form (length-delimited
// GlobalMetadata then Nodes) and the JSON form of its jsonizer.

#include "import/proto/et_def.pb.h"

#include <google/protobuf/util/delimited_message_util.h>
#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <string>
#include <vector>

namespace xps::test {

// One rank of a Chakra trace.
struct ChakraRank
{
    ChakraProtoMsg::GlobalMetadata meta;
    std::vector<ChakraProtoMsg::Node> nodes;
};

// Appends a node with its dependencies and, for a collective, an all-reduce of `commBytes`.
inline ChakraProtoMsg::Node& addNode(ChakraRank& r, std::uint64_t id, const char* name,
                                     ChakraProtoMsg::NodeType type, std::uint64_t micros,
                                     const std::vector<std::uint64_t>& data,
                                     const std::vector<std::uint64_t>& ctrl)
{
    ChakraProtoMsg::Node& n = r.nodes.emplace_back();
    n.set_id(id);
    n.set_name(name);
    n.set_type(type);
    n.set_duration_micros(micros);
    for (const auto d : data)
        n.add_data_deps(d);
    for (const auto c : ctrl)
        n.add_ctrl_deps(c);
    return n;
}

inline void writeChakraEt(const std::string& path, const ChakraRank& r)
{
    std::ofstream out(path, std::ios::binary);
    google::protobuf::util::SerializeDelimitedToOstream(r.meta, &out);
    for (const auto& n : r.nodes)
        google::protobuf::util::SerializeDelimitedToOstream(n, &out);
}

// As Chakra's jsonizer writes it: protobuf's JSON mapping, pretty-printed; one array (current) or the
// objects one after another (older).
inline std::string chakraJson(const ChakraRank& r, bool array)
{
    google::protobuf::util::JsonPrintOptions pretty;
    pretty.add_whitespace = true;
    std::vector<std::string> objects(1);
    (void)google::protobuf::util::MessageToJsonString(r.meta, &objects[0], pretty);
    for (const auto& n : r.nodes)
        (void)google::protobuf::util::MessageToJsonString(n, &objects.emplace_back(), pretty);
    std::string out = array ? "[" : "";
    for (std::size_t i = 0; i < objects.size(); ++i)
        out += (array && i > 0 ? "," : "") + objects[i];
    return out + (array ? "]\n" : "");
}

} // namespace xps::test
