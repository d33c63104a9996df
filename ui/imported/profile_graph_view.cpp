#include "imported/profile_graph_view.h"

#include "imported/profile_document.h"
#include "imported/profile_text.h"
#include "theme/theme.h"
#include "views/graph_canvas.h"
#include "views/graph_items.h"
#include "views/graph_layout.h"

#include <QFontInfo>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace xps::ui {

// What the worker hands back: the neighbourhood, each node's words and box, and Graphviz's geometry.
struct ProfileGraphJob
{
    std::shared_ptr<const ProfileRun> run;           // keeps the profile the graph indexes alive
    std::shared_ptr<const profile::FlowIndex> index; // built by the first job of a profile, then reused
    profile::FlowGraph graph;
    std::vector<NodeLook> looks;
    std::vector<QSizeF> sizes;
    std::vector<QString> edgeLabels;
    GraphLayout layout;
};

namespace {

constexpr std::size_t kMaxNodes = 60;
constexpr int kMaxBodyChars = 56;
const QString kOrigin = QStringLiteral("dependency graph");

// "rank 0 / compute": the slice's track under its process.
QString trackPath(const profile::Profile& p, const profile::Slice& s)
{
    const profile::Track& track = p.tracks[s.track()];
    QString name = QString::fromStdString(track.name);
    if (track.parent != profile::kNone && track.parent < p.tracks.size())
        name = QString::fromStdString(p.tracks[track.parent].name) + QStringLiteral(" / ") + name;
    return name;
}

// A flow's colour: the replay graph's edge colour for the same kind of dependency.
analysis::EdgeKind edgeKindOf(const profile::Profile& p, const profile::Flow& f)
{
    const profile::EventType& type = p.types[f.type];
    const std::string& name = p.string(type.name);
    const std::string& category = p.string(type.category);
    if (name == "data")
        return analysis::EdgeKind::Data;
    if (name == "control")
        return analysis::EdgeKind::Order;
    if (category == "ac2g" || name == "launch")
        return analysis::EdgeKind::Issue;
    return analysis::EdgeKind::Flag;
}

QString flowName(const profile::Profile& p, const profile::Flow& f)
{
    const profile::EventType& type = p.types[f.type];
    const QString name = QString::fromStdString(p.string(type.name));
    const QString category = QString::fromStdString(p.string(type.category));
    return category.isEmpty() || category == name ? name : category + QStringLiteral(" ") + name;
}

// Runs on the worker.
std::shared_ptr<ProfileGraphJob> buildGraph(std::shared_ptr<const ProfileRun> run,
                                            std::shared_ptr<const profile::FlowIndex> index,
                                            std::vector<bool> critical, std::uint32_t centre, int depth,
                                            const QFont& header, const QFont& body, const QFont& label)
{
    auto job = std::make_shared<ProfileGraphJob>();
    job->run = std::move(run);
    const profile::Profile& p = job->run->profile;
    // O(slices + flows): built here, off the GUI thread, by the first graph of a profile.
    job->index = index ? std::move(index) : std::make_shared<const profile::FlowIndex>(p);
    job->graph = profile::flowNeighbourhood(p, *job->index, centre, depth, kMaxNodes);
    for (const std::uint32_t slice : job->graph.slices) {
        const profile::Slice& s = p.slices[slice];
        NodeLook look;
        look.header =
            QObject::tr("%1 · %2 · %3")
                .arg(trackPath(p, s), formatDuration(s.start - p.startTime()), formatDuration(s.duration));
        QString name = QString::fromStdString(p.nameOf(s));
        if (name.size() > kMaxBodyChars)
            name = name.left(kMaxBodyChars - 1) + QChar(0x2026);
        look.body = name;
        look.centre = slice == centre;
        look.critical = slice < critical.size() && critical[slice];
        job->sizes.push_back(GraphNodeItem::sizeFor(look, header, body));
        job->looks.push_back(std::move(look));
    }
    LayoutRequest request;
    request.nodes = job->sizes;
    for (const profile::FlowGraph::Edge& e : job->graph.edges) {
        request.edges.emplace_back(e.from, e.to);
        // The time the dependency spans: from the end of one slice to the start of the next.
        const profile::Slice& from = p.slices[job->graph.slices[e.from]];
        const profile::Slice& to = p.slices[job->graph.slices[e.to]];
        const profile::Nanos gap = to.start - from.end();
        job->edgeLabels.push_back(gap > 0 ? QStringLiteral("+") + formatDuration(gap) : QString());
    }
    request.edgeLabels = job->edgeLabels;
    request.labelPointSize = QFontInfo(label).pointSizeF();
    job->layout = layoutWithDot(request);
    return job;
}

} // namespace

ProfileGraphView::ProfileGraphView(ProfileDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_scene(new QGraphicsScene(this)),
      m_canvas(new GraphCanvas(m_scene, this)), m_info(new QLabel(this)), m_legend(new QLabel(this)),
      m_depth(new QSpinBox(this))
{
    setObjectName(QStringLiteral("profileGraph"));
    m_pool.setMaxThreadCount(1);
    m_canvas->setObjectName(QStringLiteral("profileGraphCanvas"));
    m_canvas->setDragMode(QGraphicsView::ScrollHandDrag);
    m_canvas->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    m_canvas->onClick = [this](std::optional<std::size_t> node) {
        if (node && m_job && *node < m_job->graph.slices.size())
            m_document->selectSlice(m_job->graph.slices[*node], kOrigin);
    };
    m_canvas->onDoubleClick = [this](std::size_t node) {
        if (m_job && node < m_job->graph.slices.size())
            m_document->reveal(m_job->graph.slices[node], QStringLiteral("dependency graph centre"));
    };
    auto* fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show the whole graph"));
    connect(fit, &QToolButton::clicked, this, [this] {
        if (!m_scene->items().isEmpty())
            m_canvas->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    });
    m_depth->setRange(1, 6);
    m_depth->setValue(2);
    m_depth->setPrefix(tr("depth "));
    m_depth->setToolTip(
        tr("How many flows away from the selected slice the graph reaches (at most %1 slices)")
            .arg(kMaxNodes));
    connect(m_depth, &QSpinBox::valueChanged, this, [this] { startLayout(); });
    m_legend->setTextFormat(Qt::RichText);
    m_info->setTextFormat(Qt::RichText);
    m_info->setWordWrap(true);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(fit);
    bar->addWidget(m_depth);
    bar->addSpacing(8);
    bar->addWidget(m_legend, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_canvas, 1);
    layout->addWidget(m_info);

    connect(document, &ProfileDocument::loadStarted, this, &ProfileGraphView::reset);
    connect(document, &ProfileDocument::loaded, this, [this] {
        reset();
        const ProfileRun* run = m_document->run();
        if (!run)
            return;
        m_critical.assign(run->profile.slices.size(), false);
        for (const profile::PathSegment& s : run->analysis.criticalPath.segments)
            if (s.slice < m_critical.size())
                m_critical[s.slice] = true;
        if (m_document->selectedSlice() != profile::kNone) {
            centreOn(m_document->selectedSlice());
            return;
        }
        // Until something is selected: the longest stretch of the critical path that is not plain
        // compute (communication, a memcpy, a launch), where a dependency most likely costs time.
        const profile::PathSegment* best = nullptr;
        for (const profile::PathSegment& s : run->analysis.criticalPath.segments)
            if (s.slice != profile::kNone && s.kind != profile::PathSegmentKind::Kernel &&
                (!best || s.end - s.start > best->end - best->start))
                best = &s;
        for (const profile::PathSegment& s : run->analysis.criticalPath.segments)
            if (!best && s.slice != profile::kNone)
                best = &s;
        if (best)
            centreOn(best->slice);
    });
    connect(document, &ProfileDocument::selectionChanged, this, [this](const QString& origin) {
        if (origin != kOrigin && m_document->selectedSlice() != profile::kNone &&
            m_document->selectedSlice() != m_centre)
            centreOn(m_document->selectedSlice());
        showHighlights();
    });
    connect(&Theme::instance(), &Theme::changed, this, &ProfileGraphView::rebuildScene);
    reset();
}

ProfileGraphView::~ProfileGraphView()
{
    m_pool.clear();
    m_pool.waitForDone();
}

const profile::FlowGraph& ProfileGraphView::graph() const
{
    static const profile::FlowGraph kEmpty;
    return m_job ? m_job->graph : kEmpty;
}

QString ProfileGraphView::info() const
{
    return m_info->text();
}

QPoint ProfileGraphView::viewportPosition(std::size_t node) const
{
    if (node >= m_nodes.size())
        return {};
    return m_canvas->mapFromScene(m_nodes[node]->pos());
}

void ProfileGraphView::reset()
{
    ++m_generation;
    m_pending = 0;
    m_centre = profile::kNone;
    m_job.reset();
    m_index.reset();
    m_critical.clear();
    rebuildScene();
    m_info->setText(tr("<i>Select a slice to see what it depended on and what depended on it: data and "
                       "control dependencies, launches and other flows.</i>"));
}

void ProfileGraphView::centreOn(std::uint32_t slice)
{
    m_centre = slice;
    startLayout();
}

void ProfileGraphView::startLayout()
{
    std::shared_ptr<const ProfileRun> run = m_document->runHandle();
    if (!run || m_critical.size() != run->profile.slices.size() || m_centre == profile::kNone ||
        m_centre >= run->profile.slices.size())
        return;
    const std::uint64_t generation = ++m_generation;
    m_pending = generation;
    m_info->setText(tr("<i>Laying the graph out…</i>"));
    m_pool.clear(); // a request not started yet is superseded
    const QFont header = graphHeaderFont(font()), body = graphBodyFont(font()),
                label = graphLabelFont(font());
    m_pool.start([this, run, index = m_index, critical = m_critical, centre = m_centre,
                  depth = m_depth->value(), header, body, label, generation] {
        auto job = buildGraph(run, index, critical, centre, depth, header, body, label);
        QMetaObject::invokeMethod(
            this, [this, generation, job] { showResult(generation, job); }, Qt::QueuedConnection);
    });
}

void ProfileGraphView::showResult(std::uint64_t generation, std::shared_ptr<ProfileGraphJob> job)
{
    if (generation != m_generation)
        return; // superseded by a newer centre, depth or profile
    m_pending = 0;
    m_job = std::move(job);
    if (!m_index)
        m_index = m_job->index;
    rebuildScene();
    if (!m_scene->items().isEmpty())
        m_canvas->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    // Text stays readable: a large graph is shown around its centre at a legible scale instead.
    if (m_canvas->transform().m11() < 0.7 && !m_nodes.empty()) {
        m_canvas->resetTransform();
        m_canvas->scale(0.7, 0.7);
        m_canvas->centerOn(m_nodes.front());
    }
    emit laidOut();
}

void ProfileGraphView::rebuildScene()
{
    const Theme& theme = Theme::instance();
    m_scene->clear();
    m_nodes.clear();
    m_scene->setBackgroundBrush(theme.background());
    m_legend->clear();
    if (!m_job)
        return;
    const ProfileGraphJob& job = *m_job;
    const profile::Profile& p = job.run->profile;
    if (!job.layout.error.isEmpty()) {
        m_info->setText(tr("Could not lay the graph out: %1").arg(job.layout.error.toHtmlEscaped()));
        return;
    }
    std::set<std::pair<int, QString>> kinds; // for the legend: each flow type drawn
    const QFont header = graphHeaderFont(font()), body = graphBodyFont(font()),
                label = graphLabelFont(font());
    for (std::size_t i = 0; i < job.graph.edges.size() && i < job.layout.edges.size(); ++i) {
        const profile::FlowGraph::Edge& e = job.graph.edges[i];
        const profile::Flow& flow = p.flows[e.flow];
        const analysis::EdgeKind kind = edgeKindOf(p, flow);
        kinds.emplace(static_cast<int>(kind), flowName(p, flow));
        const bool critical = job.looks[e.from].critical && job.looks[e.to].critical;
        const LaidOutEdge& le = job.layout.edges[i];
        auto* item = new GraphEdgeItem(le.path, le.arrowBase, le.arrowTip, theme.edgeColor(kind), critical,
                                       job.edgeLabels[i], le.labelCentre, label);
        item->setToolTip(
            tr("%1: %2 → %3%4")
                .arg(flowName(p, flow), QString::fromStdString(p.nameOf(p.slices[flow.from])),
                     QString::fromStdString(p.nameOf(p.slices[flow.to])),
                     job.edgeLabels[i].isEmpty() ? QString() : tr(", %1 later").arg(job.edgeLabels[i])));
        m_scene->addItem(item);
    }
    for (std::size_t i = 0; i < job.graph.slices.size() && i < job.layout.centres.size(); ++i) {
        NodeLook look = job.looks[i];
        // The slice's colour, faint so the text reads; stronger for the centre the graph is built around.
        const QColor c = sliceColor(p, p.slices[job.graph.slices[i]]), bg = theme.background();
        const double t = look.centre ? 0.6 : 0.28;
        look.fill = QColor::fromRgbF(static_cast<float>(c.redF() * t + bg.redF() * (1 - t)),
                                     static_cast<float>(c.greenF() * t + bg.greenF() * (1 - t)),
                                     static_cast<float>(c.blueF() * t + bg.blueF() * (1 - t)));
        auto* item = new GraphNodeItem(i, look, job.sizes[i], header, body);
        item->setPos(job.layout.centres[i]);
        item->setToolTip(tr("%1<br>%2<i>Click to select it; double-click to centre the graph on it.</i>")
                             .arg(sliceSummary(p, job.graph.slices[i]),
                                  look.critical ? tr("On the critical path.<br>") : QString()));
        m_scene->addItem(item);
        m_nodes.push_back(item);
    }
    m_scene->setSceneRect(job.layout.bounds.adjusted(-20, -20, 20, 20));
    QString legend;
    for (const auto& [kind, name] : kinds)
        legend +=
            QStringLiteral("<span style='color:%1'>&#9644;</span>&nbsp;%2&nbsp;&nbsp; ")
                .arg(theme.edgeColor(static_cast<analysis::EdgeKind>(kind)).name(), name.toHtmlEscaped());
    legend += QStringLiteral("<span style='color:%1'>&#9608;</span>&nbsp;%2")
                  .arg(theme.critical().name(), tr("critical path"));
    m_legend->setText(legend);
    const profile::Slice& centre = p.slices[job.graph.slices.front()];
    const int depth = m_depth->value();
    m_info->setText(
        job.graph.edges.empty()
            ? tr("<b>%1</b> has no flows: nothing depends on it and it depends on nothing recorded.")
                  .arg(QString::fromStdString(p.nameOf(centre)).toHtmlEscaped())
            : tr("<b>%1</b> and the %2 slices within %3 flows of it%4 (%5 edges); the gap on an edge is the "
                 "time from the end of one slice to the start of the next.")
                  .arg(QString::fromStdString(p.nameOf(centre)).toHtmlEscaped())
                  .arg(job.graph.slices.size() - 1)
                  .arg(depth)
                  .arg(job.graph.truncated ? tr(" (the nearest %1; more are further out)").arg(kMaxNodes)
                                           : QString())
                  .arg(job.graph.edges.size()));
    showHighlights();
}

void ProfileGraphView::showHighlights()
{
    if (!m_job)
        return;
    for (GraphNodeItem* item : m_nodes)
        item->setHighlighted(m_job->graph.slices[item->index()] == m_document->selectedSlice());
}

} // namespace xps::ui
