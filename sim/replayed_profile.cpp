#include "replayed_profile.h"

#include "analysis/replay_profile.h"
#include "events/event_store.h"
#include "trace/trace_io.h"
#include "util/cancel.h"

namespace xps::sim {

Result<profile::Profile> replayedProfileOf(const std::string& path, const ReplayOptions& limits,
                                           std::stop_token stop)
{
    Result<trace::Trace> trace = trace::loadTrace(path, stop);
    throwIfStopped(stop);
    if (!trace)
        return trace.error();
    ReplayOptions options = limits;
    options.mode = ReplayMode::Full;
    events::EventStore store;
    const ReplayResult result = Replayer(*trace, options, store).run(stop);
    throwIfStopped(stop);
    if (result.fault)
        return Error(path, "replay stopped: " + result.fault->toString());
    if (result.status == ReplayResult::Status::LimitReached)
        return Error(path, "replay stopped at " + result.limitMessage +
                               "; the program did not end, so there is no whole run to compare (--max-cycles "
                               "and --max-bundles raise the limits)");
    const analysis::ReplayView view{*trace, store, result.totalCycles, result.chips, stop};
    return analysis::replayAsProfileFindingItsPath(view, path, stop);
}

} // namespace xps::sim
