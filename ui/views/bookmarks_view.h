#pragma once
// The bookmarks panel: every named view of the document with its time range (cycles for a replay; an imported
// profile's time, as setRangeFormat says). A double-click (or Show)
// brings the views back to it; its name is edited in place (F2, or a click on the selected name);
// Delete removes the selected ones. The Bookmarks menu does the same for the bookmark last shown.

#include <QWidget>

#include <cstdint>
#include <functional>

class QPushButton;
class QTableWidget;

namespace xps::ui {

class SessionNotes;

class BookmarksView : public QWidget
{
    Q_OBJECT
public:
    explicit BookmarksView(SessionNotes* notes, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QPushButton* showButton() const { return m_show; }
    QPushButton* deleteButton() const { return m_delete; }
    // How the range column reads: its header and each range's text. Cycles until set.
    using RangeText = std::function<QString(std::uint64_t from, std::uint64_t to)>;
    void setRangeFormat(const QString& header, RangeText text);
    // Starts editing bookmark `index`'s name in the table.
    void editName(int index);

signals:
    void showRequested(int index);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fill();
    void removeSelected();
    int selectedRow() const; // the current row if it is selected, else -1

    SessionNotes* m_notes;
    QTableWidget* m_table;
    QPushButton* m_show;
    QPushButton* m_delete;
    bool m_filling = false;
    RangeText m_rangeText;
};

} // namespace xps::ui
