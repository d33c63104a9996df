#include "views/event_text.h"

#include "asm/disassembler.h"
#include "util/text.h"

namespace xps::ui {

QString cyclesText(std::uint64_t cycles)
{
    return QString::fromStdString(text::withThousands(cycles));
}

QString timeText(std::uint64_t cycles, const isa::MachineConfig& machine)
{
    const double us = static_cast<double>(cycles) / machine.clockMhz;
    if (us >= 1000.0)
        return QStringLiteral("%1 ms").arg(us / 1000.0, 0, 'f', 3);
    return QStringLiteral("%1 µs").arg(us, 0, 'f', us < 10.0 ? 3 : 2);
}

QString bytesText(std::uint64_t bytes)
{
    return QString::fromStdString(text::formatBytes(bytes));
}

QString bundleText(const trace::Trace& trace, ChipId chip, std::uint32_t pc)
{
    if (chip.value >= trace.chips.size())
        return {};
    const trace::ChipTrace& c = trace.chips[chip.value];
    if (pc >= c.program.bundles.size())
        return {};
    return QString::fromStdString(assembly::disassembleBundle(c.program.bundles[pc], c.symbols));
}

QString regionName(const trace::Trace& trace, ChipId chip, std::uint32_t region)
{
    if (chip.value >= trace.chips.size())
        return {};
    const auto& regions = trace.chips[chip.value].symbols.regions;
    return region < regions.size() ? QString::fromStdString(regions[region].name) : QStringLiteral("region %1").arg(region);
}

QString dmaSummary(const trace::Trace& trace, const events::DmaRecord& d)
{
    Q_UNUSED(trace);
    QString path = QString::fromUtf8(isa::spaceName(static_cast<isa::Space>(d.srcSpace)).data()).toUpper() +
                   QStringLiteral("→") +
                   QString::fromUtf8(isa::spaceName(static_cast<isa::Space>(d.dstSpace)).data()).toUpper();
    if (d.dstChip != d.chip)
        path += QStringLiteral(" (chip %1→%2)").arg(d.chip.value).arg(d.dstChip.value);
    return QStringLiteral("%1 %2, engine %3").arg(path, bytesText(d.bytes)).arg(d.engine);
}

namespace {

QString firstWordOfUnit(const trace::Trace& trace, ChipId chip, std::uint32_t pc, analysis::UnitGroup group)
{
    const trace::ChipTrace& c = trace.chips[chip.value];
    if (pc >= c.program.bundles.size())
        return {};
    for (const isa::Instruction& insn : c.program.bundles[pc].instructions) {
        const isa::Unit u = insn.info().unit;
        const bool match = (group == analysis::UnitGroup::Scalar &&
                            (u == isa::Unit::ScalarAlu || u == isa::Unit::ScalarMemory || u == isa::Unit::Branch)) ||
                           (group == analysis::UnitGroup::VectorAlu &&
                            (u == isa::Unit::VectorAlu || u == isa::Unit::Transcendental)) ||
                           (group == analysis::UnitGroup::LoadStore &&
                            (u == isa::Unit::VectorLoad || u == isa::Unit::VectorStore)) ||
                           (group == analysis::UnitGroup::Mxu &&
                            (u == isa::Unit::MxuWeights || u == isa::Unit::MxuMatmul || u == isa::Unit::MxuResult)) ||
                           (group == analysis::UnitGroup::CrossLane && u == isa::Unit::CrossLane);
        if (match)
            return QString::fromUtf8(insn.info().mnemonic.data(), static_cast<qsizetype>(insn.info().mnemonic.size()));
    }
    return {};
}

QString span(const analysis::LaneItem& item, const isa::MachineConfig& m)
{
    return QStringLiteral("cycles %1 – %2 (%3 cycles, %4)")
        .arg(cyclesText(item.start), cyclesText(item.end), cyclesText(item.end - item.start), timeText(item.end - item.start, m));
}

} // namespace

QString itemLabel(const trace::Trace& trace, const analysis::ActivityLanes& lanes, const analysis::LaneInfo& lane,
                  const analysis::LaneItem& item)
{
    using analysis::LaneKind;
    switch (lane.kind) {
    case LaneKind::Unit: {
        const events::BundleSnapshot b = lanes.bundles();
        return item.ref < b.size() ? firstWordOfUnit(trace, lane.chip, b[item.ref].pc, static_cast<analysis::UnitGroup>(lane.index))
                                   : QString();
    }
    case LaneKind::Stall: return QString::fromUtf8(events::stallReasonName(static_cast<events::StallReason>(item.category)).data());
    case LaneKind::SyncWait: {
        events::SyncWaitRecord w;
        return lanes.syncWait(item.ref, w) ? QStringLiteral("wait f%1 ≥ %2").arg(w.flag).arg(w.target) : QString();
    }
    case LaneKind::Region: {
        events::RegionInstance r;
        return lanes.region(item.ref, r) ? regionName(trace, r.chip, r.region()) : QString();
    }
    case LaneKind::DmaEngine:
    case LaneKind::IciLink: {
        events::DmaRecord d;
        return lanes.dma(static_cast<std::uint32_t>(item.ref), d) ? QStringLiteral("#%1 %2").arg(d.id).arg(bytesText(d.bytes)) : QString();
    }
    }
    return {};
}

QString itemTooltip(const trace::Trace& trace, const analysis::ActivityLanes& lanes, const analysis::LaneInfo& lane,
                    const analysis::LaneItem& item)
{
    using analysis::LaneKind;
    const isa::MachineConfig& m = trace.machine;
    auto escape = [](const QString& s) { return s.toHtmlEscaped(); };
    switch (lane.kind) {
    case LaneKind::Unit:
    case LaneKind::Stall: {
        const events::BundleSnapshot b = lanes.bundles();
        if (item.ref >= b.size())
            return {};
        const events::BundleIssue e = b[item.ref];
        QString t = QStringLiteral("<b>chip %1 pc %2</b><br><tt>%3</tt><br>issued at cycle %4")
                        .arg(e.chip.value)
                        .arg(e.pc)
                        .arg(escape(bundleText(trace, e.chip, e.pc)), cyclesText(e.cycle));
        if (e.stallCycles)
            t += QStringLiteral("<br>stalled %1 cycles: %2")
                     .arg(cyclesText(e.stallCycles), QString::fromUtf8(events::stallReasonName(e.reason).data()));
        if (lane.kind == LaneKind::Unit)
            t += QStringLiteral("<br>%1 busy %2").arg(QString::fromStdString(lane.name), span(item, m));
        return t;
    }
    case LaneKind::SyncWait: {
        events::SyncWaitRecord w;
        if (!lanes.syncWait(item.ref, w))
            return {};
        QString t = QStringLiteral("<b>sync.wait</b> chip %1 pc %2: flag %3 ≥ %4<br>%5")
                        .arg(w.chip.value)
                        .arg(w.pc)
                        .arg(w.flag)
                        .arg(w.target)
                        .arg(span(item, m));
        t += w.satisfiedBy >= 0 ? QStringLiteral("<br>ended by DMA #%1").arg(w.satisfiedBy)
                                : QStringLiteral("<br>ended by a sync.add/set (another chip or the core)");
        return t;
    }
    case LaneKind::Region: {
        events::RegionInstance r;
        if (!lanes.region(item.ref, r))
            return {};
        return QStringLiteral("<b>%1</b> (chip %2, depth %3)<br>%4")
            .arg(escape(regionName(trace, r.chip, r.region())))
            .arg(r.chip.value)
            .arg(r.slice.depth)
            .arg(span(item, m));
    }
    case LaneKind::DmaEngine:
    case LaneKind::IciLink: {
        events::DmaRecord d;
        if (!lanes.dma(static_cast<std::uint32_t>(item.ref), d))
            return {};
        const double cycles = static_cast<double>(std::max<events::Cycle>(1, d.end - d.start));
        const double gbs = static_cast<double>(d.bytes) / cycles * m.clockMhz / 1000.0;
        return QStringLiteral(
                   "<b>DMA #%1</b> %2<br>issued by chip %3 pc %4 at cycle %5<br>queued %6 cycles, moving %7"
                   "<br>achieved %8 GB/s; flag %9<br><tt>%10</tt>")
            .arg(d.id)
            .arg(escape(dmaSummary(trace, d)))
            .arg(d.chip.value)
            .arg(d.pc)
            .arg(cyclesText(d.issue), cyclesText(d.start - d.issue),
                 span({d.start, d.end, d.start, d.id, 0}, m))
            .arg(gbs, 0, 'f', 1)
            .arg(d.flag)
            .arg(escape(bundleText(trace, d.chip, d.pc)));
    }
    }
    return {};
}

} // namespace xps::ui
