#include "analysis/dependencies.h"

#include "asm/disassembler.h"

#include <algorithm>
#include <deque>
#include <tuple>

namespace xps::analysis {

using events::StallReason;

std::string_view pathKindName(PathKind kind)
{
    switch (kind) {
    case PathKind::Compute: return "compute";
    case PathKind::Latency: return "latency";
    case PathKind::Dma: return "DMA";
    case PathKind::Sync: return "sync";
    case PathKind::Structural: return "structural";
    case PathKind::Branch: return "branch";
    case PathKind::Count_: break;
    }
    return "?";
}

std::string_view edgeKindName(EdgeKind kind)
{
    switch (kind) {
    case EdgeKind::Order: return "order";
    case EdgeKind::Data: return "data";
    case EdgeKind::Memory: return "memory";
    case EdgeKind::Flag: return "flag";
    case EdgeKind::Issue: return "issue";
    case EdgeKind::Structural: return "structural";
    }
    return "?";
}

std::uint64_t CriticalPath::total() const
{
    std::uint64_t sum = 0;
    for (std::uint64_t c : cycles)
        sum += c;
    return sum;
}

double CriticalPath::share(PathKind kind) const
{
    const std::uint64_t t = total();
    return t ? static_cast<double>(cycles[static_cast<int>(kind)]) / static_cast<double>(t) : 0.0;
}

DependencyGraph::DependencyGraph(const ReplayView& replay, const DmaAnalysis& dmas)
    : m_replay(replay), m_dmas(dmas), m_bundles(replay.store.bundles()), m_vmem(replay.store.vmemAccesses()),
      m_index(m_bundles, static_cast<int>(replay.trace.chips.size()), replay.stop)
{
    // Sorted vectors rather than node-based maps: a long replay has millions of waits. The store appends a
    // chip's waits as they end, so placing them chip by chip (a counting sort) usually leaves nothing to
    // sort.
    CancelPoint cancel = replay.cancelPoint();
    if (const std::size_t chips = replay.trace.chips.size(); chips > 0) {
        std::vector<std::size_t> start(chips + 1, 0);
        std::size_t satisfied = 0;
        replay.store.forEachSyncWait([&](const events::SyncWaitRecord& w) {
            cancel();
            ++start[std::min<std::size_t>(w.chip.value, chips - 1) + 1];
            satisfied += w.satisfiedBy >= 0 ? 1 : 0;
        });
        for (std::size_t c = 0; c < chips; ++c)
            start[c + 1] += start[c];
        m_waitsByEnd.resize(start[chips]);
        replay.store.forEachSyncWait([&](const events::SyncWaitRecord& w) {
            m_waitsByEnd[start[std::min<std::size_t>(w.chip.value, chips - 1)]++] = w;
        });
        const auto byChipEnd = [](const auto& a, const auto& b) {
            return std::tie(a.chip, a.end) < std::tie(b.chip, b.end);
        };
        if (!std::is_sorted(m_waitsByEnd.begin(), m_waitsByEnd.end(), byChipEnd))
            std::sort(m_waitsByEnd.begin(), m_waitsByEnd.end(), cancel.polling(byChipEnd));
        m_waitsBySatisfier.reserve(satisfied);
    }
    for (const events::SyncWaitRecord& w : m_waitsByEnd)
        if (w.satisfiedBy >= 0)
            m_waitsBySatisfier.push_back(w);
    std::stable_sort(
        m_waitsBySatisfier.begin(), m_waitsBySatisfier.end(),
        cancel.polling([](const auto& a, const auto& b) { return a.satisfiedBy < b.satisfiedBy; }));
    // DMA ids are handed out in issue order, so the facts (sorted by id) are in issue order too.
    std::map<std::pair<ChipId, int>, std::int64_t> lastOnEngine;
    m_prevOnEngine.reserve(dmas.dmas.size());
    for (std::size_t i = 0; i < dmas.dmas.size(); ++i) {
        cancel();
        const events::DmaRecord& d = dmas.dmas[i].record;
        const auto [it, added] = lastOnEngine.try_emplace({d.chip, d.engine}, -1);
        m_prevOnEngine.push_back(it->second);
        it->second = static_cast<std::int64_t>(i);
    }
    m_criticalRanges.resize(replay.trace.chips.size());
    walkCriticalPath();
}

std::int64_t DependencyGraph::seqOf(std::size_t event) const
{
    const events::BundleIssue e = m_bundles[event];
    const std::int64_t last = m_index.lastAtOrBefore(m_bundles, e.chip, e.cycle);
    // At most one bundle per chip per cycle: the last one at or before its cycle is itself.
    return last >= 0 && m_index.event(e.chip, static_cast<std::size_t>(last)) == event ? last : -1;
}

const events::SyncWaitRecord* DependencyGraph::waitEndingAt(ChipId chip, std::uint64_t cycle) const
{
    const auto it =
        std::lower_bound(m_waitsByEnd.begin(), m_waitsByEnd.end(), std::make_pair(chip, cycle),
                         [](const events::SyncWaitRecord& w, const std::pair<ChipId, std::uint64_t>& key) {
                             return std::make_pair(w.chip, w.end) < key;
                         });
    return it != m_waitsByEnd.end() && it->chip == chip && it->end == cycle ? &*it : nullptr;
}

const DmaFacts* DependencyGraph::queuePredecessor(const events::DmaRecord& d) const
{
    // Engines are FIFOs: the DMA ahead of it on the same engine, if that one still ran when this one was
    // issued and ended before this one started.
    const DmaFacts* self = m_dmas.find(d.id);
    if (!self)
        return nullptr;
    const std::int64_t prev = m_prevOnEngine[static_cast<std::size_t>(self - m_dmas.dmas.data())];
    if (prev < 0)
        return nullptr;
    const DmaFacts& p = m_dmas.dmas[static_cast<std::size_t>(prev)];
    return p.record.end > d.issue && p.record.end <= d.start ? &p : nullptr;
}

std::int64_t DependencyGraph::issuingEvent(const events::DmaRecord& d) const
{
    if (d.chip.value >= m_replay.trace.chips.size())
        return -1;
    const std::int64_t seq = m_index.lastAtOrBefore(m_bundles, d.chip, d.issue);
    return seq < 0 ? -1 : static_cast<std::int64_t>(m_index.event(d.chip, static_cast<std::size_t>(seq)));
}

void DependencyGraph::walkCriticalPath()
{
    if (m_bundles.size() == 0)
        return;
    CancelPoint cancel = m_replay.cancelPoint();
    // Start from the chip that finished last.
    ChipId lastChip(0);
    std::uint64_t lastCycle = 0;
    for (std::size_t c = 0; c < m_replay.trace.chips.size(); ++c) {
        const std::size_t n = m_index.count(chipIdAt(c));
        if (n == 0)
            continue;
        const std::uint64_t cyc = m_bundles[m_index.event(chipIdAt(c), n - 1)].cycle;
        if (cyc >= lastCycle) {
            lastCycle = cyc;
            lastChip = chipIdAt(c);
        }
    }
    // A wait on a result is compute when a functional unit computed it (the MXU's pipeline, a vector or
    // scalar op, the result FIFO): a compute-bound kernel reads as compute-bound. It is latency when only a
    // load produced it (VMEM or SMEM access time).
    const auto producedByCompute = [&](std::size_t event) {
        const events::BundleIssue b = m_bundles[event];
        const auto& bundles = m_replay.trace.chips[b.chip.value].program.bundles;
        if (b.pc >= bundles.size())
            return true;
        bool load = false;
        for (const isa::Instruction& insn : bundles[b.pc].instructions) {
            const isa::Unit unit = isa::info(insn.opcode).unit;
            if (unit == isa::Unit::VectorLoad || unit == isa::Unit::ScalarMemory)
                load = true;
            else if (unit != isa::Unit::Marker && unit != isa::Unit::Control && unit != isa::Unit::Branch &&
                     unit != isa::Unit::Sync && unit != isa::Unit::Dma && unit != isa::Unit::VectorStore)
                return true;
        }
        return !load;
    };
    std::vector<PathSegment> reversed;
    // At most one segment per step of the walk (the loop's bound below): reserving it up front costs
    // address space only, and spares the copies (and the first touches of each copy) of a growing vector.
    reversed.reserve(m_bundles.size() + m_dmas.dmas.size() + 2);
    const auto add = [&](PathKind kind, ChipId chip, std::uint64_t from, std::uint64_t to, NodeRef begin,
                         NodeRef end) {
        if (to < from)
            from = to;
        if (!reversed.empty() && reversed.back().kind == kind && reversed.back().chip == chip &&
            reversed.back().from == to && kind == PathKind::Compute) {
            reversed.back().from = from;
            reversed.back().begin = begin;
            ++reversed.back().steps;
            return;
        }
        reversed.push_back({kind, chip, from, to, begin, end, 1});
    };

    NodeRef cur{NodeRef::Kind::Bundle, m_index.event(lastChip, m_index.count(lastChip) - 1)};
    // The chip sequence number of `cur` when the step that led to it knew it (most steps go to the
    // previous bundle or to a producer named by sequence number): spares a search per step.
    std::int64_t knownSeq = static_cast<std::int64_t>(m_index.count(lastChip)) - 1;
    // The walk goes back in time, so per chip the waits it asks about end ever earlier: a cursor per chip
    // into m_waitsByEnd (sorted by chip, end) replaces a binary search per wait.
    const std::size_t chips = m_replay.trace.chips.size();
    std::vector<std::size_t> waitCursor(chips), waitBegin(chips);
    std::vector<std::uint64_t> lastAsked(chips, UINT64_MAX);
    for (std::size_t c = 0; c < chips; ++c) {
        const auto key = [](const events::SyncWaitRecord& w, std::size_t chip) {
            return w.chip.value < chip;
        };
        waitBegin[c] = static_cast<std::size_t>(
            std::lower_bound(m_waitsByEnd.begin(), m_waitsByEnd.end(), c, key) - m_waitsByEnd.begin());
        waitCursor[c] = static_cast<std::size_t>(
            std::lower_bound(m_waitsByEnd.begin(), m_waitsByEnd.end(), c + 1, key) - m_waitsByEnd.begin());
    }
    const auto waitEndingAtBackwards = [&](ChipId chip,
                                           std::uint64_t cycle) -> const events::SyncWaitRecord* {
        const std::size_t c = chip.value;
        if (c >= chips || cycle > lastAsked[c])
            return waitEndingAt(chip, cycle);
        lastAsked[c] = cycle;
        std::size_t& at = waitCursor[c];
        while (at > waitBegin[c] && m_waitsByEnd[at - 1].end > cycle)
            --at;
        return at > waitBegin[c] && m_waitsByEnd[at - 1].end == cycle ? &m_waitsByEnd[at - 1] : nullptr;
    };
    // Each step moves to an earlier event, so the walk ends; the bound guards against a malformed store.
    for (std::size_t guard = 0; guard < m_bundles.size() + m_dmas.dmas.size() + 2; ++guard) {
        cancel();
        if (cur.kind == NodeRef::Kind::Dma) {
            const DmaFacts* f = m_dmas.find(static_cast<std::uint32_t>(cur.index));
            if (!f)
                break;
            const events::DmaRecord& d = f->record;
            if (const DmaFacts* p = queuePredecessor(d)) {
                add(PathKind::Dma, d.chip, p->record.end, d.end, {NodeRef::Kind::Dma, p->record.id}, cur);
                cur = {NodeRef::Kind::Dma, p->record.id};
                continue;
            }
            const std::int64_t issuer = issuingEvent(d);
            if (issuer < 0)
                break;
            add(PathKind::Dma, d.chip, d.issue, d.end,
                {NodeRef::Kind::Bundle, static_cast<std::uint64_t>(issuer)}, cur);
            cur = {NodeRef::Kind::Bundle, static_cast<std::uint64_t>(issuer)};
            continue;
        }
        const events::BundleIssue e = m_bundles[cur.index];
        const std::int64_t seq = knownSeq >= 0 ? knownSeq : seqOf(cur.index);
        knownSeq = -1;
        if (seq < 0)
            break;
        const bool hasPrev = seq > 0;
        // The chip's first bundle has no predecessor: its start-up segment begins at itself.
        const NodeRef prev{NodeRef::Kind::Bundle,
                           hasPrev ? m_index.event(e.chip, static_cast<std::size_t>(seq - 1)) : cur.index};
        const std::uint64_t prevCycle = hasPrev ? m_bundles[prev.index].cycle : 0;
        const std::uint64_t stallStart = e.cycle - std::min<std::uint64_t>(e.stallCycles, e.cycle);

        if (e.stallCycles > 0 && e.causeKind == events::CauseKind::Instruction &&
            (e.reason == StallReason::OperandDependency || e.reason == StallReason::ResultFifoEmpty) &&
            e.cause < seq) {
            const NodeRef producer{NodeRef::Kind::Bundle, m_index.event(e.chip, e.cause)};
            add(e.reason == StallReason::ResultFifoEmpty || producedByCompute(producer.index)
                    ? PathKind::Compute
                    : PathKind::Latency,
                e.chip, m_bundles[producer.index].cycle, e.cycle, producer, cur);
            cur = producer;
            knownSeq = static_cast<std::int64_t>(e.cause);
            continue;
        }
        if (e.stallCycles > 0 && e.reason == StallReason::SyncWait) {
            const events::SyncWaitRecord* w = waitEndingAtBackwards(e.chip, e.cycle);
            const DmaFacts* f =
                w && w->satisfiedBy >= 0 ? m_dmas.find(static_cast<std::uint32_t>(w->satisfiedBy)) : nullptr;
            if (f && f->record.end <= e.cycle) {
                const NodeRef dma{NodeRef::Kind::Dma, f->record.id};
                add(PathKind::Sync, e.chip, f->record.end, e.cycle, dma, cur);
                cur = dma;
                continue;
            }
            add(PathKind::Sync, e.chip, std::max(stallStart, prevCycle), e.cycle, prev, cur);
            if (hasPrev && stallStart > prevCycle)
                add(PathKind::Compute, e.chip, prevCycle, stallStart, prev, prev);
        } else if (e.stallCycles > 0 && e.reason == StallReason::BranchBubble) {
            add(PathKind::Branch, e.chip, prevCycle, e.cycle, prev, cur);
        } else if (e.stallCycles > 0 && e.reason != StallReason::None) {
            add(e.reason == StallReason::ResultFifoEmpty     ? PathKind::Compute
                : e.reason == StallReason::OperandDependency ? PathKind::Latency
                                                             : PathKind::Structural,
                e.chip, std::max(stallStart, prevCycle), e.cycle, prev, cur);
            if (hasPrev && stallStart > prevCycle)
                add(PathKind::Compute, e.chip, prevCycle, stallStart, prev, prev);
        } else {
            add(PathKind::Compute, e.chip, prevCycle, e.cycle, prev, cur);
        }
        if (!hasPrev)
            break;
        cur = prev;
        knownSeq = seq - 1;
    }
    // The first bundle of the path issued at cycle `from` of its first segment; the cycles before it
    // (usually none) are start-up.
    std::reverse(reversed.begin(), reversed.end());
    m_path.segments = std::move(reversed);
    // Critical bundles per chip as merged cycle ranges. The path runs forward in time on each chip, so a
    // range usually extends the chip's last one: merged as they come, millions of segments make a few
    // ranges per chip, not three entries each.
    const auto addRange = [&](ChipId chip, std::uint64_t from, std::uint64_t to) {
        auto& r = m_criticalRanges[chip.value];
        if (!r.empty() && from >= r.back().first && from <= r.back().second + 1) {
            r.back().second = std::max(r.back().second, to);
            return;
        }
        r.push_back({from, to});
    };
    for (std::size_t i = 0; i < m_path.segments.size(); ++i) {
        const PathSegment& s = m_path.segments[i];
        cancel();
        m_path.cycles[static_cast<int>(s.kind)] += s.to - s.from;
        if (s.kind != PathKind::Compute && (m_path.longestStall == CriticalPath::kNoSegment ||
                                            s.to - s.from > m_path.segments[m_path.longestStall].to -
                                                                m_path.segments[m_path.longestStall].from))
            m_path.longestStall = i;
        if (s.kind == PathKind::Compute)
            addRange(s.chip, s.from, s.to); // covers its begin and end bundles
        for (const NodeRef& n : {s.begin, s.end}) {
            if (n.kind == NodeRef::Kind::Dma) {
                m_criticalDmas.push_back(static_cast<std::uint32_t>(n.index));
            } else if (s.kind != PathKind::Compute) {
                const events::BundleIssue b = m_bundles[n.index];
                addRange(b.chip, b.cycle, b.cycle);
            }
        }
    }
    if (m_path.longestStall == CriticalPath::kNoSegment && !m_path.segments.empty())
        m_path.longestStall = m_path.segments.size() - 1;
    for (auto& r : m_criticalRanges) {
        if (!std::is_sorted(r.begin(), r.end()))
            std::sort(r.begin(), r.end());
        // Merge what overlaps or touches (cycles are whole numbers): one range holds any cycle.
        std::size_t kept = 0;
        for (std::size_t i = 0; i < r.size(); ++i) {
            if (kept > 0 && r[i].first <= r[kept - 1].second + 1)
                r[kept - 1].second = std::max(r[kept - 1].second, r[i].second);
            else
                r[kept++] = r[i];
        }
        r.resize(kept);
        r.shrink_to_fit();
    }
    std::sort(m_criticalDmas.begin(), m_criticalDmas.end());
    m_criticalDmas.erase(std::unique(m_criticalDmas.begin(), m_criticalDmas.end()), m_criticalDmas.end());
}

bool DependencyGraph::onCriticalPath(NodeRef node) const
{
    if (node.kind == NodeRef::Kind::Dma)
        return std::binary_search(m_criticalDmas.begin(), m_criticalDmas.end(),
                                  static_cast<std::uint32_t>(node.index));
    if (node.index >= m_bundles.size())
        return false;
    const events::BundleIssue e = m_bundles[node.index];
    const auto& ranges = m_criticalRanges[e.chip.value];
    // Ranges are disjoint: only the last one starting at or before the cycle can hold it.
    const auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(e.cycle, UINT64_MAX));
    return it != ranges.begin() && e.cycle <= std::prev(it)->second;
}

std::int64_t DependencyGraph::lastVmemWriter(std::size_t event) const
{
    // The bundle's own VMEM reads are recorded at its issue cycle; the writer is the last earlier write
    // that overlaps one of them, searched within a bounded window.
    const events::BundleIssue e = m_bundles[event];
    const std::int64_t seq = seqOf(event);
    if (seq < 0)
        return -1;
    const auto [first, last] = m_vmem.cycleRange(e.cycle, e.cycle + 1);
    std::vector<events::VmemAccess> reads;
    for (std::size_t i = first; i < last; ++i) {
        const events::VmemAccess a = m_vmem[i];
        if (a.chip == e.chip && !a.byDma() && !a.isWrite() && a.source == static_cast<std::uint32_t>(seq))
            reads.push_back(a);
    }
    constexpr std::size_t kWindow = 1 << 16;
    for (std::size_t i = first; i-- > (first > kWindow ? first - kWindow : 0);) {
        const events::VmemAccess a = m_vmem[i];
        if (a.chip != e.chip || !a.isWrite())
            continue;
        for (const events::VmemAccess& r : reads)
            if (a.address < r.address + r.bytes && r.address < a.address + a.bytes)
                return a.byDma() ? -2 - static_cast<std::int64_t>(a.source) // a DMA id, encoded
                                 : static_cast<std::int64_t>(m_index.event(e.chip, a.source));
    }
    return -1;
}

std::vector<DependencyGraph::Edge> DependencyGraph::predecessors(NodeRef node) const
{
    std::vector<Edge> out;
    if (node.kind == NodeRef::Kind::Dma) {
        const DmaFacts* f = m_dmas.find(static_cast<std::uint32_t>(node.index));
        if (!f)
            return out;
        if (const std::int64_t issuer = issuingEvent(f->record); issuer >= 0)
            out.push_back({{NodeRef::Kind::Bundle, static_cast<std::uint64_t>(issuer)}, EdgeKind::Issue});
        if (const DmaFacts* p = queuePredecessor(f->record))
            out.push_back({{NodeRef::Kind::Dma, p->record.id}, EdgeKind::Structural});
        return out;
    }
    if (node.index >= m_bundles.size())
        return out;
    const events::BundleIssue e = m_bundles[node.index];
    const std::int64_t seq = seqOf(node.index);
    if (seq > 0)
        out.push_back({{NodeRef::Kind::Bundle, m_index.event(e.chip, static_cast<std::size_t>(seq - 1))},
                       EdgeKind::Order});
    if (e.causeKind == events::CauseKind::Instruction && e.cause < seq)
        out.push_back({{NodeRef::Kind::Bundle, m_index.event(e.chip, e.cause)},
                       e.reason == StallReason::OperandDependency || e.reason == StallReason::ResultFifoEmpty
                           ? EdgeKind::Data
                           : EdgeKind::Structural});
    if (const events::SyncWaitRecord* w = waitEndingAt(e.chip, e.cycle); w && w->satisfiedBy >= 0)
        out.push_back({{NodeRef::Kind::Dma, static_cast<std::uint64_t>(w->satisfiedBy)}, EdgeKind::Flag});
    if (const std::int64_t writer = lastVmemWriter(node.index); writer != -1) {
        if (writer >= 0)
            out.push_back({{NodeRef::Kind::Bundle, static_cast<std::uint64_t>(writer)}, EdgeKind::Memory});
        else
            out.push_back({{NodeRef::Kind::Dma, static_cast<std::uint64_t>(-2 - writer)}, EdgeKind::Memory});
    }
    return out;
}

std::vector<DependencyGraph::Edge> DependencyGraph::successors(NodeRef node) const
{
    std::vector<Edge> out;
    if (node.kind == NodeRef::Kind::Dma) {
        const auto lo = std::lower_bound(
            m_waitsBySatisfier.begin(), m_waitsBySatisfier.end(), static_cast<std::int64_t>(node.index),
            [](const events::SyncWaitRecord& w, std::int64_t id) { return w.satisfiedBy < id; });
        for (auto it = lo;
             it != m_waitsBySatisfier.end() && it->satisfiedBy == static_cast<std::int64_t>(node.index);
             ++it) {
            const events::SyncWaitRecord& w = *it;
            const std::int64_t seq = m_index.lastAtOrBefore(m_bundles, w.chip, w.end);
            if (seq >= 0)
                out.push_back({{NodeRef::Kind::Bundle, m_index.event(w.chip, static_cast<std::size_t>(seq))},
                               EdgeKind::Flag});
        }
        return out;
    }
    if (node.index >= m_bundles.size())
        return out;
    const events::BundleIssue e = m_bundles[node.index];
    const std::int64_t seq = seqOf(node.index);
    if (seq < 0)
        return out;
    const std::size_t count = m_index.count(e.chip);
    if (static_cast<std::size_t>(seq) + 1 < count)
        out.push_back({{NodeRef::Kind::Bundle, m_index.event(e.chip, static_cast<std::size_t>(seq) + 1)},
                       EdgeKind::Order});
    // Consumers that stalled on this bundle's result: within a window of later bundles.
    for (std::size_t s = static_cast<std::size_t>(seq) + 1;
         s < std::min(count, static_cast<std::size_t>(seq) + 256); ++s) {
        const events::BundleIssue c = m_bundles[m_index.event(e.chip, s)];
        if (c.causeKind == events::CauseKind::Instruction && c.cause == static_cast<std::uint32_t>(seq))
            out.push_back({{NodeRef::Kind::Bundle, m_index.event(e.chip, s)}, EdgeKind::Data});
    }
    const auto first =
        std::lower_bound(m_dmas.dmas.begin(), m_dmas.dmas.end(), e.cycle,
                         [](const DmaFacts& f, std::uint64_t c) { return f.record.issue < c; });
    for (auto it = first; it != m_dmas.dmas.end() && it->record.issue == e.cycle; ++it)
        if (it->record.chip == e.chip && it->record.pc == e.pc)
            out.push_back({{NodeRef::Kind::Dma, it->record.id}, EdgeKind::Issue});
    return out;
}

GraphNode DependencyGraph::describe(NodeRef node) const
{
    GraphNode n;
    n.ref = node;
    n.critical = onCriticalPath(node);
    if (node.kind == NodeRef::Kind::Dma) {
        if (const DmaFacts* f = m_dmas.find(static_cast<std::uint32_t>(node.index))) {
            const events::DmaRecord& d = f->record;
            n.chip = d.chip;
            n.pc = d.pc;
            n.start = d.issue;
            n.end = d.end;
            n.label = "DMA " + std::to_string(d.id) + ": " + std::to_string(d.bytes) + " B " +
                      std::string(isa::spaceName(static_cast<isa::Space>(d.srcSpace))) + "->" +
                      std::string(isa::spaceName(static_cast<isa::Space>(d.dstSpace))) +
                      (d.dstChip != d.chip ? " chip " + std::to_string(d.dstChip.value) : "") + ", engine " +
                      std::to_string(d.engine);
        }
        return n;
    }
    const events::BundleIssue e = m_bundles[node.index];
    n.chip = e.chip;
    n.pc = e.pc;
    n.start = n.end = e.cycle;
    const trace::ChipTrace& chip = m_replay.trace.chips[e.chip.value];
    n.label = "pc " + std::to_string(e.pc) + ": " +
              (e.pc < chip.program.bundles.size()
                   ? assembly::disassembleBundle(chip.program.bundles[e.pc], chip.symbols)
                   : std::string("?"));
    return n;
}

Subgraph DependencyGraph::subgraph(NodeRef center, int radius, std::size_t maxNodes) const
{
    Subgraph g;
    std::map<NodeRef, std::size_t> index;
    std::deque<std::pair<NodeRef, int>> queue{{center, 0}};
    index[center] = 0;
    g.nodes.push_back(describe(center));
    std::vector<std::tuple<NodeRef, NodeRef, EdgeKind>> edges;
    while (!queue.empty()) {
        // Not a structured binding: the lambda below captures both (clang before 16 cannot capture bindings).
        const NodeRef node = queue.front().first;
        const int depth = queue.front().second;
        queue.pop_front();
        if (depth >= radius)
            continue;
        const auto visit = [&](const Edge& e, bool incoming) {
            if (!index.count(e.node)) {
                if (g.nodes.size() >= maxNodes)
                    return;
                index[e.node] = g.nodes.size();
                g.nodes.push_back(describe(e.node));
                queue.push_back({e.node, depth + 1});
            }
            edges.push_back(incoming ? std::make_tuple(e.node, node, e.kind)
                                     : std::make_tuple(node, e.node, e.kind));
        };
        for (const Edge& e : predecessors(node))
            visit(e, true);
        for (const Edge& e : successors(node))
            visit(e, false);
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    for (const auto& [from, to, kind] : edges) {
        GraphEdge e;
        e.from = index.at(from);
        e.to = index.at(to);
        e.kind = kind;
        const GraphNode& a = g.nodes[e.from];
        const GraphNode& b = g.nodes[e.to];
        const std::uint64_t ready =
            kind == EdgeKind::Flag || (kind == EdgeKind::Memory && a.ref.kind == NodeRef::Kind::Dma)
                ? a.end
                : a.start;
        e.cycles = b.start > ready ? b.start - ready : 0;
        e.critical = a.critical && b.critical;
        g.edges.push_back(e);
    }
    // Two critical nodes joined by program order are not a critical step when something else (a flag, a
    // data dependency) is what held the later one back: only that edge is on the path.
    for (GraphEdge& e : g.edges)
        if (e.critical && e.kind == EdgeKind::Order &&
            std::any_of(g.edges.begin(), g.edges.end(), [&](const GraphEdge& o) {
                return o.to == e.to && o.critical && o.kind != EdgeKind::Order;
            }))
            e.critical = false;
    return g;
}

} // namespace xps::analysis
