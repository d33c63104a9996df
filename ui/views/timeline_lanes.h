#pragma once
// Paints one of a replay's lanes into its row of the timeline (timeline/timeline_canvas.h): x in cycles.
// When the visible items are few and wide enough, each is a bar with a label and selected ones are
// outlined; otherwise each pixel column gets the lane's busy fraction, coloured by its dominant category,
// written straight into an image (one drawImage per row and frame, not one rect per event). The data come
// from ActivityLanes, which answers per-column totals from its bins in time independent of the event count.

#include "analysis/activity_lanes.h"

#include <QColor>
#include <QImage>
#include <QRectF>
#include <QString>

#include <vector>

class QPainter;

namespace xps::ui {

struct Selection;
struct Run;

class TimelineLanes
{
public:
    // The labels the last frame wrote on blocks and where (a few hundred at most: only blocks wide enough to
    // hold one are labelled): what a person reads on the lanes.
    struct DrawnLabel
    {
        QString text; // as drawn, elided if it had to be
        QRectF rect;
        QColor colour, background; // the text's and the block's under it
    };

    void setRun(const Run* run) { m_run = run; }
    void setSelection(const Selection* selection) { m_selection = selection; }

    // Starts a frame over `plot` (forgets the last one's labels, clears the columns' image).
    void beginFrame(const QRect& plot);
    // Paints lane `laneIndex` of the run within `row` (the plot's width), cycles [from, to) across it: its
    // bars now, or its pixel columns into the frame's image.
    void paint(QPainter& painter, std::size_t laneIndex, const QRect& row, std::uint64_t from,
               std::uint64_t to);
    // Draws the frame's pixel columns, every lane's at once.
    void endFrame(QPainter& painter);
    const std::vector<DrawnLabel>& drawnLabels() const { return m_drawnLabels; }

private:
    QColor categoryColor(const analysis::LaneInfo& lane, int category) const;
    bool drawItems(QPainter& painter, const analysis::LaneInfo& lane, std::size_t laneIndex,
                   const QRectF& box, std::uint64_t from, std::uint64_t to);
    void drawColumns(const analysis::LaneInfo& lane, std::size_t laneIndex, int top, int height,
                     std::uint64_t from, std::uint64_t to);

    const Run* m_run = nullptr;
    const Selection* m_selection = nullptr;
    std::vector<double> m_columns; // reused per lane
    QImage m_image; // the plot's pixel columns of this frame, drawn once (not an image per lane)
    QRect m_plot;
    bool m_imageUsed = false;
    std::vector<DrawnLabel> m_drawnLabels;
};

} // namespace xps::ui
