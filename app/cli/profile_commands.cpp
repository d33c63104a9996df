// The CLI on imported profiles (Chrome / Perfetto / PyTorch profiler JSON): `info`, `analyze` and `convert`
// hand a file here when importing::detectInput says it is not an xpushark trace, or when it is a session on
// an imported profile (which stands for its profile, found as the explorer finds it).
#include "commands.h"
#include "interrupt.h"
#include "util/json_text.h"

#include "export/chrome_trace.h"
#include "import/import.h"
#include "profile/critical_path.h"
#include "profile/profile_analysis.h"
#include "profile/profile_report.h"
#include "session/session.h"

namespace xps::cli {

bool isImportedProfile(const std::string& path)
{
    if (session::isProfileSession(path))
        return true;
    const auto kind = importing::detectInput(path);
    return kind && *kind != importing::InputKind::XpuTrace;
}

Result<std::string> profilePathOf(const std::string& path)
{
    if (!session::isProfileSession(path))
        return path;
    Result<session::Session> s = session::readSessionTables(path);
    if (!s)
        return s.error();
    return session::resolveProfileSource(path, s->profileSource);
}

namespace {

// Ctrl-C (`interrupt`) stops the import within about 16 MiB of input.
Result<profile::Profile> importProfileOrSession(const std::string& path, const InterruptScope& interrupt)
{
    Result<std::string> source = profilePathOf(path);
    if (!source)
        return source.error();
    importing::ImportOptions options;
    options.progress = [stop = interrupt.token()](std::uint64_t) { return !stop.stop_requested(); };
    return importing::importProfile(*source, options);
}

int importFailed(Streams io, const Error& error, const std::string& path, const InterruptScope& interrupt)
{
    if (!interrupt.interrupted())
        return inputError(io, error);
    io.err << path << ": import interrupted\n";
    return kExitInterrupted;
}

} // namespace

int infoProfile(const std::string& path, Streams io)
{
    const InterruptScope interrupt;
    auto profile = importProfileOrSession(path, interrupt);
    if (!profile)
        return importFailed(io, profile.error(), path, interrupt);
    io.out << profile::describeProfile(*profile);
    return kExitOk;
}

int analyzeProfile(const std::string& path, bool json, const std::string& window, Streams io)
{
    const InterruptScope interrupt;
    auto profile = importProfileOrSession(path, interrupt);
    if (!profile)
        return importFailed(io, profile.error(), path, interrupt);
    profile::ProfileAnalysis analysis = profile::analyzeProfile(*profile);
    if (!window.empty()) {
        const auto span = profile::windowOfSlice(*profile, window);
        if (!span)
            return inputError(io, Error(path, "--window: no slice is named '" + window + "'"));
        analysis.criticalPath = profile::computeCriticalPath(*profile, *span);
    }
    if (json)
        io.out << text::jsonText(profile::profileAnalysisJson(*profile, analysis), 2) << "\n";
    else
        io.out << profile::formatProfileAnalysis(*profile, analysis);
    return kExitOk;
}

int convertProfile(const std::string& in, const std::string& out, Streams io)
{
    if (out.size() < 5 || out.compare(out.size() - 5, 5, ".json") != 0 || out.ends_with(".xtrace.json"))
        return usageError(io, "convert: an imported profile converts to Chrome trace JSON: name the output "
                              "OUT.json (not .xtrace.json or .xps)");
    const InterruptScope interrupt; // Ctrl-C stops the import or the export; nothing is written
    auto profile = importProfileOrSession(in, interrupt);
    if (!profile)
        return importFailed(io, profile.error(), in, interrupt);
    if (Status saved = exporting::writeChromeTrace(*profile, out, nullptr, {interrupt.token(), {}}); !saved)
        return exportFailed(io, saved.error(), out);
    for (const std::string& w : profile->warningLines())
        io.err << "warning: " << w << "\n";
    io.out << "wrote " << out << " (" << profile->slices.size() << " slices, " << profile->counters.size()
           << " counter samples, " << profile->flows.size() << " flows)\n";
    return kExitOk;
}

} // namespace xps::cli
