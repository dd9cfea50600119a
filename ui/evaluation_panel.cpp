#include "evaluation_panel.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>

#include "curation_curve_plot.h"
#include "error_filter_model.h"
#include "error_table_model.h"
#include "evaluation_run.h"
#include "multi_run_panel.h"
#include "plot_export.h"
#include "project/loaded_project.h"

namespace linkscope::ui {
namespace {

constexpr std::array<std::size_t, 4> kCutoffs = {1, 5, 10, 64};

QString slotName(int slot) { return slot == EvaluationPanel::SlotA ? QStringLiteral("A") : QStringLiteral("B"); }

QString percent(double fraction) { return QString::number(100.0 * fraction, 'f', 2); }

QString interval(const eval::ConfidenceInterval& ci) {
    return QStringLiteral("%1 [%2, %3]").arg(percent(ci.estimate), percent(ci.lower), percent(ci.upper));
}

}  // namespace

EvaluationPanel::EvaluationPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("evaluationPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    // Source: the project's sparse linker on a split, or a per-mention file; into A or B.
    auto* source = new QWidget(this);
    auto* sourceLayout = new QHBoxLayout(source);
    sourceLayout->setContentsMargins(0, 0, 0, 0);
    slotCombo_ = new QComboBox(source);
    slotCombo_->addItems({tr("into A"), tr("into B")});
    splitCombo_ = new QComboBox(source);
    splitCombo_->setObjectName(QStringLiteral("evaluationSplit"));
    homonymExpansion_ = new QCheckBox(tr("homonym-expanded names"), source);
    runButton_ = new QPushButton(tr("Evaluate sparse linker"), source);
    // A trained run: the project's runs (runsProvider) or any run folder, alone or with kNN.
    trainedButton_ = new QPushButton(tr("Evaluate trained run"), source);
    trainedButton_->setObjectName(QStringLiteral("evaluateTrainedRun"));
    auto* trainedMenu = new QMenu(trainedButton_);
    trainedButton_->setMenu(trainedMenu);
    connect(trainedMenu, &QMenu::aboutToShow, this, [this, trainedMenu] {
        trainedMenu->clear();
        const QStringList runs = runsProvider_ ? runsProvider_() : QStringList();
        for (const QString& run : runs)
            trainedMenu->addAction(QFileInfo(run).fileName(), this, [this, run] { startTrainedFromControls(run); });
        if (!runs.isEmpty()) trainedMenu->addSeparator();
        trainedMenu->addAction(tr("Other run folder…"), this, [this] {
            const QString run = QFileDialog::getExistingDirectory(this, tr("Run folder (linkscope-cli train --out)"));
            if (!run.isEmpty()) startTrainedFromControls(run);
        });
    });
    knnCheck_ = new QCheckBox(tr("with kNN datastore"), source);
    knnCheck_->setToolTip(tr("Trained runs: kNN-BioEL's interpolation with the training mentions as keys"));
    fileButton_ = new QPushButton(tr("Load per-mention file…"), source);
    cancelButton_ = new QPushButton(tr("Cancel"), source);
    cancelButton_->setEnabled(false);
    progress_ = new QProgressBar(source);
    progress_->setRange(0, 100);
    progress_->setMaximumWidth(160);
    progress_->setVisible(false);
    sourceLayout->addWidget(new QLabel(tr("Split:"), source));
    sourceLayout->addWidget(splitCombo_);
    sourceLayout->addWidget(homonymExpansion_);
    sourceLayout->addWidget(runButton_);
    sourceLayout->addWidget(trainedButton_);
    sourceLayout->addWidget(knnCheck_);
    sourceLayout->addWidget(fileButton_);
    sourceLayout->addWidget(slotCombo_);
    sourceLayout->addWidget(progress_);
    sourceLayout->addWidget(cancelButton_);
    sourceLayout->addStretch();
    status_ = new QLabel(tr("No result loaded"), this);
    status_->setWordWrap(true);
    layout->addWidget(source);
    layout->addWidget(status_);

    auto* tabs = new QTabWidget(this);
    layout->addWidget(tabs, 1);

    // Metrics and the recall curve.
    auto* metricsPage = new QSplitter(Qt::Vertical, tabs);
    metrics_ = new QTableWidget(metricsPage);
    metrics_->setObjectName(QStringLiteral("evaluationMetrics"));
    metrics_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    metrics_->verticalHeader()->hide();
    QStringList headers{tr("Result"), tr("Group"), tr("Mentions")};
    for (const std::size_t k : kCutoffs) headers << tr("Acc@%1").arg(k);
    for (const std::size_t k : kCutoffs) headers << tr("Strict@%1").arg(k);
    metrics_->setColumnCount(static_cast<int>(headers.size()));
    metrics_->setHorizontalHeaderLabels(headers);
    metrics_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    chart_ = new QChart;
    chart_->setTitle(tr("Candidate recall@k"));
    chart_->legend()->setAlignment(Qt::AlignBottom);
    chart_->setMargins(QMargins(4, 4, 4, 4));
    chartView_ = new QChartView(chart_, metricsPage);  // owns the chart
    chartView_->setObjectName(QStringLiteral("recallChart"));
    chartView_->setRenderHint(QPainter::Antialiasing);
    metricsPage->addWidget(metrics_);
    // The chart grows with the dock; its minimum keeps the axis titles and ticks legible.
    metrics_->setMinimumHeight(110);  // header and a few groups beside the chart
    metricsPage->addWidget(plotWithSaveButton(chartView_, QStringLiteral("recall-at-k"), metricsPage, QSize(360, 220)));
    metricsPage->setStretchFactor(0, 1);
    metricsPage->setStretchFactor(1, 1);
    tabs->addTab(metricsPage, tr("Metrics"));

    // A against B.
    auto* comparePage = new QWidget(tabs);
    auto* compareLayout = new QVBoxLayout(comparePage);
    auto* compareOptions = new QHBoxLayout;
    compareK_ = new QComboBox(comparePage);
    for (const std::size_t k : kCutoffs) compareK_->addItem(tr("at k = %1").arg(k), static_cast<qulonglong>(k));
    compareStrict_ = new QCheckBox(tr("strict"), comparePage);
    compareOptions->addWidget(new QLabel(tr("McNemar and bootstrap (1000 resamples, 95 %)"), comparePage));
    compareOptions->addWidget(compareK_);
    compareOptions->addWidget(compareStrict_);
    compareOptions->addStretch();
    comparisonLabel_ = new QLabel(tr("Load two results of the same mentions to compare them."), comparePage);
    comparisonLabel_->setObjectName(QStringLiteral("evaluationComparison"));
    comparisonLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    comparisonLabel_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    compareLayout->addLayout(compareOptions);
    compareLayout->addWidget(comparisonLabel_, 1);
    tabs->addTab(comparePage, tr("A vs B"));

    // Every run of the project on one split, compared at once.
    multiRun_ = new MultiRunPanel(tabs);
    tabs->addTab(multiRun_, tr("All runs"));
    curationCurve_ = new CurationCurvePlot(tabs);
    tabs->addTab(curationCurve_, tr("Curation curve"));

    // Errors.
    auto* errorsPage = new QWidget(tabs);
    auto* errorsLayout = new QVBoxLayout(errorsPage);
    auto* errorOptions = new QHBoxLayout;
    errorsOf_ = new QComboBox(errorsPage);
    errorsOf_->addItems({tr("errors of A"), tr("errors of B")});
    categoryCombo_ = new QComboBox(errorsPage);
    categoryCombo_->setObjectName(QStringLiteral("errorCategory"));
    categoryCombo_->addItem(tr("all categories"), 0u);
    for (std::size_t i = 0; i < eval::kErrorCategoryCount; ++i) {
        const auto category = static_cast<eval::ErrorCategory>(i);
        categoryCombo_->addItem(QString::fromUtf8(eval::errorCategoryName(category).data()),
                                static_cast<uint>(1u << i));
    }
    showCorrect_ = new QCheckBox(tr("show correct"), errorsPage);
    errorSearch_ = new QLineEdit(errorsPage);
    errorSearch_->setPlaceholderText(tr("Filter mention, PMID, ids"));
    errorSearch_->setClearButtonEnabled(true);
    errorOptions->addWidget(errorsOf_);
    errorOptions->addWidget(categoryCombo_);
    errorOptions->addWidget(showCorrect_);
    errorOptions->addWidget(errorSearch_, 1);
    errorModel_ = new ErrorTableModel(this);
    errorFilter_ = new ErrorFilterModel(this);
    errorFilter_->setSourceModel(errorModel_);
    errorView_ = new QTableView(errorsPage);
    errorView_->setObjectName(QStringLiteral("evaluationErrors"));
    errorView_->setModel(errorFilter_);
    errorView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    errorView_->setSelectionMode(QAbstractItemView::SingleSelection);
    errorView_->setSortingEnabled(true);
    errorView_->sortByColumn(-1, Qt::AscendingOrder);
    errorView_->verticalHeader()->hide();
    errorView_->setWordWrap(false);
    errorView_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    errorView_->horizontalHeader()->setStretchLastSection(true);
    errorsLayout->addLayout(errorOptions);
    errorsLayout->addWidget(errorView_, 1);
    tabs->addTab(errorsPage, tr("Errors"));

    connect(runButton_, &QPushButton::clicked, this, [this] {
        startSparseEvaluation(splitCombo_->currentText(), static_cast<Slot>(slotCombo_->currentIndex()),
                              homonymExpansion_->isChecked());
    });
    connect(fileButton_, &QPushButton::clicked, this, &EvaluationPanel::chooseFile);
    connect(cancelButton_, &QPushButton::clicked, this, &EvaluationPanel::cancel);
    connect(&job_, &BackgroundJob::progressChanged, this, [this](int percent, const QString& text) {
        progress_->setValue(percent);
        status_->setText(text);
    });
    connect(&job_, &BackgroundJob::cancelled, this, [this] {
        if (endJob()) status_->setText(tr("Cancelled"));
    });
    connect(&job_, &BackgroundJob::failed, this, [this](const QString& message) {
        if (!endJob()) return;
        status_->setText(message);
        Q_EMIT runFailed(message);
    });
    connect(&comparisonJob_, &BackgroundJob::failed, this, [this] { onComparisonFinished(std::nullopt); });
    connect(compareK_, &QComboBox::currentIndexChanged, this, &EvaluationPanel::startComparison);
    connect(compareStrict_, &QCheckBox::toggled, this, &EvaluationPanel::startComparison);
    connect(errorsOf_, &QComboBox::currentIndexChanged, this, &EvaluationPanel::refreshErrors);
    connect(categoryCombo_, &QComboBox::currentIndexChanged, this, [this] {
        errorFilter_->setCategories(eval::ErrorCategories::fromBits(categoryCombo_->currentData().toUInt()));
    });
    connect(showCorrect_, &QCheckBox::toggled, errorFilter_, &ErrorFilterModel::setShowCorrect);
    connect(errorSearch_, &QLineEdit::textChanged, errorFilter_, &QSortFilterProxyModel::setFilterFixedString);
    connect(errorView_, &QTableView::activated, this, &EvaluationPanel::activateError);
    refreshSplits();
    refreshResults();
}

void EvaluationPanel::setRunsProvider(std::function<QStringList()> provider) {
    runsProvider_ = provider;
    multiRun_->setRunsProvider(std::move(provider));
}

void EvaluationPanel::setProject(std::shared_ptr<const LoadedProject> project) {
    multiRun_->setProject(project);
    // A running job is cancelled but not waited for (indexing a large KB does not stop halfway):
    // its result, if any, belongs to the old project and is dropped by onJobFinished.
    cancel();
    ++generation_;
    project_ = std::move(project);
    runs_ = {};
    comparison_.reset();
    refreshSplits();
    refreshResults();
    status_->setText(project_ ? tr("No result loaded") : tr("No project"));
}

void EvaluationPanel::refreshSplits() {
    splitCombo_->clear();
    if (project_)
        for (const std::string& split : evaluableSplits(*project_)) splitCombo_->addItem(QString::fromStdString(split));
    runButton_->setEnabled(project_ && splitCombo_->count() > 0 && !isRunning());
    trainedButton_->setEnabled(runButton_->isEnabled());
    fileButton_->setEnabled(!isRunning());
}

bool EvaluationPanel::startSparseEvaluation(const QString& split, Slot slot, bool homonymExpansion) {
    if (!project_) return false;
    SparseEvaluationOptions options;
    options.split = split.toStdString();
    options.homonymExpansion = homonymExpansion;
    return startJob([project = project_, options](
                        const ProgressSink& progress) { return evaluateProjectSparse(*project, options, progress); },
                    slot, tr("Evaluating the sparse linker on %1").arg(split));
}

bool EvaluationPanel::startRunEvaluation(const QString& runDirectory, const QString& split, Slot slot, bool knn) {
    if (!project_) return false;
    RunEvaluationOptions options;
    options.run = runDirectory.toStdString();
    options.split = split.toStdString();
    options.knn = knn;
    return startJob([project = project_,
                     options](const ProgressSink& progress) { return evaluateProjectRun(*project, options, progress); },
                    slot, tr("Evaluating %1 on %2").arg(QFileInfo(runDirectory).fileName(), split));
}

void EvaluationPanel::startTrainedFromControls(const QString& runDirectory) {
    startRunEvaluation(runDirectory, splitCombo_->currentText(), static_cast<Slot>(slotCombo_->currentIndex()),
                       knnCheck_->isChecked());
}

bool EvaluationPanel::startLoadingFile(const QString& path, Slot slot) {
    return startJob([project = project_, file = std::filesystem::path(path.toStdString())](
                        const ProgressSink&) { return loadPerMentionRun(file, project.get()); },
                    slot, tr("Reading %1").arg(QFileInfo(path).fileName()));
}

bool EvaluationPanel::startJob(Job job, Slot slot, const QString& what) {
    if (isRunning()) return false;
    pendingSlot_ = slot;
    jobGeneration_ = generation_;
    progress_->setValue(0);
    progress_->setVisible(true);
    cancelButton_->setEnabled(true);
    runButton_->setEnabled(false);
    trainedButton_->setEnabled(false);
    fileButton_->setEnabled(false);
    status_->setText(what);
    job_.start(
        [job = std::move(job)](const JobContext& context) {
            return std::make_shared<const EvaluationRun>(job(context.progressSink()));
        },
        [this](std::shared_ptr<const EvaluationRun> run) { onRunEvaluated(std::move(run)); });
    return true;
}

void EvaluationPanel::cancel() { job_.cancel(); }

bool EvaluationPanel::endJob() {
    progress_->setVisible(false);
    cancelButton_->setEnabled(false);
    fileButton_->setEnabled(true);
    runButton_->setEnabled(project_ && splitCombo_->count() > 0);
    trainedButton_->setEnabled(runButton_->isEnabled());
    return jobGeneration_ == generation_;
}

void EvaluationPanel::onRunEvaluated(std::shared_ptr<const EvaluationRun> run) {
    if (!endJob()) return;  // started for a project that was replaced
    runs_[pendingSlot_] = run;
    status_->setText(
        tr("%1: %2 mentions, Acc@1 %3 %")
            .arg(slotName(pendingSlot_), QString::number(run->mentions.size()), percent(run->result.all.accuracy(1))));
    errorsOf_->setCurrentIndex(pendingSlot_);
    refreshResults();
    Q_EMIT runReady(pendingSlot_);
}

void EvaluationPanel::refreshResults() {
    refreshMetrics();
    refreshChart();
    refreshErrors();
    startComparison();
}

void EvaluationPanel::refreshMetrics() {
    metrics_->setRowCount(0);
    const auto addRow = [this](int slot, const QString& group, const eval::GroupMetrics& metrics) {
        const int row = metrics_->rowCount();
        metrics_->insertRow(row);
        int column = 0;
        const auto set = [&](const QString& text) { metrics_->setItem(row, column++, new QTableWidgetItem(text)); };
        set(slotName(slot) + QStringLiteral(": ") + runs_[slot]->name);
        set(group);
        set(QString::number(metrics.mentions));
        for (const std::size_t k : kCutoffs) set(percent(metrics.accuracy(k)));
        for (const std::size_t k : kCutoffs) set(percent(metrics.strictAccuracy(k)));
    };
    for (int slot = 0; slot < 2; ++slot) {
        if (!runs_[slot]) continue;
        const eval::EvalResult& result = runs_[slot]->result;
        addRow(slot, tr("all"), result.all);
        if (result.seen) addRow(slot, tr("seen"), *result.seen);
        if (result.unseen) addRow(slot, tr("unseen"), *result.unseen);
        if (result.homonymAffected) addRow(slot, tr("homonym-affected"), *result.homonymAffected);
        if (result.notHomonymAffected) addRow(slot, tr("not homonym-affected"), *result.notHomonymAffected);
        for (const auto& [type, metrics] : result.byType)
            addRow(slot, tr("type %1").arg(QString::fromStdString(type.empty() ? std::string("(none)") : type)),
                   metrics);
    }
}

void EvaluationPanel::refreshChart() {
    chart_->removeAllSeries();
    for (QAbstractAxis* axis : chart_->axes()) {
        chart_->removeAxis(axis);  // gives the axis back to us
        delete axis;
    }
    // k on a log2 scale (1, 2, 4, ..., 64): recall climbs over the first few candidates, which
    // a linear axis squeezed into its left tenth.
    auto* axisX = new QLogValueAxis(chart_);
    axisX->setBase(2.0);
    axisX->setRange(1, static_cast<double>(eval::kMinimumDepth));
    axisX->setLabelFormat(QStringLiteral("%d"));
    axisX->setMinorTickCount(0);
    axisX->setTitleText(tr("k (candidates per mention, log scale)"));
    QFont titleFont = axisX->titleFont();
    titleFont.setBold(true);
    axisX->setTitleFont(titleFont);
    auto* axisY = new QValueAxis(chart_);
    styleValueAxis(axisY, tr("recall@k"), 6, QStringLiteral("%.2f"));
    chart_->addAxis(axisX, Qt::AlignBottom);
    chart_->addAxis(axisY, Qt::AlignLeft);
    // The y axis starts at the lowest recall shown, rounded down to a tenth: on 0 .. 1 a curve
    // from 0.88 to 0.97 was a flat line at the top.
    double lowest = 1.0;
    for (int slot = 0; slot < 2; ++slot) {
        if (!runs_[slot]) continue;
        const std::size_t depth = std::min(runs_[slot]->curveDepth, eval::kMinimumDepth);
        for (std::size_t k = 1; k <= depth; ++k) lowest = std::min(lowest, runs_[slot]->result.all.recall(k));
    }
    setNiceRange(axisY, std::max(0.0, std::floor(lowest * 10.0 - 1e-9) / 10.0), 1.0);
    for (int slot = 0; slot < 2; ++slot) {
        if (!runs_[slot]) continue;
        auto* series = new QLineSeries(chart_);
        series->setName(slotName(slot) + QStringLiteral(": ") + runs_[slot]->name);
        const std::size_t depth = std::min(runs_[slot]->curveDepth, eval::kMinimumDepth);
        for (std::size_t k = 1; k <= depth; ++k)
            series->append(static_cast<double>(k), runs_[slot]->result.all.recall(k));
        chart_->addSeries(series);  // takes ownership
        series->attachAxis(axisX);
        series->attachAxis(axisY);
    }
}

void EvaluationPanel::refreshErrors() {
    errorModel_->setRun(runs_[static_cast<std::size_t>(std::max(0, errorsOf_->currentIndex()))]);
}

void EvaluationPanel::startComparison() {
    // Bootstrap of a few thousand mentions is short: let it end, then start again.
    comparisonJob_.waitForFinished();
    comparison_.reset();
    if (!runs_[SlotA] || !runs_[SlotB]) {
        comparisonLabel_->setText(tr("Load two results of the same mentions to compare them."));
        return;
    }
    comparisonLabel_->setText(tr("Comparing…"));
    const std::size_t k = compareK_->currentData().toULongLong();
    const bool strict = compareStrict_->isChecked();
    comparisonJob_.start(  // fails when A and B are not results on the same mentions
        [a = runs_[SlotA], b = runs_[SlotB], k, strict](const JobContext&) {
            return eval::compareRuns(a->result, b->result, k, strict);
        },
        [this](eval::RunComparison comparison) { onComparisonFinished(std::move(comparison)); });
}

void EvaluationPanel::onComparisonFinished(std::optional<eval::RunComparison> comparison) {
    comparison_ = std::move(comparison);
    if (!comparison_) {
        comparisonLabel_->setText(
            tr("A and B are not results on the same mentions (documents and offsets in the same order): "
               "they cannot be paired."));
        Q_EMIT comparisonReady();
        return;
    }
    const eval::RunComparison& c = *comparison_;
    const eval::McNemarResult& m = c.mcnemar;
    comparisonLabel_->setText(
        tr("<table cellspacing=6>"
           "<tr><td></td><td><b>B right</b></td><td><b>B wrong</b></td></tr>"
           "<tr><td><b>A right</b></td><td>%1</td><td>%2</td></tr>"
           "<tr><td><b>A wrong</b></td><td>%3</td><td>%4</td></tr></table>"
           "<p>McNemar (%5): statistic %6, <b>p = %7</b></p>"
           "<p>Acc%8@%9 A: %10 %<br>Acc%8@%9 B: %11 %<br>A − B: %12 points (%13 % bootstrap, %14 resamples)</p>")
            .arg(m.bothCorrect)
            .arg(m.onlyA)
            .arg(m.onlyB)
            .arg(m.bothWrong)
            .arg(m.exact ? tr("exact binomial") : tr("chi-square, continuity corrected"))
            .arg(m.statistic, 0, 'g', 4)
            .arg(m.pValue, 0, 'g', 4)
            .arg(c.strict ? tr(" (strict)") : QString())
            .arg(c.k)
            .arg(interval(c.accuracyA), interval(c.accuracyB), interval(c.difference))
            .arg(c.difference.level * 100.0, 0, 'g', 3)
            .arg(c.difference.resamples));
    Q_EMIT comparisonReady();
}

void EvaluationPanel::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load per-mention file"), QString(),
                                                      tr("Per-mention files (*.jsonl *.json *.gz);;All files (*)"));
    if (!path.isEmpty()) startLoadingFile(path, static_cast<Slot>(slotCombo_->currentIndex()));
}

void EvaluationPanel::activateError(const QModelIndex& proxyIndex) {
    const QModelIndex index = errorFilter_->mapToSource(proxyIndex);
    if (!index.isValid()) return;
    Q_EMIT mentionActivated(
        index.data(ErrorTableModel::SplitRole).toString(), index.data(ErrorTableModel::DocumentRole).toString(),
        index.data(ErrorTableModel::StartRole).toInt(), index.data(ErrorTableModel::EndRole).toInt());
}

}  // namespace linkscope::ui
