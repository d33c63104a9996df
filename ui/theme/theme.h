#pragma once
// Light and dark themes, and the colours every view uses for the same thing (a stall reason, a unit, a DMA
// path), so a colour means one thing across the window. Colours come from the Okabe-Ito palette, which
// stays distinguishable for the common colour-vision deficiencies and on a projected screen.

#include "analysis/activity_lanes.h"
#include "analysis/dependencies.h"
#include "events/events.h"

#include <QColor>
#include <QObject>

class QCustomPlot;

namespace xps::ui {

class Theme : public QObject
{
    Q_OBJECT
public:
    enum class Kind { Light, Dark };
    static Theme& instance();

    Kind kind() const { return m_kind; }
    // Sets the application palette (Fusion style) and tells every view to restyle.
    void apply(Kind kind);
    // Presentation mode: lines twice as thick (axes, graph edges, note markers), for a shared screen.
    void setPresentation(bool on);
    double lineScale() const { return m_presentation ? 2.0 : 1.0; }

    QColor background() const;  // plot and canvas background
    QColor foreground() const;  // text and axes
    QColor grid() const;
    QColor laneShade() const;   // alternate lane background
    QColor highlight() const;   // selection outlines
    QColor critical() const;    // critical path
    QColor note() const;        // note markers

    QColor stallColor(events::StallReason reason) const;
    QColor unitColor(analysis::UnitGroup group) const;
    QColor dmaColor(analysis::DmaPathClass path) const;
    QColor syncColor(bool byDma) const;
    QColor regionColor(std::uint32_t region) const;
    QColor edgeColor(analysis::EdgeKind kind) const; // dependency-graph edges by type
    // Replayed against recorded timing, as text: the report's orange where the replay is slower than the
    // chip, blue where it is faster (each in the shade that reads on the theme's background).
    QColor residualColor(bool replaySlower) const;
    // Text drawn on a block of `fill` (a slice's or a region's name): near-black or near-white, whichever
    // contrasts more by WCAG's relative luminance. Lightness misjudges green: white on the regions' bright
    // green read at 1.9:1.
    static QColor textOn(const QColor& fill);

    // Background, axes, tick labels and grid of a plot in the current theme.
    void stylePlot(QCustomPlot* plot) const;

signals:
    void changed();

private:
    Theme() = default;
    Kind m_kind = Kind::Light;
    bool m_presentation = false;
};

} // namespace xps::ui
