#pragma once
// What the explorer shows for an imported profile: the timeline on top; under it the summary with the
// findings, the per-operation table or the selected slice's dependency graph (tabs), and its details.

#include <QWidget>

class QTabWidget;

namespace xps::ui {

class ProfileDocument;
class ProfileTimelineView;
class ProfileSummaryPanel;
class ProfileOpsPanel;
class ProfileDetailsPanel;
class ProfileGraphView;

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
    // Shows the dependency graph's tab instead of the operations table.
    void showGraph();

private:
    ProfileTimelineView* m_timeline;
    ProfileSummaryPanel* m_summary;
    ProfileOpsPanel* m_ops;
    ProfileDetailsPanel* m_details;
    ProfileGraphView* m_graph;
    QTabWidget* m_tabs;
};

} // namespace xps::ui
