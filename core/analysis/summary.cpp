#include "analysis/summary.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace xps::analysis {

std::string DmaPath::name() const
{
    const auto upper = [](std::string_view s) {
        std::string u(s);
        for (char& c : u)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return u;
    };
    return upper(isa::spaceName(src)) + "->" + upper(isa::spaceName(dst)) + (remote ? " (ICI)" : "");
}

std::uint64_t RegionSummary::totalStallCycles() const
{
    std::uint64_t sum = 0;
    for (std::uint64_t v : stallCycles)
        sum += v;
    return sum;
}

namespace {

// Walks the bundle events once, keeping per chip the stack of region instances open at the current cycle,
// and adds each bundle to every region on the stack (inclusive totals).
class RegionSweep
{
public:
    RegionSweep(const ReplayView& replay, std::vector<RegionSummary>& out)
        : m_replay(replay), m_out(out), m_cancel(replay.cancelPoint())
    {
        const std::size_t chips = replay.trace.chips.size();
        for (const ChipId chip : idsBelow<ChipId>(chips))
            m_records.push_back(replay.store.regionsByEntry(chip));
        m_next.assign(chips, 0);
        m_stacks.resize(chips);
        m_open.resize(chips);
        for (std::size_t c = 0; c < chips; ++c) {
            m_mxuBusy.push_back(unitBusyPerPc(replay.trace, chipIdAt(c), isa::Unit::MxuMatmul));
        }
        bool anyRegion = false;
        for (const auto& list : m_records)
            anyRegion = anyRegion || !list.empty();
        if (anyRegion) { // only needed to attribute DMA bytes to regions
            m_dmaIssues.reserve(replay.store.dmaCount());
            replay.store.forEachDma([&](const events::DmaRecord& d) { m_dmaIssues.push_back(d); });
        }
        std::sort(m_dmaIssues.begin(), m_dmaIssues.end(),
                  m_cancel.polling([](const auto& a, const auto& b) { return a.issue < b.issue; }));
    }

    void run()
    {
        const events::BundleSnapshot bundles = m_replay.store.bundles();
        std::size_t nextDma = 0;
        for (std::size_t i = 0; i < bundles.size(); ++i) {
            m_cancel();
            const events::BundleIssue e = bundles[i];
            if (e.chip.value >= m_stacks.size())
                continue;
            enterAndLeave(e.chip.value, e.cycle);
            auto& stack = m_stacks[e.chip.value];
            if (stack.empty())
                continue;
            const std::uint32_t mxu =
                e.pc < m_mxuBusy[e.chip.value].size() ? m_mxuBusy[e.chip.value][e.pc] : 0;
            for (std::size_t slot : stack) {
                RegionSummary& r = m_out[slot];
                ++r.bundles;
                r.stallCycles[static_cast<int>(e.reason)] += e.stallCycles;
                r.mxuBusyCycles += mxu;
            }
            // DMAs issued by this bundle (same chip, pc and cycle).
            while (nextDma < m_dmaIssues.size() && m_dmaIssues[nextDma].issue < e.cycle)
                ++nextDma;
            for (std::size_t k = nextDma; k < m_dmaIssues.size() && m_dmaIssues[k].issue == e.cycle; ++k)
                if (m_dmaIssues[k].chip == e.chip && m_dmaIssues[k].pc == e.pc)
                    for (std::size_t slot : stack)
                        m_out[slot].dmaBytes += m_dmaIssues[k].bytes;
        }
    }

private:
    void enterAndLeave(std::size_t chip, events::Cycle cycle)
    {
        auto& stack = m_stacks[chip];
        auto& open = m_open[chip];
        while (!open.empty() && open.back().end() < cycle) {
            open.pop_back();
            stack.pop_back();
        }
        const auto& list = m_records[chip];
        while (m_next[chip] < list.size() && list[m_next[chip]].start <= cycle) {
            const events::StoreSlice& r = list[m_next[chip]++];
            while (!open.empty() && open.back().end() < r.start) {
                open.pop_back();
                stack.pop_back();
            }
            const std::size_t slot = slotFor(chip, r, stack);
            RegionSummary& s = m_out[slot];
            s.mxus = static_cast<std::uint64_t>(m_replay.trace.machine.mxuCount);
            ++s.instances;
            s.cycles += r.duration;
            open.push_back(r);
            stack.push_back(slot);
        }
    }

    std::size_t slotFor(std::size_t chip, const events::StoreSlice& r, const std::vector<std::size_t>& stack)
    {
        const auto& symbols = m_replay.trace.chips[chip].symbols.regions;
        const std::uint32_t region = events::regionOf(r);
        const trace::RegionSymbol unknown{"region " + std::to_string(region), ""};
        const trace::RegionSymbol& sym = region < symbols.size() ? symbols[region] : unknown;
        const std::string path = stack.empty() ? sym.name : m_out[stack.back()].path + " > " + sym.name;
        const auto [it, added] = m_slots.try_emplace(path, m_out.size());
        if (added) {
            RegionSummary s;
            s.path = path;
            s.name = sym.name;
            s.level = sym.level;
            s.depth = static_cast<int>(stack.size());
            m_out.push_back(std::move(s));
        }
        return it->second;
    }

    const ReplayView& m_replay;
    std::vector<RegionSummary>& m_out;
    std::vector<std::vector<events::StoreSlice>> m_records; // per chip, by entry
    std::vector<std::size_t> m_next;
    std::vector<std::vector<std::size_t>> m_stacks; // slots in m_out of the open regions, outermost first
    std::vector<std::vector<events::StoreSlice>> m_open; // the regions of m_stacks
    std::map<std::string, std::size_t> m_slots;
    std::vector<std::vector<std::uint32_t>> m_mxuBusy;
    std::vector<events::DmaRecord> m_dmaIssues;
    CancelPoint m_cancel;
};

} // namespace

Summary summarize(const ReplayView& replay)
{
    Summary s;
    const isa::MachineConfig& m = replay.trace.machine;
    s.totalCycles = replay.totalCycles;
    s.microseconds = m.cyclesToMicroseconds(static_cast<double>(replay.totalCycles));
    const double cycles = static_cast<double>(std::max<std::uint64_t>(replay.totalCycles, 1));
    const double hbmPerCycle = m.bytesPerCycle(m.hbmBandwidthGBs);

    std::vector<std::uint64_t> hbmBytes(replay.chips.size(), 0);
    std::map<std::tuple<int, int, bool>, DmaPath> paths;
    CancelPoint cancel = replay.cancelPoint();
    replay.store.forEachDma([&](const events::DmaRecord& d) {
        cancel();
        const bool remote = d.dstChip != d.chip;
        DmaPath& p = paths[{d.srcSpace, d.dstSpace, remote}];
        p.src = static_cast<isa::Space>(d.srcSpace);
        p.dst = static_cast<isa::Space>(d.dstSpace);
        p.remote = remote;
        ++p.transfers;
        p.bytes += d.bytes;
        if (d.srcSpace == static_cast<int>(isa::Space::Hbm) && d.chip.value < hbmBytes.size())
            hbmBytes[d.chip.value] += d.bytes;
        if (d.dstSpace == static_cast<int>(isa::Space::Hbm) && d.dstChip.value < hbmBytes.size())
            hbmBytes[d.dstChip.value] += d.bytes;
    });
    for (auto& [key, p] : paths)
        s.dmaPaths.push_back(p);
    std::sort(s.dmaPaths.begin(), s.dmaPaths.end(),
              [](const auto& a, const auto& b) { return a.bytes > b.bytes; });

    for (std::size_t c = 0; c < replay.chips.size(); ++c) {
        const events::ChipStats& st = replay.chips[c];
        ChipSummary cs;
        cs.chip = chipIdAt(c);
        cs.bundles = st.bundles;
        cs.instructions = st.instructions;
        cs.activeCycles = st.halted ? st.haltCycle + 1 : replay.totalCycles;
        std::copy(std::begin(st.unitBusyCycles), std::end(st.unitBusyCycles), cs.unitBusyCycles);
        std::copy(std::begin(st.stallCycles), std::end(st.stallCycles), cs.stallCycles);
        for (int r = 0; r < events::kStallReasonCount; ++r)
            s.stallCycles[r] += st.stallCycles[r];
        // Of all the core's MXUs: their busy cycles are summed.
        cs.mxuUtilization = static_cast<double>(st.unitBusyCycles[static_cast<int>(isa::Unit::MxuMatmul)]) /
                            (cycles * static_cast<double>(m.mxuCount));
        cs.hbmBytes = hbmBytes[c];
        cs.hbmUtilization = static_cast<double>(cs.hbmBytes) / (hbmPerCycle * cycles);
        s.mxuUtilization += cs.mxuUtilization / static_cast<double>(replay.chips.size());
        s.hbmUtilization += cs.hbmUtilization / static_cast<double>(replay.chips.size());
        s.chips.push_back(cs);
    }
    RegionSweep(replay, s.regions).run();
    return s;
}

} // namespace xps::analysis
