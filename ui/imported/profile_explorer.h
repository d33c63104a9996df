#pragma once
// What the explorer shows for an imported profile (or a replay seen as one): the timeline on top; under it
// the summary with the findings, the per-operation table, the selected slice's dependency graph or the
// transfers with their bandwidth or the notes (tabs), and the selected slice's details. The timeline's
// context menu adds a note on the slice under the pointer or on the visible range.

#include <QWidget>

class QTabWidget;

namespace xps::ui {

class ProfileDocument;
class ProfileTimelineView;
class ProfileSummaryPanel;
class ProfileOpsPanel;
class ProfileDetailsPanel;
class DependencyGraphView;
class ProfileTransfersView;
class ProfileNotesView;
class SessionNotes;

class ProfileExplorer : public QWidget
{
    Q_OBJECT
public:
    // `notes`: the document's (session/session_notes.h), drawn over the timeline and listed in the notes tab.
    ProfileExplorer(ProfileDocument* document, SessionNotes* notes, QWidget* parent = nullptr);

    ProfileTimelineView* timeline() const { return m_timeline; }
    ProfileSummaryPanel* summary() const { return m_summary; }
    ProfileOpsPanel* operations() const { return m_ops; }
    ProfileDetailsPanel* details() const { return m_details; }
    DependencyGraphView* graph() const { return m_graph; }
    ProfileTransfersView* transfers() const { return m_transfers; }
    ProfileNotesView* notes() const { return m_notes; }
    // Shows the dependency graph's (or the transfers') tab instead of the operations table.
    void showGraph();
    void showTransfers();
    void showNotes();

private:
    ProfileTimelineView* m_timeline;
    ProfileSummaryPanel* m_summary;
    ProfileOpsPanel* m_ops;
    ProfileDetailsPanel* m_details;
    DependencyGraphView* m_graph;
    ProfileTransfersView* m_transfers;
    ProfileNotesView* m_notes;
    QTabWidget* m_tabs;

    void showTimelineMenu(const QPoint& pos);
};

} // namespace xps::ui
