// The comparison window's tables and what every side has: the two profiles (a replay's seen as one), diffed
// as HTA's TraceDiff and TraceLens list them, and a picked row shown in both sides' views.

#include "compare/comparison_window.h"
#include "compare/profile_diff_model.h"
#include "compare/run_diff_model.h"
#include "imported/profile_document.h"
#include "imported/profile_text.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "widgets/table_export.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMetaObject>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>

#include <algorithm>
#include <cstdlib>

namespace xps::ui {
namespace {

QString duration(std::uint64_t ns)
{
    return formatDuration(static_cast<profile::Nanos>(ns));
}

// "10.0% longer (+100 us)", "the same".
QString change(const Compared& c, const QString& more, const QString& less)
{
    const std::optional<double> pct = c.percent();
    if (c.delta() == 0 || !pct)
        return QObject::tr("the same");
    return QObject::tr("%1% %2 (%3%4)")
        .arg(QString::number(std::abs(*pct), 'f', 1), c.delta() > 0 ? more : less,
             c.delta() > 0 ? QStringLiteral("+") : QStringLiteral("−"),
             duration(static_cast<std::uint64_t>(std::llabs(c.delta()))));
}

void styleTable(QTableView* view)
{
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->hide();
    view->setWordWrap(false);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
}

} // namespace

QTableView* ComparisonWindow::addRunDiffTable()
{
    m_runDiff = new RunDiffModel(this);
    m_runDiff->setOtherHeading(m_otherNoun.left(1).toUpper() + m_otherNoun.mid(1));
    m_runDiffTable = new QTableView;
    m_runDiffTable->setModel(m_runDiff);
    styleTable(m_runDiffTable);
    m_runDiffTable->horizontalHeader()->setStretchLastSection(true);
    addTableExportActions(m_runDiffTable, QStringLiteral("comparison"));
    // A click or the arrow keys: the views follow the current row.
    connect(m_runDiffTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    onRunDiffRowPicked(current.row());
            });
    m_tables->addTab(m_runDiffTable, tr("Regions and bundles"));
    return m_runDiffTable;
}

QTableView* ComparisonWindow::addProfileTable(ProfileDiffModel* model, const QString& title)
{
    model->setOtherHeading(m_otherNoun.left(1).toUpper() + m_otherNoun.mid(1));
    auto* sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(model);
    sorted->setSortRole(ProfileDiffModel::SortRole);
    auto* view = new QTableView;
    view->setModel(sorted);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder); // the model's order, the largest change first, until asked
    styleTable(view);
    // The names take what the numbers leave.
    view->horizontalHeader()->setSectionResizeMode(ProfileDiffModel::WhatColumn, QHeaderView::Stretch);
    addTableExportActions(view, QStringLiteral("comparison-") +
                                    title.toLower().replace(QLatin1Char(' '), QLatin1Char('-')));
    if (model->table() != ProfileDiffModel::Table::Operations)
        view->setColumnHidden(ProfileDiffModel::CallsColumn, true);
    connect(view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, model, sorted](const QModelIndex& current) {
                if (current.isValid())
                    onProfileRowPicked(model, sorted->mapToSource(current).row());
            });
    m_tables->addTab(view, title);
    return view;
}

QSortFilterProxyModel* ComparisonWindow::sortedOf(const QTableView* view)
{
    return qobject_cast<QSortFilterProxyModel*>(view->model()); // addProfileTable's; null for RunDiff's
}

QTableView* ComparisonWindow::table(int tab) const
{
    return qobject_cast<QTableView*>(m_tables->widget(tab));
}

ProfileDiffModel* ComparisonWindow::model(int tab) const
{
    const QTableView* view = table(tab);
    const QSortFilterProxyModel* sorted = view ? sortedOf(view) : nullptr;
    return sorted ? static_cast<ProfileDiffModel*>(sorted->sourceModel()) : nullptr;
}

void ComparisonWindow::connectOtherDocument()
{
    ProfileDocument* other = m_other.document;
    connect(other, &ProfileDocument::progress, this, [this](quint64 read, quint64 size) {
        setStatus(size ? tr("Importing the other profile… %1%").arg(100 * read / size)
                       : tr("Importing the other profile…"));
    });
    connect(other, &ProfileDocument::failed, this, [this](const QString& message) {
        m_stop->hide();
        m_verdict->setText(tr("The other profile could not be opened: %1").arg(message));
    });
    connect(other, &ProfileDocument::loaded, this, [this] {
        m_stop->hide(); // nothing left to stop: the diff takes milliseconds
    });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        m_other.document->cancel();
        m_stop->hide();
        m_verdict->setText(tr("Stopped before the other profile was read: nothing to compare."));
    });
}

std::int64_t ComparisonWindow::startOffset() const
{
    // Two replays both start at cycle 0; profiles each from their own start.
    const ProfileRun* a = m_baseline.document->run();
    const ProfileRun* b = m_other.document->run();
    return comparesReplays() || !a || !b ? 0
                                         : m_crossing.apart(a->profile.startTime(), b->profile.startTime());
}

void ComparisonWindow::tryCompareProfiles()
{
    std::shared_ptr<const ProfileRun> a = m_baseline.document->runHandle();
    std::shared_ptr<const ProfileRun> b = m_other.document->runHandle();
    if (!a || !b)
        return;
    setStatus(tr("Comparing the two profiles…"));
    // On a worker: the per-operation rows and the critical paths are already in both analyses; the handles
    // keep both profiles alive meanwhile.
    m_profileDiffer = std::jthread([this, a = std::move(a), b = std::move(b)] {
        profile::ProfileDiff diff = profile::diffProfiles(a->profile, a->analysis, b->profile, b->analysis);
        QMetaObject::invokeMethod(
            this, [this, diff = std::move(diff)]() mutable { showProfileDiff(std::move(diff)); },
            Qt::QueuedConnection);
    });
}

void ComparisonWindow::showProfileDiff(profile::ProfileDiff diff)
{
    m_profileDiff = std::move(diff);
    for (int t = 0; t < m_tables->count(); ++t)
        if (ProfileDiffModel* m = model(t)) {
            m->setDiff(m_profileDiff);
            for (int c = ProfileDiffModel::WhereColumn; c < ProfileDiffModel::ColumnCount; ++c)
                table(t)->resizeColumnToContents(c);
        }
    m_profilesCompared = true;
    // Two replays: the runs' verdict in cycles, and their time axis, stand.
    if (!comparesReplays() && crossingKnown()) {
        QString verdict = tr("The other profile spans %1 against the baseline's %2: %3.")
                              .arg(duration(m_profileDiff.span.other), duration(m_profileDiff.span.baseline),
                                   change(m_profileDiff.span, tr("longer"), tr("shorter")));
        if (m_profileDiff.criticalPathLength.baseline || m_profileDiff.criticalPathLength.other)
            verdict += tr(" Its critical path: %1 against %2, %3.")
                           .arg(duration(m_profileDiff.criticalPathLength.other),
                                duration(m_profileDiff.criticalPathLength.baseline),
                                change(m_profileDiff.criticalPathLength, tr("longer"), tr("shorter")));
        m_verdict->setText(verdict);
        // One time axis for both, each from its own start: the longer profile's span.
        m_crossing.offset = startOffset();
        const profile::Profile& a = m_baseline.document->run()->profile;
        const auto spanNs =
            static_cast<std::int64_t>(static_cast<double>(std::max<std::uint64_t>(
                                          {m_profileDiff.span.baseline, m_profileDiff.span.other, 10})) *
                                      1.02);
        showRange(m_baseline, a.startTime(),
                  a.timebase.fromNanos(a.timebase.toNanos(a.startTime()) + spanNs));
    } else if (m_runsCompared)
        m_verdict->setText(m_runVerdict);
    if (!comparesReplays())
        emit compared();
    emit profilesCompared();
}

void ComparisonWindow::onProfileRowPicked(const ProfileDiffModel* model, int row)
{
    const auto [base, other] = model->firstInstances(row);
    if ((!base.valid() && !other.valid()) || !m_baseline.document->run() || !m_other.document->run() ||
        !crossingKnown())
        return;
    const profile::Profile& a = m_baseline.document->run()->profile;
    const profile::Profile& b = m_other.document->run()->profile;
    // Aligned: the two instances start at the same place; else each side from its own start, one range
    // holding both instances.
    const bool align = m_align->isChecked() && base.valid() && other.valid();
    m_crossing.offset = align ? m_crossing.apart(a.slice(base).start, b.slice(other).start) : startOffset();
    // The range holding both, in the baseline's ticks.
    profile::Ticks from = 0, to = 0;
    bool any = false;
    const auto hold = [&](profile::Ticks start, profile::Ticks end) {
        from = any ? std::min(from, start) : start;
        to = any ? std::max(to, end) : end;
        any = true;
    };
    if (base.valid())
        hold(a.slice(base).start, a.slice(base).end());
    if (other.valid())
        hold(m_crossing.toBaseline(b.slice(other).start), m_crossing.toBaseline(b.slice(other).end()));
    const profile::Ticks margin =
        std::max<profile::Ticks>((to - from) / 2, std::max<profile::Ticks>(a.timebase.fromNanos(1000), 1));
    showRange(m_baseline, from - margin, to + margin);
    m_baseline.document->selectSlice(base, tr("comparison"));
    m_other.document->selectSlice(other, tr("comparison"));
}

void ComparisonWindow::onRowOfCurrentTab()
{
    const QTableView* view = table(m_tables->currentIndex());
    if (const QModelIndex current = view ? view->currentIndex() : QModelIndex(); current.isValid()) {
        if (const QSortFilterProxyModel* sorted = sortedOf(view))
            onProfileRowPicked(model(m_tables->currentIndex()), sorted->mapToSource(current).row());
        else
            onRunDiffRowPicked(current.row());
        return;
    }
    // No row: each side from its own start again, at the baseline's range.
    m_crossing.offset = startOffset();
    if (comparesReplays())
        showRange(m_baseline, static_cast<profile::Ticks>(m_baseline.selection->from()),
                  static_cast<profile::Ticks>(m_baseline.selection->to()));
    else {
        const auto [from, to] = m_baseline.document->visibleRange();
        showRange(m_baseline, from, to);
    }
}

} // namespace xps::ui
