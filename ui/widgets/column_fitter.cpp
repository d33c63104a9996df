#include "widgets/column_fitter.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QTableView>
#include <QTimer>

#include <algorithm>

namespace xps::ui {

ColumnFitter::ColumnFitter(QTableView* table, int fillColumn, int maxColumnWidth)
    : QObject(table), m_table(table), m_fillColumn(fillColumn), m_maxColumnWidth(maxColumnWidth)
{
    QHeaderView* header = table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(false);
    table->setProperty(kFittedProperty, true); // the window's presentation mode leaves these to us
    // Only a person moves a column edge while we are not fitting.
    connect(header, &QHeaderView::sectionResized, this, [this] {
        if (!m_fitting)
            m_userSized = true;
    });
    m_viewport = table->viewport();
    table->viewport()->installEventFilter(this);
    table->installEventFilter(this);
    // Measuring asks the delegate about ~1,000 rows per column (tens of milliseconds on the GUI thread): once
    // per burst of changes, and a replay's counts (published every few tens of ms) at most every 300 ms.
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (!m_userSized)
            fit();
    });
    if (QAbstractItemModel* model = table->model()) {
        connect(model, &QAbstractItemModel::modelReset, this, &ColumnFitter::scheduleFit);
        connect(model, &QAbstractItemModel::layoutChanged, this, &ColumnFitter::scheduleFit);
        connect(model, &QAbstractItemModel::rowsInserted, this, &ColumnFitter::scheduleFit);
        connect(model, &QAbstractItemModel::dataChanged, this, [this] {
            if (!m_userSized && !m_timer.isActive())
                m_timer.start(300);
        });
    }
    scheduleFit();
}

void ColumnFitter::setMinimumWidth(int column, int pixels)
{
    if (column < 0)
        return;
    if (static_cast<std::size_t>(column) >= m_minimum.size())
        m_minimum.resize(static_cast<std::size_t>(column) + 1, 0);
    m_minimum[static_cast<std::size_t>(column)] = pixels;
    scheduleFit();
}

void ColumnFitter::scheduleFit()
{
    if (!m_userSized)
        m_timer.start(0); // once the burst of changes that asked for it is over
}

void ColumnFitter::fit()
{
    const QAbstractItemModel* model = m_table->model();
    if (!model)
        return;
    const int columns = model->columnCount();
    m_content.assign(static_cast<std::size_t>(std::max(0, columns)), 0);
    QHeaderView* header = m_table->horizontalHeader();
    for (int c = 0; c < columns; ++c) {
        if (m_table->isColumnHidden(c))
            continue;
        // sizeHintForColumn() asks the delegate about the rows around the visible ones (1,000 by default),
        // so a million-row table costs the same as a small one.
        int width = std::max(header->sectionSizeHint(c),
                             static_cast<const QAbstractItemView*>(m_table)->sizeHintForColumn(c));
        if (static_cast<std::size_t>(c) < m_minimum.size())
            width = std::max(width, m_minimum[static_cast<std::size_t>(c)]);
        m_content[static_cast<std::size_t>(c)] = width;
    }
    distribute();
}

void ColumnFitter::distribute()
{
    if (m_content.empty())
        return;
    m_fitting = true;
    QHeaderView* header = m_table->horizontalHeader();
    int used = 0;
    for (std::size_t c = 0; c < m_content.size(); ++c) {
        const int column = static_cast<int>(c);
        if (column == m_fillColumn || m_table->isColumnHidden(column))
            continue;
        const int minimum = c < m_minimum.size() ? m_minimum[c] : 0;
        const int width = std::max(minimum, std::min(m_content[c], m_maxColumnWidth));
        header->resizeSection(column, width);
        used += width;
    }
    if (m_fillColumn >= 0 && static_cast<std::size_t>(m_fillColumn) < m_content.size()) {
        // What is left of the viewport, elided if its content is wider (no sideways scrolling to reach the
        // last columns), unless that leaves it less than maxColumnWidth: then it scrolls.
        const int available = m_table->viewport()->width() - used;
        const int content = m_content[static_cast<std::size_t>(m_fillColumn)];
        header->resizeSection(m_fillColumn, std::max(available, std::min(content, m_maxColumnWidth)));
    }
    m_fitting = false;
}

bool ColumnFitter::eventFilter(QObject* watched, QEvent* event)
{
    if (!m_userSized) {
        // Compared with the viewport kept at construction: while the table is being destroyed its events
        // still arrive here, and asking it for its viewport then calls into a QWidget that is no longer a
        // scroll area (UBSan: member call on a destroyed object's type).
        if (watched == m_viewport && event->type() == QEvent::Resize)
            distribute();
        else if (watched == m_table &&
                 (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange))
            scheduleFit();
    }
    return QObject::eventFilter(watched, event);
}

} // namespace xps::ui
