#include "embedding_plot.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

#include "curation/sparse_candidates.h"
#include "plot_export.h"
#include "project/loaded_project.h"

namespace linkscope::ui {

namespace {

QString fromUtf8(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// Colour-blind-friendly categorical colours (Okabe & Ito, then Tableau's), focus entity first.
const QList<QColor>& entityColours() {
    static const QList<QColor> colours{QColor(0xD5, 0x5E, 0x00), QColor(0x00, 0x72, 0xB2), QColor(0x00, 0x9E, 0x73),
                                       QColor(0xCC, 0x79, 0xA7), QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
                                       QColor(0x8C, 0x56, 0x4B), QColor(0x7F, 0x7F, 0x7F), QColor(0xBC, 0xBD, 0x22),
                                       QColor(0x17, 0xBE, 0xCF)};
    return colours;
}

// A chart view that zooms with the wheel about the cursor, with Shift+drag to a rectangle, and
// pans with the middle button. The rubber band is switched on only while Shift is held: when it
// is on, QChartView keeps left clicks for itself and the series would never see them.
class ZoomableChartView : public QChartView {
public:
    using QChartView::QChartView;

protected:
    void wheelEvent(QWheelEvent* event) override {
        const double factor = std::pow(1.0015, event->angleDelta().y());
        const QRectF area = chart()->plotArea();
        QPointF at = chart()->mapFromScene(mapToScene(event->position().toPoint()));
        at.setX(std::clamp(at.x(), area.left(), area.right()));
        at.setY(std::clamp(at.y(), area.top(), area.bottom()));
        // The rectangle that, once zoomed to fill the plot area, keeps the point under the cursor.
        chart()->zoomIn(QRectF(at - (at - area.topLeft()) / factor, area.size() / factor));
        event->accept();
    }
    void mousePressEvent(QMouseEvent* event) override {
        if (event->button() == Qt::MiddleButton) {
            panningFrom_ = event->position();
            panning_ = true;
            event->accept();
            return;
        }
        setRubberBand(event->modifiers().testFlag(Qt::ShiftModifier) ? QChartView::RectangleRubberBand
                                                                     : QChartView::NoRubberBand);
        QChartView::mousePressEvent(event);
    }
    void mouseMoveEvent(QMouseEvent* event) override {
        if (panning_) {
            const QPointF delta = event->position() - panningFrom_;
            chart()->scroll(-delta.x(), delta.y());
            panningFrom_ = event->position();
            event->accept();
            return;
        }
        QChartView::mouseMoveEvent(event);
    }
    void mouseReleaseEvent(QMouseEvent* event) override {
        if (panning_ && event->button() == Qt::MiddleButton) {
            panning_ = false;
            event->accept();
            return;
        }
        QChartView::mouseReleaseEvent(event);
    }

private:
    bool panning_ = false;
    QPointF panningFrom_;
};

// A progress sink that maps the engine's 0..1 onto [from, to] percent of the job's progress.
ProgressSink stageSink(const JobContext& context, int from, int to) {
    ProgressSink sink;
    sink.cancelled = [&context] { return context.isCancelled(); };
    sink.report = [&context, from, to](std::string_view stage, double fraction) {
        context.reportProgress(from + static_cast<int>(std::lround((to - from) * std::clamp(fraction, 0.0, 1.0))),
                               fromUtf8(stage));
    };
    return sink;
}

}  // namespace

EmbeddingPlot::EmbeddingPlot(QWidget* parent) : QWidget(parent) {
    chart_ = new QChart();
    chart_->legend()->setAlignment(Qt::AlignBottom);
    chart_->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    chart_->setAnimationOptions(QChart::NoAnimation);
    view_ = new ZoomableChartView(chart_, this);  // takes ownership of the chart
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setToolTip(
        tr("Wheel: zoom  ·  Shift+drag: zoom to a rectangle  ·  middle button: pan  ·  "
           "click a dot to open the mention, a star to show the entity"));

    status_ = new QLabel(tr("Choose an entity to see its neighbourhood."), this);
    status_->setWordWrap(true);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 100);
    progress_->setMaximumWidth(160);
    progress_->hide();
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->hide();
    reset_ = new QPushButton(tr("Reset zoom"), this);
    reset_->setEnabled(false);

    auto* bar = new QHBoxLayout();
    bar->addWidget(status_, 1);
    bar->addWidget(progress_);
    bar->addWidget(cancel_);
    bar->addWidget(reset_);
    bar->addWidget(makeSavePlotButton(view_, QStringLiteral("embedding-plot"), this));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    // Room for the axis titles, a few ticks and the legend; grows with the dock.
    view_->setMinimumSize(320, 260);
    layout->addWidget(view_, 1);

    connect(cancel_, &QPushButton::clicked, this, &EmbeddingPlot::cancel);
    connect(reset_, &QPushButton::clicked, this, &EmbeddingPlot::resetZoom);
    connect(&job_, &BackgroundJob::progressChanged, this, [this](int percent, const QString& text) {
        progress_->setValue(percent);
        if (computing_) status_->setText(tr("Computing… %1").arg(text));
    });
    connect(&job_, &BackgroundJob::cancelled, this, [this] {
        if (computing_) setComputing(false, tr("Cancelled."));  // not after setProject(): it stopped the job
    });
    connect(&job_, &BackgroundJob::failed, this, [this](const QString& message) {
        if (!computing_) return;
        setComputing(false, message);
        Q_EMIT failed(message);
    });
}

void EmbeddingPlot::setProject(std::shared_ptr<const LoadedProject> project) {
    job_.cancel();  // its result is dropped: nothing is being computed then
    setComputing(false, tr("Choose an entity to see its neighbourhood."));
    project_ = std::move(project);
    candidates_.reset();  // ranks another KB
    clearPlot();
}

void EmbeddingPlot::setCandidates(std::shared_ptr<const curation::SparseCandidates> candidates) {
    candidates_ = std::move(candidates);
}

void EmbeddingPlot::showEntity(const QString& id) {
    if (!project_ || !project_->kb) {
        Q_EMIT failed(tr("No project is open."));
        return;
    }
    setComputing(true, tr("Computing the neighbourhood of %1…").arg(id));
    // The running computation, if any, stops at its next check; its result is dropped.
    job_.start(
        [project = project_, candidates = candidates_, options = options_, id](const JobContext& context) {
            Outcome outcome;
            std::shared_ptr<const curation::SparseCandidates> ranker = candidates;
            if (!ranker) {
                ranker = std::make_shared<const curation::SparseCandidates>(*project->kb, /*homonymExpansion=*/true,
                                                                            stageSink(context, 0, 40));
                outcome.candidates = ranker;
            }
            auto layout = std::make_shared<Layout>();
            layout->entityId = id;
            layout->neighbourhood = curation::gatherEntityNeighbourhood(
                *project->kb, project->splits, *ranker, id.toStdString(), options, stageSink(context, 40, 75));
            context.reportProgress(75, tr("Multidimensional scaling"));
            layout->mds = eval::classicalMds(layout->neighbourhood.distances, 2, stageSink(context, 75, 100));
            outcome.layout = std::move(layout);
            return outcome;
        },
        [this](const Outcome& outcome) { onComputed(outcome); });
}

void EmbeddingPlot::cancel() {
    if (!computing_) return;
    job_.cancel();
}

void EmbeddingPlot::onComputed(const Outcome& outcome) {
    if (!computing_) return;
    if (outcome.candidates && !candidates_) candidates_ = outcome.candidates;  // reuse for the next entity
    plot(outcome.layout);
    const curation::EntityNeighbourhood& n = outcome.layout->neighbourhood;
    QString text = tr("%1 — %2: %n point(s), %3 competing entities", nullptr, static_cast<int>(n.points.size()))
                       .arg(fromUtf8(n.entities.front().id), fromUtf8(n.entities.front().preferredName))
                       .arg(n.entities.size() - 1);
    if (n.sampledOutMentions > 0) text += tr(" (%1 mentions sampled out)").arg(n.sampledOutMentions);
    text +=
        tr("; the plane shows %1% of the variance.").arg(100.0 * outcome.layout->mds.varianceExplained(), 0, 'f', 1);
    text += tr(" Distances: %1.")
                .arg(distances_.isEmpty() ? tr("cosine of character 1-2-gram TF-IDF vectors") : distances_);
    setComputing(false, text);
    Q_EMIT computed(outcome.layout->entityId);
}

void EmbeddingPlot::setOptions(const curation::NeighbourhoodOptions& options, const QString& distances) {
    options_ = options;
    distances_ = distances;
}

void EmbeddingPlot::setComputing(bool computing, const QString& text) {
    computing_ = computing;
    status_->setText(text);
    progress_->setVisible(computing);
    cancel_->setVisible(computing);
    if (computing) progress_->setValue(0);
}

void EmbeddingPlot::clearPlot() {
    chart_->removeAllSeries();  // deletes them
    for (QAbstractAxis* axis : chart_->axes()) {
        chart_->removeAxis(axis);
        delete axis;
    }
    series_.clear();
    seriesPoints_.clear();
    layout_.reset();
    reset_->setEnabled(false);
}

void EmbeddingPlot::plot(std::shared_ptr<const Layout> layout) {
    clearPlot();
    layout_ = std::move(layout);
    const curation::EntityNeighbourhood& n = layout_->neighbourhood;
    const eval::MdsResult& mds = layout_->mds;

    auto* x = new QValueAxis();
    auto* y = new QValueAxis();
    styleValueAxis(x, tr("MDS 1 (%1% of variance)").arg(100.0 * mds.varianceExplained(0), 0, 'f', 1), 5,
                   QStringLiteral("%.2f"));
    styleValueAxis(y, tr("MDS 2 (%1% of variance)").arg(100.0 * mds.varianceExplained(1), 0, 'f', 1), 5,
                   QStringLiteral("%.2f"));
    chart_->addAxis(x, Qt::AlignBottom);
    chart_->addAxis(y, Qt::AlignLeft);

    for (std::size_t e = 0; e < n.entities.size(); ++e) {
        const curation::NeighbourhoodEntity& entity = n.entities[e];
        const QColor colour = entityColours().at(static_cast<qsizetype>(e % entityColours().size()));
        for (const curation::PointKind kind : {curation::PointKind::Name, curation::PointKind::Mention}) {
            auto* series = new QScatterSeries();
            const bool names = kind == curation::PointKind::Name;
            series->setMarkerShape(names ? QScatterSeries::MarkerShapeStar : QScatterSeries::MarkerShapeCircle);
            series->setMarkerSize(names ? 18.0 : 9.0);
            series->setColor(colour);
            series->setBorderColor(names ? colour.darker(150) : colour);
            series->setName(names ? QStringLiteral("%1 %2").arg(fromUtf8(entity.id), fromUtf8(entity.preferredName))
                                  : tr("%1 mentions").arg(fromUtf8(entity.id)));
            std::vector<std::size_t> indexes;
            QList<QPointF> points;
            for (std::size_t i = 0; i < n.points.size(); ++i) {
                if (n.points[i].entity != entity.id || n.points[i].kind != kind) continue;
                indexes.push_back(i);
                points.append(QPointF(mds.coordinate(i, 0), mds.coordinate(i, 1)));
            }
            series->replace(points);
            chart_->addSeries(series);
            series->attachAxis(x);
            series->attachAxis(y);
            connect(series, &QScatterSeries::clicked, this,
                    [this, series](const QPointF& p) { activatePoint(series, p); });
            connect(series, &QScatterSeries::hovered, this,
                    [this, series](const QPointF& p, bool state) { hoverPoint(series, p, state); });
            // One legend entry per entity: its star, labelled with id and preferred name.
            if (!names)
                for (QLegendMarker* marker : chart_->legend()->markers(series)) marker->setVisible(false);
            series_.push_back(series);
            seriesPoints_.push_back(std::move(indexes));
        }
    }

    // The same scale on both axes (as far as the ranges go): MDS distances mean something.
    double minX = 0, maxX = 0, minY = 0, maxY = 0;
    for (std::size_t i = 0; i < mds.points; ++i) {
        minX = std::min(minX, mds.coordinate(i, 0));
        maxX = std::max(maxX, mds.coordinate(i, 0));
        minY = std::min(minY, mds.coordinate(i, 1));
        maxY = std::max(maxY, mds.coordinate(i, 1));
    }
    const double half = std::max({maxX - minX, maxY - minY, 1e-6}) * 0.55;
    x->setRange((minX + maxX) / 2 - half, (minX + maxX) / 2 + half);
    y->setRange((minY + maxY) / 2 - half, (minY + maxY) / 2 + half);
    chart_->setTitle(tr("Neighbourhood of %1").arg(fromUtf8(n.entities.front().id)));
    reset_->setEnabled(true);
}

void EmbeddingPlot::resetZoom() { chart_->zoomReset(); }

const curation::NeighbourhoodPoint* EmbeddingPlot::pointAt(const QScatterSeries* series,
                                                           const QPointF& position) const {
    if (!layout_) return nullptr;
    const auto found = std::find(series_.begin(), series_.end(), series);
    if (found == series_.end()) return nullptr;
    const std::vector<std::size_t>& indexes = seriesPoints_[static_cast<std::size_t>(found - series_.begin())];
    // The series reports the point's value; take the nearest (the first of coinciding ones).
    const curation::NeighbourhoodPoint* best = nullptr;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (const std::size_t i : indexes) {
        const double dx = layout_->mds.coordinate(i, 0) - position.x();
        const double dy = layout_->mds.coordinate(i, 1) - position.y();
        if (dx * dx + dy * dy < bestDistance) {
            bestDistance = dx * dx + dy * dy;
            best = &layout_->neighbourhood.points[i];
        }
    }
    return best;
}

void EmbeddingPlot::activatePoint(QScatterSeries* series, const QPointF& position) {
    const curation::NeighbourhoodPoint* point = pointAt(series, position);
    if (!point) return;
    if (point->kind == curation::PointKind::Mention)
        Q_EMIT mentionActivated(fromUtf8(point->split), fromUtf8(point->pmid), static_cast<int>(point->start),
                                static_cast<int>(point->end));
    else
        Q_EMIT entityActivated(fromUtf8(point->entity));
}

void EmbeddingPlot::hoverPoint(QScatterSeries* series, const QPointF& position, bool entered) {
    const curation::NeighbourhoodPoint* point = entered ? pointAt(series, position) : nullptr;
    if (!point) {
        QToolTip::hideText();
        return;
    }
    const QString where = point->kind == curation::PointKind::Mention
                              ? tr("mention in %1, PMID %2").arg(fromUtf8(point->split), fromUtf8(point->pmid))
                              : tr("name of %1").arg(fromUtf8(point->entity));
    QToolTip::showText(QCursor::pos(),
                       QStringLiteral("<b>%1</b><br>%2").arg(fromUtf8(point->label).toHtmlEscaped(), where), view_);
}

}  // namespace linkscope::ui
