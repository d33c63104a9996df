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

#include <QApplication>
#include <QColor>
#include <QWheelEvent>

#include <cmath>

using namespace xps;

namespace {

const ui::TimelineLanes::DrawnLabel* findLabel(const ui::TimelineView& timeline, const QString& text)
{
    for (const auto& l : timeline.canvas()->drawnLabels())
        if (l.text == text)
            return &l;
    return nullptr;
}

// The cycle range of the first instance of region `name` on chip 0.
std::pair<std::uint64_t, std::uint64_t> regionRange(const ui::Run& run, const std::string& name)
{
    const auto& symbols = run.trace->chips[0].symbols.regions;
    for (const events::StoreSlice& r : run.store.slices(run.store.regionTrack(ChipId(0))))
        if (events::regionOf(r) < symbols.size() && symbols[events::regionOf(r)].name == name)
            return {r.start, r.end()};
    return {0, 0};
}

// WCAG 2's contrast ratio of two colours.
double contrast(const QColor& a, const QColor& b)
{
    const auto luminance = [](const QColor& colour) {
        const auto linear = [](double c) {
            return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
        };
        return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) +
               0.0722 * linear(colour.blueF());
    };
    const double x = luminance(a), y = luminance(b);
    return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
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
        const double plotLeft = timeline->canvas()->plotArea().left();

        // Zoomed to 1,000 cycles in the middle of "attention": its name and its layer's are on screen, at
        // the left edge.
        const std::uint64_t middle = enter + (exit - enter) / 2;
        w.selection()->setTimeRange(middle, middle + 1000);
        timeline->canvas()->repaint();
        const auto* attention = findLabel(*timeline, QStringLiteral("attention"));
        QVERIFY2(attention, "no 'attention' label in a view inside the region");
        QCOMPARE(attention->rect.left(), plotLeft);
        const auto* layer = findLabel(*timeline, QStringLiteral("decode_layer"));
        QVERIFY(layer);
        QCOMPARE(layer->rect.left(), plotLeft);

        // With the region's start on screen, the label starts with the block.
        w.selection()->setTimeRange(enter - 500, enter + 1500);
        timeline->canvas()->repaint();
        attention = findLabel(*timeline, QStringLiteral("attention"));
        QVERIFY(attention);
        const double startX = timeline->canvas()->xOf(static_cast<ui::Ticks>(enter));
        QVERIFY2(std::abs(attention->rect.left() - startX) <= 1.0,
                 qPrintable(QStringLiteral("%1 vs %2").arg(attention->rect.left()).arg(startX)));
        QVERIFY(attention->rect.left() > plotLeft + 100);
    }

    void regionNamesReadOnTheirBlocksInBothThemes()
    {
        // The loop regions' bright green carried white names at 1.9:1 in the light theme; every name on a
        // block must reach WCAG's 4.5:1 for text, in both themes and on every region colour of two samples.
        for (const QString& sample :
             {QStringLiteral("matmul_naive.xtrace.json"), QStringLiteral("decode_naive.xtrace.json")}) {
            ui::MainWindow w(false);
            QVERIFY(test::openSample(w, sample));
            for (const auto kind : {ui::Theme::Kind::Light, ui::Theme::Kind::Dark}) {
                ui::Theme::instance().apply(kind);
                w.timeline()->canvas()->repaint();
                const auto& labels = w.timeline()->canvas()->drawnLabels();
                QVERIFY(labels.size() >= 3);
                for (const auto& l : labels)
                    QVERIFY2(contrast(l.colour, l.background) >= 4.5,
                             qPrintable(QStringLiteral("%1 on %2: %3:1")
                                            .arg(l.text, l.background.name())
                                            .arg(contrast(l.colour, l.background))));
            }
        }
        ui::Theme::instance().apply(ui::Theme::Kind::Light);
    }

    // The one timeline widget's zoom and pan, as a person uses them on the replay's lanes (the profile's
    // timeline is the same widget): the wheel zooms around the pointer, a drag pans, Shift+drag zooms to the
    // box, W and S zoom about the centre, Home shows the whole run again.
    void wheelDragBoxZoomAndHomeMoveTheWindow()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        ui::LaneCanvas* lanes = w.timeline()->canvas();
        ui::SelectionModel* s = w.selection();
        const std::uint64_t wholeTo = s->to();
        QCOMPARE(s->from(), 0u);
        const QRect plot = lanes->plotArea();
        const int row = w.timeline()->rowOfLane(QStringLiteral("MXU"), ChipId(0));
        QVERIFY(row >= 0);
        const int y = lanes->rowRect(row).center().y();

        // Wheel up at a third of the plot: narrower, and the cycle under the pointer stays under it.
        const QPoint at(plot.left() + plot.width() / 3, y);
        const ui::Ticks under = lanes->timeAt(at.x());
        QWheelEvent wheel(at, lanes->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(lanes, &wheel);
        QVERIFY2(s->to() - s->from() < wholeTo * 2 / 3, qPrintable(QString::number(s->to() - s->from())));
        QVERIFY(std::abs(lanes->timeAt(at.x()) - under) <= static_cast<ui::Ticks>(s->to() - s->from()) / 100);

        // A drag to the left by a quarter of the plot moves the window right by a quarter of its width.
        const std::uint64_t from = s->from(), span = s->to() - s->from();
        QTest::mousePress(lanes, Qt::LeftButton, {}, at);
        QTest::mouseMove(lanes, at - QPoint(plot.width() / 8, 0));
        QTest::mouseMove(lanes, at - QPoint(plot.width() / 4, 0));
        QTest::mouseRelease(lanes, Qt::LeftButton, {}, at - QPoint(plot.width() / 4, 0));
        QCOMPARE(s->to() - s->from(), span);
        QVERIFY2(std::abs(static_cast<double>(s->from() - from) - span / 4.0) <= span / 100.0 + 1,
                 qPrintable(QStringLiteral("%1 -> %2 of %3").arg(from).arg(s->from()).arg(span)));

        // Shift+drag over a fifth of the plot: the window becomes what was under the box.
        const QPoint a(plot.left() + plot.width() / 5, y), b(plot.left() + plot.width() * 2 / 5, y);
        const ui::Ticks boxFrom = lanes->timeAt(a.x()), boxTo = lanes->timeAt(b.x());
        QTest::mousePress(lanes, Qt::LeftButton, Qt::ShiftModifier, a);
        QTest::mouseMove(lanes, (a + b) / 2);
        QTest::mouseMove(lanes, b);
        QTest::mouseRelease(lanes, Qt::LeftButton, Qt::ShiftModifier, b);
        QCOMPARE(static_cast<ui::Ticks>(s->from()), boxFrom);
        QCOMPARE(static_cast<ui::Ticks>(s->to()), boxTo);
        QVERIFY(s->selection().pcs.empty()); // a drag is not a click

        // W narrows about the centre; Home shows the whole run.
        const std::uint64_t centre = (s->from() + s->to()) / 2, before = s->to() - s->from();
        lanes->setFocus();
        QTest::keyClick(lanes, Qt::Key_W);
        QVERIFY(s->to() - s->from() < before);
        QVERIFY(s->from() <= centre && s->to() >= centre);
        QTest::keyClick(lanes, Qt::Key_Home);
        QCOMPARE(s->from(), 0u);
        QVERIFY(s->to() >= w.session()->run()->lanes->endCycle());
    }

    void idleLinksHaveRowsOnceTheInterconnectIsUsed()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("allgather_naive.xtrace.json")));
        const ui::Run* run = w.session()->run();
        const std::size_t chips = run->trace->chips.size();
        QVERIFY(chips >= 2);
        for (ChipId chip : idsBelow<ChipId>(chips)) {
            // The ring's clockwise links carried the naive all-gather; the others carried nothing.
            QVERIFY2(w.timeline()->rowOfLane(QStringLiteral("ICI +x"), chip) >= 0,
                     qPrintable(QString::number(chip.value)));
            QVERIFY2(w.timeline()->rowOfLane(QStringLiteral("ICI -x"), chip) >= 0,
                     qPrintable(QString::number(chip.value)));
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
        QCOMPARE(w.timeline()->rowOfLane(QStringLiteral("ICI +x"), ChipId(0)), -1);
        QCOMPARE(w.timeline()->rowOfLane(QStringLiteral("ICI -x"), ChipId(0)), -1);
    }

    // F11 then a theme change clipped the lane names ("egions 2", "nc waits") until a restart: the plot
    // kept the font it was built with while the application's grew.
    void laneNamesFitAfterPresentationModeAndThemeChanges()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        ui::LaneCanvas* lanes = w.timeline()->canvas();
        const auto fits = [&](const char* when) {
            QCoreApplication::processEvents();
            lanes->repaint();
            const QFont font = lanes->font();
            QVERIFY2(font.pointSizeF() == QApplication::font().pointSizeF(),
                     qPrintable(QStringLiteral("%1: lane names at %2 pt, the application at %3 pt")
                                    .arg(QString::fromUtf8(when))
                                    .arg(font.pointSizeF())
                                    .arg(QApplication::font().pointSizeF())));
            const int longest = QFontMetrics(font).horizontalAdvance(QStringLiteral("regions: layer"));
            QVERIFY2(lanes->gutter() >= longest, qPrintable(QStringLiteral("%1: %2 px for names %3 px wide")
                                                                .arg(QString::fromUtf8(when))
                                                                .arg(lanes->gutter())
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
        QCOMPARE(lanes->font().pointSizeF(), normal);
        ui::Theme::instance().apply(ui::Theme::Kind::Light);
    }
};

QTEST_MAIN(TestUiTimelineEvidence)
#include "tst_ui_timeline_evidence.moc"
