// The explorer's first picture: how long after File > Open of a long trace the timeline first shows
// replayed events, at several sizes (default 1, 3, 10, 30 and 100 M bundles of the 4-chip stress loop).
// The whole main window is built and shown (1600 x 1000, offscreen), as a user sees it; the clock runs from
// openFile() to the first frame of the timeline with rows in it painted after the session announced bundle
// issues. The replay goes on in the background meanwhile: the bench also reports how far it had come, the
// longest the GUI thread went without serving a 10 ms timer between open and first picture (a stall the user
// would feel), and then cancels.
//
//   bench_first_picture [MILLIONS ...]
//
// XPS_BENCH_SHOT=DIR saves each first picture as DIR/first_picture_N.png, to look at.
#include "main_window.h"
#include "session/replay_session.h"
#include "views/timeline_view.h"
#include "workloads/workloads.h"

#include "bench_args.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace xps;

namespace {

bool measure(std::uint64_t millions, const QString& dir)
{
    constexpr int kChips = 4;
    const QString path = dir + QStringLiteral("/stress_%1M.xasm").arg(millions);
    QFile file(path);
    const auto text = workloads::generateAssembly(
        "stress", "", {{"chips", kChips}, {"bundles", static_cast<std::int64_t>(millions * 1'000'000)}});
    if (!text || !file.open(QIODevice::WriteOnly) || file.write(QByteArray::fromStdString(*text)) < 0) {
        std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
        return false;
    }
    file.close();

    ui::MainWindow window(false);
    window.resize(1600, 1000);
    window.show();
    QTest::qWait(100); // the window's own first layout and paint are not the trace's

    ui::ReplaySession* session = window.session();
    // The session announced bundle issues (not only DMAs and waits: the first picture has every row).
    bool announced = false;
    double firstPictureMs = -1; // first frame painted after that
    std::uint64_t bundlesAtPicture = 0;
    QElapsedTimer clock;
    QObject::connect(session, &ui::ReplaySession::eventsChanged, &window, [&] {
        const ui::Run* run = session->run();
        announced = announced || (run && run->store.bundleCount() > 0);
    });
    QObject::connect(window.timeline()->canvas(), &ui::TimelineCanvas::framePainted, &window, [&] {
        if (!announced || firstPictureMs >= 0)
            return;
        firstPictureMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
        if (const ui::Run* run = session->run())
            bundlesAtPicture = run->store.bundleCount();
    });
    bool failed = false;
    QObject::connect(session, &ui::ReplaySession::openFailed, &window, [&](const QString& message) {
        std::fprintf(stderr, "%s\n", qPrintable(message));
        failed = true;
    });

    // The GUI thread's longest gap between ticks of a 10 ms timer while waiting for the picture.
    QElapsedTimer tickClock;
    double longestGapMs = 0;
    QTimer ticker;
    ticker.setInterval(10);
    QObject::connect(&ticker, &QTimer::timeout, &window, [&] {
        longestGapMs = std::max(longestGapMs, static_cast<double>(tickClock.nsecsElapsed()) / 1e6);
        tickClock.restart();
    });

    clock.start();
    tickClock.start();
    ticker.start();
    window.openFile(path);
    while (firstPictureMs < 0 && !failed && clock.elapsed() < 60'000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    ticker.stop();
    if (failed || firstPictureMs < 0) {
        std::fprintf(stderr, "%llu M bundles: no picture within 60 s\n",
                     static_cast<unsigned long long>(millions));
        return false;
    }
    std::printf(
        "%4llu M bundles: first picture %.0f ms after open (%.2f M bundles replayed by then); longest "
        "GUI-thread gap meanwhile %.0f ms\n",
        static_cast<unsigned long long>(millions), firstPictureMs,
        static_cast<double>(bundlesAtPicture) / 1e6, longestGapMs);
    std::fflush(stdout);
    const QByteArray shots = qgetenv("XPS_BENCH_SHOT");
    if (!shots.isEmpty())
        window.grab().save(QString::fromLocal8Bit(shots) +
                           QStringLiteral("/first_picture_%1M.png").arg(millions));

    // Cancel the replay, then the analyses of the partial replay that a cancel still runs.
    for (int i = 0; i < 50 && session->isBusy(); ++i) {
        session->cancel();
        QTest::qWait(20);
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    bench::useOffscreenUnlessSet();
    QApplication app(argc, argv);
    QTemporaryDir dir;
    const std::vector<std::uint64_t> sizes = bench::sizesFromArgs(argc, argv, 1, {1, 3, 10, 30, 100});
    for (const std::uint64_t millions : sizes)
        if (!measure(millions, dir.path()))
            return 1;
    return 0;
}
