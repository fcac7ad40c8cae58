#pragma once
// Every node of the cluster as a row of 8 CPU + 8 GPU slots, each slot coloured by the job
// holding it (pale = parameter server). Node rows flow into columns; Ctrl+wheel or +/- zooms,
// dragging pans, and when zoomed far out each node collapses to a compact heat-map tile
// (CPU | GPU load). Hovering shows node/job/role; clicking selects a job.

#include "jobstate.h"
#include "modelprofile.h"

#include <QAbstractScrollArea>
#include <unordered_map>
#include <vector>

namespace dl2console {

class ClusterOccupancyView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    struct CellOwner
    {
        int jobId = -1; // -1: free
        dl2::TaskRole role = dl2::TaskRole::Worker;
    };

    explicit ClusterOccupancyView(QWidget *parent = nullptr);

    void setProfiles(const dl2::ProfileSet &profiles);
    void setSnapshot(const dl2::SlotSnapshot &snapshot);
    void setSelectedJob(int jobId);
    int selectedJob() const { return m_selectedJob; }

    int nodeCount() const { return m_nodes; }
    int slotsPerResource() const { return m_slots; }
    CellOwner cellOwner(int node, dl2::Resource resource, int index) const;
    bool heatMapMode() const;
    int zoomLevel() const { return m_level; }
    void setZoomLevel(int level);
    void zoomIn() { setZoomLevel(m_level + 1); }
    void zoomOut();
    // Every node in view at the largest cells that allow it, again after each resize or font
    // change, until setZoomLevel() (Ctrl+wheel, +/-) picks a zoom step.
    void zoomToFit();
    bool isFitted() const { return !m_userZoom; }
    // Cell size in pixels (slot cell, or heat-map tile): a zoom step's, or between two when
    // fitted.
    int cellSize() const { return m_px; }
    // Size of everything drawn (legend strip and every node) at the current cell size.
    QSize contentSize() const { return m_geo.content; }
    // The header's "Ctrl+wheel: zoom" (off in presentation mode and exports).
    void setHintsShown(bool on);
    bool hintsShown() const { return m_hints; }
    // Centre of a node in viewport coordinates (tests, keyboard navigation).
    QPoint nodeCenter(int node) const;
    int nodeAt(const QPoint &viewportPos, int *resource = nullptr, int *slot = nullptr) const;

Q_SIGNALS:
    void jobClicked(int jobId);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    struct Geometry
    {
        int cell = 4;  // slot size (px), or tile size in heat-map mode
        int nodeW = 0; // width of one node row incl. spacing
        int nodeH = 0; // height of one node row incl. spacing
        int label = 0; // node-number label width
        int columns = 1;
        int rows = 0;
        int header = 0; // legend strip height
        QSize content;
    };
    Geometry geometryFor(bool heat, int px, int viewportWidth, bool labels) const;
    void fitToViewport();
    void relayout();
    void applyZoomLevel(int level);
    QColor jobColor(int jobId) const;
    QString tooltipAt(const QPoint &pos) const;
    void paintHeader(QPainter &p, const Geometry &g) const;

    dl2::ProfileSet m_profiles;
    int m_nodes = 0;
    int m_slots = 8;
    std::vector<CellOwner> m_cells; // node-major: CPU slots then GPU slots
    std::vector<dl2::Demand> m_usage;
    std::vector<dl2::JobState> m_jobs;
    std::unordered_map<int, int> m_jobIndex;
    int m_selectedJob = -1;
    int m_snapshotSlot = -1;
    int m_level = -1;        // zoom step (kLevels); -1 until the first layout
    int m_px = 0;            // cell size: the step's, or larger when fitted between steps
    bool m_labels = true;    // node numbers beside the rows (cells of 8 px and more)
    bool m_userZoom = false; // false: fitted to the viewport on every layout
    bool m_hints = true;
    Geometry m_geo;
    QPoint m_pressPos;
    QPoint m_pressScroll;
    bool m_dragging = false;
};

} // namespace dl2console
