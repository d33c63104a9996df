#pragma once
// QCustomPlot 2.1's header iterates with Qt's `foreach`, which QT_NO_FOREACH (set on all our code) removes.
// Its uses are plain `foreach (Type *x, container)`, which a range-for expresses exactly; the macro lives
// only for the length of the include.

#include <QtGlobal>

#define foreach(variable, container) for (variable : container)
#include <qcustomplot.h>
#undef foreach
