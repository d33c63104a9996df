#pragma once
// How a Chakra trace's ranks are named on disk: PREFIX.N.et (or PREFIX.N.json[.gz], the JSON form), one
// file per rank. Internal to the Chakra importer; chakra.h declares what the rest of the tool asks
// (a directory's or a prefix's rank 0).

#include <string>
#include <utility>
#include <vector>

namespace xps::importing::chakra_ranks {

// The name's Chakra suffix: ".et" for the protobuf form, ".json" / ".json.gz" for the JSON form; "" if none.
std::string chakraSuffix(const std::string& name);

// PREFIX.N.et (N: up to six digits) and its JSON forms.
bool isRankFileName(const std::string& name);

// The ranks `path` opens with: every PREFIX.N file beside it, by rank; `path` alone as rank 0 otherwise.
std::vector<std::pair<int, std::string>> rankFiles(const std::string& path);

} // namespace xps::importing::chakra_ranks
