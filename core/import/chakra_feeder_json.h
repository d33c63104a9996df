#pragma once
// The JSON form Chakra's feeder reads (chakra/src/feeder/json_node.cpp, WrapperNode): one object whose
// "workload_graph" array holds the nodes as {"Id", "Name", "NodeType" (a NodeType number), "is_cpu_op",
// "runtime" (microseconds), "data_deps", "ctrlDeps", and for communication nodes "tensor_size",
// "comm_type", "comm_priority", "comm_size", "comm_src", "comm_dst", "comm_tag"}, beside "workload_name",
// "ngpus" and "soc". The feeder orders nodes by their data dependencies alone (it never reads ctrlDeps), so
// the nodes read here keep only those: a control dependency on a node the file does not hold (the feeder's
// own test file has them) would otherwise hold its node back for ever.

#include "import/chrome_json.h"
#include "util/result.h"

#include "import/proto/et_def.pb.h"

#include <string>
#include <string_view>
#include <vector>

namespace xps::importing {

// Whether the start of a file (decompressed) is the feeder's form.
bool looksLikeChakraFeederJson(std::string_view head);

// The nodes as Chakra protobuf nodes (type, duration_micros, data_deps, attributes is_cpu_op and the
// communication fields). Errors name the file and the JSON path of what is wrong, or the line and column
// where the JSON breaks.
Result<std::vector<ChakraProtoMsg::Node>> readChakraFeederJsonNodes(const std::string& path,
                                                                    const ImportOptions& options);

} // namespace xps::importing
