#pragma once
// The bundles of one chip's program as a table: pc, enclosing region, source line, disassembly, executions,
// first issue, stall cycles and their split by reason. Counts come from the live lanes, so the table fills in
// while the replay runs.

#include "analysis/activity_lanes.h"

#include <QAbstractTableModel>

namespace xps::ui {

struct Run;

class DisassemblyModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Pc,
        Region,
        Source, // the source line the bundle came from (.loc; a compiled StableHLO op's line in the .mlir)
        Bundle,
        Executions,
        FirstIssue,
        StallCycles,
        StallBreakdown,
        MainReason,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;      // numbers for numeric columns
    static constexpr int BreakdownRole = Qt::UserRole + 2; // QList<double> of stall cycles per reason

    using QAbstractTableModel::QAbstractTableModel;

    void setRun(const Run* run, ChipId chip); // resets
    void refreshCounts();                  // re-reads the lanes' counts
    ChipId chip() const { return m_chip; }
    std::uint64_t maxStall() const { return m_maxStall; }
    int rowOfPc(std::uint32_t pc) const { return static_cast<int>(pc); } // one row per bundle, in pc order
    analysis::PcActivity activity(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const Run* m_run = nullptr;
    ChipId m_chip = ChipId(0);
    QStringList m_text;    // per pc
    QStringList m_regions; // per pc: innermost region open at that pc in program order
    QStringList m_sources; // per pc: "file:line" of the last source line at or before it
    std::vector<analysis::PcActivity> m_activity;
    std::uint64_t m_maxStall = 0;
};

} // namespace xps::ui
