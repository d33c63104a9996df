#include "views/summary_view.h"

#include "session/replay_session.h"
#include "theme/theme.h"
#include "util/text.h"
#include "views/event_text.h"
#include "widgets/axis_ticks.h"
#include "widgets/qcustomplot.h"

#include <QApplication>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QTextDocument>
#include <QVBoxLayout>

namespace xps::ui {
namespace {

QString percent(double fraction)
{
    return QStringLiteral("%1%").arg(100.0 * fraction, 0, 'f', 1);
}

// A sortable cell: shows `text`, sorts by `value`.
class NumberItem : public QTableWidgetItem
{
public:
    NumberItem(const QString& text, double value) : QTableWidgetItem(text), m_value(value)
    {
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        if (const auto* n = dynamic_cast<const NumberItem*>(&other))
            return m_value < n->m_value;
        return QTableWidgetItem::operator<(other);
    }

private:
    double m_value;
};

QTableWidget* makeTable(const QStringList& headers, QWidget* parent)
{
    auto* t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

} // namespace

SummaryView::SummaryView(ReplaySession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_header(new QLabel(this)), m_stalls(new QCustomPlot(this)),
      m_chips(makeTable({tr("chip"), tr("bundles"), tr("active cycles"), tr("MXU"), tr("HBM BW"), tr("stall cycles")}, this)),
      m_regions(makeTable({tr("region"), tr("level"), tr("instances"), tr("cycles"), tr("share"), tr("MXU"),
                           tr("stall cycles"), tr("DMA bytes")},
                          this))
{
    setObjectName(QStringLiteral("summary"));
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setMargin(6);
    // Counts that fit the chart's width, worked out once its axis rect has one.
    connect(m_stalls, &QCustomPlot::afterLayout, this, [this] { spaceTicksByLabel(m_stalls->xAxis); });
    m_stalls->plotLayout()->insertRow(0);
    m_stalls->plotLayout()->addElement(0, 0, new QCPTextElement(m_stalls, tr("stall cycles by reason (all chips)")));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_stalls);
    split->addWidget(m_chips);
    split->addWidget(m_regions);
    split->setStretchFactor(2, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_header);
    layout->addWidget(split, 1);

    connect(session, &ReplaySession::opened, this, &SummaryView::showProgress);
    connect(session, &ReplaySession::progress, this, &SummaryView::showProgress);
    connect(session, &ReplaySession::analysesReady, this, &SummaryView::showAnalyses);
    connect(session, &ReplaySession::analysesCancelled, this, &SummaryView::showProgress);
    connect(&Theme::instance(), &Theme::changed, this, &SummaryView::applyTheme);
    applyTheme();
}

QString SummaryView::headline() const
{
    QTextDocument doc;
    doc.setHtml(m_header->text());
    return doc.toPlainText();
}

void SummaryView::applyTheme()
{
    Theme::instance().stylePlot(m_stalls);
    // A line and a third per reason, plus the title and the axis: at a fixed 170 px the reasons' names
    // overlapped, and more so in presentation mode's larger text.
    const int line = QFontMetrics(QApplication::font()).height();
    m_stalls->setMinimumHeight(line * ((events::kStallReasonCount - 1) * 4 / 3 + 5));
    if (auto* title = qobject_cast<QCPTextElement*>(m_stalls->plotLayout()->element(0, 0)))
        title->setTextColor(Theme::instance().foreground());
    if (m_session->analysesAvailable())
        showAnalyses();
    else
        m_stalls->replot();
}

void SummaryView::showProgress()
{
    const Run* run = m_session->run();
    if (!run || m_session->analysesAvailable())
        return;
    const QString name = QString::fromStdString(run->trace->name).toHtmlEscaped();
    if (m_session->analysesWereCancelled())
        m_header->setText(tr("<h3>%1</h3>Replayed %2 bundles in %3 cycles. %4")
                              .arg(name, cyclesText(run->lanes->bundlesSeen()),
                                   cyclesText(run->result.totalCycles),
                                   ReplaySession::analysesCancelledText().toHtmlEscaped()));
    else
        m_header->setText(
            tr("<h3>%1</h3>Replaying on the GRM: %2 bundles, cycle %3…")
                .arg(name, cyclesText(run->lanes->bundlesSeen()), cyclesText(run->lanes->endCycle())));
    m_chips->setRowCount(0);
    m_regions->setRowCount(0);
    m_stalls->clearPlottables();
    m_stalls->replot();
}

void SummaryView::showAnalyses()
{
    const Run* run = m_session->run();
    if (!run || !m_session->analysesAvailable())
        return;
    const analysis::Analyses& a = run->analyses;
    const analysis::Summary& s = a.summary;
    QString path;
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        if (a.criticalPath.cycles[k])
            path += QStringLiteral("%1 %2 · ").arg(QString::fromUtf8(analysis::pathKindName(static_cast<analysis::PathKind>(k)).data()),
                                                  percent(a.criticalPath.share(static_cast<analysis::PathKind>(k))));
    path.chop(3);
    const bool partial = run->result.status != sim::ReplayResult::Status::Completed;
    m_header->setText(
        tr("<h3>%1%2</h3>"
           "<table cellspacing=6>"
           "<tr><td><b>time</b></td><td>%3 cycles = %4 on %5 chip(s)</td></tr>"
           "<tr><td><b>MXU utilization</b></td><td>%6</td></tr>"
           "<tr><td><b>HBM bandwidth utilization</b></td><td>%7</td></tr>"
           "<tr><td><b>VMEM peak</b></td><td>%8 of %9 (%10 unused)</td></tr>"
           "<tr><td><b>exposed DMA time</b></td><td>%11 cycles; %12 serialized DMA pairs</td></tr>"
           "<tr><td><b>critical path</b></td><td>%13</td></tr></table>")
            .arg(QString::fromStdString(run->trace->name).toHtmlEscaped(),
                 partial ? tr(" (partial replay)") : QString(), cyclesText(s.totalCycles),
                 timeText(s.totalCycles, run->trace->machine))
            .arg(run->trace->chips.size())
            .arg(percent(s.mxuUtilization) + (run->trace->machine.mxuCount > 1
                                                  ? tr(" of %1 MXUs").arg(run->trace->machine.mxuCount)
                                                  : QString()),
                 percent(s.hbmUtilization), bytesText(a.vmem.peakLiveBytes), bytesText(a.vmem.capacity),
                 percent(a.vmem.unusedFraction()), cyclesText(a.dma.exposedCycles))
            .arg(a.dma.serialized.size())
            .arg(path.isEmpty() ? tr("–") : path));

    // Stall chart: one bar per reason, in its colour.
    m_stalls->clearPlottables();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    int row = 0;
    for (int r = events::kStallReasonCount - 1; r >= 1; --r) {
        const auto reason = static_cast<events::StallReason>(r);
        auto* bars = new QCPBars(m_stalls->yAxis, m_stalls->xAxis);
        bars->setWidth(0.7);
        bars->setBrush(Theme::instance().stallColor(reason));
        bars->setPen(Qt::NoPen);
        bars->addData(row, static_cast<double>(s.stallCycles[r]));
        ticker->addTick(row, QString::fromUtf8(events::stallReasonName(reason).data()));
        ++row;
    }
    m_stalls->yAxis->setTicker(ticker);
    m_stalls->yAxis->setRange(-0.6, row - 0.4);
    m_stalls->xAxis->setNumberFormat(QStringLiteral("f"));
    m_stalls->xAxis->setNumberPrecision(0);
    m_stalls->xAxis->setLabel(tr("cycles"));
    m_stalls->rescaleAxes(true);
    m_stalls->xAxis->setRangeLower(0);
    m_stalls->xAxis->scaleRange(1.05, m_stalls->xAxis->range().size() / 2);
    m_stalls->xAxis->setRangeLower(0);
    m_stalls->yAxis->setRange(-0.6, row - 0.4);
    m_stalls->replot();

    m_chips->setSortingEnabled(false);
    m_chips->setRowCount(static_cast<int>(s.chips.size()));
    for (std::size_t i = 0; i < s.chips.size(); ++i) {
        const analysis::ChipSummary& c = s.chips[i];
        std::uint64_t stall = 0;
        for (std::uint64_t v : c.stallCycles)
            stall += v;
        const int r = static_cast<int>(i);
        m_chips->setItem(r, 0, new NumberItem(QString::number(c.chip.value), c.chip.value));
        m_chips->setItem(r, 1, new NumberItem(cyclesText(c.bundles), static_cast<double>(c.bundles)));
        m_chips->setItem(r, 2, new NumberItem(cyclesText(c.activeCycles), static_cast<double>(c.activeCycles)));
        m_chips->setItem(r, 3, new NumberItem(percent(c.mxuUtilization), c.mxuUtilization));
        m_chips->setItem(r, 4, new NumberItem(percent(c.hbmUtilization), c.hbmUtilization));
        m_chips->setItem(r, 5, new NumberItem(cyclesText(stall), static_cast<double>(stall)));
    }
    m_chips->setSortingEnabled(true);

    m_regions->setSortingEnabled(false);
    m_regions->setRowCount(static_cast<int>(s.regions.size()));
    std::uint64_t totalRegionCycles = 0;
    for (const analysis::RegionSummary& g : s.regions)
        if (g.depth == 0)
            totalRegionCycles += g.cycles;
    for (std::size_t i = 0; i < s.regions.size(); ++i) {
        const analysis::RegionSummary& g = s.regions[i];
        const int r = static_cast<int>(i);
        auto* name = new QTableWidgetItem(QString(g.depth * 3, QLatin1Char(' ')) + QString::fromStdString(g.name));
        name->setToolTip(QString::fromStdString(g.path));
        m_regions->setItem(r, 0, name);
        m_regions->setItem(r, 1, new QTableWidgetItem(QString::fromStdString(g.level)));
        m_regions->setItem(r, 2, new NumberItem(cyclesText(g.instances), static_cast<double>(g.instances)));
        m_regions->setItem(r, 3, new NumberItem(cyclesText(g.cycles), static_cast<double>(g.cycles)));
        const double share = totalRegionCycles ? static_cast<double>(g.cycles) / static_cast<double>(totalRegionCycles) : 0.0;
        m_regions->setItem(r, 4, new NumberItem(percent(share), share));
        m_regions->setItem(r, 5, new NumberItem(percent(g.mxuUtilization()), g.mxuUtilization()));
        m_regions->setItem(r, 6, new NumberItem(cyclesText(g.totalStallCycles()), static_cast<double>(g.totalStallCycles())));
        m_regions->setItem(r, 7, new NumberItem(bytesText(g.dmaBytes), static_cast<double>(g.dmaBytes)));
    }
    m_regions->setSortingEnabled(true);
}

} // namespace xps::ui
