#include "views/replay_graph_source.h"

#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "views/event_text.h"

#include <algorithm>

namespace xps::ui {

namespace {

constexpr int kMaxBodyChars = 64;
// The selection's origin when the graph made it: the graph does not follow its own clicks.
QString graphOrigin()
{
    return QObject::tr("dependency graph");
}

// What the graph keeps of a replay's nodes after it is drawn: the subgraph, for highlights and clicks.
struct ReplayGraphContent : GraphContent
{
    analysis::Subgraph graph;
};

QString elided(QString text)
{
    text.replace(QLatin1Char('\n'), QStringLiteral(" ; "));
    if (text.size() > kMaxBodyChars)
        text = text.left(kMaxBodyChars - 1) + QChar(0x2026);
    return text;
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

GraphContent::Node nodeOf(const Run& run, const analysis::GraphNode& n, analysis::NodeRef centre,
                          const GraphFonts& fonts)
{
    GraphContent::Node node;
    node.key = ReplayGraphSource::keyOf(n.ref);
    node.look.critical = n.critical;
    node.look.centre = n.ref == centre;
    events::DmaRecord d;
    if (n.ref.kind == analysis::NodeRef::Kind::Dma &&
        run.lanes->dma(static_cast<std::uint32_t>(n.ref.index), d)) {
        node.look.header =
            QObject::tr("DMA %1 · chip %2%3 · cycles %4–%5")
                .arg(d.id)
                .arg(d.chip.value)
                .arg(d.dstChip != d.chip ? QStringLiteral("→%1").arg(d.dstChip.value) : QString())
                .arg(cyclesText(d.issue), cyclesText(d.end));
        node.look.body = elided(dmaSummary(*run.trace, d));
        // A DMA's path colour is the same in both themes: safe to read on the worker.
        node.tint = Theme::instance().dmaColor(analysis::dmaPathClass(d));
    } else {
        node.look.header =
            QObject::tr("chip %1 · pc %2 · cycle %3").arg(n.chip.value).arg(n.pc).arg(cyclesText(n.start));
        node.look.body = elided(bundleText(*run.trace, n.chip, n.pc));
    }
    node.size = GraphNodeItem::sizeFor(node.look, fonts.header, fonts.body);
    node.toolTip = QObject::tr("<b>%1</b><br><tt>%2</tt><br>%3%4<br><i>Click to select it everywhere; "
                               "double-click to centre the graph on it.</i>")
                       .arg(node.look.header.toHtmlEscaped(), QString::fromStdString(n.label).toHtmlEscaped(),
                            n.critical ? QObject::tr("On the critical path. ") : QString(),
                            n.ref.kind == analysis::NodeRef::Kind::Dma
                                ? QObject::tr("Transfer took %1 cycles.").arg(cyclesText(n.end - n.start))
                                : QString());
    return node;
}

QString infoOf(const Run& run, const ReplayGraphContent& c)
{
    const analysis::CriticalPath& path = run.analyses.criticalPath;
    QString composition;
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        if (path.share(static_cast<analysis::PathKind>(k)) >= 0.0005)
            composition +=
                QObject::tr("%1 %2%, ")
                    .arg(QString::fromUtf8(analysis::pathKindName(static_cast<analysis::PathKind>(k))))
                    .arg(100.0 * path.share(static_cast<analysis::PathKind>(k)), 0, 'f', 1);
    composition.chop(2);
    const analysis::GraphNode& centre = c.graph.nodes.front();
    const auto criticalNodes = std::count_if(c.graph.nodes.begin(), c.graph.nodes.end(),
                                             [](const analysis::GraphNode& n) { return n.critical; });
    return QObject::tr("<b>Centre:</b> %1 — %2.<br>%3 nodes (%5 on the critical path), %4 edges. <b>Critical "
                       "path</b> %6 cycles: %7.")
        .arg(c.nodes.front().look.header.toHtmlEscaped(),
             centre.critical ? QObject::tr("on the critical path") : QObject::tr("not on the critical path"))
        .arg(c.graph.nodes.size())
        .arg(c.graph.edges.size())
        .arg(criticalNodes)
        .arg(cyclesText(path.total()), composition);
}

// Runs on the worker: the subgraph and the words of each node and edge.
std::shared_ptr<GraphContent> build(const Run& run, analysis::NodeRef centre, int depth, std::size_t maxNodes,
                                    const GraphFonts& fonts)
{
    auto out = std::make_shared<ReplayGraphContent>();
    out->graph = run.graph->subgraph(centre, depth, maxNodes);
    if (out->graph.nodes.empty())
        return nullptr;
    for (const analysis::GraphNode& n : out->graph.nodes)
        out->nodes.push_back(nodeOf(run, n, centre, fonts));
    const auto& edges = out->graph.edges;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const analysis::GraphEdge& e = edges[i];
        // Parallel edges (e.g. order and data between the same two bundles) share one label; one-cycle
        // steps go unlabelled.
        const bool firstOfPair =
            std::none_of(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(i),
                         [&](const analysis::GraphEdge& o) { return o.from == e.from && o.to == e.to; });
        GraphContent::Edge edge{e.from, e.to, e.kind, e.critical, {}, {}};
        if (e.cycles > 1 && firstOfPair)
            edge.label = QObject::tr("%1 cy").arg(cyclesText(e.cycles));
        edge.toolTip = QObject::tr("%1 dependency, %2 cycles%3")
                           .arg(edgeWords(e.kind), cyclesText(e.cycles),
                                e.critical ? QObject::tr(", on the critical path") : QString());
        out->edges.push_back(std::move(edge));
    }
    for (int k = 0; k <= static_cast<int>(analysis::EdgeKind::Structural); ++k) {
        const auto kind = static_cast<analysis::EdgeKind>(k);
        out->legend.emplace_back(kind, QString::fromUtf8(analysis::edgeKindName(kind)));
    }
    out->info = infoOf(run, *out);
    return out;
}

} // namespace

ReplayGraphSource::ReplayGraphSource(ReplaySession* session, SelectionModel* selection)
    : GraphSource(
          {tr("The graph appears when the analyses are done. Click an event in any view to see what it "
              "waited for and what waited for it."),
           4, tr("How many edges away from the centre the graph reaches (at most %1 nodes)")}),
      m_session(session), m_selection(selection)
{
    connect(session, &ReplaySession::opened, this, &GraphSource::cleared);
    connect(session, &ReplaySession::analysesCancelled, this, [this] {
        emit message(QStringLiteral("<i>%1</i>").arg(ReplaySession::analysesCancelledText().toHtmlEscaped()));
    });
    connect(session, &ReplaySession::analysesReady, this, &GraphSource::ready);
    connect(selection, &SelectionModel::selectionChanged, this, [this] {
        const Selection& s = m_selection->selection();
        if (s.focus && s.origin != graphOrigin())
            emit follow(keyOf(*s.focus));
        emit selectionChanged();
    });
}

GraphNodeKey ReplayGraphSource::keyOf(analysis::NodeRef node)
{
    return GraphNodeKey{(static_cast<std::uint64_t>(node.kind) << 56) | node.index};
}

analysis::NodeRef ReplayGraphSource::nodeOf(GraphNodeKey key)
{
    analysis::NodeRef node;
    node.kind = static_cast<analysis::NodeRef::Kind>(key.value >> 56);
    node.index = key.value & ((std::uint64_t{1} << 56) - 1);
    return node;
}

const analysis::Subgraph& ReplayGraphSource::graph() const
{
    static const analysis::Subgraph kEmpty;
    const auto* shown = shownAs<ReplayGraphContent>();
    return shown ? shown->graph : kEmpty;
}

std::optional<GraphNodeKey> ReplayGraphSource::initialCentre() const
{
    if (const auto& focus = m_selection->selection().focus)
        return keyOf(*focus);
    return criticalPathCentre();
}

std::optional<GraphNodeKey> ReplayGraphSource::criticalPathCentre() const
{
    const Run* run = m_session->run();
    if (!run || !run->graph || !m_session->analysesAvailable())
        return std::nullopt;
    const analysis::CriticalPath& path = run->analyses.criticalPath;
    if (path.longestStall == analysis::CriticalPath::kNoSegment)
        return std::nullopt;
    const analysis::PathSegment* longest = &path.segments.at(path.longestStall);
    return keyOf(longest->end);
}

GraphSource::Build ReplayGraphSource::prepare(GraphNodeKey centre, int depth, std::size_t maxNodes) const
{
    std::shared_ptr<const Run> run = m_session->runHandle();
    if (!run || !run->graph || !m_session->analysesAvailable())
        return {};
    return [run = std::move(run), centre = nodeOf(centre), depth, maxNodes](const GraphFonts& fonts) {
        return build(*run, centre, depth, maxNodes, fonts);
    };
}

bool ReplayGraphSource::isSelected(const GraphContent& content, std::size_t node) const
{
    const analysis::GraphNode& n = static_cast<const ReplayGraphContent&>(content).graph.nodes.at(node);
    const Selection& s = m_selection->selection();
    return (s.focus && *s.focus == n.ref) || (n.ref.kind == analysis::NodeRef::Kind::Dma
                                                  ? s.containsDma(static_cast<std::uint32_t>(n.ref.index))
                                                  : s.containsPc(n.chip, n.pc));
}

void ReplayGraphSource::select(const GraphContent& content, std::size_t node)
{
    const analysis::GraphNode& n = static_cast<const ReplayGraphContent&>(content).graph.nodes.at(node);
    Selection s;
    s.origin = graphOrigin();
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

} // namespace xps::ui
