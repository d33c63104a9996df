// xpushark: the desktop explorer. With a TRACE it opens and replays it; without, it shows the welcome page.
// --screenshot renders the window (or one view) after the replay and its analyses finish, saves a PNG and
// exits: for documentation and automated checks.

#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "imported/profile_panels.h"
#include "main_window.h"
#include "session/replay_session.h"
#include "stablehlo/retype.h"
#include "theme/theme.h"
#include "views/dependency_graph_view.h"
#include "views/suggestions_view.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QTimer>
#include <QTreeWidget>

#include <algorithm>
#include <cstdio>

namespace {

int fail(const QString& message)
{
    std::fprintf(stderr, "xpushark: %s\n", qPrintable(message));
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("xpushark"));
    QApplication::setApplicationName(QStringLiteral("xpushark"));
    QApplication::setApplicationVersion(QStringLiteral(XPS_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Performance explorer for ML accelerators"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Replay TRACE, render, save a PNG to FILE and exit."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption view(QStringLiteral("view"),
                                  QStringLiteral("With --screenshot: only this view (%1).")
                                      .arg(xps::ui::MainWindow::viewNames().join(QStringLiteral(", "))),
                                  QStringLiteral("NAME"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("With --screenshot: window size (default 1600x1000)."),
                                  QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    const QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("light or dark."),
                                   QStringLiteral("THEME"));
    const QCommandLineOption suggestion(
        QStringLiteral("show-suggestion"),
        QStringLiteral("With --screenshot: show the evidence of the Nth suggestion (1 = best)."),
        QStringLiteral("N"));
    const QCommandLineOption presentation(
        QStringLiteral("presentation"),
        QStringLiteral("Start in presentation mode (full screen, larger text, thicker lines)."));
    const QCommandLineOption raise(QStringLiteral("raise"),
                                   QStringLiteral("Bring this view's tab to the front in the window (%1).")
                                       .arg(xps::ui::MainWindow::viewNames().join(QStringLiteral(", "))),
                                   QStringLiteral("NAME"));
    const QCommandLineOption dtype(
        QStringLiteral("dtype"),
        QStringLiteral("A model (.mlir) runs with every float tensor as this type: bf16, f16 or f32."),
        QStringLiteral("TYPE"));
    parser.addOptions({screenshot, view, size, theme, suggestion, presentation, raise, dtype});
    parser.addPositionalArgument(
        QStringLiteral("TRACE"),
        QStringLiteral(
            "A trace (.xtrace.json, .xps, .xasm) or a profile to import "
            "(Chrome / Perfetto / PyTorch profiler JSON, .json.gz, XProf .xplane.pb, Chakra .et or JSON)"));
    parser.process(app);

    const QStringList args = parser.positionalArguments();
    if (args.size() > 1)
        return fail(QStringLiteral("expected at most one TRACE, got %1").arg(args.size()));
    const bool shooting = parser.isSet(screenshot);
    if (shooting && args.isEmpty())
        return fail(QStringLiteral("--screenshot needs a TRACE"));
    if (parser.isSet(view) && !xps::ui::MainWindow::viewNames().contains(parser.value(view)))
        return fail(
            QStringLiteral("unknown view '%1'; expected one of %2")
                .arg(parser.value(view), xps::ui::MainWindow::viewNames().join(QStringLiteral(", "))));
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    bool okW = false, okH = false;
    const int width = wh.size() == 2 ? wh[0].toInt(&okW) : 0, height = wh.size() == 2 ? wh[1].toInt(&okH) : 0;
    if (!okW || !okH || width < 320 || height < 240 || width > 8000 || height > 8000)
        return fail(QStringLiteral("--size: expected WxH between 320x240 and 8000x8000, got '%1'")
                        .arg(parser.value(size)));
    bool okShown = true;
    const int shown = parser.isSet(suggestion) ? parser.value(suggestion).toInt(&okShown) : 0;
    if (!okShown || shown < 0)
        return fail(QStringLiteral("--show-suggestion: expected a suggestion number (1 = best), got '%1'")
                        .arg(parser.value(suggestion)));
    if (parser.isSet(theme) && parser.value(theme) != QStringLiteral("light") &&
        parser.value(theme) != QStringLiteral("dark"))
        return fail(QStringLiteral("--theme: expected light or dark, got '%1'").arg(parser.value(theme)));
    if (parser.isSet(dtype) && !xps::shlo::floatTypeNamed(parser.value(dtype).toStdString()))
        return fail(QStringLiteral("--dtype: expected bf16, f16 or f32, got '%1'").arg(parser.value(dtype)));
    if (parser.isSet(dtype) && (args.isEmpty() || !args.front().endsWith(QStringLiteral(".mlir"))))
        return fail(QStringLiteral("--dtype applies to a model (.mlir)"));

    xps::ui::MainWindow window(!shooting);
    if (parser.isSet(theme))
        xps::ui::Theme::instance().apply(parser.value(theme) == QStringLiteral("dark")
                                             ? xps::ui::Theme::Kind::Dark
                                             : xps::ui::Theme::Kind::Light);
    if (shooting)
        window.resize(width, height);
    window.show();
    if (parser.isSet(presentation))
        window.setPresentationMode(true);
    if (shooting && parser.isSet(view))
        window.isolateView(parser.value(view), QSize(width, height));
    QDockWidget* raisedDock = nullptr; // the view's own, through a scroll area if it has one
    if (parser.isSet(raise)) {
        for (QWidget* w = window.viewByName(parser.value(raise)); w && !raisedDock; w = w->parentWidget())
            raisedDock = qobject_cast<QDockWidget*>(w);
        if (!raisedDock)
            return fail(QStringLiteral("--raise: '%1' is not a view in a tab").arg(parser.value(raise)));
        raisedDock->raise();
    }
    if (args.isEmpty())
        return QApplication::exec();

    int exitCode = 0;
    if (shooting) {
        const QString out = parser.value(screenshot);
        const QString viewName = parser.value(view);
        QObject::connect(window.session(), &xps::ui::ReplaySession::openFailed, &app,
                         [&](const QString& message) {
                             exitCode = fail(message);
                             QApplication::exit(exitCode);
                         });
        // Grabs once queued replots have run and the dependency graph's layout (on its own worker) has
        // landed.
        const auto grabWhenSettled = [&, out, viewName] {
            auto* settle = new QTimer(&app);
            settle->setInterval(100);
            QObject::connect(settle, &QTimer::timeout, &app, [&, settle, out, viewName, ticks = 0]() mutable {
                const auto graphs = window.findChildren<xps::ui::DependencyGraphView*>();
                const bool layingOut =
                    std::any_of(graphs.begin(), graphs.end(), [](auto* g) { return g->isLayingOut(); });
                if (++ticks < 3 || (layingOut && ticks < 100))
                    return;
                settle->stop();
                QWidget* target =
                    viewName.isEmpty() ? static_cast<QWidget*>(&window) : window.viewByName(viewName);
                if (!target) {
                    exitCode = fail(QStringLiteral("view '%1' is not available").arg(viewName));
                } else if (!target->grab().save(out)) {
                    exitCode = fail(QStringLiteral("could not write %1").arg(out));
                } else {
                    std::printf("wrote %s\n", qPrintable(out));
                }
                QApplication::exit(exitCode);
            });
            settle->start();
        };
        QObject::connect(window.session(), &xps::ui::ReplaySession::stageChanged, &app,
                         [&, shown, grabWhenSettled, raisedDock](auto stage) {
                             if (stage != xps::ui::ReplaySession::Stage::Done)
                                 return;
                             // Again: a tab shown only for some traces (recorded timing) appears as the
                             // trace opens, after the first raise.
                             if (raisedDock)
                                 raisedDock->raise();
                             if (viewName == QStringLiteral("replay-profile") ||
                                 viewName == QStringLiteral("replay-transfers")) {
                                 window.showReplayAsProfile(); // grabbed once the profile has loaded
                                 return;
                             }
                             if (shown > 0)
                                 window.suggestions()->showEvidence(shown - 1);
                             grabWhenSettled();
                         });
        // An imported profile: shown once imported and analysed; --show-suggestion N selects its Nth finding.
        QObject::connect(window.profileDocument(), &xps::ui::ProfileDocument::loaded, &app,
                         [&, shown, grabWhenSettled, viewName] {
                             auto* findings = window.profileExplorer()->summary()->findings();
                             if (shown > 0 && shown <= findings->topLevelItemCount())
                                 findings->setCurrentItem(findings->topLevelItem(shown - 1));
                             if (viewName == QStringLiteral("profile-graph"))
                                 window.profileExplorer()->showGraph();
                             if (viewName == QStringLiteral("profile-transfers") ||
                                 viewName == QStringLiteral("replay-transfers"))
                                 window.profileExplorer()->showTransfers();
                             if (viewName == QStringLiteral("profile-notes"))
                                 window.profileExplorer()->showNotes();
                             grabWhenSettled();
                         });
        QObject::connect(window.profileDocument(), &xps::ui::ProfileDocument::failed, &app,
                         [&](const QString& message) {
                             exitCode = fail(message);
                             QApplication::exit(exitCode);
                         });
    }
    window.openFile(args.front(), parser.value(dtype));
    const int code = QApplication::exec();
    return shooting ? exitCode : code;
}
