#include "analyzed_trace.h"

#include "suggest/propose.h"
#include "trace/trace_io.h"
#include "util/cancel.h"
#include "util/text.h"
#include "what_if.h"

namespace xps::cli {

bool takeLimitOption(const std::vector<std::string>& args, std::size_t& i, sim::ReplayOptions& options,
                     std::string& error)
{
    const std::string& a = args[i];
    if (a != "--max-cycles" && a != "--max-bundles" && a != "--max-memory")
        return false;
    const std::string value = i + 1 < args.size() ? args[++i] : std::string();
    if (a == "--max-memory") {
        if (const std::optional<std::uint64_t> bytes = text::parseBytes(value))
            options.maxEventBytes = *bytes;
        else
            error =
                a + " needs a size in bytes, such as 8G, 512MiB or 1.5G (0: no limit), got '" + value + "'";
        return true;
    }
    // Digits only (strtoull would take "-1" and " 5"), at most 19 of them (no overflow).
    if (value.empty() || value.size() > 19 || value.find_first_not_of("0123456789") != std::string::npos) {
        error = a + " needs a whole number (0: no limit), got '" + value + "'";
        return true;
    }
    (a == "--max-cycles" ? options.maxCycles : options.maxBundles) = std::stoull(value);
    return true;
}

bool takeThreadsOption(const std::vector<std::string>& args, std::size_t& i, unsigned& threads,
                       std::string& error)
{
    if (args[i] != "--threads")
        return false;
    const std::string value = i + 1 < args.size() ? args[++i] : std::string();
    // Digits only, as for the limits; more than 256 threads would only add memory, not speed.
    if (value.empty() || value.size() > 3 || value.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(value) < 1 || std::stoul(value) > 256) {
        error = "--threads needs a whole number of threads in 1..256, got '" + value + "'";
        return true;
    }
    threads = static_cast<unsigned>(std::stoul(value));
    return true;
}

std::string limitOption(const sim::ReplayResult& result)
{
    switch (result.limit) {
    case sim::ReplayResult::Limit::Cycles: return "--max-cycles";
    case sim::ReplayResult::Limit::Bundles: return "--max-bundles";
    case sim::ReplayResult::Limit::Memory: return "--max-memory";
    case sim::ReplayResult::Limit::None: break;
    }
    return "--max-cycles, --max-bundles or --max-memory";
}

std::unique_ptr<Analyzed> analyzeFile(const std::string& path, Streams io, int& exitCode, Measuring measure,
                                      const sim::ReplayOptions& limits, std::stop_token stop)
{
    auto a = std::make_unique<Analyzed>();
    auto loaded = trace::loadTrace(path);
    if (!loaded) {
        exitCode = inputError(io, loaded.error());
        return nullptr;
    }
    a->trace = std::move(loaded).value();
    sim::ReplayOptions options = limits;
    options.mode = sim::ReplayMode::Full;
    a->result = sim::Replayer(a->trace, options, a->store).run(stop);
    if (stop.stop_requested())
        return nullptr;
    if (a->result.fault) {
        io.err << path << ": replay stopped: " << a->result.fault->toString() << "\n";
        exitCode = kExitBadInput;
        return nullptr;
    }
    if (a->result.status == sim::ReplayResult::Status::LimitReached) {
        // Analysing part of a run would mislead: the program did not end (`replay --max-cycles` shows it).
        io.err << path << ": replay stopped at " << a->result.limitMessage
               << "; the program did not end, so there is nothing whole to analyse ("
               << limitOption(a->result) << " raises that limit; 0: none)\n";
        exitCode = kExitBadInput;
        return nullptr;
    }
    a->view = std::make_unique<analysis::ReplayView>(
        analysis::ReplayView{a->trace, a->store, a->result.totalCycles, a->result.chips, stop});
    try {
        a->analyses = analysis::analyzeReplay(*a->view);
        a->suggestions = suggest::proposeSuggestions(*a->view, a->analyses);
    } catch (const Cancelled&) {
        return nullptr;
    }
    a->view->stop = {}; // later readers (reports, diffs) are not this analysis's to stop
    if (measure.on) {
        sim::measureSuggestions(a->suggestions, a->trace, a->result, {}, {}, measure.threads);
        a->groups = sim::measureGroups(a->suggestions, a->trace, a->result, {}, {}, measure.threads);
    }
    return a;
}

BackgroundAnalysis::BackgroundAnalysis(std::string path, const sim::ReplayOptions& limits)
    : m_thread([this, path = std::move(path), limits](std::stop_token stop) {
          m_result = analyzeFile(path, {m_out, m_err}, m_code, {false}, limits, stop);
      })
{
}

std::unique_ptr<Analyzed> BackgroundAnalysis::take(Streams io, int& exitCode)
{
    m_thread.join();
    io.out << m_out.str();
    io.err << m_err.str();
    if (!m_result)
        exitCode = m_code;
    return std::move(m_result);
}

} // namespace xps::cli
