#pragma once
// Strong ids in nlohmann::json (ordered or not) as their number: `{"chip", c.chip}` writes 3, as the plain
// integer it replaced did, so every JSON output keeps its form.

#include "util/strong_id.h"

namespace xps {

// Found by argument-dependent lookup from nlohmann's adl_serializer.
template <typename Json, typename Tag, typename Rep> void to_json(Json& j, StrongId<Tag, Rep> id)
{
    j = id.value;
}

} // namespace xps
