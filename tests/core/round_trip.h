#pragma once
// The Chrome JSON export of a profile, imported again: what differs from the original in tracks, slices,
// flows and analysis, in words ("" when it is the same profile). Every importer's round-trip test uses it.

#include "export/chrome_trace.h"
#include "import/import.h"
#include "profile/profile_analysis.h"

#include <QTemporaryDir>

#include <string>

namespace xps::test {

inline std::string roundTripDifference(const profile::Profile& original)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("round-trip.json")).toStdString();
    if (auto written = exporting::writeChromeTrace(original, path); !written.ok())
        return "export failed: " + written.error().toString();
    auto again = importing::importProfile(path);
    if (!again.ok())
        return "re-import failed: " + again.error().toString();
    const profile::Profile& p = *again;
    if (p.slices.size() != original.slices.size())
        return "slices: " + std::to_string(p.slices.size()) + " vs " + std::to_string(original.slices.size());
    if (p.flows.size() != original.flows.size()) {
        std::string w = p.repairs.empty() ? std::string() : p.repairs.front().text();
        return "flows: " + std::to_string(p.flows.size()) + " vs " + std::to_string(original.flows.size()) +
               (w.empty() ? "" : " (" + w + ")");
    }
    for (std::size_t i = 0; i < p.slices.size(); ++i) {
        const profile::Slice &a = p.slices[i], &b = original.slices[i];
        if (a.start != b.start || a.duration != b.duration || p.nameOf(a) != original.nameOf(b) ||
            p.classOf(a) != original.classOf(b) ||
            p.track(a.track()).name != original.track(b.track()).name ||
            p.track(a.track()).device != original.track(b.track()).device)
            return "slice " + std::to_string(i) + " (" + original.nameOf(b) + ") differs: " + p.nameOf(a) +
                   " " + std::to_string(a.start) + "+" + std::to_string(a.duration) + " class " +
                   std::string(profile::sliceClassName(p.classOf(a))) + " on " + p.track(a.track()).name +
                   (p.track(a.track()).device ? " (device)" : "") + " vs " + std::to_string(b.start) + "+" +
                   std::to_string(b.duration) + " class " +
                   std::string(profile::sliceClassName(original.classOf(b))) + " on " +
                   original.track(b.track()).name + (original.track(b.track()).device ? " (device)" : "");
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

} // namespace xps::test
