#include "analysis/run_diff.h"

#include "analysis/program_alignment.h"
#include "asm/disassembler.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace xps::analysis {

double RunDiff::slowdownPercent() const
{
    return cycles.percent().value_or(0.0);
}

const RegionDelta* RunDiff::findRegion(const std::string& name) const
{
    for (const RegionDelta& r : regions)
        if (r.path == name)
            return &r;
    for (const RegionDelta& r : regions)
        if (r.name == name)
            return &r;
    return nullptr;
}

namespace {

std::uint64_t bundlesOf(const Summary& s)
{
    std::uint64_t n = 0;
    for (const ChipSummary& c : s.chips)
        n += c.bundles;
    return n;
}

std::uint64_t stallsOf(const std::uint64_t (&cycles)[events::kStallReasonCount])
{
    std::uint64_t n = 0;
    for (std::uint64_t c : cycles)
        n += c;
    return n;
}

std::uint64_t dmaBytesOf(const Summary& s)
{
    std::uint64_t n = 0;
    for (const DmaPath& p : s.dmaPaths)
        n += p.bytes;
    return n;
}

// One side of a region's row from that run's summary.
void fill(RegionDelta& row, const RegionSummary& r, bool baseline)
{
    const auto set = [baseline](Compared& c, std::uint64_t v) { (baseline ? c.baseline : c.other) = v; };
    set(row.instances, r.instances);
    set(row.cycles, r.cycles);
    set(row.bundles, r.bundles);
    set(row.stallCycles, r.totalStallCycles());
    set(row.dmaBytes, r.dmaBytes);
    for (int k = 0; k < events::kStallReasonCount; ++k)
        set(row.stallByReason[k], r.stallCycles[k]);
    (baseline ? row.inBaseline : row.inOther) = true;
    if (row.path.empty()) {
        row.path = r.path;
        row.name = r.name;
        row.level = r.level;
        row.depth = r.depth;
    }
}

} // namespace

RunDiff diffRuns(const Analyses& baseline, const Analyses& other, RunTotals baselineRun, RunTotals otherRun)
{
    RunDiff d;
    d.baseline = std::move(baselineRun);
    d.other = std::move(otherRun);
    const Summary& a = baseline.summary;
    const Summary& b = other.summary;
    d.baseline.microseconds = a.microseconds;
    d.other.microseconds = b.microseconds;
    d.baseline.chips = a.chips.size();
    d.other.chips = b.chips.size();
    d.cycles = {a.totalCycles, b.totalCycles};
    d.bundles = {bundlesOf(a), bundlesOf(b)};
    d.stallCycles = {stallsOf(a.stallCycles), stallsOf(b.stallCycles)};
    for (int k = 0; k < events::kStallReasonCount; ++k)
        d.stallByReason[k] = {a.stallCycles[k], b.stallCycles[k]};
    d.dmaBytes = {dmaBytesOf(a), dmaBytesOf(b)};
    d.exposedDmaCycles = {baseline.dma.exposedCycles, other.dma.exposedCycles};
    d.vmemPeakBytes = {baseline.vmem.peakLiveBytes, other.vmem.peakLiveBytes};
    for (int k = 0; k < kPathKindCount; ++k)
        d.criticalPath[k] = {baseline.criticalPath.cycles[k], other.criticalPath.cycles[k]};

    // Regions by path: the baseline's in its order, then those only the other run has, in its order.
    std::map<std::string, std::size_t> rowOf;
    for (const auto& [summary, isBaseline] : {std::pair{&a, true}, std::pair{&b, false}})
        for (const RegionSummary& r : summary->regions) {
            auto [it, added] = rowOf.try_emplace(r.path, d.regions.size());
            if (added)
                d.regions.emplace_back();
            fill(d.regions[it->second], r, isBaseline);
        }
    std::stable_sort(d.regions.begin(), d.regions.end(), [](const RegionDelta& x, const RegionDelta& y) {
        return std::llabs(x.cycles.delta()) > std::llabs(y.cycles.delta());
    });
    return d;
}

namespace {

std::vector<std::string> bundleTexts(const trace::ChipTrace& chip)
{
    std::vector<std::string> texts;
    texts.reserve(chip.program.bundles.size());
    for (const isa::Bundle& b : chip.program.bundles)
        texts.push_back(assembly::disassembleBundle(b, chip.symbols));
    return texts;
}

// One side of a bundle's row from that run's per-pc counts.
void fill(PcDelta& row, const events::PcStats& pc, bool baseline)
{
    const auto set = [baseline](Compared& c, std::uint64_t v) { (baseline ? c.baseline : c.other) = v; };
    set(row.executions, pc.executions);
    std::uint64_t stalls = 0;
    for (int k = 0; k < events::kStallReasonCount; ++k) {
        set(row.stallByReason[k], pc.stallCycles[k]);
        stalls += pc.stallCycles[k];
    }
    set(row.stallCycles, stalls);
    set(row.cycles, pc.executions + stalls);
}

struct DmaAtPc
{
    std::uint64_t bytes = 0, exposed = 0;
};

// Per chip and issuing pc, the bytes and exposed cycles of the DMAs a run's bundle started.
std::vector<std::vector<DmaAtPc>> dmasByPc(const ReplayView& run, const Analyses& analyses)
{
    std::vector<std::vector<DmaAtPc>> out(run.trace.chips.size());
    for (std::size_t c = 0; c < out.size(); ++c)
        out[c].resize(run.trace.chips[c].program.bundles.size());
    for (const DmaFacts& d : analyses.dma.dmas)
        if (d.record.chip.value < out.size() && d.record.pc < out[d.record.chip.value].size()) {
            DmaAtPc& at = out[d.record.chip.value][d.record.pc];
            at.bytes += d.record.bytes;
            at.exposed += d.exposedCycles;
        }
    return out;
}

void fillDma(PcDelta& row, const std::vector<std::vector<DmaAtPc>>& byPc, std::uint32_t pc, bool baseline)
{
    const DmaAtPc none;
    const DmaAtPc& at =
        row.chip.value < byPc.size() && pc < byPc[row.chip.value].size() ? byPc[row.chip.value][pc] : none;
    (baseline ? row.dmaBytes.baseline : row.dmaBytes.other) = at.bytes;
    (baseline ? row.exposedDmaCycles.baseline : row.exposedDmaCycles.other) = at.exposed;
}

const events::PcStats& statsAt(const ReplayView& run, ChipId chip, std::uint32_t pc)
{
    static const events::PcStats kNone;
    if (chip.value >= run.chips.size())
        return kNone;
    const auto& perPc = run.chips[chip.value].perPc;
    return pc < perPc.size() ? perPc[pc] : kNone;
}

} // namespace

void addPcDeltas(RunDiff& diff, const ReplayView& baseline, const Analyses& baselineAnalyses,
                 const ReplayView& other, const Analyses& otherAnalyses, std::size_t maxEdits)
{
    const std::vector<std::vector<DmaAtPc>> baselineDmas = dmasByPc(baseline, baselineAnalyses);
    const std::vector<std::vector<DmaAtPc>> otherDmas = dmasByPc(other, otherAnalyses);
    const std::size_t chips = std::min(baseline.trace.chips.size(), other.trace.chips.size());
    // SPMD chips run one program: a chip whose two programs are the previous chip's reuses its alignment.
    std::vector<std::string> a, b;
    std::optional<std::vector<AlignedPc>> steps;
    for (ChipId chip : idsBelow<ChipId>(chips)) {
        std::vector<std::string> chipA = bundleTexts(baseline.trace.chips[chip.value]);
        std::vector<std::string> chipB = bundleTexts(other.trace.chips[chip.value]);
        if (chip == ChipId(0) || chipA != a || chipB != b) {
            a = std::move(chipA);
            b = std::move(chipB);
            steps = alignPrograms(a, b, maxEdits);
        }
        ChipAlignment alignment;
        alignment.chip = chip;
        alignment.aligned = steps.has_value();
        if (!steps) {
            diff.alignment.push_back(alignment);
            continue;
        }
        for (const AlignedPc& step : *steps) {
            PcDelta row;
            row.chip = chip;
            row.baselinePc = step.baseline;
            row.otherPc = step.other;
            row.text = step.baseline ? a[*step.baseline] : b[*step.other];
            if (step.baseline) {
                fill(row, statsAt(baseline, chip, *step.baseline), true);
                fillDma(row, baselineDmas, *step.baseline, true);
            }
            if (step.other) {
                fill(row, statsAt(other, chip, *step.other), false);
                fillDma(row, otherDmas, *step.other, false);
            }
            ++(step.baseline && step.other ? alignment.matched
               : step.baseline             ? alignment.removed
                                           : alignment.inserted);
            const bool changed = !step.baseline || !step.other || row.executions.delta() != 0 ||
                                 row.stallCycles.delta() != 0 || row.dmaBytes.delta() != 0 ||
                                 row.exposedDmaCycles.delta() != 0;
            if (changed)
                diff.pcs.push_back(std::move(row));
        }
        diff.alignment.push_back(alignment);
    }
    std::stable_sort(diff.pcs.begin(), diff.pcs.end(), [](const PcDelta& x, const PcDelta& y) {
        const auto sx = std::llabs(x.stallCycles.delta()), sy = std::llabs(y.stallCycles.delta());
        return sx != sy ? sx > sy : std::llabs(x.executions.delta()) > std::llabs(y.executions.delta());
    });
}

} // namespace xps::analysis
