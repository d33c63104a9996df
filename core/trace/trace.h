#pragma once
// A recorded trace: the machine, and per chip the program, its symbols, the state it starts from and the
// buffers that hold its results; optionally the hardware timing that was recorded alongside.
// This is the in-memory model; trace_json.h and trace_container.h read and write it.

#include "isa/chip_id.h"
#include "isa/machine_config.h"
#include "isa/program.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace xps::trace {

inline constexpr int kFormatVersion = 1;

struct Buffer
{
    std::string name;
    isa::Space space = isa::Space::Vmem;
    std::uint64_t address = 0;
    std::uint64_t size = 0;
    std::string dtype;               // "f32", "s32", "u8", ... free text for display; empty if unknown
    std::vector<std::int64_t> shape; // empty if unknown
    std::string aliasOf;             // name of a buffer this one deliberately overlaps
    bool operator==(const Buffer&) const = default;
};

struct RegionSymbol
{
    std::string name;
    std::string level; // "layer", "op", "loop" or empty: the framework level the region stands for
    bool operator==(const RegionSymbol&) const = default;
};

struct Label
{
    std::string name;
    std::uint32_t pc = 0;
    bool operator==(const Label&) const = default;
};

// The program's source line for the bundles from `pc` on, until the next entry.
struct SourceLine
{
    std::uint32_t pc = 0;
    std::string file;
    std::uint32_t line = 0;
    bool operator==(const SourceLine&) const = default;
};

struct SymbolTable
{
    std::vector<Buffer> buffers;
    std::vector<RegionSymbol> regions; // region.begin operands index into this
    std::vector<Label> labels;         // sorted by pc
    std::vector<SourceLine> sourceLines;
    bool operator==(const SymbolTable&) const = default;

    const Buffer* findBuffer(std::string_view name) const;
    int findRegion(std::string_view name) const; // -1 if absent
};

// A deterministic generator: the GRM materialises its bytes on demand, so a trace can describe gigabytes of
// input without carrying them.
struct Generator
{
    // RandomF16 and RandomBF16 write 2-byte elements (the f16 or bf16 nearest a uniform draw); the rest 4.
    enum class Kind : std::uint8_t {
        Zero,
        ConstU32,
        ConstF32,
        RandomF32,
        RandomU32,
        IotaS32,
        RandomF16,
        RandomBF16,
        RandomS32 // uniform integers from lo to hi, both included (a and b hold them)
    };
    Kind kind = Kind::Zero;
    std::uint64_t seed = 0; // Random*
    double a = 0.0;         // ConstF32 value; RandomF32/F16/BF16/S32 lower bound
    double b = 0.0;         // RandomF32/F16/BF16/S32 upper bound
    std::uint32_t bits = 0; // ConstU32 value
    bool operator==(const Generator&) const = default;
};
std::string_view generatorKindName(Generator::Kind kind);
// A generator of uniform floats between lo and hi (random_f32, random_f16, random_bf16).
inline bool isRandomFloat(Generator::Kind kind)
{
    return kind == Generator::Kind::RandomF32 || kind == Generator::Kind::RandomF16 ||
           kind == Generator::Kind::RandomBF16;
}
std::optional<Generator::Kind> generatorKindFromName(std::string_view name);

// Where initial bytes come from: literal data (inline in JSON, a blob in the container) or a generator.
struct Payload
{
    bool isGenerator = false;
    Generator generator;
    std::vector<std::uint8_t> bytes; // when !isGenerator; size equals the region size
    bool operator==(const Payload&) const = default;
};

struct MemoryInit
{
    isa::Space space = isa::Space::Hbm;
    std::uint64_t address = 0;
    std::uint64_t size = 0;
    Payload payload;
    bool operator==(const MemoryInit&) const = default;
};

struct InitialState
{
    std::map<int, std::uint32_t> scalarRegisters; // register -> value; others start uninitialised
    std::map<int, Payload> vectorRegisters;       // register -> 4 KiB
    std::map<int, std::uint32_t> flags;           // flag -> value; others start at 0
    std::vector<MemoryInit> memory;
    bool operator==(const InitialState&) const = default;
};

struct ChipTrace
{
    ChipId chip = ChipId(0);
    isa::Program program;
    SymbolTable symbols;
    InitialState initial;
    std::vector<std::string> outputs; // buffer names whose final contents are the chip's results
    bool operator==(const ChipTrace&) const = default;
};

// Hardware timing recorded with the trace, to compare the replay against.
struct RecordedRegion
{
    ChipId chip = ChipId(0);
    std::string region;
    std::uint64_t instance = 0; // n-th execution of the region on that chip
    std::uint64_t cycles = 0;
    bool operator==(const RecordedRegion&) const = default;
};
struct RecordedSample
{
    ChipId chip = ChipId(0);
    std::uint32_t pc = 0;
    std::uint64_t cycle = 0;
    bool operator==(const RecordedSample&) const = default;
};
struct RecordedTiming
{
    std::vector<RecordedRegion> regions;
    std::vector<RecordedSample> samples;
    bool operator==(const RecordedTiming&) const = default;
};

// How a trace was generated (`xpushark-cli generate`): the workload, its variant and every parameter.
// A what-if can re-instantiate the kernel with one parameter changed (a tile size) and compare.
struct GeneratedBy
{
    std::string workload;
    std::string variant;
    std::map<std::string, std::int64_t> params;
    bool operator==(const GeneratedBy&) const = default;
};

struct Trace
{
    std::string name; // free text shown in titles and reports
    std::optional<GeneratedBy> generatedBy;
    isa::MachineConfig machine;
    std::vector<ChipTrace> chips; // chips[i].chip == i
    std::optional<RecordedTiming> recorded;
    bool operator==(const Trace&) const = default;

    std::uint64_t snapshotBytes() const; // literal initial bytes (not generators) over all chips
};

} // namespace xps::trace
