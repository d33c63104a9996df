#pragma once
// Shared by the explorer's GUI suites: a Qt message handler that fails a test on any warning except the
// offscreen platform's own (it lacks window features), the test mode that keeps settings apart, and waiting
// for a window's replay and analyses to finish.

#include "main_window.h"
#include "session/replay_session.h"

#include <QElapsedTimer>
#include <QStandardPaths>
#include <QStringList>
#include <QTest>
#include <QtGlobal>

#include <cstdio>
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
    if (message.contains(QStringLiteral("propagateSizeHints")) ||
        message.contains(QStringLiteral("XDG_RUNTIME_DIR")))
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

} // namespace xps::test
