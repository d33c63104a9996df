#include "report/report_entries.h"

#include "report/palette.h"
#include "util/text.h"

#include <algorithm>
#include <map>

namespace xps::report::detail {
namespace {

constexpr int kActivityColumns = 96;
constexpr std::size_t kActivityRows = 24;

bool improves(const std::optional<suggest::Measurement>& m)
{
    return m && m->verdict == suggest::Measurement::Verdict::Improves;
}

std::string cycles(std::uint64_t from, std::uint64_t to)
{
    return "cycles " + text::withThousands(from) + "-" + text::withThousands(to);
}

// The union of the members' evidence.
suggest::Evidence unionOf(const std::vector<SuggestionEntry>& members)
{
    suggest::Evidence e;
    e.fromCycle = UINT64_MAX;
    for (const SuggestionEntry& m : members) {
        const suggest::Evidence& x = m.suggestion.evidence;
        e.fromCycle = std::min(e.fromCycle, x.fromCycle);
        e.toCycle = std::max(e.toCycle, x.toCycle);
        e.pcs.insert(e.pcs.end(), x.pcs.begin(), x.pcs.end());
        e.dmas.insert(e.dmas.end(), x.dmas.begin(), x.dmas.end());
    }
    if (members.empty())
        e.fromCycle = 0;
    return e;
}

SuggestionEntry groupEntry(const suggest::SuggestionGroup& group, std::size_t number,
                           const std::map<std::string, const suggest::Suggestion*>& byId)
{
    SuggestionEntry entry;
    for (const std::string& id : group.members)
        if (const auto s = byId.find(id); s != byId.end())
            entry.members.push_back({0, "open", *s->second, evidenceText(s->second->evidence)});
    suggest::Suggestion& g = entry.suggestion;
    g.id = "G" + std::to_string(number);
    g.kind = group.kind;
    g.title = group.title;
    g.change.kind =
        entry.members.empty() ? suggest::ChangeKind::HoistDma : entry.members.front().suggestion.change.kind;
    g.measured = group.combined;
    const std::size_t n = group.members.size();
    g.explanation =
        std::to_string(n) + " suggestions of one kind (" + group.kind +
        "), each measured on its own (below)" +
        (group.combined ? " and all together: one decision, whose worth is the combined gain." : ".");
    double best = 0;
    for (const SuggestionEntry& m : entry.members)
        best = std::max(best, improves(m.suggestion.measured) ? m.suggestion.measured->gainPercent : 0.0);
    const double gain = improves(group.combined) ? group.combined->gainPercent : best;
    g.severity = gain >= 10.0  ? suggest::Severity::High
                 : gain >= 2.0 ? suggest::Severity::Medium
                               : suggest::Severity::Low;
    g.evidence = unionOf(entry.members);
    entry.evidence = evidenceText(g.evidence);
    if (!group.combined)
        entry.together = "not measured together (measuring was off or cancelled)";
    else if (group.applied.size() == n)
        entry.together = "all " + std::to_string(n) + " applied together";
    else
        entry.together = std::to_string(group.applied.size()) + " of " + std::to_string(n) +
                         " applied together (the others change bundles one of those already changed)";
    return entry;
}

double rankingGain(const SuggestionEntry& e)
{
    if (improves(e.suggestion.measured))
        return e.suggestion.measured->gainPercent;
    double best = -1e300;
    for (const SuggestionEntry& m : e.members)
        if (improves(m.suggestion.measured))
            best = std::max(best, m.suggestion.measured->gainPercent);
    return best;
}

} // namespace

std::string evidenceText(const suggest::Evidence& e)
{
    std::string s = "cycles " + text::withThousands(e.fromCycle) + "-" + text::withThousands(e.toCycle);
    if (!e.pcs.empty()) {
        s += "; pcs";
        for (std::size_t i = 0; i < e.pcs.size() && i < 12; ++i)
            s += (i ? ", " : " ") + std::string("chip ") + std::to_string(e.pcs[i].first.value) + " pc " +
                 std::to_string(e.pcs[i].second);
        if (e.pcs.size() > 12)
            s += " and " + std::to_string(e.pcs.size() - 12) + " more";
    }
    if (!e.dmas.empty()) {
        s += "; DMAs";
        for (std::size_t i = 0; i < e.dmas.size() && i < 12; ++i)
            s += (i ? ", " : " ") + std::to_string(e.dmas[i]);
        if (e.dmas.size() > 12)
            s += " and " + std::to_string(e.dmas.size() - 12) + " more";
    }
    return s;
}

std::vector<SuggestionEntry> rankEntries(const std::vector<suggest::Suggestion>& suggestions,
                                         std::vector<suggest::SuggestionGroup> groups)
{
    if (groups.empty())
        groups = suggest::groupSuggestions(suggestions);
    std::map<std::string, const suggest::Suggestion*> byId;
    for (const suggest::Suggestion& s : suggestions)
        byId[s.id] = &s;
    std::map<std::string, bool> grouped;
    std::vector<SuggestionEntry> out;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        for (const std::string& id : groups[g].members)
            grouped[id] = true;
        out.push_back(groupEntry(groups[g], g + 1, byId));
    }
    for (const suggest::Suggestion& s : suggestions)
        if (!grouped.count(s.id))
            out.push_back({0, "open", s, evidenceText(s.evidence)});
    std::stable_sort(out.begin(), out.end(), [](const SuggestionEntry& a, const SuggestionEntry& b) {
        return rankingGain(a) > rankingGain(b);
    });
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i].rank = static_cast<int>(i) + 1;
    return out;
}

Figure activityFigure(std::string id, std::string title, std::string caption, std::uint64_t from,
                      std::uint64_t to, const analysis::ActivityLanes& lanes, std::uint64_t markFrom,
                      std::uint64_t markTo)
{
    Figure f;
    f.id = std::move(id);
    f.title = std::move(title);
    f.caption = std::move(caption);
    f.unit = "%";
    f.fromCycle = from;
    f.toCycle = std::max(to, from + kActivityColumns);
    f.markFrom = markFrom;
    f.markTo = markTo;
    const double columnCycles = static_cast<double>(f.toCycle - f.fromCycle) / kActivityColumns;
    std::vector<double> totals;
    const std::string green = palette::hex(palette::kGreen), orange = palette::hex(palette::kOrange),
                      purple = palette::hex(palette::kPurple);
    for (std::size_t i = 0; i < lanes.lanes().size() && f.rows.size() < kActivityRows; ++i) {
        const analysis::LaneInfo& lane = lanes.lanes()[i];
        const bool unit = lane.kind == analysis::LaneKind::Unit;
        if ((!unit && lane.kind != analysis::LaneKind::DmaEngine &&
             lane.kind != analysis::LaneKind::IciLink) ||
            !lanes.hasActivity(i))
            continue;
        lanes.columnTotals(i, f.fromCycle, f.toCycle, kActivityColumns, totals);
        Figure::Row row;
        row.label = "chip " + std::to_string(lane.chip.value) + " " + lane.name;
        double sum = 0;
        for (int c = 0; c < kActivityColumns; ++c) {
            double busy = 0;
            for (int k = 0; k < lane.categories; ++k)
                busy += totals[static_cast<std::size_t>(c * lane.categories + k)];
            row.activity.push_back(std::clamp(busy / columnCycles, 0.0, 1.0));
            sum += row.activity.back();
        }
        const double mean = sum / kActivityColumns;
        row.parts.push_back({unit                                         ? "unit"
                             : lane.kind == analysis::LaneKind::DmaEngine ? "DMA engine"
                                                                          : "ICI link",
                             100.0 * mean,
                             unit                                         ? green
                             : lane.kind == analysis::LaneKind::DmaEngine ? orange
                                                                          : purple});
        char note[32];
        std::snprintf(note, sizeof note, "%.1f%%", 100.0 * mean);
        row.note = note;
        f.rows.push_back(std::move(row));
    }
    return f;
}

void addEvidenceFigures(std::vector<SuggestionEntry>& entries, const analysis::ActivityLanes& lanes,
                        std::uint64_t totalCycles, std::size_t count)
{
    std::size_t added = 0;
    for (SuggestionEntry& e : entries) {
        if (added == count)
            break;
        const suggest::Evidence& ev = e.suggestion.evidence;
        if (ev.toCycle <= ev.fromCycle)
            continue;
        // A quarter of the range on each side: what led up to it and what followed.
        const std::uint64_t margin = std::max<std::uint64_t>((ev.toCycle - ev.fromCycle) / 4, 32);
        const std::uint64_t from = ev.fromCycle > margin ? ev.fromCycle - margin : 0;
        const std::uint64_t to =
            std::max(std::min(ev.toCycle + margin, std::max(totalCycles, ev.toCycle)), from + 1);
        e.figure = activityFigure("evidence-" + e.suggestion.id,
                                  "Evidence of " + std::to_string(e.rank) + ". " + e.suggestion.title,
                                  "Activity of each unit, DMA engine and ICI link in " + cycles(from, to) +
                                      ", darker = busier; the outline is the evidence (" +
                                      cycles(ev.fromCycle, ev.toCycle) + ").",
                                  from, to, lanes, ev.fromCycle, ev.toCycle);
        ++added;
    }
}

void placeAnnotations(Report& report)
{
    for (Annotation& a : report.annotations) {
        const std::uint64_t from = a.fromCycle, to = std::max(a.toCycle, a.fromCycle + 1);
        // The evidence it covers most of: a note on one DMA belongs with that DMA's suggestion, not with a
        // group whose evidence spans the whole run.
        SuggestionEntry* best = nullptr;
        double bestShare = 0;
        // A group's members count one by one: a note on one hoisted DMA goes with the group that hoists it.
        const auto share = [&](const suggest::Evidence& ev) {
            const std::uint64_t evTo = std::max(ev.toCycle, ev.fromCycle + 1);
            const std::uint64_t lo = std::max(from, ev.fromCycle), hi = std::min(to, evTo);
            return hi <= lo ? 0.0 : static_cast<double>(hi - lo) / static_cast<double>(evTo - ev.fromCycle);
        };
        for (SuggestionEntry& e : report.suggestions) {
            double covered = share(e.suggestion.evidence);
            for (const SuggestionEntry& m : e.members)
                covered = std::max(covered, share(m.suggestion.evidence));
            if (covered > bestShare) {
                bestShare = covered;
                best = &e;
            }
        }
        if (best) {
            best->notes.push_back(a);
            a.shownWith = "suggestion " + std::to_string(best->rank);
            continue;
        }
        for (Figure& f : report.figures) {
            if (f.id.rfind("bookmark-", 0) != 0 || std::min(to, f.toCycle) <= std::max(from, f.fromCycle))
                continue;
            f.notes.push_back(cycles(a.fromCycle, a.toCycle) + ": " + a.text);
            a.shownWith = "bookmark " + f.id.substr(9);
            break;
        }
    }
}

std::string elided(const std::string& name, std::size_t most)
{
    if (name.size() <= most)
        return name;
    std::size_t head = most / 2, tail = most - head - 1;
    while (head > 0 && (static_cast<unsigned char>(name[head]) & 0xC0) == 0x80) // not inside a UTF-8 sequence
        --head;
    std::size_t from = name.size() - tail;
    while (from < name.size() && (static_cast<unsigned char>(name[from]) & 0xC0) == 0x80)
        ++from;
    return name.substr(0, head) + "\u2026" + name.substr(from);
}

} // namespace xps::report::detail
