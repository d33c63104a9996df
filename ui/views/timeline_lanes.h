#pragma once
// Draws the timeline's lanes inside a QCustomPlot axis rect: x in cycles, y in lane rows (row 0 at the
// top). Per lane and frame: when the visible items are few and wide enough, each is a bar with a label
// and selected ones are outlined; otherwise each pixel column gets the lane's busy fraction, coloured by
// its dominant category, written straight into an image (one drawImage per frame, not one rect per
// event). The data come from ActivityLanes, which answers per-column totals from its bins in time
// independent of the event count.

#include "analysis/activity_lanes.h"

#include "widgets/qcustomplot.h"

#include <vector>

namespace xps::ui {

struct Selection;
struct Run;

class TimelineLanes : public QCPAbstractPlottable
{
public:
    explicit TimelineLanes(QCPAxis* keyAxis, QCPAxis* valueAxis);

    void setRun(const Run* run) { m_run = run; }
    void setRows(std::vector<std::size_t> lanes) { m_rows = std::move(lanes); } // lane index per row
    const std::vector<std::size_t>& rows() const { return m_rows; }
    void setSelection(const Selection* selection) { m_selection = selection; }
    void setCritical(std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges) { m_critical = std::move(ranges); }

    // The row under pixel y, or -1.
    int rowAt(double pixelY) const;
    // Milliseconds the last frame's lanes took to compute and paint (the benchmark reads it).
    double lastDrawMs() const { return m_lastDrawMs; }
    // The labels the last draw wrote on blocks and where (a few hundred at most: only blocks wide enough to
    // hold one are labelled): what a person reads on the lanes.
    struct DrawnLabel
    {
        QString text; // as drawn, elided if it had to be
        QRectF rect;
    };
    const std::vector<DrawnLabel>& drawnLabels() const { return m_drawnLabels; }

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    QColor categoryColor(const analysis::LaneInfo& lane, int category) const;
    bool drawItems(QCPPainter* painter, const analysis::LaneInfo& lane, std::size_t laneIndex, double top,
                   double height, std::uint64_t from, std::uint64_t to, int columns);
    void drawColumns(QImage& image, const analysis::LaneInfo& lane, std::size_t laneIndex, int top, int height,
                     std::uint64_t from, std::uint64_t to);

    const Run* m_run = nullptr;
    const Selection* m_selection = nullptr;
    std::vector<std::size_t> m_rows;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> m_critical;
    std::vector<double> m_columns; // reused per lane
    double m_lastDrawMs = 0.0;
    std::vector<DrawnLabel> m_drawnLabels;
};

} // namespace xps::ui
