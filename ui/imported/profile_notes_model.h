#pragma once
// The notes of an imported profile as a table model: number (as the timeline's labels count them), the text
// (edited in place), when (ms from the profile's start, and how long) and what the note is pinned to (a
// slice on its track, or a time range). Reads the document's notes and the shown profile; changes
// go to SessionNotes, whose signal refreshes the model.

#include "profile/profile.h"

#include <QAbstractTableModel>

#include <optional>

namespace xps::session {
struct Annotation;
}

namespace xps::ui {

class ProfileDocument;
class SessionNotes;

class ProfileNotesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // The text second: what a person wrote is what they read first, and stays in sight on a narrow pane.
    enum Column { Number, Text, When, Pinned, ColumnCount };

    ProfileNotesModel(ProfileDocument* document, SessionNotes* notes, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;

    const session::Annotation* noteAt(int row) const;
    // The slice the note of `row` is pinned to in the shown profile, if it is pinned and found there.
    std::optional<std::uint32_t> sliceOf(int row) const;

private:
    ProfileDocument* m_document;
    SessionNotes* m_notes;
    int m_rows = 0; // as the views last heard
};

// "aten::mm on thread 7", or "time range": what a note of an imported profile is pinned to.
QString pinnedDescription(const session::Annotation& note);

} // namespace xps::ui
