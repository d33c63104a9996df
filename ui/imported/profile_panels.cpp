#include "imported/profile_panels.h"
#include "selection/selection_model.h"

#include "imported/profile_document.h"
#include "imported/profile_ops_model.h"
#include "imported/profile_text.h"
#include "profile/profile_report.h"
#include "profile/utilization_text.h"

#include <cmath>

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace xps::ui {

namespace {

QString percentOf(profile::Ticks part, profile::Ticks whole)
{
    return QString::fromStdString(profile::formatPercent(part, whole));
}

} // namespace

ProfileSummaryPanel::ProfileSummaryPanel(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_breakdown(new QLabel(this)),
      m_repairsToggle(new QToolButton(this)), m_repairs(new QTableWidget(0, 3, this)),
      m_caption(new QLabel(this)), m_findings(new QTreeWidget(this)), m_detail(new QLabel(this))
{
    setObjectName(QStringLiteral("profileSummary"));
    m_breakdown->setWordWrap(true);
    m_breakdown->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // What the import repaired, folded away: it qualifies the numbers, it is not what the profile says.
    m_repairsToggle->setObjectName(QStringLiteral("importRepairsToggle"));
    m_repairsToggle->setCheckable(true);
    m_repairsToggle->setAutoRaise(true);
    m_repairsToggle->setArrowType(Qt::RightArrow);
    m_repairsToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_repairsToggle->setToolTip(tr("What the import skipped or changed to read this file"));
    m_repairs->setObjectName(QStringLiteral("importRepairs"));
    m_repairs->setHorizontalHeaderLabels({tr("Repair"), tr("Events"), tr("What, and where first")});
    m_repairs->verticalHeader()->hide();
    m_repairs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_repairs->setWordWrap(true);
    m_repairs->setShowGrid(false);
    m_repairs->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_repairs->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_repairs->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_repairs->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_repairs->horizontalHeader()->setHighlightSections(false);
    m_repairs->hide();
    m_repairsToggle->hide();
    // A wrapped row's height follows its column's width: the panel is narrow, the words long.
    connect(m_repairs->horizontalHeader(), &QHeaderView::sectionResized, m_repairs,
            [this] { fitRepairRows(); });
    connect(m_repairsToggle, &QToolButton::toggled, this, [this](bool open) {
        m_repairsToggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        m_repairs->setVisible(open);
    });
    m_findings->setHeaderLabels({tr("Finding"), tr("Up to")});
    m_findings->setRootIsDecorated(false);
    m_findings->setWordWrap(true);
    // Whatever height is left, a few rows at least: its preferred 192 px would make the panel scroll at
    // 768 px once the import repairs are open (the scroll area sizes the panel by preferred heights).
    m_findings->setMinimumHeight(fontMetrics().height() * 5);
    m_findings->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
    m_findings->header()->setStretchLastSection(false);
    m_findings->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_findings->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_breakdown);
    layout->addWidget(m_repairsToggle);
    layout->addWidget(m_repairs);
    m_caption->setWordWrap(true);
    layout->addWidget(m_caption);
    layout->addWidget(m_findings, 1);
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setObjectName(QStringLiteral("findingDetail"));
    layout->addWidget(m_detail);
    connect(m_document, &ProfileDocument::loaded, this, &ProfileSummaryPanel::refresh);
    connect(m_findings, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        const ProfileRun* run = m_document->run();
        if (!item || !run)
            return;
        const QVariant index = item->data(0, Qt::UserRole);
        if (!index.isValid())
            return;
        const auto& f = run->analysis.findings[static_cast<std::size_t>(index.toInt())];
        m_detail->setText(QString::fromStdString(f.detail));
        const profile::Ticks margin = std::max<profile::Ticks>((f.to - f.from) / 10, 1000);
        m_document->setVisibleRange(f.from - margin, f.to + margin);
        if (!f.slices.empty())
            m_document->selectSlice(f.slices.front(), QStringLiteral("findings"));
    });
}

QString ProfileSummaryPanel::text() const
{
    return m_breakdown->text();
}

QString ProfileSummaryPanel::findingText() const
{
    return m_detail->text();
}

void ProfileSummaryPanel::refresh()
{
    m_findings->clear();
    m_detail->setText(tr("Click a finding to see its numbers and where it happened."));
    fillRepairs();
    const ProfileRun* run = m_document->run();
    if (!run) {
        m_breakdown->clear();
        return;
    }
    QString caption = QString::fromStdString(profile::findingsCaption(run->profile));
    caption[0] = caption[0].toUpper();
    m_caption->setText(caption);
    const profile::ProfileAnalysis& a = run->analysis;
    QString html = QStringLiteral("<b>%1</b> — %2, %3 slices<br>")
                       .arg(QString::fromStdString(run->profile.format).toHtmlEscaped(),
                            formatDuration(a.timebase, a.span))
                       .arg(run->profile.slices.size());
    for (const profile::DeviceBreakdown& d : a.devices) {
        if (d.busy == 0)
            continue; // all of them named in one line below
        // Only what the device did: a device without copies gets no "memcpy 0 ns".
        QStringList parts{tr("busy %1").arg(percentOf(d.busy, d.span))};
        if (d.kernels.process.valid()) {
            QString kernels =
                tr("kernels %1")
                    .arg(QString::fromStdString(profile::kernelUtilizationText(run->profile, d.kernels)));
            if (d.kernels.smEfficiency)
                kernels += tr(", SM efficiency %1")
                               .arg(QString::fromStdString(text::percentText(100 * *d.kernels.smEfficiency)));
            if (d.kernels.occupancyPct)
                kernels += tr(", occupancy %1")
                               .arg(QString::fromStdString(text::percentText(*d.kernels.occupancyPct)));
            parts << kernels;
        }
        if (d.compute > 0)
            parts << tr("compute %1").arg(formatDuration(a.timebase, d.compute));
        if (d.communication > 0)
            parts << tr("communication %1 (exposed %2)")
                         .arg(formatDuration(a.timebase, d.communication),
                              formatDuration(a.timebase, d.communicationExposed()));
        if (d.memcpy > 0)
            parts << tr("memcpy %1 (exposed %2)")
                         .arg(formatDuration(a.timebase, d.memcpy),
                              formatDuration(a.timebase, d.memcpyExposed()));
        if (d.memset > 0)
            parts << tr("memset %1").arg(formatDuration(a.timebase, d.memset));
        parts << tr("idle %1 (%2 between its first and last work)")
                     .arg(formatDuration(a.timebase, d.idle()), formatDuration(a.timebase, d.activeIdle()));
        html += QStringLiteral("<b>%1</b>: %2<br>")
                    .arg(QString::fromStdString(d.name).toHtmlEscaped(), parts.join(QStringLiteral(" · ")));
    }
    if (const std::string idle = profile::idleDevicesLine(a); !idle.empty())
        html += QString::fromStdString(idle).toHtmlEscaped() + QStringLiteral("<br>");
    if (a.launch.launches > 0)
        html += tr("Launches: %1, delay median %2, p95 %3<br>")
                    .arg(a.launch.launches)
                    .arg(formatDuration(a.timebase, a.launch.p50Delay),
                         formatDuration(a.timebase, a.launch.p95Delay));
    if (const profile::StepBreakdown& b = a.stepTimes; b.steps.annotated && !b.perStep.empty()) {
        // The TensorBoard plugin's overview in one line: the average step by what ran.
        QStringList roles;
        for (std::size_t k = 0; k < profile::kStepRoleCount; ++k)
            if (b.present[k] && b.averageTotal > 0)
                roles << QStringLiteral("%1 %2").arg(
                    QString::fromUtf8(profile::stepRoleName(static_cast<profile::StepRole>(k))),
                    QString::fromStdString(text::percentText(100 * b.averageRole[k] / b.averageTotal)));
        html +=
            tr("Steps %1: average %2 (%3)<br>")
                .arg(QString::fromStdString(profile::stepsLabel(b)).toHtmlEscaped(),
                     formatDuration(a.timebase, static_cast<profile::Ticks>(std::llround(b.averageTotal))),
                     roles.join(QStringLiteral(", ")));
    }
    if (a.criticalPath.length > 0) {
        QString parts;
        for (int k = 0; k < profile::kPathSegmentKindCount; ++k) {
            const profile::Ticks t = a.criticalPath.byKind[static_cast<std::size_t>(k)];
            if (t > 0)
                parts += QStringLiteral(" %1 %2").arg(
                    QString::fromUtf8(
                        profile::pathSegmentName(static_cast<profile::PathSegmentKind>(k)).data()),
                    percentOf(t, a.criticalPath.length));
        }
        html += tr("Critical path %1:%2<br>").arg(formatDuration(a.timebase, a.criticalPath.length), parts);
    }
    m_breakdown->setText(html);
    for (std::size_t i = 0; i < a.findings.size(); ++i) {
        const profile::ProfileFinding& f = a.findings[i];
        auto* item = new QTreeWidgetItem(
            m_findings, {QString::fromStdString(f.title), formatDuration(a.timebase, f.estimatedSavings)});
        item->setToolTip(0, QString::fromStdString(f.detail));
        item->setData(0, Qt::UserRole, static_cast<int>(i));
    }
    if (a.findings.empty())
        new QTreeWidgetItem(m_findings, {tr("No finding: nothing in this profile stands out")});
}

void ProfileSummaryPanel::fillRepairs()
{
    const ProfileRun* run = m_document->run();
    const std::vector<profile::ImportRepair> none;
    const auto& repairs = run ? run->profile.repairs : none;
    m_repairs->setRowCount(static_cast<int>(repairs.size()));
    std::uint64_t events = 0;
    for (std::size_t i = 0; i < repairs.size(); ++i) {
        const profile::ImportRepair& r = repairs[i];
        events += r.count;
        const int row = static_cast<int>(i);
        m_repairs->setItem(row, 0,
                           new QTableWidgetItem(QString::fromUtf8(profile::repairKindName(r.kind).data())));
        auto* count = new QTableWidgetItem(r.count > 0 ? QLocale().toString(static_cast<qulonglong>(r.count))
                                                       : QStringLiteral("—"));
        count->setTextAlignment(Qt::AlignRight | Qt::AlignTop);
        m_repairs->setItem(row, 1, count);
        // The panel is narrow: what and where wrap in one column rather than scroll out of sight.
        QString what = QString::fromStdString(r.what);
        if (!r.firstAt.empty())
            what += tr("; first at %1").arg(QString::fromStdString(r.firstAt));
        auto* text = new QTableWidgetItem(what);
        text->setToolTip(QString::fromStdString(r.text()));
        m_repairs->setItem(row, 2, text);
        m_repairs->item(row, 0)->setTextAlignment(Qt::AlignLeft | Qt::AlignTop);
        text->setTextAlignment(Qt::AlignLeft | Qt::AlignTop);
    }
    fitRepairRows();
    // "2 import repairs (3 events)": what the numbers above stand on, before the list is opened.
    QString label = repairs.size() == 1
                        ? tr("1 import repair")
                        : tr("%1 import repairs").arg(static_cast<qulonglong>(repairs.size()));
    if (events > 0)
        label += events == 1 ? tr(" (1 event)")
                             : tr(" (%1 events)").arg(QLocale().toString(static_cast<qulonglong>(events)));
    m_repairsToggle->setText(label);
    m_repairsToggle->setVisible(!repairs.empty());
    m_repairs->setVisible(!repairs.empty() && m_repairsToggle->isChecked());
}

void ProfileSummaryPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitWrappedText();
}

void ProfileSummaryPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) // presentation mode: more lines for the same width
        QTimer::singleShot(0, this, [this] { fitWrappedText(); });
}

void ProfileSummaryPanel::fitWrappedText()
{
    // The scroll area sizes the panel by preferred heights, which a wrapped label computes for its own
    // preferred width: in a narrow pane (1366x768, presentation mode) the breakdown's last line was cut and
    // the findings kept two rows. Each label is as tall as its words at the width it has.
    for (QLabel* label : {m_breakdown, m_caption, m_detail}) {
        const int height = label->heightForWidth(label->width());
        if (height > 0 && label->minimumHeight() != height)
            label->setMinimumHeight(height);
    }
    m_findings->setMinimumHeight(fontMetrics().height() * 5);
}

void ProfileSummaryPanel::fitRepairRows()
{
    // Rows as tall as their wrapped words; the list as tall as its rows, up to a dozen lines (then it
    // scrolls), so a few repairs never hide behind a scroll bar nor leave the findings without room.
    m_repairs->resizeRowsToContents();
    int height = m_repairs->horizontalHeader()->height() + 2 * m_repairs->frameWidth();
    for (int r = 0; r < m_repairs->rowCount(); ++r)
        height += m_repairs->rowHeight(r);
    m_repairs->setFixedHeight(std::min(height, fontMetrics().height() * 12));
}

ProfileOpsPanel::ProfileOpsPanel(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_model(new ProfileOpsModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_filter(new QLineEdit(this)), m_table(new QTableView(this))
{
    setObjectName(QStringLiteral("profileOps"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ProfileOpsModel::SortRole);
    m_proxy->setFilterKeyColumn(ProfileOpsModel::Name);
    m_proxy->setFilterRole(ProfileOpsModel::SearchRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter->setPlaceholderText(tr("Filter operations"));
    m_filter->setClearButtonEnabled(true);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ProfileOpsModel::Total, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(ProfileOpsModel::Name, QHeaderView::Interactive);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle); // kernel names are long templates: keep both ends
    m_table->setToolTip(tr("Double-click: show the longest instance"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_document, &ProfileDocument::loaded, this, [this] {
        const ProfileRun* run = m_document->run();
        m_model->setProfile(run ? &run->profile : nullptr, run ? &run->analysis : nullptr);
        m_table->setColumnHidden(ProfileOpsModel::Device, !m_model->hasDevices());
        for (int c = ProfileOpsModel::Kind; c < ProfileOpsModel::ColumnCount; ++c)
            m_table->resizeColumnToContents(c);
        fitColumns();
    });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const profile::SliceRow slice(
            static_cast<std::uint32_t>(index.data(ProfileOpsModel::LongestSliceRole).toULongLong()));
        m_document->reveal(slice, QStringLiteral("operations"));
    });
}

void ProfileOpsPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitColumns();
}

void ProfileOpsPanel::fitColumns()
{
    int others = 0;
    for (int c = ProfileOpsModel::Kind; c < ProfileOpsModel::ColumnCount; ++c)
        if (!m_table->isColumnHidden(c))
            others += m_table->columnWidth(c);
    const int minimum = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 28;
    m_table->setColumnWidth(ProfileOpsModel::Name, std::max(minimum, m_table->viewport()->width() - others));
}

ProfileDetailsPanel::ProfileDetailsPanel(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_browser(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("profileDetails"));
    m_browser->setOpenLinks(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_browser);
    const auto refresh = [this] {
        const ProfileRun* run = m_document->run();
        const profile::SliceRow s = m_document->selectedSlice();
        if (!run || !s.valid())
            m_browser->setHtml(tr("<p>Click a slice in the timeline to see its arguments and flows.</p>"));
        else
            m_browser->setHtml(sliceDetailsHtml(run->profile, s));
    };
    connect(m_document->selection(), &SelectionModel::selectionChanged, this, refresh);
    connect(m_document, &ProfileDocument::loaded, this, refresh);
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QStringLiteral("slice"))
            m_document->reveal(profile::SliceRow(url.path().toUInt()), QStringLiteral("details"));
    });
    refresh();
}

QString ProfileDetailsPanel::text() const
{
    return m_browser->toPlainText();
}

} // namespace xps::ui
