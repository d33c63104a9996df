#pragma once
// The profile comparison window's tables: what changed between two imported profiles, in one of three
// views of profile::ProfileDiff, as HTA's TraceDiff and TraceLens list them.
//
// - Operations: per operation name, on the host or on each device, the calls and the total time of both
//   runs, the change and its percentage, the largest change first; operations only one run has are named
//   "(new)" or "(gone)".
// - Devices: the span, then each device's breakdown (busy, compute, communication and its exposed part,
//   memcpy and its exposed part, memset, idle).
// - Critical path: the two paths' lengths, the time of each kind of segment, and per operation and kind the
//   time it holds on each path.
//
// Every number is one of the two runs' own (as `xpushark-cli diff` prints them); a row knows the slices it
// stands for in each run (its first instance), which the window shows when the row is picked. Each column
// sorts by its numbers (SortRole), not by its text.

#include "profile/profile_diff.h"

#include <QAbstractTableModel>

#include <vector>

namespace xps::ui {

class ProfileDiffModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum class Table { Operations, Devices, CriticalPath };
    enum Column {
        WhatColumn,
        WhereColumn, // an operation's host or device; a device's measure; a path segment's kind
        CallsColumn,
        BaselineColumn,
        OtherColumn,
        ChangeColumn,
        PercentColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ProfileDiffModel(Table table, QObject* parent = nullptr);

    void setDiff(const profile::ProfileDiff& diff);
    Table table() const { return m_table; }
    // The other side's column heading: "Other profile", "Other run", "Fixed run".
    void setOtherHeading(QString heading) { m_otherHeading = std::move(heading); }
    // The slices row `row` stands for: its first instance in the baseline and in the other profile (none
    // where a run has none, or the row is not an operation's).
    std::pair<profile::SliceRow, profile::SliceRow> firstInstances(int row) const;
    // The time compared on `row`, in ns.
    const Compared& valueAt(int row) const { return m_rows[static_cast<std::size_t>(row)].value; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString what, where, tip;
        std::optional<Compared> calls;
        Compared value; // ns
        profile::SliceRow baselineFirst, otherFirst;
    };
    void addOperations(const profile::ProfileDiff& diff);
    void addDevices(const profile::ProfileDiff& diff);
    void addCriticalPath(const profile::ProfileDiff& diff);

    Table m_table;
    QString m_otherHeading = tr("Other profile");
    std::vector<Row> m_rows;
};

} // namespace xps::ui
