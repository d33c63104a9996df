#include "model_open_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

namespace xps::ui {

ModelOpenDialog::ModelOpenDialog(const QString& path, const QString& dtype, QWidget* parent)
    : QDialog(parent), m_types(new QComboBox(this))
{
    setWindowTitle(tr("Open model"));
    auto* layout = new QVBoxLayout(this);
    auto* intro =
        new QLabel(tr("%1 compiles for the GRM as it opens.").arg(QFileInfo(path).fileName()), this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    m_types->setObjectName(QStringLiteral("modelDtype"));
    m_types->addItem(tr("as exported"), QString());
    m_types->addItem(tr("bf16 (as a TPU deployment runs it)"), QStringLiteral("bf16"));
    m_types->addItem(tr("f16"), QStringLiteral("f16"));
    m_types->addItem(tr("f32"), QStringLiteral("f32"));
    m_types->setCurrentIndex(std::max(0, m_types->findData(dtype)));
    m_types->setToolTip(
        tr("Every float tensor of the model (arguments, constants, every op's result) runs as "
           "this type: 2 bytes a value in HBM for bf16 and f16, the MXU's bf16 matmuls"));
    form->addRow(tr("Floats run as:"), m_types);
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    // Wide enough for the file's name and the longest choice on one line each.
    setMinimumWidth(
        std::max(fontMetrics().horizontalAdvance(intro->text()), 2 * m_types->sizeHint().width()) +
        2 * layout->contentsMargins().left());
}

QString ModelOpenDialog::dtype() const
{
    return m_types->currentData().toString();
}

std::optional<QString> askModelDtype(QWidget* parent, const QString& path, const QString& dtype)
{
    ModelOpenDialog dialog(path, dtype, parent);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return dialog.dtype();
}

} // namespace xps::ui
