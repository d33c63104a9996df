#pragma once
// The Chrome JSON export of a profile, imported again: what differs from the original in tracks, slices,
// flows and analysis, in words ("" when it is the same profile). Every importer's round-trip test uses it.

#include "export/chrome_trace.h"
#include "import/import.h"
#include "profile/profile_analysis.h"

#include <QTemporaryDir>

#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace xps::test {

// What differs between two profiles of the same events: their slices on the same rows, flows and analyses.
inline std::string profileDifference(const profile::Profile& p, const profile::Profile& original)
{
    if (p.slices.size() != original.slices.size())
        return "slices: " + std::to_string(p.slices.size()) + " vs " + std::to_string(original.slices.size());
    if (p.flows.size() != original.flows.size()) {
        std::string w = p.repairs.empty() ? std::string() : p.repairs.front().text();
        return "flows: " + std::to_string(p.flows.size()) + " vs " + std::to_string(original.flows.size()) +
               (w.empty() ? "" : " (" + w + ")");
    }
    // Slice by slice, each on the same row: the row's process, name and kind, not its index (an importer
    // numbers rows as their first event arrives, and the export writes every process and thread row
    // first, so a row made by an instant or async event can change place among them).
    const auto rows = [](const profile::Profile& q) {
        std::vector<std::tuple<std::string, std::string, bool, profile::Nanos, profile::Nanos, std::string,
                               std::string_view>>
            out;
        out.reserve(q.slices.size());
        for (const profile::Slice& s : q.slices) {
            const profile::Track& t = q.track(s.track());
            out.emplace_back(q.track(q.processOf(s.track())).name, t.name, t.device, s.start, s.duration,
                             q.nameOf(s), profile::sliceClassName(q.classOf(s)));
        }
        std::sort(out.begin(), out.end());
        return out;
    };
    const auto after = rows(p), before = rows(original);
    for (std::size_t i = 0; i < after.size(); ++i) {
        if (after[i] == before[i])
            continue;
        const auto describe = [](const auto& r) {
            return std::get<5>(r) + " " + std::to_string(std::get<3>(r)) + "+" +
                   std::to_string(std::get<4>(r)) + " class " + std::string(std::get<6>(r)) + " on " +
                   std::get<0>(r) + " / " + std::get<1>(r) + (std::get<2>(r) ? " (device)" : "");
        };
        return "a slice differs: " + describe(after[i]) + " vs " + describe(before[i]);
    }
    const profile::ProfileAnalysis x = profile::analyzeProfile(p), y = profile::analyzeProfile(original);
    if (x.devices.size() != y.devices.size())
        return "devices: " + std::to_string(x.devices.size()) + " vs " + std::to_string(y.devices.size());
    for (std::size_t d = 0; d < x.devices.size(); ++d)
        if (x.devices[d].name != y.devices[d].name || x.devices[d].busy != y.devices[d].busy ||
            x.devices[d].compute != y.devices[d].compute ||
            x.devices[d].communication != y.devices[d].communication ||
            x.devices[d].memcpy != y.devices[d].memcpy ||
            x.devices[d].transferBytes != y.devices[d].transferBytes)
            return "device " + y.devices[d].name + "'s breakdown differs";
    if (x.criticalPath.length != y.criticalPath.length || x.criticalPath.byKind != y.criticalPath.byKind)
        return "critical path: " + std::to_string(x.criticalPath.length) + " ns vs " +
               std::to_string(y.criticalPath.length);
    if (x.transfers.size() != y.transfers.size())
        return "transfers: " + std::to_string(x.transfers.size()) + " vs " +
               std::to_string(y.transfers.size());
    return "";
}

// `original` exported and imported again: `imported` (or why it could not be).
inline std::string exportAndImport(const profile::Profile& original, profile::Profile& imported)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("round-trip.json")).toStdString();
    if (auto written = exporting::writeChromeTrace(original, path); !written.ok())
        return "export failed: " + written.error().toString();
    auto again = importing::importProfile(path);
    if (!again.ok())
        return "re-import failed: " + again.error().toString();
    imported = std::move(*again);
    return "";
}

inline std::string roundTripDifference(const profile::Profile& original)
{
    profile::Profile again;
    if (std::string failed = exportAndImport(original, again); !failed.empty())
        return failed;
    return profileDifference(again, original);
}

} // namespace xps::test
