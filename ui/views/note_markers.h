#pragma once
// The document's notes drawn over a time-axis plot (timeline, DMA lanes, VMEM heatmap): a band over each
// note's cycles with a numbered label, redrawn when the notes or the theme change. One place draws them so
// every view shows a note the same way.

#include <QObject>

#include <vector>

class QCustomPlot;
class QCPAbstractItem;

namespace xps::ui {

class SessionNotes;

class NoteMarkers : public QObject
{
    Q_OBJECT
public:
    NoteMarkers(QCustomPlot* plot, SessionNotes* notes, QObject* parent = nullptr);

    int count() const { return static_cast<int>(m_items.size() / 2); } // a band and a label each

private:
    void redraw();

    QCustomPlot* m_plot;
    SessionNotes* m_notes;
    std::vector<QCPAbstractItem*> m_items;
};

} // namespace xps::ui
