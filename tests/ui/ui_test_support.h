#pragma once
// Shared by the explorer's GUI suites: a Qt message handler that fails a test on any warning except the
// offscreen platform's own (it lacks window features), the test mode that keeps settings apart, and waiting
// for a window's replay and analyses to finish.

#include "main_window.h"
#include "session/replay_session.h"
#include "test_support.h"
#include "theme/theme.h"
#include "timeline/timeline_canvas.h"
#include "views/dependency_graph_view.h"
#include "views/replay_graph_source.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QImage>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QStandardPaths>
#include <QStringList>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QtGlobal>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace xps::test {

inline QStringList& unexpectedMessages()
{
    static QStringList messages;
    return messages;
}

inline void uiMessageHandler(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtDebugMsg || type == QtInfoMsg) {
        std::fprintf(stderr, "%s\n", qPrintable(message));
        return;
    }
    // The offscreen platform's own: it has no window manager to raise a popup or grab the keyboard for it.
    if (message.contains(QStringLiteral("propagateSizeHints")) ||
        message.contains(QStringLiteral("XDG_RUNTIME_DIR")) ||
        message.contains(QStringLiteral("This plugin does not support raise()")) ||
        message.contains(QStringLiteral("This plugin does not support grabbing the keyboard")))
        return;
    unexpectedMessages().push_back(message);
}

// Call from initTestCase().
inline void startUiTests()
{
    QStandardPaths::setTestModeEnabled(true);
    qInstallMessageHandler(uiMessageHandler);
}

// Call from cleanup(): the warnings since the last call (none expected).
inline QStringList takeUnexpectedMessages()
{
    return std::exchange(unexpectedMessages(), {});
}

// Until the window's run is replayed and analysed (true), or `timeoutMs` passed (false).
inline bool waitDone(ui::MainWindow& w, int timeoutMs = 60000)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        if (w.session()->run() && w.session()->stage() == ui::ReplaySession::Stage::Done)
            return true;
        QTest::qWait(10);
    }
    return false;
}

// Distinct colours in a widget's rendering (every third pixel each way): a blank or single-colour view has
// very few.
inline int distinctColours(QWidget* w)
{
    const QImage image = w->grab().toImage();
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    return static_cast<int>(colours.size());
}

// What is wrong with a time axis's labels as a person reads them ("" if nothing): each a time ("5.00 us"),
// at least three, every one a multiple of the smallest step between two, that step 1, 2 or 5 x 10^k ns.
inline QString axisLabelProblem(const ui::TimelineCanvas* canvas)
{
    std::vector<double> ns;
    QStringList labels;
    for (const ui::TimelineCanvas::DrawnTick& t : canvas->drawnTicks()) {
        labels << t.label;
        const QStringList parts = t.label.split(QLatin1Char(' '));
        const double scale = parts.value(1) == QLatin1String("ns")   ? 1.0
                             : parts.value(1) == QLatin1String("us") ? 1e3
                             : parts.value(1) == QLatin1String("ms") ? 1e6
                             : parts.value(1) == QLatin1String("s")  ? 1e9
                                                                     : 0.0;
        bool number = false;
        const double v = parts.value(0).toDouble(&number);
        if (parts.size() != 2 || !number || scale == 0.0)
            return QStringLiteral("not a time: '%1'").arg(t.label);
        ns.push_back(v * scale);
    }
    if (ns.size() < 3)
        return QStringLiteral("%1 labels: %2").arg(ns.size()).arg(labels.join(QStringLiteral(", ")));
    double step = 0;
    for (std::size_t i = 1; i < ns.size(); ++i)
        step = i == 1 ? ns[i] - ns[i - 1] : std::min(step, ns[i] - ns[i - 1]);
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    bool round =
        std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6;
    for (const double v : ns)
        round = round && std::abs(v / step - std::round(v / step)) < 1e-6;
    return round ? QString()
                 : QStringLiteral("not at round times: %1").arg(labels.join(QStringLiteral(", ")));
}

// `text` written to `name` in `dir`; its path.
inline QString writeTextFile(const QTemporaryDir& dir, const char* name, const char* text)
{
    const QString path = dir.filePath(QString::fromUtf8(name));
    writeFile(path.toStdString(), text);
    return path;
}

// Shows `w` at 1366x768 (the smallest screen the explorer is checked at), opens the bundled sample `name`
// (resources/samples/...) and waits until it is replayed and analysed (false if that took over a minute).
// Brings the dock a view sits in to the front of its tab group, as a click on its tab would (through the
// scroll area some docks wrap their view in).
inline void raiseDockOf(QWidget* view)
{
    for (QWidget* w = view; w; w = w->parentWidget())
        if (auto* dock = qobject_cast<QDockWidget*>(w)) {
            dock->raise();
            return;
        }
    QFAIL("the view is in no dock");
}

// A replay's dependency graph: the subgraph on screen, and the centre asked for last.
inline const analysis::Subgraph& replayGraph(const ui::DependencyGraphView* view)
{
    return qobject_cast<const ui::ReplayGraphSource*>(view->source())->graph();
}

inline std::optional<analysis::NodeRef> replayCentre(const ui::DependencyGraphView* view)
{
    if (const std::optional<ui::GraphNodeKey> centre = view->centre())
        return ui::ReplayGraphSource::nodeOf(*centre);
    return std::nullopt;
}

inline bool openSample(ui::MainWindow& w, const QString& name)
{
    w.resize(1366, 768);
    w.show();
    w.openFile(QString::fromStdString(sourceDir()) + QStringLiteral("/resources/samples/") + name);
    return waitDone(w);
}

// A Chrome trace of `kernels` kernel slices with Kineto's launch arguments (about 115 bytes each): 400,000
// make about 45 MB, long enough to watch (or cancel) an import.
inline std::string kernelTraceJson(int kernels)
{
    std::string json = "[";
    for (int i = 0; i < kernels; ++i)
        json +=
            (i ? ",\n" : "") + std::string(R"({"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":)") +
            std::to_string(i * 3) + R"(,"dur":2,"args":{"grid":[1,2,3],"block":[256,1,1],"correlation":)" +
            std::to_string(i + 1) + "}}";
    return json + "]";
}

// Answers the next text dialog as a person would: types `text` over what it proposes and presses Enter (a
// one-line dialog) or clicks OK (a multi-line one, where Enter starts a new line).
inline void answerNextDialog(const QString& text)
{
    QTimer::singleShot(0, [text] {
        auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
        QVERIFY(dialog);
        if (auto* edit = dialog->findChild<QLineEdit*>(); edit && edit->isVisible()) {
            edit->selectAll();
            QTest::keyClicks(edit, text);
            QTest::keyClick(edit, Qt::Key_Return);
            return;
        }
        auto* lines = dialog->findChild<QPlainTextEdit*>();
        QVERIFY(lines);
        lines->selectAll();
        QTest::keyClicks(lines, text);
        auto* buttons = dialog->findChild<QDialogButtonBox*>();
        QVERIFY(buttons && buttons->button(QDialogButtonBox::Ok));
        QTest::mouseClick(buttons->button(QDialogButtonBox::Ok), Qt::LeftButton);
    });
}

// Once the next popup menu is open: clicks its item whose text starts with `prefix` (and fails if there is
// none, closing the menu). Its texts are kept in `seen` for the test to look at.
inline void clickNextMenuItem(const QString& prefix, QStringList* seen = nullptr)
{
    QTimer::singleShot(0, [prefix, seen] {
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        QVERIFY(menu);
        QAction* chosen = nullptr;
        for (QAction* a : menu->actions()) {
            if (seen)
                seen->push_back(a->text());
            if (!chosen && a->text().startsWith(prefix))
                chosen = a;
        }
        if (!chosen) {
            menu->close();
            QFAIL(qPrintable(QStringLiteral("no menu item starts with ") + prefix));
        }
        QTest::mouseClick(menu, Qt::LeftButton, Qt::NoModifier, menu->actionGeometry(chosen).center());
    });
}

// With XPS_SHOT_DIR=DIR: saves `window` with each of `tabs`' pages at 1366x768 and 1920x1080, light and
// dark, as DIR/PREFIX-TAB-WxH-THEME.png, to be looked at; then back to light and the first page.
inline void saveTabShots(QWidget* window, QTabWidget* tabs, const QString& prefix)
{
    const QByteArray dir = qgetenv("XPS_SHOT_DIR");
    if (dir.isEmpty())
        return;
    for (int tab = 0; tab < tabs->count(); ++tab)
        for (const auto kind : {ui::Theme::Kind::Light, ui::Theme::Kind::Dark})
            for (const QSize size : {QSize(1366, 768), QSize(1920, 1080)}) {
                ui::Theme::instance().apply(kind);
                tabs->setCurrentIndex(tab);
                window->resize(size);
                QTest::qWait(250);
                window->grab().save(
                    QDir(QString::fromLocal8Bit(dir))
                        .filePath(QStringLiteral("%1-%2-%3x%4-%5.png")
                                      .arg(prefix)
                                      .arg(tab)
                                      .arg(size.width())
                                      .arg(size.height())
                                      .arg(kind == ui::Theme::Kind::Dark ? QStringLiteral("dark")
                                                                         : QStringLiteral("light"))));
            }
    ui::Theme::instance().apply(ui::Theme::Kind::Light);
    tabs->setCurrentIndex(0);
}

} // namespace xps::test
