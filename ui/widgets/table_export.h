#pragma once
// Copy and save a table as CSV, from its context menu, as a spreadsheet user expects of any table of
// numbers: the comparison windows' delta tables first. What is written is what the table shows, in the
// order it shows it (sorted by the clicked column), without the columns it hides; fields are quoted as
// RFC 4180 says (a name with a comma, a quote or a line break).

#include <QString>

class QTableView;

namespace xps::ui {

// The header and every row of `table` as CSV text (lines end in CRLF, as RFC 4180 has them).
QString tableAsCsv(const QTableView& table);
// Writes tableAsCsv to `path` (UTF-8; writeTextFileAtomically: the old file stays whole until the new one
// is). An empty string, or what went wrong.
QString saveTableAsCsv(const QTableView& table, const QString& path);
// Adds "Copy table as CSV" and "Save table as CSV…" to `table`'s context menu. `fileStem` names the
// suggested file ("decode-deltas" -> decode-deltas.csv).
void addTableExportActions(QTableView* table, const QString& fileStem);

} // namespace xps::ui
