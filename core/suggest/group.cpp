#include "suggest/group.h"

#include "suggest/transform.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace xps::suggest {
namespace {

bool improves(const Suggestion& s)
{
    return s.measured && s.measured->verdict == Measurement::Verdict::Improves;
}

std::string groupTitle(const std::string& kind, std::size_t count)
{
    const std::string n = std::to_string(count);
    if (kind == "late-dma")
        return "Issue " + n + " DMAs earlier";
    if (kind == "engine-bound-dma")
        return "Split " + n + " DMAs over two engines";
    if (kind == "whole-transfer-wait")
        return "Wait for each chunk of " + n + " DMAs, not whole transfers";
    if (kind == "one-way-ring")
        return "Send part of " + n + " DMAs the other way round the ring";
    if (kind == "single-buffered")
        return "Double-buffer " + n + " buffers";
    if (kind == "engine-imbalance")
        return "Spread the DMAs of " + n + " chips over their engines";
    return n + " changes of one kind (" + kind + ")";
}

// The lowest and highest pc a program change reads or rewrites.
std::pair<std::uint32_t, std::uint32_t> pcSpan(const Change& c)
{
    std::uint32_t low = c.pc, high = c.pc;
    if (c.kind == ChangeKind::HoistDma) {
        low = std::min(low, c.toPc);
        high = std::max(high, c.toPc);
    }
    for (std::uint32_t p : c.pcs) {
        low = std::min(low, p);
        high = std::max(high, p);
    }
    for (const auto& [p, engine] : c.engines) {
        low = std::min(low, p);
        high = std::max(high, p);
    }
    return {low, high};
}

bool isProgramChange(const Change& c)
{
    return c.kind != ChangeKind::MachineParam && c.kind != ChangeKind::Regenerate;
}

} // namespace

std::vector<SuggestionGroup> groupSuggestions(const std::vector<Suggestion>& suggestions)
{
    std::map<std::string, std::vector<const Suggestion*>> byKind;
    for (const Suggestion& s : suggestions)
        if (!s.whatIf && isProgramChange(s.change) && improves(s))
            byKind[s.kind].push_back(&s);
    std::vector<SuggestionGroup> groups;
    for (auto& [kind, members] : byKind) {
        if (members.size() < 2)
            continue;
        std::stable_sort(members.begin(), members.end(), [](const Suggestion* a, const Suggestion* b) {
            return a->measured->gainPercent > b->measured->gainPercent;
        });
        SuggestionGroup g;
        g.kind = kind;
        g.title = groupTitle(kind, members.size());
        for (const Suggestion* s : members)
            g.members.push_back(s->id);
        groups.push_back(std::move(g));
    }
    const auto best = [&](const SuggestionGroup& g) {
        const auto s = std::find_if(suggestions.begin(), suggestions.end(),
                                    [&](const Suggestion& x) { return x.id == g.members.front(); });
        return s->measured->gainPercent;
    };
    std::stable_sort(groups.begin(), groups.end(),
                     [&](const SuggestionGroup& a, const SuggestionGroup& b) { return best(a) > best(b); });
    return groups;
}

Result<trace::Trace> applyChanges(const trace::Trace& trace, const std::vector<Change>& changes,
                                  std::vector<std::size_t>* applied)
{
    std::vector<std::size_t> order(changes.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    // Highest first: an edit then shifts only bundles that later (lower) edits do not name.
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return pcSpan(changes[a]).first > pcSpan(changes[b]).first;
    });
    trace::Trace out = trace;
    std::vector<std::size_t> in;
    std::uint32_t floor = UINT32_MAX; // the lowest pc an applied program change touched
    std::optional<Error> firstError;
    for (std::size_t i : order) {
        const Change& c = changes[i];
        if (isProgramChange(c) && pcSpan(c).second >= floor) {
            if (!firstError)
                firstError =
                    Error("", "cannot " + c.describe() + " together with the others: their pcs overlap");
            continue;
        }
        Result<trace::Trace> next = applyChange(out, c);
        if (!next.ok()) {
            if (!firstError)
                firstError = next.error();
            continue;
        }
        out = std::move(next).value();
        if (isProgramChange(c))
            floor = pcSpan(c).first;
        in.push_back(i);
    }
    if (in.empty())
        return firstError ? *firstError : Error("", "no change to apply");
    std::sort(in.begin(), in.end());
    if (applied)
        *applied = std::move(in);
    return out;
}

} // namespace xps::suggest
