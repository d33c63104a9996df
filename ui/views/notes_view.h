#pragma once
// The notes panel of a replay: every note of the document with its cycles and what it is pinned to, in the
// one notes model the profile explorer's Notes tab also shows (session/notes_model.h); the text is edited in
// place, a double-click jumps the views to the note, Delete removes it. Select two notes to measure the
// range between them (as AWS Neuron Explorer's annotation pairs do): Δ cycles and time, DMA bytes moved and
// the achieved rate, and each unit's utilization within it.

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace xps::ui {

class NotesModel;
class ReplaySession;
class SelectionModel;
class SessionNotes;

class NotesView : public QWidget
{
    Q_OBJECT
public:
    NotesView(ReplaySession* session, SelectionModel* selection, SessionNotes* notes, QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    NotesModel* model() const { return m_model; }
    QString measurement() const; // the text under the table

private:
    void measureSelection();
    void jumpTo(int row);
    void removeSelected();
    std::int64_t idAt(int row) const;

    ReplaySession* m_session;
    SelectionModel* m_selection;
    SessionNotes* m_notes;
    NotesModel* m_model;
    QTableView* m_table;
    QPushButton* m_delete;
    QLabel* m_measure;
};

} // namespace xps::ui
