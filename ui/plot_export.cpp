#include "plot_export.h"

#include <QChart>
#include <QChartView>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSvgGenerator>
#include <QVBoxLayout>

#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace linkscope::ui {
namespace {

// The scene as the view shows it, into `target` of the painter's device.
void renderChart(QChartView* view, QPainter& painter, const QRectF& target) {
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    view->render(&painter, target, view->viewport()->rect());
}

QString chartTitle(QChartView* view) {
    const QString title = view->chart() ? view->chart()->title() : QString();
    return title.isEmpty() ? QStringLiteral("Linkscope plot") : title;
}

}  // namespace

bool savePlotSvg(QChartView* view, const QString& path, QString* error) {
    const QSize size = view->viewport()->size();
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(chartTitle(view));
    generator.setDescription(QStringLiteral("Drawn by Linkscope"));
    QPainter painter;
    if (!painter.begin(&generator)) {
        if (error) *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    renderChart(view, painter, QRectF(QPointF(0, 0), QSizeF(size)));
    painter.end();
    // QSvgGenerator reports no write error: check that the file is there and not empty.
    if (QFileInfo(path).size() <= 0) {
        if (error) *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

bool savePlotPng(QChartView* view, const QString& path, double scale, QString* error) {
    const QSize size = view->viewport()->size();
    QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        renderChart(view, painter, QRectF(QPointF(0, 0), QSizeF(image.size())));
    }
    if (!image.save(path, "PNG")) {
        if (error) *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

bool savePlot(QChartView* view, const QString& path, QString* error) {
    return path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive) ? savePlotSvg(view, path, error)
                                                                      : savePlotPng(view, path, 2.0, error);
}

void savePlotInteractively(QChartView* view, const QString& baseName) {
    QString filter = QObject::tr("SVG image (*.svg)");
    const QString path = QFileDialog::getSaveFileName(view, QObject::tr("Save plot"), baseName + QStringLiteral(".svg"),
                                                      QObject::tr("SVG image (*.svg);;PNG image (*.png)"), &filter);
    if (path.isEmpty()) return;
    QString target = path;
    // A name without a suffix takes the chosen filter's.
    if (QFileInfo(target).suffix().isEmpty())
        target += filter.contains(QStringLiteral("png")) ? QStringLiteral(".png") : QStringLiteral(".svg");
    QString error;
    if (!savePlot(view, target, &error)) QMessageBox::warning(view, QObject::tr("Save plot"), error);
}

QPushButton* makeSavePlotButton(QChartView* view, const QString& baseName, QWidget* parent) {
    auto* button = new QPushButton(QObject::tr("Save plot…"), parent);
    button->setObjectName(QStringLiteral("savePlot"));
    button->setToolTip(QObject::tr("Save this plot as SVG (vector) or PNG"));
    QObject::connect(button, &QPushButton::clicked, view, [view, baseName] { savePlotInteractively(view, baseName); });
    return button;
}

QWidget* plotWithSaveButton(QChartView* view, const QString& baseName, QWidget* parent, QSize minimumSize) {
    auto* frame = new QWidget(parent);
    auto* layout = new QVBoxLayout(frame);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    view->setParent(frame);
    view->setMinimumSize(minimumSize);
    view->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    layout->addWidget(view, 1);
    auto* bar = new QHBoxLayout;
    bar->addStretch();
    bar->addWidget(makeSavePlotButton(view, baseName, frame));
    layout->addLayout(bar);
    return frame;
}

void styleValueAxis(QAbstractAxis* axis, const QString& title, int ticks, const QString& labelFormat) {
    axis->setTitleText(title);
    QFont font = axis->titleFont();
    font.setBold(true);
    axis->setTitleFont(font);
    if (auto* value = qobject_cast<QValueAxis*>(axis)) {
        value->setTickType(QValueAxis::TicksFixed);
        value->setTickCount(ticks);
        value->setMinorTickCount(0);
        value->setLabelFormat(labelFormat);
    }
}

double niceTickStep(double span, int maxTicks, bool integer) {
    if (!(span > 0.0) || !std::isfinite(span)) return 1.0;
    const double raw = span / std::max(1, maxTicks - 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10.0 * magnitude;
    for (const double multiple : {1.0, 2.0, 5.0})
        if (multiple * magnitude >= raw) {
            step = multiple * magnitude;
            break;
        }
    return integer ? std::max(1.0, std::round(step)) : step;
}

void setNiceRange(QValueAxis* axis, double min, double max, int maxTicks, bool integer) {
    if (!(max > min)) max = min + 1.0;
    const double step = niceTickStep(max - min, maxTicks, integer);
    axis->setRange(min, max);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(std::floor(min / step) * step);
    axis->setTickInterval(step);
    axis->setMinorTickCount(0);
}

}  // namespace linkscope::ui
