#pragma once
// The timeline of an imported profile: a header per process, a row per nesting depth of each thread,
// stream and async track, counters as step plots; time on the top axis from the profile's start. Wheel
// zooms at the pointer, drag pans, Shift+wheel (or the scroll bar) scrolls rows, W/S/A/D zoom and pan; a
// click selects a slice, hovering names it, and the selected slice's flows (launch -> kernel, ...) are drawn
// as arrows; slices on the critical path carry a red bar under them. A frame costs what its pixels cost: each
// row finds its visible slices by binary search and draws slices narrower than two pixels as one mark per
// pixel column, whatever the profile's size.

#include "imported/profile_rows.h"

#include <QWidget>

#include <functional>

class QScrollBar;

namespace xps::ui {

class ProfileDocument;
struct ProfileRun;
class SessionNotes;

class ProfileTimelineView : public QWidget
{
    Q_OBJECT
public:
    explicit ProfileTimelineView(ProfileDocument* document, QWidget* parent = nullptr);
    // Draws only the slices `keep` accepts (the transfers tab's lanes), and only the rows that keep some.
    void setSliceFilter(std::function<bool(const ProfileRun&, std::uint32_t slice)> keep);
    // Draws the document's notes over the slices (profile_note_bands.h) when the profile is imported.
    void setNotes(SessionNotes* notes);
    ProfileDocument* document() const { return m_document; }

    int rowCount() const { return static_cast<int>(m_rows.size()); }
    QString rowLabel(int row) const;
    // The row showing `slice` (-1 if none), and the centre of the slice on screen (null if not visible).
    int rowOf(profile::SliceRow slice) const;
    QPoint pointAt(profile::SliceRow slice) const;
    profile::SliceRow sliceAt(const QPoint& pos) const;
    // The width of the label gutter left of the time axis, and of the scroll bar right of it: where a plot
    // under the timeline puts its own axis so that the two read as one.
    int gutter() const;
    int scrollBarWidth() const;
    // The rows drawn in the last frame: for tests that look at what the person sees.
    int paintedRows() const { return m_paintedRows; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    void rebuild();
    void fitGutter();
    void updateScrollRange();
    int rowHeight(int row) const;
    int rowTop(int row) const; // in content coordinates (before scrolling)
    int rowAtY(int y) const;
    int axisHeight() const;
    double xOf(profile::Nanos t) const;
    profile::Nanos timeAt(double x) const;
    void zoomAt(double x, double factor);
    void panBy(double pixels);
    void drawAxis(QPainter& painter);
    void drawSlices(QPainter& painter, const ProfileRow& row, int top, int height);
    void drawCounter(QPainter& painter, const ProfileRow& row, int top, int height);
    void drawFlows(QPainter& painter);

    ProfileDocument* m_document;
    std::function<bool(const ProfileRun&, std::uint32_t)> m_keep; // empty: every slice
    SessionNotes* m_notes = nullptr;
    QScrollBar* m_scroll;
    std::vector<ProfileRow> m_rows;
    std::vector<int> m_tops;            // per row, plus the total at the end
    std::vector<int> m_firstRowOfTrack; // per track: its depth-0 row, or -1
    std::vector<bool> m_critical;       // per slice: on the critical path (marked under it)
    QPoint m_pressPos;
    profile::Nanos m_pressFrom = 0, m_pressTo = 0;
    bool m_dragging = false;
    int m_paintedRows = 0;
    int m_gutter = 0; // fitted to the labels (fitGutter), again when the font changes; 0 until there are rows
};

} // namespace xps::ui
