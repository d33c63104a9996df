#pragma once
// The base of the explorer's GUI suites: before the first test, the test mode and the message handler
// (ui_test_support.h); after each test, a failure for any warning it caused.
//
// Only <QObject> here: moc compiles this header, and every suite used to compile its own copy of that moc
// output with all of ui_test_support.h behind it (10-15 s a suite, 17 suites). The slots are defined in
// ui_test_suite.cpp, compiled once into xps_ui_test_suite.

#include <QObject>

namespace xps::test {

class UiTestSuite : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanup();
};

} // namespace xps::test
