#pragma once
// Per-operation statistics of an imported profile (name, kind, device, count, total, self, mean, max, device
// time)
// as a table model; sorting goes through a QSortFilterProxyModel (sort role: the raw number).

#include "profile/profile_analysis.h"

#include <QAbstractTableModel>

namespace xps::ui {

class ProfileOpsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, Kind, Device, Count, Total, Self, Mean, Max, DeviceTime, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int LongestSliceRole = Qt::UserRole + 2;
    // What the filter matches: the name and, for an XLA op, its HLO text ("long_name").
    static constexpr int SearchRole = Qt::UserRole + 3;

    using QAbstractTableModel::QAbstractTableModel;
    // Swaps in a new profile's table (nullptr: none). The pointers must outlive the model's use of them.
    void setProfile(const profile::Profile* profile, const profile::ProfileAnalysis* analysis);
    // Whether any row ran on a device (else the Device column says nothing).
    bool hasDevices() const { return m_hasDevices; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    const profile::Profile* m_profile = nullptr;
    const profile::ProfileAnalysis* m_analysis = nullptr;
    std::vector<QString> m_longNames; // by row: the HLO text of the op, if its slices carry one
    bool m_hasDevices = false;
};

} // namespace xps::ui
