#pragma once
// Words and colours for imported profiles, shared by the profile views: durations, counter values, a
// slice's colour (by what it is, shaded by its name so neighbouring kernels differ), its one-line summary
// for tooltips and its full description (arguments, flows as links) for the details panel.

#include "profile/profile.h"

#include <QColor>
#include <QString>

namespace xps::ui {

QString formatDuration(profile::Nanos ns); // "1.25 ms", "830 us", "12 ns"
// A profile's ticks so, through its timebase (the nearest nanosecond).
QString formatDuration(const profile::Timebase& timebase, profile::Ticks ticks);
QString formatCounterValue(double value);  // "1.5 G", "300 K", "12"
QColor sliceClassColor(profile::SliceClass cls);
QColor sliceColor(const profile::Profile& profile, const profile::Slice& slice);
QString sliceSummary(const profile::Profile& profile, profile::SliceRow slice);
// HTML; flows link as "slice:N".
QString sliceDetailsHtml(const profile::Profile& profile, profile::SliceRow slice);

} // namespace xps::ui
