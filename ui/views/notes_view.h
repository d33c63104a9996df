#pragma once
// The notes panel: every note of the document with its cycles and what it is pinned to; the text is edited
// in place, a double-click jumps the views to the note, Delete removes it. Select two notes to measure the
// range between them (as AWS Neuron Explorer's annotation pairs do): Δ cycles and time, DMA bytes moved and
// the achieved rate, and each unit's utilization within it.

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace xps::ui {

class ReplaySession;
class SelectionModel;
class SessionNotes;

class NotesView : public QWidget
{
    Q_OBJECT
public:
    NotesView(ReplaySession* session, SelectionModel* selection, SessionNotes* notes, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QString measurement() const; // the text under the table

private:
    void showNotes();
    void measureSelection();
    void jumpTo(int row);
    void removeSelected();
    std::int64_t idAt(int row) const;

    ReplaySession* m_session;
    SelectionModel* m_selection;
    SessionNotes* m_notes;
    QTableWidget* m_table;
    QPushButton* m_delete;
    QLabel* m_measure;
    bool m_filling = false;
};

} // namespace xps::ui
