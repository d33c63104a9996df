#pragma once
// Replay > Limits…: where the explorer's replays stop, a cycle, a bundle and a memory limit each of which
// can be turned off (the CLI's --max-cycles, --max-bundles and --max-memory). The GRM's defaults stop a
// program that never ends; a long real kernel, or a what-if that slows a long run down, needs more. The
// dialog says what a bundle limit costs in memory, and the limits are kept across sessions (QSettings).

#include "replayer.h"

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
    // The limits of `limits` (0: none); its mode is not the dialog's.
    explicit ReplayLimitsDialog(const sim::ReplayOptions& limits, QWidget* parent = nullptr);

    // What the dialog holds now (valid while OK is enabled), in ReplayOptions' limit fields.
    sim::ReplayOptions limits() const;

    // The limits saved by an earlier session, or the GRM's defaults.
    static sim::ReplayOptions savedLimits();
    static void saveLimits(const sim::ReplayOptions& limits);
    // "1,234,567" (separators: ',', '_', ' ', the locale's) as a count above 0; nothing if it is not one.
    static std::optional<std::uint64_t> parseCount(const QString& text);
    // "8G", "512 MiB", "11.7 GiB" (text::parseBytes, spaces allowed) as a size above 0; nothing otherwise.
    static std::optional<std::uint64_t> parseSize(const QString& text);

private:
    struct Row
    {
        QCheckBox* enabled = nullptr;
        QLineEdit* count = nullptr;
    };
    Row addRow(const QString& name, const QString& unit, const QString& placeholder);
    void setRow(Row& row, const QString& text); // empty: the limit off
    void setCycles(std::uint64_t value);
    void setBundles(std::uint64_t value);
    void setMemory(std::uint64_t bytes);
    // The memory field's size: the exact value it was filled with while its rounded text is unchanged.
    std::optional<std::uint64_t> memoryBytes() const;
    void update();

    Row m_cycles, m_bundles, m_memory;
    QString m_memoryShown;           // the text setMemory wrote
    std::uint64_t m_memoryExact = 0; // and the value it stands for
    QLabel* m_note = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    QGridLayout* m_grid = nullptr;
};

} // namespace xps::ui
