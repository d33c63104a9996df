// Timeline redraw time and memory at about 1M and 10M events: replays a generated 4-chip loop (scalar,
// vector, load/store, a DMA and a flag wait every 8 bundles) through the explorer's ReplaySession, then
// times full repaints of the timeline (1600 x 1000, offscreen) at five zoom levels, from the whole run (level
// of detail from the bins) down to 2,000 cycles (one bar per bundle, with labels).
// Prints per zoom level the median and worst repaint and the canvas's own share (its paintEvent), and the
// memory of the event store, of the lanes and the process's peak RSS.
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "views/timeline_view.h"
#include "workloads/workloads.h"

#include "bench_args.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdio>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace xps;

namespace {

double peakRssMiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void measure(std::uint64_t targetEvents, const QString& dir)
{
    constexpr int kChips = 4;
    // About 1.63 events per bundle in this loop (bundle issues, VMEM accesses, DMAs, waits): 8 bundles an
    // iteration per chip.
    const std::uint64_t iterations = std::max<std::uint64_t>(1, targetEvents * 100 / 163 / 8 / kChips);
    const QString path = dir + QStringLiteral("/stress_%1.xasm").arg(targetEvents);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QByteArray::fromStdString(
                                       workloads::generateAssembly("stress", "", {{"chips", kChips}, {"bundles", static_cast<std::int64_t>(iterations * 8 * kChips)}})
                                           .value())) < 0) {
        std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
        std::exit(1);
    }
    file.close();

    ui::ReplaySession session;
    ui::SelectionModel selection;
    ui::TimelineView timeline(&session, &selection);
    timeline.resize(1600, 1000);
    timeline.show();
    bool ended = false;
    QObject::connect(&session, &ui::ReplaySession::replayEnded, &session, [&] {
        ended = true;
        session.cancel(); // the analyses are not what is measured here
    });
    QElapsedTimer clock;
    clock.start();
    session.open(path, sim::ReplayMode::TimingOnly);
    while (!ended || session.isBusy())
        QTest::qWait(20);
    const double replaySeconds = static_cast<double>(clock.elapsed()) / 1000.0;
    const ui::Run* run = session.run();
    if (!run || run->store.bundleCount() == 0) {
        std::fprintf(stderr, "the replay produced no events\n");
        std::exit(1);
    }
    const std::uint64_t events = run->store.eventCount();
    const std::uint64_t end = run->lanes->endCycle();
    std::printf("\n%.2f M events (%.2f M bundles, %.1f M cycles, %d chips); replay + lanes %.1f s\n",
                static_cast<double>(events) / 1e6, static_cast<double>(run->store.bundleCount()) / 1e6,
                static_cast<double>(end) / 1e6, kChips, replaySeconds);
    std::printf("memory: event store %.1f MiB, timeline lanes %.1f MiB, peak RSS so far %.0f MiB\n",
                static_cast<double>(run->store.residentBytes()) / 1048576.0,
                static_cast<double>(run->lanes->residentBytes()) / 1048576.0, peakRssMiB());

    struct Window
    {
        const char* name;
        double fraction; // of the run, centred; 0 = `cycles` wide
        double cycles;
    };
    const Window windows[] = {{"whole run", 1.0, 0},        {"10% of the run", 0.1, 0}, {"1% of the run", 0.01, 0},
                              {"0.1% of the run", 0.001, 0}, {"2,000 cycles", 0, 2000}};
    ui::LaneCanvas* canvas = timeline.canvas();
    std::printf("%-18s %14s %14s %14s %12s\n", "window", "cycles", "repaint median", "repaint worst",
                "lanes draw");
    for (const Window& w : windows) {
        const double width = w.fraction > 0 ? static_cast<double>(end) * w.fraction : w.cycles;
        const double from = std::max(0.0, static_cast<double>(end) / 2 - width / 2);
        selection.setTimeRange(static_cast<std::uint64_t>(from), static_cast<std::uint64_t>(from + width));
        QTest::qWait(50); // queued replots land first
        std::vector<double> replots, draws;
        for (int i = 0; i < 15; ++i) {
            QElapsedTimer t;
            t.start();
            canvas->repaint();
            replots.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
            draws.push_back(timeline.lastDrawMs());
        }
        std::printf("%-18s %14.0f %11.2f ms %11.2f ms %9.2f ms\n", w.name, width, median(replots),
                    *std::max_element(replots.begin(), replots.end()), median(draws));
    }
}

} // namespace

int main(int argc, char** argv)
{
    bench::useOffscreenUnlessSet();
    QApplication app(argc, argv);
    QTemporaryDir dir;
    const std::vector<std::uint64_t> targets = bench::sizesFromArgs(argc, argv, 1, {1'000'000, 10'000'000});
    for (std::uint64_t t : targets)
        measure(t, dir.path());
    return 0;
}
