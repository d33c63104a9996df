#include "imported/profile_transfers_view.h"
#include "selection/selection_model.h"

#include "imported/profile_document.h"
#include "imported/profile_text.h"
#include "imported/profile_timeline_view.h"
#include "profile/transfers.h"
#include "report/palette.h"
#include "theme/theme.h"
#include "widgets/lanes_over_plot.h"
#include "widgets/qcustomplot.h"

#include <QLabel>

#include <algorithm>

namespace xps::ui {
namespace {

constexpr int kBandwidthBins = 400;

const profile::Transfer* findTransfer(const ProfileRun& run, profile::SliceRow slice)
{
    const auto& t = run.analysis.transfers; // by slice
    const auto it =
        std::lower_bound(t.begin(), t.end(), slice,
                         [](const profile::Transfer& x, profile::SliceRow s) { return x.slice < s; });
    return it != t.end() && it->slice == slice ? &*it : nullptr;
}

QString rate(std::uint64_t bytes, const profile::Timebase& timebase, profile::Ticks duration)
{
    return duration > 0 ? QStringLiteral("%1 GB/s").arg(
                              static_cast<double>(bytes) / timebase.toNanosExact(duration), 0, 'f', 1)
                        : QStringLiteral("—");
}

QString bytesText(std::uint64_t bytes)
{
    if (bytes >= (1ull << 30))
        return QStringLiteral("%1 GiB").arg(static_cast<double>(bytes) / (1ull << 30), 0, 'f', 2);
    if (bytes >= (1ull << 20))
        return QStringLiteral("%1 MiB").arg(static_cast<double>(bytes) / (1ull << 20), 0, 'f', 2);
    if (bytes >= 1024)
        return QStringLiteral("%1 KiB").arg(static_cast<double>(bytes) / 1024.0, 0, 'f', 1);
    return QStringLiteral("%1 B").arg(bytes);
}

} // namespace

ProfileTransfersView::ProfileTransfersView(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_lanes(new ProfileTimelineView(document, this)),
      m_bandwidth(new QCustomPlot(this)), m_info(new QLabel(this))
{
    setObjectName(QStringLiteral("profileTransfers"));
    m_lanes->setObjectName(QStringLiteral("transferLanes"));
    m_lanes->setSliceFilter([this](const ProfileRun& run, std::uint32_t slice) {
        // A flag per slice, made once per run: the lanes ask for every slice of the profile.
        if (m_flagsFor.lock().get() != &run) {
            m_isTransfer.assign(run.profile.slices.size(), false);
            for (const profile::Transfer& t : run.analysis.transfers)
                m_isTransfer[t.slice.value] = true;
            m_flagsFor = m_document->runHandle();
        }
        return slice < m_isTransfer.size() && m_isTransfer[slice];
    });
    setUpBandwidthPlot(m_bandwidth, tr("achieved GB/s"), tr("µs from the start"));
    layOutLanesOverPlot(this, m_lanes, m_bandwidth, m_info, 1, 1);

    connect(m_document, &ProfileDocument::loaded, this, [this] {
        showBandwidth();
        showSelection();
    });
    connect(m_document, &ProfileDocument::rangeChanged, this, &ProfileTransfersView::showBandwidth);
    connect(m_document->selection(), &SelectionModel::selectionChanged, this,
            &ProfileTransfersView::showSelection);
    connect(&Theme::instance(), &Theme::changed, this, &ProfileTransfersView::applyTheme);
    applyTheme();
    showSelection();
}

void ProfileTransfersView::applyTheme()
{
    Theme::instance().stylePlot(m_bandwidth);
    m_bandwidth->replot();
}

void ProfileTransfersView::showBandwidth()
{
    // Recomputed for the visible range at a fixed number of bins: a frame costs one pass over the
    // transfers, and a zoomed-in view shows each copy's own rate instead of an average over the run.
    m_bandwidth->clearGraphs();
    const ProfileRun* run = m_document->run();
    if (!run) {
        m_bandwidth->replot();
        return;
    }
    const auto [from, to] = m_document->visibleRange();
    const std::vector<profile::BandwidthSeries> series =
        profile::transferBandwidth(run->profile, run->analysis.transfers, from, to, kBandwidthBins);
    const double width = static_cast<double>(to - from) / kBandwidthBins;
    const double origin = static_cast<double>(run->profile.startTime());
    const profile::Timebase& tb = run->profile.timebase; // the plot's axis is in microseconds
    double peak = 0;
    for (std::size_t k = 0; k < series.size(); ++k) {
        QCPGraph* g = m_bandwidth->addGraph();
        g->setName(QString::fromStdString(run->profile.track(series[k].process).name));
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setPen(QPen(QColor::fromRgb(palette::seriesColour(k)), 1.5));
        QVector<double> x, y;
        x.reserve(kBandwidthBins + 1);
        y.reserve(kBandwidthBins + 1);
        for (int b = 0; b <= kBandwidthBins; ++b) {
            const double v = series[k].gbPerSecond[static_cast<std::size_t>(std::min(b, kBandwidthBins - 1))];
            x.push_back(tb.toNanosExact(1) * (static_cast<double>(from) + width * b - origin) / 1000.0);
            y.push_back(v);
            peak = std::max(peak, v);
        }
        g->setData(x, y, true);
    }
    m_bandwidth->legend->setVisible(series.size() > 1);
    // The plot's time axis under the lanes' own: the same left and right edges.
    m_bandwidth->axisRect()->setAutoMargins(QCP::msTop | QCP::msBottom);
    m_bandwidth->axisRect()->setMargins(QMargins(m_lanes->gutter(), 0, m_lanes->scrollBarWidth() + 2, 0));
    m_bandwidth->xAxis->setRange(tb.toNanosExact(1) * (static_cast<double>(from) - origin) / 1000.0,
                                 tb.toNanosExact(1) * (static_cast<double>(to) - origin) / 1000.0);
    m_bandwidth->yAxis->setRange(0, peak > 0 ? peak * 1.15 : 1.0);
    m_bandwidth->replot(QCustomPlot::rpQueuedReplot);
}

void ProfileTransfersView::showSelection()
{
    const ProfileRun* run = m_document->run();
    if (!run) {
        m_info->clear();
        return;
    }
    const profile::SliceRow selected = m_document->selectedSlice();
    const profile::Transfer* t = selected.valid() ? findTransfer(*run, selected) : nullptr;
    if (!t) {
        std::uint64_t bytes = 0;
        for (const profile::Transfer& x : run->analysis.transfers)
            bytes += x.bytes;
        m_info->setText(run->analysis.transfers.empty()
                            ? tr("<i>No copies, memsets or byte-counted transfers in this profile.</i>")
                            : tr("%1, %2 in all. <i>Click one to see its size and rate.</i>")
                                  .arg(run->analysis.transfers.size() == 1
                                           ? tr("1 transfer")
                                           : tr("%1 transfers").arg(run->analysis.transfers.size()),
                                       bytesText(bytes)));
        return;
    }
    const profile::Slice& s = run->profile.slice(t->slice);
    const profile::Ticks span = t->end - t->start;
    m_info->setText(
        tr("<b>%1</b> on %2: %3 in %4%5 = <b>%6</b>")
            .arg(QString::fromStdString(run->profile.nameOf(s)).toHtmlEscaped(),
                 QString::fromStdString(profile::trackLabel(run->profile, s.track())).toHtmlEscaped(),
                 t->bytes ? bytesText(t->bytes) : tr("size unknown"),
                 formatDuration(run->profile.timebase, span),
                 t->end != s.end() ? tr(" (start to done)") : QString(),
                 t->bytes ? rate(t->bytes, run->profile.timebase, span) : QStringLiteral("—")));
}

QString ProfileTransfersView::details() const
{
    return m_info->text();
}

} // namespace xps::ui
