#pragma once
// Sizes a table's columns to what they show, and gives one column (a disassembly's bundle text, a
// suggestion's title) the rest of the width, as a spreadsheet's "fit" does. It refits when the model is
// reset or its data changes, when the table is resized and when its font changes (presentation mode), until
// the user drags a column edge: from then on their widths are theirs.

#include <QObject>
#include <QTimer>

#include <vector>

class QTableView;

namespace xps::ui {

// Set on a table whose columns a ColumnFitter sizes.
inline constexpr const char* kFittedProperty = "xpsColumnsFitted";

class ColumnFitter : public QObject
{
    Q_OBJECT
public:
    // Columns are at most maxColumnWidth pixels wide, except fillColumn, which takes what is left of the
    // viewport (its text elided if longer), and at least maxColumnWidth unless its content is narrower.
    ColumnFitter(QTableView* table, int fillColumn, int maxColumnWidth = 320);

    // A column drawn by a delegate without a useful size hint (a bar) needs a width of its own.
    void setMinimumWidth(int column, int pixels);
    // Measures the header and the cells around the visible rows, then sizes every column.
    void fit();
    bool userSized() const { return m_userSized; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void scheduleFit();
    void distribute();

    QTableView* m_table;
    const QObject* m_viewport = nullptr; // only compared, never called
    int m_fillColumn;
    int m_maxColumnWidth;
    std::vector<int> m_minimum; // by column
    std::vector<int> m_content; // measured width by column
    bool m_fitting = false;
    bool m_userSized = false;
    QTimer m_timer; // the next fit
};

} // namespace xps::ui
