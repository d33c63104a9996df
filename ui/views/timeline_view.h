#pragma once
// The timeline: one row per chip and lane (regions, stalls, sync waits, units, DMA engines, ICI links),
// x in cycles (time on the top axis). Wheel zooms, drag pans, Shift+drag zooms to a box, W/S/A/D and the
// arrow keys zoom and pan, Shift+wheel or the scroll bar scrolls the lanes; hover shows the event, a click
// selects it. Follows the selection model's time range and highlights its pcs and DMAs.

#include "analysis/activity_lanes.h"

#include <QWidget>

#include <functional>
#include <optional>

class QCustomPlot;
class QCPAbstractItem;
class QScrollBar;
class QLabel;

namespace xps::ui {

class ReplaySession;
class SelectionModel;
class NoteMarkers;
class SessionNotes;
class TimelineLanes;

class TimelineView : public QWidget
{
    Q_OBJECT
public:
    // `laneFilter` picks the lanes shown (all by default: the DMA lanes view shows only engines and links).
    using LaneFilter = std::function<bool(const analysis::LaneInfo&)>;
    TimelineView(ReplaySession* session, SelectionModel* selection, QWidget* parent = nullptr,
                 LaneFilter laneFilter = {});

    QCustomPlot* plot() const { return m_plot; }
    TimelineLanes* lanesPlottable() const { return m_lanes; }
    int rowCount() const;
    QString rowName(int row) const;
    double lastDrawMs() const;
    // Pixel centre of `row` at `cycle`, for tests that click like a person.
    QPoint pointAt(int row, double cycle) const;
    int rowOfLane(const QString& name, int chip) const; // -1 if not shown
    // The height this view needs to show every row at its minimum (the axes, legend and lanes at the
    // current font), so a layout can give it that instead of leaving rows behind a scroll bar.
    int heightForEveryRow() const;

    // Lanes a person hid (context menu), by key "chip N/name"; bookmarks save and restore them.
    std::vector<std::string> hiddenLanes() const { return m_hidden; }
    void setHiddenLanes(std::vector<std::string> keys);

    // Notes: drawn as markers over the lanes; the context menu adds them.
    void setNotes(SessionNotes* notes);
    int noteMarkerCount() const;
    // Adds a note with `text` at `pos` (plot coordinates): pinned to the bundle under it if there is one,
    // else to the cycle there. Returns its id, or 0 if `pos` is outside the lanes.
    std::int64_t addNoteAt(const QPoint& pos, const QString& text);
    // Adds a note spanning the visible time range.
    std::int64_t addNoteForRange(const QString& text);

signals:
    void rowsChanged(); ///< lanes were added or hidden: heightForEveryRow() changed

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void onOpened();
    void refresh();
    void rebuildRows();
    void updateRowRange();
    void fitTickCounts();
    int minRowPixels() const;
    int rowPixels() const; ///< height of one lane: filling the plot when the rows fit, else the minimum
    void applyTheme();
    void setXRange(double lower, double upper);
    void onXRangeChanged();
    void clickAt(const QPoint& pos);
    void showTooltip(const QPoint& pos);
    // The bundle event of a sync wait (its issue, when the wait ended), or nullopt.
    static std::optional<std::size_t> waitBundle(const events::BundleSnapshot& bundles,
                                                 const events::SyncWaitRecord& w);
    void zoomBy(double factor);
    void panBy(double fraction);
    void showContextMenu(const QPoint& pos);

    ReplaySession* m_session;
    SelectionModel* m_selection;
    QCustomPlot* m_plot;
    TimelineLanes* m_lanes;
    QScrollBar* m_scroll;
    QLabel* m_legend;
    LaneFilter m_laneFilter;
    bool m_settingRange = false;
    QPoint m_pressPos;
    SessionNotes* m_notes = nullptr;
    NoteMarkers* m_noteMarkers = nullptr;
    std::vector<std::string> m_hidden; // sorted lane keys
};

} // namespace xps::ui
