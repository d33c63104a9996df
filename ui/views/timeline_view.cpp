#include "views/timeline_view.h"

#include "theme/theme.h"
#include "widgets/wrapping_label.h"

#include <QLabel>
#include <QVBoxLayout>

namespace xps::ui {
namespace {

QString legendHtml(bool dmaOnly)
{
    const Theme& t = Theme::instance();
    // Each swatch and its name stay on one line (Qt's labels ignore <nobr> inside a line): no-break spaces,
    // and a word joiner after a hyphen, where a 1366-pixel window wrapped "HBM->VMEM".
    auto swatch = [](const QColor& c, const QString& name) {
        QString unbroken = name.toHtmlEscaped();
        unbroken.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"))
            .replace(QLatin1Char('-'), QStringLiteral("-&#8288;"));
        return QStringLiteral("<span style='color:%1'>■</span>&nbsp;%2&nbsp;&nbsp; ").arg(c.name(), unbroken);
    };
    QString html = dmaOnly ? QString() : QStringLiteral("<b>stalls</b>&nbsp;");
    for (int r = 1; r < events::kStallReasonCount && !dmaOnly; ++r) {
        const auto reason = static_cast<events::StallReason>(r);
        html += swatch(t.stallColor(reason), QString::fromUtf8(events::stallReasonName(reason).data()));
    }
    html += QStringLiteral("&nbsp;<b>DMA</b>&nbsp;");
    for (int p = 0; p < analysis::kDmaPathClassCount; ++p) {
        const auto path = static_cast<analysis::DmaPathClass>(p);
        html += swatch(t.dmaColor(path), QString::fromUtf8(analysis::dmaPathClassName(path).data()));
    }
    return html +
           QStringLiteral(
               "&nbsp;<i>wheel:&nbsp;zoom · drag:&nbsp;pan · shift+drag:&nbsp;box&nbsp;zoom · W/S/A/D · "
               "Home</i>");
}

} // namespace

TimelineView::TimelineView(ReplaySession* session, SelectionModel* selection, QWidget* parent,
                           LaneFilter laneFilter)
    : QWidget(parent), m_legend(new QLabel(this)), m_dmaOnly(static_cast<bool>(laneFilter))
{
    setObjectName(QStringLiteral("timeline"));
    m_canvas = new LaneCanvas(session, selection, std::move(laneFilter), this);
    m_canvas->setObjectName(QStringLiteral("timelineLanes"));
    m_legend->setTextFormat(Qt::RichText);
    wrapToAnyWidth(m_legend);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addWidget(m_canvas, 1);
    layout->addWidget(m_legend);
    connect(m_canvas, &LaneCanvas::rowsChanged, this, &TimelineView::rowsChanged);
    connect(&Theme::instance(), &Theme::changed, this, &TimelineView::applyTheme);
    applyTheme();
}

void TimelineView::applyTheme()
{
    m_legend->setText(legendHtml(m_dmaOnly));
}

int TimelineView::heightForEveryRow() const
{
    // Everything but the lanes keeps its height: the legend, the layout's margins and spacing.
    return height() - m_canvas->height() + m_canvas->heightForEveryRow();
}

void TimelineView::setLegendVisible(bool visible)
{
    m_legend->setVisible(visible);
}

} // namespace xps::ui
