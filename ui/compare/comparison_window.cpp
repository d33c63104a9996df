// The comparison window: its two sides, its frame and the time they share. What only two replays have is in
// comparison_replays.cpp, the profiles' timelines and tables in comparison_profiles.cpp.

#include "compare/comparison_window.h"

#include "compare/profile_diff_model.h"
#include "import/import.h"
#include "imported/profile_document.h"
#include "imported/profile_timeline_view.h"
#include "replayed_profile.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace xps::ui {
namespace {

QString fileName(const QString& path)
{
    return QFileInfo(path).fileName();
}

QString replayPath(const ReplaySession* session)
{
    return session->run() ? session->run()->path : QString();
}

} // namespace

ComparisonWindow::ComparisonWindow(ReplaySession* baseline, const suggest::Suggestion& suggestion,
                                   QWidget* parent)
    : ComparisonWindow(
          baseline,
          OtherRun{tr("Compare: %1 with %2 applied")
                       .arg(fileName(replayPath(baseline)), QString::fromStdString(suggestion.id)),
                   tr("Fixed run: %1 · %2")
                       .arg(QString::fromStdString(suggestion.id), QString::fromStdString(suggestion.title)),
                   QString::fromStdString(suggestion.change.describe()), tr("fixed run")},
          parent)
{
    m_save->show();
    m_save->setToolTip(tr("Write the baseline's trace with this change applied (.xtrace.json or .xps)"));
    const Run* run = baseline->run();
    if (!run)
        return;
    const QString name = tr("%1 with %2").arg(run->path, QString::fromStdString(suggestion.id));
    // Apply and compare replayed this change already: its run is taken over, only analysed here.
    if (std::shared_ptr<sim::ChangedRun> replayed = baseline->takeChangedRun(suggestion.id))
        m_other.session->openReplayed(std::move(replayed), name);
    else
        m_other.session->openChanged(run->trace, suggestion.change, name);
}

ComparisonWindow::ComparisonWindow(ReplaySession* baseline, const QString& otherTrace, QWidget* parent)
    : ComparisonWindow(
          baseline,
          OtherRun{tr("Compare: %1 with %2").arg(fileName(replayPath(baseline)), fileName(otherTrace)),
                   tr("Other run: %1").arg(fileName(otherTrace)), otherTrace, tr("other run")},
          parent)
{
    m_other.session->open(otherTrace);
}

ComparisonWindow::ComparisonWindow(ReplaySession* baseline, const OtherRun& other, QWidget* parent)
    : QWidget(parent, Qt::Window)
{
    m_baseline.session = baseline;
    m_baseline.heading = tr("Baseline: %1").arg(fileName(replayPath(baseline)));
    m_baseline.tooltip = replayPath(baseline);
    m_other.session = new ReplaySession(this);
    // Only the analyses are wanted of the other run: its own suggestions are not measured.
    m_other.session->setMeasuresSuggestions(false);
    buildFrame(other);
    connectOtherSession();
    // Another trace in the explorer: this baseline is gone.
    connect(baseline, &ReplaySession::opened, this, &QWidget::close);
}

ComparisonWindow::ComparisonWindow(ProfileDocument* baseline, const QString& otherPath, QWidget* parent)
    : ComparisonWindow(baseline,
                       OtherRun{tr("Compare: %1 with %2")
                                    .arg(fileName(baseline->run() ? baseline->run()->path : QString()),
                                         fileName(otherPath)),
                                tr("Other: %1").arg(fileName(otherPath)), otherPath, tr("other profile")},
                       parent)
{
    if (const auto kind = importing::detectInput(otherPath.toStdString());
        kind && *kind == importing::InputKind::XpuTrace) {
        // A trace: the GRM's run of it, seen as a profile (the progress is the replay's, not a file's).
        setStatus(tr("Replaying the other trace…"));
        m_other.document->openBuilt(otherPath, [path = otherPath.toStdString()](
                                                   const importing::ImportOptions&, std::stop_token stop) {
            return sim::replayedProfileOf(path, {}, std::move(stop));
        });
    } else {
        setStatus(tr("Importing the other profile…"));
        m_other.document->open(otherPath);
    }
}

ComparisonWindow::ComparisonWindow(ProfileDocument* baseline, const OtherRun& other, QWidget* parent)
    : QWidget(parent, Qt::Window)
{
    const QString path = baseline->run() ? baseline->run()->path : QString();
    m_baseline.heading = tr("Baseline: %1").arg(fileName(path));
    m_baseline.tooltip = path;
    buildFrame(other);
    connectOtherDocument();
    // Another file in the explorer: this baseline is gone.
    connect(baseline, &ProfileDocument::loadStarted, this, &QWidget::close);
    m_baseline.document->show(baseline->runHandle());
}

// The diffs stop first (they post to this window), then a save under way; then the documents and the other
// run's session, children, stop their work.
ComparisonWindow::~ComparisonWindow() = default;

void ComparisonWindow::buildFrame(const OtherRun& other)
{
    setWindowTitle(other.title);
    m_otherNoun = other.noun;
    m_other.heading = other.heading;
    m_other.tooltip = other.tooltip;
    m_verdict = new QLabel(this);
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_align =
        new QCheckBox(comparesReplays() ? tr("Align at the region") : tr("Align at the operation"), this);
    m_align->setToolTip(tr("Show the row picked in the table at the same place in both timelines (its first "
                           "instance in each run), and keep the two views that far apart in time"));
    m_stop = new QPushButton(tr("Stop"), this);
    m_save = new QPushButton(tr("Save fixed trace…"), this);
    m_save->setEnabled(false);
    m_save->hide(); // a fixed run's only: any other run is a file already
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_verdict, 1);
    bar->addWidget(m_align);
    bar->addWidget(m_stop);
    bar->addWidget(m_save);

    for (Side* side : {&m_baseline, &m_other}) {
        side->selection = new SelectionModel(this);
        side->document = new ProfileDocument(side->selection, this);
        side->timeline = new ProfileTimelineView(side->document);
        connect(side->document, &ProfileDocument::loaded, this, &ComparisonWindow::tryCompareProfiles);
        connect(side->document, &ProfileDocument::loaded, this, [this, side] {
            // A replay's profile, made after its lanes were zoomed: it shows what they show.
            if (side->session && crossingKnown() && m_baseline.document->run() && m_other.document->run())
                showRange(m_baseline, static_cast<profile::Ticks>(m_baseline.selection->from()),
                          static_cast<profile::Ticks>(m_baseline.selection->to()));
        });
    }
    m_views = new QTabWidget;
    m_views->setTabBarAutoHide(true); // one tab: no bar
    // The two profiles' timelines, stacked, with one label gutter: a time is at one x in both, whatever
    // their labels.
    auto* timelines = new QSplitter(Qt::Vertical);
    timelines->addWidget(titled(m_baseline, m_baseline.timeline));
    timelines->addWidget(titled(m_other, m_other.timeline));
    timelines->setChildrenCollapsible(false);
    timelines->setSizes({1000, 1000});
    const auto shareGutter = [this] {
        const int width = std::max(m_baseline.timeline->fittedGutter(), m_other.timeline->fittedGutter());
        m_baseline.timeline->setMinimumGutter(width);
        m_other.timeline->setMinimumGutter(width);
    };
    connect(m_baseline.timeline, &TimelineCanvas::rowsChanged, this, shareGutter);
    connect(m_other.timeline, &TimelineCanvas::rowsChanged, this, shareGutter);
    if (comparesReplays())
        buildReplayViews(); // the replay's own views first
    m_views->addTab(timelines, comparesReplays() ? tr("As profiles") : tr("Timeline"));
    if (comparesReplays())
        connect(m_views, &QTabWidget::currentChanged, this, [this, timelines](int tab) {
            if (m_views->widget(tab) == timelines)
                wantProfiles();
        });

    m_tables = new QTabWidget;
    if (comparesReplays())
        addRunDiffTable();
    addProfileTable(new ProfileDiffModel(ProfileDiffModel::Table::Operations, this), tr("Operations"));
    addProfileTable(new ProfileDiffModel(ProfileDiffModel::Table::Devices, this), tr("Devices"));
    addProfileTable(new ProfileDiffModel(ProfileDiffModel::Table::CriticalPath, this), tr("Critical path"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_views);
    split->addWidget(m_tables);
    split->setChildrenCollapsible(false);
    split->setSizes({6000, 2400}); // the runs' views the larger part; the tables the rest
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    followRanges(m_baseline);
    followRanges(m_other);
    connect(m_align, &QCheckBox::toggled, this, &ComparisonWindow::onRowOfCurrentTab);
    // Another table: the views show its picked row, if it has one (each table keeps its own). Two replays'
    // profiles are made the first time a tab shows them.
    connect(m_tables, &QTabWidget::currentChanged, this, [this](int tab) {
        if (comparesReplays() && tab != m_tables->indexOf(m_runDiffTable))
            wantProfiles();
        if (const QTableView* view = table(tab); view && view->currentIndex().isValid())
            onRowOfCurrentTab();
    });
    resize(1280, 820);
}

QWidget* ComparisonWindow::titled(const Side& side, QWidget* content)
{
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(2);
    auto* heading = new QLabel(side.heading);
    QFont bold = heading->font();
    bold.setBold(true);
    heading->setFont(bold);
    heading->setToolTip(side.tooltip);
    layout->addWidget(heading);
    layout->addWidget(content, 1);
    return box;
}

QString ComparisonWindow::verdict() const
{
    return m_verdict->text();
}

void ComparisonWindow::setStatus(const QString& text)
{
    if (!m_runsCompared && !m_profilesCompared)
        m_verdict->setText(text);
}

std::optional<profile::Timebase> ComparisonWindow::timebaseOf(const Side& side) const
{
    if (side.session) // a replay counts cycles at its machine's clock, as its profile does
        return side.session->run()
                   ? std::optional(profile::Timebase::cyclesAt(side.session->run()->trace->machine.clockMhz))
                   : std::nullopt;
    return side.document->run() ? std::optional(side.document->run()->profile.timebase) : std::nullopt;
}

bool ComparisonWindow::crossingKnown()
{
    const std::optional<profile::Timebase> a = timebaseOf(m_baseline), b = timebaseOf(m_other);
    if (!a || !b)
        return false;
    m_crossing.baseline = *a;
    m_crossing.other = *b;
    return true;
}

void ComparisonWindow::followRanges(const Side& side)
{
    // While a run grows each side follows its own end; once a person zooms or pans one view (and both sides'
    // clocks are known), every view of both sides shows that time, the other side's moved by the offset.
    if (side.session)
        connect(side.selection, &SelectionModel::timeRangeChanged, this,
                [this, &side](quint64 from, quint64 to) {
                    if (!m_syncing && !side.selection->following() && crossingKnown())
                        showRange(side, static_cast<profile::Ticks>(from), static_cast<profile::Ticks>(to),
                                  side.selection);
                });
    connect(side.document, &ProfileDocument::rangeChanged, this, [this, &side] {
        // A document takes part once both profiles are there (loading, each shows its whole profile).
        if (m_syncing || !m_baseline.document->run() || !m_other.document->run() || !crossingKnown())
            return;
        const auto [from, to] = side.document->visibleRange();
        showRange(side, from, to, side.document);
    });
}

void ComparisonWindow::showRange(const Side& side, profile::Ticks from, profile::Ticks to,
                                 const QObject* origin)
{
    if (!crossingKnown())
        return;
    const bool fromBaseline = &side == &m_baseline;
    const auto toOther = [this](profile::Ticks t) { return m_crossing.toOther(t); };
    const auto toBaseline = [this](profile::Ticks t) { return m_crossing.toBaseline(t); };
    std::pair<profile::Ticks, profile::Ticks> baseline{from, to}, other{from, to};
    if (fromBaseline)
        other = {toOther(from), toOther(to)};
    else
        baseline = {toBaseline(from), toBaseline(to)};
    // A replay's lanes start at cycle 0: a range reaching before it moves right, both sides together, so
    // they stay the offset apart (every view then takes it, the one it came from too).
    const auto startAtZero = [&origin](bool replay, auto& range, auto& across, const auto& cross) {
        if (!replay || range.first >= 0)
            return;
        range = {0, range.second - range.first};
        across = {cross(range.first), cross(range.second)};
        origin = nullptr;
    };
    startAtZero(m_baseline.session != nullptr, baseline, other, toOther);
    startAtZero(m_other.session != nullptr, other, baseline, toBaseline);
    m_syncing = true;
    showSideRange(m_baseline, baseline.first, baseline.second, origin);
    showSideRange(m_other, other.first, other.second, origin);
    m_syncing = false;
}

void ComparisonWindow::showSideRange(const Side& side, profile::Ticks from, profile::Ticks to,
                                     const QObject* origin)
{
    // A replay's profile counts its cycles: one range for its lanes and its profile.
    if (side.session && side.session->run() && side.selection != origin) {
        const profile::Ticks start = std::max<profile::Ticks>(from, 0);
        side.selection->setTimeRange(
            static_cast<std::uint64_t>(start),
            static_cast<std::uint64_t>(start + std::max<profile::Ticks>(to - from, 1)));
    }
    if (side.document->run() && side.document != origin)
        side.document->setVisibleRange(from, to);
}

} // namespace xps::ui
