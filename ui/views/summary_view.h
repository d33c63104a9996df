#pragma once
// The first screen of a replay: time, MXU and HBM utilization, VMEM peak against capacity, exposed DMA
// time and critical-path composition; a chart of stall cycles by reason; per-chip and per-region tables.

#include <QWidget>

class QCustomPlot;
class QLabel;
class QTableWidget;

namespace xps::ui {

class ReplaySession;

class SummaryView : public QWidget
{
    Q_OBJECT
public:
    explicit SummaryView(ReplaySession* session, QWidget* parent = nullptr);

    QString headline() const; // the figures as plain text (tests read it)
    QTableWidget* regionTable() const { return m_regions; }
    QTableWidget* chipTable() const { return m_chips; }
    QCustomPlot* stallChart() const { return m_stalls; }

private:
    void showProgress();
    void showAnalyses();
    void applyTheme();

    ReplaySession* m_session;
    QLabel* m_header;
    QCustomPlot* m_stalls;
    QTableWidget* m_chips;
    QTableWidget* m_regions;
};

} // namespace xps::ui
