#include "compare/run_diff_model.h"

#include "compare/delta_cells.h"
#include "util/text.h"

#include <QBrush>
#include <QColor>
#include <QString>

#include <cstdlib>

namespace xps::ui {
namespace {

QString count(std::uint64_t v)
{
    return QString::fromStdString(text::withThousands(v));
}

// "−1,234" with a real minus sign (as the Apply-and-compare table writes it), "+56", "0".
QString signedCount(std::int64_t v)
{
    const QString digits = count(static_cast<std::uint64_t>(std::llabs(v)));
    return v < 0 ? QStringLiteral("−") + digits : v > 0 ? QStringLiteral("+") + digits : digits;
}

// The stall reason whose cycles changed most: "sync wait −2,800".
QString mainReason(const Compared (&stalls)[events::kStallReasonCount])
{
    int best = 0;
    for (int r = 1; r < events::kStallReasonCount; ++r)
        if (std::llabs(stalls[r].delta()) > std::llabs(stalls[best].delta()))
            best = r;
    if (best == 0 || stalls[best].delta() == 0)
        return {};
    return QString::fromUtf8(events::stallReasonName(static_cast<events::StallReason>(best)).data()) +
           QStringLiteral(" ") + signedCount(stalls[best].delta());
}

QString pcText(const std::optional<std::uint32_t>& pc)
{
    return pc ? QString::fromStdString(text::hex(*pc)) : QStringLiteral("–");
}

} // namespace

void RunDiffModel::setDiff(analysis::RunDiff diff)
{
    beginResetModel();
    m_diff = std::move(diff);
    m_regions.clear();
    for (std::size_t i = 0; i < m_diff.regions.size(); ++i)
        if (m_diff.regions[i].cycles.delta() != 0)
            m_regions.push_back(i);
    endResetModel();
}

RunDiffModel::RowKind RunDiffModel::kindOf(int row) const
{
    return static_cast<std::size_t>(row) < m_regions.size() ? RowKind::Region : RowKind::Bundle;
}

const analysis::RegionDelta* RunDiffModel::regionAt(int row) const
{
    if (row < 0 || static_cast<std::size_t>(row) >= m_regions.size())
        return nullptr;
    return &m_diff.regions[m_regions[static_cast<std::size_t>(row)]];
}

const analysis::PcDelta* RunDiffModel::bundleAt(int row) const
{
    const std::size_t at = static_cast<std::size_t>(row) - m_regions.size();
    if (row < 0 || static_cast<std::size_t>(row) < m_regions.size() || at >= m_diff.pcs.size())
        return nullptr;
    return &m_diff.pcs[at];
}

int RunDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_regions.size() + m_diff.pcs.size());
}

int RunDiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunDiffModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return column == WhatColumn || column == MeasureColumn || column == ReasonColumn
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const analysis::RegionDelta* region = regionAt(index.row());
    const analysis::PcDelta* bundle = region ? nullptr : bundleAt(index.row());
    const Compared& value = region ? region->cycles : bundle->stallCycles;
    if (role == Qt::ForegroundRole && column == ChangeColumn && value.delta() != 0)
        return QBrush(delta::changeColour(value.delta()));
    if (role == Qt::ToolTipRole && column == WhatColumn) {
        const QString other = m_otherHeading.toLower();
        if (region)
            return tr("Region %1 (%2): cycles over its instances and chips; %3 instances in the baseline, %4 "
                      "in "
                      "the %5")
                .arg(QString::fromStdString(region->path), QString::fromStdString(region->level),
                     count(region->instances.baseline), count(region->instances.other), other);
        QString tip = tr("Bundle %1 on chip %2: pc %3 in the baseline, %4 in the %7; executions %5 → %6")
                          .arg(QString::fromStdString(bundle->text))
                          .arg(bundle->chip.value)
                          .arg(pcText(bundle->baselinePc), pcText(bundle->otherPc),
                               count(bundle->executions.baseline), count(bundle->executions.other))
                          .arg(other);
        tip += tr("; cycles (issue and stalls) %1 → %2")
                   .arg(count(bundle->cycles.baseline), count(bundle->cycles.other));
        if (bundle->dmaBytes.baseline || bundle->dmaBytes.other)
            tip += tr("; DMA bytes started %1 → %2, exposed DMA cycles %3 → %4")
                       .arg(count(bundle->dmaBytes.baseline), count(bundle->dmaBytes.other),
                            count(bundle->exposedDmaCycles.baseline), count(bundle->exposedDmaCycles.other));
        return tip;
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case WhatColumn:
        if (region)
            return QString(
                tr("region %1").arg(QString::fromStdString(region->path)) +
                (region->inBaseline ? region->inOther ? QString() : tr(" (removed)") : tr(" (new)")));
        return QString(tr("chip %1 · pc %2 → %3 · %4")
                           .arg(bundle->chip.value)
                           .arg(pcText(bundle->baselinePc), pcText(bundle->otherPc),
                                QString::fromStdString(bundle->text)) +
                       (!bundle->baselinePc ? tr(" (inserted)")
                        : !bundle->otherPc  ? tr(" (removed)")
                                            : QString()));
    case MeasureColumn: return region ? tr("cycles") : tr("stall cycles");
    case BaselineColumn: return count(value.baseline);
    case FixedColumn: return count(value.other);
    case ChangeColumn: return signedCount(value.delta());
    case PercentColumn: return delta::percentCell(value);
    case ReasonColumn: return mainReason(region ? region->stallByReason : bundle->stallByReason);
    default: return {};
    }
}

QVariant RunDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case WhatColumn: return tr("Region or bundle");
    case MeasureColumn: return tr("Measure");
    case BaselineColumn: return tr("Baseline");
    case FixedColumn: return m_otherHeading;
    case ChangeColumn: return tr("Change");
    case PercentColumn: return tr("%");
    case ReasonColumn: return tr("Stall reason that changed most");
    default: return {};
    }
}

} // namespace xps::ui
