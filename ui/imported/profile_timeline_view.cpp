#include "imported/profile_timeline_view.h"
#include "selection/selection_model.h"

#include "imported/profile_document.h"
#include "imported/profile_note_bands.h"
#include "imported/profile_text.h"
#include "session/session_notes.h"
#include "theme/theme.h"

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

using profile::Nanos;

ProfileTimelineView::ProfileTimelineView(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_scroll(new QScrollBar(Qt::Vertical, this))
{
    setObjectName(QStringLiteral("profileTimeline"));
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumSize(400, 200);
    connect(m_scroll, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    connect(m_document, &ProfileDocument::loaded, this, &ProfileTimelineView::rebuild);
    connect(m_document, &ProfileDocument::rangeChanged, this, qOverload<>(&QWidget::update));
    connect(m_document->selection(), &SelectionModel::selectionChanged, this, [this] {
        // Scroll a slice selected elsewhere into view.
        const int row = rowOf(m_document->selectedSlice());
        if (row >= 0 && m_document->selection()->selection().origin != QStringLiteral("timeline")) {
            const int top = rowTop(row) - axisHeight(), visible = height() - axisHeight();
            if (top < m_scroll->value() || top + rowHeight(row) > m_scroll->value() + visible)
                m_scroll->setValue(std::max(0, top - visible / 3));
        }
        update();
    });
    connect(&Theme::instance(), &Theme::changed, this, qOverload<>(&QWidget::update));
}

int ProfileTimelineView::gutter() const
{
    return m_gutter > 0 ? m_gutter : fontMetrics().horizontalAdvance(QLatin1Char('M')) * 22;
}

void ProfileTimelineView::fitGutter()
{
    // As wide as the longest label (and the axis's "… visible"), between 10 and 22 'M's: a fixed 22 left
    // 330 px of a 1920 px screen to labels of 15 characters in presentation mode; longer ones are elided.
    const QFontMetrics metrics = fontMetrics();
    const int m = metrics.horizontalAdvance(QLatin1Char('M'));
    int widest = metrics.horizontalAdvance(tr("%1 visible").arg(QStringLiteral("000.000 ms"))) + 18;
    for (const ProfileRow& row : m_rows)
        if (row.kind != ProfileRow::Kind::Process && !row.label.empty())
            widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(row.label)) + 28);
    m_gutter = m_rows.empty() ? 0 : std::clamp(widest, 10 * m, 22 * m);
}

int ProfileTimelineView::scrollBarWidth() const
{
    return m_scroll->sizeHint().width();
}

int ProfileTimelineView::axisHeight() const
{
    return fontMetrics().height() + 12;
}

int ProfileTimelineView::rowHeight(int row) const
{
    const int base = fontMetrics().height() + 6;
    switch (m_rows[static_cast<std::size_t>(row)].kind) {
    case ProfileRow::Kind::Process: return base + 2;
    case ProfileRow::Kind::Counter: return base * 2;
    case ProfileRow::Kind::Slices: return base;
    }
    return base;
}

int ProfileTimelineView::rowTop(int row) const
{
    return axisHeight() + m_tops[static_cast<std::size_t>(row)];
}

int ProfileTimelineView::rowAtY(int y) const
{
    const int content = y - axisHeight() + m_scroll->value();
    if (y < axisHeight() || content < 0 || m_tops.empty() || content >= m_tops.back())
        return -1;
    const auto it = std::upper_bound(m_tops.begin(), m_tops.end(), content);
    return static_cast<int>(it - m_tops.begin()) - 1;
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
    m_tops.assign(1, 0);
    for (int r = 0; r < rowCount(); ++r)
        m_tops.push_back(m_tops.back() + rowHeight(r));
    m_firstRowOfTrack.assign(run ? run->profile.tracks.size() : 0, -1);
    for (int r = 0; r < rowCount(); ++r)
        if (const ProfileRow& row = m_rows[static_cast<std::size_t>(r)];
            row.kind == ProfileRow::Kind::Slices && m_firstRowOfTrack[row.track.value] < 0)
            m_firstRowOfTrack[row.track.value] = r;
    m_critical.assign(run ? run->profile.slices.size() : 0, false);
    if (run)
        for (const profile::PathSegment& seg : run->analysis.criticalPath.segments)
            if (seg.slice.valid())
                m_critical[seg.slice.value] = true;
    fitGutter();
    m_scroll->setValue(0);
    updateScrollRange();
    update();
}

void ProfileTimelineView::updateScrollRange()
{
    const int content = m_tops.empty() ? 0 : m_tops.back();
    const int visible = height() - axisHeight();
    m_scroll->setRange(0, std::max(0, content - visible));
    m_scroll->setPageStep(std::max(1, visible));
    m_scroll->setSingleStep(fontMetrics().height() + 6);
}

void ProfileTimelineView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int w = m_scroll->sizeHint().width();
    m_scroll->setGeometry(width() - w, axisHeight(), w, height() - axisHeight());
    updateScrollRange();
}

double ProfileTimelineView::xOf(Nanos t) const
{
    const auto [from, to] = m_document->visibleRange();
    const double plot = std::max(1, width() - gutter() - m_scroll->width());
    return gutter() + static_cast<double>(t - from) * plot / static_cast<double>(to - from);
}

Nanos ProfileTimelineView::timeAt(double x) const
{
    const auto [from, to] = m_document->visibleRange();
    const double plot = std::max(1, width() - gutter() - m_scroll->width());
    return from + static_cast<Nanos>(std::llround((x - gutter()) * static_cast<double>(to - from) / plot));
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
    const double x0 = std::max<double>(xOf(s.start), gutter()),
                 x1 = std::min<double>(xOf(s.end()), width() - m_scroll->width() - 1);
    const int y = rowTop(row) - m_scroll->value() + rowHeight(row) / 2;
    if (x1 < x0 || y < axisHeight() || y > height())
        return {};
    return QPoint(static_cast<int>((x0 + std::max(x1, x0 + 1)) / 2), y);
}

profile::SliceRow ProfileTimelineView::sliceAt(const QPoint& pos) const
{
    const ProfileRun* run = m_document->run();
    const int row = rowAtY(pos.y());
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

void ProfileTimelineView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const Theme& theme = Theme::instance();
    painter.fillRect(rect(), theme.background());
    const ProfileRun* run = m_document->run();
    m_paintedRows = 0;
    if (!run) {
        painter.setPen(theme.foreground());
        painter.drawText(rect(), Qt::AlignCenter,
                         m_document->isBusy() ? tr("Importing…") : tr("No profile open"));
        return;
    }
    const int right = width() - m_scroll->width();
    painter.setClipRect(0, axisHeight(), right, height() - axisHeight());
    for (int r = std::max(0, rowAtY(axisHeight())); r >= 0 && r < rowCount(); ++r) {
        const int top = rowTop(r) - m_scroll->value();
        if (top > height())
            break;
        const int h = rowHeight(r);
        const ProfileRow& row = m_rows[static_cast<std::size_t>(r)];
        ++m_paintedRows;
        if (row.kind == ProfileRow::Kind::Process) {
            painter.fillRect(0, top, right, h, theme.laneShade());
            QFont bold = font();
            bold.setBold(true);
            painter.setFont(bold);
            painter.setPen(theme.foreground());
            const QString label = QString::fromStdString(row.label) +
                                  (run->profile.track(row.track).device ? tr("  (device)") : QString());
            // A header row has no slices: its name may use the row's width, but no more (bold metrics).
            painter.drawText(QRect(6, top, right - 12, h), Qt::AlignVCenter | Qt::AlignLeft,
                             QFontMetrics(bold).elidedText(label, Qt::ElideMiddle, right - 12));
            painter.setFont(font());
            continue;
        }
        painter.setClipRect(gutter(), std::max(top, axisHeight()), right - gutter(), h);
        if (row.kind == ProfileRow::Kind::Counter)
            drawCounter(painter, row, top, h);
        else
            drawSlices(painter, row, top, h);
        painter.setClipRect(0, axisHeight(), right, height() - axisHeight());
        painter.setPen(theme.foreground());
        if (!row.label.empty())
            painter.drawText(
                QRect(14, top, gutter() - 20, h), Qt::AlignVCenter | Qt::AlignLeft,
                fontMetrics().elidedText(QString::fromStdString(row.label), Qt::ElideMiddle, gutter() - 20));
        painter.setPen(theme.grid());
        painter.drawLine(gutter(), top + h - 1, right, top + h - 1);
    }
    painter.setClipRect(gutter(), axisHeight(), right - gutter(), height() - axisHeight());
    drawFlows(painter);
    if (m_notes && run->fromFile)
        drawNoteBands(painter, m_notes->notes(),
                      QRect(gutter(), axisHeight(), right - gutter(), height() - axisHeight()),
                      [this](profile::Nanos t) { return xOf(t); });
    painter.setClipping(false);
    painter.setPen(theme.grid());
    painter.drawLine(gutter() - 1, axisHeight(), gutter() - 1, height());
    drawAxis(painter);
}

void ProfileTimelineView::drawAxis(QPainter& painter)
{
    const Theme& theme = Theme::instance();
    const int right = width() - m_scroll->width();
    painter.fillRect(0, 0, width(), axisHeight(), theme.background());
    painter.setPen(theme.foreground());
    const auto [from, to] = m_document->visibleRange();
    const Nanos origin = m_document->run()->profile.startTime();
    painter.drawText(QRect(6, 0, gutter() - 12, axisHeight()), Qt::AlignVCenter | Qt::AlignLeft,
                     tr("%1 visible").arg(formatDuration(to - from)));
    // Ticks at 1, 2 or 5 x 10^k nanoseconds, about every 120 pixels.
    const double perPixel = static_cast<double>(to - from) / std::max(1, right - gutter());
    const double raw = std::max(perPixel * 120, 1.0);
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    double step = decade * 10;
    for (const double m : {1.0, 2.0, 5.0})
        if (decade * m >= raw) {
            step = decade * m;
            break;
        }
    const auto tick = static_cast<Nanos>(step);
    const Nanos firstTick = ((from - origin) / tick) * tick + origin;
    for (Nanos t = firstTick; t <= to; t += tick) {
        const double x = xOf(t);
        if (x < gutter())
            continue;
        painter.setPen(theme.grid());
        painter.drawLine(QPointF(x, axisHeight() - 5), QPointF(x, axisHeight()));
        const QString label = formatDuration(t - origin);
        if (x + 3 + fontMetrics().horizontalAdvance(label) > right)
            continue; // a label cut off at the edge reads as another number
        painter.setPen(theme.foreground());
        painter.drawText(QRectF(x + 3, 0, 110, axisHeight() - 2), Qt::AlignVCenter | Qt::AlignLeft, label);
    }
    painter.setPen(theme.grid());
    painter.drawLine(0, axisHeight() - 1, right, axisHeight() - 1);
}

void ProfileTimelineView::drawSlices(QPainter& painter, const ProfileRow& row, int top, int height)
{
    const profile::Profile& p = m_document->run()->profile;
    const Theme& theme = Theme::instance();
    const auto [from, to] = m_document->visibleRange();
    auto [k, last] = visibleSlices(p, row, from, to);
    const std::uint32_t selected = m_document->selectedSlice().value; // kNone: none (rows hold plain indexes)
    const QRectF box(0, top + 1, 0, height - 3);
    while (k < last) {
        const std::uint32_t i = row.slices[k];
        const profile::Slice& s = p.slices[i];
        const double x0 = xOf(s.start), x1 = xOf(s.end());
        if (x1 - x0 < 2.0) {
            // Everything that starts within this two-pixel column becomes one mark.
            const Nanos columnEnd = timeAt(std::floor(x0) + 2.0);
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
            painter.setPen(color.lightness() > 140 ? QColor(20, 20, 20) : QColor(250, 250, 250));
            const QRectF text =
                r.intersected(QRectF(gutter(), r.top(), width(), r.height())).adjusted(3, 0, -2, 0);
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

void ProfileTimelineView::drawCounter(QPainter& painter, const ProfileRow& row, int top, int height)
{
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
    path.moveTo(std::max<double>(xOf(a->time), gutter()), yOf(a->value));
    double lastX = path.currentPosition().x();
    for (auto it = a + 1; it != b; ++it) {
        const double x = xOf(it->time);
        if (x - lastX < 0.5 && it + 1 != b)
            continue; // many samples in one pixel: the last of them draws
        path.lineTo(x, path.currentPosition().y());
        path.lineTo(x, yOf(it->value));
        lastX = x;
    }
    path.lineTo(width(), path.currentPosition().y());
    const QColor color = Theme::instance().dmaColor(analysis::DmaPathClass::Load);
    painter.setPen(QPen(color, 1.5 * Theme::instance().lineScale()));
    painter.drawPath(path);
    painter.setPen(Theme::instance().foreground());
    painter.drawText(QRectF(gutter() + 4, top, 200, fontMetrics().height()), Qt::AlignLeft | Qt::AlignTop,
                     formatCounterValue(hi));
}

void ProfileTimelineView::drawFlows(QPainter& painter)
{
    const profile::SliceRow selected = m_document->selectedSlice();
    if (!selected.valid())
        return;
    const profile::Profile& p = m_document->run()->profile;
    const Theme& theme = Theme::instance();
    for (const profile::Flow& f : p.flows) {
        if (f.from != selected && f.to != selected)
            continue;
        const int r0 = rowOf(f.from), r1 = rowOf(f.to);
        if (r0 < 0 || r1 < 0)
            continue;
        // An end off screen is drawn at the plot's edge on its own row, so the arrow shows where it comes
        // from.
        const double left = gutter(), right = width() - m_scroll->width();
        const QPointF a(std::clamp(xOf(p.slice(f.from).start), left, right),
                        rowTop(r0) - m_scroll->value() + rowHeight(r0) / 2.0);
        const QPointF b(std::clamp(xOf(p.slice(f.to).start), left, right),
                        rowTop(r1) - m_scroll->value() + rowHeight(r1) / 2.0);
        QPainterPath path(a);
        path.cubicTo(QPointF(a.x() + 40, a.y()), QPointF(b.x() - 40, b.y()), b);
        painter.setPen(QPen(theme.critical(), 1.5 * theme.lineScale()));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
        painter.setBrush(theme.critical());
        const double dir = b.x() >= a.x() - 40 ? 1 : -1;
        painter.drawPolygon(
            QPolygonF({b, QPointF(b.x() - 8 * dir, b.y() - 4), QPointF(b.x() - 8 * dir, b.y() + 4)}));
    }
}

void ProfileTimelineView::zoomAt(double x, double factor)
{
    const auto [from, to] = m_document->visibleRange();
    const Nanos at = timeAt(x);
    const double span = std::clamp(static_cast<double>(to - from) * factor, 10.0, 4e15);
    const double left = static_cast<double>(at - from) / static_cast<double>(to - from);
    const auto newFrom = static_cast<Nanos>(static_cast<double>(at) - left * span);
    m_document->setVisibleRange(newFrom, newFrom + static_cast<Nanos>(span));
}

void ProfileTimelineView::panBy(double pixels)
{
    const auto [from, to] = m_document->visibleRange();
    const Nanos shift = timeAt(gutter() + pixels) - from;
    m_document->setVisibleRange(from + shift, to + shift);
}

void ProfileTimelineView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ShiftModifier)
        m_scroll->setValue(m_scroll->value() - static_cast<int>(steps * m_scroll->singleStep() * 3));
    else
        zoomAt(event->position().x(), std::pow(0.8, steps));
    event->accept();
}

void ProfileTimelineView::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = event->pos();
    std::tie(m_pressFrom, m_pressTo) = m_document->visibleRange();
    m_dragging = false;
    setFocus();
}

void ProfileTimelineView::mouseMoveEvent(QMouseEvent* event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return;
    if ((event->pos() - m_pressPos).manhattanLength() > 3)
        m_dragging = true;
    if (!m_dragging)
        return;
    const double plot = std::max(1, width() - gutter() - m_scroll->width());
    const auto shift = static_cast<Nanos>(static_cast<double>(m_pressFrom - m_pressTo) *
                                          (event->pos().x() - m_pressPos.x()) / plot);
    m_document->setVisibleRange(m_pressFrom + shift, m_pressTo + shift);
}

void ProfileTimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    if (!m_dragging && event->button() == Qt::LeftButton)
        m_document->selectSlice(sliceAt(event->pos()), QStringLiteral("timeline"));
    m_dragging = false;
}

void ProfileTimelineView::keyPressEvent(QKeyEvent* event)
{
    const double centre = gutter() + (width() - gutter() - m_scroll->width()) / 2.0;
    switch (event->key()) {
    case Qt::Key_W: zoomAt(centre, 0.8); break;
    case Qt::Key_S: zoomAt(centre, 1.25); break;
    case Qt::Key_A:
    case Qt::Key_Left: panBy(-(width() - gutter()) / 5.0); break;
    case Qt::Key_D:
    case Qt::Key_Right: panBy((width() - gutter()) / 5.0); break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

bool ProfileTimelineView::event(QEvent* event)
{
    if (event->type() == QEvent::FontChange) { // presentation mode: wider labels (gutter() is read per slice)
        fitGutter();
        update();
    }
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const profile::SliceRow s = sliceAt(help->pos());
        if (s.valid())
            QToolTip::showText(help->globalPos(), sliceSummary(m_document->run()->profile, s), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace xps::ui
