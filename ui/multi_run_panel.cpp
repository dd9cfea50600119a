#include "multi_run_panel.h"

#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "eval/mention_groups.h"
#include "evaluation_run.h"
#include "project/loaded_project.h"

namespace linkscope::ui {
namespace {

constexpr std::array<std::size_t, 4> kCutoffs = {1, 5, 10, 64};

QString percent(double fraction) { return QString::number(100.0 * fraction, 'f', 1); }

QString intervalText(const eval::ConfidenceInterval& ci) {
    return QStringLiteral("%1 [%2, %3]").arg(percent(ci.estimate), percent(ci.lower), percent(ci.upper));
}

QString runLabel(std::size_t index) { return QStringLiteral("[%1]").arg(index + 1); }

// The mention properties of a run's rows (the same in every run of one split).
std::vector<eval::MentionFacts> factsOf(const EvaluationRun& run) {
    std::vector<eval::MentionFacts> facts;
    facts.reserve(run.mentions.size());
    for (std::size_t i = 0; i < run.mentions.size(); ++i) {
        const EvaluatedMention& mention = run.mentions[i];
        eval::MentionFacts f;
        f.type = mention.type;
        f.seen = run.result.mentions[i].seen;
        f.homonymAffected = mention.homonymAffected;
        f.composite = mention.gold.size() > 1;
        f.abbreviationExpanded = mention.abbreviationExpanded;
        facts.push_back(std::move(f));
    }
    return facts;
}

QTableWidgetItem* item(const QString& text, const QString& toolTip = {}) {
    auto* cell = new QTableWidgetItem(text);
    if (!toolTip.isEmpty()) cell->setToolTip(toolTip);
    return cell;
}

QTableWidget* makeTable(const QString& objectName, QWidget* parent) {
    auto* table = new QTableWidget(parent);
    table->setObjectName(objectName);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->setWordWrap(false);
    return table;
}

}  // namespace

MultiRunPanel::MultiRunPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("multiRunPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* controls = new QHBoxLayout;
    splitCombo_ = new QComboBox(this);
    splitCombo_->setObjectName(QStringLiteral("allRunsSplit"));
    evaluateButton_ = new QPushButton(this);
    evaluateButton_->setObjectName(QStringLiteral("evaluateAllRuns"));
    filesButton_ = new QPushButton(tr("Add per-mention files…"), this);
    clearFilesButton_ = new QPushButton(tr("Clear files"), this);
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    cancelButton_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(160);
    progress_->setVisible(false);
    cutoff_ = new QComboBox(this);
    for (const std::size_t k : kCutoffs) cutoff_->addItem(tr("Acc@%1").arg(k), static_cast<qulonglong>(k));
    strict_ = new QCheckBox(tr("strict"), this);
    controls->addWidget(new QLabel(tr("Split:"), this));
    controls->addWidget(splitCombo_);
    controls->addWidget(evaluateButton_);
    controls->addWidget(filesButton_);
    controls->addWidget(clearFilesButton_);
    controls->addWidget(progress_);
    controls->addWidget(cancelButton_);
    controls->addStretch();
    controls->addWidget(cutoff_);
    controls->addWidget(strict_);
    layout->addLayout(controls);
    filesLabel_ = new QLabel(this);
    filesLabel_->setWordWrap(true);
    status_ = new QLabel(tr("Evaluates the sparse linker, every trained run of the project and the loaded per-mention "
                            "files on one split, and compares them all."),
                         this);
    status_->setWordWrap(true);
    layout->addWidget(filesLabel_);
    layout->addWidget(status_);

    auto* tables = new QSplitter(Qt::Vertical, this);
    runsTable_ = makeTable(QStringLiteral("allRunsTable"), tables);
    matrix_ = makeTable(QStringLiteral("allRunsMatrix"), tables);
    matrix_->setToolTip(
        tr("McNemar's test of each pair of runs, p-values adjusted by Holm's step-down procedure over "
           "all pairs; * marks p < 0.05"));
    groups_ = makeTable(QStringLiteral("allRunsGroups"), tables);
    tables->addWidget(runsTable_);
    tables->addWidget(matrix_);
    tables->addWidget(groups_);
    layout->addWidget(tables, 1);

    connect(splitCombo_, &QComboBox::currentTextChanged, this, [this] { updateButtons(); });
    connect(evaluateButton_, &QPushButton::clicked, this, [this] { startEvaluatingAll(splitCombo_->currentText()); });
    connect(filesButton_, &QPushButton::clicked, this, &MultiRunPanel::chooseFiles);
    connect(clearFilesButton_, &QPushButton::clicked, this, [this] { setFiles({}); });
    connect(cancelButton_, &QPushButton::clicked, this, &MultiRunPanel::cancel);
    evaluation_.setProgressMaximum(1000);
    connect(&evaluation_, &BackgroundJob::progressChanged, this, [this](int value, const QString& text) {
        progress_->setValue(value);
        status_->setText(text);
    });
    connect(&evaluation_, &BackgroundJob::cancelled, this, [this] { onEvaluated(std::nullopt); });
    connect(&evaluation_, &BackgroundJob::failed, this, [this](const QString& message) {
        updateButtons();
        if (jobGeneration_ != generation_) return;
        status_->setText(message);
        Q_EMIT failed(message);
    });
    connect(&comparisonJob_, &BackgroundJob::failed, this,
            [this](const QString& message) { onCompared(std::nullopt, message); });
    connect(cutoff_, &QComboBox::currentIndexChanged, this, &MultiRunPanel::startComparison);
    connect(strict_, &QCheckBox::toggled, this, &MultiRunPanel::startComparison);
    setFiles({});
    refreshSplits();
    refreshTables();
}

void MultiRunPanel::setProject(std::shared_ptr<const LoadedProject> project) {
    cancel();
    ++generation_;
    project_ = std::move(project);
    runs_.clear();
    skipped_.clear();
    comparison_.reset();
    refreshSplits();
    refreshTables();
}

void MultiRunPanel::setFiles(const QStringList& files) {
    files_ = files;
    QStringList names;
    for (const QString& file : files_) names << QFileInfo(file).fileName();
    filesLabel_->setText(files_.isEmpty() ? tr("No per-mention files added.")
                                          : tr("Per-mention files: %1").arg(names.join(QStringLiteral(", "))));
    clearFilesButton_->setEnabled(!files_.isEmpty() && !evaluation_.isRunning());
}

void MultiRunPanel::refreshSplits() {
    const QString previous = splitCombo_->currentText();
    splitCombo_->clear();
    if (project_)
        for (const std::string& split : evaluableSplits(*project_)) splitCombo_->addItem(QString::fromStdString(split));
    if (const int at = splitCombo_->findText(previous); at >= 0) splitCombo_->setCurrentIndex(at);
    updateButtons();
}

void MultiRunPanel::updateButtons() {
    const bool running = evaluation_.isRunning();
    const QString split = splitCombo_->currentText();
    evaluateButton_->setText(split.isEmpty() ? tr("Evaluate all runs") : tr("Evaluate all runs on %1").arg(split));
    evaluateButton_->setEnabled(project_ && !split.isEmpty() && !running);
    filesButton_->setEnabled(!running);
    clearFilesButton_->setEnabled(!files_.isEmpty() && !running);
    cancelButton_->setEnabled(running);
    progress_->setVisible(running);
}

bool MultiRunPanel::startEvaluatingAll(const QString& split) {
    if (!project_ || evaluation_.isRunning()) return false;
    const std::vector<std::string> splits = evaluableSplits(*project_);
    if (std::find(splits.begin(), splits.end(), split.toStdString()) == splits.end()) return false;
    const QStringList runDirectories = runsProvider_ ? runsProvider_() : QStringList();
    jobGeneration_ = generation_;
    progress_->setValue(0);
    status_->setText(tr("Evaluating every run on %1").arg(split));
    const auto evaluateAll = [project = project_, split = split.toStdString(), runDirectories,
                              files = files_](const JobContext& context) {
        const std::size_t total = 1 + static_cast<std::size_t>(runDirectories.size() + files.size());
        std::size_t step = 0;
        QString current;
        // Each run gets an equal share of the bar; its own stages fill that share.
        ProgressSink sink;
        sink.cancelled = [&context] { return context.isCancelled(); };
        sink.report = [&](std::string_view stage, double fraction) {
            const double overall =
                (static_cast<double>(step) + std::clamp(fraction, 0.0, 1.0)) / static_cast<double>(total);
            context.reportProgress(static_cast<int>(overall * 1000.0),
                                   QStringLiteral("%1 (%2 of %3): %4")
                                       .arg(current)
                                       .arg(step + 1)
                                       .arg(total)
                                       .arg(QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()))));
        };
        Outcome outcome;
        const auto attempt = [&](const QString& name, auto&& evaluate) {
            current = name;
            sink("Starting", 0.0);
            try {
                outcome.runs.push_back(std::make_shared<const EvaluationRun>(evaluate()));
            } catch (const Cancelled&) {
                throw;
            } catch (const std::exception& e) {
                outcome.skipped << QStringLiteral("%1: %2").arg(name, QString::fromUtf8(e.what()));
            }
            ++step;
        };
        attempt(QStringLiteral("sparse"), [&] {
            SparseEvaluationOptions options;
            options.split = split;
            return evaluateProjectSparse(*project, options, sink);
        });
        for (const QString& run : runDirectories)
            attempt(QFileInfo(run).fileName(), [&] {
                RunEvaluationOptions options;
                options.run = run.toStdString();
                options.split = split;
                return evaluateProjectRun(*project, options, sink);
            });
        for (const QString& file : files)
            attempt(QFileInfo(file).fileName(), [&] { return loadPerMentionRun(file.toStdString(), project.get()); });
        return outcome;
    };
    evaluation_.start(evaluateAll, [this](Outcome outcome) { onEvaluated(std::move(outcome)); });
    updateButtons();
    return true;
}

void MultiRunPanel::cancel() { evaluation_.cancel(); }

void MultiRunPanel::onEvaluated(std::optional<Outcome> outcome) {
    updateButtons();
    if (jobGeneration_ != generation_) return;  // started for a project that was replaced
    if (!outcome) {
        status_->setText(tr("Cancelled"));
        return;
    }
    runs_ = std::move(outcome->runs);
    skipped_ = std::move(outcome->skipped);
    startComparison();
}

void MultiRunPanel::startComparison() {
    // A recomputation (new k) waits for the previous one, which is short.
    comparisonJob_.waitForFinished();
    comparison_.reset();
    if (runs_.empty() && skipped_.isEmpty()) {  // nothing evaluated yet (k changed before)
        refreshTables();
        return;
    }
    if (runs_.size() < 2) {
        refreshTables();
        QString text =
            tr("%n run(s) evaluated: at least two are needed to compare.", "", static_cast<int>(runs_.size()));
        if (!skipped_.isEmpty())
            text += QStringLiteral("\n") + tr("Left out: %1").arg(skipped_.join(QStringLiteral("; ")));
        status_->setText(text);
        if (!runs_.empty() || !skipped_.isEmpty()) Q_EMIT failed(text);
        return;
    }
    status_->setText(tr("Comparing %n run(s)…", "", static_cast<int>(runs_.size())));
    eval::MultiComparisonOptions options;
    options.k = cutoff_->currentData().toULongLong();
    options.strict = strict_->isChecked();
    comparisonJob_.start(
        [runs = runs_, options](const JobContext&) {
            std::vector<eval::NamedRun> named;
            for (const auto& run : runs) named.push_back({run->name.toStdString(), &run->result});
            const std::vector<eval::MentionGroup> groups = eval::mentionGroups(factsOf(*runs.front()));
            return eval::compareManyRuns(named, groups, options);
        },
        [this](eval::MultiComparison comparison) { onCompared(std::move(comparison), {}); });
}

void MultiRunPanel::onCompared(std::optional<eval::MultiComparison> comparison, const QString& error) {
    comparison_ = std::move(comparison);
    refreshTables();
    if (!comparison_) {
        const QString text = tr("The runs cannot be paired: %1").arg(error);
        status_->setText(text);
        Q_EMIT failed(text);
        return;
    }
    QString text = tr("%n run(s) on %1 mentions; McNemar p-values Holm-adjusted over %2 pairs.", "",
                      static_cast<int>(comparison_->runs.size()))
                       .arg(comparison_->mentions)
                       .arg(comparison_->pairs.size());
    if (!skipped_.isEmpty()) text += QStringLiteral("\n") + tr("Left out: %1").arg(skipped_.join(QStringLiteral("; ")));
    status_->setText(text);
    Q_EMIT comparisonReady();
}

void MultiRunPanel::refreshTables() {
    runsTable_->clear();
    matrix_->clear();
    groups_->clear();
    runsTable_->setRowCount(0);
    matrix_->setRowCount(0);
    matrix_->setColumnCount(0);
    groups_->setRowCount(0);
    groups_->setColumnCount(0);
    if (!comparison_) {
        runsTable_->setColumnCount(0);
        return;
    }
    const eval::MultiComparison& c = *comparison_;
    const QString metric = (c.strict ? tr("Strict@%1") : tr("Acc@%1")).arg(c.k);
    const std::size_t n = c.runs.size();

    // The runs, numbered as the matrix and the group columns name them.
    runsTable_->setColumnCount(4);
    runsTable_->setHorizontalHeaderLabels(
        {tr("Run"), tr("Mentions"), tr("Correct"), tr("%1 %, 95 % interval").arg(metric)});
    runsTable_->setRowCount(static_cast<int>(n));
    QStringList labels;
    for (std::size_t i = 0; i < n; ++i) {
        const auto row = static_cast<int>(i);
        const QString name = QString::fromStdString(c.runs[i].name);
        labels << runLabel(i);
        runsTable_->setItem(row, 0, item(runLabel(i) + QStringLiteral(" ") + name));
        runsTable_->setItem(row, 1, item(QString::number(c.mentions)));
        runsTable_->setItem(row, 2, item(QString::number(c.runs[i].correct)));
        runsTable_->setItem(row, 3, item(intervalText(c.runs[i].accuracy)));
    }

    // The matrix of Holm-adjusted p-values.
    matrix_->setRowCount(static_cast<int>(n));
    matrix_->setColumnCount(static_cast<int>(n));
    matrix_->setHorizontalHeaderLabels(labels);
    matrix_->setVerticalHeaderLabels(labels);
    for (std::size_t i = 0; i < n; ++i) {
        matrix_->horizontalHeaderItem(static_cast<int>(i))->setToolTip(QString::fromStdString(c.runs[i].name));
        matrix_->verticalHeaderItem(static_cast<int>(i))->setToolTip(QString::fromStdString(c.runs[i].name));
        for (std::size_t j = 0; j < n; ++j) {
            if (i == j) {
                matrix_->setItem(static_cast<int>(i), static_cast<int>(j), item(QStringLiteral("—")));
                continue;
            }
            const eval::PairComparison& pair = c.pair(i, j);
            // Row i against column j: "only row right" is onlyA when i is the pair's first run.
            const bool rowFirst = pair.first == i;
            const std::size_t onlyRow = rowFirst ? pair.mcnemar.onlyA : pair.mcnemar.onlyB;
            const std::size_t onlyColumn = rowFirst ? pair.mcnemar.onlyB : pair.mcnemar.onlyA;
            const double sign = rowFirst ? 1.0 : -1.0;
            auto* cell =
                item(QString::number(pair.adjustedP, 'g', 3) + (pair.significant ? QStringLiteral(" *") : QString()),
                     tr("%1 against %2\nonly %1 right: %3, only %2 right: %4\nMcNemar p = %5 (%6), Holm-adjusted "
                        "p = %7\ndifference %8 points [%9, %10]")
                         .arg(runLabel(i), runLabel(j))
                         .arg(onlyRow)
                         .arg(onlyColumn)
                         .arg(pair.mcnemar.pValue, 0, 'g', 4)
                         .arg(pair.mcnemar.exact ? tr("exact") : tr("chi-square"))
                         .arg(pair.adjustedP, 0, 'g', 4)
                         .arg(percent(sign * pair.difference.estimate))
                         .arg(percent(std::min(sign * pair.difference.lower, sign * pair.difference.upper)))
                         .arg(percent(std::max(sign * pair.difference.lower, sign * pair.difference.upper))));
            cell->setData(Qt::UserRole, pair.adjustedP);
            cell->setData(Qt::UserRole + 1, pair.significant);
            if (pair.significant) {
                QFont font = cell->font();
                font.setBold(true);
                cell->setFont(font);
                cell->setBackground(QColor(198, 239, 206));
            }
            matrix_->setItem(static_cast<int>(i), static_cast<int>(j), cell);
        }
    }

    // Groups: every run's accuracy on the group's mentions; then each run's errors by kind.
    groups_->setColumnCount(static_cast<int>(2 + n));
    QStringList headers{tr("Group"), tr("Mentions")};
    for (std::size_t j = 0; j < n; ++j) headers << runLabel(j) + QStringLiteral(" ") + metric;
    groups_->setHorizontalHeaderLabels(headers);
    for (const eval::GroupRow& group : c.groups) {
        const int row = groups_->rowCount();
        groups_->insertRow(row);
        groups_->setItem(row, 0, item(QString::fromStdString(group.name)));
        groups_->setItem(row, 1, item(QString::number(group.mentions)));
        for (std::size_t j = 0; j < n; ++j)
            groups_->setItem(
                row, static_cast<int>(2 + j),
                item(intervalText(group.accuracy[j]), tr("%1 of %2 right").arg(group.correct[j]).arg(group.mentions)));
    }
    for (std::size_t kind = 0; kind < eval::kErrorCategoryCount; ++kind) {
        const auto category = static_cast<eval::ErrorCategory>(kind);
        if (!eval::isBioSynErrorKind(category)) continue;
        const std::string_view name = eval::errorCategoryName(category);
        std::vector<std::size_t> counts;
        for (const auto& run : runs_)
            counts.push_back(
                static_cast<std::size_t>(std::count_if(run->mentions.begin(), run->mentions.end(), [&](const auto& m) {
                    return !m.correct() && m.categories.has(category);
                })));
        const int row = groups_->rowCount();
        groups_->insertRow(row);
        groups_->setItem(row, 0,
                         item(tr("errors: %1").arg(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()))),
                              tr("Mentions wrong at rank 1 with this error kind (BioSyn Table 5)")));
        groups_->setItem(row, 1, item(QString()));
        for (std::size_t j = 0; j < n && j < counts.size(); ++j)
            groups_->setItem(row, static_cast<int>(2 + j), item(QString::number(counts[j])));
    }
}

void MultiRunPanel::chooseFiles() {
    const QStringList chosen = QFileDialog::getOpenFileNames(
        this, tr("Add per-mention files"), QString(), tr("Per-mention files (*.jsonl *.json *.gz);;All files (*)"));
    if (chosen.isEmpty()) return;
    QStringList files = files_;
    for (const QString& file : chosen)
        if (!files.contains(file)) files << file;
    setFiles(files);
}

}  // namespace linkscope::ui
