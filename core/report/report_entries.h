#pragma once
// The report's ranking: suggestions of one kind as one entry (its members inside), a figure of the evidence
// of the top entries, and each note beside the evidence it is pinned to (internal to report/).

#include "analysis/activity_lanes.h"
#include "report/report.h"

namespace xps::report::detail {

std::string evidenceText(const suggest::Evidence& evidence);

// Groups (measured or not) and the suggestions in none, one entry each, largest measured gain first
// (a group's: its combined gain when measured, else its best member's); unmeasured ones last.
std::vector<SuggestionEntry> rankEntries(const std::vector<suggest::Suggestion>& suggestions,
                                         std::vector<suggest::SuggestionGroup> groups);

// Each unit's, DMA engine's and ICI link's activity in cycles [from, to), one strip per lane, darker when
// busier; with mark, the range [markFrom, markTo) is outlined.
Figure activityFigure(std::string id, std::string title, std::string caption, std::uint64_t from,
                      std::uint64_t to, const analysis::ActivityLanes& lanes, std::uint64_t markFrom = 0,
                      std::uint64_t markTo = 0);

// A figure of the activity around the evidence of each of the first `count` entries that has a range.
void addEvidenceFigures(std::vector<SuggestionEntry>& entries, const analysis::ActivityLanes& lanes,
                        std::uint64_t totalCycles, std::size_t count);

// Each annotation beside what it is pinned in: the suggestion whose evidence range it covers most of, else
// the bookmark whose range it overlaps; the rest stay for the report's end.
void placeAnnotations(Report& report);

// A printed cell does not wrap (report_formats.cpp): a name over `most` bytes (a templated CUDA kernel's runs
// to hundreds of characters) keeps its start and end around an ellipsis, never cutting a UTF-8 sequence.
std::string elided(const std::string& name, std::size_t most = 56);

} // namespace xps::report::detail
