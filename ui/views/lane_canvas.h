#pragma once
// A replay's lanes on the one timeline widget (timeline/timeline_canvas.h): one row per chip and lane
// (regions, stalls, sync waits, units, DMA engines, ICI links), time in cycles, the visible window the
// selection model's. Hover names the event, a click selects it (a region zooms to itself), the context menu
// adds notes and hides lanes; the selection's pcs and DMAs are outlined, and a selected DMA's flows to the
// waits it ended are drawn as arrows, as an imported profile's flows are.

#include "analysis/activity_lanes.h"
#include "timeline/timeline_canvas.h"
#include "views/timeline_lanes.h"

#include <functional>
#include <optional>
#include <string>

namespace xps::ui {

class ReplaySession;
class SelectionModel;
class SessionNotes;

class LaneCanvas : public TimelineCanvas
{
    Q_OBJECT
public:
    using LaneFilter = std::function<bool(const analysis::LaneInfo&)>;
    LaneCanvas(ReplaySession* session, SelectionModel* selection, LaneFilter laneFilter, QWidget* parent);

    QString rowName(int row) const;                     // the lane's name, without its chip
    int rowOfLane(const QString& name, ChipId chip) const; // -1 if not shown
    // Pixel centre of `row` at `cycle`, for tests that click like a person.
    QPoint pointAt(int row, double cycle) const;
    const std::vector<TimelineLanes::DrawnLabel>& drawnLabels() const { return m_painter.drawnLabels(); }
    // The flow arrows the last frame drew (a selected DMA to the waits it ended).
    int drawnFlows() const { return m_drawnFlows; }

    std::vector<std::string> hiddenLanes() const { return m_hidden; }
    void setHiddenLanes(std::vector<std::string> keys);

    void setNotes(SessionNotes* notes);
    int noteMarkerCount() const { return m_drawnNotes; }
    std::int64_t addNoteAt(const QPoint& pos, const QString& text);
    std::int64_t addNoteForRange(const QString& text);

protected:
    std::pair<Ticks, Ticks> visibleWindow() const override;
    void requestWindow(Ticks from, Ticks to) override;
    std::pair<Ticks, Ticks> fullWindow() const override;
    QString tickLabel(Ticks sinceOrigin) const override;
    QString spanLabel(Ticks span) const override;
    bool hasContent() const override;
    QString emptyText() const override;
    void paintRow(QPainter& painter, int row, const QRect& rect) override;
    void paintOverPlot(QPainter& painter) override;
    void paintEvent(QPaintEvent* event) override;
    void clickedAt(const QPoint& pos) override;
    QString tooltipAt(const QPoint& pos) const override;
    void contextMenuAt(const QPoint& pos) override;

private:
    void onOpened();
    void refresh();
    void rebuildRows();
    void findFlows();
    int rowOfLaneKind(analysis::LaneKind kind, ChipId chip, int index) const; // -1 if not shown
    void drawFlows(QPainter& painter);
    // The lane index of `row`, and the item of it under x within `slackPixels`, if any.
    bool itemAt(const QPoint& pos, double slackPixels, std::size_t& laneIndex,
                analysis::LaneItem& item) const;
    // The bundle event of a sync wait (its issue, when the wait ended), or nullopt.
    static std::optional<std::size_t> waitBundle(const events::BundleSnapshot& bundles,
                                                 const events::SyncWaitRecord& w);

    ReplaySession* m_session;
    SelectionModel* m_selection;
    LaneFilter m_laneFilter;
    TimelineLanes m_painter;
    std::vector<std::size_t> m_lanes;  // lane index per row
    std::vector<std::string> m_hidden; // sorted lane keys ("chip N/name")
    SessionNotes* m_notes = nullptr;
    int m_drawnNotes = 0;
    // The selected DMA and the waits it ended, found once per selection (one pass: the store's waits are
    // not indexed by DMA) and drawn as flows while it stays selected.
    events::DmaRecord m_flowDma;
    std::vector<events::SyncWaitRecord> m_flowWaits;
    int m_drawnFlows = 0;
};

} // namespace xps::ui
