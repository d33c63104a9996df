#pragma once
// The machine configuration: every size, latency, bandwidth and the clock of an xpu-v1 system.
// Each parameter is described once in a table (key, unit, range, default, public source); JSON I/O,
// validation, `xpushark-cli isa --config-table` and the check on docs/isa.md all read that table.

#include "isa/isa.h"
#include "util/result.h"

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace xps::isa {

// Bounds on products of parameters, each of which is bounded alone (the GRM keeps ~40 bytes per chip x flag
// and a queue per chip x engine): 4 M flags and 64 Ki queues are far above any real system.
inline constexpr std::int64_t kMaxSystemSyncFlags = std::int64_t{1} << 22;
inline constexpr std::int64_t kMaxSystemDmaEngines = std::int64_t{1} << 16;

enum class Topology : std::uint8_t { Ring, Torus2d };

struct MachineConfig
{
    // system
    std::int64_t chips = 1;
    Topology topology = Topology::Ring;
    std::int64_t torusWidth = 2; // torus2d only: chips per row
    double clockMhz = 1050.0;
    // memories
    std::int64_t vmemBytes = 32ll << 20;
    std::int64_t smemBytes = 16ll << 10;
    std::int64_t hbmBytes = 32ll << 30;
    std::int64_t imemBundles = 65536;
    std::int64_t syncFlags = 64;
    std::int64_t vmemAlignment = 512;
    // The largest entry parameter read only by dot_generals that the compiler keeps in VMEM from one run of
    // the program to the next (XLA's cross-program prefetch); 0: none.
    std::int64_t crossProgramPrefetchBytes = 0;
    // scalar and vector latencies (cycles)
    std::int64_t latScalarAlu = 1;
    std::int64_t latScalarMul = 3;
    std::int64_t latSmemLoad = 3;
    std::int64_t latBranchTaken = 2;
    std::int64_t latVectorAlu = 2;
    std::int64_t latVectorFma = 4;
    std::int64_t latTranscendental = 16;
    std::int64_t occTranscendental = 4;
    std::int64_t latVectorLoad = 4;
    std::int64_t latVectorStore = 1;
    std::int64_t latXlu = 8;
    std::int64_t occXlu = 2;
    std::int64_t latSync = 1;
    // MXU
    std::int64_t latMxuWpush = 8;
    std::int64_t occMxuWpush = 8;
    std::int64_t latMxuWcommit = 4;
    std::int64_t occMxuWcommit = 4;
    std::int64_t latMxuMatmul = 136;
    std::int64_t occMxuMatmul = 8;
    std::int64_t latMxuPop = 1;
    std::int64_t mxuResultFifoDepth = 16;
    std::int64_t mxuCount = 1; // MXUs per core, each with its own weights, FIFO and occupancy
    std::int64_t mxuF16 = 0;   // 1: the MXU takes packed f16 operands (fmt=1)
    std::int64_t mxuBf16 = 0;  // 1: the MXU takes packed bf16 operands (fmt=2)
    // DMA and interconnect
    std::int64_t dmaEngines = 4;
    std::int64_t dmaQueueDepth = 16;
    std::int64_t dmaSetupCycles = 64;
    std::int64_t dmaPrefetchDescriptors = 0;
    std::int64_t dmaCompletionCycles = 0;
    std::int64_t dmaChunkBytes = 8192;
    double dmaEnginePeakGBs = 600.0;
    double hbmBandwidthGBs = 1200.0;
    double vmemDmaBandwidthGBs = 2400.0;
    double convertGBs = 2400.0;     // per chip, 2-byte-side bytes of an f16 DMA conversion (cvt=1, 3)
    double convertBf16GBs = 2400.0; // the same for bf16 (cvt=2, 4)
    double iciLinkGBs = 45.0;
    std::int64_t iciLatencyCycles = 1050;

    // Keys whose value differs from the xpu-v1 default: reports and disassembly show them.
    std::set<std::string> overridden;

    // Derived values used by the timing model.
    double bytesPerCycle(double gigabytesPerSecond) const { return gigabytesPerSecond * 1000.0 / clockMhz; }
    double cyclesToMicroseconds(double cycles) const { return cycles / clockMhz; }

    bool operator==(const MachineConfig& other) const;
};

struct ConfigParam
{
    std::string_view key;
    std::string_view group;
    std::string_view unit;
    std::string_view description;
    std::string_view source; // where the default comes from
    double minimum;
    double maximum;
};
std::span<const ConfigParam> configParams();

// Reads a JSON object of parameters; unknown keys, wrong types and out-of-range values are errors that
// name `jsonPath` + the key. Keys not given keep their defaults.
Result<MachineConfig> machineConfigFromJson(const nlohmann::json& json, std::string_view location,
                                            std::string_view jsonPath);
// Sets one parameter from text ("vmem_bytes", "16777216"), as the assembler's `.machine` directive does.
Status setMachineParam(MachineConfig& config, std::string_view key, std::string_view valueText);
nlohmann::json machineConfigToJson(const MachineConfig& config);
// The value of a parameter as text ("1050", "ring"), for reports and docs.
std::string machineParamText(const MachineConfig& config, std::string_view key);
// The numeric value of a parameter by key (the GRM looks latencies up by an opcode's latency key).
std::int64_t machineParamInt(const MachineConfig& config, std::string_view key);

struct Instruction; // isa/program.h

// Every opcode's latency and occupancy on one machine, looked up once (machineParamInt finds a parameter by
// its key, which for each of a model's millions of instructions cost more than the rest of decoding it).
// The one definition the GRM's issue model, the StableHLO packer and the unit-activity analyses share.
class OpcodeCycles
{
public:
    explicit OpcodeCycles(const MachineConfig& config);
    // The opcode's latency parameter, 1 when it names none.
    int latency(Opcode op) const { return m_latency[static_cast<std::size_t>(op)]; }
    // Cycles an instruction keeps its unit busy: its opcode's occupancy parameter (0: it names none, the
    // unit is pipelined), twice that for an mxu.mm of 16 packed rows (fmt=: occupancyMultiple).
    int occupancy(const Instruction& insn) const;
    int occupancy(Opcode op) const { return m_occupancy[static_cast<std::size_t>(op)]; }

private:
    std::array<int, kOpcodeCount> m_latency{};
    std::array<int, kOpcodeCount> m_occupancy{};
};

std::string_view topologyName(Topology t);

} // namespace xps::isa
