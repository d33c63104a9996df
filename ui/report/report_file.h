#pragma once
// Writing a report to a file in any of its forms, chosen by name: what `xpushark-cli report` and the
// explorer's File > Export report share. Every form is written atomically: the previous file stays until
// the new one is complete.

#include "report/report.h"

#include <optional>
#include <string>

namespace xps::ui {

enum class ReportFormat { Html, Markdown, Json, Pdf };

// From a format name ("html", "md", "json", "pdf") or a file name's extension; nullopt if neither.
std::optional<ReportFormat> reportFormatOf(const std::string& nameOrPath);

// Returns an empty string on success, else what went wrong. PDF needs a QGuiApplication; any thread.
std::string writeReport(const report::Report& report, const std::string& path, ReportFormat format);

} // namespace xps::ui
