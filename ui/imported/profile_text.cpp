#include "imported/profile_text.h"
#include "util/json_text.h"

#include "profile/profile_analysis.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>

namespace xps::ui {

using profile::Nanos;

QString formatDuration(Nanos ns)
{
    const double v = static_cast<double>(ns);
    const double a = std::fabs(v);
    if (a >= 1e9)
        return QStringLiteral("%1 s").arg(v / 1e9, 0, 'f', a >= 1e10 ? 2 : 3);
    if (a >= 1e6)
        return QStringLiteral("%1 ms").arg(v / 1e6, 0, 'f', a >= 1e8 ? 1 : a >= 1e7 ? 2 : 3);
    if (a >= 1e3)
        return QStringLiteral("%1 us").arg(v / 1e3, 0, 'f', a >= 1e5 ? 0 : a >= 1e4 ? 1 : 2);
    return QStringLiteral("%1 ns").arg(ns);
}

QString formatDuration(const profile::Timebase& timebase, profile::Ticks ticks)
{
    return formatDuration(timebase.toNanos(ticks));
}

QString formatCounterValue(double value)
{
    const double a = std::fabs(value);
    if (a >= 1e9)
        return QStringLiteral("%1 G").arg(value / 1e9, 0, 'g', 4);
    if (a >= 1e6)
        return QStringLiteral("%1 M").arg(value / 1e6, 0, 'g', 4);
    if (a >= 1e4)
        return QStringLiteral("%1 K").arg(value / 1e3, 0, 'g', 4);
    return QString::number(value, 'g', 4); // as many digits as the K, M and G forms: a label, not a readout
}

QColor sliceClassColor(profile::SliceClass cls)
{
    // Okabe-Ito, as the rest of the explorer.
    switch (cls) {
    case profile::SliceClass::Kernel: return QColor(0, 114, 178);
    case profile::SliceClass::Communication: return QColor(204, 121, 167);
    case profile::SliceClass::Memcpy: return QColor(230, 159, 0);
    case profile::SliceClass::Memset: return QColor(240, 228, 66);
    case profile::SliceClass::Runtime: return QColor(0, 158, 115);
    case profile::SliceClass::RuntimeSync: return QColor(213, 94, 0);
    case profile::SliceClass::CpuOp: return QColor(86, 180, 233);
    case profile::SliceClass::DeviceAnnotation: return QColor(150, 150, 150);
    case profile::SliceClass::Other:
    case profile::SliceClass::Count_: break;
    }
    return QColor(120, 140, 170);
}

QColor sliceColor(const profile::Profile& profile, const profile::Slice& slice)
{
    const profile::EventType& type = profile.types[slice.type];
    const QColor base = sliceClassColor(type.cls);
    // The same name always gets the same shade; different names next to each other usually differ.
    const std::size_t h = std::hash<std::string>{}(profile.string(type.name));
    if (type.cls == profile::SliceClass::Other) {
        const int hue = static_cast<int>(h % 360);
        return QColor::fromHsl(hue, 90, 150);
    }
    const int shift = static_cast<int>(h % 5) * 9 - 18;
    return shift >= 0 ? base.lighter(100 + shift) : base.darker(100 - shift);
}

QString sliceSummary(const profile::Profile& profile, profile::SliceRow index)
{
    const profile::Slice& s = profile.slice(index);
    return QStringLiteral("%1\n%2, %3 at %4")
        .arg(QString::fromStdString(profile.nameOf(s)),
             QString::fromUtf8(profile::sliceClassName(profile.classOf(s)).data()),
             s.duration > 0 ? formatDuration(profile.timebase, s.duration) : QStringLiteral("instant"),
             formatDuration(profile.timebase, s.start - profile.startTime()));
}

QString sliceDetailsHtml(const profile::Profile& profile, profile::SliceRow index)
{
    const profile::Slice& s = profile.slice(index);
    QString html = QStringLiteral("<h3>%1</h3><table cellspacing='4'>")
                       .arg(QString::fromStdString(profile.nameOf(s)).toHtmlEscaped());
    const auto row = [&](const QString& key, const QString& value) {
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(key, value);
    };
    row(QStringLiteral("kind"), QString::fromUtf8(profile::sliceClassName(profile.classOf(s)).data()));
    if (!profile.categoryOf(s).empty())
        row(QStringLiteral("category"), QString::fromStdString(profile.categoryOf(s)).toHtmlEscaped());
    row(QStringLiteral("track"),
        QString::fromStdString(profile::trackLabel(profile, s.track())).toHtmlEscaped());
    row(QStringLiteral("start"), formatDuration(profile.timebase, s.start - profile.startTime()) +
                                     QStringLiteral(" after the profile's start"));
    row(QStringLiteral("duration"),
        s.duration > 0 ? formatDuration(profile.timebase, s.duration) : QStringLiteral("instant"));
    row(QStringLiteral("depth"), QString::number(s.depth()));
    if (s.link)
        row(profile::isDeviceWork(profile.classOf(s)) || profile.classOf(s) == profile::SliceClass::Runtime ||
                    profile.classOf(s) == profile::SliceClass::RuntimeSync
                ? QStringLiteral("correlation")
                : QStringLiteral("External id"),
            QString::number(s.link));
    const nlohmann::json args = nlohmann::json::parse(profile.argsOf(index), nullptr, false);
    if (args.is_object())
        for (auto it = args.begin(); it != args.end(); ++it)
            row(QString::fromStdString(it.key()).toHtmlEscaped(),
                QString::fromStdString(it.value().is_string() ? it.value().get<std::string>()
                                                              : text::jsonText(it.value()))
                    .toHtmlEscaped());
    html += QStringLiteral("</table>");
    QString flows;
    for (const profile::Flow& f : profile.flows) {
        if (f.from != index && f.to != index)
            continue;
        const std::uint32_t other = (f.from == index ? f.to : f.from).value;
        const profile::Slice& o = profile.slices[other];
        flows += QStringLiteral("<li>%1 <a href='slice:%2'>%3</a> (%4, %5 %6)</li>")
                     .arg(f.from == index ? QStringLiteral("to") : QStringLiteral("from"))
                     .arg(other)
                     .arg(QString::fromStdString(profile.nameOf(o)).toHtmlEscaped(),
                          QString::fromStdString(profile.string(profile.types[f.type].name)).toHtmlEscaped(),
                          o.start >= s.start ? QStringLiteral("+") : QStringLiteral("-"),
                          formatDuration(profile.timebase, std::llabs(o.start - s.start)));
    }
    if (!flows.isEmpty())
        html += QStringLiteral("<p><b>Flows</b></p><ul>%1</ul>").arg(flows);
    return html;
}

} // namespace xps::ui
