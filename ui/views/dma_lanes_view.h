#pragma once
// DMA lanes: a Gantt row per DMA engine and ICI link direction (bars coloured by path, queueing drawn
// lighter), the achieved HBM bandwidth of each chip plotted under it on the same time axis, and the
// selected DMA in words: which pc issued it and which waits depended on it.

#include <QWidget>

class QCustomPlot;
class QLabel;

namespace xps::ui {

class ReplaySession;
class SelectionModel;
class TimelineView;

class DmaLanesView : public QWidget
{
    Q_OBJECT
public:
    DmaLanesView(ReplaySession* session, SelectionModel* selection, QWidget* parent = nullptr);

    TimelineView* lanes() const { return m_lanes; }
    QCustomPlot* bandwidth() const { return m_bandwidth; }
    QString details() const; // what the info line says about the selected DMA

private:
    void showBandwidth();
    void showSelection();
    void alignWithLanes();
    void applyTheme();

    ReplaySession* m_session;
    SelectionModel* m_selection;
    TimelineView* m_lanes;
    QCustomPlot* m_bandwidth;
    QLabel* m_info;
};

} // namespace xps::ui
