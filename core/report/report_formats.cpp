// The report's three text forms. Each has every section, in the same order: headline figures, figures,
// chips, regions, ranked suggestions (measured gain, evidence, the change), annotations, bookmarks.
#include "report/report.h"

#include "profile/profile.h"

#include "util/text.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace xps::report {
namespace {

constexpr int kReportJsonVersion = 1;
constexpr int kPrintedFigureWidth = 480; // fits an A4 page's text width at the PDF's default font size

std::string measuredText(const suggest::Suggestion& s)
{
    if (!s.measured)
        return "not measured";
    const suggest::Measurement& m = *s.measured;
    char b[200];
    std::snprintf(b, sizeof b, "%s: %s -> %s cycles (%+.2f%%)", std::string(suggest::verdictName(m.verdict)).c_str(),
                  text::withThousands(m.baselineCycles).c_str(), text::withThousands(m.newCycles).c_str(), m.gainPercent);
    return std::string(b) + (m.detail.empty() ? "" : "; " + m.detail);
}

// One line, for a group's member table: "+4.37% (50,837 cycles)", or the verdict.
std::string compactMeasured(const suggest::Suggestion& s)
{
    if (!s.measured)
        return "not measured";
    const suggest::Measurement& m = *s.measured;
    if (m.verdict != suggest::Measurement::Verdict::Improves)
        return std::string(suggest::verdictName(m.verdict));
    char b[96];
    std::snprintf(b, sizeof b, "%+.2f%% (%s cycles)", m.gainPercent,
                  text::withThousands(m.newCycles).c_str());
    return b;
}

// A figure's value as its unit reads best: whole cycles with separators, percentages to one decimal.
std::string valueText(double value, const std::string& unit)
{
    if (unit == "cycles")
        return text::withThousands(static_cast<std::uint64_t>(value + 0.5));
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", value);
    return b;
}

std::string cyclesRange(std::uint64_t from, std::uint64_t to)
{
    return "cycles " + text::withThousands(from) + "-" + text::withThousands(to);
}

// A note's or bookmark's range as the report's timebase reads: cycles, or an imported profile's time from
// its start.
std::string rangeText(const Report& r, std::uint64_t from, std::uint64_t to)
{
    if (!r.imported)
        return cyclesRange(from, to);
    const auto at = [&](std::uint64_t t) { return static_cast<std::int64_t>(t) - r.timeOrigin; };
    return r.timebase.ms(at(from)) + "-" + r.timebase.ms(at(to));
}

constexpr const char* kFindingsIntro =
    "Estimated from the profile, not measured: an import has no program to re-simulate. Each finding's "
    "\"up to\" is an upper bound from its evidence.";

// Markdown table cells cannot hold a pipe or a newline.
std::string cell(std::string s)
{
    std::string out;
    for (char c : s)
        out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
    return out;
}

void markdownTable(std::ostringstream& s, const Table& t, const char* heading = "##")
{
    s << heading << " " << t.title << "\n\n";
    if (t.rows.empty()) {
        s << "None.\n\n";
        return;
    }
    s << "|";
    for (const std::string& c : t.columns)
        s << " " << cell(c) << " |";
    s << "\n|";
    for (std::size_t i = 0; i < t.columns.size(); ++i)
        s << (t.numeric[i] ? "---:|" : "---|");
    s << "\n";
    for (const auto& row : t.rows) {
        s << "|";
        for (const std::string& c : row) {
            // Leading spaces (region nesting) would be eaten by Markdown: keep them as non-breaking ones.
            const std::size_t indent = std::min(c.find_first_not_of(' '), c.size());
            std::string nbsp;
            for (std::size_t k = 0; k < indent; ++k)
                nbsp += "&nbsp;";
            s << " " << nbsp << cell(c.substr(indent)) << " |";
        }
        s << "\n";
    }
    s << "\n";
}

const char* cellStyle(bool print);

void htmlTable(std::ostringstream& s, const Table& t, bool print, const char* heading = "h2")
{
    s << "<section id=\"" << t.id << "\"><" << heading << ">" << escapeHtml(t.title) << "</" << heading
      << ">\n";
    if (t.rows.empty()) {
        s << "<p>None.</p></section>\n";
        return;
    }
    s << "<table><thead><tr>";
    for (std::size_t i = 0; i < t.columns.size(); ++i)
        s << "<th" << (t.numeric[i] ? " class=\"num\"" : "") << cellStyle(print) << ">"
          << escapeHtml(t.columns[i]) << "</th>";
    s << "</tr></thead><tbody>\n";
    for (const auto& row : t.rows) {
        s << "<tr>";
        for (std::size_t i = 0; i < row.size(); ++i) {
            const std::string& c = row[i];
            const std::size_t indent = c.find_first_not_of(' ');
            s << "<td" << (i < t.numeric.size() && t.numeric[i] ? " class=\"num\"" : "") << cellStyle(print)
              << ">";
            if (indent != std::string::npos && indent > 0)
                for (std::size_t k = 0; k < indent / 2; ++k)
                    s << "&nbsp;&nbsp;&nbsp;&nbsp;";
            s << escapeHtml(indent == std::string::npos ? c : c.substr(indent)) << "</td>";
        }
        s << "</tr>\n";
    }
    s << "</tbody></table></section>\n";
}

constexpr const char* kStyle =
    R"(body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;color:#202020;max-width:960px;margin:2em auto;padding:0 1em;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
.meta{color:#555}table{border-collapse:collapse;margin:.5em 0;font-size:.92em}th,td{border:1px solid #d0d0d0;padding:3px 8px;text-align:left}
th{background:#f2f4f7}.num{text-align:right;font-variant-numeric:tabular-nums}figure{margin:1em 0}figcaption{color:#555;font-size:.9em}
.suggestion{border:1px solid #d0d0d0;border-radius:6px;padding:.6em 1em;margin:.8em 0}.suggestion h3{margin:.1em 0 .4em;font-size:1.05em}
.gain{font-weight:bold}.improves{color:#00734f}.change{font-family:"DejaVu Sans Mono",monospace;font-size:.9em;background:#f6f6f6;padding:2px 4px}
.note{background:#fff8d6;border-left:3px solid #e0b000;padding:3px 8px})";

void markdownFigure(std::ostringstream& s, const Figure& f, const char* heading)
{
    s << heading << " " << f.title << "\n\n" << f.caption << "\n\n| | " << f.unit << " | |\n|---|---:|---|\n";
    for (const Figure::Row& row : f.rows) {
        double total = 0;
        for (const Figure::Part& p : row.parts)
            total += p.value;
        s << "| " << cell(row.label.empty() ? row.parts.front().label : row.label) << " | "
          << valueText(total, f.unit) << " | " << cell(row.note) << " |\n";
        if (row.parts.size() > 1)
            for (const Figure::Part& p : row.parts)
                s << "| &nbsp;&nbsp;" << cell(p.label) << " | " << valueText(p.value, f.unit) << " | |\n";
    }
    s << "\n";
    for (const std::string& note : f.notes)
        s << "> **Note**, " << note << "\n>\n";
    if (!f.notes.empty())
        s << "\n";
}

// Printed (the PDF): cells never wrap (QTextDocument broke "attention" into "atten-tion" in a narrow column).
const char* cellStyle(bool print)
{
    return print ? " style=\"white-space:nowrap\"" : "";
}

void htmlFigure(std::ostringstream& s, const Figure& f, bool figureImages, const char* heading)
{
    s << "<figure id=\"figure-" << f.id << "\"><" << heading << ">" << escapeHtml(f.title) << "</" << heading
      << ">\n";
    if (figureImages)
        s << "<p><img src=\"figure:" << f.id << "\" alt=\"" << escapeHtml(f.title) << "\" width=\""
          << kPrintedFigureWidth << "\" height=\"" << f.height() * kPrintedFigureWidth / f.width()
          << "\"></p>\n";
    else
        s << f.svg();
    s << "<figcaption>" << escapeHtml(f.caption) << "</figcaption>";
    for (const std::string& note : f.notes)
        s << "<p class=\"note\"><b>Note</b>, " << escapeHtml(note) << "</p>";
    s << "</figure>\n";
}

// One ranked entry: a card (a one-cell table when printed, which QTextDocument borders and keeps whole);
// a group lists its members with what each gained alone.
void htmlSuggestion(std::ostringstream& s, const SuggestionEntry& e, bool print)
{
    const suggest::Suggestion& g = e.suggestion;
    const bool improves = g.measured && g.measured->verdict == suggest::Measurement::Verdict::Improves;
    if (print)
        s << "<table class=\"card\" width=\"100%\" border=\"1\" cellspacing=\"0\" cellpadding=\"6\"><tr><td>";
    s << "<div class=\"suggestion\" id=\"suggestion-" << escapeHtml(g.id) << "\"><h3>" << e.rank << ". "
      << escapeHtml(g.title) << "</h3>\n<p class=\"meta\">" << escapeHtml(g.id) << " · "
      << suggest::severityName(g.severity) << (g.whatIf ? " · what-if" : "") << " · " << escapeHtml(e.state)
      << (e.members.empty() ? "" : " · " + std::to_string(e.members.size()) + " suggestions")
      << "</p>\n<p class=\"gain" << (improves ? " improves" : "") << "\">Measured"
      << (e.members.empty() ? "" : " together") << ": " << escapeHtml(measuredText(g))
      << (e.together.empty() ? "" : " (" + escapeHtml(e.together) + ")") << "</p>\n<p>"
      << escapeHtml(g.explanation) << "</p>\n<p>Evidence: " << escapeHtml(e.evidence) << "</p>\n";
    if (e.members.empty())
        s << "<p>Change: <span class=\"change\">" << escapeHtml(g.change.describe()) << "</span></p>\n";
    else {
        s << "<table" << (print ? " width=\"100%\"" : "") << "><thead><tr>";
        for (const char* column : {"member", "measured alone", "change", "state"})
            s << "<th" << cellStyle(print) << ">" << column << "</th>";
        s << "</tr></thead><tbody>\n";
        for (const SuggestionEntry& m : e.members)
            // One line per row where it can be: a printed row that wraps may be cut by a page break.
            s << "<tr><td" << cellStyle(print) << ">" << escapeHtml(m.suggestion.id)
              << "</td><td class=\"num\"" << cellStyle(print) << ">"
              << escapeHtml(compactMeasured(m.suggestion))
              // Printed in the text face, which is narrower than the code face: a row that wraps may be cut
              // by a page break.
              << "</td><td>" << (print ? "" : "<span class=\"change\">")
              << escapeHtml(m.suggestion.change.describe()) << (print ? "" : "</span>") << "</td><td"
              << cellStyle(print) << ">" << escapeHtml(m.state) << "</td></tr>\n";
        s << "</tbody></table>\n";
    }
    for (const Annotation& a : e.notes)
        s << "<p class=\"note\"><b>Note</b>, " << escapeHtml(cyclesRange(a.fromCycle, a.toCycle)) << ": "
          << escapeHtml(a.text) << "</p>\n";
    if (e.figure)
        htmlFigure(s, *e.figure, print, "h4");
    s << "</div>\n";
    if (print)
        s << "</td></tr></table>\n";
}

constexpr const char* kComparisonTitle = "Compared with the baseline";

void markdownComparison(std::ostringstream& s, const Comparison& c)
{
    s << "## " << kComparisonTitle << "\n\nBaseline: `" << c.baselineSource << "`\n\n" << c.verdict << "\n\n";
    markdownTable(s, c.tables.front(), "###");
    for (const Figure& f : c.figures)
        markdownFigure(s, f, "###");
    s << "### Largest changes\n\n";
    if (c.changes.empty())
        s << "None.\n";
    for (std::size_t i = 0; i < c.changes.size(); ++i)
        s << i + 1 << ". " << c.changes[i] << "\n";
    s << "\n";
    for (std::size_t i = 1; i < c.tables.size(); ++i)
        markdownTable(s, c.tables[i], "###");
    for (const std::string& note : c.notes)
        s << "- " << note << "\n";
    if (!c.notes.empty())
        s << "\n";
}

// Escaped, with `code` spans (a bundle's text in a change) set in the code face.
std::string htmlWithCode(const std::string& text)
{
    std::string out;
    bool open = false;
    for (char ch : escapeHtml(text))
        if (ch == '`') {
            out += open ? "</code>" : "<code>";
            open = !open;
        } else {
            out += ch;
        }
    return open ? out + "</code>" : out;
}

void htmlComparison(std::ostringstream& s, const Comparison& c, bool print)
{
    s << "<section id=\"comparison\"><h2>" << kComparisonTitle << "</h2>\n<p class=\"meta\">Baseline: <code>"
      << escapeHtml(c.baselineSource) << "</code></p>\n<p class=\"gain\">" << escapeHtml(c.verdict)
      << "</p>\n";
    htmlTable(s, c.tables.front(), print, "h3");
    for (const Figure& f : c.figures)
        htmlFigure(s, f, print, "h3");
    s << "<h3>Largest changes</h3>\n";
    if (c.changes.empty())
        s << "<p>None.</p>\n";
    else {
        s << "<ol id=\"changes\">\n";
        for (const std::string& change : c.changes)
            s << "<li>" << htmlWithCode(change) << "</li>\n";
        s << "</ol>\n";
    }
    for (std::size_t i = 1; i < c.tables.size(); ++i)
        htmlTable(s, c.tables[i], print, "h3");
    for (const std::string& note : c.notes)
        s << "<p>" << escapeHtml(note) << "</p>\n";
    s << "</section>\n";
}

std::size_t placedCount(const Report& r)
{
    return static_cast<std::size_t>(std::count_if(r.annotations.begin(), r.annotations.end(),
                                                  [](const Annotation& a) { return !a.shownWith.empty(); }));
}

} // namespace

std::string toMarkdown(const Report& r)
{
    std::ostringstream s;
    s << "# " << r.title << "\n\n";
    s << "Source: `" << r.source << "`  \n"
      << (r.imported ? "Profile: " : "Machine: ") << r.machine << "  \nGenerated by " << r.generator
      << "\n\n";
    s << "## Summary\n\n| figure | value |\n|---|---:|\n";
    for (const auto& [name, value] : r.headline)
        s << "| " << cell(name) << " | " << cell(value) << " |\n";
    s << "\n";
    if (r.comparison)
        markdownComparison(s, *r.comparison);
    for (const Figure& f : r.figures)
        markdownFigure(s, f, "##");
    markdownTable(s, r.chips);
    markdownTable(s, r.regions);
    if (!r.recordedTiming.rows.empty())
        markdownTable(s, r.recordedTiming);
    if (r.imported) {
        markdownTable(s, r.findings);
        for (const std::string& detail : r.findingDetails)
            s << detail << "\n\n";
        s << kFindingsIntro << "\n\n";
    } else {
        s << "## Suggestions\n\nRanked by measured gain; each was measured by replaying the changed program "
             "and comparing its "
             "outputs bit for bit.\n\n";
        if (r.suggestions.empty())
            s << "None: no finding with a change the tool can make.\n\n";
    }
    for (const SuggestionEntry& e : r.suggestions) {
        const suggest::Suggestion& g = e.suggestion;
        s << "### " << e.rank << ". " << g.title << " (" << g.id << ", " << suggest::severityName(g.severity)
          << (g.whatIf ? ", what-if" : "") << ", " << e.state << ")\n\n";
        s << "- **Measured" << (e.members.empty() ? "" : " together") << ":** " << measuredText(g)
          << (e.together.empty() ? "" : " (" + e.together + ")") << "\n- **Why:** " << g.explanation
          << "\n- **Evidence:** " << e.evidence << "\n";
        if (e.members.empty())
            s << "- **Change:** `" << g.change.describe() << "`\n";
        s << "\n";
        if (!e.members.empty()) {
            s << "| member | measured alone | change | state |\n|---|---|---|---|\n";
            for (const SuggestionEntry& m : e.members)
                s << "| " << cell(m.suggestion.id + " " + m.suggestion.title) << " | "
                  << cell(compactMeasured(m.suggestion)) << " | `" << cell(m.suggestion.change.describe())
                  << "` | " << m.state << " |\n";
            s << "\n";
        }
        for (const Annotation& a : e.notes)
            s << "> **Note**, " << cyclesRange(a.fromCycle, a.toCycle) << ": " << a.text << "\n>\n";
        if (!e.notes.empty())
            s << "\n";
        if (e.figure)
            markdownFigure(s, *e.figure, "####");
    }
    s << "## Annotations\n\n";
    const std::size_t placed = placedCount(r);
    if (r.annotations.empty())
        s << "None.\n\n";
    else if (placed)
        s << placed << " of " << r.annotations.size()
          << " appear beside the suggestion or bookmark they are pinned to.\n\n";
    for (const Annotation& a : r.annotations)
        if (a.shownWith.empty())
            s << "- " << rangeText(r, a.fromCycle, a.toCycle) << ": " << a.text << "\n";
    s << (placed == r.annotations.size() ? "" : "\n") << "## Bookmarks\n\n";
    if (r.bookmarks.empty())
        s << "None.\n";
    for (const Bookmark& b : r.bookmarks)
        s << "- " << b.name << ": " << rangeText(r, b.fromCycle, b.toCycle) << "\n";
    return s.str();
}

std::string toHtml(const Report& r, bool figureImages)
{
    std::ostringstream s;
    s << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << escapeHtml(r.title) << "</title>\n<style>"
      << kStyle << "</style></head><body>\n";
    s << "<h1>" << escapeHtml(r.title) << "</h1>\n<p class=\"meta\">Source: <code>" << escapeHtml(r.source)
      << "</code><br>" << (r.imported ? "Profile: " : "Machine: ") << escapeHtml(r.machine)
      << "<br>Generated by " << escapeHtml(r.generator) << "</p>\n";
    s << "<section id=\"summary\"><h2>Summary</h2><table><tbody>\n";
    for (const auto& [name, value] : r.headline)
        s << "<tr><th>" << escapeHtml(name) << "</th><td class=\"num\">" << escapeHtml(value) << "</td></tr>\n";
    s << "</tbody></table></section>\n";
    if (r.comparison)
        htmlComparison(s, *r.comparison, figureImages);
    s << "<section id=\"figures\"><h2>Figures</h2>\n";
    for (const Figure& f : r.figures)
        htmlFigure(s, f, figureImages, "h3");
    s << "</section>\n";
    htmlTable(s, r.chips, figureImages);
    htmlTable(s, r.regions, figureImages);
    if (!r.recordedTiming.rows.empty())
        htmlTable(s, r.recordedTiming, figureImages);
    if (r.imported) {
        htmlTable(s, r.findings, figureImages);
        for (const std::string& detail : r.findingDetails)
            s << "<p>" << escapeHtml(detail) << "</p>\n";
        s << "<p><i>" << escapeHtml(kFindingsIntro) << "</i></p>\n";
    } else {
        s << "<section id=\"suggestions\"><h2>Suggestions</h2>\n<p>Ranked by measured gain; each was "
             "measured by replaying the "
             "changed program and comparing its outputs bit for bit.</p>\n";
        if (r.suggestions.empty())
            s << "<p>None: no finding with a change the tool can make.</p>\n";
        for (const SuggestionEntry& e : r.suggestions)
            htmlSuggestion(s, e, figureImages);
        s << "</section>\n";
    }
    s << "<section id=\"annotations\"><h2>Annotations</h2>\n";
    const std::size_t placed = placedCount(r);
    if (r.annotations.empty())
        s << "<p>None.</p>\n";
    else if (placed)
        s << "<p>" << placed << " of " << r.annotations.size()
          << " appear beside the suggestion or bookmark they are pinned to.</p>\n";
    if (placed < r.annotations.size()) {
        s << "<ul>\n";
        for (const Annotation& a : r.annotations)
            if (a.shownWith.empty())
                s << "<li>" << escapeHtml(rangeText(r, a.fromCycle, a.toCycle)) << ": " << escapeHtml(a.text)
                  << "</li>\n";
        s << "</ul>\n";
    }
    s << "</section>\n<section id=\"bookmarks\"><h2>Bookmarks</h2>\n";
    if (r.bookmarks.empty())
        s << "<p>None.</p>\n";
    else {
        s << "<ul>\n";
        for (const Bookmark& b : r.bookmarks)
            s << "<li>" << escapeHtml(b.name) << ": " << escapeHtml(rangeText(r, b.fromCycle, b.toCycle))
              << "</li>\n";
        s << "</ul>\n";
    }
    s << "</section>\n</body></html>\n";
    return s.str();
}

nlohmann::json toJson(const Report& r)
{
    nlohmann::json j;
    j["format"] = "xpushark-report";
    j["version"] = kReportJsonVersion;
    j["title"] = r.title;
    j["source"] = r.source;
    j["generator"] = r.generator;
    j["machine"] = r.machine;
    j["kind"] = r.imported ? "imported-profile" : "replay";
    nlohmann::json headline = nlohmann::json::array();
    for (const auto& [name, value] : r.headline)
        headline.push_back({{"name", name}, {"value", value}});
    j["headline"] = std::move(headline);
    nlohmann::json ranked = nlohmann::json::array();
    for (const SuggestionEntry& e : r.suggestions) {
        nlohmann::json entry = {
            {"rank", e.rank}, {"id", e.suggestion.id}, {"state", e.state}, {"evidence", e.evidence}};
        if (!e.members.empty()) {
            entry["title"] = e.suggestion.title;
            entry["kind"] = e.suggestion.kind;
            nlohmann::json members = nlohmann::json::array();
            for (const SuggestionEntry& m : e.members)
                members.push_back(m.suggestion.id);
            entry["members"] = std::move(members);
            entry["together"] = e.together;
            if (const auto& m = e.suggestion.measured)
                entry["combined"] = {{"verdict", std::string(suggest::verdictName(m->verdict))},
                                     {"baseline_cycles", m->baselineCycles},
                                     {"new_cycles", m->newCycles},
                                     {"gain_percent", m->gainPercent}};
        }
        ranked.push_back(std::move(entry));
    }
    j["ranking"] = std::move(ranked);
    nlohmann::json notes = nlohmann::json::array();
    // An imported profile's times are its nanoseconds from its start: named so, not cycles.
    const auto range = [&r](std::uint64_t from, std::uint64_t to) -> nlohmann::json {
        if (!r.imported)
            return {{"fromCycle", from}, {"toCycle", to}};
        return {{"fromNs", r.timebase.toNanos(static_cast<std::int64_t>(from) - r.timeOrigin)},
                {"toNs", r.timebase.toNanos(static_cast<std::int64_t>(to) - r.timeOrigin)}};
    };
    for (const Annotation& a : r.annotations) {
        nlohmann::json note = range(a.fromCycle, a.toCycle);
        note["text"] = a.text;
        note["shownWith"] = a.shownWith;
        notes.push_back(std::move(note));
    }
    j["annotations"] = std::move(notes);
    nlohmann::json marks = nlohmann::json::array();
    for (const Bookmark& b : r.bookmarks) {
        nlohmann::json mark = range(b.fromCycle, b.toCycle);
        mark["name"] = b.name;
        marks.push_back(std::move(mark));
    }
    j["bookmarks"] = std::move(marks);
    if (!r.recordedTimingJson.is_null())
        j["recorded_timing"] = r.recordedTimingJson;
    j["analysis"] = r.analysis;
    if (r.comparison) // the diff's own form (docs/diff-json.md), with what the report says in words
        j["comparison"] = {{"baseline", r.comparison->baselineSource},
                           {"verdict", r.comparison->verdict},
                           {"changes", r.comparison->changes},
                           {"diff", nlohmann::json(r.comparison->json)}};
    return j;
}

} // namespace xps::report
