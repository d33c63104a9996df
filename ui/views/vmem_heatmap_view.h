#pragma once
// VMEM heatmap: x = time, y = VMEM address with the buffers' names; colour = bytes read, bytes written, or
// live occupancy (which declared buffers were live: between their first and last access). A click on a
// cell selects the instructions and DMAs that touched that address range in that time slice.

#include "analysis/chip_index.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPItemText;
class QLabel;

namespace xps::ui {

class ReplaySession;
class SelectionModel;
class NoteMarkers;
class SessionNotes;

class VmemHeatmapView : public QWidget
{
    Q_OBJECT
public:
    enum class Mode { Read, Write, Live };
    VmemHeatmapView(ReplaySession* session, SelectionModel* selection, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    void setMode(Mode mode);
    void setChip(ChipId chip);
    // Selects what touched [fromCycle, toCycle) x [fromAddress, toAddress) of the shown chip.
    void selectCell(std::uint64_t fromCycle, std::uint64_t toCycle, std::uint64_t fromAddress,
                    std::uint64_t toAddress);
    QString cellText() const;
    // What the plot says over an empty map ("" when it shows traffic).
    QString emptyText() const;
    // Pixel position of (cycle, address), for tests that click.
    QPoint pointAt(double cycle, double address) const;
    // Notes: drawn over the map; the context menu adds one for the time column under the pointer.
    void setNotes(SessionNotes* notes);
    int noteMarkerCount() const;
    std::int64_t addNoteAt(const QPoint& pos, const QString& text);
    // The colour scale: from 0 to the largest cell drawn, or to `top` when that is larger. Two maps shown
    // side by side (the comparison window's runs) share one scale so that a colour is one value in both.
    double largestCell() const { return m_largest; }
    void setScaleTop(double top);
    double scaleTop() const;

signals:
    void largestCellChanged(double largest);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void onOpened();
    void refresh();
    void applyTheme();

    ReplaySession* m_session;
    SelectionModel* m_selection;
    QComboBox* m_chipBox;
    QComboBox* m_modeBox;
    QCustomPlot* m_plot;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QCPItemText* m_empty; // "no VMEM traffic ...", over the plot when the chip has none
    QLabel* m_cell;
    Mode m_mode = Mode::Write;
    ChipId m_chip = ChipId(0);
    std::unique_ptr<analysis::ChipIndex> m_index; // built on the first click of a multi-chip replay
    bool m_settingRange = false;
    double m_largest = 0;   // the largest cell of the map as last drawn
    double m_sharedTop = 0; // setScaleTop's
    bool m_dirty = false;
    SessionNotes* m_notes = nullptr;
    NoteMarkers* m_noteMarkers = nullptr;
    QPoint m_pressPos; // a release near it is a click, not a drag
    struct CellSize
    {
        double cyclesPerBin = 1, bytesPerBin = 1, base = 0;
    } m_grid; // of the grid shown, for mapping a click to its cell
};

} // namespace xps::ui
