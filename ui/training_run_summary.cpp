#include "training_run_summary.h"

#include <QObject>
#include <QStringList>

#include "train/validation_summary.h"

namespace linkscope::ui {

QString finishedRunWarnings(const train::RunInfo& info) {
    QStringList paragraphs;
    if (!info.collapse.empty())
        paragraphs << QObject::tr(
                          "Warning: the kept model is no linker — %1. It proposes (nearly) one entity for "
                          "every mention; do not link with it.")
                          .arg(QString::fromStdString(info.collapse));
    if (info.validation)
        for (const auto& warning : info.validation->warnings)
            paragraphs << QObject::tr("Warning: %1.").arg(QString::fromStdString(warning));
    return paragraphs.join(QStringLiteral("\n"));
}

QString validationLine(const train::RunInfo& info) {
    if (!info.validation || info.validation->source == train::kValidationNone) return {};
    const auto& validation = *info.validation;
    QString line = QStringLiteral("%1 %2")
                       .arg(QString::fromStdString(train::validationMetricName(validation.source)))
                       .arg(validation.keptAcc1, 0, 'f', 4);
    if (validation.sparseAcc1 >= 0.0)
        line += QObject::tr(", sparse linker %1 on the same %2 queries")
                    .arg(validation.sparseAcc1, 0, 'f', 4)
                    .arg(validation.queries);
    return line;
}

}  // namespace linkscope::ui
