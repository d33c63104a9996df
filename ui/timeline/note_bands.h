#pragma once
// Notes drawn over a timeline (timeline_canvas.h), a replay's or an imported profile's: a band over each
// note's time range with an outline and a numbered label ("✎ 2 text"), as the VMEM heatmap marks them
// (views/note_markers.h), so a note looks the same whichever view shows it. Labels are staggered over three
// heights.

#include "timeline/timeline_canvas.h"

#include <QRect>

#include <functional>
#include <vector>

class QPainter;

namespace xps::session {
struct Annotation;
}

namespace xps::ui {

// `area`: the plot's rectangle (below the axis, right of the labels); `xOf`: a time's x. A note's times are
// the page's ticks: cycles for a replay, the bits of int64 nanoseconds for a profile (session.h).
// Returns how many notes it drew.
int drawNoteBands(QPainter& painter, const std::vector<session::Annotation>& notes, const QRect& area,
                  const std::function<double(Ticks)>& xOf);

} // namespace xps::ui
