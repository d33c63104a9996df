#pragma once
// The report as a paginated PDF (A4): the HTML form laid out by QTextDocument, each figure rendered from its
// SVG at twice the resolution. Needs a QGuiApplication (the offscreen platform is enough: no display).

#include "report/report.h"

#include <string>

namespace xps::ui {

// Writes `path` atomically (the previous file stays until the new one is complete). Returns an empty string
// on success, else what went wrong.
std::string writeReportPdf(const report::Report& report, const std::string& path);

} // namespace xps::ui
