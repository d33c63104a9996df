#include "views/timeline_lanes.h"

#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "views/event_text.h"

#include <QApplication>
#include <QElapsedTimer>

#include <cmath>

namespace xps::ui {
namespace {

using analysis::LaneKind;

// Items narrower than this on average are drawn as pixel columns instead.
constexpr double kMinPixelsPerItem = 3.0;

QRgb blend(QColor background, QColor color, double amount)
{
    amount = std::clamp(amount, 0.0, 1.0);
    auto mix = [&](int b, int c) { return static_cast<int>(std::lround(b + (c - b) * amount)); };
    return qRgb(mix(background.red(), color.red()), mix(background.green(), color.green()),
                mix(background.blue(), color.blue()));
}

bool isBundleLane(const analysis::LaneInfo& lane)
{
    return lane.kind == LaneKind::Unit || lane.kind == LaneKind::Stall;
}

} // namespace

TimelineLanes::TimelineLanes(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setSelectable(QCP::stNone);
    setAntialiasedFill(false);
}

int TimelineLanes::rowAt(double pixelY) const
{
    const double row = mValueAxis->pixelToCoord(pixelY);
    if (row < 0 || row >= static_cast<double>(m_rows.size()))
        return -1;
    return static_cast<int>(row);
}

double TimelineLanes::selectTest(const QPointF&, bool, QVariant*) const
{
    return -1; // clicks are resolved by the view against the lanes, not by QCustomPlot
}

QCPRange TimelineLanes::getKeyRange(bool& foundRange, QCP::SignDomain) const
{
    foundRange = m_run && m_run->lanes;
    return foundRange ? QCPRange(0, static_cast<double>(std::max<std::uint64_t>(1, m_run->lanes->endCycle()))) : QCPRange();
}

QCPRange TimelineLanes::getValueRange(bool& foundRange, QCP::SignDomain, const QCPRange&) const
{
    foundRange = !m_rows.empty();
    return QCPRange(0, static_cast<double>(m_rows.size()));
}

void TimelineLanes::drawLegendIcon(QCPPainter*, const QRectF&) const {}

QColor TimelineLanes::categoryColor(const analysis::LaneInfo& lane, int category) const
{
    const Theme& theme = Theme::instance();
    switch (lane.kind) {
    case LaneKind::Unit: return theme.unitColor(static_cast<analysis::UnitGroup>(lane.index));
    case LaneKind::Stall: return theme.stallColor(static_cast<events::StallReason>(category));
    case LaneKind::SyncWait: return theme.syncColor(category == 0);
    case LaneKind::DmaEngine: return theme.dmaColor(static_cast<analysis::DmaPathClass>(category));
    case LaneKind::IciLink: return theme.dmaColor(analysis::DmaPathClass::Ici);
    case LaneKind::Region: return theme.regionColor(static_cast<std::uint32_t>(lane.index));
    }
    return theme.foreground();
}

void TimelineLanes::draw(QCPPainter* painter)
{
    QElapsedTimer timer;
    timer.start();
    m_drawnLabels.clear();
    if (!m_run || !m_run->lanes || m_rows.empty())
        return;
    const analysis::ActivityLanes& lanes = *m_run->lanes;
    const Theme& theme = Theme::instance();
    const QRect area = mKeyAxis->axisRect()->rect();
    const QCPRange range = mKeyAxis->range();
    const auto from = static_cast<std::uint64_t>(std::max(0.0, std::floor(range.lower)));
    const auto to = std::max(from + 1, static_cast<std::uint64_t>(std::max(0.0, std::ceil(range.upper))));
    const int columns = std::max(1, area.width());

    QImage image(area.size(), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    painter->setClipRect(area);
    for (std::size_t row = 0; row < m_rows.size(); ++row) {
        const double top = mValueAxis->coordToPixel(static_cast<double>(row));
        const double bottom = mValueAxis->coordToPixel(static_cast<double>(row + 1));
        if (bottom < area.top() || top > area.bottom())
            continue;
        const analysis::LaneInfo& lane = lanes.lanes()[m_rows[row]];
        if (row % 2)
            painter->fillRect(QRectF(area.left(), top, area.width(), bottom - top), theme.laneShade());
        if (row > 0 && lanes.lanes()[m_rows[row - 1]].chip != lane.chip) {
            painter->setPen(QPen(theme.foreground(), 1));
            painter->drawLine(QPointF(area.left(), top), QPointF(area.right(), top));
        }
        const double pad = std::min(3.0, (bottom - top) / 6.0);
        if (!drawItems(painter, lane, m_rows[row], top + pad, bottom - top - 2 * pad, from, to, columns))
            drawColumns(image, lane, m_rows[row], static_cast<int>(std::lround(top + pad)) - area.top(),
                        static_cast<int>(std::lround(bottom - top - 2 * pad)), from, to);
    }
    painter->drawImage(area.topLeft(), image);

    // Selected DMAs stay visible at any zoom: an outline at least a few pixels wide.
    if (m_selection && !m_selection->dmas.empty()) {
        painter->setPen(QPen(theme.highlight(), 2));
        painter->setBrush(Qt::NoBrush);
        for (std::uint32_t id : m_selection->dmas) {
            events::DmaRecord d;
            if (!lanes.dma(id, d))
                continue;
            for (std::size_t row = 0; row < m_rows.size(); ++row) {
                const analysis::LaneInfo& lane = lanes.lanes()[m_rows[row]];
                if (lane.kind != LaneKind::DmaEngine || lane.chip != d.chip || lane.index != d.engine)
                    continue;
                const double x0 = mKeyAxis->coordToPixel(static_cast<double>(d.start));
                const double x1 = std::max(x0 + 4, mKeyAxis->coordToPixel(static_cast<double>(d.end)));
                const double top = mValueAxis->coordToPixel(static_cast<double>(row));
                const double bottom = mValueAxis->coordToPixel(static_cast<double>(row + 1));
                painter->drawRect(QRectF(x0 - 1, top + 1, x1 - x0 + 2, bottom - top - 2));
            }
        }
    }
    m_lastDrawMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

bool TimelineLanes::drawItems(QCPPainter* painter, const analysis::LaneInfo& lane, std::size_t laneIndex, double top,
                              double height, std::uint64_t from, std::uint64_t to, int columns)
{
    const analysis::ActivityLanes& lanes = *m_run->lanes;
    const double cyclesPerPixel = static_cast<double>(to - from) / columns;
    // A bundle lane holds up to one item per cycle: bars only when a cycle is a couple of pixels wide.
    if (isBundleLane(lane) && cyclesPerPixel > 0.5)
        return false;
    bool truncated = false;
    const std::vector<analysis::LaneItem> items =
        lanes.itemsIn(laneIndex, from, to, static_cast<std::size_t>(columns / kMinPixelsPerItem) + 1, &truncated);
    if (truncated)
        return false;
    const Theme& theme = Theme::instance();
    const trace::Trace& trace = *m_run->trace;
    const events::BundleSnapshot bundles = isBundleLane(lane) ? lanes.bundles() : events::BundleSnapshot{};
    QFont font = painter->font();
    // As large as the row allows, never larger than the window's text (presentation mode enlarges both).
    font.setPointSizeF(std::clamp(height * 0.55, 6.5, std::max(9.0, QApplication::font().pointSizeF())));
    painter->setFont(font);
    const QFontMetricsF metrics(font);
    const QRect plotArea = clipRect();
    for (const analysis::LaneItem& item : items) {
        double x0 = mKeyAxis->coordToPixel(static_cast<double>(item.start));
        double x1 = mKeyAxis->coordToPixel(static_cast<double>(item.end));
        if (x1 - x0 < 1)
            x1 = x0 + 1;
        QColor fill = categoryColor(lane, item.category);
        bool selected = false;
        if (lane.kind == LaneKind::Region) {
            events::RegionRecord r;
            if (lanes.region(item.ref, r))
                fill = theme.regionColor(r.region);
        }
        if (m_selection) {
            if (isBundleLane(lane) && item.ref < bundles.size()) {
                const events::BundleIssue e = bundles[item.ref];
                selected = m_selection->containsPc(e.chip, e.pc);
            } else if (lane.kind == LaneKind::DmaEngine || lane.kind == LaneKind::IciLink) {
                selected = m_selection->containsDma(static_cast<std::uint32_t>(item.ref));
            } else if (lane.kind == LaneKind::SyncWait) {
                events::SyncWaitRecord w;
                selected = lanes.syncWait(item.ref, w) && m_selection->containsPc(w.chip, w.pc);
            }
        }
        if (lane.kind == LaneKind::DmaEngine && item.queued < item.start) {
            // Queued behind earlier descriptors: an outline only, so waiting is not mistaken for moving.
            const double q0 = mKeyAxis->coordToPixel(static_cast<double>(item.queued));
            QColor queued = fill;
            queued.setAlpha(70);
            painter->setPen(Qt::NoPen);
            painter->setBrush(queued);
            painter->drawRect(QRectF(q0, top + height * 0.3, x0 - q0, height * 0.4));
        }
        painter->setBrush(fill);
        if (selected)
            painter->setPen(QPen(theme.highlight(), 2));
        else if (x1 - x0 > 4)
            painter->setPen(QPen(fill.darker(150), 1));
        else
            painter->setPen(Qt::NoPen);
        const QRectF rect(x0, top, x1 - x0, height);
        painter->drawRect(rect);
        // The label sits in the part of the block on screen (sticky, as Perfetto's slice titles): zoomed
        // inside a region, its name stays at the plot's left edge instead of scrolling out with the block's
        // start.
        const QRectF shown =
            rect.intersected(QRectF(plotArea.left(), rect.top(), plotArea.width(), rect.height()));
        if (shown.width() > 28) {
            const QString label = itemLabel(trace, lanes, lane, item);
            painter->setPen(fill.lightnessF() > 0.55 ? QColor(Qt::black) : QColor(Qt::white));
            const QString text = metrics.elidedText(label, Qt::ElideRight, shown.width() - 5);
            painter->drawText(shown.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
            m_drawnLabels.push_back({text, shown});
        }
    }
    return true;
}

void TimelineLanes::drawColumns(QImage& image, const analysis::LaneInfo& lane, std::size_t laneIndex, int top,
                                int height, std::uint64_t from, std::uint64_t to)
{
    const int columns = image.width();
    top = std::max(0, top);
    height = std::min(height, image.height() - top);
    if (height <= 0 || columns <= 0)
        return;
    m_run->lanes->columnTotals(laneIndex, from, to, columns, m_columns);
    const double cyclesPerColumn = static_cast<double>(to - from) / columns;
    const QColor background = Theme::instance().background();
    std::vector<QRgb> row(static_cast<std::size_t>(columns), 0);
    bool any = false;
    for (int c = 0; c < columns; ++c) {
        double total = 0.0, best = 0.0;
        int dominant = 0;
        for (int k = 0; k < lane.categories; ++k) {
            const double v = m_columns[static_cast<std::size_t>(c * lane.categories + k)];
            total += v;
            if (v > best) {
                best = v;
                dominant = k;
            }
        }
        if (total <= 0.0)
            continue;
        // Any activity shows (a one-cycle event in a 10,000-cycle pixel must not vanish); more is darker.
        const double fraction = std::min(1.0, total / cyclesPerColumn);
        row[static_cast<std::size_t>(c)] = blend(background, categoryColor(lane, dominant), 0.3 + 0.7 * fraction);
        any = true;
    }
    if (!any)
        return;
    for (int y = top; y < top + height; ++y)
        std::memcpy(image.scanLine(y), row.data(), row.size() * sizeof(QRgb));
}

} // namespace xps::ui
