#include "imported/profile_graph_source.h"
#include "selection/selection_model.h"

#include "imported/profile_document.h"
#include "imported/profile_text.h"

#include <algorithm>
#include <set>

namespace xps::ui {

namespace {

constexpr int kMaxBodyChars = 56;
const QString kOrigin = QStringLiteral("dependency graph");

// What the graph keeps of a profile's nodes after it is drawn: the neighbourhood, and the profile and
// flow index it points into.
struct ProfileGraphContent : GraphContent
{
    std::shared_ptr<const ProfileRun> run;
    std::shared_ptr<const profile::FlowIndex> index; // built by the first graph of a profile, then reused
    profile::FlowGraph graph;
};

// "rank 0 / compute": the slice's track under its process.
QString trackPath(const profile::Profile& p, const profile::Slice& s)
{
    const profile::Track& track = p.track(s.track());
    QString name = QString::fromStdString(track.name);
    if (track.parent.valid() && track.parent.value < p.tracks.size())
        name = QString::fromStdString(p.track(track.parent).name) + QStringLiteral(" / ") + name;
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

GraphContent::Node nodeOf(const profile::Profile& p, std::uint32_t slice, bool centre, bool critical,
                          const GraphFonts& fonts)
{
    const profile::Slice& s = p.slices[slice];
    GraphContent::Node node;
    node.key = ProfileGraphSource::keyOf(slice);
    node.look.header = QObject::tr("%1 · %2 · %3")
                           .arg(trackPath(p, s), formatDuration(p.timebase, s.start - p.startTime()),
                                formatDuration(p.timebase, s.duration));
    QString name = QString::fromStdString(p.nameOf(s));
    if (name.size() > kMaxBodyChars)
        name = name.left(kMaxBodyChars - 1) + QChar(0x2026);
    node.look.body = name;
    node.look.centre = centre;
    node.look.critical = critical;
    node.tint = sliceColor(p, s);
    node.size = GraphNodeItem::sizeFor(node.look, fonts.header, fonts.body);
    node.toolTip =
        QObject::tr("%1<br>%2<i>Click to select it everywhere; double-click to centre the graph on "
                    "it.</i>")
            .arg(sliceSummary(p, profile::SliceRow(slice)),
                 critical ? QObject::tr("On the critical path.<br>") : QString());
    return node;
}

QString infoOf(const profile::Profile& p, const ProfileGraphContent& c, int depth, std::size_t maxNodes)
{
    const QString centre = QString::fromStdString(p.nameOf(p.slices[c.graph.slices.front()])).toHtmlEscaped();
    if (c.graph.edges.empty())
        return QObject::tr(
                   "<b>%1</b> has no flows: nothing depends on it and it depends on nothing recorded.")
            .arg(centre);
    return QObject::tr(
               "<b>%1</b> and the %2 slices within %3 flows of it%4 (%5 edges); the gap on an edge is "
               "the time from the end of one slice to the start of the next.")
        .arg(centre)
        .arg(c.graph.slices.size() - 1)
        .arg(depth)
        .arg(c.graph.truncated ? QObject::tr(" (the nearest %1; more are further out)").arg(maxNodes)
                               : QString())
        .arg(c.graph.edges.size());
}

// Runs on the worker.
std::shared_ptr<GraphContent> build(std::shared_ptr<const ProfileRun> run,
                                    std::shared_ptr<const profile::FlowIndex> index,
                                    const std::vector<bool>& critical, std::uint32_t centre, int depth,
                                    std::size_t maxNodes, const GraphFonts& fonts)
{
    auto out = std::make_shared<ProfileGraphContent>();
    out->run = std::move(run);
    const profile::Profile& p = out->run->profile;
    // O(slices + flows): built here, off the GUI thread, by the first graph of a profile.
    out->index = index ? std::move(index) : std::make_shared<const profile::FlowIndex>(p);
    out->graph = profile::flowNeighbourhood(p, *out->index, centre, depth, maxNodes);
    if (out->graph.slices.empty())
        return nullptr;
    const auto isCritical = [&](std::uint32_t slice) { return slice < critical.size() && critical[slice]; };
    for (const std::uint32_t slice : out->graph.slices)
        out->nodes.push_back(nodeOf(p, slice, slice == centre, isCritical(slice), fonts));
    std::set<std::pair<analysis::EdgeKind, QString>> kinds; // for the legend: each flow type drawn
    for (const profile::FlowGraph::Edge& e : out->graph.edges) {
        const profile::Flow& flow = p.flows[e.flow];
        const profile::Slice& from = p.slice(flow.from);
        const profile::Slice& to = p.slice(flow.to);
        GraphContent::Edge edge;
        edge.from = e.from;
        edge.to = e.to;
        edge.kind = edgeKindOf(p, flow);
        edge.critical = isCritical(flow.from.value) && isCritical(flow.to.value);
        // The time the dependency spans: from the end of one slice to the start of the next.
        const profile::Ticks gap = to.start - from.end();
        if (gap > 0)
            edge.label = QStringLiteral("+") + formatDuration(p.timebase, gap);
        edge.toolTip = QObject::tr("%1: %2 → %3%4")
                           .arg(flowName(p, flow), QString::fromStdString(p.nameOf(from)).toHtmlEscaped(),
                                QString::fromStdString(p.nameOf(to)).toHtmlEscaped(),
                                edge.label.isEmpty() ? QString() : QObject::tr(", %1 later").arg(edge.label));
        kinds.emplace(edge.kind, flowName(p, flow));
        out->edges.push_back(std::move(edge));
    }
    out->legend.assign(kinds.begin(), kinds.end());
    out->info = infoOf(p, *out, depth, maxNodes);
    return out;
}

} // namespace

ProfileGraphSource::ProfileGraphSource(ProfileDocument* document)
    : GraphSource({tr("Select a slice to see what it depended on and what depended on it: data and control "
                      "dependencies, launches and other flows."),
                   6,
                   tr("How many flows away from the selected slice the graph reaches (at most %1 slices)")}),
      m_document(document)
{
    connect(document, &ProfileDocument::loadStarted, this, [this] {
        forget();
        emit cleared();
    });
    connect(document, &ProfileDocument::loaded, this, &ProfileGraphSource::load);
    connect(document->selection(), &SelectionModel::selectionChanged, this, [this] {
        if (m_document->selection()->selection().origin != kOrigin && m_document->selectedSlice().valid())
            emit follow(keyOf(m_document->selectedSlice().value));
        emit selectionChanged();
    });
}

void ProfileGraphSource::forget()
{
    m_index.reset();
    m_critical.reset();
}

void ProfileGraphSource::load()
{
    forget();
    emit cleared();
    const ProfileRun* run = m_document->run();
    if (!run)
        return;
    auto critical = std::make_shared<std::vector<bool>>(run->profile.slices.size(), false);
    for (const profile::PathSegment& s : run->analysis.criticalPath.segments)
        if (s.slice.value < critical->size())
            (*critical)[s.slice.value] = true;
    m_critical = std::move(critical);
    emit ready();
}

const profile::FlowGraph& ProfileGraphSource::graph() const
{
    static const profile::FlowGraph kEmpty;
    const auto* shown = shownAs<ProfileGraphContent>();
    return shown ? shown->graph : kEmpty;
}

std::optional<GraphNodeKey> ProfileGraphSource::initialCentre() const
{
    if (m_document->selectedSlice().valid())
        return keyOf(m_document->selectedSlice().value);
    return criticalPathCentre();
}

std::optional<GraphNodeKey> ProfileGraphSource::criticalPathCentre() const
{
    const ProfileRun* run = m_document->run();
    if (!run || !m_critical)
        return std::nullopt;
    // The longest stretch of the critical path that is not plain compute (communication, a memcpy, a
    // launch), else its first slice.
    const profile::PathSegment* best = nullptr;
    for (const profile::PathSegment& s : run->analysis.criticalPath.segments)
        if (s.slice.valid() && s.kind != profile::PathSegmentKind::Kernel &&
            (!best || s.end - s.start > best->end - best->start))
            best = &s;
    for (const profile::PathSegment& s : run->analysis.criticalPath.segments)
        if (!best && s.slice.valid())
            best = &s;
    if (!best)
        return std::nullopt;
    return keyOf(best->slice.value);
}

GraphSource::Build ProfileGraphSource::prepare(GraphNodeKey centre, int depth, std::size_t maxNodes) const
{
    std::shared_ptr<const ProfileRun> run = m_document->runHandle();
    const std::uint32_t slice = sliceOf(centre);
    if (!run || !m_critical || m_critical->size() != run->profile.slices.size() ||
        slice >= run->profile.slices.size())
        return {};
    return [run = std::move(run), index = m_index, critical = m_critical, slice, depth,
            maxNodes](const GraphFonts& fonts) {
        return build(run, index, *critical, slice, depth, maxNodes, fonts);
    };
}

void ProfileGraphSource::shownChanged()
{
    const auto* shown = shownAs<ProfileGraphContent>();
    if (shown && !m_index)
        m_index = shown->index; // the first graph of a profile built it: the next ones reuse it
}

bool ProfileGraphSource::isSelected(const GraphContent& content, std::size_t node) const
{
    return profile::SliceRow(static_cast<const ProfileGraphContent&>(content).graph.slices.at(node)) ==
           m_document->selectedSlice();
}

void ProfileGraphSource::select(const GraphContent& content, std::size_t node)
{
    const auto& c = static_cast<const ProfileGraphContent&>(content);
    const std::uint32_t slice = c.graph.slices.at(node);
    // Bring the slice into the shared range if it is outside it, keeping the zoom level.
    const profile::Slice& s = c.run->profile.slices[slice];
    const auto [from, to] = m_document->visibleRange();
    if (s.start < from || s.end() > to) {
        const profile::Ticks width = std::max(to - from, s.duration * 3 / 2 + 1);
        const profile::Ticks middle = s.start + s.duration / 2;
        m_document->setVisibleRange(middle - width / 2, middle - width / 2 + width);
    }
    m_document->selectSlice(profile::SliceRow(slice), kOrigin);
}

} // namespace xps::ui
