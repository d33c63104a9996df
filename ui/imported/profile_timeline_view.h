#pragma once
// The timeline of an imported profile, on the one timeline widget (timeline/timeline_canvas.h): a header
// per process, a row per nesting depth of each thread, stream and async track, counters as step plots; time
// on the top axis from the profile's start, in nanoseconds. A click selects a slice, hovering names it, and
// the selected slice's flows (launch -> kernel, ...) are drawn as arrows; slices on the critical path carry a
// red bar under them. A frame costs what its pixels cost: each row finds its visible slices by binary search
// and draws slices narrower than two pixels as one mark per pixel column, whatever the profile's size.

#include "imported/profile_rows.h"
#include "timeline/timeline_canvas.h"

#include <functional>

namespace xps::ui {

class ProfileDocument;
struct ProfileRun;
class SessionNotes;

class ProfileTimelineView : public TimelineCanvas
{
    Q_OBJECT
public:
    explicit ProfileTimelineView(ProfileDocument* document, QWidget* parent = nullptr);
    // Draws only the slices `keep` accepts (the transfers tab's lanes), and only the rows that keep some.
    void setSliceFilter(std::function<bool(const ProfileRun&, std::uint32_t slice)> keep);
    // Draws the document's notes over the slices (timeline/note_bands.h) when the profile is imported.
    void setNotes(SessionNotes* notes);
    ProfileDocument* document() const { return m_document; }

    QString rowLabel(int row) const;
    // The row showing `slice` (-1 if none), and the centre of the slice on screen (null if not visible).
    int rowOf(profile::SliceRow slice) const;
    QPoint pointAt(profile::SliceRow slice) const;
    profile::SliceRow sliceAt(const QPoint& pos) const;

protected:
    std::pair<Ticks, Ticks> visibleWindow() const override;
    void requestWindow(Ticks from, Ticks to) override;
    std::pair<Ticks, Ticks> fullWindow() const override;
    Ticks axisOrigin() const override;
    double axisUnitsPerTick() const override;
    QString tickLabel(Ticks sinceOrigin) const override;
    QString spanLabel(Ticks span) const override;
    bool hasContent() const override;
    QString emptyText() const override;
    void paintRow(QPainter& painter, int row, const QRect& rect) override;
    void paintOverPlot(QPainter& painter) override;
    void clickedAt(const QPoint& pos) override;
    QString tooltipAt(const QPoint& pos) const override;

private:
    void rebuild();
    void drawSlices(QPainter& painter, const ProfileRow& row, const QRect& rect);
    void drawCounter(QPainter& painter, const ProfileRow& row, const QRect& rect);
    void drawFlows(QPainter& painter);

    ProfileDocument* m_document;
    std::function<bool(const ProfileRun&, std::uint32_t)> m_keep; // empty: every slice
    SessionNotes* m_notes = nullptr;
    std::vector<ProfileRow> m_rows;
    std::vector<int> m_firstRowOfTrack; // per track: its depth-0 row, or -1
    std::vector<bool> m_critical;       // per slice: on the critical path (marked under it)
};

} // namespace xps::ui
