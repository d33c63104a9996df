#pragma once
// A scroll area for a view that should fill its dock and scroll only below its minimum. QScrollArea's
// resizable mode sizes a widget whose layout has height-for-width (any wrapped label) to its preferred
// height, so the DMA lanes scrolled inside a dock that could show them whole. Here the view gets the
// viewport's size, or its minimum where the viewport is smaller.

#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>

#include <algorithm>

namespace xps::ui {

class FillingScrollArea : public QScrollArea
{
public:
    explicit FillingScrollArea(QWidget* parent = nullptr) : QScrollArea(parent)
    {
        setWidgetResizable(false);
        setFrameShape(QFrame::NoFrame);
    }

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        QScrollArea::resizeEvent(event);
        fit();
    }
    // A view whose minimum changes (larger text) posts a layout request to its parent, the viewport.
    bool viewportEvent(QEvent* event) override
    {
        if (event->type() == QEvent::LayoutRequest)
            fit();
        return QScrollArea::viewportEvent(event);
    }

private:
    void fit()
    {
        QWidget* view = widget();
        if (!view)
            return;
        const QSize minimum = view->minimumSizeHint().expandedTo(view->minimumSize());
        // The scroll bars take room only when they show: decide on the whole area first.
        const QSize area = maximumViewportSize();
        const bool scrollsDown = minimum.height() > area.height();
        const bool scrollsAcross =
            minimum.width() > area.width() - (scrollsDown ? verticalScrollBar()->sizeHint().width() : 0);
        const QSize room(area.width() - (scrollsDown ? verticalScrollBar()->sizeHint().width() : 0),
                         area.height() - (scrollsAcross ? horizontalScrollBar()->sizeHint().height() : 0));
        view->resize(room.expandedTo(minimum));
    }
};

} // namespace xps::ui
