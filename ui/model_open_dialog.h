#pragma once
// Asked when File > Open picks a model (.mlir): the element type its float tensors run as, as
// `xpushark-cli estimate --dtype` takes it. A bf16 deployment runs an f32 or f16 export as bf16 on the MXU
// and in memory, and the TPU runs users compare against are bf16.

#include <QDialog>
#include <QString>

#include <optional>

class QComboBox;

namespace xps::ui {

class ModelOpenDialog : public QDialog
{
    Q_OBJECT
public:
    // `path`: the model, named in the dialog; `dtype`: the choice to start from ("" as exported).
    ModelOpenDialog(const QString& path, const QString& dtype, QWidget* parent = nullptr);
    // "" (as exported), "bf16", "f16" or "f32".
    QString dtype() const;

private:
    QComboBox* m_types;
};

// Shows the dialog; the chosen type, or nothing when it was cancelled.
std::optional<QString> askModelDtype(QWidget* parent, const QString& path, const QString& dtype);

} // namespace xps::ui
