#pragma once
// Replays a trace on the GRM: every chip on one global clock, in-order VLIW issue with a register
// scoreboard, unit occupancy, the MXU result FIFO, DMA engines and sync flags; idle stretches are skipped
// in one step (discrete-event). Records events into an EventStore and returns statistics, the final
// state (for output comparison) or a fault diagnostic.
//
// Deterministic: the same trace and options give the same events, statistics and state.

#include "chip_state.h"
#include "dma_system.h"
#include "events/event_store.h"
#include "events/replay_stats.h"
#include "trace/trace.h"

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace xps::sim {

enum class ReplayMode {
    Full,       // every value computed
    TimingOnly, // vector/MXU results and DMA payloads skipped; stops if a scalar would depend on them
};

// A replay that never ends (a program that never halts, a loop of long stalls) stops at these by default,
// with a diagnostic naming each running chip's pc and its most executed bundle (docs/grm.md, "Limits").
// 2^27 bundles (134 M) is ~3.2 GB of bundle events; 2^40 cycles is ~17 minutes of chip time at 1.05 GHz.
inline constexpr std::uint64_t kDefaultMaxBundles = std::uint64_t{1} << 27;
inline constexpr std::uint64_t kDefaultMaxCycles = std::uint64_t{1} << 40;

// With the cycle and bundle limits off, a program that never ends would fill memory until the system kills
// the process (the explorer with it): a replay also stops once its events take half of the machine's
// memory (0 where the platform does not say: no such limit).
std::uint64_t defaultMaxEventBytes();

struct ReplayOptions
{
    ReplayMode mode = ReplayMode::Full;
    std::uint64_t maxCycles = kDefaultMaxCycles;   // 0: no limit
    std::uint64_t maxBundles = kDefaultMaxBundles; // 0: no limit
    // The bytes the store may take for this replay's events (checked every few thousand steps); 0: none.
    std::uint64_t maxEventBytes = defaultMaxEventBytes();
    // ChipStats::perPc, 80 bytes a bundle (the disassembly's counts, a run diff's): false leaves it empty,
    // for a caller that reads only cycles and regions (estimateTrace: 360 MB for GPT-2 at sequence 1024).
    bool perPcStats = true;
};

struct ReplayProgress
{
    std::uint64_t bundles = 0;
    std::uint64_t cycle = 0;
    double elapsedSeconds = 0.0;
};
using ProgressCallback = std::function<void(const ReplayProgress&)>;

using events::ChipStats;
using events::kUnitCount;
using events::PcStats;

struct ReplayFault
{
    ChipId chip = ChipId(0);
    std::uint32_t pc = 0;
    std::uint64_t cycle = 0;
    std::string instruction; // the bundle's text
    std::string message;
    bool deadlock = false;

    std::string toString() const;
};

struct ReplayResult
{
    enum class Status { Completed, Cancelled, Faulted, LimitReached };
    enum class Limit { None, Cycles, Bundles, Memory }; // ReplayOptions' maxCycles, maxBundles, maxEventBytes
    Status status = Status::Completed;
    Limit limit = Limit::None; // with LimitReached: the limit reached
    std::optional<ReplayFault> fault;
    // With LimitReached: which limit, how to raise it, and where each running chip was (its pc and its most
    // executed bundle, the loop that did not end).
    std::string limitMessage;
    std::uint64_t totalCycles = 0;
    std::vector<ChipStats> chips;
    std::vector<DmaTotals> dma;
    std::vector<ChipState> finalState;
};

class Replayer
{
public:
    Replayer(const trace::Trace& trace, const ReplayOptions& options, events::EventStore& store);
    ~Replayer();
    Replayer(const Replayer&) = delete;
    Replayer& operator=(const Replayer&) = delete;

    // Runs to completion, a fault, cancellation (checked every few thousand bundles, so within
    // milliseconds) or the cycle limit. Progress is reported at least every 50 ms of work.
    ReplayResult run(std::stop_token stop = {}, const ProgressCallback& progress = {});

    // Advances the global clock by up to `cycles` cycles; false once the replay has ended.
    bool step(std::uint64_t cycles);
    std::uint64_t cycle() const;
    const ChipState& state(ChipId chip) const;
    ReplayResult
    finish(); // ends the replay and returns its result (once: a second call returns an empty one)

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Convenience: run a replay synchronously into a fresh store.
ReplayResult replay(const trace::Trace& trace, const ReplayOptions& options, events::EventStore& store);

} // namespace xps::sim
