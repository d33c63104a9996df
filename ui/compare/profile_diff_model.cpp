#include "compare/profile_diff_model.h"

#include "compare/delta_cells.h"
#include "imported/profile_text.h"
#include "util/text.h"

#include <QBrush>
#include <QColor>

#include <cstdlib>

namespace xps::ui {
namespace {

QString calls(std::uint64_t v)
{
    return QString::fromStdString(text::withThousands(v));
}

// "+120 us", "−1.25 ms" (a real minus sign, as the replay comparison's table writes it), "0".
QString signedDuration(std::int64_t ns)
{
    if (ns == 0)
        return QStringLiteral("0");
    return (ns < 0 ? QStringLiteral("−") : QStringLiteral("+")) + formatDuration(std::llabs(ns));
}

QString presence(bool inBaseline, bool inOther)
{
    return inBaseline ? inOther ? QString() : QObject::tr(" (gone)") : QObject::tr(" (new)");
}

QString str(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

ProfileDiffModel::ProfileDiffModel(Table table, QObject* parent) : QAbstractTableModel(parent), m_table(table)
{
}

void ProfileDiffModel::setDiff(const profile::ProfileDiff& diff)
{
    beginResetModel();
    m_rows.clear();
    switch (m_table) {
    case Table::Operations: addOperations(diff); break;
    case Table::Devices: addDevices(diff); break;
    case Table::CriticalPath: addCriticalPath(diff); break;
    }
    endResetModel();
}

void ProfileDiffModel::addOperations(const profile::ProfileDiff& diff)
{
    for (const profile::OpDelta& op : diff.ops) {
        Row row;
        row.what = str(op.name) + presence(op.inBaseline, op.inOther);
        row.where = str(op.where);
        row.calls = op.count;
        row.value = op.total;
        row.baselineFirst = op.baselineFirst;
        row.otherFirst = op.otherFirst;
        row.tip =
            tr("%1 (%2, on %3)\ncalls %4 → %5\ntotal %6 → %7\nself %8 → %9\ndevice time %10 → %11")
                .arg(str(op.name), str(op.category), str(op.where), calls(op.count.baseline),
                     calls(op.count.other), formatDuration(static_cast<profile::Nanos>(op.total.baseline)),
                     formatDuration(static_cast<profile::Nanos>(op.total.other)),
                     formatDuration(static_cast<profile::Nanos>(op.self.baseline)),
                     formatDuration(static_cast<profile::Nanos>(op.self.other)))
                .arg(formatDuration(static_cast<profile::Nanos>(op.deviceTime.baseline)),
                     formatDuration(static_cast<profile::Nanos>(op.deviceTime.other)));
        m_rows.push_back(std::move(row));
    }
}

void ProfileDiffModel::addDevices(const profile::ProfileDiff& diff)
{
    Row span;
    span.what = tr("span");
    span.where = tr("first event to last");
    span.value = diff.span;
    span.tip = tr("The time from the profile's first event to its last");
    m_rows.push_back(std::move(span));
    for (const profile::DeviceDelta& d : diff.devices) {
        const QString name = str(d.name) + presence(d.inBaseline, d.inOther);
        for (const auto& [measure, value, tip] : {
                 std::tuple{tr("busy"), &d.busy, tr("Time with any work on the device")},
                 std::tuple{tr("compute"), &d.compute, tr("Time in compute kernels")},
                 std::tuple{tr("communication"), &d.communication,
                            tr("Time in collectives, sends, receives")},
                 std::tuple{tr("  exposed communication"), &d.communicationExposed,
                            tr("Communication with no compute beside it")},
                 std::tuple{tr("memcpy"), &d.memcpy, tr("Time in memory copies")},
                 std::tuple{tr("  exposed memcpy"), &d.memcpyExposed,
                            tr("Copies with no compute beside them")},
                 std::tuple{tr("memset"), &d.memset, tr("Time in memory sets")},
                 std::tuple{tr("idle"), &d.idle, tr("The span less the busy time")},
             }) {
            Row row;
            row.what = name;
            row.where = measure;
            row.value = *value;
            row.tip = tip;
            m_rows.push_back(std::move(row));
        }
    }
}

void ProfileDiffModel::addCriticalPath(const profile::ProfileDiff& diff)
{
    Row length;
    length.what = tr("length");
    length.where = tr("the whole path");
    length.value = diff.criticalPathLength;
    length.tip = tr("The heaviest path through operators, kernels and delays (HTA's model); for a "
                    "replay, the replay's own critical path");
    m_rows.push_back(std::move(length));
    for (int k = 0; k < profile::kPathSegmentKindCount; ++k) {
        const Compared& c = diff.criticalPathByKind[k];
        if (!c.baseline && !c.other)
            continue;
        Row row;
        row.what = tr("all segments");
        row.where =
            QString::fromUtf8(profile::pathSegmentName(static_cast<profile::PathSegmentKind>(k)).data());
        row.value = c;
        row.tip = tr("The path's time in segments of this kind");
        m_rows.push_back(std::move(row));
    }
    for (const profile::PathOpDelta& op : diff.criticalPathOps) {
        Row row;
        // Not "(new)": an operation on one path only may well be in both profiles ("new" in the % column).
        row.what = str(op.name);
        row.where = QString::fromUtf8(profile::pathSegmentName(op.kind).data());
        row.value = op.onPath;
        row.baselineFirst = op.baselineFirst;
        row.otherFirst = op.otherFirst;
        row.tip = tr("The time %1 holds on each critical path as %2").arg(str(op.name), row.where);
        m_rows.push_back(std::move(row));
    }
}

std::pair<profile::SliceRow, profile::SliceRow> ProfileDiffModel::firstInstances(int row) const
{
    if (row < 0 || static_cast<std::size_t>(row) >= m_rows.size())
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(row)];
    return {r.baselineFirst, r.otherFirst};
}

int ProfileDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ProfileDiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileDiffModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || static_cast<std::size_t>(index.row()) >= m_rows.size())
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    const Compared& v = row.value;
    switch (role) {
    case Qt::TextAlignmentRole:
        return column == WhatColumn || column == WhereColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                             : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (column == ChangeColumn && v.delta() != 0)
            return QBrush(delta::changeColour(v.delta()));
        return {};
    case Qt::ToolTipRole: return row.tip;
    case SortRole:
        switch (column) {
        case WhatColumn: return row.what.toLower();
        case WhereColumn: return row.where.toLower();
        case CallsColumn: return row.calls ? QVariant::fromValue(row.calls->other) : QVariant();
        case BaselineColumn: return QVariant::fromValue(v.baseline);
        case OtherColumn: return QVariant::fromValue(v.other);
        // Changes sort by size, either way: the largest change first, as the table opens.
        case ChangeColumn: return QVariant::fromValue(static_cast<qlonglong>(std::llabs(v.delta())));
        case PercentColumn: return v.percent().value_or(v.other ? 1e300 : 0.0);
        default: return {};
        }
    case Qt::DisplayRole:
        switch (column) {
        case WhatColumn: return row.what;
        case WhereColumn: return row.where;
        case CallsColumn:
            if (!row.calls)
                return {};
            return row.calls->delta() == 0
                       ? calls(row.calls->other)
                       : calls(row.calls->baseline) + QStringLiteral(" → ") + calls(row.calls->other);
        case BaselineColumn: return formatDuration(static_cast<profile::Nanos>(v.baseline));
        case OtherColumn: return formatDuration(static_cast<profile::Nanos>(v.other));
        case ChangeColumn: return signedDuration(v.delta());
        case PercentColumn: return delta::percentCell(v);
        default: return {};
        }
    default: return {};
    }
}

QVariant ProfileDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case WhatColumn:
        return m_table == Table::Devices      ? tr("Device")
               : m_table == Table::Operations ? tr("Operation")
                                              : tr("On the path");
    case WhereColumn:
        return m_table == Table::Devices      ? tr("Measure")
               : m_table == Table::Operations ? tr("Where")
                                              : tr("As");
    case CallsColumn: return tr("Calls");
    case BaselineColumn: return tr("Baseline");
    case OtherColumn: return m_otherHeading;
    case ChangeColumn: return tr("Change");
    case PercentColumn: return tr("%");
    default: return {};
    }
}

} // namespace xps::ui
