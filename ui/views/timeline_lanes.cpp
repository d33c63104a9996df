#include "views/timeline_lanes.h"

#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "views/event_text.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

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

void TimelineLanes::paint(QPainter& painter, std::size_t laneIndex, const QRect& row, std::uint64_t from,
                          std::uint64_t to)
{
    if (!m_run || !m_run->lanes || row.width() <= 0)
        return;
    const analysis::LaneInfo& lane = m_run->lanes->lanes()[laneIndex];
    const double pad = std::min(3.0, row.height() / 6.0);
    const QRectF box(row.left(), row.top() + pad, row.width(), row.height() - 2 * pad);
    if (drawItems(painter, lane, laneIndex, box, from, std::max(to, from + 1)))
        return;
    drawColumns(lane, laneIndex, static_cast<int>(std::lround(box.top())) - m_plot.top(),
                static_cast<int>(std::lround(box.height())), from, std::max(to, from + 1));
}

void TimelineLanes::beginFrame(const QRect& plot)
{
    m_drawnLabels.clear();
    m_plot = plot;
    if (m_image.size() != plot.size())
        m_image = QImage(plot.size(), QImage::Format_ARGB32_Premultiplied);
    m_imageUsed = false;
}

void TimelineLanes::endFrame(QPainter& painter)
{
    if (m_imageUsed)
        painter.drawImage(m_plot.topLeft(), m_image);
}

bool TimelineLanes::drawItems(QPainter& painter, const analysis::LaneInfo& lane, std::size_t laneIndex,
                              const QRectF& box, std::uint64_t from, std::uint64_t to)
{
    const analysis::ActivityLanes& lanes = *m_run->lanes;
    const int columns = std::max(1, static_cast<int>(box.width()));
    const double top = box.top(), height = box.height();
    const double pixelsPerCycle = box.width() / static_cast<double>(to - from);
    const auto xOf = [&](std::uint64_t cycle) {
        return box.left() + (static_cast<double>(cycle) - static_cast<double>(from)) * pixelsPerCycle;
    };
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
    QFont font = painter.font();
    // As large as the row allows, never larger than the window's text (presentation mode enlarges both).
    font.setPointSizeF(std::clamp(height * 0.55, 6.5, std::max(9.0, QApplication::font().pointSizeF())));
    painter.setFont(font);
    const QFontMetricsF metrics(font);
    for (const analysis::LaneItem& item : items) {
        const double x0 = xOf(item.start);
        double x1 = xOf(item.end);
        if (x1 - x0 < 1)
            x1 = x0 + 1;
        QColor fill = categoryColor(lane, item.category);
        bool selected = false;
        if (lane.kind == LaneKind::Region) {
            events::RegionInstance r;
            if (lanes.region(item.ref, r))
                fill = theme.regionColor(r.region());
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
            const double q0 = xOf(item.queued);
            QColor queued = fill;
            queued.setAlpha(70);
            painter.setPen(Qt::NoPen);
            painter.setBrush(queued);
            painter.drawRect(QRectF(q0, top + height * 0.3, x0 - q0, height * 0.4));
        }
        painter.setBrush(fill);
        if (selected)
            painter.setPen(QPen(theme.highlight(), 2));
        else if (x1 - x0 > 4)
            painter.setPen(QPen(fill.darker(150), 1));
        else
            painter.setPen(Qt::NoPen);
        const QRectF rect(x0, top, x1 - x0, height);
        painter.drawRect(rect);
        // The label sits in the part of the block on screen (sticky, as Perfetto's slice titles): zoomed
        // inside a region, its name stays at the plot's left edge instead of scrolling out with the block's
        // start.
        const QRectF shown = rect.intersected(QRectF(box.left(), rect.top(), box.width(), rect.height()));
        if (shown.width() > 28) {
            const QString label = itemLabel(trace, lanes, lane, item);
            painter.setPen(Theme::textOn(fill));
            const QString text = metrics.elidedText(label, Qt::ElideRight, shown.width() - 5);
            painter.drawText(shown.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
            m_drawnLabels.push_back({text, shown, painter.pen().color(), fill});
        }
    }
    return true;
}

void TimelineLanes::drawColumns(const analysis::LaneInfo& lane, std::size_t laneIndex, int top, int height,
                                std::uint64_t from, std::uint64_t to)
{
    const int columns = m_image.width();
    // Rows partly scrolled out of the plot keep the part inside it.
    height = std::min(top + height, m_image.height()) - std::max(top, 0);
    top = std::max(top, 0);
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
    if (!m_imageUsed) {
        m_image.fill(Qt::transparent); // cleared only in a frame that has columns at all
        m_imageUsed = true;
    }
    for (int y = top; y < top + height; ++y)
        std::memcpy(m_image.scanLine(y), row.data(), row.size() * sizeof(QRgb));
}

} // namespace xps::ui
