#include "timeline/cycle_ticks.h"

#include <cmath>

namespace xps::ui {

QString cycleTickLabel(std::int64_t cycles)
{
    const double c = static_cast<double>(cycles);
    if (cycles < 1'000 && cycles > -1'000)
        return QString::number(cycles);
    if (cycles < 1'000'000 && cycles > -1'000'000)
        return QStringLiteral("%1 k").arg(c / 1e3, 0, 'g', 6);
    return QStringLiteral("%1 M").arg(c / 1e6, 0, 'g', 9);
}

QString CycleTicker::getTickLabel(double tick, const QLocale&, QChar, int)
{
    return cycleTickLabel(std::llround(tick));
}

} // namespace xps::ui
