#pragma once
// The JSON form of a Chakra execution trace, as Chakra's jsonizer writes it: a GlobalMetadata and then every
// Node in protobuf's JSON mapping (camelCase names, 64-bit integers as strings), either as one JSON array
// (current jsonizer, optionally gzip-compressed) or as the objects written one after another (older
// jsonizer). Read in blocks, one object in memory at a time.

#include "import/chrome_json.h"
#include "util/result.h"

#include "import/proto/et_def.pb.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xps::importing {

// What every node read must pass, in either form, checked as it is read (before the next is): its id is new
// in its rank (Chakra's feeder indexes nodes by id, so a repeated id is a corrupt or hostile file: 14 KB of
// gzip once held 5 M copies of node 0, 1.6 GB), and the rank stays within the import's event limit.
class NodeChecks
{
public:
    explicit NodeChecks(const InputLimits& limits) : m_limits(limits) {}
    // The reason the node at `index` is refused, or empty.
    std::string refuse(const ChakraProtoMsg::Node& node, std::size_t index);

private:
    const InputLimits& m_limits;
    std::unordered_map<std::uint64_t, std::size_t> m_indexOfId;
};

// Whether the start of a file (decompressed) looks like Chakra's JSON form rather than a Chrome trace.
bool looksLikeChakraJson(std::string_view head);

// The nodes of one rank; `version` gets the GlobalMetadata's schema version. Errors name the file, the line
// and column where the offending object starts, and what protobuf's JSON parser said of it.
Result<std::vector<ChakraProtoMsg::Node>> readChakraJsonNodes(const std::string& path, std::string& version,
                                                              const ImportOptions& options);

} // namespace xps::importing
