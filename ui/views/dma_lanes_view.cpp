#include "views/dma_lanes_view.h"

#include "report/palette.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "timeline/cycle_ticks.h"
#include "views/event_text.h"
#include "views/timeline_view.h"
#include "widgets/lanes_over_plot.h"
#include "widgets/qcustomplot.h"

#include <QLabel>
#include <QTextDocument>

namespace xps::ui {

DmaLanesView::DmaLanesView(ReplaySession* session, SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_session(session), m_selection(selection),
      m_lanes(new TimelineView(session, selection, this,
                               [](const analysis::LaneInfo& lane) {
                                   return lane.kind == analysis::LaneKind::DmaEngine ||
                                          lane.kind == analysis::LaneKind::IciLink;
                               })),
      m_bandwidth(new QCustomPlot(this)), m_info(new QLabel(this))
{
    setObjectName(QStringLiteral("dma"));
    m_lanes->setObjectName(QStringLiteral("dmaTimeline"));
    setUpBandwidthPlot(m_bandwidth, tr("HBM GB/s"), tr("cycles"));
    m_bandwidth->xAxis->setTicker(QSharedPointer<CycleTicker>::create()); // as the lanes label cycles
    m_info->setText(
        tr("<i>Click a transfer to see the pc that issued it and the waits that depended on it.</i>"));
    layOutLanesOverPlot(this, m_lanes, m_bandwidth, m_info, 3, 2);

    connect(session, &ReplaySession::opened, this, [this] {
        m_bandwidth->clearGraphs();
        m_bandwidth->replot();
    });
    connect(session, &ReplaySession::analysesReady, this, &DmaLanesView::showBandwidth);
    connect(selection, &SelectionModel::selectionChanged, this, &DmaLanesView::showSelection);
    connect(selection, &SelectionModel::timeRangeChanged, this, [this](quint64 from, quint64 to) {
        m_bandwidth->xAxis->setRange(static_cast<double>(from), static_cast<double>(to));
        m_bandwidth->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(m_lanes, &TimelineView::rowsChanged, this, [this] {
        alignWithLanes();
        m_bandwidth->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(&Theme::instance(), &Theme::changed, this, &DmaLanesView::applyTheme);
    applyTheme();
    if (session->analysesAvailable()) // made for a run already analysed (the comparison window's baseline)
        showBandwidth();
}

void DmaLanesView::applyTheme()
{
    Theme::instance().stylePlot(m_bandwidth);
    m_bandwidth->replot();
}

void DmaLanesView::showBandwidth()
{
    const Run* run = m_session->run();
    m_bandwidth->clearGraphs();
    if (!run)
        return;
    const analysis::DmaAnalysis& dma = run->analyses.dma;
    const double toGbs = run->trace->machine.clockMhz / 1000.0 /
                         static_cast<double>(std::max<std::uint64_t>(1, dma.binCycles));
    for (std::size_t chip = 0; chip < dma.hbmBytesPerBin.size(); ++chip) {
        QCPGraph* g = m_bandwidth->addGraph();
        g->setName(tr("chip %1").arg(chip));
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setPen(QPen(QColor::fromRgb(palette::seriesColour(chip)), 1.5));
        const std::vector<double>& bins = dma.hbmBytesPerBin[chip];
        QVector<double> x, y;
        x.reserve(static_cast<qsizetype>(bins.size()));
        y.reserve(static_cast<qsizetype>(bins.size()));
        for (std::size_t b = 0; b < bins.size(); ++b) {
            x.push_back(static_cast<double>(b * dma.binCycles));
            y.push_back(bins[b] * toGbs);
        }
        g->setData(x, y, true);
    }
    m_bandwidth->legend->setVisible(dma.hbmBytesPerBin.size() > 1);
    alignWithLanes();
    m_bandwidth->yAxis->setRange(0, run->trace->machine.hbmBandwidthGBs * 1.1);
    m_bandwidth->xAxis->setRange(static_cast<double>(m_selection->from()),
                                 static_cast<double>(m_selection->to()));
    m_bandwidth->replot();
}

void DmaLanesView::alignWithLanes()
{
    // The plot's cycle axis under the lanes' own: the same left and right edges.
    const int margin = m_lanes->canvas()->mapTo(m_lanes, QPoint(0, 0)).x();
    m_bandwidth->axisRect()->setAutoMargins(QCP::msTop | QCP::msBottom);
    m_bandwidth->axisRect()->setMargins(
        QMargins(margin + m_lanes->canvas()->gutter(), 0, margin + m_lanes->canvas()->scrollBarWidth(), 0));
}

void DmaLanesView::showSelection()
{
    const Run* run = m_session->run();
    const Selection& s = m_selection->selection();
    events::DmaRecord d;
    if (!run || s.dmas.size() != 1 || !run->lanes->dma(s.dmas.front(), d)) {
        // Nothing of this view's is selected (a wait another chip or a core ended, a unit's block): say
        // so instead of keeping the last DMA's details beside a selection that is not it.
        m_info->setText(s.pcs.empty()
                            ? tr("<i>Click a transfer to see the pc that issued it and the waits that "
                                 "depended on it.</i>")
                            : tr("<i>The selection (chip %1 pc %2) is not a transfer and no DMA ended "
                                 "it. Click a transfer to see its details.</i>")
                                  .arg(s.pcs.front().first.value)
                                  .arg(s.pcs.front().second));
        return;
    }
    QString waits;
    int count = 0;
    for (const events::SyncWaitRecord& w : run->store.syncWaits())
        if (w.satisfiedBy == static_cast<std::int64_t>(d.id)) {
            if (count++ < 8)
                waits += tr("chip %1 pc %2 waited %3 cycles; ")
                             .arg(w.chip.value)
                             .arg(w.pc)
                             .arg(cyclesText(w.end - w.start));
        }
    if (count > 8)
        waits += tr("and %1 more").arg(count - 8);
    if (waits.isEmpty())
        waits = tr("none (nothing waited on it, or it was hidden behind other work)");
    m_info->setText(tr("<b>DMA #%1</b> %2, %3 – %4 (%5 queued): issued by chip %6 pc %7 "
                       "<tt>%8</tt><br><b>waits it ended:</b> %9")
                        .arg(d.id)
                        .arg(dmaSummary(*run->trace, d).toHtmlEscaped(), cyclesText(d.start),
                             cyclesText(d.end), cyclesText(d.start - d.issue))
                        .arg(d.chip.value)
                        .arg(d.pc)
                        .arg(bundleText(*run->trace, d.chip, d.pc).toHtmlEscaped(), waits));
}

QString DmaLanesView::details() const
{
    QTextDocument doc;
    doc.setHtml(m_info->text());
    return doc.toPlainText();
}

} // namespace xps::ui
