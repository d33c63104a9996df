#pragma once
// The report as a paginated PDF (A4): the HTML form laid out by QTextDocument, each figure rendered from its
// SVG at twice the resolution. Needs a QGuiApplication (the offscreen platform is enough: no display).

#include "report/report.h"

#include <string>

class QTextDocument;

namespace xps::ui {

// Writes `path` atomically (the previous file stays until the new one is complete). Returns an empty string
// on success, else what went wrong.
std::string writeReportPdf(const report::Report& report, const std::string& path);

// Where the pages break, as a careful typesetter would have it: a heading (or a run of them) never stays at
// a page's foot apart from the table, figure or text it introduces; a figure is never cut by a page break;
// a table that fits on a page and is short
// (at most half of one), or would leave fewer than three rows on either side of the break, starts the next
// page; a longer one may be split, its header row repeated. Each fix is a page break before the heading (or
// the item itself, without one); the document's page size must be set. Returns how many it added.
int paginate(QTextDocument& document);

} // namespace xps::ui
