#pragma once
// The notes tab of the profile explorer: every note of the imported profile, pinned to a slice or to a time
// range; add one on the selected slice or on the visible range (also from the timeline's context menu),
// edit the text in place, double-click to show the note's slice (or range) on the timeline, Delete removes
// the selected notes. On a replay seen as a profile these are the replay's notes (the page counts its
// cycles): one made here on a slice is pinned to it and shown on the replay's timeline too.

#include "profile/profile.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPushButton;
class QTableView;

namespace xps::ui {

class ProfileDocument;
class NotesModel;
class SessionNotes;

class ProfileNotesView : public QWidget
{
    Q_OBJECT
public:
    ProfileNotesView(ProfileDocument* document, SessionNotes* notes, QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    NotesModel* model() const { return m_model; }
    // The slice the note of `row` is pinned to in the shown profile, if it is pinned and found there.
    profile::SliceRow sliceOf(int row) const; // not valid(): the note has no slice here
    // Ask for the note's text, then pin it to `slice` / to the visible time range. Nothing if the person
    // cancels or the shown profile is a replay's.
    void addNoteOnSlice(profile::SliceRow slice);
    void addNoteOnVisibleRange();
    // Shows the note of `row` on the timeline: its slice selected, or its range.
    void showNote(int row);

private:
    bool notesShown() const;
    QString askText(const QString& title, const QString& about);
    void updateActions();
    void removeSelected();

    ProfileDocument* m_document;
    SessionNotes* m_notes;
    NotesModel* m_model;
    QTableView* m_table;
    QPushButton* m_onSlice;
    QPushButton* m_onRange;
    QPushButton* m_delete;
    QLabel* m_hint;
};

} // namespace xps::ui
