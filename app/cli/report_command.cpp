// `xpushark-cli report TRACE_OR_SESSION -o OUT.{html,md,json,pdf}`: replays and analyses the trace, measures
// the suggestions and writes the annotated report, with a session's notes, bookmarks and suggestion states.
// An imported profile (or a session on one) is imported and analysed instead: its report has the estimated
// findings and the session's notes and bookmarks. With `--baseline B` the report also compares its run with
// B's (report/comparison.h), as `diff` compares them: two traces, two profiles, or a trace's
// replay as its profile beside a profile. Headless: the PDF is laid
// out on Qt's offscreen platform.
#include "analyzed_trace.h"
#include "commands.h"

#include "analysis/replay_profile.h"
#include "analysis/run_diff.h"
#include "import/import.h"
#include "profile/profile_analysis.h"
#include "profile/profile_diff.h"
#include "report/comparison.h"
#include "report/report.h"
#include "report/report_file.h"
#include "session/session.h"
#include "trace/trace_container.h"

#include <QGuiApplication>

#include <cstdio>
#include <map>
#include <memory>
#include <optional>

namespace xps::cli {
namespace {

// A command-line tool's stderr is for its own messages: the platform's notes (no XDG_RUNTIME_DIR on a
// server, missing fonts) are dropped, Qt's errors are kept.
void quietQtMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        std::fprintf(stderr, "xpushark-cli: Qt: %s\n", qPrintable(message));
}

std::unique_ptr<QGuiApplication> guiForPdf()
{
    if (QCoreApplication::instance())
        return nullptr;
    qInstallMessageHandler(quietQtMessages);
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "xpushark-cli";
    static char* argv[] = {name, nullptr};
    return std::make_unique<QGuiApplication>(argc, argv);
}

struct ImportedProfile
{
    std::string source; // the profile's file (a session names it)
    profile::Profile profile;
    profile::ProfileAnalysis analysis;
};

// An imported profile (or the one a session names), or, for an xpushark trace (a baseline beside a
// profile), its replay seen as a profile.
Result<ImportedProfile> importAndAnalyze(const std::string& path, const sim::ReplayOptions& limits = {})
{
    Result<std::string> source = profilePathOf(path);
    if (!source)
        return source.error();
    Result<profile::Profile> p = profileToCompare(path, limits);
    if (!p)
        return p.error();
    ImportedProfile out{*source, std::move(p).value(), {}};
    out.analysis = profile::analyzeProfile(out.profile);
    return out;
}

// The report of an imported profile, or of a session on one (its notes found again on their slices),
// compared with `baseline` when one is given; an error if a profile cannot be read.
Result<report::Report> importedReport(const std::string& path, const std::string& baseline,
                                      const sim::ReplayOptions& limits)
{
    Result<ImportedProfile> imported = importAndAnalyze(path);
    if (!imported)
        return imported.error();
    const std::string* source = &imported->source;
    profile::Profile* p = &imported->profile;
    const profile::ProfileAnalysis& analysis = imported->analysis;
    report::Report r =
        report::buildImportedReport(*p, analysis, *source, std::string("xpushark-cli ") + XPS_VERSION);
    if (*source != path) { // a session: its notes and bookmarks
        Result<session::Session> s = session::readSessionTables(path);
        if (!s)
            return s.error();
        r.source = path + " (session on " + *source + ")";
        session::relocate(s->annotations, *p);
        report::addImportedSessionContent(r, s->annotations, s->bookmarks);
    }
    if (!baseline.empty()) {
        Result<ImportedProfile> base = importAndAnalyze(baseline, limits);
        if (!base)
            return base.error();
        report::attachComparison(
            r, report::compareProfiles(profile::diffProfiles(base->profile, base->analysis, *p, analysis)));
    }
    return r;
}

} // namespace

int runReport(const std::vector<std::string>& args, Streams io)
{
    std::string path, output, formatName, baseline;
    bool measure = true;
    sim::ReplayOptions limits;
    unsigned threads = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (std::string error;
            takeLimitOption(args, i, limits, error) || takeThreadsOption(args, i, threads, error)) {
            if (!error.empty())
                return usageError(io, "report: " + error);
        } else if (a == "-o" || a == "--format" || a == "--baseline") {
            if (i + 1 >= args.size() || args[i + 1].empty())
                return usageError(io, "report: " + a + " needs a value");
            (a == "-o" ? output : a == "--format" ? formatName : baseline) = args[++i];
        } else if (a == "--no-measure") {
            measure = false;
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError(io, "report: unknown option '" + a + "'");
        } else if (path.empty()) {
            path = a;
        } else {
            return usageError(io, "report: expected exactly one TRACE file");
        }
    }
    if (path.empty() || output.empty())
        return usageError(
            io, "report: usage: report TRACE -o OUT.{html,md,json,pdf} [--format FORMAT] [--no-measure] "
                "[--threads N] [--baseline BASELINE]");
    const std::optional<ui::ReportFormat> format =
        ui::reportFormatOf(formatName.empty() ? output : formatName);
    if (!format)
        return usageError(io, "report: cannot tell the format of '" +
                                  (formatName.empty() ? output : formatName) +
                                  "': use .html, .md, .json or .pdf, or --format html|md|json|pdf");

    int code = kExitOk;
    std::unique_ptr<Analyzed> a;
    report::Report r;
    // A trace's report beside a profile: the trace's replay is compared as its profile, as `diff` does.
    const bool profileBaseline = !baseline.empty() && isImportedProfile(baseline);
    const bool profiles = isImportedProfile(path);
    // As `diff BASELINE TRACE` compares them: the baseline replayed and analysed, not measured, meanwhile.
    std::optional<BackgroundAnalysis> base;
    if (!profiles && !profileBaseline && !baseline.empty())
        base.emplace(baseline, limits);
    // A profile baseline is read first: a file that cannot be read is said before the trace's long replay.
    std::optional<ImportedProfile> profileBase;
    if (profileBaseline && !profiles) {
        Result<ImportedProfile> b = importAndAnalyze(baseline);
        if (!b)
            return inputError(io, b.error());
        profileBase = std::move(b).value();
    }
    if (profiles) {
        Result<report::Report> imported = importedReport(path, baseline, limits);
        if (!imported)
            return inputError(io, imported.error());
        r = std::move(imported).value();
    } else if (!(a = analyzeFile(path, io, code, {measure, threads}, limits))) {
        return code;
    } else {
        r = report::buildReport(*a->view, a->analyses, a->suggestions, path,
                                std::string("xpushark-cli ") + XPS_VERSION, a->groups);
    }
    if (a && trace::looksLikeContainer(path)) {
        // A session: its notes (moved to where their events are in this replay), bookmarks and the state of
        // each suggestion go into the report.
        Result<session::Session> s = session::readSession(path);
        if (!s)
            return inputError(io, s.error());
        session::relocate(s->annotations, a->store);
        std::map<std::string, session::SuggestionState> states;
        for (const session::SuggestionRecord& rec : s->suggestions)
            states[rec.id] = rec.state;
        report::addSessionContent(r, *a->view, s->annotations, s->bookmarks, states);
    }
    if (a && profileBase) {
        const profile::Profile mine = analysis::replayAsProfile(*a->view, path, a->analyses.criticalPath);
        const profile::ProfileAnalysis analysis = profile::analyzeProfile(mine);
        report::attachComparison(r, report::compareProfiles(profile::diffProfiles(
                                        profileBase->profile, profileBase->analysis, mine, analysis)));
    }
    if (a && base) {
        const std::unique_ptr<Analyzed> b = base->take(io, code);
        if (!b)
            return code;
        analysis::RunDiff d = analysis::diffRuns(b->analyses, a->analyses, {baseline}, {path});
        analysis::addPcDeltas(d, *b->view, b->analyses, *a->view, a->analyses);
        report::attachComparison(r, report::compareReplays(d));
    }

    // QTextDocument and QPdfWriter (the PDF) need a QGuiApplication; the offscreen platform needs no display.
    const std::unique_ptr<QGuiApplication> app = *format == ui::ReportFormat::Pdf ? guiForPdf() : nullptr;
    if (const std::string error = ui::writeReport(r, output, *format); !error.empty()) {
        io.err << error << "\n";
        return kExitBadInput;
    }
    if (r.imported)
        io.out << "wrote " << output << ": " << r.findings.rows.size()
               << " finding(s), estimated from the profile";
    else
        io.out << "wrote " << output << ": " << r.suggestions.size() << " suggestion(s)"
               << (measure ? ", measured" : "");
    if (r.comparison)
        io.out << "; compared with " << baseline << ": " << r.comparison->verdict;
    io.out << "\n";
    return kExitOk;
}

} // namespace xps::cli
