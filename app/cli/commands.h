#pragma once
// The subcommands of xpushark-cli. Each returns the process exit code: 0 success, 1 the input was bad
// (the message says where), 2 the command line was wrong, 130 interrupted by Ctrl-C before its output was
// written (the shell's code for SIGINT).

#include "isa/machine_config.h"
#include "profile/profile.h"
#include "stablehlo/tensor_type.h"
#include "util/result.h"

#include <optional>
#include <ostream>
#include <stop_token>
#include <string>
#include <vector>

namespace xps::sim {
struct ReplayOptions;
}

namespace xps::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitSlower = 3; // diff --fail-if-slower: the other run is slower than allowed
inline constexpr int kExitInterrupted = 130;

struct Streams
{
    std::ostream& out;
    std::ostream& err;
};

int runInfo(const std::vector<std::string>& args, Streams io);
int runConvert(const std::vector<std::string>& args, Streams io);
int runDisasm(const std::vector<std::string>& args, Streams io);
int runIsa(const std::vector<std::string>& args, Streams io);
int runReplay(const std::vector<std::string>& args, Streams io);
int runGenerate(const std::vector<std::string>& args, Streams io);
int runAnalyze(const std::vector<std::string>& args, Streams io);
int runApply(const std::vector<std::string>& args, Streams io);
int runReport(const std::vector<std::string>& args, Streams io);
int runDiff(const std::vector<std::string>& args, Streams io);

// Imported profiles (profile_commands.cpp): info, analyze and convert of a Chrome / Kineto JSON trace.
// An imported profile, or a session on one (core/session); profilePathOf gives the profile such a session
// names (the path itself for anything else).
bool isImportedProfile(const std::string& path);
Result<std::string> profilePathOf(const std::string& path);
// What a profile comparison (diff, report --baseline) reads of `path`: the profile it is or a session names,
// or, for an xpushark trace, its replay (within `limits`) seen as a profile, the GRM's run beside a measured
// one. A stop requested on `stop` ends the import or the replay with an error.
Result<profile::Profile> profileToCompare(const std::string& path, const sim::ReplayOptions& limits,
                                          std::stop_token stop = {});
int infoProfile(const std::string& path, Streams io);
// `window`: restrict the critical path to the first slice of that name (e.g. "ProfilerStep#2"); "" for all.
int analyzeProfile(const std::string& path, bool json, const std::string& window, Streams io);
int convertProfile(const std::string& in, const std::string& out, Streams io);
// diff of two imported profiles (diff_command.cpp hands them here): op-level, as HTA's TraceDiff; `threshold`
// (percent) on the span as diff's --fail-if-slower; exit 3 when exceeded. A `window` (a slice name such as
// ProfilerStep#2) compares the operations and critical paths of each profile's first slice of that name.
// Either may be an xpushark trace: it is replayed (within `limits`) and compared as its profile, the GRM's
// run beside a measured one.
int diffProfiles(const std::string& baseline, const std::string& other, bool json,
                 std::optional<double> threshold, const std::string& window, const sim::ReplayOptions& limits,
                 Streams io);
// convert --to chrome of an xpushark trace: replays it in full mode and writes the replay
// (replay_command.cpp).
int convertReplayToChrome(const std::string& in, const std::string& out, Streams io);

// StableHLO modules (stablehlo_commands.cpp): `check` evaluates every check of one or more .mlir modules;
// `info` of a .mlir file describes its functions and ops.
bool isStableHloModule(const std::string& path);
int runCheck(const std::vector<std::string>& args, Streams io);
int runCompile(const std::vector<std::string>& args, Streams io);
int infoStableHlo(const std::string& path, Streams io);

// Calibration (calibrate_commands.cpp): `calibrate` fits the GRM's timing parameters to measured op
// latencies; `estimate` predicts a model's time per region.
int runCalibrate(const std::vector<std::string>& args, Streams io);
int runEstimate(const std::vector<std::string>& args, Streams io);

// A machine description (--machine): an object of parameters (docs/isa.md), or a calibration's output,
// whose fitted machine it takes.
Result<isa::MachineConfig> readMachine(const std::string& path);
// `--fusion on|off` of compile, check and estimate (stablehlo_commands.cpp): element-wise chains fused
// into one kernel each, or a kernel per op; nullopt for anything else.
std::optional<bool> fusionMode(const std::string& mode);
// `--dtype bf16|f16|f32` of compile and estimate: its value, args[i + 1] (i moves past it), or the usage
// error `command` prints for a value missing or not one of those.
Result<shlo::ElementType> dtypeArgument(const std::vector<std::string>& args, std::size_t& i,
                                        const std::string& command);

// Shared by the commands: print the message and return the exit code.
int usageError(Streams io, const std::string& message);
int inputError(Streams io, const Error& error);
// An export that failed: stopped by Ctrl-C (nothing written, `out` as it was; kExitInterrupted), or an
// input or write error.
int exportFailed(Streams io, const Error& error, const std::string& out);

// Dispatches argv (without the program name).
int run(const std::vector<std::string>& args, Streams io);

} // namespace xps::cli
