#include "isa/machine_config.h"

#include "isa/isa.h"
#include "isa/program.h"

#include "util/text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <variant>
#include <vector>

namespace xps::isa {
namespace {

using IntField = std::int64_t MachineConfig::*;
using RealField = double MachineConfig::*;
using TopologyField = Topology MachineConfig::*;
using Field = std::variant<IntField, RealField, TopologyField>;

constexpr std::string_view kAssumption = "xpu-v1 modelling assumption; set your chip's value";
constexpr std::string_view kCloudTpuV4 = "Cloud TPU v4 documentation (docs.cloud.google.com/tpu/docs/v4): 32 "
                                         "GiB HBM2 at 1200 GBps, 275 TFLOP/s per chip";

struct Row
{
    ConfigParam param;
    Field field;
};

// One row per opcode/parameter, so the table reads like the spec.
// clang-format off
const std::array kRows = {
    Row{{"chips", "system", "chips", "number of chips, one core each", "default single chip", 1, 4096}, &MachineConfig::chips},
    Row{{"topology", "system", "", "ICI topology: ring (each chip links to its two neighbours) or torus2d", kAssumption, 0, 0}, &MachineConfig::topology},
    Row{{"torus_width", "system", "chips", "torus2d only: chips per row; chips must be a multiple of it", kAssumption, 1, 4096}, &MachineConfig::torusWidth},
    Row{{"clock_mhz", "system", "MHz", "core clock; converts cycles to time and GB/s to bytes per cycle",
         "TPU v4: 275 TFLOP/s = 2 cores x 4 MXUs x 128 x 128 MACs x 2 FLOP x 1.05 GHz (Cloud TPU v4 documentation)", 1, 100000}, &MachineConfig::clockMhz},
    Row{{"vmem_bytes", "memory", "bytes", "on-chip vector memory (VMEM) per core", "brief: tens of MiB; " "xpu-v1 modelling assumption", 4096, 1ll << 32}, &MachineConfig::vmemBytes},
    Row{{"smem_bytes", "memory", "bytes", "scalar memory (SMEM) per core", kAssumption, 4, 1ll << 30}, &MachineConfig::smemBytes},
    Row{{"hbm_bytes", "memory", "bytes", "HBM per chip; the GRM materialises only touched pages", kCloudTpuV4, 4096, 1ll << 44}, &MachineConfig::hbmBytes},
    Row{{"imem_bundles", "memory", "bundles", "instruction memory: the longest program a core holds", kAssumption, 1, 1 << 24}, &MachineConfig::imemBundles},
    Row{{"sync_flags", "memory", "flags", "sync flags (32-bit counters) per chip", kAssumption, 1, 65536}, &MachineConfig::syncFlags},
    Row{{"vmem_alignment", "memory", "bytes", "alignment of vector loads and stores (one 128-lane row of 32-bit words = 512 B)", kAssumption, 4, 1 << 20}, &MachineConfig::vmemAlignment},

    Row{{"cross_program_prefetch_bytes", "memory", "bytes", "the largest entry parameter read only by dot_generals that the compiler keeps in VMEM from one run of the program to the next (XLA's cross-program prefetch: its copy into VMEM is an op of its own, outside the dots' time); 0: none",
         "xpu-v1: none (TPU v4: 16 MiB, one TensorCore's VMEM: JAX's Pallas TPU hardware reference)", 0, 1ll << 32}, &MachineConfig::crossProgramPrefetchBytes},

    Row{{"lat_scalar_alu", "latency", "cycles", "scalar ALU result latency (also SMEM store)", kAssumption, 1, 1 << 20}, &MachineConfig::latScalarAlu},
    Row{{"lat_scalar_mul", "latency", "cycles", "scalar multiply result latency", kAssumption, 1, 1 << 20}, &MachineConfig::latScalarMul},
    Row{{"lat_smem_load", "latency", "cycles", "SMEM load result latency", kAssumption, 1, 1 << 20}, &MachineConfig::latSmemLoad},
    Row{{"lat_branch_taken", "latency", "cycles", "issue bubble after a taken branch", kAssumption, 0, 1 << 20}, &MachineConfig::latBranchTaken},
    Row{{"lat_vector_alu", "latency", "cycles", "vector ALU result latency", kAssumption, 1, 1 << 20}, &MachineConfig::latVectorAlu},
    Row{{"lat_vector_fma", "latency", "cycles", "vector fused multiply-add result latency", kAssumption, 1, 1 << 20}, &MachineConfig::latVectorFma},
    Row{{"lat_transcendental", "latency", "cycles", "transcendental unit (exp, log, rcp, rsqrt, tanh) result latency", kAssumption, 1, 1 << 20}, &MachineConfig::latTranscendental},
    Row{{"occ_transcendental", "occupancy", "cycles", "cycles the transcendental unit is busy per instruction", kAssumption, 1, 1 << 20}, &MachineConfig::occTranscendental},
    Row{{"lat_vector_load", "latency", "cycles", "VMEM vector load result latency", kAssumption, 1, 1 << 20}, &MachineConfig::latVectorLoad},
    Row{{"lat_vector_store", "latency", "cycles", "VMEM vector store latency until the data is visible", kAssumption, 1, 1 << 20}, &MachineConfig::latVectorStore},
    Row{{"lat_xlu", "latency", "cycles", "cross-lane unit result latency", kAssumption, 1, 1 << 20}, &MachineConfig::latXlu},
    Row{{"occ_xlu", "occupancy", "cycles", "cycles the cross-lane unit is busy per instruction", kAssumption, 1, 1 << 20}, &MachineConfig::occXlu},
    Row{{"lat_sync", "latency", "cycles", "sync flag operation latency", kAssumption, 1, 1 << 20}, &MachineConfig::latSync},

    Row{{"lat_mxu_wpush", "mxu", "cycles", "weight push latency", kAssumption, 1, 1 << 20}, &MachineConfig::latMxuWpush},
    Row{{"occ_mxu_wpush", "mxu", "cycles", "cycles a weight push occupies the weight path (8 rows, one per cycle)", kAssumption, 1, 1 << 20}, &MachineConfig::occMxuWpush},
    Row{{"lat_mxu_wcommit", "mxu", "cycles", "latency until committed weights are active", kAssumption, 1, 1 << 20}, &MachineConfig::latMxuWcommit},
    Row{{"occ_mxu_wcommit", "mxu", "cycles", "cycles a commit occupies the weight path", kAssumption, 1, 1 << 20}, &MachineConfig::occMxuWcommit},
    Row{{"lat_mxu_matmul", "mxu", "cycles", "cycles from mxu.mm issue to its result entering the FIFO",
         "systolic 128 x 128 array: 128 cycles of pipeline fill plus 8 streamed rows, as in SCALE-Sim's cycle model", 1, 1 << 20}, &MachineConfig::latMxuMatmul},
    Row{{"occ_mxu_matmul", "mxu", "cycles", "cycles an mxu.mm occupies the LHS stream (8 rows, one per cycle)", kAssumption, 1, 1 << 20}, &MachineConfig::occMxuMatmul},
    Row{{"lat_mxu_pop", "mxu", "cycles", "result pop latency", kAssumption, 1, 1 << 20}, &MachineConfig::latMxuPop},
    Row{{"mxu_result_fifo_depth", "mxu", "entries", "results (8 x 128 each) the MXU result FIFO holds; mxu.mm stalls when full", kAssumption, 1, 4096}, &MachineConfig::mxuResultFifoDepth},
    Row{{"mxu_count", "mxu", "MXUs", "matrix units per core, each with its own staged and active weights, result FIFO and occupancy; an mxu.* instruction names one with mxu=", "xpu-v1: one MXU (TPU v4 has 4 per TensorCore and 2 TensorCores a chip, which JAX runs as one device, megacore: Cloud TPU v4 documentation)", 1, kMaxMxus}, &MachineConfig::mxuCount},
    Row{{"mxu_bf16", "mxu", "0/1", "1: the MXU takes bf16 operands packed two to a lane, 16 rows a register (fmt=2 on mxu.wpush, mxu.wpush.t and mxu.mm), so they stay 2 bytes in VMEM", "xpu-v1: f32 operands only (a TPU's MXUs take bf16 inputs and accumulate in f32: Cloud TPU system architecture documentation)", 0, 1}, &MachineConfig::mxuBf16},
    Row{{"mxu_f16", "mxu", "0/1", "1: the MXU takes f16 operands packed two to a lane (fmt=1)", "xpu-v1: f32 operands only (a TPU's MXUs take no f16: XLA computes f16 in f32)", 0, 1}, &MachineConfig::mxuF16},

    Row{{"dma_engines", "dma", "engines", "DMA engines (independent FIFO queues) per chip", kAssumption, 1, 256}, &MachineConfig::dmaEngines},
    Row{{"dma_queue_depth", "dma", "descriptors", "descriptors an engine's queue holds; dma.start stalls when full", kAssumption, 1, 65536}, &MachineConfig::dmaQueueDepth},
    Row{{"dma_setup_cycles", "dma", "cycles", "from a descriptor's setup starting (when it reaches the head of its engine's queue, or the prefetch window) to its first byte moving", kAssumption, 0, 1 << 24}, &MachineConfig::dmaSetupCycles},
    Row{{"dma_prefetch_descriptors", "dma", "descriptors", "descriptors behind the head of an engine's queue whose setup runs while the head moves bytes (0: a setup holds the engine)", kAssumption, 0, 65536}, &MachineConfig::dmaPrefetchDescriptors},
    Row{{"dma_completion_cycles", "dma", "cycles", "from a DMA chunk's last byte to its sync flag's increment (the completion's round trip); unlike setup it does not hold the engine", kAssumption, 0, 1 << 24}, &MachineConfig::dmaCompletionCycles},
    Row{{"dma_chunk_bytes", "dma", "bytes", "default chunk: the flag advances by one per chunk completed", kAssumption, 4, 1ll << 31}, &MachineConfig::dmaChunkBytes},
    Row{{"dma_engine_peak_gbs", "dma", "GB/s", "peak bandwidth of one engine", kAssumption, 0.001, 1e6}, &MachineConfig::dmaEnginePeakGBs},
    Row{{"hbm_bandwidth_gbs", "dma", "GB/s", "HBM bandwidth, shared by all transfers touching HBM", kCloudTpuV4, 0.001, 1e6}, &MachineConfig::hbmBandwidthGBs},
    Row{{"vmem_dma_bandwidth_gbs", "dma", "GB/s", "VMEM-to-VMEM DMA bandwidth", kAssumption, 0.001, 1e6}, &MachineConfig::vmemDmaBandwidthGBs},
    Row{{"convert_gbs", "dma", "GB/s", "rate at which a chip widens or narrows f16 elements (dma.start cvt=1, 3), in bytes of the 2-byte side, shared by every converting copy: the conversion work a chip does on its vector unit", kAssumption, 0.001, 1e6}, &MachineConfig::convertGBs},
    Row{{"convert_bf16_gbs", "dma", "GB/s", "the same for bf16 elements (cvt=2, 4); a chip whose vector unit packs and unpacks bf16 as it loads and stores (bf16 its native type) sets it above every engine's rate", kAssumption, 0.001, 1e6}, &MachineConfig::convertBf16GBs},
    Row{{"ici_link_gbs", "ici", "GB/s", "bandwidth of one ICI link, per direction", kAssumption, 0.001, 1e6}, &MachineConfig::iciLinkGBs},
    Row{{"ici_latency_cycles", "ici", "cycles", "latency of one ICI hop", kAssumption, 0, 1 << 24}, &MachineConfig::iciLatencyCycles},
};
// clang-format on

const Row* findRow(std::string_view key)
{
    for (const Row& r : kRows)
        if (r.param.key == key)
            return &r;
    return nullptr;
}

std::vector<std::string_view> allKeys()
{
    std::vector<std::string_view> keys;
    for (const Row& r : kRows)
        keys.push_back(r.param.key);
    return keys;
}

std::string unknownKeyMessage(std::string_view key)
{
    std::string message = "unknown machine parameter '" + std::string(key) + "'";
    const auto keys = allKeys();
    const std::string guess = text::nearest(key, keys);
    if (!guess.empty())
        message += "; did you mean '" + guess + "'?";
    return message;
}

std::string rangeMessage(const ConfigParam& p)
{
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "expected a number from %.17g to %.17g (%s)", p.minimum, p.maximum,
                  std::string(p.unit).c_str());
    return buffer;
}

std::optional<Topology> topologyFromName(std::string_view name)
{
    if (name == "ring")
        return Topology::Ring;
    if (name == "torus2d")
        return Topology::Torus2d;
    return std::nullopt;
}

// Sets one field; returns an empty string or the reason it was refused.
std::string assign(MachineConfig& config, const Row& row, const nlohmann::json& value)
{
    const ConfigParam& p = row.param;
    if (std::holds_alternative<TopologyField>(row.field)) {
        const auto t =
            value.is_string() ? topologyFromName(value.get_ref<const std::string&>()) : std::nullopt;
        if (!t)
            return "expected \"ring\" or \"torus2d\"";
        config.*std::get<TopologyField>(row.field) = *t;
        return {};
    }
    if (!value.is_number())
        return "expected a number";
    const double v = value.get<double>();
    if (!(v >= p.minimum && v <= p.maximum))
        return rangeMessage(p);
    if (std::holds_alternative<IntField>(row.field)) {
        if (!value.is_number_integer())
            return "expected a whole number";
        config.*std::get<IntField>(row.field) = value.get<std::int64_t>();
    } else {
        config.*std::get<RealField>(row.field) = v;
    }
    return {};
}

// Traces store every parameter (so a replay never depends on this build's defaults); `overridden` lists
// those that differ from the defaults, which is what reports and `.machine` lines need to show.
void noteOverride(MachineConfig& config, const Row& row)
{
    static const MachineConfig defaults;
    const bool differs =
        std::visit([&](auto field) { return !(config.*field == defaults.*field); }, row.field);
    if (differs)
        config.overridden.insert(std::string(row.param.key));
    else
        config.overridden.erase(std::string(row.param.key));
}

std::string crossCheck(const MachineConfig& c)
{
    if (c.topology == Topology::Torus2d && c.chips % c.torusWidth != 0)
        return "chips (" + std::to_string(c.chips) + ") must be a multiple of torus_width (" +
               std::to_string(c.torusWidth) + ")";
    if ((c.vmemAlignment & (c.vmemAlignment - 1)) != 0)
        return "vmem_alignment must be a power of two";
    if (c.vmemBytes % c.vmemAlignment != 0)
        return "vmem_bytes must be a multiple of vmem_alignment";
    // Each value is bounded alone, but the GRM keeps state per chip x flag and per chip x engine: bound the
    // products too, so a 47-byte program cannot ask for gigabytes (docs/grm.md, "Limits").
    const auto chips = static_cast<std::int64_t>(c.chips);
    if (chips * c.syncFlags > kMaxSystemSyncFlags)
        return "chips x sync_flags (" + std::to_string(chips) + " x " + std::to_string(c.syncFlags) + " = " +
               std::to_string(chips * c.syncFlags) + ") exceeds " + std::to_string(kMaxSystemSyncFlags) +
               ", the most flags a replay keeps state for";
    if (chips * c.dmaEngines > kMaxSystemDmaEngines)
        return "chips x dma_engines (" + std::to_string(chips * c.dmaEngines) + ") exceeds " +
               std::to_string(kMaxSystemDmaEngines) + ", the most DMA queues a replay keeps";
    return {};
}

} // namespace

std::span<const ConfigParam> configParams()
{
    static const std::vector<ConfigParam> params = [] {
        std::vector<ConfigParam> v;
        for (const Row& r : kRows)
            v.push_back(r.param);
        return v;
    }();
    return params;
}

bool MachineConfig::operator==(const MachineConfig& other) const
{
    // `overridden` records provenance, not the machine: two configs with equal values are the same machine.
    for (const Row& r : kRows) {
        const bool same = std::visit([&](auto field) { return this->*field == other.*field; }, r.field);
        if (!same)
            return false;
    }
    return true;
}

Result<MachineConfig> machineConfigFromJson(const nlohmann::json& json, std::string_view location,
                                            std::string_view jsonPath)
{
    if (!json.is_object())
        return Error(std::string(location),
                     std::string(jsonPath) + ": expected an object of machine parameters");
    MachineConfig config;
    for (const auto& [key, value] : json.items()) {
        const std::string path = std::string(jsonPath) + "." + key;
        const Row* row = findRow(key);
        if (!row)
            return Error(std::string(location), path + ": " + unknownKeyMessage(key));
        if (std::string why = assign(config, *row, value); !why.empty())
            return Error(std::string(location), path + ": " + why);
        noteOverride(config, *row);
    }
    if (std::string why = crossCheck(config); !why.empty())
        return Error(std::string(location), std::string(jsonPath) + ": " + why);
    return config;
}

Status setMachineParam(MachineConfig& config, std::string_view key, std::string_view valueText)
{
    const Row* row = findRow(key);
    if (!row)
        return Error({}, unknownKeyMessage(key));
    nlohmann::json value = nlohmann::json::parse(valueText, nullptr, false);
    if (value.is_discarded())
        value = std::string(valueText); // bare words such as torus2d
    if (std::string why = assign(config, *row, value); !why.empty())
        return Error({}, std::string(key) + ": " + why);
    if (std::string why = crossCheck(config); !why.empty())
        return Error({}, why);
    noteOverride(config, *row);
    return Ok{};
}

nlohmann::json machineConfigToJson(const MachineConfig& config)
{
    nlohmann::json j = nlohmann::json::object();
    for (const Row& r : kRows) {
        std::visit(
            [&](auto field) {
                using T = std::decay_t<decltype(config.*field)>;
                if constexpr (std::is_same_v<T, Topology>)
                    j[std::string(r.param.key)] = std::string(topologyName(config.*field));
                else
                    j[std::string(r.param.key)] = config.*field;
            },
            r.field);
    }
    return j;
}

std::string machineParamText(const MachineConfig& config, std::string_view key)
{
    const Row* row = findRow(key);
    if (!row)
        return {};
    return std::visit(
        [&](auto field) -> std::string {
            using T = std::decay_t<decltype(config.*field)>;
            if constexpr (std::is_same_v<T, Topology>) {
                return std::string(topologyName(config.*field));
            } else if constexpr (std::is_same_v<T, double>) {
                char buffer[32];
                std::snprintf(buffer, sizeof buffer, "%g", config.*field);
                return buffer;
            } else {
                return std::to_string(config.*field);
            }
        },
        row->field);
}

std::int64_t machineParamInt(const MachineConfig& config, std::string_view key)
{
    const Row* row = findRow(key);
    if (!row || !std::holds_alternative<IntField>(row->field))
        return 0;
    return config.*std::get<IntField>(row->field);
}

OpcodeCycles::OpcodeCycles(const MachineConfig& config)
{
    for (int op = 0; op < kOpcodeCount; ++op) {
        const OpcodeInfo& info = isa::info(static_cast<Opcode>(op));
        const auto i = static_cast<std::size_t>(op);
        m_latency[i] =
            info.latencyParam.empty() ? 1 : static_cast<int>(machineParamInt(config, info.latencyParam));
        m_occupancy[i] =
            info.occupancyParam.empty() ? 0 : static_cast<int>(machineParamInt(config, info.occupancyParam));
    }
}

int OpcodeCycles::occupancy(const Instruction& insn) const
{
    return occupancy(insn.opcode) * occupancyMultiple(insn);
}

std::string_view topologyName(Topology t)
{
    return t == Topology::Ring ? "ring" : "torus2d";
}

} // namespace xps::isa
