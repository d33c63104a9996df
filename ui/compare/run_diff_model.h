#pragma once
// The comparison window's delta table: what changed between a baseline run and its fixed run, the
// largest change first. Regions (matched by their nesting path, over instances and chips) come first, then
// bundles (matched across the two programs, inserted and removed ones named), as analysis::RunDiff holds
// them; unchanged rows are left out. Each row: what it is, what its numbers measure (a region's cycles, a
// bundle's stall cycles), the baseline's and the fixed run's, the change, the percentage, and the stall
// reason that changed most.

#include "analysis/run_diff.h"

#include <QAbstractTableModel>

namespace xps::ui {

class RunDiffModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        WhatColumn,
        MeasureColumn, // what the numbers are: a region's cycles, a bundle's stall cycles
        BaselineColumn,
        FixedColumn,
        ChangeColumn,
        PercentColumn,
        ReasonColumn,
        ColumnCount
    };
    enum class RowKind { Region, Bundle };

    using QAbstractTableModel::QAbstractTableModel;

    void setDiff(analysis::RunDiff diff);
    // The other run's column heading: "Fixed run" (a suggestion applied) or "Other run" (another trace).
    void setOtherHeading(QString heading) { m_otherHeading = std::move(heading); }
    const analysis::RunDiff& diff() const { return m_diff; }
    RowKind kindOf(int row) const;
    // The region or bundle a row stands for.
    const analysis::RegionDelta* regionAt(int row) const;
    const analysis::PcDelta* bundleAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    analysis::RunDiff m_diff;
    QString m_otherHeading = tr("Fixed run");
    std::vector<std::size_t> m_regions; // indices into m_diff.regions of the changed ones, in order
};

} // namespace xps::ui
