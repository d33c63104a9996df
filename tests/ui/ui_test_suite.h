#pragma once
// The base of the explorer's GUI suites: before the first test, the test mode and the message handler
// (ui_test_support.h); after each test, a failure for any warning it caused.

#include "ui_test_support.h"

#include <QObject>
#include <QTest>

namespace xps::test {

class UiTestSuite : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { startUiTests(); }

    void cleanup()
    {
        const QStringList unexpected = takeUnexpectedMessages();
        QVERIFY2(unexpected.isEmpty(), qPrintable(unexpected.join(QStringLiteral("\n"))));
    }
};

} // namespace xps::test
