#pragma once
// What the explorer shows for an imported profile: the timeline on top; under it the summary with the
// findings, the per-operation table and the selected slice's details, side by side.

#include <QWidget>

namespace xps::ui {

class ProfileDocument;
class ProfileTimelineView;
class ProfileSummaryPanel;
class ProfileOpsPanel;
class ProfileDetailsPanel;

class ProfileExplorer : public QWidget
{
    Q_OBJECT
public:
    explicit ProfileExplorer(ProfileDocument* document, QWidget* parent = nullptr);

    ProfileTimelineView* timeline() const { return m_timeline; }
    ProfileSummaryPanel* summary() const { return m_summary; }
    ProfileOpsPanel* operations() const { return m_ops; }
    ProfileDetailsPanel* details() const { return m_details; }

private:
    ProfileTimelineView* m_timeline;
    ProfileSummaryPanel* m_summary;
    ProfileOpsPanel* m_ops;
    ProfileDetailsPanel* m_details;
};

} // namespace xps::ui
