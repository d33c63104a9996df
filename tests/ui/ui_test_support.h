#pragma once
// Shared by the explorer's GUI suites: a Qt message handler that fails a test on any warning except the
// offscreen platform's own (it lacks window features), and the test mode that keeps settings apart.

#include <QStandardPaths>
#include <QStringList>
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
    if (message.contains(QStringLiteral("propagateSizeHints")) || message.contains(QStringLiteral("XDG_RUNTIME_DIR")))
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

} // namespace xps::test
