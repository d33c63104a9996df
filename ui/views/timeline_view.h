#pragma once
// The replay's timeline: its lanes on the one timeline widget (views/lane_canvas.h) over a legend of the
// stall and DMA colours. Wheel zooms at the pointer, drag pans, Shift+drag zooms to a box, W/S/A/D and the
// arrow keys zoom and pan, Home shows the whole replay, Shift+wheel or the scroll bar scrolls the lanes;
// hover shows the event, a click selects it. Follows the selection model's time range and highlights its pcs
// and DMAs.

#include "views/lane_canvas.h"

#include <QWidget>

class QLabel;

namespace xps::ui {

class ReplaySession;
class SelectionModel;
class SessionNotes;

class TimelineView : public QWidget
{
    Q_OBJECT
public:
    // `laneFilter` picks the lanes shown (all by default: the DMA lanes view shows only engines and links).
    using LaneFilter = LaneCanvas::LaneFilter;
    TimelineView(ReplaySession* session, SelectionModel* selection, QWidget* parent = nullptr,
                 LaneFilter laneFilter = {});

    // The lanes themselves: what a person clicks, and where tests click.
    LaneCanvas* canvas() const { return m_canvas; }
    int rowCount() const { return m_canvas->rowCount(); }
    QString rowName(int row) const { return m_canvas->rowName(row); }
    double lastDrawMs() const { return m_canvas->lastDrawMs(); }
    // Pixel centre of `row` at `cycle` in the canvas, for tests that click like a person.
    QPoint pointAt(int row, double cycle) const { return m_canvas->pointAt(row, cycle); }
    int rowOfLane(const QString& name, ChipId chip) const { return m_canvas->rowOfLane(name, chip); }
    // The height this view needs to show every row at its minimum (the axis, legend and lanes at the
    // current font), so a layout can give it that instead of leaving rows behind a scroll bar.
    int heightForEveryRow() const;
    // The colour legend under the lanes (shown by default); two timelines stacked one above the other
    // (the comparison window) need it once.
    void setLegendVisible(bool visible);

    // Lanes a person hid (context menu), by key "chip N/name"; bookmarks save and restore them.
    std::vector<std::string> hiddenLanes() const { return m_canvas->hiddenLanes(); }
    void setHiddenLanes(std::vector<std::string> keys) { m_canvas->setHiddenLanes(std::move(keys)); }

    // Notes: drawn as bands over the lanes; the context menu adds them.
    void setNotes(SessionNotes* notes) { m_canvas->setNotes(notes); }
    int noteMarkerCount() const { return m_canvas->noteMarkerCount(); }
    // Adds a note with `text` at `pos` (canvas coordinates): pinned to the bundle under it if there is one,
    // else to the cycle there. Returns its id, or 0 if `pos` is outside the lanes.
    std::int64_t addNoteAt(const QPoint& pos, const QString& text) { return m_canvas->addNoteAt(pos, text); }
    // Adds a note spanning the visible time range.
    std::int64_t addNoteForRange(const QString& text) { return m_canvas->addNoteForRange(text); }

signals:
    void rowsChanged(); ///< lanes were added or hidden: heightForEveryRow() changed

private:
    void applyTheme();

    LaneCanvas* m_canvas;
    QLabel* m_legend;
    bool m_dmaOnly;
};

} // namespace xps::ui
