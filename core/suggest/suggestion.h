#pragma once
// A suggestion: a finding in words and numbers, the evidence behind it, and a change the tool can make
// itself (to the program or to the machine config), whose gain is measured by replaying the changed trace
// and checking that the outputs stayed bit-identical.

#include "isa/chip_id.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xps::suggest {

enum class ChangeKind : std::uint8_t {
    HoistDma,         // move a dma.start to an earlier bundle of its basic block
    SplitDma,         // split a dma.start in two halves on two engines
    SplitRoute,       // send part of a remote dma.start the long way round the ring, on another engine
    DoubleBuffer,     // a loop's refill of its one buffer goes to a second buffer, issued at the loop's top
    RelaxWait,        // a sync.wait for a whole DMA becomes waits for each chunk just before its first use
    RebalanceEngines, // spread the dma.starts of a chip over its engines
    MachineParam,     // hardware what-if: change one machine-config value
    Regenerate,       // re-generate a generated kernel with one parameter changed (its tile size)
};
std::string_view changeKindName(ChangeKind kind);

struct Change
{
    ChangeKind kind = ChangeKind::HoistDma;
    std::vector<ChipId> chips;  // program changes apply to each of these chips (SPMD code: usually all)
    std::uint32_t pc = 0;       // HoistDma, SplitDma: the dma.start's bundle; RelaxWait: the sync.wait's
    std::uint32_t toPc = 0;     // HoistDma: the bundle it moves to
    bool newBundle = false;     // HoistDma: into a new bundle inserted before toPc (its misc slot is taken)
    int engine = 0;             // SplitDma, SplitRoute: the engine of the second part
    std::int64_t firstBytes = 0; // SplitRoute: bytes that keep the shortest route (whole chunks)
    std::vector<std::uint32_t> pcs;  // DoubleBuffer: the refilling dma.starts, one per loop;
                                     // RelaxWait: where the new waits go (before these bundles)
    std::vector<std::int64_t> targets; // RelaxWait: the flag value each new wait waits for
    std::uint64_t firstBuffer = 0;   // DoubleBuffer: VMEM address of the loops' buffer
    std::uint64_t secondBuffer = 0;  // DoubleBuffer: VMEM address of the second buffer
    int spareRegister = -1;          // DoubleBuffer: a scalar register the program never uses
    std::vector<std::pair<std::uint32_t, int>> engines; // RebalanceEngines: (pc, new engine)
    std::string param;          // MachineParam: key; Regenerate: the workload parameter
    std::string value;          // MachineParam, Regenerate: new value as text
    std::string describe() const; // one line, e.g. "move the dma.start at pc 12 to pc 4 (chips 0-3)"
};

enum class Severity : std::uint8_t { Low, Medium, High };
std::string_view severityName(Severity s);

struct Evidence
{
    std::vector<std::pair<ChipId, std::uint32_t>> pcs; // (chip, pc)
    std::vector<std::uint32_t> dmas;                // DMA ids
    std::uint64_t fromCycle = 0;
    std::uint64_t toCycle = 0;
};

struct Measurement
{
    enum class Verdict : std::uint8_t { Improves, NoGain, OutputsDiffer, Failed, Cancelled };
    Verdict verdict = Verdict::NoGain;
    std::uint64_t baselineCycles = 0;
    std::uint64_t newCycles = 0;
    double gainPercent = 0.0; // (baseline - new) / baseline x 100
    std::string detail;       // which output differs, or the replay's fault
};
std::string_view verdictName(Measurement::Verdict v);

struct Suggestion
{
    std::string id;   // stable within one analysis: "S1", "S2", ... in proposal order
    std::string kind; // "late-dma", "single-engine", "engine-imbalance", "hbm-bandwidth", ...
    Severity severity = Severity::Medium;
    std::string title;
    std::string explanation;
    bool whatIf = false; // a hardware what-if (capacity planning), not a change to the program
    std::uint64_t estimatedCycles = 0; // what the analysis expects to save (an upper bound)
    Evidence evidence;
    Change change;
    std::optional<Measurement> measured;
};

} // namespace xps::suggest
