#include "views/recorded_timing_view.h"

#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "views/event_text.h"
#include "views/recorded_timing_model.h"
#include "widgets/column_fitter.h"
#include "widgets/wrapping_label.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace xps::ui {
namespace {

// The signed error as a bar from a centre line: right and orange where the replay is slower than the chip,
// left and blue where it is faster, scaled to the largest error in the table.
class ErrorBarDelegate : public QStyledItemDelegate
{
public:
    ErrorBarDelegate(const RecordedTimingModel* model, QObject* parent)
        : QStyledItemDelegate(parent), m_model(model)
    {
    }

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::paint(painter, option, index);
        const QRectF area = QRectF(option.rect).adjusted(6, 4, -6, -4);
        const double centre = area.center().x();
        painter->save();
        painter->setPen(QPen(Theme::instance().grid(), 1));
        painter->drawLine(QPointF(centre, option.rect.top()), QPointF(centre, option.rect.bottom()));
        const QVariant error = index.data(RecordedTimingModel::SignedErrorRole);
        const double max = m_model->maxAbsErrorPercent();
        if (error.isValid() && max > 0) {
            const double e = error.toDouble();
            const double w = std::max(1.0, area.width() / 2 * std::abs(e) / max);
            painter->setPen(Qt::NoPen);
            painter->setBrush(Theme::instance().residualColor(e > 0));
            painter->drawRect(e > 0 ? QRectF(centre, area.top(), w, area.height())
                                    : QRectF(centre - w, area.top(), w, area.height()));
        }
        painter->restore();
    }

private:
    const RecordedTimingModel* m_model;
};

} // namespace

RecordedTimingView::RecordedTimingView(ReplaySession* session, SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_session(session), m_selection(selection), m_header(new QLabel(this)),
      m_table(new QTableView(this)), m_model(new RecordedTimingModel(this)),
      m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("recorded"));
    wrapToAnyWidth(m_header);
    m_header->setTextFormat(Qt::PlainText);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RecordedTimingModel::SortRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    // Worst first, as the report lists them: where the model is least to be trusted.
    m_table->sortByColumn(RecordedTimingModel::Error, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setItemDelegateForColumn(RecordedTimingModel::ErrorBar, new ErrorBarDelegate(m_model, this));
    // The names as wide as they are; the bars take the rest of the width.
    auto* fitter = new ColumnFitter(m_table, RecordedTimingModel::ErrorBar, 320);
    fitter->setMinimumWidth(RecordedTimingModel::ErrorBar, 160);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 2);
    layout->addWidget(m_header);
    layout->addWidget(m_table, 1);

    connect(m_table, &QTableView::clicked, this, &RecordedTimingView::onRowClicked);
    connect(m_table, &QTableView::activated, this, &RecordedTimingView::onRowClicked);
    connect(session, &ReplaySession::opened, this, &RecordedTimingView::onOpened);
    connect(session, &ReplaySession::analysesReady, this, &RecordedTimingView::showResiduals);
    connect(session, &ReplaySession::analysesCancelled, this,
            [this] { m_header->setText(ReplaySession::analysesCancelledText()); });
    // The error column's colours are the theme's.
    connect(&Theme::instance(), &Theme::changed, m_table->viewport(), qOverload<>(&QWidget::update));
    onOpened();
}

QString RecordedTimingView::headline() const
{
    return m_header->text();
}

void RecordedTimingView::onOpened()
{
    m_model->setResiduals({}, {});
    const Run* run = m_session->run();
    const bool had = m_hasRecorded;
    m_hasRecorded = run && run->trace->recorded &&
                    (!run->trace->recorded->regions.empty() || !run->trace->recorded->samples.empty());
    if (!run)
        m_header->setText(tr("No trace is open."));
    else if (!m_hasRecorded)
        m_header->setText(tr("This trace carries no recorded hardware timing. A trace whose "
                             "recorded.regions hold durations measured on the chip is compared with its "
                             "replay here, region by region (docs/trace-format.md)."));
    else
        m_header->setText(tr("Comparing the replay with the timing recorded on the chip once it has run…"));
    if (had != m_hasRecorded || run)
        emit availabilityChanged(m_hasRecorded);
}

void RecordedTimingView::showResiduals()
{
    const Run* run = m_session->run();
    if (!run || !m_hasRecorded)
        return;
    const analysis::Residuals& residuals = run->residuals;
    m_model->setResiduals(residuals, run->trace->machine);
    QStringList lines;
    if (!residuals.regions.empty())
        lines << QString::fromStdString(
                     analysis::describeRegionErrors(residuals, analysis::regionErrorStats(residuals))) +
                     QLatin1Char('.');
    if (const analysis::SampleErrorStats samples = analysis::sampleErrorStats(residuals); samples.recorded)
        lines << tr("Sampled pcs: %1 of %2 reached, mean |replayed - recorded| %3 cycles (%4).")
                     .arg(samples.matched)
                     .arg(samples.recorded)
                     .arg(cyclesText(static_cast<std::uint64_t>(samples.meanAbsCycles + 0.5)),
                          timeText(static_cast<std::uint64_t>(samples.meanAbsCycles + 0.5),
                                   run->trace->machine));
    if (!residuals.regions.empty())
        lines << tr("Error: positive where the replay is slower than the chip. Click a row to see it.");
    m_header->setText(lines.join(QLatin1Char('\n')));
    m_table->setVisible(!residuals.regions.empty());
}

void RecordedTimingView::onRowClicked(const QModelIndex& index)
{
    if (!index.isValid())
        return;
    const analysis::RegionResidual& r = m_model->residual(m_proxy->mapToSource(index).row());
    if (!r.replayed)
        return; // never reached: there is nothing of it to show
    // The instance with a margin of a tenth of its length each side, so its edges are visible.
    const std::uint64_t length = std::max<std::uint64_t>(*r.replayed, 1);
    const std::uint64_t margin = std::max<std::uint64_t>(length / 10, 1);
    const std::uint64_t from = r.replayedEnter > margin ? r.replayedEnter - margin : 0;
    m_selection->setTimeRange(from, r.replayedEnter + length + margin);
    Selection s;
    s.origin = tr("recorded timing: %1 #%2").arg(QString::fromStdString(r.region)).arg(r.instance);
    m_selection->select(std::move(s));
}

} // namespace xps::ui
