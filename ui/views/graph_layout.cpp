#include "views/graph_layout.h"

#include <graphviz/gvc.h>

#include <memory>
#include <mutex>
#include <string>

// The `dot` layout engine's plugin library, linked in so the layout does not depend on the plugin
// configuration file that Debian's libgvc6 writes at install time.
extern "C" {
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
}

namespace xps::ui {
namespace {

constexpr double kPointsPerInch = 72.0;

std::mutex& graphvizMutex()
{
    static std::mutex mutex;
    return mutex;
}

GVC_t* context()
{
    // One context for the program's life: creating one loads plugins, and Graphviz leaks a little on
    // gvFreeContext in 2.42.
    static lt_symlist_t builtins[] = {{"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
                                      {nullptr, nullptr}};
    static GVC_t* gvc = gvContextPlugins(builtins, 0);
    return gvc;
}

// Graphviz's C API takes mutable char* for names and values it only reads.
char* str(const char* s) { return const_cast<char*>(s); }

void set(void* object, const char* name, const std::string& value)
{
    agsafeset(object, str(name), str(value.c_str()), str(""));
}

std::string inches(double pixels) { return std::to_string(pixels / kPointsPerInch); }

} // namespace

GraphLayout layoutWithDot(const LayoutRequest& request)
{
    GraphLayout out;
    if (request.nodes.empty())
        return out;
    const std::lock_guard lock(graphvizMutex());
    GVC_t* gvc = context();
    if (!gvc) {
        out.error = QStringLiteral("Graphviz could not be initialised");
        return out;
    }
    Agraph_t* graph = agopen(str("dependencies"), Agdirected, nullptr);
    const auto closeGraph = [&](Agraph_t* g) {
        gvFreeLayout(gvc, g);
        agclose(g);
    };
    const std::unique_ptr<Agraph_t, decltype(closeGraph)> owner(graph, closeGraph);
    set(graph, "rankdir", request.leftToRight ? "LR" : "TB");
    set(graph, "nodesep", "0.3");
    set(graph, "ranksep", "0.5");
    set(graph, "splines", "spline");

    std::vector<Agnode_t*> nodes;
    nodes.reserve(request.nodes.size());
    for (std::size_t i = 0; i < request.nodes.size(); ++i) {
        const std::string name = "n" + std::to_string(i);
        Agnode_t* n = agnode(graph, str(name.c_str()), 1);
        set(n, "shape", "box");
        set(n, "fixedsize", "true");
        set(n, "label", "");
        set(n, "width", inches(request.nodes[i].width()));
        set(n, "height", inches(request.nodes[i].height()));
        nodes.push_back(n);
    }
    std::vector<Agedge_t*> edges;
    edges.reserve(request.edges.size());
    for (const auto& [from, to] : request.edges) {
        if (from >= nodes.size() || to >= nodes.size()) {
            out.error = QStringLiteral("edge names a node that does not exist");
            return out;
        }
        // A nameless edge with create=1 adds a new edge each time, so parallel edges of different kinds
        // are routed side by side.
        Agedge_t* e = agedge(graph, nodes[from], nodes[to], nullptr, 1);
        if (const std::size_t i = edges.size(); i < request.edgeLabels.size() && !request.edgeLabels[i].isEmpty()) {
            // Graphviz estimates the label's size from Helvetica's metrics (no font renderer is loaded);
            // the view draws it in the UI font, which is about as wide.
            set(e, "label", request.edgeLabels[i].toStdString());
            set(e, "fontname", "Helvetica");
            set(e, "fontsize", std::to_string(request.labelPointSize));
        }
        edges.push_back(e);
    }
    if (gvLayout(gvc, graph, "dot") != 0) {
        out.error = QStringLiteral("Graphviz dot failed to lay the graph out");
        return out;
    }

    // Graphviz measures in points with y up; the scene is in pixels with y down.
    const boxf bb = GD_bb(graph);
    const auto toScene = [&](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };
    out.bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    out.centres.reserve(nodes.size());
    for (Agnode_t* n : nodes)
        out.centres.push_back(toScene(ND_coord(n)));
    out.edges.reserve(edges.size());
    for (Agedge_t* e : edges) {
        LaidOutEdge le;
        const splines* spl = ED_spl(e);
        if (spl && spl->size > 0 && spl->list[0].size > 0) {
            const bezier& bz = spl->list[0];
            le.path.moveTo(toScene(bz.list[0]));
            for (int i = 1; i + 2 < bz.size; i += 3)
                le.path.cubicTo(toScene(bz.list[i]), toScene(bz.list[i + 1]), toScene(bz.list[i + 2]));
            le.arrowBase = toScene(bz.list[bz.size - 1]);
            le.arrowTip = bz.eflag ? toScene(bz.ep) : le.arrowBase;
        }
        if (const textlabel_t* label = ED_label(e); label && label->set)
            le.labelCentre = toScene(label->pos);
        out.edges.push_back(std::move(le));
    }
    return out;
}

} // namespace xps::ui
