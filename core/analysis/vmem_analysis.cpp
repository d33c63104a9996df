#include "analysis/vmem_analysis.h"

#include "util/cancel.h"

#include <algorithm>
#include <functional>
#include <map>

namespace xps::analysis {
namespace {

constexpr std::uint64_t kRowBytes = 512;

struct ChipBuffers
{
    std::vector<std::size_t> byAddress; // indexes into VmemAnalysis::buffers, sorted by address
};

void attribute(VmemAnalysis& out, const ChipBuffers& chip, const events::VmemAccess& a)
{
    // Buffers are few and sorted by address: a linear walk that stops past the access is cheap.
    const auto& list = chip.byAddress;
    for (auto k = list.begin(); k != list.end(); ++k) {
        BufferLiveRange& b = out.buffers[*k];
        if (b.address >= static_cast<std::uint64_t>(a.address) + a.bytes)
            break;
        if (b.address + b.size <= a.address)
            continue;
        if (!b.accessed) {
            b.accessed = true;
            b.firstAccess = a.cycle;
        }
        b.lastAccess = std::max<std::uint64_t>(b.lastAccess, a.cycle);
        (a.isWrite() ? b.writeBytes : b.readBytes) += a.bytes;
    }
}

} // namespace

VmemAnalysis analyzeVmem(const ReplayView& replay, const DmaAnalysis& dmas)
{
    VmemAnalysis out;
    out.capacity = static_cast<std::uint64_t>(replay.trace.machine.vmemBytes);
    const std::size_t chips = replay.trace.chips.size();
    CancelPoint cancel = replay.cancelPoint();
    std::vector<ChipBuffers> perChip(chips);
    for (std::size_t c = 0; c < chips; ++c) {
        for (const trace::Buffer& b : replay.trace.chips[c].symbols.buffers) {
            if (b.space != isa::Space::Vmem)
                continue;
            BufferLiveRange r;
            r.chip = chipIdAt(c);
            r.name = b.name;
            r.address = b.address;
            r.size = b.size;
            r.alias = !b.aliasOf.empty();
            perChip[c].byAddress.push_back(out.buffers.size());
            out.buffers.push_back(r);
        }
        std::sort(perChip[c].byAddress.begin(), perChip[c].byAddress.end(),
                  [&](std::size_t a, std::size_t b) { return out.buffers[a].address < out.buffers[b].address; });
    }

    const std::size_t rows = static_cast<std::size_t>((out.capacity + kRowBytes - 1) / kRowBytes);
    std::vector<std::vector<bool>> rowsTouched(chips);
    const events::VmemSnapshot accesses = replay.store.vmemAccesses();
    for (const auto& chunk : accesses.chunks()) {
        for (std::size_t k = 0; k < chunk->size; ++k) {
            cancel();
            const events::VmemAccess a = chunk->at(k);
            if (a.chip.value >= chips)
                continue;
            std::vector<bool>& touched = rowsTouched[a.chip.value];
            if (touched.empty())
                touched.assign(rows, false);
            const std::uint64_t end = static_cast<std::uint64_t>(a.address) + a.bytes;
            for (std::uint64_t row = a.address / kRowBytes; row * kRowBytes < end && row < rows; ++row)
                touched[row] = true;
            if (!perChip[a.chip.value].byAddress.empty())
                attribute(out, perChip[a.chip.value], a);
        }
    }

    for (std::size_t c = 0; c < chips; ++c) {
        VmemChipUse use;
        use.chip = chipIdAt(c);
        use.touchedBytes = static_cast<std::uint64_t>(std::count(rowsTouched[c].begin(), rowsTouched[c].end(), true)) * kRowBytes;
        if (const auto last = std::find(rowsTouched[c].rbegin(), rowsTouched[c].rend(), true); last != rowsTouched[c].rend())
            use.highestAddress = static_cast<std::uint64_t>(rowsTouched[c].rend() - last) * kRowBytes;
        std::vector<std::pair<std::uint64_t, std::int64_t>> steps;
        for (std::size_t i : perChip[c].byAddress) {
            const BufferLiveRange& b = out.buffers[i];
            if (b.alias || !b.accessed)
                continue;
            steps.push_back({b.firstAccess, static_cast<std::int64_t>(b.size)});
            steps.push_back({b.lastAccess + 1, -static_cast<std::int64_t>(b.size)});
        }
        std::sort(steps.begin(), steps.end(), cancel.polling(std::less<>()));
        std::int64_t live = 0;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            live += steps[i].second;
            if (i + 1 < steps.size() && steps[i + 1].first == steps[i].first)
                continue;
            use.liveBytes.push_back({steps[i].first, static_cast<std::uint64_t>(live)});
            if (static_cast<std::uint64_t>(live) > use.peakLiveBytes) {
                use.peakLiveBytes = static_cast<std::uint64_t>(live);
                use.peakCycle = steps[i].first;
            }
        }
        if (perChip[c].byAddress.empty())
            use.peakLiveBytes = use.touchedBytes;
        out.peakLiveBytes = std::max(out.peakLiveBytes, use.peakLiveBytes);
        out.chips.push_back(std::move(use));
    }

    // Double-buffering candidates: a buffer refilled by the same dma.start more than once, where the core
    // waited out most of each refill.
    std::map<std::tuple<ChipId, std::string, std::uint32_t>, SingleBufferedLoop> loops;
    // Transfer cycles per (destination chip, issuing pc), summed once: a loop per candidate over every DMA
    // was candidates x DMAs.
    std::map<std::pair<ChipId, std::uint32_t>, std::uint64_t> transferCycles;
    for (const DmaFacts& f : dmas.dmas) {
        cancel();
        const events::DmaRecord& d = f.record;
        transferCycles[{d.dstChip, d.pc}] += d.end - d.start;
        if (d.dstSpace != static_cast<int>(isa::Space::Vmem) || d.dstChip.value >= chips)
            continue;
        for (std::size_t i : perChip[d.dstChip.value].byAddress) {
            const BufferLiveRange& b = out.buffers[i];
            if (b.alias || d.dstAddress < b.address ||
                d.dstAddress + events::dmaDestinationBytes(d) > b.address + b.size)
                continue;
            SingleBufferedLoop& l = loops[{d.dstChip, b.name, d.pc}];
            // Refills that land at different addresses (slots of one buffer) are already multi-buffered.
            if (l.refills > 0 && l.dstAddress != d.dstAddress)
                l.sameAddress = false;
            l.dstAddress = d.dstAddress;
            l.chip = d.dstChip;
            l.buffer = b.name;
            l.bufferBytes = b.size;
            l.dmaPc = d.pc;
            ++l.refills;
            l.exposedCycles += f.exposedCycles;
        }
    }
    for (auto& [key, l] : loops) {
        const std::uint64_t transfer = transferCycles[{l.chip, l.dmaPc}];
        if (l.refills < 2 || !l.sameAddress || l.exposedCycles * 2 < transfer)
            continue;
        l.fitsTwice = out.chips[l.chip.value].peakLiveBytes + l.bufferBytes <= out.capacity;
        out.singleBuffered.push_back(l);
    }
    std::sort(out.singleBuffered.begin(), out.singleBuffered.end(),
              [](const auto& a, const auto& b) { return a.exposedCycles > b.exposedCycles; });
    return out;
}

} // namespace xps::analysis
