#pragma once
// A word-wrapped label whose minimum is one line. Qt's minimum for a wrapped label is its height at its
// narrowest, three to six lines for a legend or a hint in presentation mode's larger text: in docks tabbed
// behind others those minimums added up to a window taller than a 768 px screen (its status bar below the
// edge). The label still asks for the height its text needs at the width it gets.

#include <QLabel>

namespace xps::ui {

inline void wrapToAnyWidth(QLabel* label)
{
    label->setWordWrap(true);
    label->setMinimumSize(1, label->fontMetrics().height());
}

} // namespace xps::ui
