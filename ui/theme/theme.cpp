#include "theme/theme.h"

#include "report/palette.h"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>
#include "widgets/qcustomplot.h"

#include <cmath>

namespace xps::ui {
namespace {

// The shared palette (report/palette), as QColors.
const QColor kOrange(QRgb(palette::kOrange));
const QColor kSkyBlue(QRgb(palette::kSkyBlue));
const QColor kGreen(QRgb(palette::kGreen));
const QColor kYellow(QRgb(palette::kYellow));
const QColor kBlue(QRgb(palette::kBlue));
const QColor kVermillion(QRgb(palette::kVermillion));
const QColor kPurple(QRgb(palette::kPurple));
const QColor kGrey(QRgb(palette::kGrey));

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2b));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xc9));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, kSkyBlue);
    p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
    return p;
}

} // namespace

Theme& Theme::instance()
{
    static Theme theme;
    return theme;
}

void Theme::apply(Kind kind)
{
    m_kind = kind;
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance())) {
        app->setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        app->setPalette(kind == Kind::Dark ? darkPalette() : app->style()->standardPalette());
    }
    emit changed();
}

void Theme::setPresentation(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    emit changed();
}

QColor Theme::background() const { return m_kind == Kind::Dark ? QColor(0x1e, 0x1f, 0x22) : QColor(Qt::white); }
QColor Theme::foreground() const { return m_kind == Kind::Dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20); }
QColor Theme::grid() const { return m_kind == Kind::Dark ? QColor(0x3a, 0x3c, 0x40) : QColor(0xe0, 0xe0, 0xe0); }
QColor Theme::laneShade() const { return m_kind == Kind::Dark ? QColor(0x26, 0x28, 0x2c) : QColor(0xf4, 0xf5, 0xf7); }
QColor Theme::highlight() const { return m_kind == Kind::Dark ? QColor(Qt::white) : QColor(Qt::black); }
QColor Theme::critical() const { return QColor(0xE0, 0x20, 0x40); }
QColor Theme::note() const { return QColor(0xC8, 0x8A, 0x00); }

QColor Theme::stallColor(events::StallReason reason) const
{
    return QColor(QRgb(palette::stallColour(reason)));
}

QColor Theme::unitColor(analysis::UnitGroup group) const
{
    switch (group) {
    case analysis::UnitGroup::Scalar: return kGrey;
    case analysis::UnitGroup::VectorAlu: return kSkyBlue;
    case analysis::UnitGroup::LoadStore: return kBlue;
    case analysis::UnitGroup::Mxu: return kGreen;
    case analysis::UnitGroup::CrossLane: return kPurple;
    case analysis::UnitGroup::Count_: break;
    }
    return kGrey;
}

QColor Theme::dmaColor(analysis::DmaPathClass path) const
{
    switch (path) {
    case analysis::DmaPathClass::Load: return kOrange;
    case analysis::DmaPathClass::Store: return kBlue;
    case analysis::DmaPathClass::Other: return kGrey;
    case analysis::DmaPathClass::Ici: return kPurple;
    case analysis::DmaPathClass::Count_: break;
    }
    return kGrey;
}

QColor Theme::syncColor(bool byDma) const { return byDma ? kVermillion : kPurple; }

QColor Theme::residualColor(bool replaySlower) const
{
    if (m_kind == Kind::Dark)
        return replaySlower ? kOrange : kSkyBlue;
    return replaySlower ? kVermillion : kBlue; // orange and sky blue are too pale on white for text
}

QColor Theme::regionColor(std::uint32_t region) const
{
    static const QColor kCycle[] = {kSkyBlue, kGreen, kOrange, kPurple, kYellow, kBlue};
    QColor c = kCycle[region % std::size(kCycle)];
    // Dark enough in the dark theme that white names on every colour reach 4.5:1 (at 140 the sky blue and
    // orange stayed under it).
    return m_kind == Kind::Dark ? c.darker(150) : c.lighter(135);
}

QColor Theme::edgeColor(analysis::EdgeKind kind) const
{
    using K = analysis::EdgeKind;
    switch (kind) {
    case K::Order: return m_kind == Kind::Dark ? QColor(0x80, 0x80, 0x80) : QColor(0xa0, 0xa0, 0xa0);
    case K::Data: return kBlue.lighter(m_kind == Kind::Dark ? 160 : 100);
    case K::Memory: return kGreen;
    case K::Flag: return kOrange;
    case K::Issue: return kPurple;
    case K::Structural: return kVermillion;
    }
    return kGrey;
}

void Theme::stylePlot(QCustomPlot* plot) const
{
    plot->setBackground(background());
    const QColor fg = foreground();
    // QCustomPlot copies the widget's font into its axes when it is built and never looks again: the
    // presentation mode's larger application font reached every widget but the plots' labels, and their
    // margins (computed from the copied font) clipped lane names. Set the application's on every restyle
    // (the widget's own font catches up with it only later, after the presentation mode's `changed`).
    const QFont font = QApplication::font();
    for (QCPAxisRect* rect : plot->axisRects())
        for (QCPAxis* axis : rect->axes()) {
            axis->setTickLabelFont(font);
            axis->setLabelFont(font);
            axis->setBasePen(QPen(fg, lineScale()));
            axis->setTickPen(QPen(fg, lineScale()));
            axis->setSubTickPen(QPen(fg, lineScale()));
            axis->setTickLabelColor(fg);
            axis->setLabelColor(fg);
            axis->grid()->setPen(QPen(grid(), lineScale() > 1 ? lineScale() : 0, Qt::DotLine));
            axis->grid()->setSubGridVisible(false);
        }
    if (plot->legend) {
        plot->legend->setFont(font);
        plot->legend->setBrush(background());
        plot->legend->setTextColor(fg);
        plot->legend->setBorderPen(QPen(grid()));
    }
}

QColor Theme::textOn(const QColor& fill)
{
    // WCAG 2: the relative luminance of an sRGB colour, and the contrast ratio of each text colour on it.
    const auto luminanceOf = [](const QColor& colour) {
        const auto linear = [](double c) {
            return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
        };
        const QColor c = colour.toRgb();
        return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
    };
    static const QColor dark(20, 20, 20), light(Qt::white);
    const double behind = luminanceOf(fill);
    const double darkContrast = (behind + 0.05) / (luminanceOf(dark) + 0.05);
    const double lightContrast = (luminanceOf(light) + 0.05) / (behind + 0.05);
    return darkContrast >= lightContrast ? dark : light;
}

} // namespace xps::ui
