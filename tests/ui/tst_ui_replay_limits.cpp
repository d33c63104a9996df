// Replay > Limits…, as a user meets it: a program that never ends stops at the bundle limit set in the
// dialog, the status says which limit stopped it and where to raise it, a raised or removed limit applies
// at the next Replay again, a wrong count is refused before OK, Restore Defaults brings back the GRM's,
// and the limits are still there in the next session. The memory limit likewise, as a size.
#include "main_window.h"
#include "replayer.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "util/text.h"
#include "widgets/replay_limits_dialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>

using namespace xps;

namespace {

// A loop with no exit: only a limit stops its replay.
constexpr const char* kNeverEnds = ".sreg s1, 0\nloop:\n    sadd s1, s1, 1\n    br loop\n";

ui::ReplayLimitsDialog* openLimits(ui::MainWindow& w)
{
    auto* action = w.findChild<QAction*>(QStringLiteral("replayLimitsAction"));
    if (!action)
        return nullptr;
    action->trigger(); // Replay > Limits…
    return w.findChild<ui::ReplayLimitsDialog*>();
}

QLineEdit* field(ui::ReplayLimitsDialog* d, const char* what)
{
    return d->findChild<QLineEdit*>(QStringLiteral("limit_") + QLatin1String(what));
}

QCheckBox* toggle(ui::ReplayLimitsDialog* d, const char* what)
{
    return d->findChild<QCheckBox*>(QStringLiteral("limitOn_") + QLatin1String(what));
}

void typeOver(QLineEdit* edit, const QString& text)
{
    edit->setFocus();
    edit->selectAll();
    QTest::keyClicks(edit, text);
}

QPushButton* button(ui::ReplayLimitsDialog* d, QDialogButtonBox::StandardButton which)
{
    return d->findChild<QDialogButtonBox*>()->button(which);
}

// With XPS_SHOT_DIR=DIR: the dialog in the light and the dark theme, to be looked at.
void saveShots(QWidget* w, const QString& name)
{
    const QByteArray dir = qgetenv("XPS_SHOT_DIR");
    if (dir.isEmpty())
        return;
    for (const auto kind : {ui::Theme::Kind::Light, ui::Theme::Kind::Dark}) {
        ui::Theme::instance().apply(kind);
        QApplication::processEvents();
        w->grab().save(
            QString::fromLocal8Bit(dir) + QLatin1Char('/') + name +
            (kind == ui::Theme::Kind::Dark ? QStringLiteral("-dark.png") : QStringLiteral("-light.png")));
    }
    ui::Theme::instance().apply(ui::Theme::Kind::Light);
}

} // namespace

class TestUiReplayLimits : public test::UiTestSuite
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void countsAreWholeNumbersAboveZero()
    {
        using D = ui::ReplayLimitsDialog;
        QCOMPARE(D::parseCount(QStringLiteral("1,234,567")), std::optional<std::uint64_t>(1234567));
        QCOMPARE(D::parseCount(QStringLiteral(" 2_500 ")), std::optional<std::uint64_t>(2500));
        QCOMPARE(D::parseCount(QStringLiteral("18446744073709551615")),
                 std::optional<std::uint64_t>(UINT64_MAX));
        for (const char* bad : {"", "0", "0,000", "-5", "1e6", "12 k", "18446744073709551616"})
            QVERIFY2(!D::parseCount(QString::fromLatin1(bad)), bad);
    }

    void aLimitSetInTheDialogStopsTheReplayAndSaysWhereToRaiseIt()
    {
        const QString path = test::writeTextFile(m_dir, "never_ends.xasm", kNeverEnds);
        ui::ReplayLimitsDialog::saveLimits(sim::ReplayOptions{}); // a clean start
        {
            ui::MainWindow w(false);
            w.resize(1366, 768);
            w.show();
            QCOMPARE(w.session()->maxBundles(), sim::kDefaultMaxBundles);

            ui::ReplayLimitsDialog* d = openLimits(w);
            QVERIFY(d && d->isVisible());
            QCOMPARE(field(d, "bundles")->text(), QStringLiteral("134,217,728"));
            QCOMPARE(field(d, "cycles")->text(), QStringLiteral("1,099,511,627,776"));
            QVERIFY(d->findChild<QLabel*>(QStringLiteral("limitsMemory"))
                        ->text()
                        .contains(QStringLiteral("GiB")));
            typeOver(field(d, "bundles"), QStringLiteral("2,500"));
            saveShots(d, QStringLiteral("replay-limits"));
            QTest::mouseClick(button(d, QDialogButtonBox::Ok), Qt::LeftButton);
            QCOMPARE(w.session()->maxBundles(), std::uint64_t{2500});

            w.openFile(path);
            QVERIFY(test::waitDone(w));
            QVERIFY2(w.statusText().contains(QStringLiteral("the bundle limit (2,500 bundles)")),
                     qPrintable(w.statusText()));
            QVERIFY2(w.statusText().contains(
                         QStringLiteral("Replay > Limits… sets the cycle, bundle and memory limits")),
                     qPrintable(w.statusText()));
            QCOMPARE(w.session()->run()->result.status, sim::ReplayResult::Status::LimitReached);
            QCOMPARE(w.session()->run()->result.chips.at(0).bundles, std::uint64_t{2500});

            // A count that is not one is refused before OK; turning the bundle limit off is allowed, and
            // the dialog says what that costs.
            d = openLimits(w);
            QVERIFY(d);
            QCOMPARE(field(d, "bundles")->text(), QStringLiteral("2,500"));
            typeOver(field(d, "bundles"), QStringLiteral("lots"));
            QVERIFY(!button(d, QDialogButtonBox::Ok)->isEnabled());
            auto* problem = d->findChild<QLabel*>(QStringLiteral("limitsProblem"));
            QVERIFY(problem->isVisible());
            QVERIFY2(problem->text().contains(QStringLiteral("whole number above 0")),
                     qPrintable(problem->text()));
            saveShots(d, QStringLiteral("replay-limits-refused"));
            QTest::mouseClick(toggle(d, "bundles"), Qt::LeftButton);
            QVERIFY(!field(d, "bundles")->isEnabled());
            QVERIFY(button(d, QDialogButtonBox::Ok)->isEnabled());
            QVERIFY(!problem->isVisible());
            QVERIFY(d->findChild<QLabel*>(QStringLiteral("limitsMemory"))
                        ->text()
                        .startsWith(QStringLiteral("No bundle limit")));
            typeOver(field(d, "cycles"), QStringLiteral("10000"));
            QTest::mouseClick(button(d, QDialogButtonBox::Ok), Qt::LeftButton);
            QCOMPARE(w.session()->maxBundles(), std::uint64_t{0});
            QCOMPARE(w.session()->maxCycles(), std::uint64_t{10000});

            // Replay again (F5) replays with the new limits.
            w.activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(&w));
            QTest::keyClick(&w, Qt::Key_F5);
            QTRY_VERIFY2_WITH_TIMEOUT(
                w.statusText().contains(QStringLiteral("the cycle limit (10,000 cycles)")),
                qPrintable(w.statusText()), 20000);
            QVERIFY(test::waitDone(w));

            // Restore Defaults fills the GRM's limits in; Cancel keeps what was set.
            d = openLimits(w);
            QVERIFY(d);
            QTest::mouseClick(button(d, QDialogButtonBox::RestoreDefaults), Qt::LeftButton);
            QVERIFY(toggle(d, "bundles")->isChecked());
            QCOMPARE(field(d, "bundles")->text(), QStringLiteral("134,217,728"));
            QCOMPARE(field(d, "cycles")->text(), QStringLiteral("1,099,511,627,776"));
            QTest::mouseClick(button(d, QDialogButtonBox::Cancel), Qt::LeftButton);
            QCOMPARE(w.session()->maxCycles(), std::uint64_t{10000});
            QCOMPARE(w.session()->maxBundles(), std::uint64_t{0});
        }
        // The next session starts with them.
        ui::MainWindow again(false);
        QCOMPARE(again.session()->maxCycles(), std::uint64_t{10000});
        QCOMPARE(again.session()->maxBundles(), std::uint64_t{0});
        ui::ReplayLimitsDialog::saveLimits(sim::ReplayOptions{}); // for other suites
    }

    void sizesAreTypedAsTheCliTakesThem()
    {
        using D = ui::ReplayLimitsDialog;
        QCOMPARE(D::parseSize(QStringLiteral("8M")), std::optional<std::uint64_t>(8 << 20));
        QCOMPARE(D::parseSize(QStringLiteral(" 1.5 GiB ")),
                 std::optional<std::uint64_t>(std::uint64_t{3} << 29));
        QCOMPARE(D::parseSize(QStringLiteral("4096")), std::optional<std::uint64_t>(4096));
        for (const char* bad : {"", "0", "0G", "lots", "8GB", "-1G", "1.5"})
            QVERIFY2(!D::parseSize(QString::fromLatin1(bad)), bad);
    }

    void theMemoryLimitIsSetInTheDialogToo()
    {
        const QString path = test::writeTextFile(m_dir, "never_ends_memory.xasm", kNeverEnds);
        ui::ReplayLimitsDialog::saveLimits(sim::ReplayOptions{});
        const QString machineDefault = QString::fromStdString(text::formatBytes(sim::defaultMaxEventBytes()));
        {
            ui::MainWindow w(false);
            w.resize(1366, 768);
            w.show();
            QCOMPARE(w.session()->maxEventBytes(), sim::defaultMaxEventBytes());

            ui::ReplayLimitsDialog* d = openLimits(w);
            QVERIFY(d);
            QCOMPARE(field(d, "memory")->text(), machineDefault);
            typeOver(field(d, "memory"), QStringLiteral("lots"));
            QVERIFY(!button(d, QDialogButtonBox::Ok)->isEnabled());
            auto* problem = d->findChild<QLabel*>(QStringLiteral("limitsProblem"));
            QVERIFY2(problem->text().contains(QStringLiteral("a size above 0")), qPrintable(problem->text()));
            // Only the memory limit left: a program that never ends stops at 8 MiB of events.
            typeOver(field(d, "memory"), QStringLiteral("8M"));
            QTest::mouseClick(toggle(d, "cycles"), Qt::LeftButton);
            QTest::mouseClick(toggle(d, "bundles"), Qt::LeftButton);
            QVERIFY(button(d, QDialogButtonBox::Ok)->isEnabled());
            const QString note = d->findChild<QLabel*>(QStringLiteral("limitsMemory"))->text();
            QVERIFY2(
                note.startsWith(QStringLiteral("No bundle limit: a program that never ends stops when its "
                                               "events take 8 MiB")),
                qPrintable(note));
            saveShots(d, QStringLiteral("replay-limits-memory"));
            QTest::mouseClick(button(d, QDialogButtonBox::Ok), Qt::LeftButton);
            QCOMPARE(w.session()->maxEventBytes(), std::uint64_t{8} << 20);
            QCOMPARE(w.session()->maxBundles(), std::uint64_t{0});

            w.openFile(path);
            QVERIFY(test::waitDone(w));
            QVERIFY2(w.statusText().contains(QStringLiteral("the memory limit (8 MiB of events)")),
                     qPrintable(w.statusText()));
            QCOMPARE(w.session()->run()->result.limit, sim::ReplayResult::Limit::Memory);
        }
        {
            // Kept for the next session; Restore Defaults brings back exactly half of this machine's memory
            // (the field shows it rounded), and a default is not written to the settings.
            ui::MainWindow again(false);
            QCOMPARE(again.session()->maxEventBytes(), std::uint64_t{8} << 20);
            ui::ReplayLimitsDialog* d = openLimits(again);
            QVERIFY(d);
            QCOMPARE(field(d, "memory")->text(), QStringLiteral("8 MiB"));
            QTest::mouseClick(button(d, QDialogButtonBox::RestoreDefaults), Qt::LeftButton);
            QCOMPARE(field(d, "memory")->text(), machineDefault);
            QVERIFY(toggle(d, "memory")->isChecked());
            QTest::mouseClick(button(d, QDialogButtonBox::Ok), Qt::LeftButton);
            QCOMPARE(again.session()->maxEventBytes(), sim::defaultMaxEventBytes());
            QCOMPARE(again.session()->maxBundles(), sim::kDefaultMaxBundles);
            QVERIFY(!QSettings().contains(QStringLiteral("replay/maxEventBytes")));
        }
    }
};

QTEST_MAIN(TestUiReplayLimits)
#include "tst_ui_replay_limits.moc"
