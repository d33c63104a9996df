#include "ui_test_suite.h"

#include "ui_test_support.h"

namespace xps::test {

void UiTestSuite::initTestCase()
{
    startUiTests();
}

void UiTestSuite::cleanup()
{
    const QStringList unexpected = takeUnexpectedMessages();
    QVERIFY2(unexpected.isEmpty(), qPrintable(unexpected.join(QStringLiteral("\n"))));
}

} // namespace xps::test
