#include "widgets/table_export.h"

#include "util/atomic_file.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QHeaderView>
#include <QMessageBox>
#include <QTableView>

#include <vector>

namespace xps::ui {

namespace {

QString csvField(const QString& text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace

QString tableAsCsv(const QTableView& table)
{
    const QAbstractItemModel* model = table.model();
    if (!model)
        return {};
    // Columns in the order the header shows them (a dragged column moves), hidden ones left out.
    std::vector<int> columns;
    const QHeaderView* header = table.horizontalHeader();
    for (int visual = 0; visual < header->count(); ++visual) {
        const int logical = header->logicalIndex(visual);
        if (!table.isColumnHidden(logical))
            columns.push_back(logical);
    }
    QString csv;
    const auto addLine = [&](auto&& fieldOf) {
        for (std::size_t i = 0; i < columns.size(); ++i) {
            if (i > 0)
                csv += QLatin1Char(',');
            csv += csvField(fieldOf(columns[i]));
        }
        csv += QLatin1String("\r\n");
    };
    addLine([&](int column) { return model->headerData(column, Qt::Horizontal).toString(); });
    for (int row = 0; row < model->rowCount(); ++row)
        if (!table.isRowHidden(row))
            addLine([&](int column) { return model->index(row, column).data().toString(); });
    return csv;
}

QString saveTableAsCsv(const QTableView& table, const QString& path)
{
    const Status saved = writeTextFileAtomically(path.toStdString(), tableAsCsv(table).toStdString());
    return saved ? QString() : QString::fromStdString(saved.error().toString());
}

void addTableExportActions(QTableView* table, const QString& fileStem)
{
    table->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copy = new QAction(QObject::tr("Copy table as CSV"), table);
    QObject::connect(copy, &QAction::triggered, table,
                     [table] { QApplication::clipboard()->setText(tableAsCsv(*table)); });
    auto* save = new QAction(QObject::tr("Save table as CSV…"), table);
    QObject::connect(save, &QAction::triggered, table, [table, fileStem] {
        const QString path =
            QFileDialog::getSaveFileName(table, QObject::tr("Save table as CSV"),
                                         fileStem + QStringLiteral(".csv"), QObject::tr("CSV files (*.csv)"));
        if (path.isEmpty())
            return;
        if (const QString error = saveTableAsCsv(*table, path); !error.isEmpty())
            QMessageBox::warning(table, QObject::tr("Save table as CSV"), error);
    });
    table->addAction(copy);
    table->addAction(save);
}

} // namespace xps::ui
