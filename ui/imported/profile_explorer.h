#pragma once
// What the explorer shows for an imported profile (or a replay seen as one): the timeline on top; under it
// the summary with the findings, the per-operation table, the selected slice's dependency graph or the
// transfers with their bandwidth (tabs), and the selected slice's details.

#include <QWidget>

class QTabWidget;

namespace xps::ui {

class ProfileDocument;
class ProfileTimelineView;
class ProfileSummaryPanel;
class ProfileOpsPanel;
class ProfileDetailsPanel;
class ProfileGraphView;
class ProfileTransfersView;

class ProfileExplorer : public QWidget
{
    Q_OBJECT
public:
    explicit ProfileExplorer(ProfileDocument* document, QWidget* parent = nullptr);

    ProfileTimelineView* timeline() const { return m_timeline; }
    ProfileSummaryPanel* summary() const { return m_summary; }
    ProfileOpsPanel* operations() const { return m_ops; }
    ProfileDetailsPanel* details() const { return m_details; }
    ProfileGraphView* graph() const { return m_graph; }
    ProfileTransfersView* transfers() const { return m_transfers; }
    // Shows the dependency graph's (or the transfers') tab instead of the operations table.
    void showGraph();
    void showTransfers();

private:
    ProfileTimelineView* m_timeline;
    ProfileSummaryPanel* m_summary;
    ProfileOpsPanel* m_ops;
    ProfileDetailsPanel* m_details;
    ProfileGraphView* m_graph;
    ProfileTransfersView* m_transfers;
    QTabWidget* m_tabs;
};

} // namespace xps::ui
