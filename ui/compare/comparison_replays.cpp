// The comparison window's sides when both are replays: each run's lanes, DMA lanes and VMEM heatmap, each
// run seen as its profile (made here, on each side's document), RunDiff's regions and bundles, and Save
// fixed trace.

#include "analysis/region_instances.h"
#include "analysis/replay_profile.h"
#include "compare/comparison_window.h"
#include "compare/run_diff_model.h"
#include "imported/profile_document.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "trace/trace_io.h"
#include "util/text.h"
#include "views/dma_lanes_view.h"
#include "views/timeline_view.h"
#include "views/vmem_heatmap_view.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QLabel>
#include <QMetaObject>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>

#include <algorithm>
#include <cstdlib>

namespace xps::ui {
namespace {

QString cycles(std::uint64_t v)
{
    return QString::fromStdString(text::withThousands(v));
}

// The baseline's view above the other run's, the same height each.
QSplitter* stacked(QWidget* upper, QWidget* lower)
{
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(upper);
    split->addWidget(lower);
    split->setChildrenCollapsible(false);
    split->setSizes({1000, 1000});
    return split;
}

} // namespace

void ComparisonWindow::buildReplayViews()
{
    // Each of the replay's time views twice, one time range per run and the two kept together: the lanes,
    // the DMA lanes with their bandwidth, the VMEM heatmap.
    const auto pair = [this](QWidget* baseline, QWidget* other) {
        return stacked(titled(m_baseline, baseline), titled(m_other, other));
    };
    for (Side* side : {&m_baseline, &m_other}) {
        side->lanes = new TimelineView(side->session, side->selection);
        side->heatmap = new VmemHeatmapView(side->session, side->selection);
    }
    m_baseline.lanes->setLegendVisible(false); // the other run's, between the two and the tables, serves both
    m_views->addTab(pair(m_baseline.lanes, m_other.lanes), tr("Timeline"));
    m_views->addTab(pair(new DmaLanesView(m_baseline.session, m_baseline.selection),
                         new DmaLanesView(m_other.session, m_other.selection)),
                    tr("DMA lanes"));
    m_views->addTab(pair(m_baseline.heatmap, m_other.heatmap), tr("VMEM heatmap"));
    // One colour scale for both maps: a colour is one number of bytes in either run.
    connect(m_baseline.heatmap, &VmemHeatmapView::largestCellChanged, m_other.heatmap,
            &VmemHeatmapView::setScaleTop);
    connect(m_other.heatmap, &VmemHeatmapView::largestCellChanged, m_baseline.heatmap,
            &VmemHeatmapView::setScaleTop);
    m_other.heatmap->setScaleTop(m_baseline.heatmap->largestCell());
}

void ComparisonWindow::connectOtherSession()
{
    ReplaySession* other = m_other.session;
    connect(other, &ReplaySession::stageChanged, this,
            [this, other](ReplaySession::Stage stage, const QString& text) {
                updateStop();
                setStatus(
                    stage == ReplaySession::Stage::Done && !other->analysesAvailable()
                        ? tr("The %1 was stopped before its analyses: nothing to compare.").arg(m_otherNoun)
                        : tr("The %1: %2").arg(m_otherNoun, text));
            });
    connect(other, &ReplaySession::openFailed, this, [this](const QString& message) {
        m_verdict->setText(tr("The %1 could not be opened: %2").arg(m_otherNoun, message));
    });
    connect(other, &ReplaySession::analysesReady, this, [this] {
        tryCompareRuns();
        if (m_profilesWanted)
            makeProfileOf(m_other);
        updateStop();
    });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        const bool makingProfiles = m_baseline.document->isBusy() || m_other.document->isBusy();
        m_other.session->cancel();
        m_baseline.document->cancel();
        m_other.document->cancel();
        if (makingProfiles && m_runsCompared)
            m_verdict->setText(
                m_runVerdict + QLatin1Char(' ') +
                tr("Stopped before their profiles were made: the operations are not compared."));
        updateStop();
    });
    for (Side* side : {&m_baseline, &m_other}) {
        connect(side->document, &ProfileDocument::failed, this, [this](const QString& message) {
            updateStop();
            if (m_runsCompared) // the runs' verdict stays; what the profile tables lack is said beside it
                m_verdict->setText(m_runVerdict + QLatin1Char(' ') +
                                   tr("Their operations were not compared: %1").arg(message));
        });
        connect(side->document, &ProfileDocument::loaded, this, &ComparisonWindow::updateStop);
    }
    connect(m_save, &QPushButton::clicked, this, &ComparisonWindow::chooseSaveFile);
}

void ComparisonWindow::wantProfiles()
{
    if (m_profilesWanted)
        return;
    m_profilesWanted = true;
    makeProfileOf(m_baseline);
    makeProfileOf(m_other); // or once its analyses are in
    updateStop();
    if (m_runsCompared)
        m_verdict->setText(m_runVerdict + QLatin1Char(' ') + tr("Making each run's profile…"));
}

void ComparisonWindow::makeProfileOf(const Side& side)
{
    // The run seen as its profile, on its document's worker; the handle keeps the run alive meanwhile.
    const std::shared_ptr<const Run> run = side.session->runHandle();
    if (!run || !run->view || !side.session->analysesAvailable() || side.document->run() ||
        side.document->isBusy())
        return;
    side.document->openBuilt(run->path, [run](const importing::ImportOptions&, std::stop_token stop) {
        return analysis::replayAsProfile(*run->view, run->path.toStdString(), run->analyses.criticalPath,
                                         stop);
    });
}

void ComparisonWindow::updateStop()
{
    // Work to stop: the other run's replay or analyses, or either run's profile being made.
    m_stop->setEnabled(m_other.session->isBusy() || m_baseline.document->isBusy() ||
                       m_other.document->isBusy());
}

void ComparisonWindow::tryCompareRuns()
{
    std::shared_ptr<const Run> a = m_baseline.session->runHandle();
    std::shared_ptr<const Run> b = m_other.session->runHandle();
    if (!a || !b || !m_baseline.session->analysesAvailable() || !m_other.session->analysesAvailable())
        return;
    setStatus(tr("Comparing the two runs…"));
    // On a worker: the regions, the programs' bundles and the DMAs (44 ms for a 10 M-bundle pair,
    // bench_diff), never the bundle issues; the handles keep both runs alive meanwhile.
    m_runDiffer = std::jthread([this, a = std::move(a), b = std::move(b)] {
        analysis::RunDiff diff = analysis::diffRuns(
            a->analyses, b->analyses,
            {a->path.toStdString(), a->trace->chips.size(), a->analyses.summary.microseconds},
            {b->path.toStdString(), b->trace->chips.size(), b->analyses.summary.microseconds});
        analysis::addPcDeltas(diff, *a->view, a->analyses, *b->view, b->analyses);
        QMetaObject::invokeMethod(
            this, [this, diff = std::move(diff)]() mutable { showRunDiff(std::move(diff)); },
            Qt::QueuedConnection);
    });
}

void ComparisonWindow::showRunDiff(analysis::RunDiff diff)
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
    m_runVerdict = verdict;
    if (m_profilesWanted && !m_profilesCompared)
        verdict += QLatin1Char(' ') + tr("Making each run's profile…");
    m_verdict->setText(verdict);
    m_runDiff->setDiff(std::move(diff));
    m_runDiffTable->resizeColumnsToContents();
    m_runDiffTable->setColumnWidth(RunDiffModel::WhatColumn,
                                   std::min(m_runDiffTable->columnWidth(RunDiffModel::WhatColumn), 560));
    // One time axis for both, from cycle 0: the longer run's length.
    const auto end = static_cast<profile::Ticks>(
        static_cast<double>(std::max<std::uint64_t>({total.baseline, total.other, 16})) * 1.02);
    m_crossing.offset = 0;
    showRange(m_baseline, 0, end);
    m_save->setEnabled(true);
    m_runsCompared = true;
    emit compared();
}

void ComparisonWindow::onRunDiffRowPicked(int row)
{
    // A region: both views show its first instance in either run (the two may differ in length and place);
    // a bundle: highlighted in each run's views at its own pc.
    if (const analysis::RegionDelta* region = m_runDiff->regionAt(row)) {
        const auto instanceIn = [&](const Side& side) -> std::optional<analysis::CycleRange> {
            const Run* run = side.session->run();
            return run && run->view ? analysis::firstInstanceOfRegion(*run->view, region->path)
                                    : std::nullopt;
        };
        const std::optional<analysis::CycleRange> base = instanceIn(m_baseline), other = instanceIn(m_other);
        if ((!base && !other) || !crossingKnown())
            return;
        // Aligned: each run's instance starts at the same place; else both from cycle 0, one range holding
        // both instances.
        const auto ticks = [](std::uint64_t cycle) { return static_cast<profile::Ticks>(cycle); };
        const bool align = m_align->isChecked() && base && other;
        m_crossing.offset = align ? m_crossing.apart(ticks(base->from), ticks(other->from)) : 0;
        profile::Ticks from = base ? ticks(base->from) : m_crossing.toBaseline(ticks(other->from));
        profile::Ticks to = base ? ticks(base->to) : m_crossing.toBaseline(ticks(other->to));
        if (base && other) {
            const profile::Ticks otherFrom = m_crossing.toBaseline(ticks(other->from));
            const profile::Ticks otherTo = m_crossing.toBaseline(ticks(other->to));
            from = std::min(from, otherFrom);
            to = std::max(to, otherTo);
        }
        const profile::Ticks margin = std::max<profile::Ticks>((to - from) / 50, 1);
        showRange(m_baseline, std::max<profile::Ticks>(from - margin, 0), to + margin);
        return;
    }
    const analysis::PcDelta* bundle = m_runDiff->bundleAt(row);
    if (!bundle)
        return;
    for (auto [selection, pc] : {std::pair{m_baseline.selection, bundle->baselinePc},
                                 std::pair{m_other.selection, bundle->otherPc}}) {
        Selection s;
        s.origin = tr("comparison");
        if (pc)
            s.pcs.push_back({bundle->chip, *pc});
        selection->select(std::move(s));
    }
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
    const std::shared_ptr<const Run> run = m_other.session ? m_other.session->runHandle() : nullptr;
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
