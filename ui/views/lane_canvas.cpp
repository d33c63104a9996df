#include "views/lane_canvas.h"

#include "isa/topology.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "session/session_notes.h"
#include "theme/theme.h"
#include "timeline/cycle_ticks.h"
#include "timeline/note_bands.h"
#include "views/event_text.h"

#include <QInputDialog>
#include <QLocale>
#include <QMenu>
#include <QPainter>

#include <algorithm>

namespace xps::ui {
namespace {

constexpr Ticks kMinVisibleCycles = 8;
constexpr int kMinLanePixels = 22;

std::string laneKey(const analysis::LaneInfo& lane)
{
    return "chip " + std::to_string(lane.chip.value) + "/" + lane.name;
}

} // namespace

LaneCanvas::LaneCanvas(ReplaySession* session, SelectionModel* selection, LaneFilter laneFilter,
                       QWidget* parent)
    : TimelineCanvas(parent), m_session(session), m_selection(selection), m_laneFilter(std::move(laneFilter))
{
    setRowsFillHeight(true);
    setMinimumLaneHeight(kMinLanePixels);
    m_painter.setSelection(&m_selection->selection());
    connect(session, &ReplaySession::opened, this, &LaneCanvas::onOpened);
    connect(session, &ReplaySession::eventsChanged, this, &LaneCanvas::refresh);
    connect(selection, &SelectionModel::selectionChanged, this, [this] {
        findFlows();
        update();
    });
    connect(selection, &SelectionModel::timeRangeChanged, this, qOverload<>(&QWidget::update));
    if (session->run()) // a view made for a run already open (the comparison window's baseline)
        onOpened();
}

void LaneCanvas::onOpened()
{
    m_painter.setRun(m_session->run());
    m_lanes.clear();
    m_flowWaits.clear();
    resetScroll();
    refresh();
}

void LaneCanvas::refresh()
{
    const Run* run = m_session->run();
    if (!run || !run->lanes)
        return;
    rebuildRows();
    if (m_selection->following()) {
        const auto end = std::max<std::uint64_t>(run->lanes->endCycle(), 16);
        m_selection->setFollowRange(0, static_cast<std::uint64_t>(static_cast<double>(end) * 1.02));
    }
    update();
}

void LaneCanvas::setHiddenLanes(std::vector<std::string> keys)
{
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    if (keys == m_hidden)
        return;
    m_hidden = std::move(keys);
    if (m_session->run() && m_session->run()->lanes)
        rebuildRows();
}

void LaneCanvas::rebuildRows()
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
               isa::linkDestination(run->trace->machine, lane.index) !=
                   lane.chip.value; // a ring has no y links
    };
    for (std::size_t i = 0; i < lanes.size(); ++i)
        if ((run->lanes->hasActivity(i) || lanes[i].kind == analysis::LaneKind::Stall ||
             idleLinkShown(lanes[i])) &&
            (!m_laneFilter || m_laneFilter(lanes[i])) &&
            !std::binary_search(m_hidden.begin(), m_hidden.end(), laneKey(lanes[i])))
            rows.push_back(i);
    if (rows == m_lanes)
        return;
    m_lanes = std::move(rows);
    const bool multiChip = run->trace->chips.size() > 1;
    std::vector<RowSpec> specs;
    for (std::size_t r = 0; r < m_lanes.size(); ++r) {
        const analysis::LaneInfo& lane = lanes[m_lanes[r]];
        const QString name = QString::fromStdString(lane.name);
        RowSpec spec;
        spec.label = multiChip ? QStringLiteral("chip %1 · %2").arg(lane.chip.value).arg(name) : name;
        spec.shaded = r % 2 == 1;
        spec.separatorAbove = r > 0 && lanes[m_lanes[r - 1]].chip != lane.chip;
        specs.push_back(std::move(spec));
    }
    setRows(std::move(specs));
}

std::pair<Ticks, Ticks> LaneCanvas::visibleWindow() const
{
    return {static_cast<Ticks>(m_selection->from()), static_cast<Ticks>(m_selection->to())};
}

void LaneCanvas::requestWindow(Ticks from, Ticks to)
{
    // Keep the window on the replay: no negative time, no zooming past a few cycles or far past the end.
    const Run* run = m_session->run();
    const Ticks end = run && run->lanes
                          ? static_cast<Ticks>(static_cast<double>(run->lanes->endCycle()) * 1.05) + 16
                          : Ticks(1) << 40;
    const Ticks size = std::clamp<Ticks>(to - from, kMinVisibleCycles, std::max(end, kMinVisibleCycles));
    const Ticks lower = std::clamp<Ticks>(from, 0, std::max<Ticks>(0, end - size));
    m_selection->setTimeRange(static_cast<std::uint64_t>(lower), static_cast<std::uint64_t>(lower + size));
}

std::pair<Ticks, Ticks> LaneCanvas::fullWindow() const
{
    const Run* run = m_session->run();
    if (!run || !run->lanes)
        return {0, 16};
    return {0, static_cast<Ticks>(static_cast<double>(run->lanes->endCycle()) * 1.02) + 16};
}

QString LaneCanvas::tickLabel(Ticks sinceOrigin) const
{
    return cycleTickLabel(sinceOrigin);
}

QString LaneCanvas::spanLabel(Ticks span) const
{
    const Run* run = m_session->run();
    const double us = run ? static_cast<double>(span) / run->trace->machine.clockMhz : 0.0;
    // The visible span, not the run's length (the status bar has that), said as the profile page says it.
    return tr("%1 cycles · %2 µs visible")
        .arg(QLocale::c().toString(static_cast<qlonglong>(span)))
        .arg(us, 0, 'g', 4);
}

bool LaneCanvas::hasContent() const
{
    return m_session->run() && m_session->run()->lanes && !m_lanes.empty();
}

QString LaneCanvas::emptyText() const
{
    return m_session->run() ? tr("Replaying…") : tr("No trace open");
}

void LaneCanvas::paintEvent(QPaintEvent* event)
{
    m_painter.beginFrame(plotArea());
    TimelineCanvas::paintEvent(event);
}

void LaneCanvas::paintRow(QPainter& painter, int row, const QRect& rect)
{
    const auto [from, to] = visibleWindow();
    m_painter.paint(painter, m_lanes[static_cast<std::size_t>(row)], rect, static_cast<std::uint64_t>(from),
                    static_cast<std::uint64_t>(to));
}

void LaneCanvas::paintOverPlot(QPainter& painter)
{
    m_painter.endFrame(painter);
    const Run* run = m_session->run();
    const Theme& theme = Theme::instance();
    // Selected DMAs stay visible at any zoom: an outline at least a few pixels wide.
    painter.setPen(QPen(theme.highlight(), 2));
    painter.setBrush(Qt::NoBrush);
    for (const std::uint32_t id : m_selection->selection().dmas) {
        events::DmaRecord d;
        if (!run->lanes->dma(id, d))
            continue;
        for (int row = 0; row < rowCount(); ++row) {
            const analysis::LaneInfo& lane = run->lanes->lanes()[m_lanes[static_cast<std::size_t>(row)]];
            if (lane.kind != analysis::LaneKind::DmaEngine || lane.chip != d.chip || lane.index != d.engine)
                continue;
            const QRect r = rowRect(row);
            const double x0 = xOf(static_cast<Ticks>(d.start));
            const double x1 = std::max(x0 + 4, xOf(static_cast<Ticks>(d.end)));
            painter.drawRect(QRectF(x0 - 1, r.top() + 1, x1 - x0 + 2, r.height() - 2));
        }
    }
    drawFlows(painter);
    m_drawnNotes =
        m_notes ? drawNoteBands(painter, m_notes->notes(), plotArea(), [this](Ticks t) { return xOf(t); })
                : 0;
}

void LaneCanvas::findFlows()
{
    m_flowWaits.clear();
    const Run* run = m_session->run();
    const std::vector<std::uint32_t>& dmas = m_selection->selection().dmas;
    if (!run || !run->lanes || dmas.size() != 1 || !run->lanes->dma(dmas.front(), m_flowDma))
        return;
    // One pass over the store's waits without copying them (a million at 10 M bundles), once per selection.
    run->store.forEachSyncWait([this](const events::SyncWaitRecord& w) {
        if (w.satisfiedBy == static_cast<std::int64_t>(m_flowDma.id))
            m_flowWaits.push_back(w);
    });
}

int LaneCanvas::rowOfLaneKind(analysis::LaneKind kind, ChipId chip, int index) const
{
    const Run* run = m_session->run();
    for (int r = 0; run && r < rowCount(); ++r) {
        const analysis::LaneInfo& lane = run->lanes->lanes()[m_lanes[static_cast<std::size_t>(r)]];
        if (lane.kind == kind && lane.chip == chip && (index < 0 || lane.index == index))
            return r;
    }
    return -1;
}

void LaneCanvas::drawFlows(QPainter& painter)
{
    m_drawnFlows = 0;
    if (m_flowWaits.empty())
        return;
    const int from = rowOfLaneKind(analysis::LaneKind::DmaEngine, m_flowDma.chip, m_flowDma.engine);
    if (from < 0)
        return;
    const QRect plot = plotArea();
    const auto clampX = [&](std::uint64_t cycle) {
        return std::clamp(xOf(static_cast<Ticks>(cycle)), double(plot.left()), double(plot.right()));
    };
    // From where the transfer ended to where each wait did: the wait ended when the DMA's last chunk landed.
    const QPointF a(clampX(m_flowDma.end), rowRect(from).center().y());
    for (const events::SyncWaitRecord& w : m_flowWaits) {
        const int to = rowOfLaneKind(analysis::LaneKind::SyncWait, w.chip, -1);
        if (to < 0)
            continue;
        drawFlowArrow(painter, a, QPointF(clampX(w.end), rowRect(to).center().y()));
        ++m_drawnFlows;
    }
}

QString LaneCanvas::rowName(int row) const
{
    const Run* run = m_session->run();
    if (!run || row < 0 || row >= rowCount())
        return {};
    return QString::fromStdString(run->lanes->lanes()[m_lanes[static_cast<std::size_t>(row)]].name);
}

int LaneCanvas::rowOfLane(const QString& name, ChipId chip) const
{
    const Run* run = m_session->run();
    for (int r = 0; run && r < rowCount(); ++r) {
        const analysis::LaneInfo& lane = run->lanes->lanes()[m_lanes[static_cast<std::size_t>(r)]];
        if (lane.chip == chip && QString::fromStdString(lane.name) == name)
            return r;
    }
    return -1;
}

QPoint LaneCanvas::pointAt(int row, double cycle) const
{
    return QPoint(static_cast<int>(xOf(static_cast<Ticks>(std::llround(cycle)))), rowRect(row).center().y());
}

bool LaneCanvas::itemAt(const QPoint& pos, double slackPixels, std::size_t& laneIndex,
                        analysis::LaneItem& item) const
{
    const Run* run = m_session->run();
    const int row = rowAt(pos.y());
    if (!run || !run->lanes || row < 0 || !plotArea().contains(pos))
        return false;
    laneIndex = m_lanes[static_cast<std::size_t>(row)];
    const auto [from, to] = visibleWindow();
    const double cyclesPerPixel = static_cast<double>(to - from) / plotArea().width();
    return run->lanes->itemAt(laneIndex, static_cast<std::uint64_t>(std::max<Ticks>(0, timeAt(pos.x()))),
                              static_cast<std::uint64_t>(cyclesPerPixel * slackPixels), item);
}

QString LaneCanvas::tooltipAt(const QPoint& pos) const
{
    std::size_t laneIndex = 0;
    analysis::LaneItem item;
    if (!itemAt(pos, 2, laneIndex, item))
        return {};
    const Run* run = m_session->run();
    return itemTooltip(*run->trace, *run->lanes, run->lanes->lanes()[laneIndex], item);
}

void LaneCanvas::clickedAt(const QPoint& pos)
{
    const Run* run = m_session->run();
    std::size_t laneIndex = 0;
    analysis::LaneItem item;
    if (!itemAt(pos, 3, laneIndex, item)) {
        m_selection->select({});
        return;
    }
    Selection s;
    s.origin = tr("timeline");
    using analysis::LaneKind;
    switch (run->lanes->lanes()[laneIndex].kind) {
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
    case LaneKind::Region:
        // A region is a time range: zoom to it.
        m_selection->setTimeRange(item.start, item.end);
        return;
    }
    m_selection->select(std::move(s));
}

std::optional<std::size_t> LaneCanvas::waitBundle(const events::BundleSnapshot& bundles,
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

void LaneCanvas::setNotes(SessionNotes* notes)
{
    m_notes = notes;
    connect(notes, &SessionNotes::notesChanged, this, qOverload<>(&QWidget::update));
    update();
}

void LaneCanvas::contextMenuAt(const QPoint& pos)
{
    if (!m_notes)
        return;
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
    if (const int row = rowAt(pos.y()); run && row >= 0) {
        const analysis::LaneInfo& lane = run->lanes->lanes()[m_lanes[static_cast<std::size_t>(row)]];
        menu.addAction(
            tr("Hide lane “%1” (chip %2)").arg(QString::fromStdString(lane.name)).arg(lane.chip.value), this,
            [this, key = laneKey(lane)] {
                std::vector<std::string> hidden = m_hidden;
                hidden.push_back(key);
                setHiddenLanes(std::move(hidden));
            });
    }
    if (!m_hidden.empty())
        menu.addAction(tr("Show all lanes (%1 hidden)").arg(m_hidden.size()), this,
                       [this] { setHiddenLanes({}); });
    menu.exec(mapToGlobal(pos));
}

std::int64_t LaneCanvas::addNoteAt(const QPoint& pos, const QString& text)
{
    const Run* run = m_session->run();
    if (!m_notes || !run || !plotArea().contains(pos))
        return 0;
    session::Annotation note;
    note.text = text.toStdString();
    note.fromCycle = note.toCycle = static_cast<std::uint64_t>(std::max<Ticks>(0, timeAt(pos.x())));
    // Pinned to the bundle under the pointer, so a re-replay that moves it takes the note along.
    std::size_t laneIndex = 0;
    analysis::LaneItem item;
    if (itemAt(pos, 3, laneIndex, item)) {
        const analysis::LaneKind kind = run->lanes->lanes()[laneIndex].kind;
        if (kind == analysis::LaneKind::Unit || kind == analysis::LaneKind::Stall) {
            note.anchor = session::anchorOf(item.ref, run->store);
            note.fromCycle = note.toCycle = run->store.bundles()[item.ref].cycle;
        }
    }
    return m_notes->addNote(std::move(note));
}

std::int64_t LaneCanvas::addNoteForRange(const QString& text)
{
    if (!m_notes)
        return 0;
    session::Annotation note;
    note.text = text.toStdString();
    note.fromCycle = m_selection->from();
    note.toCycle = m_selection->to();
    return m_notes->addNote(std::move(note));
}

} // namespace xps::ui
