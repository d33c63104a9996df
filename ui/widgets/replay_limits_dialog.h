#pragma once
// Replay > Limits…: where the explorer's replays stop, a cycle and a bundle limit each of which can be
// turned off. The GRM's defaults stop a program that never ends; a long real kernel, or a what-if that
// slows a long run down, needs more. The dialog says what a bundle limit costs in memory, and the limits
// are kept across sessions (QSettings).

#include <QDialog>

#include <cstdint>
#include <optional>

class QCheckBox;
class QDialogButtonBox;
class QGridLayout;
class QLabel;
class QLineEdit;

namespace xps::ui {

class ReplayLimitsDialog : public QDialog
{
    Q_OBJECT

public:
    // 0: no limit.
    ReplayLimitsDialog(std::uint64_t maxCycles, std::uint64_t maxBundles, QWidget* parent = nullptr);

    // What the dialog holds now (valid while OK is enabled).
    std::uint64_t maxCycles() const;
    std::uint64_t maxBundles() const;

    // The limits saved by an earlier session, or the GRM's defaults.
    static std::pair<std::uint64_t, std::uint64_t> savedLimits();
    static void saveLimits(std::uint64_t maxCycles, std::uint64_t maxBundles);
    // "1,234,567" (separators: ',', '_', ' ', the locale's) as a count above 0; nothing if it is not one.
    static std::optional<std::uint64_t> parseCount(const QString& text);

private:
    struct Row
    {
        QCheckBox* enabled = nullptr;
        QLineEdit* count = nullptr;
    };
    Row addRow(const QString& what, std::uint64_t value, std::uint64_t defaultValue);
    void setRow(Row& row, std::uint64_t value);
    void update();

    Row m_cycles, m_bundles;
    QLabel* m_memory = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    QGridLayout* m_grid = nullptr;
};

} // namespace xps::ui
