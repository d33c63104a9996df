// Analysing and measuring suggestions in the explorer, as a user sees it: the status names the suggestion
// being replayed and how far it has come, and Cancel stops the analyses or the measurement at once (it once
// sat for minutes in a DMA livelock that neither Stop nor Cancel could reach).
#include "main_window.h"
#include "session/replay_session.h"
#include "test_support.h"
#include "trace/trace_io.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/suggestions_view.h"
#include "views/summary_view.h"
#include "work_pool.h"
#include "workloads/workloads.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QToolButton>

#include <algorithm>

using namespace xps;

namespace {

QToolButton* cancelButton(ui::MainWindow& w)
{
    for (QToolButton* b : w.findChildren<QToolButton*>())
        if (b->text() == QStringLiteral("Cancel"))
            return b;
    return nullptr;
}

} // namespace

class TestUiMeasuring : public test::UiTestSuite
{
    Q_OBJECT

    QTemporaryDir m_dir;

    // The benchmarks' stress workload, small: 4 chips, a DMA and a wait every 8 bundles; its suggestions'
    // replays take long enough to watch and to cancel.
    QString stressTrace(std::int64_t bundles)
    {
        auto t = workloads::generate("stress", "", {{"bundles", bundles}});
        if (!t.ok())
            qFatal("%s", t.error().toString().c_str());
        const QString path = m_dir.filePath(QStringLiteral("stress_%1.xtrace.json").arg(bundles));
        if (!trace::saveTrace(*t, path.toStdString()).ok())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

private slots:
    void theStatusNamesTheSuggestionBeingMeasuredAndCancelStopsIt()
    {
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(stressTrace(3'000'000));
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->stage() == ui::ReplaySession::Stage::Measuring, 60000);

        // "Measuring suggestion 1 of 4: <its title> — 37%", and the percentage moves while one replays. With
        // more than two cores the what-ifs replay side by side (a core left to the GUI thread): "Measuring 2
        // suggestions side by side (0 of 4 done): <the first one's title> and 1 more — 37%".
        static const QRegularExpression status(
            QStringLiteral("^Measuring suggestion (\\d+) of (\\d+): (.+) — (\\d+)%$"));
        static const QRegularExpression sideBySide(QStringLiteral(
            "^Measuring (\\d+) suggestions side by side \\((\\d+) of (\\d+) done\\): (.+) and (\\d+) more — (\\d+)%$"));
        const auto shown = [&] {
            const QString text = w.statusText();
            return status.match(text).hasMatch() || sideBySide.match(text).hasMatch();
        };
        QTRY_VERIFY_WITH_TIMEOUT(shown(), 20000);
        const QRegularExpressionMatch first = status.match(w.statusText());
        const QRegularExpressionMatch several = sideBySide.match(w.statusText());
        const auto& suggestions = w.session()->run()->suggestions;
        if (first.hasMatch()) {
            QVERIFY2(first.captured(2).toInt() >= 2, qPrintable(w.statusText()));
            QVERIFY(!first.captured(3).trimmed().isEmpty());
            // One at a time (two cores or fewer): the n-th suggestion is the one being replayed.
            if (sim::hardwareThreads() <= 2) {
                const int measured = first.captured(1).toInt() - 1;
                QCOMPARE(first.captured(3),
                         QString::fromStdString(suggestions[static_cast<std::size_t>(measured)].title));
            }
        } else {
            QVERIFY2(several.captured(1).toInt() >= 2, qPrintable(w.statusText()));
            QCOMPARE(several.captured(5).toInt(), several.captured(1).toInt() - 1);
        }
        const QString title = first.hasMatch() ? first.captured(3) : several.captured(4);
        QVERIFY2(std::any_of(suggestions.begin(), suggestions.end(),
                             [&](const auto& s) { return QString::fromStdString(s.title) == title; }),
                 qPrintable(w.statusText()));
        QTRY_VERIFY_WITH_TIMEOUT(status.match(w.statusText()).captured(4).toInt() > 0 ||
                                     sideBySide.match(w.statusText()).captured(6).toInt() > 0,
                                 20000);

        // Cancel, as a person would, in the middle of a what-if replay.
        QToolButton* cancel = cancelButton(w);
        QVERIFY(cancel && cancel->isVisible());
        QElapsedTimer t;
        t.start();
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->stage() == ui::ReplaySession::Stage::Done, 5000);
        // The worker checks every few thousand replay steps: it ends within milliseconds; the bound here
        // leaves room for a loaded CI machine and the event loop's turn.
        QVERIFY2(t.elapsed() < 1000,
                 qPrintable(QStringLiteral("measurement stopped %1 ms after Cancel").arg(t.elapsed())));
        std::size_t cancelled = 0;
        for (const auto& s : w.session()->run()->suggestions)
            if (s.measured && s.measured->verdict == suggest::Measurement::Verdict::Cancelled)
                ++cancelled;
        QVERIFY(cancelled >= 1); // the one being replayed and those after it
        QVERIFY(!cancel->isVisible());
        // The status says the measurement was cut short, and how far it got.
        const QString expected = QStringLiteral("; measuring cancelled after %1 of %2 suggestions")
                                     .arg(w.session()->run()->suggestions.size() - cancelled)
                                     .arg(w.session()->run()->suggestions.size());
        QVERIFY2(w.statusText().endsWith(expected), qPrintable(w.statusText()));
    }

    void cancelWhileAnalysingStopsTheAnalysesAndSaysSo()
    {
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        QToolButton* cancel = cancelButton(w);
        QVERIFY(cancel);
        // A person clicks Cancel as soon as the status says the replay is being analysed (3 M bundles: the
        // analyses take a few hundred milliseconds here, seconds under a debugger).
        QElapsedTimer t;
        bool clicked = false;
        connect(w.session(), &ui::ReplaySession::stageChanged, this, [&](ui::ReplaySession::Stage stage) {
            if (stage != ui::ReplaySession::Stage::Analyzing || clicked)
                return;
            QVERIFY(cancel->isVisible());
            clicked = true;
            t.start();
            QTest::mouseClick(cancel, Qt::LeftButton);
        });
        w.openFile(stressTrace(3'000'000));
        QTRY_VERIFY_WITH_TIMEOUT(clicked, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->stage() == ui::ReplaySession::Stage::Done, 5000);
        // bench_cancel measures the worker's own latency (under 50 ms at 10 M bundles); this bound leaves
        // room for a loaded CI machine and the event loop's turn.
        QVERIFY2(t.elapsed() < 1000,
                 qPrintable(QStringLiteral("analyses stopped %1 ms after Cancel").arg(t.elapsed())));
        QVERIFY2(w.statusText().endsWith(QStringLiteral("; analyses cancelled")), qPrintable(w.statusText()));
        QVERIFY(!w.session()->analysesAvailable());
        QVERIFY(!cancel->isVisible());

        // The views that need the analyses say why they are empty and how to get them; the replay's own
        // views keep what ran.
        const QString cancelled = ui::ReplaySession::analysesCancelledText();
        QVERIFY2(w.summary()->headline().contains(cancelled), qPrintable(w.summary()->headline()));
        // The same counts as the status bar's ("Replayed N bundles in C cycles; analyses cancelled").
        const QString replayed = w.statusText().section(QLatin1Char(';'), 0, 0);
        QVERIFY(replayed.startsWith(QStringLiteral("Replayed 3,0")));
        QVERIFY2(w.summary()->headline().contains(replayed + QLatin1Char('.')),
                 qPrintable(w.summary()->headline()));
        auto* detail = w.suggestions()->findChild<QTextBrowser*>();
        QVERIFY(detail);
        QCOMPARE(detail->toPlainText(), cancelled);
        QCOMPARE(w.suggestions()->list()->rowCount(), 0);
        QCOMPARE(w.session()->run()->result.status, sim::ReplayResult::Status::Completed);

        // Replay again analyses it anew.
        w.session()->replayAgain(sim::ReplayMode::TimingOnly);
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->analysesAvailable(), 60000);
        QVERIFY(!w.session()->analysesWereCancelled());
    }
};

QTEST_MAIN(TestUiMeasuring)
#include "tst_ui_measuring.moc"
