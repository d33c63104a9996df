#pragma once
// Replayed against recorded hardware timing, one row per recorded region instance: region, chip, instance,
// the chip's measured cycles, the replay's, and the error. The rows come from analysis::computeResiduals;
// the view sorts them (worst first by default) and moves the other views to the instance a row names.

#include "analysis/residuals.h"
#include "isa/machine_config.h"

#include <QAbstractTableModel>

namespace xps::ui {

class RecordedTimingModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // ErrorBar draws the signed error as a bar either side of a centre line (the view's delegate).
    enum Column { Region, Chip, Instance, Recorded, Replayed, Error, ErrorBar, ColumnCount };
    // Numbers for sorting: cycles, and the absolute error with instances never reached above every other.
    static constexpr int SortRole = Qt::UserRole + 1;
    // The signed error in percent; invalid where the replay never completed the instance.
    static constexpr int SignedErrorRole = Qt::UserRole + 2;

    using QAbstractTableModel::QAbstractTableModel;

    // Resets the rows; the machine's clock gives the tooltips their time.
    void setResiduals(analysis::Residuals residuals, const isa::MachineConfig& machine);
    const analysis::Residuals& residuals() const { return m_residuals; }
    const analysis::RegionResidual& residual(int row) const;
    double maxAbsErrorPercent() const { return m_maxAbsError; } // the bars' scale

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    analysis::Residuals m_residuals;
    isa::MachineConfig m_machine;
    double m_maxAbsError = 0;
};

} // namespace xps::ui
