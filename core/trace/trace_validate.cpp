#include "trace/trace_validate.h"

#include "util/text.h"

#include <algorithm>
#include <array>
#include <set>

namespace xps::trace {

std::uint64_t spaceSize(const isa::MachineConfig& machine, isa::Space space)
{
    switch (space) {
    case isa::Space::Hbm: return static_cast<std::uint64_t>(machine.hbmBytes);
    case isa::Space::Vmem: return static_cast<std::uint64_t>(machine.vmemBytes);
    case isa::Space::Smem: return static_cast<std::uint64_t>(machine.smemBytes);
    }
    return 0;
}

namespace {

class Validator
{
public:
    Validator(const Trace& t, const Locator& l) : m_trace(t), m_locate(l), m_machine(t.machine) {}

    std::vector<Diagnostic> run()
    {
        if (static_cast<std::int64_t>(m_trace.chips.size()) != m_machine.chips)
            report({Part::Trace, ChipId(), 0}, "the machine has " + std::to_string(m_machine.chips) +
                                                   " chip(s) but the trace has " +
                                                   std::to_string(m_trace.chips.size()) + " program(s)");
        for (std::size_t c = 0; c < m_trace.chips.size(); ++c)
            chip(m_trace.chips[c], chipIdAt(c));
        if (m_trace.recorded)
            recorded(*m_trace.recorded);
        return std::move(m_out);
    }

private:
    void report(const Where& w, std::string message) { m_out.push_back({m_locate(w), std::move(message)}); }

    bool inside(isa::Space space, std::uint64_t address, std::uint64_t size) const
    {
        const std::uint64_t limit = spaceSize(m_machine, space);
        return size <= limit && address <= limit - size;
    }

    std::string boundsMessage(std::string_view what, isa::Space space, std::uint64_t address,
                              std::uint64_t size) const
    {
        return std::string(what) + " [" + text::hex(address) + ", " + text::hex(address + size) +
               ") is out of " + std::string(isa::spaceName(space)) +
               " bounds: " + std::string(isa::spaceName(space)) + " has " +
               text::formatBytes(spaceSize(m_machine, space)) + " (" +
               text::hex(spaceSize(m_machine, space)) + ")";
    }

    void chip(const ChipTrace& c, ChipId index)
    {
        if (c.chip != index)
            report({Part::Chip, index, 0}, "chip entry " + std::to_string(index.value) + " says it is chip " +
                                               std::to_string(c.chip.value));
        if (static_cast<std::int64_t>(c.program.bundles.size()) > m_machine.imemBundles)
            report({Part::Chip, index, 0}, "program has " + std::to_string(c.program.bundles.size()) +
                                               " bundles; imem_bundles allows " +
                                               std::to_string(m_machine.imemBundles));
        for (std::size_t pc = 0; pc < c.program.bundles.size(); ++pc) {
            slots(c.program.bundles[pc], {Part::Bundle, index, pc});
            for (const isa::Instruction& insn : c.program.bundles[pc].instructions)
                instruction(c, index, pc, insn);
        }
        buffers(c, index);
        for (std::size_t i = 0; i < c.symbols.labels.size(); ++i)
            if (c.symbols.labels[i].pc > c.program.bundles.size())
                report({Part::Label, index, i},
                       "label '" + c.symbols.labels[i].name + "' points past the program end");
        initial(c, index);
        for (std::size_t i = 0; i < c.outputs.size(); ++i)
            if (!c.symbols.findBuffer(c.outputs[i]))
                report({Part::Output, index, i}, "output '" + c.outputs[i] + "' is not a declared buffer");
    }

    // The assembler and every program source place instructions by slot; a bundle built any other way (a
    // trace assembled in code) is checked here, as the replayer's per-bundle state is sized by the slots.
    void slots(const isa::Bundle& bundle, const Where& at)
    {
        std::array<int, isa::kSlotKinds> used{};
        int branches = 0;
        for (const isa::Instruction& insn : bundle.instructions) {
            const isa::OpcodeInfo& op = insn.info();
            branches += op.isBranch ? 1 : 0;
            ++used[static_cast<std::size_t>(op.slot)];
        }
        for (int k = 0; k < isa::kSlotKinds; ++k) {
            const auto kind = static_cast<isa::SlotKind>(k);
            if (used[static_cast<std::size_t>(k)] > isa::slotCount(kind))
                report(at, "the bundle holds " + std::to_string(used[static_cast<std::size_t>(k)]) + " " +
                               std::string(isa::slotName(kind)) + " instructions; a bundle has " +
                               std::to_string(isa::slotCount(kind)) + " " + std::string(isa::slotName(kind)) +
                               (isa::slotCount(kind) == 1 ? " slot" : " slots"));
        }
        if (branches > 1)
            report(at, "the bundle holds " + std::to_string(branches) + " branches; at most one is allowed");
    }

    void instruction(const ChipTrace& c, ChipId chip, std::size_t pc, const isa::Instruction& insn)
    {
        const isa::OpcodeInfo& op = insn.info();
        const Where at{Part::Bundle, chip, pc};
        const auto specs = op.operandSpecs();
        for (std::size_t i = 0; i < specs.size(); ++i) {
            const isa::Operand& o = insn.operands[i];
            const isa::OperandSpec& spec = specs[i];
            if (!o.present())
                continue;
            const auto name = [&] {
                return std::string(op.mnemonic) + " " + std::string(spec.name);
            }; // only on findings
            if (spec.kind == isa::OperandKind::Label &&
                o.value > static_cast<std::int64_t>(c.program.bundles.size()))
                report(at, name() + " " + text::hex(static_cast<std::uint64_t>(o.value)) +
                               " is past the program end (" + std::to_string(c.program.bundles.size()) +
                               " bundles)");
            if (spec.kind == isa::OperandKind::Region &&
                (o.value < 0 || o.value >= static_cast<std::int64_t>(c.symbols.regions.size())))
                report(at, name() + " refers to region #" + std::to_string(o.value) +
                               ", which the symbol table does not declare");
            if (o.form == isa::Operand::Form::Mem && !o.hasBase) {
                const std::uint64_t width =
                    op.opcode == isa::Opcode::VLd || op.opcode == isa::Opcode::VSt ? isa::kVectorBytes
                    : op.memorySpace == isa::Space::Smem && spec.kind == isa::OperandKind::Addr ? 4
                                                                                                : 1;
                if (o.value < 0 || !inside(o.space, static_cast<std::uint64_t>(o.value), width))
                    report(at, boundsMessage(name(), o.space, static_cast<std::uint64_t>(o.value), width));
            }
            if (o.form != isa::Operand::Form::Imm)
                continue;
            if (spec.name == "flag" && (o.value < 0 || o.value >= m_machine.syncFlags))
                report(at, name() + " " + std::to_string(o.value) +
                               " does not exist: the machine has sync_flags=" +
                               std::to_string(m_machine.syncFlags));
            if (spec.name == "engine" && (o.value < 0 || o.value >= m_machine.dmaEngines))
                report(at, name() + " " + std::to_string(o.value) +
                               " does not exist: the machine has dma_engines=" +
                               std::to_string(m_machine.dmaEngines));
            if (spec.name == "mxu" && (o.value < 0 || o.value >= m_machine.mxuCount))
                report(at, name() + " " + std::to_string(o.value) +
                               " does not exist: the machine has mxu_count=" +
                               std::to_string(m_machine.mxuCount));
            if (spec.name == "fmt")
                checkMxuFormat(at, name(), o.value, op.opcode == isa::Opcode::MxuMm);
            if (spec.name == "chip" && (o.value < -1 || o.value >= m_machine.chips))
                report(at, name() + " " + std::to_string(o.value) + " does not exist: the machine has " +
                               std::to_string(m_machine.chips) + " chip(s)");
            if ((spec.name == "bytes" || spec.name == "rows") && o.value <= 0)
                report(at, name() + " must be positive, got " + std::to_string(o.value));
            if (spec.name == "chunk" && (o.value < 0 || o.value > (1ll << 32)))
                report(at, name() + " must be 0 (the machine default) or a byte count up to 4 GiB");
            if (spec.name == "route" && o.value != 0 && o.value != 1)
                report(at, name() + " must be 0 (shortest) or 1 (the long way round), got " +
                               std::to_string(o.value));
        }
    }

    // An MXU operand format the machine's MXU takes: f32 always, packed f16/bf16 where it says so.
    void checkMxuFormat(const Where& at, const std::string& what, std::int64_t format, bool matmul)
    {
        if (format == isa::kMxuF32)
            return;
        if (format != isa::kMxuF16 && format != isa::kMxuBf16)
            return report(at, what + " must be 0 (f32), 1 (packed f16) or 2 (packed bf16), got " +
                                  std::to_string(format));
        const bool bf16 = format == isa::kMxuBf16;
        if ((bf16 ? m_machine.mxuBf16 : m_machine.mxuF16) == 0)
            report(at, what + " " + std::to_string(format) + " (packed " + (bf16 ? "bf16" : "f16") +
                           "): the machine's MXU does not take " + (bf16 ? "bf16" : "f16") + " operands (" +
                           (bf16 ? "mxu_bf16" : "mxu_f16") + "=0)");
        else if (matmul && m_machine.mxuResultFifoDepth < 2) // it would wait forever for room
            report(at, what + " " + std::to_string(format) +
                           ": 16 packed rows make two results, and the result FIFO holds one "
                           "(mxu_result_fifo_depth=1)");
    }

    void buffers(const ChipTrace& c, ChipId chip)
    {
        const auto& bs = c.symbols.buffers;
        std::set<std::string> names;
        for (std::size_t i = 0; i < bs.size(); ++i) {
            const Buffer& b = bs[i];
            const Where at{Part::Buffer, chip, i};
            if (b.name.empty())
                report(at, "buffer name must not be empty");
            else if (!names.insert(b.name).second)
                report(at, "buffer '" + b.name + "' declared twice");
            if (b.size == 0)
                report(at, "buffer '" + b.name + "' has size 0");
            else if (!inside(b.space, b.address, b.size))
                report(at, boundsMessage("buffer '" + b.name + "'", b.space, b.address, b.size));
            if (!b.aliasOf.empty() && !c.symbols.findBuffer(b.aliasOf))
                report(at, "buffer '" + b.name + "' aliases '" + b.aliasOf + "', which is not declared");
        }
        // Overlaps: sort by (space, address) and compare each buffer with those that start before it ends.
        std::vector<std::size_t> order(bs.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return std::tie(bs[a].space, bs[a].address) < std::tie(bs[b].space, bs[b].address);
        });
        for (std::size_t k = 0; k < order.size(); ++k) {
            const Buffer& a = bs[order[k]];
            for (std::size_t m = k + 1; m < order.size(); ++m) {
                const Buffer& b = bs[order[m]];
                if (b.space != a.space || b.address >= a.address + a.size)
                    break;
                if (a.aliasOf == b.name || b.aliasOf == a.name)
                    continue;
                const std::size_t later = std::max(order[k], order[m]);
                const Buffer& first = bs[std::min(order[k], order[m])];
                const Buffer& second = bs[later];
                report({Part::Buffer, chip, later}, "buffer '" + second.name + "' overlaps '" + first.name +
                                                        "' in " + std::string(isa::spaceName(a.space)) +
                                                        "; declare alias=" + first.name +
                                                        " if that is intended");
            }
        }
    }

    void initial(const ChipTrace& c, ChipId chip)
    {
        for (const auto& [r, v] : c.initial.scalarRegisters)
            if (r < 0 || r >= isa::kScalarRegisters)
                report({Part::ScalarInit, chip, static_cast<std::size_t>(r)},
                       "scalar register s" + std::to_string(r) + " does not exist");
        for (const auto& [r, p] : c.initial.vectorRegisters) {
            if (r < 0 || r >= isa::kVectorRegisters)
                report({Part::VectorInit, chip, static_cast<std::size_t>(r)},
                       "vector register v" + std::to_string(r) + " does not exist");
            if (!p.isGenerator && p.bytes.size() != isa::kVectorBytes)
                report({Part::VectorInit, chip, static_cast<std::size_t>(r)},
                       "vector register data must be 4096 bytes, got " + std::to_string(p.bytes.size()));
        }
        for (const auto& [f, v] : c.initial.flags)
            if (f < 0 || f >= m_machine.syncFlags)
                report({Part::FlagInit, chip, static_cast<std::size_t>(f)},
                       "flag " + std::to_string(f) + " does not exist: the machine has sync_flags=" +
                           std::to_string(m_machine.syncFlags));
        for (std::size_t i = 0; i < c.initial.memory.size(); ++i) {
            const MemoryInit& m = c.initial.memory[i];
            const Where at{Part::MemoryInit, chip, i};
            if (m.size == 0)
                report(at, "initial memory region has size 0");
            else if (!inside(m.space, m.address, m.size))
                report(at, boundsMessage("initial memory region", m.space, m.address, m.size));
            if (!m.payload.isGenerator && m.payload.bytes.size() != m.size)
                report(at, "initial memory region declares " + std::to_string(m.size) + " bytes but holds " +
                               std::to_string(m.payload.bytes.size()));
        }
    }

    void recorded(const RecordedTiming& r)
    {
        for (std::size_t i = 0; i < r.regions.size(); ++i) {
            const RecordedRegion& region = r.regions[i];
            if (region.chip.value >= m_trace.chips.size())
                report({Part::RecordedRegion, ChipId(), i}, "recorded region names chip " +
                                                                std::to_string(region.chip.value) +
                                                                ", which does not exist");
            else if (m_trace.chips[region.chip.value].symbols.findRegion(region.region) < 0)
                report({Part::RecordedRegion, ChipId(), i}, "recorded region '" + region.region +
                                                                "' is not a region of chip " +
                                                                std::to_string(region.chip.value));
        }
        for (std::size_t i = 0; i < r.samples.size(); ++i) {
            const RecordedSample& s = r.samples[i];
            if (s.chip.value >= m_trace.chips.size())
                report({Part::RecordedSample, ChipId(), i}, "recorded sample names chip " +
                                                                std::to_string(s.chip.value) +
                                                                ", which does not exist");
            else if (s.pc >= m_trace.chips[s.chip.value].program.bundles.size())
                report({Part::RecordedSample, ChipId(), i},
                       "recorded sample pc " + text::hex(s.pc) + " is past the program end");
        }
    }

    const Trace& m_trace;
    const Locator& m_locate;
    const isa::MachineConfig& m_machine;
    std::vector<Diagnostic> m_out;
};

} // namespace

std::vector<Diagnostic> validateTrace(const Trace& trace, const Locator& locate)
{
    return Validator(trace, locate).run();
}

} // namespace xps::trace
