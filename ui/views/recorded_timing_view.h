#pragma once
// Replay against the real chip: when a trace carries recorded hardware timing (per-region durations measured
// on the chip, docs/trace-format.md), how far the replay is from it, per region instance, worst first, with
// calibration's measures above (mean and median absolute error, the worst instance) and the sampled pcs'
// residuals. A click on a row moves the other views to that instance's replayed cycles; they follow the
// selection model, as with every view.

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace xps::ui {

class RecordedTimingModel;
class ReplaySession;
class SelectionModel;

class RecordedTimingView : public QWidget
{
    Q_OBJECT
public:
    RecordedTimingView(ReplaySession* session, SelectionModel* selection, QWidget* parent = nullptr);

    QString headline() const; // what the label above the table says (tests read it)
    QTableView* table() const { return m_table; }
    RecordedTimingModel* model() const { return m_model; }
    // Whether the open trace carries recorded timing (the window shows the dock only then).
    bool hasRecordedTiming() const { return m_hasRecorded; }

signals:
    // The open trace does or does not carry recorded timing: emitted when a trace opens.
    void availabilityChanged(bool hasRecordedTiming);

private:
    void onOpened();
    void showResiduals();
    void onRowClicked(const QModelIndex& index);

    ReplaySession* m_session;
    SelectionModel* m_selection;
    QLabel* m_header;
    QTableView* m_table;
    RecordedTimingModel* m_model;
    QSortFilterProxyModel* m_proxy;
    bool m_hasRecorded = false;
};

} // namespace xps::ui
