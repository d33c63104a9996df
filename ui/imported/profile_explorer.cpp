#include "imported/profile_explorer.h"

#include "imported/profile_panels.h"
#include "imported/profile_timeline_view.h"

#include <QSplitter>
#include <QVBoxLayout>

namespace xps::ui {

ProfileExplorer::ProfileExplorer(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), m_timeline(new ProfileTimelineView(document, this)),
      m_summary(new ProfileSummaryPanel(document, this)), m_ops(new ProfileOpsPanel(document, this)),
      m_details(new ProfileDetailsPanel(document, this))
{
    setObjectName(QStringLiteral("profileExplorer"));
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_summary);
    bottom->addWidget(m_ops);
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

} // namespace xps::ui
