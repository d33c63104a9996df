#include "suggest/transform.h"

#include "isa/machine_config.h"
#include "isa/register_use.h"
#include "suggest/program_edit.h"
#include "workloads/workloads.h"

#include <algorithm>
#include <cstdlib>

namespace xps::suggest {
namespace {

Error changeError(const Change& change, ChipId chip, const std::string& what)
{
    return Error("", "cannot " + change.describe() + ": chip " + std::to_string(chip.value) + ": " + what);
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

// The dma.start in the bundle at `pc`, or why there is none.
Result<isa::Instruction*> dmaStartAt(trace::ChipTrace& chip, const Change& change, std::uint32_t pc)
{
    auto& bundles = chip.program.bundles;
    if (pc >= bundles.size())
        return changeError(change, chip.chip, "pc out of range");
    const int i = findInstruction(bundles[pc], isa::Opcode::DmaStart);
    if (i < 0)
        return changeError(change, chip.chip, "no dma.start at pc " + std::to_string(pc));
    return &bundles[pc].instructions[static_cast<std::size_t>(i)];
}

// Cuts the dma.start `insn` (in the bundle at `pc`) after `firstBytes`: the first part goes into a new
// bundle just before (it reads the same register values), the rest stays, moved on by `firstBytes`, on
// `engine` and, with `longWay`, routed the long way round.
void cutDma(trace::ChipTrace& chip, std::uint32_t pc, isa::Instruction& insn, std::int64_t firstBytes, int engine, bool longWay)
{
    using namespace dma_operand;
    isa::Instruction first = insn;
    first.operands[kBytes].value = firstBytes;
    insn.operands[kBytes].value -= firstBytes;
    insn.operands[kDst].value += convertedBytes(insn, firstBytes);
    insn.operands[kSrc].value += firstBytes;
    insn.operands[kEngine] = isa::Operand::imm(engine);
    if (longWay)
        insn.operands[kRoute] = isa::Operand::imm(1);
    insertBundle(chip, pc, isa::Bundle{{first}}); // (moves `insn`: not used after this)
}

Status split(trace::ChipTrace& chip, const Change& change, const isa::MachineConfig& machine)
{
    const Result<isa::Instruction*> found = dmaStartAt(chip, change, change.pc);
    if (!found.ok())
        return found.error();
    const Result<std::int64_t> halfBytes = splitHalfBytes(*found.value(), machine);
    if (!halfBytes.ok())
        return changeError(change, chip.chip, halfBytes.error().message());
    cutDma(chip, change.pc, *found.value(), halfBytes.value(), change.engine, false);
    return Ok{};
}

// The first `firstBytes` keep the shortest route; the rest leave from a new dma.start (same flag, so the
// receiver's chunk count is unchanged) that goes the long way round on another engine.
Status splitRoute(trace::ChipTrace& chip, const Change& change, const isa::MachineConfig& machine)
{
    const Result<isa::Instruction*> found = dmaStartAt(chip, change, change.pc);
    if (!found.ok())
        return found.error();
    isa::Instruction& insn = *found.value();
    using namespace dma_operand;
    if (!insn.operands[kChip].present())
        return changeError(change, chip.chip, "the dma.start is not a remote copy");
    const Result<std::int64_t> chunk = wholeChunkBytes(insn, machine);
    if (!chunk.ok())
        return changeError(change, chip.chip, chunk.error().message());
    const std::int64_t total = insn.operands[kBytes].value;
    if (change.firstBytes <= 0 || change.firstBytes >= total || change.firstBytes % chunk.value() != 0)
        return changeError(change, chip.chip, "the parts would not be whole chunks of " + std::to_string(chunk.value()) + " B");
    cutDma(chip, change.pc, insn, change.firstBytes, change.engine, true);
    return Ok{};
}

isa::Instruction scalarXor(int rd, int ra, std::int64_t imm)
{
    isa::Instruction x;
    x.opcode = isa::Opcode::SXor;
    x.operands[0] = isa::Operand::sreg(rd);
    x.operands[1] = isa::Operand::sreg(ra);
    x.operands[2] = isa::Operand::imm(imm);
    return x;
}

// One loop: its refill (the dma.start at `pc`, writing [r + offset]) moves to the loop's top and writes
// the other buffer, [spare + offset] with spare = r ^ swap; r ^= swap just before the closing branch, so
// the next iteration reads what was fetched. Checked: the loop is one basic block and nothing in it writes
// r; whether every access to the buffer goes through r is what the output comparison decides.
Status doubleBufferLoop(trace::ChipTrace& chip, const Change& change, std::uint32_t pc)
{
    const Result<isa::Instruction*> found = dmaStartAt(chip, change, pc);
    if (!found.ok())
        return found.error();
    auto& bundles = chip.program.bundles;
    const auto i = found.value() - bundles[pc].instructions.data();
    std::uint32_t head = 0;
    const std::int64_t end = loopEnd(chip.program, pc, &head);
    if (end < 0)
        return changeError(change, chip.chip, "the dma.start at pc " + std::to_string(pc) + " is not in a loop");
    isa::Instruction dma = bundles[pc].instructions[static_cast<std::size_t>(i)];
    const isa::Operand dst = dma.operands[dma_operand::kDst];
    if (dst.form != isa::Operand::Form::Mem || !dst.hasBase || dst.space != isa::Space::Vmem)
        return changeError(change, chip.chip, "the destination is not a VMEM address with a base register");
    const int r = dst.reg;
    // Moved to the top, the dma.start must read the same source and byte count: nothing before it in the
    // loop may write the registers it reads.
    const std::uint32_t reads = isa::registerUse(dma).readsS & ~(1u << r);
    const std::vector<bool> targets = branchTargets(chip.program);
    for (std::int64_t q = head; q <= end; ++q) {
        if (q > head && targets[static_cast<std::size_t>(q)])
            return changeError(change, chip.chip, "the loop at pc " + std::to_string(head) + " is more than one basic block");
        for (const isa::Instruction& insn : bundles[static_cast<std::size_t>(q)].instructions) {
            const int written = isa::registerUse(insn).writesS;
            if (written == r || (q < end && insn.info().isBranch))
                return changeError(change, chip.chip, "the loop at pc " + std::to_string(head) + " changes s" + std::to_string(r) +
                                                          " or branches inside");
            if (q < static_cast<std::int64_t>(pc) && written >= 0 && ((reads >> written) & 1u))
                return changeError(change, chip.chip, "s" + std::to_string(written) + ", which the dma.start at pc " +
                                                          std::to_string(pc) + " reads, changes before it in its loop");
        }
    }
    // r + offset addressed the first buffer; spare + offset must address the second.
    const std::int64_t first = static_cast<std::int64_t>(change.firstBuffer) - dst.value;
    const std::int64_t second = static_cast<std::int64_t>(change.secondBuffer) - dst.value;
    const std::int64_t swap = first ^ second;
    // Edits from the bottom up, so the pcs above stay valid.
    bundles[pc].instructions.erase(bundles[pc].instructions.begin() + i);
    std::int64_t closing = end;
    if (bundles[pc].instructions.empty()) {
        removeBundle(chip, pc);
        --closing;
    }
    insertBundle(chip, static_cast<std::uint32_t>(closing), isa::Bundle{{scalarXor(r, r, swap)}});
    dma.operands[dma_operand::kDst].reg = static_cast<std::uint8_t>(change.spareRegister);
    insertBundle(chip, head, isa::Bundle{{dma}});
    insertBundle(chip, head, isa::Bundle{{scalarXor(change.spareRegister, r, swap)}});
    return Ok{};
}

Status doubleBuffer(trace::ChipTrace& chip, const Change& change)
{
    if (change.spareRegister < 0 || change.spareRegister >= isa::kScalarRegisters ||
        (scalarRegistersUsed(chip) >> change.spareRegister) & 1u)
        return changeError(change, chip.chip, "s" + std::to_string(change.spareRegister) + " is not free");
    std::vector<std::uint32_t> pcs = change.pcs;
    std::sort(pcs.rbegin(), pcs.rend()); // bottom up: edits below do not move the pcs above
    for (std::uint32_t pc : pcs)
        if (Status s = doubleBufferLoop(chip, change, pc); !s.ok())
            return s;
    return Ok{};
}

// The wait at `pc` goes; a wait on the same flag for each target goes in before each listed bundle
// (pcs of the original program, after `pc`, in order).
Status relaxWait(trace::ChipTrace& chip, const Change& change)
{
    auto& bundles = chip.program.bundles;
    if (change.pc >= bundles.size())
        return changeError(change, chip.chip, "pc out of range");
    if (change.pcs.empty() || change.pcs.size() != change.targets.size())
        return changeError(change, chip.chip, "each new wait needs a pc and a target");
    const int i = findInstruction(bundles[change.pc], isa::Opcode::SyncWait);
    if (i < 0)
        return changeError(change, chip.chip, "no sync.wait at pc " + std::to_string(change.pc));
    isa::Instruction wait = bundles[change.pc].instructions[static_cast<std::size_t>(i)];
    for (std::size_t k = 0; k < change.pcs.size(); ++k)
        if (change.pcs[k] <= change.pc || change.pcs[k] > bundles.size() || (k > 0 && change.pcs[k] <= change.pcs[k - 1]))
            return changeError(change, chip.chip, "the new waits must follow pc " + std::to_string(change.pc) + " in order");
    // Bottom up, so the pcs above stay valid; the old wait last.
    for (std::size_t k = change.pcs.size(); k-- > 0;) {
        wait.operands[1] = isa::Operand::imm(change.targets[k]);
        insertBundle(chip, change.pcs[k], isa::Bundle{{wait}});
    }
    bundles[change.pc].instructions.erase(bundles[change.pc].instructions.begin() + i);
    if (bundles[change.pc].instructions.empty())
        removeBundle(chip, change.pc);
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
    const std::int64_t chunk = insn.operands[kChunk].present() && insn.operands[kChunk].value > 0
                                   ? insn.operands[kChunk].value
                                   : machine.dmaChunkBytes;
    const std::int64_t convert = insn.operands[kConvert].present() ? insn.operands[kConvert].value : 0;
    if (convert == 0)
        return chunk;
    // A converting copy's chunks count its 2-byte side (even, as the GRM rounds them): in source bytes, a
    // narrowing copy's chunk reads twice as many.
    const std::int64_t unitChunk = std::max<std::int64_t>(2, chunk & ~std::int64_t{1});
    return convert >= 3 ? unitChunk * 2 : unitChunk;
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

Status applyProgramChange(trace::ChipTrace& chip, const Change& change, const isa::MachineConfig& machine)
{
    switch (change.kind) {
    case ChangeKind::HoistDma: return hoist(chip, change);
    case ChangeKind::SplitDma: return split(chip, change, machine);
    case ChangeKind::SplitRoute: return splitRoute(chip, change, machine);
    case ChangeKind::DoubleBuffer: return doubleBuffer(chip, change);
    case ChangeKind::RelaxWait: return relaxWait(chip, change);
    case ChangeKind::RebalanceEngines: return rebalance(chip, change);
    case ChangeKind::MachineParam:
    case ChangeKind::Regenerate: break;
    }
    return changeError(change, chip.chip, "not a change to a chip's program");
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
    for (ChipId c : change.chips) {
        if (c.value >= out.chips.size())
            return changeError(change, c, "no such chip");
        if (Status s = applyProgramChange(out.chips[c.value], change, out.machine); !s.ok())
            return s.error();
    }
    // Recorded hardware timing belongs to the original program.
    out.recorded.reset();
    return out;
}

} // namespace xps::suggest
