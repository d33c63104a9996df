// Evidence the text relies on is on screen (#25 point 6). Region names stay visible when zoomed inside a
// region (they vanished, the block's start and its label being off to the left): the label sits at the
// plot's left edge, as Perfetto's sticky slice titles do. And the links that carried nothing have rows:
// the All-Gather suggestion says the counter-clockwise links carried 0 B, and that has to be seen.
#include "main_window.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "test_support.h"
#include "theme/theme.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/timeline_lanes.h"
#include "views/timeline_view.h"

#include "widgets/qcustomplot.h"

#include <QApplication>

using namespace xps;

namespace {

const ui::TimelineLanes::DrawnLabel* findLabel(const ui::TimelineView& timeline, const QString& text)
{
    for (const auto& l : timeline.lanesPlottable()->drawnLabels())
        if (l.text == text)
            return &l;
    return nullptr;
}

// The cycle range of the first instance of region `name` on chip 0.
std::pair<std::uint64_t, std::uint64_t> regionRange(const ui::Run& run, const std::string& name)
{
    const auto& symbols = run.trace->chips[0].symbols.regions;
    for (const events::RegionRecord& r : run.store.regions())
        if (r.chip == 0 && r.region < symbols.size() && symbols[r.region].name == name)
            return {r.enter, r.exit};
    return {0, 0};
}

} // namespace

class TestUiTimelineEvidence : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    void regionLabelsStickToThePlotsLeftEdge()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        ui::TimelineView* timeline = w.timeline();
        const auto [enter, exit] = regionRange(*w.session()->run(), "attention");
        QVERIFY(exit > enter + 4000);
        const double plotLeft = timeline->plot()->axisRect()->rect().left();

        // Zoomed to 1,000 cycles in the middle of "attention": its name and its layer's are on screen, at
        // the left edge.
        const std::uint64_t middle = enter + (exit - enter) / 2;
        w.selection()->setTimeRange(middle, middle + 1000);
        timeline->plot()->replot();
        const auto* attention = findLabel(*timeline, QStringLiteral("attention"));
        QVERIFY2(attention, "no 'attention' label in a view inside the region");
        QCOMPARE(attention->rect.left(), plotLeft);
        const auto* layer = findLabel(*timeline, QStringLiteral("decode_layer"));
        QVERIFY(layer);
        QCOMPARE(layer->rect.left(), plotLeft);

        // With the region's start on screen, the label starts with the block.
        w.selection()->setTimeRange(enter - 500, enter + 1500);
        timeline->plot()->replot();
        attention = findLabel(*timeline, QStringLiteral("attention"));
        QVERIFY(attention);
        const double startX = timeline->plot()->xAxis->coordToPixel(static_cast<double>(enter));
        QVERIFY2(std::abs(attention->rect.left() - startX) <= 1.0,
                 qPrintable(QStringLiteral("%1 vs %2").arg(attention->rect.left()).arg(startX)));
        QVERIFY(attention->rect.left() > plotLeft + 100);
    }

    void idleLinksHaveRowsOnceTheInterconnectIsUsed()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("allgather_naive.xtrace.json")));
        const ui::Run* run = w.session()->run();
        const int chips = static_cast<int>(run->trace->chips.size());
        QVERIFY(chips >= 2);
        for (int chip = 0; chip < chips; ++chip) {
            // The ring's clockwise links carried the naive all-gather; the others carried nothing.
            QVERIFY2(w.timeline()->rowOfLane(QStringLiteral("ICI +x"), chip) >= 0,
                     qPrintable(QString::number(chip)));
            QVERIFY2(w.timeline()->rowOfLane(QStringLiteral("ICI -x"), chip) >= 0,
                     qPrintable(QString::number(chip)));
            // A ring has no y links: no rows for links that do not exist.
            QCOMPARE(w.timeline()->rowOfLane(QStringLiteral("ICI +y"), chip), -1);
        }
        bool idle = false;
        const auto& lanes = run->lanes->lanes();
        for (std::size_t i = 0; i < lanes.size(); ++i)
            if (lanes[i].name == "ICI -x")
                idle = idle || !run->lanes->hasActivity(i);
        QVERIFY(idle); // what the rows show is the absence of traffic
    }

    void aSingleChipHasNoLinkRows()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        QCOMPARE(w.timeline()->rowOfLane(QStringLiteral("ICI +x"), 0), -1);
        QCOMPARE(w.timeline()->rowOfLane(QStringLiteral("ICI -x"), 0), -1);
    }

    // F11 then a theme change clipped the lane names ("egions 2", "nc waits") until a restart: the plot
    // kept the font it was built with while the application's grew.
    void laneNamesFitAfterPresentationModeAndThemeChanges()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        QCustomPlot* plot = w.timeline()->plot();
        const auto fits = [&](const char* when) {
            QCoreApplication::processEvents();
            plot->replot();
            const QFont font = plot->yAxis->tickLabelFont();
            QVERIFY2(font.pointSizeF() == QApplication::font().pointSizeF(),
                     qPrintable(QStringLiteral("%1: lane names at %2 pt, the application at %3 pt")
                                    .arg(QString::fromUtf8(when))
                                    .arg(font.pointSizeF())
                                    .arg(QApplication::font().pointSizeF())));
            const int longest = QFontMetrics(font).horizontalAdvance(QStringLiteral("regions: layer"));
            QVERIFY2(plot->axisRect()->left() >= longest,
                     qPrintable(QStringLiteral("%1: %2 px for names %3 px wide")
                                    .arg(QString::fromUtf8(when))
                                    .arg(plot->axisRect()->left())
                                    .arg(longest)));
        };
        fits("at start");
        const qreal normal = QApplication::font().pointSizeF();
        w.setPresentationMode(true);
        QVERIFY(QApplication::font().pointSizeF() > normal);
        fits("presenting");
        ui::Theme::instance().apply(ui::Theme::Kind::Dark);
        fits("presenting, dark");
        w.setPresentationMode(false);
        fits("dark");
        QCOMPARE(plot->yAxis->tickLabelFont().pointSizeF(), normal);
        ui::Theme::instance().apply(ui::Theme::Kind::Light);
    }
};

QTEST_MAIN(TestUiTimelineEvidence)
#include "tst_ui_timeline_evidence.moc"
