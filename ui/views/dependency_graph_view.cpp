#include "views/dependency_graph_view.h"

#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "views/event_text.h"
#include "views/graph_canvas.h"
#include "views/graph_items.h"
#include "views/graph_layout.h"
#include "widgets/wrapping_label.h"

#include <QFontInfo>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QScrollBar>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <functional>

namespace xps::ui {

// What the worker hands back: the subgraph, each node's words and box, and Graphviz's geometry.
struct GraphJobResult
{
    analysis::Subgraph graph;
    std::vector<NodeLook> looks;
    std::vector<std::optional<analysis::DmaPathClass>> dmaPaths; // per node; set for DMAs
    std::vector<QSizeF> sizes;
    std::vector<QString> edgeLabels; // per edge: its cycles, or empty
    GraphLayout layout;
};

namespace {

constexpr std::size_t kMaxNodes = 60;
constexpr int kMaxBodyChars = 64;
// Below this, the centre is shown at this scale instead of fitting: at 0.55 node text was 6-7 px.
constexpr double kMinReadableScale = 0.85;

QString elided(QString text)
{
    text.replace(QLatin1Char('\n'), QStringLiteral(" ; "));
    if (text.size() > kMaxBodyChars)
        text = text.left(kMaxBodyChars - 1) + QChar(0x2026);
    return text;
}

// Runs on the worker: the subgraph, the words of each node and Graphviz's layout.
std::shared_ptr<GraphJobResult> buildGraph(const Run& run, analysis::NodeRef centre, int depth,
                                           const QFont& header, const QFont& body, const QFont& label,
                                           bool leftToRight)
{
    auto out = std::make_shared<GraphJobResult>();
    out->graph = run.graph->subgraph(centre, depth, kMaxNodes);
    const trace::Trace& trace = *run.trace;
    for (const analysis::GraphNode& n : out->graph.nodes) {
        NodeLook look;
        look.critical = n.critical;
        look.centre = n.ref == centre;
        std::optional<analysis::DmaPathClass> path;
        events::DmaRecord d;
        if (n.ref.kind == analysis::NodeRef::Kind::Dma &&
            run.lanes->dma(static_cast<std::uint32_t>(n.ref.index), d)) {
            look.header = QObject::tr("DMA %1 · chip %2%3 · cycles %4–%5")
                              .arg(d.id)
                              .arg(d.chip)
                              .arg(d.dstChip != d.chip ? QStringLiteral("→%1").arg(d.dstChip) : QString())
                              .arg(cyclesText(d.issue), cyclesText(d.end));
            look.body = elided(dmaSummary(trace, d));
            path = analysis::dmaPathClass(d);
        } else {
            look.header =
                QObject::tr("chip %1 · pc %2 · cycle %3").arg(n.chip).arg(n.pc).arg(cyclesText(n.start));
            look.body = elided(bundleText(trace, n.chip, n.pc));
        }
        out->sizes.push_back(GraphNodeItem::sizeFor(look, header, body));
        out->looks.push_back(std::move(look));
        out->dmaPaths.push_back(path);
    }
    LayoutRequest request;
    request.nodes = out->sizes;
    const auto& edges = out->graph.edges;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const analysis::GraphEdge& e = edges[i];
        request.edges.emplace_back(e.from, e.to);
        // Parallel edges (e.g. order and data between the same two bundles) share one label; one-cycle
        // steps go unlabelled.
        const bool firstOfPair =
            std::none_of(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(i),
                         [&](const analysis::GraphEdge& o) { return o.from == e.from && o.to == e.to; });
        out->edgeLabels.push_back(e.cycles > 1 && firstOfPair ? QObject::tr("%1 cy").arg(cyclesText(e.cycles))
                                                              : QString());
    }
    request.edgeLabels = out->edgeLabels;
    request.labelPointSize = QFontInfo(label).pointSizeF();
    request.leftToRight = leftToRight;
    out->layout = layoutWithDot(request);
    return out;
}

QString edgeWords(analysis::EdgeKind kind)
{
    using K = analysis::EdgeKind;
    switch (kind) {
    case K::Order: return QObject::tr("program order");
    case K::Data: return QObject::tr("data (register or result FIFO)");
    case K::Memory: return QObject::tr("memory (VMEM written, then read)");
    case K::Flag: return QObject::tr("flag (DMA completion ended a wait)");
    case K::Issue: return QObject::tr("issue (bundle started the DMA)");
    case K::Structural: return QObject::tr("structural (busy unit, queue or FIFO)");
    }
    return {};
}

} // namespace

DependencyGraphView::DependencyGraphView(ReplaySession* session, SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_session(session), m_selection(selection), m_scene(new QGraphicsScene(this)),
      m_canvas(new GraphCanvas(m_scene, this)), m_info(new QLabel(this)), m_legend(new QLabel(this)),
      m_back(new QToolButton(this)), m_depth(new QSpinBox(this))
{
    setObjectName(QStringLiteral("graph"));
    m_pool.setMaxThreadCount(1);
    m_canvas->setObjectName(QStringLiteral("graphCanvas"));
    m_canvas->setDragMode(QGraphicsView::ScrollHandDrag);
    m_canvas->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    m_canvas->setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
    m_canvas->onClick = [this](std::optional<std::size_t> node) { clicked(node); };
    m_canvas->onDoubleClick = [this](std::size_t node) {
        if (m_result && node < m_result->graph.nodes.size())
            centreOn(m_result->graph.nodes[node].ref, true);
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
    fitButton->setText(tr("Fit"));
    fitButton->setToolTip(tr("Show the whole graph"));
    connect(fitButton, &QToolButton::clicked, this, &DependencyGraphView::fit);
    m_depth->setRange(1, 4);
    m_depth->setValue(2);
    m_depth->setPrefix(tr("depth "));
    m_depth->setToolTip(
        tr("How many edges away from the centre the graph reaches (at most %1 nodes)").arg(kMaxNodes));
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

    connect(session, &ReplaySession::opened, this, &DependencyGraphView::reset);
    connect(session, &ReplaySession::analysesCancelled, this, [this] {
        m_info->setText(
            QStringLiteral("<i>%1</i>").arg(ReplaySession::analysesCancelledText().toHtmlEscaped()));
    });
    connect(session, &ReplaySession::analysesReady, this, [this] {
        if (const auto& focus = m_selection->selection().focus)
            centreOn(*focus, false);
        else
            centreOnCriticalPath();
    });
    connect(selection, &SelectionModel::selectionChanged, this, [this] {
        const Selection& s = m_selection->selection();
        if (s.focus && s.focus != m_centre && s.origin != tr("dependency graph"))
            centreOn(*s.focus, true);
        showHighlights();
    });
    connect(&Theme::instance(), &Theme::changed, this, &DependencyGraphView::rebuildScene);
    reset();
}

DependencyGraphView::~DependencyGraphView()
{
    m_pool.clear();
    m_pool.waitForDone();
}

const analysis::Subgraph& DependencyGraphView::graph() const
{
    static const analysis::Subgraph kEmpty;
    return m_result ? m_result->graph : kEmpty;
}

QGraphicsView* DependencyGraphView::canvas() const
{
    return m_canvas;
}

void DependencyGraphView::reset()
{
    ++m_generation;
    m_pending = 0;
    m_centre.reset();
    m_history.clear();
    m_back->setEnabled(false);
    m_result.reset();
    rebuildScene();
    m_info->setText(
        tr("<i>The graph appears when the analyses are done. Click an event in any view to see what it "
           "waited for and what waited for it.</i>"));
}

void DependencyGraphView::centreOnCriticalPath()
{
    const Run* run = m_session->run();
    if (!run || !run->graph || !m_session->analysesAvailable())
        return;
    const analysis::PathSegment* longest = nullptr;
    const std::vector<analysis::PathSegment>& segments = run->analyses.criticalPath.segments;
    for (const analysis::PathSegment& s : segments)
        if (s.kind != analysis::PathKind::Compute &&
            (!longest || s.to - s.from > longest->to - longest->from))
            longest = &s;
    if (!longest && !segments.empty())
        longest = &segments.back();
    if (longest)
        centreOn(longest->end, m_centre.has_value());
}

void DependencyGraphView::centreOn(analysis::NodeRef node, bool remember)
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
    const std::shared_ptr<const Run> run = m_session->runHandle();
    if (!run || !run->graph || !m_centre || !m_session->analysesAvailable())
        return;
    const std::uint64_t generation = ++m_generation;
    m_pending = generation;
    m_info->setText(tr("<i>Laying the graph out…</i>"));
    m_pool.clear(); // a request not started yet is superseded
    const analysis::NodeRef centre = *m_centre;
    const int depth = m_depth->value();
    const QFont header = graphHeaderFont(font()), body = graphBodyFont(font()),
                label = graphLabelFont(font());
    m_leftToRight = wantsLeftToRight();
    m_pool.start([this, run, centre, depth, header, body, label, generation, leftToRight = m_leftToRight] {
        std::shared_ptr<GraphJobResult> result =
            buildGraph(*run, centre, depth, header, body, label, leftToRight);
        QMetaObject::invokeMethod(
            this, [this, generation, result] { showResult(generation, result); }, Qt::QueuedConnection);
    });
}

void DependencyGraphView::showResult(std::uint64_t generation, std::shared_ptr<GraphJobResult> result)
{
    if (generation != m_generation)
        return; // superseded by a newer centre, depth or trace
    m_pending = 0;
    m_result = std::move(result);
    rebuildScene();
    fit();
    emit laidOut();
}

void DependencyGraphView::rebuildScene()
{
    const Theme& theme = Theme::instance();
    m_scene->clear();
    m_nodes.clear();
    m_scene->setBackgroundBrush(theme.background());
    QString legend;
    for (int k = 0; k <= static_cast<int>(analysis::EdgeKind::Structural); ++k) {
        const auto kind = static_cast<analysis::EdgeKind>(k);
        legend += QStringLiteral("<span style='color:%1'>&#9644;</span>&nbsp;%2&nbsp;&nbsp; ")
                      .arg(theme.edgeColor(kind).name(),
                           QString::fromUtf8(analysis::edgeKindName(kind)).toHtmlEscaped());
    }
    legend += QStringLiteral("<span style='color:%1'>&#9608;</span>&nbsp;%2")
                  .arg(theme.critical().name(), tr("critical path"));
    m_legend->setText(legend);
    if (!m_result || !m_result->layout.error.isEmpty()) {
        showInfo();
        return;
    }
    const GraphJobResult& r = *m_result;
    const QFont header = graphHeaderFont(font()), body = graphBodyFont(font());
    const QFont label = graphLabelFont(font());
    for (std::size_t i = 0; i < r.graph.edges.size() && i < r.layout.edges.size(); ++i) {
        const analysis::GraphEdge& e = r.graph.edges[i];
        const LaidOutEdge& le = r.layout.edges[i];
        auto* item = new GraphEdgeItem(le.path, le.arrowBase, le.arrowTip, theme.edgeColor(e.kind),
                                       e.critical, r.edgeLabels[i], le.labelCentre, label);
        item->setToolTip(tr("%1 dependency, %2 cycles%3")
                             .arg(edgeWords(e.kind), cyclesText(e.cycles),
                                  e.critical ? tr(", on the critical path") : QString()));
        m_scene->addItem(item);
    }
    const bool dark = theme.kind() == Theme::Kind::Dark;
    for (std::size_t i = 0; i < r.graph.nodes.size() && i < r.layout.centres.size(); ++i) {
        NodeLook look = r.looks[i];
        if (const auto path = r.dmaPaths[i]) {
            const QColor c = theme.dmaColor(*path);
            look.fill = dark ? c.darker(220) : c.lighter(165);
        } else {
            look.fill = look.centre ? (dark ? QColor(0x3a, 0x44, 0x55) : QColor(0xe4, 0xee, 0xfb))
                                    : theme.laneShade();
        }
        const analysis::GraphNode& n = r.graph.nodes[i];
        auto* item = new GraphNodeItem(i, look, r.sizes[i], header, body);
        item->setPos(r.layout.centres[i]);
        item->setToolTip(tr("<b>%1</b><br><tt>%2</tt><br>%3%4<br><i>Click to select it everywhere; "
                            "double-click to centre the "
                            "graph on it.</i>")
                             .arg(look.header.toHtmlEscaped(),
                                  QString::fromStdString(n.label).toHtmlEscaped(),
                                  n.critical ? tr("On the critical path. ") : QString(),
                                  n.ref.kind == analysis::NodeRef::Kind::Dma
                                      ? tr("Transfer took %1 cycles.").arg(cyclesText(n.end - n.start))
                                      : QString()));
        m_scene->addItem(item);
        m_nodes.push_back(item);
    }
    m_scene->setSceneRect(r.layout.bounds.adjusted(-20, -20, 20, 20));
    showHighlights();
    showInfo();
}

void DependencyGraphView::showHighlights()
{
    if (!m_result)
        return;
    const Selection& s = m_selection->selection();
    for (GraphNodeItem* item : m_nodes) {
        const analysis::GraphNode& n = m_result->graph.nodes[item->index()];
        const bool on =
            (s.focus && *s.focus == n.ref) || (n.ref.kind == analysis::NodeRef::Kind::Dma
                                                   ? s.containsDma(static_cast<std::uint32_t>(n.ref.index))
                                                   : s.containsPc(n.chip, n.pc));
        item->setHighlighted(on);
    }
}

void DependencyGraphView::showInfo()
{
    const Run* run = m_session->run();
    if (!m_result || !run || !run->graph)
        return;
    if (!m_result->layout.error.isEmpty()) {
        m_info->setText(tr("Could not lay the graph out: %1").arg(m_result->layout.error.toHtmlEscaped()));
        return;
    }
    const analysis::CriticalPath& path = run->analyses.criticalPath;
    QString composition;
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        if (path.share(static_cast<analysis::PathKind>(k)) >= 0.0005)
            composition +=
                tr("%1 %2%, ")
                    .arg(QString::fromUtf8(analysis::pathKindName(static_cast<analysis::PathKind>(k))))
                    .arg(100.0 * path.share(static_cast<analysis::PathKind>(k)), 0, 'f', 1);
    composition.chop(2);
    const analysis::GraphNode& centre = m_result->graph.nodes.front();
    const std::size_t criticalNodes =
        static_cast<std::size_t>(std::count_if(m_result->graph.nodes.begin(), m_result->graph.nodes.end(),
                                               [](const analysis::GraphNode& n) { return n.critical; }));
    m_info->setText(
        tr("<b>Centre:</b> %1 — %2.<br>%3 nodes (%5 on the critical path), %4 edges. <b>Critical path</b> %6 "
           "cycles: %7.")
            .arg(m_result->looks.front().header.toHtmlEscaped(),
                 centre.critical ? tr("on the critical path") : tr("not on the critical path"))
            .arg(m_result->graph.nodes.size())
            .arg(m_result->graph.edges.size())
            .arg(criticalNodes)
            .arg(cyclesText(path.total()), composition));
}

QString DependencyGraphView::info() const
{
    return m_info->text();
}

void DependencyGraphView::clicked(std::optional<std::size_t> node)
{
    const Run* run = m_session->run();
    if (!run || !m_result || !node || *node >= m_result->graph.nodes.size())
        return;
    const analysis::GraphNode& n = m_result->graph.nodes[*node];
    Selection s;
    s.origin = tr("dependency graph");
    s.focus = n.ref;
    s.pcs.push_back({n.chip, n.pc});
    if (n.ref.kind == analysis::NodeRef::Kind::Dma)
        s.dmas.push_back(static_cast<std::uint32_t>(n.ref.index));
    // Bring the node into the shared time range if it is outside it, keeping the zoom level.
    const std::uint64_t from = m_selection->from(), to = m_selection->to();
    if (n.start < from || n.end + 1 > to) {
        const std::uint64_t width = std::max(to - from, (n.end - n.start + 1) * 3 / 2);
        const std::uint64_t middle = n.start + (n.end - n.start) / 2;
        const std::uint64_t newFrom = middle > width / 2 ? middle - width / 2 : 0;
        m_selection->setTimeRange(newFrom, newFrom + width);
    }
    m_selection->select(std::move(s));
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
    if (!m_result || !isVisible())
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
    if (!m_result || m_nodes.empty())
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
