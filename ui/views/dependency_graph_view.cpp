#include "views/dependency_graph_view.h"

#include "theme/theme.h"
#include "views/graph_canvas.h"
#include "widgets/wrapping_label.h"

#include <QFontInfo>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace xps::ui {

namespace {

// Below this, the centre is shown at this scale instead of fitting: at 0.55 node text was 6-7 px.
constexpr double kMinReadableScale = 0.85;

// A node's colour, faint so its text reads; stronger for the centre the graph is built around.
QColor fillOf(const GraphContent::Node& node, const Theme& theme)
{
    const bool dark = theme.kind() == Theme::Kind::Dark;
    if (!node.tint)
        return node.look.centre ? (dark ? QColor(0x3a, 0x44, 0x55) : QColor(0xe4, 0xee, 0xfb))
                                : theme.laneShade();
    const QColor c = *node.tint, bg = theme.background();
    const float t = node.look.centre ? 0.6f : 0.28f;
    return QColor::fromRgbF(c.redF() * t + bg.redF() * (1 - t), c.greenF() * t + bg.greenF() * (1 - t),
                            c.blueF() * t + bg.blueF() * (1 - t));
}

// Runs on the worker, after the source's build: Graphviz's geometry for the content.
void layOut(GraphContent& content, const GraphFonts& fonts, bool leftToRight)
{
    LayoutRequest request;
    for (const GraphContent::Node& n : content.nodes)
        request.nodes.push_back(n.size);
    for (const GraphContent::Edge& e : content.edges) {
        request.edges.emplace_back(e.from, e.to);
        request.edgeLabels.push_back(e.label);
    }
    request.labelPointSize = QFontInfo(fonts.label).pointSizeF();
    request.leftToRight = leftToRight;
    content.layout = layoutWithDot(request);
}

} // namespace

DependencyGraphView::DependencyGraphView(GraphSource* source, QWidget* parent)
    : QWidget(parent), m_source(source), m_scene(new QGraphicsScene(this)),
      m_canvas(new GraphCanvas(m_scene, this)), m_info(new QLabel(this)), m_legend(new QLabel(this)),
      m_back(new QToolButton(this)), m_depth(new QSpinBox(this))
{
    source->setParent(this);
    setObjectName(QStringLiteral("graph"));
    m_pool.setMaxThreadCount(1);
    m_canvas->setObjectName(QStringLiteral("graphCanvas"));
    m_canvas->setDragMode(QGraphicsView::ScrollHandDrag);
    m_canvas->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    m_canvas->setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
    m_canvas->onClick = [this](std::optional<std::size_t> node) { clicked(node); };
    m_canvas->onDoubleClick = [this](std::size_t node) {
        if (m_content && node < m_content->nodes.size())
            centreOn(m_content->nodes[node].key, true);
    };

    m_back->setObjectName(QStringLiteral("graphBackButton"));
    m_back->setText(tr("Back"));
    m_back->setToolTip(tr("Rebuild the graph around the previous centre"));
    m_back->setEnabled(false);
    connect(m_back, &QToolButton::clicked, this, &DependencyGraphView::goBack);
    auto* critical = new QToolButton(this);
    critical->setObjectName(QStringLiteral("graphCriticalButton"));
    critical->setText(tr("Critical path"));
    critical->setToolTip(
        tr("Centre on the end of the longest stretch of the critical path that is not plain compute"));
    connect(critical, &QToolButton::clicked, this, &DependencyGraphView::centreOnCriticalPath);
    auto* fitButton = new QToolButton(this);
    fitButton->setObjectName(QStringLiteral("graphFitButton"));
    fitButton->setText(tr("Fit"));
    fitButton->setToolTip(tr("Show the whole graph"));
    connect(fitButton, &QToolButton::clicked, this, &DependencyGraphView::fit);
    m_depth->setObjectName(QStringLiteral("graphDepth"));
    m_depth->setRange(1, source->words().maxDepth);
    m_depth->setValue(2);
    m_depth->setPrefix(tr("depth "));
    m_depth->setToolTip(source->words().depthToolTip.arg(kMaxNodes));
    connect(m_depth, &QSpinBox::valueChanged, this, [this] { startLayout(); });
    m_legend->setTextFormat(Qt::RichText);
    wrapToAnyWidth(m_legend); // the legend's seven edge kinds made the window at least 1,013 px wide
    m_info->setTextFormat(Qt::RichText);
    wrapToAnyWidth(m_info);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_back);
    bar->addWidget(critical);
    bar->addWidget(fitButton);
    bar->addWidget(m_depth);
    bar->addSpacing(12);
    bar->addWidget(m_legend, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_canvas, 1);
    layout->addWidget(m_info);

    connect(source, &GraphSource::cleared, this, &DependencyGraphView::reset);
    connect(source, &GraphSource::ready, this, [this] {
        if (const std::optional<GraphNodeKey> centre = m_source->initialCentre())
            centreOn(*centre, false);
    });
    connect(source, &GraphSource::follow, this, [this](GraphNodeKey node) {
        if (node != m_centre)
            centreOn(node, true);
    });
    connect(source, &GraphSource::selectionChanged, this, &DependencyGraphView::showHighlights);
    connect(source, &GraphSource::message, m_info, &QLabel::setText);
    connect(&Theme::instance(), &Theme::changed, this, &DependencyGraphView::rebuildScene);
    reset();
}

DependencyGraphView::~DependencyGraphView()
{
    m_pool.clear();
    m_pool.waitForDone();
}

QGraphicsView* DependencyGraphView::canvas() const
{
    return m_canvas;
}

QString DependencyGraphView::info() const
{
    return m_info->text();
}

void DependencyGraphView::reset()
{
    ++m_generation;
    m_pending = 0;
    m_centre.reset();
    m_history.clear();
    m_back->setEnabled(false);
    m_content.reset();
    m_source->setShown(nullptr);
    rebuildScene();
    m_info->setText(QStringLiteral("<i>%1</i>").arg(m_source->words().placeholder.toHtmlEscaped()));
}

void DependencyGraphView::centreOnCriticalPath()
{
    if (const std::optional<GraphNodeKey> end = m_source->criticalPathCentre())
        centreOn(*end, m_centre.has_value());
}

void DependencyGraphView::centreOn(GraphNodeKey node, bool remember)
{
    if (remember && m_centre && *m_centre != node) {
        m_history.push_back(*m_centre);
        m_back->setEnabled(true);
    }
    m_centre = node;
    startLayout();
}

void DependencyGraphView::goBack()
{
    if (m_history.empty())
        return;
    m_centre = m_history.back();
    m_history.pop_back();
    m_back->setEnabled(!m_history.empty());
    startLayout();
}

void DependencyGraphView::startLayout()
{
    if (!m_centre)
        return;
    GraphSource::Build build = m_source->prepare(*m_centre, m_depth->value(), kMaxNodes);
    if (!build)
        return;
    const std::uint64_t generation = ++m_generation;
    m_pending = generation;
    m_info->setText(tr("<i>Laying the graph out…</i>"));
    m_pool.clear(); // a request not started yet is superseded
    const GraphFonts fonts{graphHeaderFont(font()), graphBodyFont(font()), graphLabelFont(font())};
    m_leftToRight = wantsLeftToRight();
    m_pool.start([this, build = std::move(build), fonts, generation, leftToRight = m_leftToRight] {
        std::shared_ptr<GraphContent> content = build(fonts);
        if (content)
            layOut(*content, fonts, leftToRight);
        QMetaObject::invokeMethod(
            this, [this, generation, content] { showResult(generation, content); }, Qt::QueuedConnection);
    });
}

void DependencyGraphView::showResult(std::uint64_t generation, std::shared_ptr<GraphContent> content)
{
    if (generation != m_generation)
        return; // superseded by a newer centre, depth or document
    m_pending = 0;
    m_content = std::move(content);
    m_source->setShown(m_content);
    rebuildScene();
    fit();
    if (!m_content) // the centre is in no graph (a source found nothing around it)
        m_info->setText(QStringLiteral("<i>%1</i>").arg(m_source->words().placeholder.toHtmlEscaped()));
    emit laidOut();
}

void DependencyGraphView::rebuildScene()
{
    const Theme& theme = Theme::instance();
    m_scene->clear();
    m_nodes.clear();
    m_scene->setBackgroundBrush(theme.background());
    m_legend->clear();
    if (!m_content)
        return;
    const GraphContent& c = *m_content;
    if (!c.layout.error.isEmpty()) {
        m_info->setText(tr("Could not lay the graph out: %1").arg(c.layout.error.toHtmlEscaped()));
        return;
    }
    QString legend;
    for (const auto& [kind, name] : c.legend)
        legend += QStringLiteral("<span style='color:%1'>&#9644;</span>&nbsp;%2&nbsp;&nbsp; ")
                      .arg(theme.edgeColor(kind).name(), name.toHtmlEscaped());
    legend += QStringLiteral("<span style='color:%1'>&#9608;</span>&nbsp;%2")
                  .arg(theme.critical().name(), tr("critical path"));
    m_legend->setText(legend);
    const QFont header = graphHeaderFont(font()), body = graphBodyFont(font());
    const QFont label = graphLabelFont(font());
    for (std::size_t i = 0; i < c.edges.size() && i < c.layout.edges.size(); ++i) {
        const GraphContent::Edge& e = c.edges[i];
        const LaidOutEdge& le = c.layout.edges[i];
        auto* item = new GraphEdgeItem(le.path, le.arrowBase, le.arrowTip, theme.edgeColor(e.kind),
                                       e.critical, e.label, le.labelCentre, label);
        item->setToolTip(e.toolTip);
        m_scene->addItem(item);
    }
    for (std::size_t i = 0; i < c.nodes.size() && i < c.layout.centres.size(); ++i) {
        const GraphContent::Node& n = c.nodes[i];
        NodeLook look = n.look;
        look.fill = fillOf(n, theme);
        auto* item = new GraphNodeItem(i, look, n.size, header, body);
        item->setPos(c.layout.centres[i]);
        item->setToolTip(n.toolTip);
        m_scene->addItem(item);
        m_nodes.push_back(item);
    }
    m_scene->setSceneRect(c.layout.bounds.adjusted(-20, -20, 20, 20));
    showHighlights();
    if (!m_pending)
        m_info->setText(c.info);
}

void DependencyGraphView::showHighlights()
{
    if (!m_content)
        return;
    for (GraphNodeItem* item : m_nodes)
        item->setHighlighted(m_source->isSelected(*m_content, item->index()));
}

void DependencyGraphView::clicked(std::optional<std::size_t> node)
{
    if (m_content && node && *node < m_content->nodes.size())
        m_source->select(*m_content, *node);
}

QPoint DependencyGraphView::viewportPosition(std::size_t node) const
{
    if (node >= m_nodes.size())
        return {};
    return m_canvas->mapFromScene(m_nodes[node]->pos());
}

bool DependencyGraphView::isHighlighted(std::size_t node) const
{
    return node < m_nodes.size() && m_nodes[node]->highlighted();
}

bool DependencyGraphView::wantsLeftToRight() const
{
    const QSize area = m_canvas->viewport()->size();
    return area.width() > 2 * area.height();
}

void DependencyGraphView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (!m_content || !isVisible())
        return;
    if (wantsLeftToRight() != m_leftToRight)
        startLayout(); // the dock was reshaped: lay the same graph out along its longer side
    else if (!m_pending && m_canvas->transform() == m_fitTransform)
        fit(); // not zoomed since it was fitted: fit the new size
}

void DependencyGraphView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    // Laid out while its tab was behind another: fit to the size it has now that it is seen.
    if (m_fitWhenShown && !m_pending) {
        if (wantsLeftToRight() != m_leftToRight)
            startLayout();
        else
            fit();
    }
}

void DependencyGraphView::fit()
{
    if (!m_content || m_nodes.empty())
        return;
    m_fitWhenShown = !isVisible();
    m_canvas->resetTransform();
    m_canvas->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    const double scale = m_canvas->transform().m11();
    if (scale > 1.0 || scale < kMinReadableScale) {
        // A small graph is not blown up; a large one is shown readable around its centre.
        m_canvas->resetTransform();
        const double s = scale > 1.0 ? 1.0 : kMinReadableScale;
        m_canvas->scale(s, s);
        m_canvas->centerOn(scale > 1.0 ? m_scene->sceneRect().center() : m_nodes.front()->pos());
    }
    m_fitTransform = m_canvas->transform();
}

} // namespace xps::ui
