#pragma once
// An annotated report of one replay: what a performance review passes around. Built once from the
// analyses and the measured suggestions, then written as Markdown, self-contained HTML (figures as inline
// SVG), JSON (docs/report-json.md) or, by the front ends, PDF. Annotations and bookmarks come from a session;
// a report of a bare trace has none and says so.

#include "analysis/analyze.h"
#include "profile/profile_analysis.h"
#include "session/session.h"
#include "suggest/group.h"
#include "suggest/suggestion.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace xps::report {

// A horizontal bar chart: one bar per row, each bar split into coloured parts.
struct Figure
{
    struct Part
    {
        std::string label;  // legend entry
        double value = 0;
        std::string colour; // "#rrggbb"
    };
    struct Row
    {
        std::string label;
        std::vector<Part> parts;
        std::string note; // printed after the bar ("62.1%")
        // When set, the row is drawn as a strip: one cell per column shaded by its value (0..1), in the
        // colour of parts.front() (whose value is then the row's mean, for text forms).
        std::vector<double> activity = {};
    };
    std::string id;      // "stalls", "critical-path", "chips"
    std::string title;
    std::string caption; // one sentence saying what to read in it
    std::string unit;    // of the values ("cycles", "%")
    std::vector<Row> rows;
    double fullScale = 0; // the value a full-width bar stands for; 0: the longest row
    std::uint64_t fromCycle = 0, toCycle = 0; // the time axis of strip rows
    std::uint64_t markFrom = 0,
                  markTo = 0;            // when markTo > markFrom: the evidence range, outlined on the strips
    std::vector<std::string> notes = {}; // notes pinned inside its time range ("cycles 75-85: ...")
    std::string svg() const; // a standalone <svg> element
    int width() const;       // of the SVG, in CSS pixels
    int height() const;
};

struct Table
{
    std::string id;
    std::string title;
    std::vector<std::string> columns;
    std::vector<bool> numeric; // per column: right-aligned
    std::vector<std::vector<std::string>> rows;
};

// Another run the report's run is compared with (`report A --baseline B`): the deltas as a
// table, figures of both runs side by side, the largest changes with their evidence in words, and the
// diff's JSON (docs/diff-json.md) for the JSON report. Built by report/comparison.h.
struct Comparison
{
    std::string baselineSource; // the baseline's file
    std::string verdict;        // one sentence: how much faster or slower this run is
    std::vector<Figure> figures;
    std::vector<std::string> changes; // the largest changes, each with its evidence, in order
    std::vector<Table> tables;        // the totals first
    std::vector<std::string> notes;   // what was not compared, and why (programs too different to match)
    nlohmann::ordered_json json;
};

struct Annotation
{
    std::string text;
    std::uint64_t fromCycle = 0;
    std::uint64_t toCycle = 0;
    std::string shownWith = {}; // where the report shows it: "suggestion 2", "bookmark 1"; empty: at the end
};

struct SuggestionEntry
{
    int rank = 0; // 1 = largest measured gain
    std::string state =
        "open"; // open, applied, dismissed (sessions keep it); a group's: its members' if alike
    // One suggestion, or a group's summary: its title, kind, combined measurement ("G1", "G2", ... as id)
    // and the union of its members' evidence.
    suggest::Suggestion suggestion;
    std::string evidence;                      // in words: cycle range, pcs, DMAs
    std::vector<SuggestionEntry> members = {}; // a group's suggestions, each measured on its own
    std::string together = {};                 // a group: how many of its members were applied together
    std::optional<Figure> figure = {};         // the activity around the evidence, for the top few entries
    std::vector<Annotation> notes = {};        // notes pinned inside its evidence range
};

struct Bookmark
{
    std::string name;
    std::uint64_t fromCycle = 0;
    std::uint64_t toCycle = 0;
};

struct Report
{
    std::string title;
    std::string source;    // the trace or session file
    std::string generator; // "xpushark 0.1.0"
    std::string machine;   // chips, clock, HBM and link bandwidth
    std::vector<std::pair<std::string, std::string>> headline; // figure name -> value
    std::vector<Figure> figures;
    Table chips;
    Table regions;
    // Replayed against recorded hardware durations per region instance, worst first; no rows when the trace
    // recorded none (then no section is written).
    Table recordedTiming;
    nlohmann::json recordedTimingJson;        // the same with numbers (docs/report-json.md); null when none
    std::vector<SuggestionEntry> suggestions; // ranked
    std::vector<Annotation> annotations;
    std::vector<Bookmark> bookmarks;
    nlohmann::json analysis; // the stable analysis form (docs/analysis-json.md), carried into the JSON report
    std::optional<Comparison> comparison; // with a baseline: written after the summary

    // An imported profile's report (buildImportedReport): times are the profile's ticks (`timebase`),
    // written from `timeOrigin` (its start) in ms; `findings` are estimates from the profile (there is no
    // program to re-simulate), in place of the measured suggestions; `machine` names the profile's format.
    bool imported = false;
    std::int64_t timeOrigin = 0;
    profile::Timebase timebase;
    Table findings;
    std::vector<std::string> findingDetails; // per finding, its numbers in words ("1. GPU 0: ...")
};

// `groups`: suggestions of one kind measured applied together (sim::measureGroups); each is one entry of
// the ranking, its members listed inside it. Without them, same-kind suggestions are still grouped, with
// their own gains only.
Report buildReport(const analysis::ReplayView& replay, const analysis::Analyses& analyses,
                   const std::vector<suggest::Suggestion>& suggestions, const std::string& source,
                   const std::string& generator, const std::vector<suggest::SuggestionGroup>& groups = {});

// Every figure: the report's own, the comparison's, then each suggestion's evidence figure.
std::vector<const Figure*> allFigures(const Report& report);

// A session's notes, bookmarks and suggestion states (by id; unlisted ones stay open) into the report, with
// a figure of each bookmark's time range (each unit's, engine's and link's activity) drawn from `replay`.
void addSessionContent(Report& report, const analysis::ReplayView& replay, const std::vector<session::Annotation>& notes,
                       const std::vector<session::Bookmark>& bookmarks,
                       const std::map<std::string, session::SuggestionState>& states);

// The report of an imported profile (Chrome / Kineto JSON, XSpace, Chakra): headline, the device breakdown
// as a figure and a table, the top operations, the estimated findings; `analysis` is its `analyze --json`.
Report buildImportedReport(const profile::Profile& profile, const profile::ProfileAnalysis& analysis,
                           const std::string& source, const std::string& generator);
// A session's notes (pinned to slices or ranges) and bookmarks on that profile.
void addImportedSessionContent(Report& report, const std::vector<session::Annotation>& notes,
                               const std::vector<session::Bookmark>& bookmarks);

std::string toMarkdown(const Report& report);
// Self-contained: styles and figures inline. With `figureImages`, each figure is an <img src="figure:ID">
// instead of inline SVG, for renderers without SVG that are handed the images (the PDF writer).
std::string toHtml(const Report& report, bool figureImages = false);
nlohmann::json toJson(const Report& report);

// HTML and XML text escaping.
std::string escapeHtml(std::string_view text);

} // namespace xps::report
