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

// Gives each top-level table that would straddle a page break (and fits on one page), or whose heading would
// stay at the foot of the page before, a page break before its heading (or itself, without one), until none
// does. The document's page size must be set. Returns
// how many moved.
int keepTablesWhole(QTextDocument& document);

} // namespace xps::ui
