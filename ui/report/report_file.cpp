#include "report/report_file.h"
#include "util/json_text.h"

#include "report/report_pdf.h"
#include "util/atomic_file.h"

#include <fstream>

namespace xps::ui {
namespace {

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string writeText(const std::string& path, const std::string& text)
{
    const Status saved = writeFileAtomically(path, [&](const std::string& temporary) -> Status {
        std::ofstream out(temporary, std::ios::binary);
        out << text;
        out.flush();
        if (!out)
            return Error(path, "could not write the report");
        return Ok{};
    });
    return saved ? std::string() : saved.error().toString();
}

} // namespace

std::optional<ReportFormat> reportFormatOf(const std::string& name)
{
    if (name == "html" || endsWith(name, ".html") || endsWith(name, ".htm"))
        return ReportFormat::Html;
    if (name == "md" || name == "markdown" || endsWith(name, ".md") || endsWith(name, ".markdown"))
        return ReportFormat::Markdown;
    if (name == "json" || endsWith(name, ".json"))
        return ReportFormat::Json;
    if (name == "pdf" || endsWith(name, ".pdf"))
        return ReportFormat::Pdf;
    return std::nullopt;
}

std::string writeReport(const report::Report& r, const std::string& path, ReportFormat format)
{
    switch (format) {
    case ReportFormat::Html: return writeText(path, report::toHtml(r));
    case ReportFormat::Markdown: return writeText(path, report::toMarkdown(r));
    case ReportFormat::Json: return writeText(path, text::jsonText(report::toJson(r), 2) + "\n");
    case ReportFormat::Pdf: {
        const std::string error = writeReportPdf(r, path);
        return error.empty() ? error : path + ": " + error;
    }
    }
    return "unknown report format";
}

} // namespace xps::ui
