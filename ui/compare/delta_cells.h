#pragma once
// How the comparison windows' tables write a change (compare/run_diff_model.h, compare/profile_diff_model.h):
// a real minus sign, as the Apply-and-compare table writes it, and one pair of colours for less and more.

#include "util/compared.h"

#include <QColor>
#include <QObject>
#include <QString>

#include <cmath>

namespace xps::ui::delta {

// "+5.2%", "−0.3%"; "new" when only the other run has it; empty when nothing changed.
inline QString percentCell(const Compared& c)
{
    if (c.delta() == 0)
        return {};
    const std::optional<double> p = c.percent();
    if (!p)
        return QObject::tr("new");
    return (*p < 0 ? QStringLiteral("−") : QStringLiteral("+")) + QString::number(std::abs(*p), 'f', 1) +
           QStringLiteral("%");
}

// A change's colour: green for less (faster), orange for more (slower); Okabe-Ito, readable on both themes.
inline QColor changeColour(std::int64_t delta)
{
    return delta < 0 ? QColor(0x00, 0x9E, 0x73) : QColor(0xD5, 0x5E, 0x00);
}

} // namespace xps::ui::delta
