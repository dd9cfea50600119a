#include "curation_curve_plot.h"

#include <QChart>
#include <QChartView>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPushButton>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

#include "curation_curve_reader.h"
#include "plot_export.h"
#include "util/error.h"

namespace linkscope::ui {

CurationCurvePlot::CurationCurvePlot(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("curationCurvePlot"));
    chart_ = new QChart;
    chart_->setTitle(tr("Simulated curation: Acc@1 of the documents to come"));
    chart_->legend()->setAlignment(Qt::AlignBottom);
    chart_->setMargins(QMargins(4, 4, 4, 4));
    withFeedback_ = new QLineSeries;
    withFeedback_->setName(tr("with feedback (corrections fed to the datastore)"));
    without_ = new QLineSeries;
    without_->setName(tr("without feedback"));
    chart_->addSeries(withFeedback_);
    chart_->addSeries(without_);
    auto* x = new QValueAxis;
    styleValueAxis(x, tr("documents curated"), 6, QStringLiteral("%d"));
    setNiceRange(x, 0, 1, 6, true);
    auto* y = new QValueAxis;
    styleValueAxis(y, tr("Acc@1 of the remaining documents"), 6, QStringLiteral("%.2f"));
    setNiceRange(y, 0, 1);
    chart_->addAxis(x, Qt::AlignBottom);
    chart_->addAxis(y, Qt::AlignLeft);
    for (QLineSeries* series : {withFeedback_, without_}) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
    view_ = new QChartView(chart_, this);  // owns the chart
    view_->setObjectName(QStringLiteral("curationCurveChart"));
    view_->setRenderHint(QPainter::Antialiasing);

    status_ = new QLabel(tr("Load the CSV of linkscope-cli simulate-curation --csv FILE to plot its curve."), this);
    status_->setWordWrap(true);
    auto* load = new QPushButton(tr("Load curve CSV…"), this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(status_, 1);
    bar->addWidget(load);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(plotWithSaveButton(view_, QStringLiteral("curation-curve"), this, QSize(360, 260)), 1);
    connect(load, &QPushButton::clicked, this, &CurationCurvePlot::chooseFile);
}

bool CurationCurvePlot::loadCsv(const QString& path, QString* error) {
    try {
        setSteps(readCurationCurve(path.toStdString()), QFileInfo(path).fileName());
        return true;
    } catch (const Error& e) {
        if (error) *error = QString::fromUtf8(e.what());
        status_->setText(QString::fromUtf8(e.what()));
        return false;
    }
}

void CurationCurvePlot::setSteps(const std::vector<curation::CurationStep>& steps, const QString& name) {
    QList<QPointF> feedback, baseline;
    double low = 1.0, high = 0.0;
    std::size_t documents = 0;
    for (const curation::CurationStep& step : steps) {
        documents = std::max(documents, step.documentsDone);
        const auto x = static_cast<double>(step.documentsDone);
        // Steps that were not evaluated (simulate-curation --evaluate-every) have no point.
        if (step.remainingWithFeedback) feedback.append(QPointF(x, *step.remainingWithFeedback));
        if (step.remainingWithout) baseline.append(QPointF(x, *step.remainingWithout));
        for (const auto& value : {step.remainingWithFeedback, step.remainingWithout})
            if (value) {
                low = std::min(low, *value);
                high = std::max(high, *value);
            }
    }
    withFeedback_->replace(feedback);
    without_->replace(baseline);
    // As the CLI's SVG: the values' range widened to tenths, so that small gains stay visible.
    if (low > high) low = 0.0, high = 1.0;
    low = std::max(0.0, std::floor(low * 10.0 - 0.5) / 10.0);
    high = std::min(1.0, std::ceil(high * 10.0 + 0.5) / 10.0);
    const auto axesX = chart_->axes(Qt::Horizontal);
    const auto axesY = chart_->axes(Qt::Vertical);
    setNiceRange(qobject_cast<QValueAxis*>(axesX.first()), 0, std::max<double>(1.0, static_cast<double>(documents)), 6,
                 true);
    setNiceRange(qobject_cast<QValueAxis*>(axesY.first()), low, high);
    const curation::CurationStep& last = steps.empty() ? curation::CurationStep{} : steps.back();
    status_->setText(tr("%1: %2 documents, %3 corrections; online Acc@1 %4 with feedback, %5 without")
                         .arg(name)
                         .arg(documents)
                         .arg(last.correctionsFed)
                         .arg(last.onlineWithFeedback, 0, 'f', 4)
                         .arg(last.onlineWithout, 0, 'f', 4));
}

void CurationCurvePlot::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load simulated curation curve"), QString(),
                                                      tr("CSV files (*.csv);;All files (*)"));
    if (!path.isEmpty()) loadCsv(path);
}

}  // namespace linkscope::ui
