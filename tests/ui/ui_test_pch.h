// The GUI suites' system headers, precompiled once for all of them (tests/CMakeLists.txt): the suites'
// own, plus Qt Widgets.
#pragma once

#include "test_pch.h"

#include <QApplication>
#include <QtWidgets>
