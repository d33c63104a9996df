#pragma once
// The disassembly: one chip's bundles with executions, stall cycles and an inline bar of stalls by reason;
// sortable, filterable. A click selects the pc everywhere and moves the timeline to its occurrences; the
// rows follow the shared selection.

#include "isa/chip_id.h"

#include <QWidget>

class QComboBox;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace xps::ui {

class DisassemblyModel;
class ReplaySession;
class SelectionModel;

class DisassemblyView : public QWidget
{
    Q_OBJECT
public:
    DisassemblyView(ReplaySession* session, SelectionModel* selection, QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    DisassemblyModel* model() const { return m_model; }
    ChipId chip() const;
    // pcs of the selected rows, in view order.
    std::vector<std::uint32_t> selectedPcs() const;
    void setFilterText(const QString& text);

private:
    void onOpened();
    void setChip(ChipId chip);
    void onRowActivated();
    void followSelection();

    ReplaySession* m_session;
    SelectionModel* m_selection;
    QComboBox* m_chip;
    QLineEdit* m_filter;
    QTableView* m_table;
    DisassemblyModel* m_model;
    QSortFilterProxyModel* m_proxy;
    bool m_following = false;
};

} // namespace xps::ui
