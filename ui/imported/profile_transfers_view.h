#pragma once
// The Transfers tab of the profile explorer: what the DMA lanes are for a replay, for any profile. The
// copies, memsets and byte-counted communication (profile/transfers.h) as lanes, one per stream or DMA
// engine that has any, on the document's time range and selection (so the timeline above follows); under
// them the achieved bandwidth of each device over the visible range; the selected transfer in words: how
// many bytes, at what rate.

#include <QWidget>

#include <memory>
#include <vector>

class QCustomPlot;
class QLabel;

namespace xps::ui {

class ProfileDocument;
class ProfileTimelineView;
struct ProfileRun;

class ProfileTransfersView : public QWidget
{
    Q_OBJECT
public:
    explicit ProfileTransfersView(ProfileDocument* document, QWidget* parent = nullptr);

    ProfileTimelineView* lanes() const { return m_lanes; }
    QCustomPlot* bandwidth() const { return m_bandwidth; }
    QString details() const; // what the line under the plot says

private:
    void showBandwidth();
    void showSelection();
    void applyTheme();

    ProfileDocument* m_document;
    std::vector<bool> m_isTransfer; // per slice of the run below
    std::weak_ptr<const ProfileRun> m_flagsFor;
    ProfileTimelineView* m_lanes;
    QCustomPlot* m_bandwidth;
    QLabel* m_info;
};

} // namespace xps::ui
