#include "compare/profile_comparison_window.h"

#include "compare/profile_diff_model.h"
#include "import/import.h"
#include "imported/profile_document.h"
#include "imported/profile_text.h"
#include "imported/profile_timeline_view.h"
#include "replayed_profile.h"
#include "selection/selection_model.h"
#include "widgets/table_export.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMetaObject>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdlib>

namespace xps::ui {
namespace {

// A timeline under its heading: which profile it is.
QWidget* titled(const QString& text, const QString& tooltip, QWidget* content)
{
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(2);
    auto* heading = new QLabel(text);
    QFont bold = heading->font();
    bold.setBold(true);
    heading->setFont(bold);
    heading->setToolTip(tooltip);
    layout->addWidget(heading);
    layout->addWidget(content, 1);
    return box;
}

QString fileName(const QString& path)
{
    return QFileInfo(path).fileName();
}

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

} // namespace

ProfileComparisonWindow::ProfileComparisonWindow(ProfileDocument* baseline, const QString& otherPath,
                                                 QWidget* parent)
    : QWidget(parent, Qt::Window), m_baselineSelection(new SelectionModel(this)),
      m_otherSelection(new SelectionModel(this)),
      m_baselineDoc(new ProfileDocument(m_baselineSelection, this)),
      m_otherDoc(new ProfileDocument(m_otherSelection, this)),
      m_baselineView(new ProfileTimelineView(m_baselineDoc)),
      m_otherView(new ProfileTimelineView(m_otherDoc)), m_verdict(new QLabel(this)),
      m_align(new QCheckBox(tr("Align at the operation"), this)), m_stop(new QPushButton(tr("Stop"), this)),
      m_tables(new QTabWidget)
{
    const QString baselinePath = baseline->run() ? baseline->run()->path : QString();
    setWindowTitle(tr("Compare: %1 with %2").arg(fileName(baselinePath), fileName(otherPath)));
    m_align->setToolTip(tr("Show the operation picked in the table at the same place in both timelines (its "
                           "first instance in each profile), and keep the two views that far apart in time"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_verdict, 1);
    bar->addWidget(m_align);
    bar->addWidget(m_stop);

    auto* timelines = new QSplitter(Qt::Vertical);
    timelines->addWidget(
        titled(tr("Baseline: %1").arg(fileName(baselinePath)), baselinePath, m_baselineView));
    timelines->addWidget(titled(tr("Other: %1").arg(fileName(otherPath)), otherPath, m_otherView));
    timelines->setChildrenCollapsible(false);
    timelines->setSizes({1000, 1000});

    addTable(new ProfileDiffModel(ProfileDiffModel::Table::Operations, this), tr("Operations"));
    addTable(new ProfileDiffModel(ProfileDiffModel::Table::Devices, this), tr("Devices"));
    addTable(new ProfileDiffModel(ProfileDiffModel::Table::CriticalPath, this), tr("Critical path"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(timelines);
    split->addWidget(m_tables);
    split->setChildrenCollapsible(false);
    split->setSizes({6000, 2600});
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    follow(m_baselineDoc, m_otherDoc, true);
    follow(m_otherDoc, m_baselineDoc, false);
    // One gutter for both, the wider one's: a time is at the same x in both, whatever their labels.
    const auto shareGutter = [this] {
        const int width = std::max(m_baselineView->fittedGutter(), m_otherView->fittedGutter());
        m_baselineView->setMinimumGutter(width);
        m_otherView->setMinimumGutter(width);
    };
    connect(m_baselineView, &TimelineCanvas::rowsChanged, this, shareGutter);
    connect(m_otherView, &TimelineCanvas::rowsChanged, this, shareGutter);
    connect(m_align, &QCheckBox::toggled, this, [this] {
        const int tab = m_tables->currentIndex();
        const QTableView* view = table(tab);
        if (const QModelIndex current = view ? view->currentIndex() : QModelIndex(); current.isValid())
            onRowPicked(model(tab), sortedOf(view)->mapToSource(current).row());
        else {
            m_offset = startOffset();
            const auto [from, to] = m_baselineDoc->visibleRange();
            showRange(from, to);
        }
    });
    connect(m_otherDoc, &ProfileDocument::progress, this, [this](quint64 read, quint64 size) {
        m_verdict->setText(size ? tr("Importing the other profile… %1%").arg(100 * read / size)
                                : tr("Importing the other profile…"));
    });
    connect(m_otherDoc, &ProfileDocument::failed, this, [this](const QString& message) {
        m_stop->hide();
        m_verdict->setText(tr("The other profile could not be opened: %1").arg(message));
    });
    connect(m_otherDoc, &ProfileDocument::loaded, this, [this] {
        m_stop->hide(); // nothing left to stop: the diff takes milliseconds
        tryCompare();
    });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        m_otherDoc->cancel();
        m_stop->hide();
        m_verdict->setText(tr("Stopped before the other profile was read: nothing to compare."));
    });
    // Another file in the explorer: this baseline is gone.
    connect(baseline, &ProfileDocument::loadStarted, this, &QWidget::close);

    m_baselineDoc->show(baseline->runHandle());
    if (const auto kind = importing::detectInput(otherPath.toStdString());
        kind && *kind == importing::InputKind::XpuTrace) {
        // A trace: the GRM's run of it, seen as a profile (the progress is the replay's, not a file's).
        m_verdict->setText(tr("Replaying the other trace…"));
        m_otherDoc->openBuilt(otherPath, [path = otherPath.toStdString()](const importing::ImportOptions&,
                                                                          std::stop_token stop) {
            return sim::replayedProfileOf(path, {}, std::move(stop));
        });
    } else {
        m_verdict->setText(tr("Importing the other profile…"));
        m_otherDoc->open(otherPath);
    }
    resize(1280, 820);
}

// The diff stops first (it posts to this window); then the documents, children, stop their work.
ProfileComparisonWindow::~ProfileComparisonWindow() = default;

QTableView* ProfileComparisonWindow::addTable(ProfileDiffModel* model, const QString& title)
{
    auto* sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(model);
    sorted->setSortRole(ProfileDiffModel::SortRole);
    auto* view = new QTableView;
    view->setModel(sorted);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder); // the model's order, the largest change first, until asked
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->hide();
    view->setWordWrap(false);
    view->setAlternatingRowColors(true);
    // The names take what the numbers leave.
    view->horizontalHeader()->setSectionResizeMode(ProfileDiffModel::WhatColumn, QHeaderView::Stretch);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    addTableExportActions(view, QStringLiteral("comparison-") +
                                    title.toLower().replace(QLatin1Char(' '), QLatin1Char('-')));
    if (model->table() != ProfileDiffModel::Table::Operations)
        view->setColumnHidden(ProfileDiffModel::CallsColumn, true);
    // A click or the arrow keys: the timelines follow the current row.
    connect(view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, model, sorted](const QModelIndex& current) {
                if (current.isValid())
                    onRowPicked(model, sorted->mapToSource(current).row());
            });
    m_tables->addTab(view, title);
    return view;
}

QSortFilterProxyModel* ProfileComparisonWindow::sortedOf(const QTableView* view)
{
    return static_cast<QSortFilterProxyModel*>(view->model()); // addTable's
}

QTableView* ProfileComparisonWindow::table(int tab) const
{
    return qobject_cast<QTableView*>(m_tables->widget(tab));
}

ProfileDiffModel* ProfileComparisonWindow::model(int tab) const
{
    const QTableView* view = table(tab);
    return view ? static_cast<ProfileDiffModel*>(sortedOf(view)->sourceModel()) : nullptr;
}

QString ProfileComparisonWindow::verdict() const
{
    return m_verdict->text();
}

std::int64_t ProfileComparisonWindow::startOffset() const
{
    const ProfileRun* a = m_baselineDoc->run();
    const ProfileRun* b = m_otherDoc->run();
    return a && b ? b->profile.timebase.toNanos(b->profile.startTime()) -
                        a->profile.timebase.toNanos(a->profile.startTime())
                  : 0;
}

// The two profiles may count different ticks (a replay's cycles beside an import's nanoseconds): a time
// crosses from one to the other in nanoseconds, moved by the offset.
profile::Ticks ProfileComparisonWindow::otherTicksOf(profile::Ticks baseline) const
{
    const profile::Timebase& a = m_baselineDoc->run()->profile.timebase;
    const profile::Timebase& b = m_otherDoc->run()->profile.timebase;
    return b.fromNanos(a.toNanos(baseline) + m_offset);
}

profile::Ticks ProfileComparisonWindow::baselineTicksOf(profile::Ticks other) const
{
    const profile::Timebase& a = m_baselineDoc->run()->profile.timebase;
    const profile::Timebase& b = m_otherDoc->run()->profile.timebase;
    return a.fromNanos(b.toNanos(other) - m_offset);
}

void ProfileComparisonWindow::follow(ProfileDocument* from, ProfileDocument* to, bool fromBaseline)
{
    connect(from, &ProfileDocument::rangeChanged, this, [this, from, to, fromBaseline] {
        // Until both are analysed each shows its own; then a zoom or a pan in one is the other's.
        if (m_syncing || !m_baselineDoc->run() || !m_otherDoc->run())
            return;
        const auto [a, b] = from->visibleRange();
        m_syncing = true;
        if (fromBaseline)
            to->setVisibleRange(otherTicksOf(a), otherTicksOf(b));
        else
            to->setVisibleRange(baselineTicksOf(a), baselineTicksOf(b));
        m_syncing = false;
    });
}

void ProfileComparisonWindow::showRange(std::int64_t from, std::int64_t to)
{
    m_syncing = true;
    m_baselineDoc->setVisibleRange(from, to);
    m_otherDoc->setVisibleRange(otherTicksOf(from), otherTicksOf(to));
    m_syncing = false;
}

void ProfileComparisonWindow::tryCompare()
{
    std::shared_ptr<const ProfileRun> a = m_baselineDoc->runHandle();
    std::shared_ptr<const ProfileRun> b = m_otherDoc->runHandle();
    if (!a || !b)
        return;
    m_verdict->setText(tr("Comparing the two profiles…"));
    // On a worker: the per-operation rows and the critical paths are already in both analyses; the handles
    // keep both profiles alive meanwhile.
    m_differ = std::jthread([this, a = std::move(a), b = std::move(b)] {
        profile::ProfileDiff diff = profile::diffProfiles(a->profile, a->analysis, b->profile, b->analysis);
        QMetaObject::invokeMethod(
            this, [this, diff = std::move(diff)]() mutable { showDiff(std::move(diff)); },
            Qt::QueuedConnection);
    });
}

void ProfileComparisonWindow::showDiff(profile::ProfileDiff diff)
{
    m_diff = std::move(diff);
    QString verdict = tr("The other profile spans %1 against the baseline's %2: %3.")
                          .arg(duration(m_diff.span.other), duration(m_diff.span.baseline),
                               change(m_diff.span, tr("longer"), tr("shorter")));
    if (m_diff.criticalPathLength.baseline || m_diff.criticalPathLength.other)
        verdict +=
            tr(" Its critical path: %1 against %2, %3.")
                .arg(duration(m_diff.criticalPathLength.other), duration(m_diff.criticalPathLength.baseline),
                     change(m_diff.criticalPathLength, tr("longer"), tr("shorter")));
    m_verdict->setText(verdict);
    for (int t = 0; t < m_tables->count(); ++t) {
        model(t)->setDiff(m_diff);
        QTableView* view = table(t);
        for (int c = ProfileDiffModel::WhereColumn; c < ProfileDiffModel::ColumnCount; ++c)
            view->resizeColumnToContents(c);
    }
    // One time axis for both, each from its own start: the longer profile's span.
    m_offset = startOffset();
    const profile::Profile& a = m_baselineDoc->run()->profile;
    const auto spanNs = static_cast<std::int64_t>(
        static_cast<double>(std::max<std::uint64_t>({m_diff.span.baseline, m_diff.span.other, 10})) * 1.02);
    showRange(a.startTime(), a.timebase.fromNanos(a.timebase.toNanos(a.startTime()) + spanNs));
    emit compared();
}

void ProfileComparisonWindow::onRowPicked(const ProfileDiffModel* model, int row)
{
    const auto [base, other] = model->firstInstances(row);
    if (!base.valid() && !other.valid())
        return;
    const profile::Profile& a = m_baselineDoc->run()->profile;
    const profile::Profile& b = m_otherDoc->run()->profile;
    // Aligned: the two instances start at the same place; else each profile from its own start, one range
    // holding both instances.
    const bool align = m_align->isChecked() && base.valid() && other.valid();
    m_offset = align ? b.timebase.toNanos(b.slice(other).start) - a.timebase.toNanos(a.slice(base).start)
                     : startOffset();
    // The range holding both, in the baseline's nanoseconds.
    profile::Nanos from = 0, to = 0;
    bool any = false;
    for (const auto& [slice, p, shift] :
         {std::tuple{base, &a, std::int64_t{0}}, std::tuple{other, &b, m_offset}})
        if (slice.valid()) {
            const profile::Slice& s = p->slice(slice);
            const profile::Nanos start = p->timebase.toNanos(s.start) - shift;
            const profile::Nanos end = p->timebase.toNanos(s.end()) - shift;
            from = any ? std::min(from, start) : start;
            to = any ? std::max(to, end) : end;
            any = true;
        }
    const profile::Nanos margin = std::max<profile::Nanos>((to - from) / 2, 1000);
    showRange(a.timebase.fromNanos(from - margin), a.timebase.fromNanos(to + margin));
    m_baselineDoc->selectSlice(base, tr("comparison"));
    m_otherDoc->selectSlice(other, tr("comparison"));
}

} // namespace xps::ui
