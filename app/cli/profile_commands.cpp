// The CLI on imported profiles (Chrome / Perfetto / PyTorch profiler JSON): `info`, `analyze` and `convert`
// hand a file here when importing::detectInput says it is not an xpushark trace, or when it is a session on
// an imported profile (which stands for its profile, found as the explorer finds it).
#include "commands.h"
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

Result<profile::Profile> importProfileOrSession(const std::string& path)
{
    Result<std::string> source = profilePathOf(path);
    if (!source)
        return source.error();
    return importing::importProfile(*source);
}

} // namespace

int infoProfile(const std::string& path, Streams io)
{
    auto profile = importProfileOrSession(path);
    if (!profile)
        return inputError(io, profile.error());
    io.out << profile::describeProfile(*profile);
    return kExitOk;
}

int analyzeProfile(const std::string& path, bool json, const std::string& window, Streams io)
{
    auto profile = importProfileOrSession(path);
    if (!profile)
        return inputError(io, profile.error());
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
    auto profile = importProfileOrSession(in);
    if (!profile)
        return inputError(io, profile.error());
    if (Status saved = exporting::writeChromeTrace(*profile, out); !saved)
        return inputError(io, saved.error());
    for (const std::string& w : profile->warningLines())
        io.err << "warning: " << w << "\n";
    io.out << "wrote " << out << " (" << profile->slices.size() << " slices, " << profile->counters.size()
           << " counter samples, " << profile->flows.size() << " flows)\n";
    return kExitOk;
}

} // namespace xps::cli
