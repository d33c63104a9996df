// A report's comparison of two replays (report/comparison.h): the totals table, three figures of the two runs
// bar beside bar (stall cycles by reason, the critical path's composition, the regions that changed most),
// the largest changes of regions and bundles with their evidence, and the region and bundle tables.
#include "report/comparison.h"

#include "report/delta_text.h"
#include "report/diff_json.h"
#include "report/palette.h"
#include "report/report_entries.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace xps::report {
namespace {

using delta::fromTo;
using delta::percentCell;
using delta::percentText;
using delta::signedBytes;
using delta::signedCount;

constexpr std::size_t kFigureRegions = 5; // pairs of bars: more would shrink the figure's scale
constexpr std::size_t kListedChanges = 3; // regions, then bundles, in "Largest changes"
constexpr std::size_t kTableRows = 25;    // the JSON report has every row

// Lighter than every stall reason's colour (branch bubbles are grey): the part of a region that is not the
// story.
const char* kNotStalledColour = "#d9d9d9";
using delta::kBaselineColumn;
using delta::kOtherColumn;

std::string reasonName(int reason)
{
    return std::string(events::stallReasonName(static_cast<events::StallReason>(reason)));
}

std::vector<std::string> countRow(const std::string& label, const Compared& c)
{
    return {label, text::withThousands(c.baseline), text::withThousands(c.other), signedCount(c.delta()),
            percentCell(c)};
}

std::vector<std::string> bytesRow(const std::string& label, const Compared& c)
{
    return {label, text::formatBytes(c.baseline), text::formatBytes(c.other), signedBytes(c.delta()),
            percentCell(c)};
}

Table totalsTable(const analysis::RunDiff& d)
{
    Table t{"comparison-totals",
            "Totals",
            {"", kBaselineColumn, kOtherColumn, "change", "%"},
            {false, true, true, true, true},
            {}};
    t.rows.push_back(countRow("cycles", d.cycles));
    t.rows.push_back(countRow("bundles issued", d.bundles));
    t.rows.push_back(countRow("stall cycles", d.stallCycles));
    for (int r = 1; r < events::kStallReasonCount; ++r)
        if (d.stallByReason[r].baseline || d.stallByReason[r].other)
            t.rows.push_back(countRow("  " + reasonName(r), d.stallByReason[r]));
    t.rows.push_back(bytesRow("DMA bytes", d.dmaBytes));
    t.rows.push_back(countRow("exposed DMA cycles", d.exposedDmaCycles));
    t.rows.push_back(bytesRow("VMEM peak", d.vmemPeakBytes));
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        if (d.criticalPath[k].baseline || d.criticalPath[k].other)
            t.rows.push_back(countRow(
                "critical path: " + std::string(analysis::pathKindName(static_cast<analysis::PathKind>(k))),
                d.criticalPath[k]));
    return t;
}

// Two bars, the baseline's above this run's, each split into the parts `partsOf` gives for a side.
template <class PartsOf>
void addPair(Figure& f, const std::string& label, const Compared& total, PartsOf partsOf)
{
    f.rows.push_back({label + " · " + kBaselineColumn, partsOf(false), text::withThousands(total.baseline)});
    f.rows.push_back({label + " · " + kOtherColumn, partsOf(true), percentText(total)});
}

std::vector<Figure::Part> stallParts(const Compared (&stalls)[events::kStallReasonCount], bool other)
{
    std::vector<Figure::Part> parts;
    for (int r = 1; r < events::kStallReasonCount; ++r)
        if (stalls[r].baseline || stalls[r].other)
            parts.push_back({reasonName(r), static_cast<double>(other ? stalls[r].other : stalls[r].baseline),
                             palette::hex(palette::stallColour(static_cast<events::StallReason>(r)))});
    return parts;
}

// A label that fits the figure's label column with " · this run" after it.
std::string shortName(const std::string& name)
{
    return detail::elided(name, 14);
}

std::vector<Figure> figures(const analysis::RunDiff& d)
{
    std::vector<Figure> out;
    if (d.stallCycles.baseline || d.stallCycles.other) {
        Figure f{"comparison-stalls",
                 "Stall cycles by reason, baseline and this run",
                 "Why bundles could not issue, summed over chips: the baseline's bar above this run's; the "
                 "number after this run's bar is its change.",
                 "cycles",
                 {}};
        addPair(f, "stalls", d.stallCycles, [&](bool other) { return stallParts(d.stallByReason, other); });
        out.push_back(std::move(f));
    }
    Figure path{"comparison-critical-path",
                "Critical path, baseline and this run",
                "What the longest chain of dependent steps spent its cycles on in each run.",
                "cycles",
                {}};
    Compared pathTotal;
    for (const Compared& c : d.criticalPath) {
        pathTotal.baseline += c.baseline;
        pathTotal.other += c.other;
    }
    if (pathTotal.baseline || pathTotal.other) {
        addPair(path, "critical path", pathTotal, [&](bool other) {
            std::vector<Figure::Part> parts;
            for (int k = 0; k < analysis::kPathKindCount; ++k)
                if (d.criticalPath[k].baseline || d.criticalPath[k].other) {
                    const auto kind = static_cast<analysis::PathKind>(k);
                    parts.push_back(
                        {std::string(analysis::pathKindName(kind)),
                         static_cast<double>(other ? d.criticalPath[k].other : d.criticalPath[k].baseline),
                         palette::hex(palette::pathKindColour(kind))});
                }
            return parts;
        });
        out.push_back(std::move(path));
    }
    Figure regions{"comparison-regions",
                   "Regions that changed most, baseline and this run",
                   "Each region's cycles over its instances and chips, split into the cycles its bundles "
                   "stalled (by reason) and the rest.",
                   "cycles",
                   {}};
    for (const analysis::RegionDelta& r : d.regions) {
        if (regions.rows.size() >= 2 * kFigureRegions || r.cycles.delta() == 0)
            break;
        addPair(regions, shortName(r.name), r.cycles, [&](bool other) {
            const std::uint64_t cycles = other ? r.cycles.other : r.cycles.baseline;
            const std::uint64_t stalled = other ? r.stallCycles.other : r.stallCycles.baseline;
            std::vector<Figure::Part> parts{
                {"not stalled", static_cast<double>(cycles - std::min(cycles, stalled)), kNotStalledColour}};
            for (Figure::Part& p : stallParts(r.stallByReason, other))
                parts.push_back(std::move(p));
            return parts;
        });
    }
    if (!regions.rows.empty())
        out.push_back(std::move(regions));
    return out;
}

// "sync wait +2,800, DMA +100": the reasons whose stall cycles changed, largest first.
std::string reasonChanges(const Compared (&stalls)[events::kStallReasonCount])
{
    std::vector<int> changed;
    for (int r = 1; r < events::kStallReasonCount; ++r)
        if (stalls[r].delta() != 0)
            changed.push_back(r);
    std::stable_sort(changed.begin(), changed.end(), [&](int a, int b) {
        return std::llabs(stalls[a].delta()) > std::llabs(stalls[b].delta());
    });
    std::string s;
    for (int r : changed)
        s += (s.empty() ? "" : ", ") + reasonName(r) + " " + signedCount(stalls[r].delta());
    return s;
}

std::string regionChange(const analysis::RegionDelta& r)
{
    std::string s = "Region " + r.path + " (" + r.level + "): ";
    if (!r.inBaseline)
        s += "new in this run, ";
    else if (!r.inOther)
        s += "not in this run, ";
    s += fromTo(r.cycles, "cycles") + ". Evidence: stall cycles " + signedCount(r.stallCycles.delta());
    if (const std::string reasons = reasonChanges(r.stallByReason); !reasons.empty())
        s += " (" + reasons + ")";
    s += "; bundles issued " + signedCount(r.bundles.delta());
    if (r.instances.delta() != 0)
        s += "; instances " + fromTo(r.instances, "");
    if (r.dmaBytes.delta() != 0)
        s += "; DMA bytes " + signedBytes(r.dmaBytes.delta());
    return s + ".";
}

std::string pcText(const std::optional<std::uint32_t>& pc)
{
    return pc ? text::hex(*pc) : std::string("-");
}

// One bundle's change on every chip that runs it from the same pcs (an SPMD program's chips change alike):
// the chips' numbers summed.
struct BundleChange
{
    analysis::PcDelta total; // chip: the first one's
    std::vector<ChipId> chips;
};

std::vector<BundleChange> bundleChanges(const std::vector<analysis::PcDelta>& pcs)
{
    using Key = std::tuple<std::string, std::optional<std::uint32_t>, std::optional<std::uint32_t>>;
    std::map<Key, std::size_t> index;
    std::vector<BundleChange> out;
    for (const analysis::PcDelta& p : pcs) {
        const auto [at, added] = index.try_emplace(Key{p.text, p.baselinePc, p.otherPc}, out.size());
        if (added) {
            out.push_back({p, {p.chip}});
            continue;
        }
        BundleChange* same = &out[at->second];
        const auto add = [](Compared& into, const Compared& c) {
            into.baseline += c.baseline;
            into.other += c.other;
        };
        add(same->total.executions, p.executions);
        add(same->total.stallCycles, p.stallCycles);
        for (int r = 0; r < events::kStallReasonCount; ++r)
            add(same->total.stallByReason[r], p.stallByReason[r]);
        same->chips.push_back(p.chip);
    }
    for (BundleChange& c : out)
        std::sort(c.chips.begin(), c.chips.end());
    std::stable_sort(out.begin(), out.end(), [](const BundleChange& a, const BundleChange& b) {
        return std::llabs(a.total.stallCycles.delta()) > std::llabs(b.total.stallCycles.delta());
    });
    return out;
}

std::string chipsText(const std::vector<ChipId>& chips)
{
    if (chips.size() == 1)
        return "chip " + std::to_string(chips.front().value);
    std::string s = std::to_string(chips.size()) + " chips (";
    for (std::size_t i = 0; i < chips.size(); ++i)
        s += (i ? ", " : "") + std::to_string(chips[i].value);
    return s + ")";
}

std::string bundleChange(const BundleChange& c)
{
    const analysis::PcDelta& p = c.total;
    std::string s = "Bundle `" + p.text + "` on " + chipsText(c.chips) + ", ";
    if (!p.baselinePc)
        s += "inserted at pc " + pcText(p.otherPc);
    else if (!p.otherPc)
        s += "removed from pc " + pcText(p.baselinePc);
    else if (*p.baselinePc == *p.otherPc)
        s += "pc " + pcText(p.otherPc);
    else
        s += "pc " + pcText(p.baselinePc) + " in the baseline, " + pcText(p.otherPc) + " in this run";
    s += ": stall cycles " + fromTo(p.stallCycles, "", reasonChanges(p.stallByReason));
    return s + "; executions " + fromTo(p.executions, "") +
           (c.chips.size() > 1 ? ", summed over the chips." : ".");
}

Table regionTable(const analysis::RunDiff& d)
{
    Table t{"comparison-regions",
            "Regions, largest change first",
            {"region", "level", kBaselineColumn, kOtherColumn, "change", "%", "stall change"},
            {false, false, true, true, true, true, true},
            {}};
    for (const analysis::RegionDelta& r : d.regions) {
        if (t.rows.size() >= kTableRows || r.cycles.delta() == 0)
            break;
        std::vector<std::string> row = countRow(detail::elided(r.path), r.cycles);
        row.insert(row.begin() + 1, r.level);
        row.push_back(signedCount(r.stallCycles.delta()));
        t.rows.push_back(std::move(row));
    }
    return t;
}

Table bundleTable(const analysis::RunDiff& d)
{
    Table t{"comparison-bundles",
            "Bundles, largest change first",
            {"chip", "pc", "bundle", "executions", "stall cycles", "change", "reasons"},
            {true, false, false, true, true, true, false},
            {}};
    for (std::size_t i = 0; i < std::min(d.pcs.size(), kTableRows); ++i) {
        const analysis::PcDelta& p = d.pcs[i];
        t.rows.push_back(
            {std::to_string(p.chip.value), pcText(p.baselinePc) + " -> " + pcText(p.otherPc), p.text,
             signedCount(p.executions.delta()),
             text::withThousands(p.stallCycles.baseline) + " -> " + text::withThousands(p.stallCycles.other),
             signedCount(p.stallCycles.delta()), reasonChanges(p.stallByReason)});
    }
    return t;
}

} // namespace

Comparison compareReplays(const analysis::RunDiff& d)
{
    Comparison c;
    c.baselineSource = d.baseline.name;
    if (d.cycles.delta() == 0)
        c.verdict =
            "This run took the same " + text::withThousands(d.cycles.other) + " cycles as the baseline.";
    else
        c.verdict = "This run took " + text::withThousands(d.cycles.other) +
                    " cycles against the baseline's " + text::withThousands(d.cycles.baseline) + ": " +
                    percentText(d.cycles).substr(1) + (d.cycles.delta() > 0 ? " slower" : " faster") + " (" +
                    signedCount(d.cycles.delta()) + " cycles).";
    c.figures = figures(d);
    for (std::size_t i = 0; i < std::min(d.regions.size(), kListedChanges); ++i)
        if (d.regions[i].cycles.delta() != 0)
            c.changes.push_back(regionChange(d.regions[i]));
    const std::vector<BundleChange> bundles = bundleChanges(d.pcs);
    for (std::size_t i = 0; i < std::min(bundles.size(), kListedChanges); ++i)
        c.changes.push_back(bundleChange(bundles[i]));
    c.tables = {totalsTable(d), regionTable(d), bundleTable(d)};
    for (const analysis::ChipAlignment& a : d.alignment)
        if (!a.aligned)
            c.notes.push_back("Chip " + std::to_string(a.chip.value) +
                              ": the two programs differ in too many bundles to match them, so its bundles "
                              "are not compared one by one.");
        else if (a.inserted || a.removed)
            c.notes.push_back("Chip " + std::to_string(a.chip.value) + ": " + std::to_string(a.matched) +
                              " bundles in both programs, " + std::to_string(a.inserted) +
                              " inserted in this run, " + std::to_string(a.removed) + " removed.");
    if (d.regions.size() > kTableRows || d.pcs.size() > kTableRows)
        c.notes.push_back("The tables show the " + std::to_string(kTableRows) +
                          " largest changes; the JSON report has every region and bundle.");
    c.json = diffToJson(d);
    return c;
}

void attachComparison(Report& report, Comparison comparison)
{
    report.title += ", compared with its baseline";
    report.comparison = std::move(comparison);
}

} // namespace xps::report
