#include "suggest/transform.h"

#include "isa/machine_config.h"
#include "suggest/program_edit.h"
#include "workloads/workloads.h"

#include <algorithm>
#include <cstdlib>

namespace xps::suggest {
namespace {

Error changeError(const Change& change, int chip, const std::string& what)
{
    return Error("", "cannot " + change.describe() + ": chip " + std::to_string(chip) + ": " + what);
}

Status hoist(trace::ChipTrace& chip, const Change& change)
{
    auto& bundles = chip.program.bundles;
    if (change.pc >= bundles.size() || change.toPc >= change.pc)
        return changeError(change, chip.chip, "pc out of range");
    isa::Bundle& from = bundles[change.pc];
    const int i = findInstruction(from, isa::Opcode::DmaStart);
    if (i < 0)
        return changeError(change, chip.chip, "no dma.start at pc " + std::to_string(change.pc));
    if (!change.newBundle && !slotFree(bundles[change.toPc], isa::SlotKind::Misc))
        return changeError(change, chip.chip, "the misc slot at pc " + std::to_string(change.toPc) + " is taken");
    const isa::Instruction insn = from.instructions[static_cast<std::size_t>(i)];
    from.instructions.erase(from.instructions.begin() + i);
    const bool emptied = from.instructions.empty();
    if (!change.newBundle) {
        bundles[change.toPc].instructions.push_back(insn); // misc is the last slot kind: slot order is kept
        if (emptied)
            removeBundle(chip, change.pc);
        return Ok{};
    }
    insertBundle(chip, change.toPc, isa::Bundle{{insn}});
    if (emptied)
        removeBundle(chip, change.pc + 1); // the old bundle moved one down
    return Ok{};
}

Status split(trace::ChipTrace& chip, const Change& change, const isa::MachineConfig& machine)
{
    auto& bundles = chip.program.bundles;
    if (change.pc >= bundles.size())
        return changeError(change, chip.chip, "pc out of range");
    const int i = findInstruction(bundles[change.pc], isa::Opcode::DmaStart);
    if (i < 0)
        return changeError(change, chip.chip, "no dma.start at pc " + std::to_string(change.pc));
    isa::Instruction& insn = bundles[change.pc].instructions[static_cast<std::size_t>(i)];
    using namespace dma_operand;
    const Result<std::int64_t> halfBytes = splitHalfBytes(insn, machine);
    if (!halfBytes.ok())
        return changeError(change, chip.chip, halfBytes.error().message());
    const std::int64_t half = halfBytes.value();
    isa::Instruction first = insn;
    first.operands[kBytes].value = half;
    insn.operands[kBytes].value = half;
    insn.operands[kDst].value += half;
    insn.operands[kSrc].value += half;
    insn.operands[kEngine] = isa::Operand::imm(change.engine);
    // The first half goes into a new bundle just before: it reads the same register values.
    insertBundle(chip, change.pc, isa::Bundle{{first}});
    return Ok{};
}

// The first `firstBytes` keep the shortest route; the rest leave from a new dma.start (same flag, so the
// receiver's chunk count is unchanged) that goes the long way round on another engine.
Status splitRoute(trace::ChipTrace& chip, const Change& change, const isa::MachineConfig& machine)
{
    auto& bundles = chip.program.bundles;
    if (change.pc >= bundles.size())
        return changeError(change, chip.chip, "pc out of range");
    const int i = findInstruction(bundles[change.pc], isa::Opcode::DmaStart);
    if (i < 0)
        return changeError(change, chip.chip, "no dma.start at pc " + std::to_string(change.pc));
    isa::Instruction& insn = bundles[change.pc].instructions[static_cast<std::size_t>(i)];
    using namespace dma_operand;
    if (!insn.operands[kChip].present())
        return changeError(change, chip.chip, "the dma.start is not a remote copy");
    const Result<std::int64_t> chunk = wholeChunkBytes(insn, machine);
    if (!chunk.ok())
        return changeError(change, chip.chip, chunk.error().message());
    const std::int64_t total = insn.operands[kBytes].value;
    if (change.firstBytes <= 0 || change.firstBytes >= total || change.firstBytes % chunk.value() != 0)
        return changeError(change, chip.chip, "the parts would not be whole chunks of " + std::to_string(chunk.value()) + " B");
    isa::Instruction first = insn;
    first.operands[kBytes].value = change.firstBytes;
    insn.operands[kBytes].value = total - change.firstBytes;
    insn.operands[kDst].value += change.firstBytes;
    insn.operands[kSrc].value += change.firstBytes;
    insn.operands[kEngine] = isa::Operand::imm(change.engine);
    insn.operands[kRoute] = isa::Operand::imm(1);
    insertBundle(chip, change.pc, isa::Bundle{{first}});
    return Ok{};
}

Status rebalance(trace::ChipTrace& chip, const Change& change)
{
    for (const auto& [pc, engine] : change.engines) {
        if (pc >= chip.program.bundles.size())
            return changeError(change, chip.chip, "pc out of range");
        const int i = findInstruction(chip.program.bundles[pc], isa::Opcode::DmaStart);
        if (i < 0)
            return changeError(change, chip.chip, "no dma.start at pc " + std::to_string(pc));
        chip.program.bundles[pc].instructions[static_cast<std::size_t>(i)].operands[dma_operand::kEngine] =
            isa::Operand::imm(engine);
    }
    return Ok{};
}

} // namespace

Result<std::int64_t> wholeChunkBytes(const isa::Instruction& insn, const isa::MachineConfig& machine)
{
    using namespace dma_operand;
    const isa::Operand& bytes = insn.operands[kBytes];
    const isa::Operand& rows = insn.operands[kRows];
    if (insn.opcode != isa::Opcode::DmaStart)
        return Error("", "not a dma.start");
    if (bytes.form != isa::Operand::Form::Imm)
        return Error("", "the byte count is a register");
    if (rows.present() && !(rows.form == isa::Operand::Form::Imm && rows.value == 1))
        return Error("", "a strided (multi-row) copy");
    if (insn.operands[kRoute].present() && insn.operands[kRoute].value != 0)
        return Error("", "already sent the long way round");
    return insn.operands[kChunk].present() && insn.operands[kChunk].value > 0 ? insn.operands[kChunk].value
                                                                              : machine.dmaChunkBytes;
}

Result<std::int64_t> splitHalfBytes(const isa::Instruction& insn, const isa::MachineConfig& machine)
{
    const Result<std::int64_t> whole = wholeChunkBytes(insn, machine);
    if (!whole.ok())
        return whole.error();
    const std::int64_t chunk = whole.value();
    const std::int64_t bytes = insn.operands[dma_operand::kBytes].value;
    const std::int64_t half = bytes / 2;
    // Each half must be whole chunks so the flag still advances by the same count in total.
    if (half <= 0 || bytes % 2 != 0 || half % chunk != 0)
        return Error("", "the halves would not be whole chunks of " + std::to_string(chunk) + " B");
    return half;
}

Result<trace::Trace> applyChange(const trace::Trace& trace, const Change& change)
{
    trace::Trace out = trace;
    if (change.kind == ChangeKind::Regenerate) {
        // The same workload, variant and parameters but one; the machine stays the trace's (a hardware
        // what-if applied before still holds).
        if (!trace.generatedBy)
            return Error("", "cannot " + change.describe() + ": the trace was not made by `xpushark-cli generate`");
        std::map<std::string, std::int64_t> params = trace.generatedBy->params;
        char* end = nullptr;
        params[change.param] = std::strtoll(change.value.c_str(), &end, 10);
        if (change.value.empty() || *end != '\0')
            return Error("", "cannot " + change.describe() + ": not a whole number");
        auto regenerated = workloads::generate(trace.generatedBy->workload, trace.generatedBy->variant, params);
        if (!regenerated)
            return Error("", "cannot " + change.describe() + ": " + regenerated.error().message());
        regenerated.value().machine = trace.machine;
        regenerated.value().name = trace.name;
        return regenerated;
    }
    if (change.kind == ChangeKind::MachineParam) {
        if (Status s = isa::setMachineParam(out.machine, change.param, change.value); !s.ok())
            return s.error();
        return out;
    }
    for (int c : change.chips) {
        if (c < 0 || static_cast<std::size_t>(c) >= out.chips.size())
            return changeError(change, c, "no such chip");
        trace::ChipTrace& chip = out.chips[static_cast<std::size_t>(c)];
        Status s = change.kind == ChangeKind::HoistDma     ? hoist(chip, change)
                   : change.kind == ChangeKind::SplitDma   ? split(chip, change, out.machine)
                   : change.kind == ChangeKind::SplitRoute ? splitRoute(chip, change, out.machine)
                                                           : rebalance(chip, change);
        if (!s.ok())
            return s.error();
    }
    // Recorded hardware timing belongs to the original program.
    out.recorded.reset();
    return out;
}

} // namespace xps::suggest
