// bench_profile_timeline [MiB ...] (default 64 512): imports a Kineto-shaped trace of about MiB mebibytes
// into the explorer's ProfileDocument and times full repaints of a 1600x1000 profile timeline (offscreen)
// at five zoom levels: the median and worst of 15 frames each.
#include "imported/profile_document.h"
#include "imported/profile_timeline_view.h"
#include "kineto_writer.h"
#include "selection/selection_model.h"

#include "bench_args.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace xps;

namespace {

void measure(std::uint64_t mib, const QString& dir)
{
    const std::string path = QString(dir + QStringLiteral("/bench.pt.trace.json")).toStdString();
    bench::writeKineto(path, mib << 20, nullptr);
    ui::SelectionModel selection;
    ui::ProfileDocument document(&selection);
    ui::ProfileTimelineView view(&document);
    view.resize(1600, 1000);
    QEventLoop loop;
    QObject::connect(&document, &ui::ProfileDocument::loaded, &loop, &QEventLoop::quit);
    QObject::connect(&document, &ui::ProfileDocument::failed, &loop, [&](const QString& m) {
        std::printf("failed: %s\n", qPrintable(m));
        loop.quit();
    });
    QElapsedTimer load;
    load.start();
    document.open(QString::fromStdString(path));
    loop.exec();
    const ui::ProfileRun* run = document.run();
    if (!run)
        return;
    std::printf("%llu MiB: %zu slices, %zu flows; import + analyses %.2f s\n", static_cast<unsigned long long>(mib),
                run->profile.slices.size(), run->profile.flows.size(), static_cast<double>(load.elapsed()) / 1000.0);
    const profile::Nanos start = run->profile.startTime(), span = run->profile.endTime() - start;
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (const double fraction : {1.0, 0.1, 0.01, 0.001, 0.0001}) {
        const profile::Nanos width = std::max<profile::Nanos>(static_cast<profile::Nanos>(static_cast<double>(span) * fraction), 1000);
        const profile::Nanos from = start + (span - width) / 2;
        document.setVisibleRange(from, from + width);
        std::vector<double> ms;
        for (int i = 0; i < 15; ++i) {
            QElapsedTimer t;
            t.start();
            view.render(&image);
            ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("  %-8s of the run: repaint median %.1f ms, worst %.1f ms\n",
                    qPrintable(QStringLiteral("%1%").arg(fraction * 100)), ms[ms.size() / 2], ms.back());
    }
    std::remove(path.c_str());
}

} // namespace

int main(int argc, char** argv)
{
    bench::useOffscreenUnlessSet();
    QApplication app(argc, argv);
    QTemporaryDir dir;
    const std::vector<std::uint64_t> sizes = bench::sizesFromArgs(argc, argv, 1, {64, 512});
    for (const std::uint64_t mib : sizes)
        measure(mib, dir.path());
    return 0;
}
