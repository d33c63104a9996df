#include "compare/comparison_window.h"

#include "analysis/region_instances.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "trace/trace_io.h"
#include "util/text.h"
#include "views/dma_lanes_view.h"
#include "views/timeline_view.h"
#include "views/vmem_heatmap_view.h"
#include "widgets/table_export.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMetaObject>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace xps::ui {
namespace {

QString cycles(std::uint64_t v)
{
    return QString::fromStdString(text::withThousands(v));
}

// A timeline under its heading: which run it is.
QWidget* titled(QLabel* heading, QWidget* content)
{
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(2);
    QFont bold = heading->font();
    bold.setBold(true);
    heading->setFont(bold);
    layout->addWidget(heading);
    layout->addWidget(content, 1);
    return box;
}

QLabel* heading(const QString& text)
{
    return new QLabel(text);
}

// The baseline's view above the fixed run's, the same height each.
QSplitter* stacked(QWidget* upper, QWidget* lower)
{
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(upper);
    split->addWidget(lower);
    split->setChildrenCollapsible(false);
    split->setSizes({1000, 1000});
    return split;
}

QString baselineName(const ReplaySession* baseline)
{
    return baseline->run() ? QFileInfo(baseline->run()->path).fileName() : QString();
}

} // namespace

ComparisonWindow::ComparisonWindow(ReplaySession* baseline, const suggest::Suggestion& suggestion,
                                   QWidget* parent)
    : ComparisonWindow(
          baseline,
          {tr("Compare: %1 with %2 applied")
               .arg(baselineName(baseline), QString::fromStdString(suggestion.id)),
           tr("Fixed run: %1 · %2")
               .arg(QString::fromStdString(suggestion.id), QString::fromStdString(suggestion.title)),
           QString::fromStdString(suggestion.change.describe()), tr("fixed run")},
          parent)
{
    m_save->setToolTip(tr("Write the baseline's trace with this change applied (.xtrace.json or .xps)"));
    const Run* run = baseline->run();
    if (!run)
        return;
    const QString name = tr("%1 with %2").arg(run->path, QString::fromStdString(suggestion.id));
    // Apply and compare replayed this change already: its run is taken over, only analysed here.
    if (std::shared_ptr<sim::ChangedRun> replayed = baseline->takeChangedRun(suggestion.id))
        m_fixed->openReplayed(std::move(replayed), name);
    else
        m_fixed->openChanged(run->trace, suggestion.change, name);
}

ComparisonWindow::ComparisonWindow(ReplaySession* baseline, const QString& otherPath, QWidget* parent)
    : ComparisonWindow(
          baseline,
          {tr("Compare: %1 with %2").arg(baselineName(baseline), QFileInfo(otherPath).fileName()),
           tr("Other run: %1").arg(QFileInfo(otherPath).fileName()), otherPath, tr("other run")},
          parent)
{
    m_save->hide(); // the other run is a file already
    m_fixed->open(otherPath);
}

ComparisonWindow::ComparisonWindow(ReplaySession* baseline, const OtherRun& other, QWidget* parent)
    : QWidget(parent, Qt::Window), m_baseline(baseline), m_fixed(new ReplaySession(this)),
      m_otherNoun(other.noun), m_baselineSelection(new SelectionModel(this)),
      m_fixedSelection(new SelectionModel(this)),
      m_baselineView(new TimelineView(baseline, m_baselineSelection)),
      m_fixedView(new TimelineView(m_fixed, m_fixedSelection)), m_verdict(new QLabel(this)),
      m_baselineLabel(new QLabel), m_fixedLabel(new QLabel),
      m_save(new QPushButton(tr("Save fixed trace…"), this)), m_stop(new QPushButton(tr("Stop"), this)),
      m_table(new QTableView), m_model(new RunDiffModel(this)),
      m_align(new QCheckBox(tr("Align at the region"), this))
{
    m_align->setToolTip(
        tr("Show the region picked in the table at the same place in both timelines (its first "
           "instance in each run), and keep the two views that far apart in time"));
    setWindowTitle(other.title);
    m_baselineLabel->setText(tr("Baseline: %1").arg(baselineName(baseline)));
    m_fixedLabel->setText(other.heading);
    m_fixedLabel->setToolTip(other.tooltip);
    m_model->setOtherHeading(other.noun.left(1).toUpper() + other.noun.mid(1));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_save->setEnabled(false);

    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    addTableExportActions(m_table, QStringLiteral("comparison"));
    m_baselineView->setLegendVisible(
        false); // the fixed run's, between the two timelines and the table, serves both

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_verdict, 1);
    bar->addWidget(m_align);
    bar->addWidget(m_stop);
    bar->addWidget(m_save);
    // Each of the replay's time views twice, one time range per run and the two kept equal: the lanes, the
    // DMA lanes with their bandwidth, the VMEM heatmap.
    m_views = new QTabWidget;
    m_views->addTab(stacked(titled(m_baselineLabel, m_baselineView), titled(m_fixedLabel, m_fixedView)),
                    tr("Timeline"));
    m_views->addTab(
        stacked(titled(heading(m_baselineLabel->text()), new DmaLanesView(baseline, m_baselineSelection)),
                titled(heading(m_fixedLabel->text()), new DmaLanesView(m_fixed, m_fixedSelection))),
        tr("DMA lanes"));
    m_baselineHeatmap = new VmemHeatmapView(baseline, m_baselineSelection);
    m_fixedHeatmap = new VmemHeatmapView(m_fixed, m_fixedSelection);
    m_views->addTab(stacked(titled(heading(m_baselineLabel->text()), m_baselineHeatmap),
                            titled(heading(m_fixedLabel->text()), m_fixedHeatmap)),
                    tr("VMEM heatmap"));
    // One colour scale for both maps: a colour is one number of bytes in either run.
    connect(m_baselineHeatmap, &VmemHeatmapView::largestCellChanged, m_fixedHeatmap,
            &VmemHeatmapView::setScaleTop);
    connect(m_fixedHeatmap, &VmemHeatmapView::largestCellChanged, m_baselineHeatmap,
            &VmemHeatmapView::setScaleTop);
    m_fixedHeatmap->setScaleTop(m_baselineHeatmap->largestCell());
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_views);
    split->addWidget(m_table);
    split->setChildrenCollapsible(false);
    // The two runs' views the larger part; the table the rest.
    split->setSizes({6000, 2000});
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    followTimeRange(m_baselineSelection, m_fixedSelection, 1);
    followTimeRange(m_fixedSelection, m_baselineSelection, -1);
    connect(m_align, &QCheckBox::toggled, this, [this](bool on) {
        if (!on)
            m_offset = 0;
        if (const QModelIndex current = m_table->currentIndex(); current.isValid())
            onRowActivated(current.row());
        else
            showRange(m_baselineSelection->from(), m_baselineSelection->to());
    });
    connect(m_fixed, &ReplaySession::stageChanged, this,
            [this](ReplaySession::Stage stage, const QString& text) {
                m_stop->setEnabled(m_fixed->isBusy());
                if (!m_comparedOnce)
                    m_verdict->setText(stage == ReplaySession::Stage::Done && !m_fixed->analysesAvailable()
                                           ? tr("The %1 was stopped before its analyses: nothing to compare.")
                                                 .arg(m_otherNoun)
                                           : tr("The %1: %2").arg(m_otherNoun, text));
            });
    connect(m_fixed, &ReplaySession::openFailed, this, [this](const QString& message) {
        m_verdict->setText(tr("The %1 could not be opened: %2").arg(m_otherNoun, message));
    });
    connect(m_fixed, &ReplaySession::analysesReady, this, &ComparisonWindow::tryCompare);
    connect(m_stop, &QPushButton::clicked, m_fixed, &ReplaySession::cancel);
    connect(m_save, &QPushButton::clicked, this, &ComparisonWindow::chooseSaveFile);
    // A click or the arrow keys: the views follow the current row.
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    onRowActivated(current.row());
            });
    // Another trace in the explorer: this baseline is gone.
    connect(baseline, &ReplaySession::opened, this, &QWidget::close);

    // Only the analyses are wanted of the other run: its own suggestions are not measured.
    m_fixed->setMeasuresSuggestions(false);
    resize(1280, 820);
}

// Members stop first (the diff, then a save under way: each jthread joins), then the other run's session, a
// child, stops its work.
ComparisonWindow::~ComparisonWindow() = default;

void ComparisonWindow::followTimeRange(SelectionModel* from, SelectionModel* to, int sign)
{
    connect(from, &SelectionModel::timeRangeChanged, this, [this, from, to, sign](quint64 a, quint64 b) {
        // While a run grows each timeline follows its own end; once a person zooms or pans one, the other
        // shows the same cycles (moved by the alignment's offset, when aligned at a region).
        if (m_syncing || from->following())
            return;
        const std::int64_t shift = sign * m_offset;
        m_syncing = true;
        const std::int64_t start = std::max<std::int64_t>(static_cast<std::int64_t>(a) + shift, 0);
        to->setTimeRange(static_cast<std::uint64_t>(start), static_cast<std::uint64_t>(start) + (b - a));
        m_syncing = false;
    });
}

void ComparisonWindow::showRange(std::uint64_t from, std::uint64_t to)
{
    m_baselineSelection->setTimeRange(from, to); // the fixed run's follows, moved by the offset
    const std::int64_t start = std::max<std::int64_t>(static_cast<std::int64_t>(from) + m_offset, 0);
    m_syncing = true;
    m_fixedSelection->setTimeRange(static_cast<std::uint64_t>(start),
                                   static_cast<std::uint64_t>(start) + (to - from));
    m_syncing = false;
}

void ComparisonWindow::tryCompare()
{
    std::shared_ptr<const Run> a = m_baseline->runHandle();
    std::shared_ptr<const Run> b = m_fixed->runHandle();
    if (!a || !b || !m_baseline->analysesAvailable() || !m_fixed->analysesAvailable())
        return;
    m_verdict->setText(tr("Comparing the two runs…"));
    // On a worker: the regions, the programs' bundles and the DMAs (44 ms for a 10 M-bundle pair,
    // bench_diff), never the bundle issues; the handles keep both runs alive meanwhile.
    m_differ = std::jthread([this, a = std::move(a), b = std::move(b)] {
        analysis::RunDiff diff = analysis::diffRuns(
            a->analyses, b->analyses,
            {a->path.toStdString(), a->trace->chips.size(), a->analyses.summary.microseconds},
            {b->path.toStdString(), b->trace->chips.size(), b->analyses.summary.microseconds});
        analysis::addPcDeltas(diff, *a->view, a->analyses, *b->view, b->analyses);
        QMetaObject::invokeMethod(
            this, [this, diff = std::move(diff)]() mutable { showDiff(std::move(diff)); },
            Qt::QueuedConnection);
    });
}

void ComparisonWindow::showDiff(analysis::RunDiff diff)
{
    const Compared total = diff.cycles;
    const std::optional<double> pct = total.percent();
    QString verdict = tr("The %1 took %2 cycles against the baseline's %3")
                          .arg(m_otherNoun)
                          .arg(cycles(total.other), cycles(total.baseline));
    if (total.delta() == 0 || !pct)
        verdict += tr(": the same.");
    else
        verdict +=
            tr(": %1% %2 (%3 cycles).")
                .arg(QString::number(std::abs(*pct), 'f', 1), total.delta() < 0 ? tr("faster") : tr("slower"),
                     (total.delta() < 0 ? QStringLiteral("−") : QStringLiteral("+")) +
                         cycles(static_cast<std::uint64_t>(std::llabs(total.delta()))));
    m_verdict->setText(verdict);
    m_model->setDiff(std::move(diff));
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(RunDiffModel::WhatColumn,
                            std::min(m_table->columnWidth(RunDiffModel::WhatColumn), 560));
    // One time axis for both: the longer run's length.
    const auto end = static_cast<std::uint64_t>(
        static_cast<double>(std::max<std::uint64_t>({total.baseline, total.other, 16})) * 1.02);
    m_syncing = true;
    m_baselineSelection->setTimeRange(0, end);
    m_fixedSelection->setTimeRange(0, end);
    m_syncing = false;
    m_save->setEnabled(true);
    m_comparedOnce = true;
    emit compared();
}

void ComparisonWindow::onRowActivated(int row)
{
    // A region: both views show its first instance in either run (the two may differ in length and place);
    // a bundle: highlighted in each timeline at its own pc.
    if (const analysis::RegionDelta* region = m_model->regionAt(row)) {
        const auto instanceIn = [&](const ReplaySession* session) -> std::optional<analysis::CycleRange> {
            const Run* run = session->run();
            return run && run->view ? analysis::firstInstanceOfRegion(*run->view, region->path)
                                    : std::nullopt;
        };
        const std::optional<analysis::CycleRange> base = instanceIn(m_baseline), other = instanceIn(m_fixed);
        if (!base && !other)
            return;
        // Aligned: each run's instance starts at the same place; else one range holding both.
        const bool align = m_align->isChecked() && base && other;
        m_offset = align ? static_cast<std::int64_t>(other->from) - static_cast<std::int64_t>(base->from) : 0;
        analysis::CycleRange range = base ? *base : *other;
        if (base && other)
            range = align ? analysis::CycleRange{base->from, base->from + std::max(base->to - base->from,
                                                                                   other->to - other->from)}
                          : analysis::CycleRange{std::min(base->from, other->from),
                                                 std::max(base->to, other->to)};
        const std::uint64_t margin = std::max<std::uint64_t>((range.to - range.from) / 50, 1);
        showRange(range.from > margin ? range.from - margin : 0, range.to + margin);
        return;
    }
    const analysis::PcDelta* bundle = m_model->bundleAt(row);
    if (!bundle)
        return;
    for (auto [selection, pc] :
         {std::pair{m_baselineSelection, bundle->baselinePc}, std::pair{m_fixedSelection, bundle->otherPc}}) {
        Selection s;
        s.origin = tr("comparison");
        if (pc)
            s.pcs.push_back({bundle->chip, *pc});
        selection->select(std::move(s));
    }
}

QString ComparisonWindow::verdict() const
{
    return m_verdict->text();
}

void ComparisonWindow::chooseSaveFile()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save fixed trace"), QString(),
                                                      tr("xpushark traces (*.xtrace.json *.xps)"));
    if (!path.isEmpty())
        saveFixedTrace(path);
}

void ComparisonWindow::saveFixedTrace(const QString& path)
{
    const std::shared_ptr<const Run> run = m_fixed->runHandle();
    if (!run)
        return;
    m_save->setEnabled(false);
    m_save->setText(tr("Saving…"));
    m_saver = std::jthread([this, run, path] {
        const Status written = trace::saveTrace(*run->trace, path.toStdString());
        const QString error = written ? QString() : QString::fromStdString(written.error().toString());
        QMetaObject::invokeMethod(
            this,
            [this, path, error] {
                m_save->setEnabled(true);
                m_save->setText(tr("Save fixed trace…"));
                m_verdict->setToolTip(error.isEmpty() ? tr("Saved %1").arg(path) : error);
                emit saved(path, error);
            },
            Qt::QueuedConnection);
    });
}

} // namespace xps::ui
