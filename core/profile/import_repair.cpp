#include "profile/import_repair.h"
#include "util/text.h"

namespace xps::profile {

std::string_view repairKindName(RepairKind kind)
{
    switch (kind) {
    case RepairKind::Skipped: return "skipped";
    case RepairKind::Clamped: return "clamped";
    case RepairKind::Assumed: return "assumed";
    case RepairKind::Closed: return "closed";
    case RepairKind::Replaced: return "replaced";
    case RepairKind::Truncated: return "truncated";
    case RepairKind::Unbound: return "unbound";
    case RepairKind::Nesting: return "nesting";
    case RepairKind::Reported: return "reported";
    case RepairKind::Count_: break;
    }
    return "?";
}

std::string ImportRepair::text() const
{
    std::string out = count > 0 ? text::withThousands(count) + " " + what : what;
    if (!firstAt.empty())
        out += "; the first at " + firstAt;
    return out;
}

} // namespace xps::profile
