#include "imported/profile_explorer.h"

#include "imported/profile_document.h"
#include "imported/profile_graph_source.h"
#include "imported/profile_notes_view.h"
#include "imported/profile_panels.h"
#include "imported/profile_timeline_view.h"
#include "imported/profile_transfers_view.h"
#include "views/dependency_graph_view.h"

#include <QMenu>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

namespace xps::ui {

ProfileExplorer::ProfileExplorer(ProfileDocument* document, SessionNotes* notes, QWidget* parent)
    : QWidget(parent), m_timeline(new ProfileTimelineView(document, this)),
      m_summary(new ProfileSummaryPanel(document, this)), m_ops(new ProfileOpsPanel(document, this)),
      m_details(new ProfileDetailsPanel(document, this)),
      m_graph(new DependencyGraphView(new ProfileGraphSource(document), this)),
      m_transfers(new ProfileTransfersView(document, this)),
      m_notes(new ProfileNotesView(document, notes, this)), m_tabs(new QTabWidget(this))
{
    setObjectName(QStringLiteral("profileExplorer"));
    m_graph->setObjectName(QStringLiteral("profileGraph"));
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    // Scrolls rather than sets the window's minimum: four ranks' breakdown (and sixteen GPUs' more so) made
    // the window 826 px tall, its status bar below a 768 px screen.
    auto* summary = new QScrollArea(this);
    summary->setWidgetResizable(true);
    summary->setFrameShape(QFrame::NoFrame);
    summary->setWidget(m_summary);
    bottom->addWidget(summary);
    // The graph shares the middle with the operations table: the widest pane, and the details of the slice
    // clicked in it stay in view beside it.
    m_tabs->setObjectName(QStringLiteral("profileMiddleTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_ops, tr("Operations"));
    m_tabs->addTab(m_graph, tr("Dependencies"));
    m_tabs->setTabToolTip(1, tr("What the selected slice depended on and what depended on it (its flows)"));
    m_tabs->addTab(m_transfers, tr("Transfers"));
    m_tabs->setTabToolTip(
        2, tr("Copies, memsets and DMAs by stream or engine, and the bandwidth they achieved"));
    m_tabs->addTab(m_notes, tr("Notes"));
    m_tabs->setTabToolTip(
        3, tr("Your notes on this profile, pinned to slices or time ranges; saved with the session"));
    m_timeline->setNotes(notes);
    m_timeline->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_timeline, &QWidget::customContextMenuRequested, this, &ProfileExplorer::showTimelineMenu);
    bottom->addWidget(m_tabs);
    bottom->addWidget(m_details);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 5);
    bottom->setStretchFactor(2, 3);
    bottom->setSizes({450, 750, 400});
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_timeline);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
}

void ProfileExplorer::showGraph()
{
    m_tabs->setCurrentWidget(m_graph);
}

void ProfileExplorer::showNotes()
{
    m_tabs->setCurrentWidget(m_notes);
}

void ProfileExplorer::showTimelineMenu(const QPoint& pos)
{
    const ProfileRun* run = m_timeline->document()->run();
    if (!run)
        return; // nothing shown yet (a replay seen as a profile: the replay's notes, in its cycles)
    QMenu menu(this);
    const profile::SliceRow slice = m_timeline->sliceAt(pos);
    if (slice.valid()) {
        const QString name = QString::fromStdString(run->profile.nameOf(run->profile.slice(slice)));
        const QString shown =
            fontMetrics().elidedText(name, Qt::ElideMiddle, 40 * fontMetrics().averageCharWidth());
        menu.addAction(tr("Add note on “%1”…").arg(shown), this, [this, slice] {
            m_timeline->document()->selectSlice(slice, QStringLiteral("timeline"));
            showNotes();
            m_notes->addNoteOnSlice(slice);
        });
    }
    menu.addAction(tr("Add note on the visible range…"), this, [this] {
        showNotes();
        m_notes->addNoteOnVisibleRange();
    });
    menu.exec(m_timeline->mapToGlobal(pos));
}

void ProfileExplorer::showTransfers()
{
    m_tabs->setCurrentWidget(m_transfers);
}

} // namespace xps::ui
