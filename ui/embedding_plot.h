#pragma once
// The embedding plot: classical MDS of an entity's mentions, its KB names and those of
// its nearest competing entities, drawn as Le & Nguyen's Figure 4 -- stars for names, dots for
// mentions, one colour per entity. The wheel zooms about the cursor, Shift+drag zooms to a
// rectangle, the middle button pans, "Reset zoom" shows everything again; hovering a point shows
// its text and a click on it navigates (mentionActivated / entityActivated).
//
// showEntity() gathers the points (core/curation/entity_neighbourhood.h) and runs the MDS on a
// worker thread; a new request cancels the running one. Without a ranker handed over by
// setCandidates(), the first request builds the sparse candidate ranker itself.
#include <QPointF>
#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

#include "background_job.h"
#include "curation/entity_neighbourhood.h"
#include "eval/classical_mds.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QChart;
class QChartView;
class QScatterSeries;

namespace linkscope {
struct LoadedProject;
}

namespace linkscope::ui {

class EmbeddingPlot : public QWidget {
    Q_OBJECT
public:
    /// What one computation produced: the points and their layout.
    struct Layout {
        QString entityId;  ///< as asked
        curation::EntityNeighbourhood neighbourhood;
        eval::MdsResult mds;
    };

    explicit EmbeddingPlot(QWidget* parent = nullptr);

    /// The project whose entities are plotted (null: none); clears the plot.
    void setProject(std::shared_ptr<const LoadedProject> project);
    /// The sparse ranker to find competitors with (the curation session's, so that it is built
    /// once); null: build one on first use. It must rank the current project's KB.
    void setCandidates(std::shared_ptr<const curation::SparseCandidates> candidates);
    /// Gathering options (number of competitors, point cap, a dense embedding), and what the
    /// distances are, for the status line ("TF-IDF cosine", a run's name).
    void setOptions(const curation::NeighbourhoodOptions& options, const QString& distances = {});

    bool isComputing() const { return computing_; }
    /// The plotted layout, null before the first result (and after setProject).
    const Layout* layout() const { return layout_.get(); }
    QChart* chart() const { return chart_; }
    QChartView* chartView() const { return view_; }
    QLabel* statusLabel() const { return status_; }
    /// The series of the plot: per entity (in layout order) its names (stars) then its mentions.
    const std::vector<QScatterSeries*>& series() const { return series_; }
    /// The point drawn at `position` of `series` (the first of coinciding ones), or null.
    const curation::NeighbourhoodPoint* pointAt(const QScatterSeries* series, const QPointF& position) const;

public Q_SLOTS:
    /// Plots this entity (any id the KB knows it by); cancels a computation under way.
    void showEntity(const QString& id);
    void cancel();
    void resetZoom();
    /// What a click on a point of `series` does (the series' clicked signal calls it).
    void activatePoint(QScatterSeries* series, const QPointF& position);
    /// What hovering does: the point's text as a tool tip.
    void hoverPoint(QScatterSeries* series, const QPointF& position, bool entered);

Q_SIGNALS:
    void mentionActivated(const QString& split, const QString& pmid, int start, int end);
    void entityActivated(const QString& id);
    /// A requested plot is shown (layout() holds it).
    void computed(const QString& entityId);
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const Layout> layout;
        std::shared_ptr<const curation::SparseCandidates> candidates;  ///< built by the worker, if it did
    };
    void onComputed(const Outcome& outcome);
    void plot(std::shared_ptr<const Layout> layout);
    void clearPlot();
    void setComputing(bool computing, const QString& text);

    std::shared_ptr<const LoadedProject> project_;
    std::shared_ptr<const curation::SparseCandidates> candidates_;
    curation::NeighbourhoodOptions options_;
    QString distances_;
    std::shared_ptr<const Layout> layout_;
    BackgroundJob job_;
    bool computing_ = false;
    /// Per series: the index in layout_->neighbourhood.points of each of its points, in order.
    std::vector<QScatterSeries*> series_;
    std::vector<std::vector<std::size_t>> seriesPoints_;

    QChart* chart_ = nullptr;
    QChartView* view_ = nullptr;
    QLabel* status_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QPushButton* reset_ = nullptr;
};

}  // namespace linkscope::ui
