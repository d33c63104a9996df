#include "views/bookmarks_view.h"

#include "session/session_notes.h"
#include "views/event_text.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace xps::ui {
namespace {

enum Column { Number, Cycles, Name, ColumnCount };

} // namespace

BookmarksView::BookmarksView(SessionNotes* notes, QWidget* parent)
    : QWidget(parent), m_notes(notes), m_table(new QTableWidget(this)),
      m_show(new QPushButton(tr("Show"), this)), m_delete(new QPushButton(tr("Delete"), this))
{
    setObjectName(QStringLiteral("bookmarks"));
    m_table->setColumnCount(ColumnCount);
    m_table->setHorizontalHeaderLabels({tr("#"), tr("cycles"), tr("name")});
    m_table->horizontalHeader()->setSectionResizeMode(Name, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
    m_show->setEnabled(false);
    m_delete->setEnabled(false);
    // How to use it, on hover: a wrapped label under the table made the window's left dock area (and so
    // the window) too tall for a 768-pixel screen.
    m_table->setToolTip(tr("Ctrl+B adds the current view. Double-click one to go back to it; F2 renames it; "
                           "Delete removes it."));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_show);
    buttons->addWidget(m_delete);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);

    // The Delete key on the table removes its selection (a name being edited has its own editor, which
    // takes its keys).
    m_table->installEventFilter(this);
    connect(m_show, &QPushButton::clicked, this, [this] {
        if (const int row = selectedRow(); row >= 0)
            emit showRequested(row);
    });
    connect(m_delete, &QPushButton::clicked, this, &BookmarksView::removeSelected);

    connect(notes, &SessionNotes::bookmarksChanged, this, &BookmarksView::fill);
    connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (m_filling || item->column() != Name)
            return;
        const auto index = static_cast<std::size_t>(item->row());
        if (!m_notes->renameBookmark(index, item->text().toStdString()))
            fill(); // an empty name: the old one comes back
    });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int column) {
        if (column != Name) // a double-click on the name edits it
            emit showRequested(row);
    });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const bool any = !m_table->selectionModel()->selectedRows().isEmpty();
        m_show->setEnabled(any);
        m_delete->setEnabled(any);
    });
    fill();
}

bool BookmarksView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table && event->type() == QEvent::KeyPress &&
        static_cast<QKeyEvent*>(event)->key() == Qt::Key_Delete) {
        removeSelected();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

int BookmarksView::selectedRow() const
{
    const int row = m_table->currentRow();
    return row >= 0 && m_table->selectionModel()->isRowSelected(row, {}) ? row : -1;
}

void BookmarksView::setRangeFormat(const QString& header, RangeText text)
{
    m_rangeText = std::move(text);
    // Refilled only when the timebase changes: a refill while a name is being edited would drop the editor.
    if (m_table->horizontalHeaderItem(Cycles)->text() == header)
        return;
    m_table->horizontalHeaderItem(Cycles)->setText(header);
    fill();
}

void BookmarksView::fill()
{
    m_filling = true;
    const auto& bookmarks = m_notes->bookmarks();
    m_table->setRowCount(static_cast<int>(bookmarks.size()));
    for (std::size_t i = 0; i < bookmarks.size(); ++i) {
        const session::Bookmark& b = bookmarks[i];
        const int row = static_cast<int>(i);
        auto* number = new QTableWidgetItem(QString::number(row + 1));
        number->setFlags(number->flags() & ~Qt::ItemIsEditable);
        auto* cycles = new QTableWidgetItem(
            m_rangeText ? m_rangeText(b.fromCycle, b.toCycle)
                        : QStringLiteral("%1–%2").arg(cyclesText(b.fromCycle), cyclesText(b.toCycle)));
        cycles->setFlags(cycles->flags() & ~Qt::ItemIsEditable);
        cycles->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, Number, number);
        m_table->setItem(row, Cycles, cycles);
        auto* name = new QTableWidgetItem(QString::fromStdString(b.name));
        name->setToolTip(name->text()); // a long name is elided in a narrow dock
        m_table->setItem(row, Name, name);
    }
    for (int c : {Number, Cycles})
        m_table->resizeColumnToContents(c);
    m_filling = false;
}

void BookmarksView::editName(int index)
{
    QTableWidgetItem* item = m_table->item(index, Name);
    if (!item)
        return;
    m_table->setCurrentItem(item);
    m_table->editItem(item);
}

void BookmarksView::removeSelected()
{
    std::vector<std::size_t> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows.push_back(static_cast<std::size_t>(index.row()));
    std::sort(rows.begin(), rows.end(), std::greater<>()); // from the last, so the others keep their index
    for (std::size_t row : rows)
        m_notes->removeBookmark(row);
}

} // namespace xps::ui
