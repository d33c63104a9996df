#pragma once
// An imported profile's notes drawn over its timeline: a band over each note's time range with an outline
// and a numbered label ("✎ 2 text"), as the replay's timeline marks its notes (views/note_markers.h), so a
// note looks the same whichever page shows it. Labels are staggered over three heights.

#include "profile/profile.h"

#include <QRect>

#include <functional>
#include <vector>

class QPainter;

namespace xps::session {
struct Annotation;
}

namespace xps::ui {

// `area`: the plot's rectangle (below the axis, right of the labels); `xOf`: a profile time's x.
void drawNoteBands(QPainter& painter, const std::vector<session::Annotation>& notes, const QRect& area,
                   const std::function<double(profile::Nanos)>& xOf);

} // namespace xps::ui
