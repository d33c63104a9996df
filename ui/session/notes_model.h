#pragma once
// The notes of the open document as one table model, for the replay's Notes dock and the profile
// explorer's Notes tab alike: the number (as the timelines' labels count them), the text (edited in place),
// when, and what the note is pinned to. Reads SessionNotes; edits go back to it, whose signal refreshes the
// model. How a time and an anchor read is the document's: a replay's cycles and events, or a profile's
// nanoseconds and slices. The page that shows the model says it with a NoteDescription.

#include "session/session.h"

#include <QAbstractTableModel>

#include <functional>

namespace xps::ui {

class SessionNotes;

struct NoteDescription
{
    QString whenHeader;                                        // "cycles", "at (length)"
    std::function<QString(const session::Annotation&)> when;   // "1,200–1,450", "1.250 ms (12.5 us)"
    std::function<QString(const session::Annotation&)> pinned; // "chip 0 pc 3, execution 2", "aten::mm on …"
    // A tooltip on the pinned cell (a slice the profile no longer has, say); empty for none. May be unset.
    std::function<QString(const session::Annotation&)> pinnedToolTip;
};

class NotesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // The text second: what a person wrote is what they read first, and stays in sight on a narrow pane.
    enum Column { Number, Text, When, Pinned, ColumnCount };

    NotesModel(SessionNotes* notes, NoteDescription description, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;

    const session::Annotation* noteAt(int row) const;
    // What the description answers has changed (a new profile or replay under the same notes).
    void refresh();

private:
    SessionNotes* m_notes;
    NoteDescription m_description;
    int m_rows = 0; // as the views last heard
};

} // namespace xps::ui
