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
    auto swatch = [](const QColor& c, const QString& name) {
        return QStringLiteral("<span style='color:%1'>■</span>&nbsp;%2&nbsp;&nbsp; ").arg(c.name(), name);
    };
    QString html = dmaOnly ? QString() : QStringLiteral("<b>stalls</b> ");
    for (int r = 1; r < events::kStallReasonCount && !dmaOnly; ++r) {
        const auto reason = static_cast<events::StallReason>(r);
        html += swatch(t.stallColor(reason), QString::fromUtf8(events::stallReasonName(reason).data()));
    }
    html += QStringLiteral("&nbsp;<b>DMA</b> ");
    for (int p = 0; p < analysis::kDmaPathClassCount; ++p) {
        const auto path = static_cast<analysis::DmaPathClass>(p);
        html += swatch(t.dmaColor(path), QString::fromUtf8(analysis::dmaPathClassName(path).data()));
    }
    return html +
           QStringLiteral("&nbsp;<i>wheel: zoom · drag: pan · shift+drag: box zoom · W/S/A/D · Home</i>");
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
