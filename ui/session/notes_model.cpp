#include "session/notes_model.h"

#include "session/session_notes.h"

namespace xps::ui {

NotesModel::NotesModel(SessionNotes* notes, NoteDescription description, QObject* parent)
    : QAbstractTableModel(parent), m_notes(notes), m_description(std::move(description))
{
    // Notes are few (a person writes them): a reset when notes come or go is cheaper than tracking rows. An
    // edit keeps the rows: a reset would tear down the editor that is committing it (and the selection).
    connect(notes, &SessionNotes::notesChanged, this, [this] {
        const int rows = rowCount();
        if (rows == m_rows && rows > 0) {
            emit dataChanged(index(0, 0), index(rows - 1, ColumnCount - 1));
            return;
        }
        refresh();
    });
    m_rows = rowCount();
}

void NotesModel::refresh()
{
    beginResetModel();
    m_rows = rowCount();
    endResetModel();
}

int NotesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_notes->notes().size());
}

int NotesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const session::Annotation* NotesModel::noteAt(int row) const
{
    const auto& notes = m_notes->notes();
    return row >= 0 && static_cast<std::size_t>(row) < notes.size() ? &notes[static_cast<std::size_t>(row)]
                                                                    : nullptr;
}

QVariant NotesModel::data(const QModelIndex& index, int role) const
{
    const session::Annotation* note = noteAt(index.row());
    if (!note)
        return {};
    if (role == Qt::TextAlignmentRole && (index.column() == Number || index.column() == When))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Pinned && m_description.pinnedToolTip) {
        const QString tip = m_description.pinnedToolTip(*note);
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    switch (index.column()) {
    case Number: return index.row() + 1;
    case When: return m_description.when(*note);
    case Pinned: return m_description.pinned(*note);
    case Text: return QString::fromStdString(note->text);
    default: return {};
    }
}

QVariant NotesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Number: return tr("#");
    case When: return m_description.whenHeader;
    case Pinned: return tr("pinned to");
    case Text: return tr("note");
    default: return {};
    }
}

Qt::ItemFlags NotesModel::flags(const QModelIndex& index) const
{
    const Qt::ItemFlags base = QAbstractTableModel::flags(index);
    return index.column() == Text ? base | Qt::ItemIsEditable : base;
}

bool NotesModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    const session::Annotation* note = noteAt(index.row());
    if (!note || role != Qt::EditRole || index.column() != Text)
        return false;
    m_notes->setNoteText(note->id, value.toString().toStdString());
    return true;
}

} // namespace xps::ui
