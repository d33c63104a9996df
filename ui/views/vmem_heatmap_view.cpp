#include "views/vmem_heatmap_view.h"

#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "session/session_notes.h"
#include "theme/theme.h"
#include "timeline/cycle_ticks.h"
#include "views/event_text.h"
#include "views/note_markers.h"
#include "widgets/axis_ticks.h"
#include "widgets/qcustomplot.h"

#include <QComboBox>
#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QTimer>
#include <QVBoxLayout>

namespace xps::ui {
namespace {

// A click collects at most this many accesses: enough for any cell a person can point at.
constexpr std::size_t kMaxAccessesPerClick = 2'000'000;

} // namespace

VmemHeatmapView::VmemHeatmapView(ReplaySession* session, SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_session(session), m_selection(selection), m_chipBox(new QComboBox(this)),
      m_modeBox(new QComboBox(this)), m_plot(new QCustomPlot(this)), m_cell(new QLabel(this))
{
    setObjectName(QStringLiteral("heatmap"));
    m_modeBox->addItems({tr("bytes read"), tr("bytes written"), tr("live buffers")});
    m_modeBox->setCurrentIndex(static_cast<int>(m_mode));
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_map->setColorScale(m_scale);
    m_empty = new QCPItemText(m_plot);
    m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setPositionAlignment(Qt::AlignCenter);
    m_empty->setVisible(false);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(true);
    m_plot->xAxis->setLabel(tr("cycles"));
    m_plot->xAxis->setTicker(QSharedPointer<CycleTicker>::create()); // as the lanes label cycles
    m_plot->yAxis->setLabel(tr("VMEM address"));
    m_plot->yAxis->setRangeReversed(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->installEventFilter(this);
    m_cell->setWordWrap(true);
    m_cell->setText(tr("<i>Click a cell to select the instructions and DMAs that touched it.</i>"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Chip"), this));
    bar->addWidget(m_chipBox);
    bar->addWidget(new QLabel(tr("Colour"), this));
    bar->addWidget(m_modeBox);
    bar->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_cell);

    connect(m_modeBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this](int index) { setMode(static_cast<Mode>(index)); });
    connect(m_chipBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int chip) {
        if (chip >= 0)
            setChip(chipIdAt(static_cast<std::size_t>(chip)));
    });
    connect(session, &ReplaySession::opened, this, &VmemHeatmapView::onOpened);
    connect(session, &ReplaySession::eventsChanged, this, &VmemHeatmapView::refresh);
    connect(session, &ReplaySession::analysesReady, this, &VmemHeatmapView::refresh);
    connect(selection, &SelectionModel::timeRangeChanged, this, [this](quint64 from, quint64 to) {
        if (m_settingRange)
            return;
        m_plot->xAxis->setRange(static_cast<double>(from), static_cast<double>(to));
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(&Theme::instance(), &Theme::changed, this, &VmemHeatmapView::applyTheme);
    applyTheme();
    if (session->run()) { // made for a run already open (the comparison window's baseline)
        onOpened();
        refresh();
    }
}

void VmemHeatmapView::applyTheme()
{
    Theme::instance().stylePlot(m_plot);
    m_scale->axis()->setTickLabelColor(Theme::instance().foreground());
    m_scale->axis()->setLabelColor(Theme::instance().foreground());
    // Zero is the background colour in either theme, so untouched memory recedes.
    m_map->setGradient(Theme::instance().kind() == Theme::Kind::Dark
                           ? QCPColorGradient(QCPColorGradient::gpThermal)
                           : QCPColorGradient(QCPColorGradient::gpHot).inverted());
    m_plot->replot();
}

void VmemHeatmapView::onOpened()
{
    const Run* run = m_session->run();
    m_index.reset();
    m_chipBox->blockSignals(true);
    m_chipBox->clear();
    for (const trace::ChipTrace& c : run->trace->chips)
        m_chipBox->addItem(QString::number(c.chip.value));
    m_chipBox->blockSignals(false);
    m_chipBox->setEnabled(run->trace->chips.size() > 1);
    m_chip = ChipId(0);
    refresh();
}

void VmemHeatmapView::setMode(Mode mode)
{
    m_mode = mode;
    m_modeBox->setCurrentIndex(static_cast<int>(mode));
    refresh();
}

void VmemHeatmapView::setChip(ChipId chip)
{
    m_chip = chip;
    m_chipBox->setCurrentIndex(chip.value);
    refresh();
}

namespace {

// Read and written bytes over (time, address) for one chip. Small replays get a grid over just the
// addresses in use, computed from the accesses; large ones use the store's fixed whole-VMEM grid, which
// costs nothing to read.
struct Grid
{
    int timeBins = 1, addressBins = 1;
    double cyclesPerBin = 1, bytesPerBin = 1, base = 0;
    std::vector<double> read, write;
    double at(const std::vector<double>& v, int t, int a) const
    {
        return v[static_cast<std::size_t>(t * addressBins + a)];
    }
};

// Building the exact grid costs ~20 ns per access on the GUI thread: beyond this it would be noticed.
constexpr std::size_t kExactAccessLimit = 400'000;

Grid buildGrid(const Run& run, ChipId chip, bool exact)
{
    Grid g;
    const trace::ChipTrace& c = run.trace->chips[chip.value];
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
    for (const trace::Buffer& b : c.symbols.buffers)
        if (b.space == isa::Space::Vmem && b.aliasOf.empty()) {
            lo = std::min(lo, b.address);
            hi = std::max(hi, b.address + b.size);
        }
    const events::VmemSnapshot accesses = run.store.vmemAccesses();
    if (exact && accesses.size() <= kExactAccessLimit) {
        for (std::size_t i = 0; i < accesses.size(); ++i) {
            const events::VmemAccess v = accesses[i];
            if (v.chip == chip) {
                lo = std::min<std::uint64_t>(lo, v.address);
                hi = std::max<std::uint64_t>(hi, std::uint64_t{v.address} + v.bytes);
            }
        }
        if (hi > lo) {
            g.timeBins = events::VmemHeatmap::kTimeBins;
            g.addressBins = events::VmemHeatmap::kAddressBins;
            const std::uint64_t end = std::max<std::uint64_t>(run.lanes->endCycle(), 1);
            g.cyclesPerBin = std::max(1.0, std::ceil(static_cast<double>(end) / g.timeBins));
            g.bytesPerBin = std::max(1.0, std::ceil(static_cast<double>(hi - lo) / g.addressBins));
            g.base = static_cast<double>(lo);
            g.read.assign(static_cast<std::size_t>(g.timeBins * g.addressBins), 0.0);
            g.write = g.read;
            for (std::size_t i = 0; i < accesses.size(); ++i) {
                const events::VmemAccess v = accesses[i];
                if (v.chip != chip || v.bytes == 0)
                    continue;
                const int t =
                    std::min(g.timeBins - 1, static_cast<int>(static_cast<double>(v.cycle) / g.cyclesPerBin));
                const double a0 = static_cast<double>(v.address) - g.base, a1 = a0 + v.bytes;
                std::vector<double>& target = v.isWrite() ? g.write : g.read;
                for (int a = std::max(0, static_cast<int>(a0 / g.bytesPerBin));
                     a < g.addressBins && a * g.bytesPerBin < a1; ++a) {
                    const double overlap =
                        std::min(a1, (a + 1) * g.bytesPerBin) - std::max(a0, a * g.bytesPerBin);
                    target[static_cast<std::size_t>(t * g.addressBins + a)] += std::max(0.0, overlap);
                }
            }
            return g;
        }
    }
    const events::VmemHeatmap h = run.store.vmemHeatmap(chip);
    g.timeBins = std::max(1, h.usedTimeBins());
    g.addressBins = events::VmemHeatmap::kAddressBins;
    g.cyclesPerBin = static_cast<double>(h.cyclesPerBin());
    g.bytesPerBin = static_cast<double>(h.bytesPerAddressBin());
    g.read.assign(static_cast<std::size_t>(g.timeBins * g.addressBins), 0.0);
    g.write = g.read;
    for (int t = 0; t < h.usedTimeBins(); ++t)
        for (int a = 0; a < g.addressBins; ++a) {
            g.read[static_cast<std::size_t>(t * g.addressBins + a)] = static_cast<double>(h.readBytes(t, a));
            g.write[static_cast<std::size_t>(t * g.addressBins + a)] =
                static_cast<double>(h.writeBytes(t, a));
        }
    return g;
}

} // namespace

void VmemHeatmapView::refresh()
{
    const Run* run = m_session->run();
    if (!run || m_chip.value >= run->trace->chips.size())
        return;
    if (!isVisible()) { // behind another tab: draw when shown
        m_dirty = true;
        return;
    }
    m_dirty = false;
    // While the replay runs, the store's bounded grid; the exact one over the used addresses once it ended.
    const Grid g = buildGrid(*run, m_chip, m_session->stage() != ReplaySession::Stage::Replaying);
    m_grid = {g.cyclesPerBin, g.bytesPerBin, g.base};
    const trace::ChipTrace& chip = run->trace->chips[m_chip.value];
    QSharedPointer<QCPAxisTickerText> ticker(new SpacedTextTicker(m_plot->yAxis));
    const double top = g.base + g.bytesPerBin * g.addressBins;
    for (const trace::Buffer& b : chip.symbols.buffers) {
        if (b.space != isa::Space::Vmem || !b.aliasOf.empty() || static_cast<double>(b.address) >= top)
            continue;
        ticker->addTick(static_cast<double>(b.address) + static_cast<double>(b.size) / 2,
                        QStringLiteral("%1 (%2)").arg(QString::fromStdString(b.name), bytesText(b.size)));
    }
    if (ticker->ticks().isEmpty()) {
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        m_plot->yAxis->setNumberFormat(QStringLiteral("f"));
        m_plot->yAxis->setNumberPrecision(0);
    } else {
        m_plot->yAxis->setTicker(ticker);
    }

    m_map->data()->setSize(g.timeBins, g.addressBins);
    m_map->data()->setRange(
        QCPRange(g.cyclesPerBin / 2, g.cyclesPerBin * (g.timeBins - 0.5)),
        QCPRange(g.base + g.bytesPerBin / 2, g.base + g.bytesPerBin * (g.addressBins - 0.5)));
    const bool live = m_mode == Mode::Live && m_session->analysesAvailable();
    double largest = 0;
    for (int t = 0; t < g.timeBins; ++t) {
        const double t0 = t * g.cyclesPerBin, t1 = (t + 1) * g.cyclesPerBin;
        for (int a = 0; a < g.addressBins; ++a) {
            double v = 0;
            if (live) {
                const double a0 = g.base + a * g.bytesPerBin, a1 = a0 + g.bytesPerBin;
                for (const analysis::BufferLiveRange& b : run->analyses.vmem.buffers) {
                    if (b.chip != m_chip || b.alias || !b.accessed ||
                        static_cast<double>(b.firstAccess) >= t1 || static_cast<double>(b.lastAccess) < t0)
                        continue;
                    const double overlap = std::min(a1, static_cast<double>(b.address + b.size)) -
                                           std::max(a0, static_cast<double>(b.address));
                    v += std::max(0.0, overlap) / g.bytesPerBin;
                }
            } else {
                v = g.at(m_mode == Mode::Read ? g.read : g.write, t, a);
            }
            m_map->data()->setCell(t, a, v);
            largest = std::max(largest, v);
        }
    }
    m_scale->axis()->setLabel(m_mode == Mode::Live ? tr("live fraction") : tr("bytes per cell"));
    // (An all-zero map has an empty data range, which QCustomPlot does not take: the colour range would
    // stay the previous run's.)
    const bool empty = largest <= 0;
    if (empty)
        m_map->setDataRange(QCPRange(0, 1));
    else
        m_map->setDataRange(QCPRange(0, std::max(largest, m_sharedTop)));
    if (largest != m_largest) {
        m_largest = largest;
        emit largestCellChanged(largest);
    }
    // An empty map is a blank plot a person cannot tell from a broken one: say what it means.
    const bool replaying = m_session->stage() == ReplaySession::Stage::Replaying;
    m_empty->setVisible(empty && !replaying);
    m_empty->setText(m_mode == Mode::Live
                         ? tr("No buffer of chip %1 is live in VMEM in this run").arg(m_chip.value)
                     : m_mode == Mode::Read ? tr("No VMEM reads on chip %1 in this run").arg(m_chip.value)
                                            : tr("No VMEM writes on chip %1 in this run").arg(m_chip.value));
    m_empty->setColor(Theme::instance().foreground());
    QFont font = m_plot->font();
    font.setPointSizeF(font.pointSizeF() * 1.2);
    m_empty->setFont(font);
    m_plot->yAxis->setRange(g.base, top);
    if (m_selection->to() > 1)
        m_plot->xAxis->setRange(static_cast<double>(m_selection->from()),
                                static_cast<double>(m_selection->to()));
    else
        m_plot->xAxis->setRange(0, g.cyclesPerBin * g.timeBins);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString VmemHeatmapView::emptyText() const
{
    return m_empty->visible() ? m_empty->text() : QString();
}

void VmemHeatmapView::setNotes(SessionNotes* notes)
{
    m_notes = notes;
    m_noteMarkers = new NoteMarkers(m_plot, notes, this);
}

int VmemHeatmapView::noteMarkerCount() const
{
    return m_noteMarkers ? m_noteMarkers->count() : 0;
}

std::int64_t VmemHeatmapView::addNoteAt(const QPoint& pos, const QString& text)
{
    if (!m_notes || !m_session->run() || !m_plot->axisRect()->rect().contains(pos) ||
        m_grid.cyclesPerBin <= 0)
        return 0;
    // The time column under the pointer: the heatmap's resolution in time.
    const double cycle = std::max(0.0, m_plot->xAxis->pixelToCoord(pos.x()));
    const double column = std::floor(cycle / m_grid.cyclesPerBin);
    session::Annotation note;
    note.text = text.toStdString();
    note.fromCycle = static_cast<std::uint64_t>(column * m_grid.cyclesPerBin);
    note.toCycle = static_cast<std::uint64_t>((column + 1) * m_grid.cyclesPerBin);
    return m_notes->addNote(std::move(note));
}

bool VmemHeatmapView::eventFilter(QObject* watched, QEvent* event)
{
    // QCustomPlot makes the tick labels before it lays out the new size: the buffers' names, spaced for the
    // old height, overlapped after a resize to a smaller one until the next replot. Replot once laid out.
    if (watched == m_plot && event->type() == QEvent::Resize)
        QTimer::singleShot(0, m_plot, [plot = m_plot] { plot->replot(); });
    if (watched == m_plot && event->type() == QEvent::ContextMenu && m_notes) {
        const QPoint pos = static_cast<QContextMenuEvent*>(event)->pos();
        QMenu menu(this);
        menu.addAction(tr("Add note for these cycles…"), this, [this, pos] {
            bool ok = false;
            const QString text = QInputDialog::getMultiLineText(this, tr("Add note"),
                                                                tr("Note on this time column:"), {}, &ok);
            if (ok && !text.trimmed().isEmpty())
                addNoteAt(pos, text.trimmed());
        });
        menu.exec(m_plot->mapToGlobal(pos));
        return true;
    }
    if (watched == m_plot && event->type() == QEvent::MouseButtonPress)
        m_pressPos = static_cast<QMouseEvent*>(event)->pos();
    if (watched == m_plot && event->type() == QEvent::MouseButtonRelease) {
        const QPoint pos = static_cast<QMouseEvent*>(event)->pos();
        const Run* run = m_session->run();
        if (run && (pos - m_pressPos).manhattanLength() < 4 && m_plot->axisRect()->rect().contains(pos)) {
            const double cycle = m_plot->xAxis->pixelToCoord(pos.x());
            const double address = m_plot->yAxis->pixelToCoord(pos.y()) - m_grid.base;
            if (cycle >= 0 && address >= 0) {
                const double t = std::floor(cycle / m_grid.cyclesPerBin),
                             a = std::floor(address / m_grid.bytesPerBin);
                selectCell(static_cast<std::uint64_t>(t * m_grid.cyclesPerBin),
                           static_cast<std::uint64_t>((t + 1) * m_grid.cyclesPerBin),
                           static_cast<std::uint64_t>(m_grid.base + a * m_grid.bytesPerBin),
                           static_cast<std::uint64_t>(m_grid.base + (a + 1) * m_grid.bytesPerBin));
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

void VmemHeatmapView::selectCell(std::uint64_t fromCycle, std::uint64_t toCycle, std::uint64_t fromAddress,
                                 std::uint64_t toAddress)
{
    const Run* run = m_session->run();
    if (!run)
        return;
    const events::VmemSnapshot accesses = run->store.vmemAccesses();
    const events::BundleSnapshot bundles = run->store.bundles();
    if (!m_index && run->trace->chips.size() > 1)
        m_index = std::make_unique<analysis::ChipIndex>(bundles, static_cast<int>(run->trace->chips.size()));
    auto [first, last] = accesses.cycleRange(fromCycle, toCycle);
    last = std::min(last, first + kMaxAccessesPerClick);
    Selection s;
    s.origin = tr("VMEM heatmap");
    std::uint64_t read = 0, written = 0;
    for (std::size_t i = first; i < last; ++i) {
        const events::VmemAccess v = accesses[i];
        if (v.chip != m_chip || v.address >= toAddress || v.address + v.bytes <= fromAddress)
            continue;
        (v.isWrite() ? written : read) += v.bytes;
        if (v.byDma()) {
            s.dmas.push_back(v.source);
        } else {
            std::size_t event = v.source;
            if (m_index) {
                if (v.source >= m_index->count(m_chip))
                    continue;
                event = m_index->event(m_chip, v.source);
            }
            if (event < bundles.size())
                s.pcs.push_back({m_chip, bundles[event].pc});
        }
    }
    m_selection->select(s);
    const Selection& chosen = m_selection->selection();
    m_cell->setText(
        tr("Cycles %1 – %2, VMEM 0x%3 – 0x%4: %5 read, %6 written by %7 instruction(s) and %8 DMA(s)")
            .arg(cyclesText(fromCycle), cyclesText(toCycle))
            .arg(fromAddress, 0, 16)
            .arg(toAddress, 0, 16)
            .arg(bytesText(read), bytesText(written))
            .arg(chosen.pcs.size())
            .arg(chosen.dmas.size()));
}

void VmemHeatmapView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        refresh();
}

QString VmemHeatmapView::cellText() const
{
    return m_cell->text();
}

QPoint VmemHeatmapView::pointAt(double cycle, double address) const
{
    return QPoint(static_cast<int>(m_plot->xAxis->coordToPixel(cycle)),
                  static_cast<int>(m_plot->yAxis->coordToPixel(address)));
}

void VmemHeatmapView::setScaleTop(double top)
{
    m_sharedTop = top;
    if (m_largest > 0) {
        m_map->setDataRange(QCPRange(0, std::max(m_largest, m_sharedTop)));
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

double VmemHeatmapView::scaleTop() const
{
    return m_map->dataRange().upper;
}

} // namespace xps::ui
