#pragma once
// MLCommons Chakra execution traces (*.et: length-delimited protobuf, a GlobalMetadata then Nodes, schema in
// import/proto/et_def.proto; or their JSON form, see chakra_json.h) into a profile::Profile, by replaying
// their dependency graph.
//
// A trace holds one rank; `PREFIX.N.et` opens every `PREFIX.K.et` beside it as ranks 0..N (`PREFIX.N.json`
// likewise for the JSON form). Nodes carry
// dependencies, not times, so a small scheduler places them: each rank runs compute, CPU, communication and
// memory work on a stream of each kind, one node at a time, a node starting when its data dependencies
// have ended and its stream is free (as Chakra's et_feeder issues them: control dependencies order nothing;
// in traces converted from PyTorch they name the parent operator); the k-th device collective of every
// rank starts together, when the last rank reaches it. Communication nodes with is_cpu_op run on the CPU
// stream. A node's duration is its duration_micros; without one, communication and memory take what a link
// model says (bytes / bandwidth + latency per step of a ring algorithm). Data dependencies become flows
// (category "dependency"), which the critical path follows; control dependencies become flows of category
// "control dependency", drawn but not followed. Nodes in a data dependency cycle are reported with the
// cycle's node ids, and `info` says how many nodes were read and placed.

#include "import/chrome_json.h"
#include "profile/profile.h"
#include "util/result.h"

#include <string>

namespace xps::importing {

struct ChakraLinkModel
{
    double linkGBs = 100.0;           // per rank, each direction: an NVLink-class link
    profile::Nanos latencyNs = 5'000; // per step of a collective, and per point-to-point message
    double memoryGBs = 1'000.0;       // MEM_LOAD / MEM_STORE nodes
};

// The first rank file (PREFIX.N.et, PREFIX.N.json, PREFIX.N.json.gz) in `directory`, or empty: a directory of
// ranks opens as one multi-rank profile.
std::string firstChakraRankIn(const std::string& directory);

// PREFIX (no file of that name): its rank 0, PREFIX.0.et or PREFIX.0.json(.gz), when one exists, else empty.
// `xpushark-cli analyze runs/step` opens runs/step.0.et, runs/step.1.et, ... as one profile.
std::string chakraRankOfPrefix(const std::string& prefix);

Result<profile::Profile> importChakra(const std::string& path, const ImportOptions& options = {},
                                      const ChakraLinkModel& model = {});

// The link model's time for a collective of `bytes` among `ranks` (ChakraProtoMsg::CollectiveCommType).
profile::Nanos collectiveNanos(int commType, std::uint64_t bytes, int ranks, const ChakraLinkModel& model);

} // namespace xps::importing
