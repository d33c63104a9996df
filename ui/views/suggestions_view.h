#pragma once
// Suggestions ranked by measured gain. A click moves every view to the evidence (time range, pcs, DMAs);
// "Apply and compare" replays the changed program in the background and shows baseline and fixed side by
// side with the deltas and the output check. The review's state of each acts: a dismissed one leaves the
// ranking (shown greyed at the bottom on request), an applied one shows its fixed run whenever it is
// selected (compared once, then kept).

#include "compare_runs.h"

#include <QWidget>

#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QTextBrowser;

namespace xps::ui {

class ReplaySession;
class SelectionModel;
class SessionNotes;

class SuggestionsView : public QWidget
{
    Q_OBJECT
public:
    SuggestionsView(ReplaySession* session, SelectionModel* selection, QWidget* parent = nullptr);

    // The ranking's columns. Severity is the id's coloured mark (and its hover text), not a column of its
    // own: in a 340 px dock the title is what must fit.
    enum Column { IdColumn, GainColumn, TitleColumn, VerdictColumn, StateColumn, ColumnCount };

    QTableWidget* list() const { return m_list; }
    QTableWidget* comparison() const { return m_comparison; }
    QPushButton* compareButton() const { return m_compare; }
    // After Apply and compare: the fixed run beside the baseline (#24's comparison window).
    QPushButton* openFixedButton() const { return m_openFixed; }
    QString comparisonVerdict() const;
    // Moves every view to suggestion `index`'s evidence: its time range, pcs and DMAs.
    void showEvidence(int index);
    // The state column and the state box follow (and set) what the session records per suggestion.
    void setNotes(SessionNotes* notes);
    QComboBox* stateBox() const { return m_state; }
    // Dismissed suggestions leave the ranking; this shows them again, greyed, below the others.
    QCheckBox* showDismissedBox() const { return m_showDismissed; }
    // The suggestion (index into the run's list) on table row `row`, or -1; and the row of one, or -1.
    int indexOfRow(int row) const;
    int rowOfIndex(int index) const;

protected:
    void changeEvent(QEvent* event) override;

signals:
    void openFixedRun(int index); ///< "Open fixed run" was clicked for suggestion `index`

private:
    void fill();
    void onCurrentChanged();
    void showComparison(int index, const sim::RunComparison& comparison);
    void onStateChosen();
    int currentIndex() const; // index into the run's suggestions, -1 if none

    ReplaySession* m_session;
    SelectionModel* m_selection;
    QTableWidget* m_list;
    QTextBrowser* m_detail;
    QPushButton* m_compare;
    QPushButton* m_openFixed;
    QLabel* m_verdict;
    QTableWidget* m_comparison;
    QComboBox* m_state;
    QCheckBox* m_showDismissed;
    SessionNotes* m_notes = nullptr;
    std::vector<int> m_rowIndex; // table row -> suggestion index
    // Apply and compare's results by suggestion index, for this run: an applied suggestion shows its fixed
    // run when selected, without replaying it again.
    std::map<int, sim::RunComparison> m_comparisons;
    void showStates();
};

} // namespace xps::ui
