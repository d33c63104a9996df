#include "imported/profile_timeline_view.h"
#include "selection/selection_model.h"

#include "imported/profile_document.h"
#include "imported/profile_text.h"
#include "session/session_notes.h"
#include "theme/theme.h"
#include "timeline/note_bands.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace xps::ui {

ProfileTimelineView::ProfileTimelineView(ProfileDocument* document, QWidget* parent)
    : TimelineCanvas(parent), m_document(document)
{
    setObjectName(QStringLiteral("profileTimeline"));
    setMinimumSize(400, 200);
    connect(m_document, &ProfileDocument::loaded, this, &ProfileTimelineView::rebuild);
    connect(m_document, &ProfileDocument::rangeChanged, this, qOverload<>(&QWidget::update));
    connect(m_document->selection(), &SelectionModel::selectionChanged, this, [this] {
        // Scroll a slice selected elsewhere into view.
        if (m_document->selection()->selection().origin != QStringLiteral("timeline"))
            scrollToRow(rowOf(m_document->selectedSlice()));
        update();
    });
}

void ProfileTimelineView::setSliceFilter(std::function<bool(const ProfileRun&, std::uint32_t)> keep)
{
    m_keep = std::move(keep);
    rebuild();
}

void ProfileTimelineView::setNotes(SessionNotes* notes)
{
    m_notes = notes;
    connect(notes, &SessionNotes::notesChanged, this, qOverload<>(&QWidget::update));
    update();
}

void ProfileTimelineView::rebuild()
{
    const ProfileRun* run = m_document->run();
    std::function<bool(std::uint32_t)> keep;
    if (run && m_keep)
        keep = [this, run](std::uint32_t slice) { return m_keep(*run, slice); };
    m_rows = run ? buildProfileRows(run->profile, keep) : std::vector<ProfileRow>{};
    std::vector<RowSpec> specs;
    specs.reserve(m_rows.size());
    for (const ProfileRow& row : m_rows) {
        RowSpec spec;
        spec.label = QString::fromStdString(row.label);
        switch (row.kind) {
        case ProfileRow::Kind::Process:
            spec.style = RowStyle::Header;
            if (run->profile.track(row.track).device)
                spec.label += tr("  (device)");
            break;
        case ProfileRow::Kind::Counter: spec.style = RowStyle::Tall; break;
        case ProfileRow::Kind::Slices: spec.style = RowStyle::Lane; break;
        }
        specs.push_back(std::move(spec));
    }
    m_firstRowOfTrack.assign(run ? run->profile.tracks.size() : 0, -1);
    for (int r = 0; r < static_cast<int>(m_rows.size()); ++r)
        if (const ProfileRow& row = m_rows[static_cast<std::size_t>(r)];
            row.kind == ProfileRow::Kind::Slices && m_firstRowOfTrack[row.track.value] < 0)
            m_firstRowOfTrack[row.track.value] = r;
    m_critical.assign(run ? run->profile.slices.size() : 0, false);
    if (run)
        for (const profile::PathSegment& seg : run->analysis.criticalPath.segments)
            if (seg.slice.valid())
                m_critical[seg.slice.value] = true;
    resetScroll();
    setRows(std::move(specs));
}

std::pair<Ticks, Ticks> ProfileTimelineView::visibleWindow() const
{
    return m_document->visibleRange();
}

void ProfileTimelineView::requestWindow(Ticks from, Ticks to)
{
    m_document->setVisibleRange(from, std::max(to, from + 10));
}

std::pair<Ticks, Ticks> ProfileTimelineView::fullWindow() const
{
    const ProfileRun* run = m_document->run();
    if (!run)
        return {0, 1};
    return {run->profile.startTime(), std::max(run->profile.endTime(), run->profile.startTime() + 1)};
}

Ticks ProfileTimelineView::axisOrigin() const
{
    return m_document->run() ? m_document->run()->profile.startTime() : 0;
}

double ProfileTimelineView::axisUnitsPerTick() const
{
    return m_document->run() ? m_document->run()->profile.timebase.toNanosExact(1) : 1.0;
}

QString ProfileTimelineView::tickLabel(Ticks sinceOrigin) const
{
    return m_document->run() ? formatDuration(m_document->run()->profile.timebase, sinceOrigin) : QString();
}

QString ProfileTimelineView::spanLabel(Ticks span) const
{
    return m_document->run() ? tr("%1 visible").arg(formatDuration(m_document->run()->profile.timebase, span))
                             : QString();
}

bool ProfileTimelineView::hasContent() const
{
    return m_document->run() != nullptr;
}

QString ProfileTimelineView::emptyText() const
{
    return m_document->isBusy() ? tr("Importing…") : tr("No profile open");
}

QString ProfileTimelineView::rowLabel(int row) const
{
    if (row < 0 || row >= rowCount())
        return {};
    const ProfileRow& r = m_rows[static_cast<std::size_t>(row)];
    if (!r.label.empty() || !m_document->run())
        return QString::fromStdString(r.label);
    return QString::fromStdString(m_document->run()->profile.track(r.track).name) +
           QStringLiteral(" (depth %1)").arg(r.depth);
}

int ProfileTimelineView::rowOf(profile::SliceRow slice) const
{
    const ProfileRun* run = m_document->run();
    if (!run || !slice.valid() || slice.value >= run->profile.slices.size())
        return -1;
    const profile::Slice& s = run->profile.slice(slice);
    // A track's rows are consecutive, one per depth (with a filter, only the depths that kept something).
    for (int r = m_firstRowOfTrack[s.track().value]; r >= 0 && r < rowCount(); ++r) {
        const ProfileRow& row = m_rows[static_cast<std::size_t>(r)];
        if (row.kind != ProfileRow::Kind::Slices || row.track != s.track())
            break;
        if (row.depth == s.depth())
            return r;
    }
    return -1;
}

QPoint ProfileTimelineView::pointAt(profile::SliceRow slice) const
{
    const int row = rowOf(slice);
    if (row < 0)
        return {};
    const profile::Slice& s = m_document->run()->profile.slice(slice);
    const QRect plot = plotArea(), r = rowRect(row);
    const double x0 = std::max<double>(xOf(s.start), plot.left()),
                 x1 = std::min<double>(xOf(s.end()), plot.right());
    const int y = r.center().y();
    if (x1 < x0 || y < plot.top() || y > height())
        return {};
    return QPoint(static_cast<int>((x0 + std::max(x1, x0 + 1)) / 2), y);
}

profile::SliceRow ProfileTimelineView::sliceAt(const QPoint& pos) const
{
    const ProfileRun* run = m_document->run();
    const int row = rowAt(pos.y());
    if (!run || row < 0 || pos.x() < gutter())
        return {};
    const ProfileRow& r = m_rows[static_cast<std::size_t>(row)];
    if (r.kind != ProfileRow::Kind::Slices)
        return {};
    // Within two pixels either side, the nearest slice.
    const auto [a, b] = visibleSlices(run->profile, r, timeAt(pos.x() - 2), timeAt(pos.x() + 2) + 1);
    profile::SliceRow best;
    double bestDistance = 3;
    for (std::size_t k = a; k < b && k < a + 64; ++k) {
        const profile::Slice& s = run->profile.slices[r.slices[k]];
        const double x0 = xOf(s.start), x1 = std::max(xOf(s.end()), x0 + 1);
        const double d = pos.x() < x0 ? x0 - pos.x() : pos.x() > x1 ? pos.x() - x1 : 0;
        if (d < bestDistance) {
            bestDistance = d;
            best = profile::SliceRow(r.slices[k]);
        }
    }
    return best;
}

void ProfileTimelineView::paintRow(QPainter& painter, int row, const QRect& rect)
{
    const ProfileRow& r = m_rows[static_cast<std::size_t>(row)];
    if (r.kind == ProfileRow::Kind::Counter)
        drawCounter(painter, r, rect);
    else if (r.kind == ProfileRow::Kind::Slices)
        drawSlices(painter, r, rect);
}

void ProfileTimelineView::paintOverPlot(QPainter& painter)
{
    drawFlows(painter);
    // An imported profile's notes, or a replay's on its profile page: both in the page's ticks (a replay's
    // profile counts its cycles, as its notes do).
    if (m_notes)
        drawNoteBands(painter, m_notes->notes(), plotArea(), [this](profile::Ticks t) { return xOf(t); });
}

void ProfileTimelineView::drawSlices(QPainter& painter, const ProfileRow& row, const QRect& rect)
{
    const profile::Profile& p = m_document->run()->profile;
    const Theme& theme = Theme::instance();
    const auto [from, to] = m_document->visibleRange();
    auto [k, last] = visibleSlices(p, row, from, to);
    const std::uint32_t selected = m_document->selectedSlice().value; // kNone: none (rows hold plain indexes)
    const QRectF box(0, rect.top() + 1, 0, rect.height() - 3);
    while (k < last) {
        const std::uint32_t i = row.slices[k];
        const profile::Slice& s = p.slices[i];
        const double x0 = xOf(s.start), x1 = xOf(s.end());
        if (x1 - x0 < 2.0) {
            // Everything that starts within this two-pixel column becomes one mark.
            const Ticks columnEnd = timeAt(std::floor(x0) + 2.0);
            const auto next =
                std::partition_point(row.slices.begin() + static_cast<std::ptrdiff_t>(k),
                                     row.slices.begin() + static_cast<std::ptrdiff_t>(last),
                                     [&](std::uint32_t j) { return p.slices[j].start < columnEnd; });
            const std::size_t end =
                std::max<std::size_t>(static_cast<std::size_t>(next - row.slices.begin()), k + 1);
            const double markEnd = std::max(xOf(p.slices[row.slices[end - 1]].end()), x0 + 1.0);
            painter.fillRect(QRectF(x0, box.top(), std::min(markEnd, x0 + 2.0) - x0, box.height()),
                             sliceColor(p, s).darker(115));
            if (i == selected ||
                (end - k > 1 && selected != profile::kNone && p.slices[selected].track() == s.track() &&
                 p.slices[selected].depth() == s.depth() && p.slices[selected].start >= s.start &&
                 p.slices[selected].start < columnEnd)) {
                painter.setPen(QPen(theme.highlight(), 2 * theme.lineScale()));
                painter.drawRect(QRectF(x0 - 2, box.top(), 5, box.height()));
            }
            k = end;
            continue;
        }
        const QRectF r(x0, box.top(), x1 - x0, box.height());
        const QColor color = sliceColor(p, s);
        painter.fillRect(r, color);
        if (m_critical[i])
            painter.fillRect(QRectF(x0, r.bottom() - 2 * theme.lineScale(), x1 - x0, 2 * theme.lineScale()),
                             theme.critical());
        if (r.width() > 24) {
            painter.setPen(Theme::textOn(color));
            const QRectF text =
                r.intersected(QRectF(rect.left(), r.top(), rect.width(), r.height())).adjusted(3, 0, -2, 0);
            painter.drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
                             fontMetrics().elidedText(QString::fromStdString(p.nameOf(s)), Qt::ElideRight,
                                                      static_cast<int>(text.width())));
        }
        if (i == selected) {
            painter.setPen(QPen(theme.highlight(), 2 * theme.lineScale()));
            painter.drawRect(r.adjusted(0, 0, -1, -1));
        }
        ++k;
    }
}

void ProfileTimelineView::drawCounter(QPainter& painter, const ProfileRow& row, const QRect& rect)
{
    const int top = rect.top(), height = rect.height();
    const profile::Profile& p = m_document->run()->profile;
    const auto first = p.counters.begin() + row.firstCounter, last = first + row.counterCount;
    if (first == last)
        return;
    const auto [from, to] = m_document->visibleRange();
    auto a =
        std::partition_point(first, last, [&](const profile::CounterSample& c) { return c.time < from; });
    if (a != first)
        --a; // the value in force at the left edge
    const auto b =
        std::partition_point(a, last, [&](const profile::CounterSample& c) { return c.time <= to; });
    double lo = 0, hi = 0;
    for (auto it = a; it != b; ++it) {
        lo = std::min(lo, it->value);
        hi = std::max(hi, it->value);
    }
    if (hi <= lo)
        hi = lo + 1;
    const auto yOf = [&](double v) { return top + height - 3 - (v - lo) / (hi - lo) * (height - 8); };
    QPainterPath path;
    path.moveTo(std::max<double>(xOf(a->time), rect.left()), yOf(a->value));
    double lastX = path.currentPosition().x();
    for (auto it = a + 1; it != b; ++it) {
        const double x = xOf(it->time);
        if (x - lastX < 0.5 && it + 1 != b)
            continue; // many samples in one pixel: the last of them draws
        path.lineTo(x, path.currentPosition().y());
        path.lineTo(x, yOf(it->value));
        lastX = x;
    }
    path.lineTo(rect.right() + 1, path.currentPosition().y());
    const QColor color = Theme::instance().dmaColor(analysis::DmaPathClass::Load);
    painter.setPen(QPen(color, 1.5 * Theme::instance().lineScale()));
    painter.drawPath(path);
    painter.setPen(Theme::instance().foreground());
    painter.drawText(QRectF(rect.left() + 4, top, 200, fontMetrics().height()), Qt::AlignLeft | Qt::AlignTop,
                     formatCounterValue(hi));
}

void ProfileTimelineView::drawFlows(QPainter& painter)
{
    const profile::SliceRow selected = m_document->selectedSlice();
    if (!selected.valid())
        return;
    const profile::Profile& p = m_document->run()->profile;
    for (const profile::Flow& f : p.flows) {
        if (f.from != selected && f.to != selected)
            continue;
        const int r0 = rowOf(f.from), r1 = rowOf(f.to);
        if (r0 < 0 || r1 < 0)
            continue;
        const QRect plot = plotArea();
        const double left = plot.left(), right = plot.right();
        const QPointF a(std::clamp(xOf(p.slice(f.from).start), left, right), rowRect(r0).center().y());
        const QPointF b(std::clamp(xOf(p.slice(f.to).start), left, right), rowRect(r1).center().y());
        drawFlowArrow(painter, a, b);
    }
}

void ProfileTimelineView::clickedAt(const QPoint& pos)
{
    m_document->selectSlice(sliceAt(pos), QStringLiteral("timeline"));
}

QString ProfileTimelineView::tooltipAt(const QPoint& pos) const
{
    const profile::SliceRow s = sliceAt(pos);
    return s.valid() ? sliceSummary(m_document->run()->profile, s) : QString();
}

} // namespace xps::ui
