#pragma once
// What every suggestion rule (suggest/rules/) reads: the replay, its analyses, the DMAs by issuing pc and
// the DMAs that ended each wait, the VMEM each pc touched; and the checks several rules share (where in
// its basic block a dma.start can move, which chips run the same code, the least busy engine).

#include "analysis/analyze.h"
#include "analysis/chip_index.h"
#include "suggest/suggestion.h"
#include "suggest/transform.h"
#include "util/cancel.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace xps::suggest::detail {

using analysis::DmaPcGroup;

// A DMA whose hideable time is below this is not worth a change (nor a line in the list).
inline constexpr std::uint64_t kMinHideableCycles = 8;

struct Span
{
    std::uint64_t begin = UINT64_MAX, end = 0; // bounding range; empty when begin >= end
    void add(std::uint64_t b, std::uint64_t e)
    {
        begin = std::min(begin, b);
        end = std::max(end, e);
    }
    bool overlaps(const Span& o) const
    {
        return begin < end && o.begin < o.end && begin < o.end && o.begin < end;
    }
};

// Per pc of one chip: the VMEM its bundle's loads and stores touched over the whole replay.
struct PcVmem
{
    std::vector<Span> reads, writes;
};

std::string cyclesText(std::uint64_t c);  // "1,234 cycles"
std::string percentText(double fraction); // "12.5%"

class ProposalContext
{
public:
    ProposalContext(const analysis::ReplayView& replay, const analysis::Analyses& analyses);

    const analysis::ReplayView& replay;
    const analysis::Analyses& analyses;
    using DmaRecords = std::map<std::pair<ChipId, std::uint32_t>, std::vector<const events::DmaRecord*>>;
    const DmaRecords& dmasAt = m_dmasAt; // by (chip, issuing pc)

    // Rules poll this in their loops: it throws Cancelled once the replay's stop is requested.
    void cancel() { m_cancel(); }

    const trace::ChipTrace& chip(ChipId c) const { return replay.trace.chips[c.value]; }
    double total() const { return static_cast<double>(std::max<std::uint64_t>(replay.totalCycles, 1)); }
    // From the share of the run a change may save: high >= 10%, medium >= 2%.
    Severity severityFor(std::uint64_t cycles) const;
    // The VMEM each bundle of chip `c` read and wrote over the replay (computed once per chip).
    const PcVmem& vmem(ChipId c);

    struct Target
    {
        std::int64_t pc = -1;
        bool newBundle = false;
        bool operator==(const Target&) const = default;
    };
    // Where in its basic block, before `pc`, the dma.start at `pc` can move: the earliest legal bundle,
    // into its misc slot if free, else into a new bundle inserted there. pc -1: nowhere.
    Target hoistTarget(ChipId c, std::uint32_t pc);

    // `anyRemoteChip`, dma.starts may name different destination chips.
    template <typename Pred>
    std::vector<const DmaPcGroup*> sameCode(const DmaPcGroup& g, Pred pred, bool anyRemoteChip = false) const
    {
        const auto normalized = [&](ChipId c) {
            isa::Bundle b = chip(c).program.bundles[g.pc];
            if (anyRemoteChip)
                for (isa::Instruction& insn : b.instructions)
                    if (insn.opcode == isa::Opcode::DmaStart)
                        insn.operands[dma_operand::kChip] = isa::Operand::imm(0);
            return b;
        };
        const isa::Bundle mine = normalized(g.chip);
        std::vector<const DmaPcGroup*> out;
        for (const DmaPcGroup& o : analyses.dma.byPc)
            if (o.pc == g.pc && pred(o) && o.pc < chip(o.chip).program.bundles.size() &&
                normalized(o.chip) == mine)
                out.push_back(&o);
        std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->chip < b->chip; });
        return out;
    }

    int leastBusyEngine(ChipId c, int except) const;
    // The end of the highest VMEM address the chip's kernel declares or touches.
    std::uint64_t highestVmemUsed(ChipId c) const;
    // The DMAs issued at `pc` on `chips` (up to 64 ids) and the cycles they span.
    void addDmaEvidence(Suggestion& s, const std::vector<ChipId>& chips, std::uint32_t pc);

private:
    std::pair<std::int64_t, std::int64_t> legalRange(ChipId c, std::uint32_t pc);
    bool canCross(ChipId c, std::uint32_t q, const isa::Bundle& b, std::uint32_t reads,
                  const isa::Operand& flag, std::uint32_t pc);
    static bool overlapping(const events::DmaRecord& a, const events::DmaRecord& b);

    events::BundleSnapshot m_bundles;
    analysis::ChipIndex m_index;
    std::map<std::pair<ChipId, std::uint32_t>, std::vector<std::uint32_t>> m_waitDmas;
    DmaRecords m_dmasAt;
    std::map<ChipId, PcVmem> m_vmem;
    CancelPoint m_cancel;
};

} // namespace xps::suggest::detail
