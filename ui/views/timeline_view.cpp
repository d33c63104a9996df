#include "views/timeline_view.h"

#include "isa/topology.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "session/session_notes.h"
#include "theme/theme.h"
#include "views/event_text.h"
#include "views/note_markers.h"
#include "views/timeline_lanes.h"

#include "widgets/axis_ticks.h"
#include "widgets/qcustomplot.h"
#include "widgets/wrapping_label.h"
#include <QApplication>
#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>

namespace xps::ui {
namespace {

constexpr int kRowPixels = 22;
constexpr double kMinVisibleCycles = 8.0;

QString legendHtml(bool dmaOnly)
{
    const Theme& t = Theme::instance();
    auto swatch = [](const QColor& c, const QString& name) {
        return QStringLiteral("<span style='color:%1'>■</span>&nbsp;%2&nbsp;&nbsp; ").arg(c.name(), name);
    };
    QString html = dmaOnly ? QString() : QStringLiteral("<b>stalls</b> ");
    for (int r = 1; r < events::kStallReasonCount && !dmaOnly; ++r) {
        const auto reason = static_cast<events::StallReason>(r);
        html += swatch(t.stallColor(reason), QString::fromUtf8(events::stallReasonName(reason).data()));
    }
    html += QStringLiteral("&nbsp;<b>DMA</b> ");
    for (int p = 0; p < analysis::kDmaPathClassCount; ++p) {
        const auto path = static_cast<analysis::DmaPathClass>(p);
        html += swatch(t.dmaColor(path), QString::fromUtf8(analysis::dmaPathClassName(path).data()));
    }
    return html + QStringLiteral("&nbsp;<i>wheel: zoom · drag: pan · shift+drag: box zoom · W/S/A/D</i>");
}

std::string laneKey(const analysis::LaneInfo& lane)
{
    return "chip " + std::to_string(lane.chip) + "/" + lane.name;
}

} // namespace

void TimelineView::setHiddenLanes(std::vector<std::string> keys)
{
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    if (keys == m_hidden)
        return;
    m_hidden = std::move(keys);
    if (m_session->run() && m_session->run()->lanes) {
        rebuildRows();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

TimelineView::TimelineView(ReplaySession* session, SelectionModel* selection, QWidget* parent,
                           LaneFilter laneFilter)
    : QWidget(parent), m_session(session), m_selection(selection), m_plot(new QCustomPlot(this)),
      m_scroll(new QScrollBar(Qt::Vertical, this)), m_legend(new QLabel(this)),
      m_laneFilter(std::move(laneFilter))
{
    setObjectName(QStringLiteral("timeline"));
    m_lanes = new TimelineLanes(m_plot->xAxis, m_plot->yAxis);
    m_lanes->setSelection(&m_selection->selection());
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoomFactor(0.8);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setFocusPolicy(Qt::StrongFocus);
    m_plot->xAxis->setLabel(tr("cycles"));
    m_plot->xAxis->setNumberFormat(QStringLiteral("f"));
    m_plot->xAxis->setNumberPrecision(0);
    // A filtered timeline (the DMA lanes) shares a dock with a bandwidth plot that has its own cycle axis:
    // the microsecond axis and the axis title would take the height of two of its few lanes.
    m_plot->xAxis2->setVisible(!m_laneFilter);
    m_plot->xAxis2->setLabel(tr("µs"));
    if (m_laneFilter)
        m_plot->xAxis->setLabel(QString());
    m_plot->yAxis->setRangeReversed(true);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    m_plot->yAxis->setSubTicks(false);
    m_plot->yAxis->setTickLength(0);
    m_plot->yAxis->grid()->setVisible(false);
    m_plot->installEventFilter(this);
    m_legend->setTextFormat(Qt::RichText);
    wrapToAnyWidth(m_legend);

    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(0);
    row->addWidget(m_plot, 1);
    row->addWidget(m_scroll);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(row, 1);
    layout->addWidget(m_legend);

    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this] { onXRangeChanged(); });
    // The number of rows that fit is known only once QCustomPlot has laid out its axis rect.
    connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
        const QCPRange before = m_plot->yAxis->range();
        fitTickCounts();
        updateRowRange();
        if (m_plot->yAxis->range() != before)
            m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(m_scroll, &QScrollBar::valueChanged, this, [this] {
        updateRowRange();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(session, &ReplaySession::opened, this, &TimelineView::onOpened);
    connect(session, &ReplaySession::eventsChanged, this, &TimelineView::refresh);
    connect(selection, &SelectionModel::selectionChanged, this,
            [this] { m_plot->replot(QCustomPlot::rpQueuedReplot); });
    connect(selection, &SelectionModel::timeRangeChanged, this, [this](quint64 from, quint64 to) {
        if (!m_settingRange)
            setXRange(static_cast<double>(from), static_cast<double>(to));
    });
    connect(&Theme::instance(), &Theme::changed, this, &TimelineView::applyTheme);
    applyTheme();
}

void TimelineView::applyTheme()
{
    Theme::instance().stylePlot(m_plot);
    m_legend->setText(legendHtml(static_cast<bool>(m_laneFilter)));
    updateRowRange(); // presentation mode's larger text needs taller rows
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::onOpened()
{
    m_lanes->setRun(m_session->run());
    m_scroll->setValue(0);
    refresh();
}

void TimelineView::refresh()
{
    const Run* run = m_session->run();
    if (!run || !run->lanes)
        return;
    rebuildRows();
    if (m_selection->following()) {
        const double end = static_cast<double>(std::max<std::uint64_t>(run->lanes->endCycle(), 16));
        m_selection->setFollowRange(0, static_cast<std::uint64_t>(end * 1.02));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::rebuildRows()
{
    const Run* run = m_session->run();
    std::vector<std::size_t> rows;
    const auto& lanes = run->lanes->lanes();
    // Once the interconnect carries anything, every link it has gets a row, used or not: an idle link is
    // evidence too ("the counter-clockwise links carried 0 B" must be visible as empty rows).
    bool interconnectUsed = false;
    for (std::size_t i = 0; i < lanes.size() && !interconnectUsed; ++i)
        interconnectUsed = lanes[i].kind == analysis::LaneKind::IciLink && run->lanes->hasActivity(i);
    const auto idleLinkShown = [&](const analysis::LaneInfo& lane) {
        return interconnectUsed && lane.kind == analysis::LaneKind::IciLink &&
               isa::linkDestination(run->trace->machine, lane.index) != lane.chip; // a ring has no y links
    };
    for (std::size_t i = 0; i < lanes.size(); ++i)
        if ((run->lanes->hasActivity(i) || lanes[i].kind == analysis::LaneKind::Stall ||
             idleLinkShown(lanes[i])) &&
            (!m_laneFilter || m_laneFilter(lanes[i])) &&
            !std::binary_search(m_hidden.begin(), m_hidden.end(), laneKey(lanes[i])))
            rows.push_back(i);
    if (rows == m_lanes->rows())
        return;
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const bool multiChip = run->trace->chips.size() > 1;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const analysis::LaneInfo& lane = lanes[rows[r]];
        const QString name = QString::fromStdString(lane.name);
        ticker->addTick(static_cast<double>(r) + 0.5,
                        multiChip ? QStringLiteral("chip %1 · %2").arg(lane.chip).arg(name) : name);
    }
    m_plot->yAxis->setTicker(ticker);
    m_lanes->setRows(std::move(rows));
    updateRowRange();
    emit rowsChanged();
}

void TimelineView::fitTickCounts()
{
    spaceTicksByLabel(m_plot->xAxis);
    spaceTicksByLabel(m_plot->xAxis2, 1);
}

int TimelineView::minRowPixels() const
{
    // Two lane labels must never touch: at 1.4x text (presentation mode) a fixed 22 px row made them collide.
    // Six pixels between them read as separate lines; more only cost rows on a 768 px screen.
    return std::max(kRowPixels, QFontMetrics(QApplication::font()).height() + 6);
}

int TimelineView::heightForEveryRow() const
{
    const int rows = std::max<int>(1, static_cast<int>(m_lanes->rows().size()));
    // Everything but the lanes keeps its height: the axes' margins, the legend, the layout's spacing.
    return height() - m_plot->axisRect()->height() + rows * minRowPixels();
}

int TimelineView::rowPixels() const
{
    const int height = m_plot->axisRect()->height();
    const int rows = std::max<int>(1, static_cast<int>(m_lanes->rows().size()));
    const int minimum = minRowPixels();
    // Rows that all fit share the height (up to 1.6x their minimum) instead of leaving the lower half of the
    // plot empty; more rows than fit keep the minimum and scroll.
    return std::clamp(height / rows, minimum, minimum * 8 / 5);
}

void TimelineView::updateRowRange()
{
    const int height = std::max(1, m_plot->axisRect()->height());
    const int rowHeight = rowPixels();
    const int visible = std::max(1, height / rowHeight);
    const int rows = static_cast<int>(m_lanes->rows().size());
    m_scroll->setRange(0, std::max(0, rows - visible));
    m_scroll->setPageStep(visible);
    m_scroll->setVisible(rows > visible);
    const double first = m_scroll->value();
    m_plot->yAxis->setRange(first, first + static_cast<double>(height) / rowHeight);
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    updateRowRange();
}

void TimelineView::setXRange(double lower, double upper)
{
    m_settingRange = true;
    m_plot->xAxis->setRange(lower, std::max(upper, lower + kMinVisibleCycles));
    m_settingRange = false;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::onXRangeChanged()
{
    QCPRange r = m_plot->xAxis->range();
    const Run* run = m_session->run();
    const double end = run && run->lanes ? static_cast<double>(run->lanes->endCycle()) * 1.05 + 16 : 1e9;
    // Keep the window on the replay: no negative time, no zooming past a few cycles.
    if (r.size() < kMinVisibleCycles || r.lower < 0 || r.upper > std::max(end, r.size())) {
        const double size = std::clamp(r.size(), kMinVisibleCycles, std::max(end, kMinVisibleCycles));
        double lower = std::clamp(r.lower, 0.0, std::max(0.0, end - size));
        m_plot->xAxis->blockSignals(true);
        m_plot->xAxis->setRange(lower, lower + size);
        m_plot->xAxis->blockSignals(false);
        r = m_plot->xAxis->range();
    }
    if (run)
        m_plot->xAxis2->setRange(r.lower / run->trace->machine.clockMhz,
                                 r.upper / run->trace->machine.clockMhz);
    if (m_settingRange)
        return;
    m_settingRange = true;
    m_selection->setTimeRange(static_cast<std::uint64_t>(std::max(0.0, r.lower)),
                              static_cast<std::uint64_t>(std::max(1.0, r.upper)));
    m_settingRange = false;
}

void TimelineView::zoomBy(double factor)
{
    const QCPRange r = m_plot->xAxis->range();
    m_plot->xAxis->scaleRange(factor, r.center());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::panBy(double fraction)
{
    m_plot->xAxis->moveRange(m_plot->xAxis->range().size() * fraction);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool TimelineView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_plot)
        return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::MouseButtonPress: {
        auto* e = static_cast<QMouseEvent*>(event);
        m_pressPos = e->pos();
        m_plot->setSelectionRectMode(e->modifiers() & Qt::ShiftModifier ? QCP::srmZoom : QCP::srmNone);
        break;
    }
    case QEvent::MouseButtonRelease: {
        auto* e = static_cast<QMouseEvent*>(event);
        if (e->button() == Qt::LeftButton && (e->pos() - m_pressPos).manhattanLength() < 4)
            clickAt(e->pos());
        break;
    }
    case QEvent::MouseMove: {
        auto* e = static_cast<QMouseEvent*>(event);
        if (e->buttons() == Qt::NoButton)
            showTooltip(e->pos());
        break;
    }
    case QEvent::Wheel: {
        auto* e = static_cast<QWheelEvent*>(event);
        if (e->modifiers() & Qt::ShiftModifier) {
            m_scroll->setValue(m_scroll->value() - e->angleDelta().y() / 40);
            return true;
        }
        break;
    }
    case QEvent::KeyPress: {
        auto* e = static_cast<QKeyEvent*>(event);
        switch (e->key()) {
        case Qt::Key_W: zoomBy(0.7); return true;
        case Qt::Key_S: zoomBy(1 / 0.7); return true;
        case Qt::Key_A:
        case Qt::Key_Left: panBy(-0.15); return true;
        case Qt::Key_D:
        case Qt::Key_Right: panBy(0.15); return true;
        case Qt::Key_Up: m_scroll->setValue(m_scroll->value() - 1); return true;
        case Qt::Key_Down: m_scroll->setValue(m_scroll->value() + 1); return true;
        case Qt::Key_Home:
            if (const Run* run = m_session->run())
                m_selection->setTimeRange(
                    0, static_cast<std::uint64_t>(static_cast<double>(run->lanes->endCycle()) * 1.02) + 16);
            return true;
        default: break;
        }
        break;
    }
    case QEvent::ContextMenu:
        if (m_notes) {
            showContextMenu(static_cast<QContextMenuEvent*>(event)->pos());
            return true;
        }
        break;
    default: break;
    }
    return QWidget::eventFilter(watched, event);
}

void TimelineView::setNotes(SessionNotes* notes)
{
    m_notes = notes;
    m_noteMarkers = new NoteMarkers(m_plot, notes, this);
}

int TimelineView::noteMarkerCount() const
{
    return m_noteMarkers ? m_noteMarkers->count() : 0;
}

void TimelineView::showContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    menu.addAction(tr("Add note here…"), this, [this, pos] {
        bool ok = false;
        const QString text =
            QInputDialog::getMultiLineText(this, tr("Add note"), tr("Note on this event:"), {}, &ok);
        if (ok && !text.trimmed().isEmpty())
            addNoteAt(pos, text.trimmed());
    });
    menu.addAction(tr("Add note for the visible range…"), this, [this] {
        bool ok = false;
        const QString text =
            QInputDialog::getMultiLineText(this, tr("Add note"), tr("Note on the visible range:"), {}, &ok);
        if (ok && !text.trimmed().isEmpty())
            addNoteForRange(text.trimmed());
    });
    menu.addSeparator();
    const Run* run = m_session->run();
    if (const int row = m_lanes->rowAt(pos.y()); run && row >= 0) {
        const analysis::LaneInfo& lane = run->lanes->lanes()[m_lanes->rows()[static_cast<std::size_t>(row)]];
        menu.addAction(tr("Hide lane “%1” (chip %2)").arg(QString::fromStdString(lane.name)).arg(lane.chip),
                       this, [this, key = laneKey(lane)] {
                           std::vector<std::string> hidden = m_hidden;
                           hidden.push_back(key);
                           setHiddenLanes(std::move(hidden));
                       });
    }
    if (!m_hidden.empty())
        menu.addAction(tr("Show all lanes (%1 hidden)").arg(m_hidden.size()), this,
                       [this] { setHiddenLanes({}); });
    menu.exec(m_plot->mapToGlobal(pos));
}

std::int64_t TimelineView::addNoteAt(const QPoint& pos, const QString& text)
{
    const Run* run = m_session->run();
    if (!m_notes || !run || !m_plot->axisRect()->rect().contains(pos))
        return 0;
    const double x = std::max(0.0, m_plot->xAxis->pixelToCoord(pos.x()));
    session::Annotation note;
    note.text = text.toStdString();
    note.fromCycle = note.toCycle = static_cast<std::uint64_t>(x);
    // Pinned to the bundle under the pointer, so a re-replay that moves it takes the note along.
    if (const int row = m_lanes->rowAt(pos.y()); row >= 0) {
        const std::size_t laneIndex = m_lanes->rows()[static_cast<std::size_t>(row)];
        const analysis::LaneKind kind = run->lanes->lanes()[laneIndex].kind;
        const double cyclesPerPixel =
            m_plot->xAxis->range().size() / std::max(1, m_plot->axisRect()->width());
        analysis::LaneItem item;
        if ((kind == analysis::LaneKind::Unit || kind == analysis::LaneKind::Stall) &&
            run->lanes->itemAt(laneIndex, static_cast<std::uint64_t>(x),
                               static_cast<std::uint64_t>(cyclesPerPixel * 3), item)) {
            note.anchor = session::anchorOf(item.ref, run->store);
            note.fromCycle = note.toCycle = run->store.bundles()[item.ref].cycle;
        }
    }
    return m_notes->addNote(std::move(note));
}

std::int64_t TimelineView::addNoteForRange(const QString& text)
{
    if (!m_notes)
        return 0;
    session::Annotation note;
    note.text = text.toStdString();
    note.fromCycle = m_selection->from();
    note.toCycle = m_selection->to();
    return m_notes->addNote(std::move(note));
}

void TimelineView::clickAt(const QPoint& pos)
{
    const Run* run = m_session->run();
    const int row = m_lanes->rowAt(pos.y());
    if (!run || row < 0 || !m_plot->axisRect()->rect().contains(pos)) {
        m_selection->select({});
        return;
    }
    const std::size_t laneIndex = m_lanes->rows()[static_cast<std::size_t>(row)];
    const analysis::LaneInfo& lane = run->lanes->lanes()[laneIndex];
    const double cycle = std::max(0.0, m_plot->xAxis->pixelToCoord(pos.x()));
    const double cyclesPerPixel = m_plot->xAxis->range().size() / std::max(1, m_plot->axisRect()->width());
    analysis::LaneItem item;
    if (!run->lanes->itemAt(laneIndex, static_cast<std::uint64_t>(cycle),
                            static_cast<std::uint64_t>(cyclesPerPixel * 3), item)) {
        m_selection->select({});
        return;
    }
    Selection s;
    s.origin = tr("timeline");
    using analysis::LaneKind;
    switch (lane.kind) {
    case LaneKind::Unit:
    case LaneKind::Stall: {
        const events::BundleSnapshot b = run->lanes->bundles();
        if (item.ref < b.size()) {
            const events::BundleIssue e = b[item.ref];
            s.pcs.push_back({e.chip, e.pc});
            s.focus = analysis::NodeRef{analysis::NodeRef::Kind::Bundle, item.ref};
        }
        break;
    }
    case LaneKind::DmaEngine:
    case LaneKind::IciLink: {
        events::DmaRecord d;
        if (run->lanes->dma(static_cast<std::uint32_t>(item.ref), d)) {
            s.dmas.push_back(d.id);
            s.pcs.push_back({d.chip, d.pc});
            s.focus = analysis::NodeRef{analysis::NodeRef::Kind::Dma, d.id};
        }
        break;
    }
    case LaneKind::SyncWait: {
        events::SyncWaitRecord w;
        if (run->lanes->syncWait(item.ref, w)) {
            s.pcs.push_back({w.chip, w.pc});
            if (w.satisfiedBy >= 0)
                s.dmas.push_back(static_cast<std::uint32_t>(w.satisfiedBy));
            // The wait's own bundle, which issued when the wait ended: the focus every view follows (the
            // dependency graph re-centres on it, as on a DMA or a unit's block).
            if (const auto bundle = waitBundle(run->lanes->bundles(), w))
                s.focus = analysis::NodeRef{analysis::NodeRef::Kind::Bundle, *bundle};
        }
        break;
    }
    case LaneKind::Region: {
        // A region is a time range: zoom to it.
        m_selection->setTimeRange(item.start, item.end);
        return;
    }
    }
    m_selection->select(std::move(s));
}

std::optional<std::size_t> TimelineView::waitBundle(const events::BundleSnapshot& bundles,
                                                    const events::SyncWaitRecord& w)
{
    // Bundle events are in time order: the first at the wait's end cycle, then that chip's issue of its pc.
    std::size_t lo = 0, hi = bundles.size();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (bundles[mid].cycle < w.end)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (std::size_t i = lo; i < bundles.size() && bundles[i].cycle <= w.end + 1; ++i)
        if (bundles[i].chip == w.chip && bundles[i].pc == w.pc)
            return i;
    return std::nullopt;
}

void TimelineView::showTooltip(const QPoint& pos)
{
    const Run* run = m_session->run();
    const int row = m_lanes->rowAt(pos.y());
    if (!run || row < 0 || !m_plot->axisRect()->rect().contains(pos)) {
        QToolTip::hideText();
        return;
    }
    const std::size_t laneIndex = m_lanes->rows()[static_cast<std::size_t>(row)];
    const double cycle = std::max(0.0, m_plot->xAxis->pixelToCoord(pos.x()));
    const double cyclesPerPixel = m_plot->xAxis->range().size() / std::max(1, m_plot->axisRect()->width());
    analysis::LaneItem item;
    if (!run->lanes->itemAt(laneIndex, static_cast<std::uint64_t>(cycle),
                            static_cast<std::uint64_t>(cyclesPerPixel * 2), item)) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(m_plot->mapToGlobal(pos),
                       itemTooltip(*run->trace, *run->lanes, run->lanes->lanes()[laneIndex], item), m_plot);
}

int TimelineView::rowCount() const
{
    return static_cast<int>(m_lanes->rows().size());
}

QString TimelineView::rowName(int row) const
{
    const Run* run = m_session->run();
    if (!run || row < 0 || row >= rowCount())
        return {};
    return QString::fromStdString(run->lanes->lanes()[m_lanes->rows()[static_cast<std::size_t>(row)]].name);
}

int TimelineView::rowOfLane(const QString& name, int chip) const
{
    const Run* run = m_session->run();
    for (int r = 0; run && r < rowCount(); ++r) {
        const analysis::LaneInfo& lane = run->lanes->lanes()[m_lanes->rows()[static_cast<std::size_t>(r)]];
        if (lane.chip == chip && QString::fromStdString(lane.name) == name)
            return r;
    }
    return -1;
}

QPoint TimelineView::pointAt(int row, double cycle) const
{
    const double y = (m_plot->yAxis->coordToPixel(row) + m_plot->yAxis->coordToPixel(row + 1)) / 2;
    return QPoint(static_cast<int>(m_plot->xAxis->coordToPixel(cycle)), static_cast<int>(y));
}

double TimelineView::lastDrawMs() const
{
    return m_lanes->lastDrawMs();
}

} // namespace xps::ui
