#include "training_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "checkpoint_check_view.h"
#include "pretrained_encoders.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "train/run_directory.h"
#include "train/schedule_choice.h"
#include "train/training_preset.h"
#include "training_run_summary.h"
#include "training_worker.h"
#include "util/error.h"

namespace linkscope::ui {
namespace {

namespace fs = std::filesystem;

QString fromPath(const fs::path& path) { return QString::fromStdString(path.string()); }

QString formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return QStringLiteral("-");
    const auto total = static_cast<long long>(std::llround(seconds));
    if (total < 60) return QStringLiteral("%1 s").arg(total);
    if (total < 3600) return QStringLiteral("%1 min %2 s").arg(total / 60).arg(total % 60);
    return QStringLiteral("%1 h %2 min").arg(total / 3600).arg((total % 3600) / 60);
}

}  // namespace

QString TrainingPanel::defaultModelsDirectory() {
#ifdef LINKSCOPE_SOURCE_MODELS_DIR
    const fs::path sourceTree = LINKSCOPE_SOURCE_MODELS_DIR;
#else
    const fs::path sourceTree;
#endif
#ifdef LINKSCOPE_INSTALL_MODELS_DIR
    const fs::path installed = LINKSCOPE_INSTALL_MODELS_DIR;
#else
    const fs::path installed;
#endif
    const auto found = train::findStandardModelsDirectory(sourceTree, installed);
    return found ? fromPath(*found) : QString();
}

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent), worker_(new TrainingWorker(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    unavailable_ = new QLabel(
        tr("Training needs the dense engine (LibTorch): this build of Linkscope was made without it."), this);
    unavailable_->setObjectName(QStringLiteral("trainingUnavailable"));
    unavailable_->setWordWrap(true);
    unavailable_->setVisible(!TrainingWorker::isAvailable());
    layout->addWidget(unavailable_);

    auto* form = new QFormLayout;
    preset_ = new QComboBox(this);
    preset_->setObjectName(QStringLiteral("trainingPreset"));
    form->addRow(tr("&Preset"), preset_);
    presetInfo_ = new QLabel(this);
    presetInfo_->setWordWrap(true);
    presetInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(QString(), presetInfo_);
    schedule_ = new QComboBox(this);
    schedule_->setObjectName(QStringLiteral("trainingSchedule"));
    schedule_->setToolTip(
        tr("\"paper\": the paper's hyper-parameters; \"short\": a schedule a CPU finishes in minutes"));
    form->addRow(tr("&Schedule"), schedule_);
    devSplit_ = new QComboBox(this);
    devSplit_->setObjectName(QStringLiteral("trainingDevSplit"));
    devSplit_->setToolTip(tr("Validated after every epoch; the best model is kept"));
    form->addRow(tr("&Dev split"), devSplit_);
    startFrom_ = new QComboBox(this);
    startFrom_->setObjectName(QStringLiteral("trainingStartFrom"));
    startFrom_->setToolTip(
        tr("The encoder the method fine-tunes. The papers start from a model that already places "
           "synonyms together (SapBERT, BioBERT): without one, pretrain the compact encoder on the "
           "KB's synonyms first (Pretrain encoder)."));
    form->addRow(tr("Start &from"), startFrom_);
    startHint_ = new QLabel(this);
    startHint_->setObjectName(QStringLiteral("trainingStartHint"));
    startHint_->setWordWrap(true);
    startHint_->hide();
    form->addRow(QString(), startHint_);
    model_ = new QLineEdit(this);
    model_->setObjectName(QStringLiteral("trainingModel"));
    model_->setPlaceholderText(tr("a checkpoint folder (Hugging Face layout) or a run folder"));
    model_->setToolTip(
        tr("A checkpoint folder (Hugging Face layout) to fine-tune: BERT or XLM-R, model.safetensors or "
           "pytorch_model.bin, vocab.txt, tokenizer.json or sentencepiece.bpe.model"));
    form->addRow(tr("&Encoder folder"), model_);
    checkpointCheck_ = new CheckpointCheckView(this);
    form->addRow(QString(), checkpointCheck_);
    device_ = new QComboBox(this);
    device_->setObjectName(QStringLiteral("trainingDevice"));
    device_->addItem(tr("auto (CUDA when available)"), QStringLiteral("auto"));
    device_->addItem(tr("CPU"), QStringLiteral("cpu"));
    device_->addItem(tr("CUDA"), QStringLiteral("cuda"));
    form->addRow(tr("De&vice"), device_);
    auto* folderRow = new QHBoxLayout;
    runsFolder_ = new QLineEdit(this);
    runsFolder_->setObjectName(QStringLiteral("trainingRunsFolder"));
    runsFolder_->setToolTip(tr("Each run gets its own folder in here: <preset>-<date>-<time>"));
    auto* browse = new QToolButton(this);
    browse->setText(QStringLiteral("…"));
    folderRow->addWidget(runsFolder_, 1);
    folderRow->addWidget(browse);
    form->addRow(tr("Output folder"), folderRow);
    layout->addLayout(form);

    auto* buttons = new QHBoxLayout;
    start_ = new QPushButton(tr("Start training"), this);
    start_->setObjectName(QStringLiteral("trainingStart"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("trainingCancel"));
    pretrain_ = new QPushButton(tr("Pretrain encoder"), this);
    pretrain_->setObjectName(QStringLiteral("trainingPretrain"));
    pretrain_->setToolTip(
        tr("SapBERT's self-alignment of the compact encoder on the synonyms of the project's KB "
           "(models/sapbert.json): the start every method then fine-tunes"));
    maskedLmFirst_ = new QCheckBox(tr("Read the corpus first"), this);
    maskedLmFirst_->setObjectName(QStringLiteral("trainingMaskedLmFirst"));
    maskedLmFirst_->setToolTip(
        tr("Before the self-alignment, a masked-language-model stage (models/mlm.json) on the "
           "titles and abstracts of the training and dev splits; the self-alignment then "
           "starts from its model. Adds minutes on a CPU."));
    buttons->addWidget(start_);
    buttons->addWidget(pretrain_);
    buttons->addWidget(maskedLmFirst_);
    buttons->addWidget(cancel_);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("trainingProgress"));
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    layout->addWidget(progress_);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("trainingStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(status_);
    warning_ = new QLabel(this);
    warning_->setObjectName(QStringLiteral("trainingWarning"));
    warning_->setWordWrap(true);
    warning_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    warning_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; font-weight: bold; }"));
    warning_->hide();
    layout->addWidget(warning_);

    charts_ = new TrainingCharts(this);
    layout->addWidget(charts_, 1);

    runsFolder_->setText(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/runs"));
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString folder =
            QFileDialog::getExistingDirectory(this, tr("Folder for training runs"), runsFolder_->text());
        if (!folder.isEmpty()) runsFolder_->setText(folder);
    });
    connect(preset_, &QComboBox::currentIndexChanged, this, [this] { fillSchedules(); });
    connect(start_, &QPushButton::clicked, this, [this] { start(); });
    connect(pretrain_, &QPushButton::clicked, this, [this] { startPretraining(); });
    connect(startFrom_, &QComboBox::currentIndexChanged, this, [this] {
        matchScheduleToStart();
        updateStartHint();
        updateEnabled();
        checkStartFolder();
    });
    connect(schedule_, &QComboBox::currentIndexChanged, this, [this] { updateStartHint(); });
    connect(startFrom_, &QComboBox::activated, this, [this] { startChosenByUser_ = true; });
    connect(model_, &QLineEdit::editingFinished, this, [this] {
        matchScheduleToStart();
        updateStartHint();
        checkStartFolder();
    });
    connect(runsFolder_, &QLineEdit::editingFinished, this, &TrainingPanel::refreshStarts);
    connect(worker_, &TrainingWorker::collapseWarning, this, [this](int epoch, const QString& warning) {
        warning_->setText(epoch == 0 ? tr("Warning: the starting model — %1").arg(warning)
                                     : tr("Warning after epoch %1: %2").arg(epoch).arg(warning));
        warning_->show();
    });
    connect(cancel_, &QPushButton::clicked, this, &TrainingPanel::cancel);
    connect(worker_, &TrainingWorker::progress, this, &TrainingPanel::showUpdate);
    connect(worker_, &TrainingWorker::epochEnded, this, &TrainingPanel::addEpochPoint);
    connect(worker_, &TrainingWorker::finished, this, &TrainingPanel::onFinished);
    connect(worker_, &TrainingWorker::failed, this, [this](const QString& message) {
        onStopped(tr("Training failed: %1").arg(message));
        Q_EMIT trainingFailed(message);
    });
    connect(worker_, &TrainingWorker::cancelled, this, [this] {
        onStopped(tr("Training cancelled; the checkpoint is in %1").arg(runDirectory_));
        Q_EMIT trainingCancelled();
    });

    setModelsDirectory(defaultModelsDirectory());
    refreshStarts();
}

TrainingPanel::~TrainingPanel() = default;

void TrainingPanel::checkStartFolder() {
    const QString start = startFrom_->currentData().toString();
    const QString folder = start == QLatin1String("custom") ? model_->text().trimmed() : start;
    if (folder != checkpointCheck_->folder()) checkpointCheck_->setFolder(folder);
}

void TrainingPanel::setProject(std::shared_ptr<const LoadedProject> project) {
    project_ = std::move(project);
    const QString previous = devSplit_->currentData().toString();
    devSplit_->clear();
    devSplit_->addItem(tr("(none)"), QString());
    if (project_) {
        for (const SplitCorpus& split : project_->splits) {
            if (split.split == "train") continue;
            const QString name = QString::fromStdString(split.split);
            devSplit_->addItem(name, name);
        }
        // "dev" when there is one, else the previous choice, else the first other split.
        int index = devSplit_->findData(QStringLiteral("dev"));
        if (index < 0 && !previous.isEmpty()) index = devSplit_->findData(previous);
        if (index < 0 && devSplit_->count() > 1) index = 1;
        devSplit_->setCurrentIndex(std::max(index, 0));
    }
    updateEnabled();
}

void TrainingPanel::setModelsDirectory(const QString& directory) {
    modelsDirectory_ = directory;
    const QString previous = preset_->currentText();
    const QSignalBlocker block(preset_);
    preset_->clear();
    if (!directory.isEmpty()) {
        try {
            pretrainPreset_.clear();
            maskedLmPreset_.clear();
            for (const fs::path& file : train::presetFiles(directory.toStdString())) {
                // The pretraining stages are not linking methods: they have their own button.
                std::optional<train::Method> method;
                try {
                    method = train::TrainingPreset::load(file).method;
                } catch (const std::exception&) {
                    // listed: choosing it shows why it does not load
                }
                if (method && !train::linksMentions(*method)) {
                    QString& slot = *method == train::Method::MaskedLm ? maskedLmPreset_ : pretrainPreset_;
                    if (slot.isEmpty()) slot = fromPath(file);
                    continue;
                }
                preset_->addItem(QString::fromStdString(file.stem().string()), fromPath(file));
            }
        } catch (const std::exception& e) {
            status_->setText(tr("Could not list the presets: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    const int index = preset_->findText(previous);
    preset_->setCurrentIndex(index >= 0 ? index : (preset_->count() > 0 ? 0 : -1));
    fillSchedules();
}

void TrainingPanel::setStore(project::ProjectStore* store) {
    if (store != store_) runStore_ = nullptr;  // the running training belongs to the old project
    store_ = store;
    refreshStarts();
}

void TrainingPanel::setRunsFolder(const QString& folder) {
    runsFolder_->setText(folder);
    refreshStarts();
}

void TrainingPanel::refreshStarts() {
    const QString previous = startFrom_->currentData().toString();
    const std::vector<PretrainedEncoder> found =
        findPretrainedEncoders(store_, runsFolder_->text().trimmed().toStdString());

    const QSignalBlocker block(startFrom_);
    startFrom_->clear();
    startFrom_->addItem(tr("Compact encoder from scratch"), QString());
    for (const auto& pretrained : found) {
        const QString name = QString::fromStdString(pretrained.directory.filename().string());
        startFrom_->addItem(pretrained.context
                                ? tr("Pretrained on the KB, aligned to mentions in context: %1").arg(name)
                                : tr("Pretrained on the KB: %1").arg(name),
                            fromPath(pretrained.directory));
        startFrom_->setItemData(startFrom_->count() - 1, pretrained.context, kContextStartRole);
    }
    startFrom_->addItem(tr("Checkpoint folder below"), QStringLiteral("custom"));
    chooseDefaultStart(previous);
}

void TrainingPanel::chooseDefaultStart(const QString& previous) {
    // The newest pretrained encoder by default (the papers fine-tune a pretrained model), for a
    // method that reads mentions in their sentences the newest context-aligned one (from names
    // alone, belhd collapsed and prototype-srn stayed far below sparse TF-IDF: docs/results.md),
    // unless the user picked a start that is still offered.
    const QSignalBlocker block(startFrom_);
    int index = startChosenByUser_ ? startFrom_->findData(previous) : -1;
    if (index < 0) {
        int newest = -1, newestContext = -1;
        for (int i = 0; i < startFrom_->count(); ++i) {
            const QString data = startFrom_->itemData(i).toString();
            if (data.isEmpty() || data == QLatin1String("custom")) continue;
            if (newest < 0) newest = i;
            if (newestContext < 0 && startFrom_->itemData(i, kContextStartRole).toBool()) newestContext = i;
        }
        const bool readsContext = chosenPreset_ && chosenPreset_->markers != train::ContextMarkers::None;
        index = readsContext && newestContext >= 0 ? newestContext : (newest >= 0 ? newest : 0);
    }
    startFrom_->setCurrentIndex(index);
    matchScheduleToStart();
    updateStartHint();
    updateEnabled();
    checkStartFolder();
}

train::StartKind TrainingPanel::startKind() const {
    const QString start = startFrom_->currentData().toString();
    if (start.isEmpty()) return train::StartKind::Scratch;
    if (start == QLatin1String("custom")) return train::StartKind::Unknown;
    return startFrom_->currentData(kContextStartRole).toBool() ? train::StartKind::ContextAligned
                                                               : train::StartKind::NamesOnly;
}

void TrainingPanel::matchScheduleToStart() {
    // The start chooses as `linkscope-cli train` does (schedule_choice.h), in place of a schedule
    // the panel chose; one the user chose otherwise stays, and so does the schedule while the
    // checkpoint folder is not typed in yet.
    const QString current = schedule_->currentText();
    if (!chosenPreset_ || (current != QLatin1String("short") && current != QLatin1String("short-pretrained") &&
                           current != scheduleChosenByStart_))
        return;
    const QString start = startFrom_->currentData().toString();
    const QString folder = start == QLatin1String("custom") ? model_->text().trimmed() : start;
    if (start == QLatin1String("custom") && folder.isEmpty()) return;
    const train::EncoderStart from =
        start.isEmpty() ? train::compactStart() : train::startOfFolder(folder.toStdString());
    const int index = schedule_->findText(QString::fromStdString(train::chooseSchedule(*chosenPreset_, from).schedule));
    if (index < 0) return;
    schedule_->setCurrentIndex(index);
    scheduleChosenByStart_ = schedule_->currentText();
}

QString TrainingPanel::startHint() const { return startHint_->isHidden() ? QString() : startHint_->text(); }

void TrainingPanel::updateStartHint() {
    QString hint;
    if (chosenPreset_ && schedule_->currentIndex() >= 0) {
        // The advice is the schedule's: belhd's short-pretrained reads the mention alone too.
        try {
            hint = QString::fromStdString(train::contextStartAdvice(
                chosenPreset_->scheduled(schedule_->currentText().toStdString()), startKind()));
        } catch (const std::exception&) {
            // a schedule the preset does not name: the list was just refilled; no advice
        }
    }
    startHint_->setText(hint);
    startHint_->setVisible(!hint.isEmpty());
}

void TrainingPanel::fillSchedules() {
    const QString previous = schedule_->currentText();
    schedule_->clear();
    presetInfo_->clear();
    chosenPreset_.reset();
    const QString file = preset_->currentData().toString();
    if (!file.isEmpty()) {
        try {
            const train::TrainingPreset preset = train::TrainingPreset::load(file.toStdString());
            chosenPreset_ = std::make_shared<const train::TrainingPreset>(preset);
            schedule_->addItem(QStringLiteral("paper"));
            for (const auto& [name, schedule] : preset.schedules)
                if (name != "paper") schedule_->addItem(QString::fromStdString(name));
            const train::Schedule& paper = preset.training;
            presetInfo_->setText(tr("%1 — %2").arg(QString::fromUtf8(train::methodName(preset.method).data()),
                                                   QString::fromStdString(preset.paper)));
            presetInfo_->setToolTip(QString::fromStdString(preset.description) +
                                    tr("\n\nPaper schedule: %1 epochs, batch %2, learning rate %3")
                                        .arg(paper.epochs)
                                        .arg(paper.batchSize)
                                        .arg(paper.learningRate));
        } catch (const std::exception& e) {
            presetInfo_->setText(tr("Unreadable preset: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    // "short" first for a new choice: the paper schedules take hours without a GPU.
    int index = schedule_->findText(previous);
    if (index < 0) index = schedule_->findText(QStringLiteral("short"));
    schedule_->setCurrentIndex(index >= 0 ? index : (schedule_->count() > 0 ? 0 : -1));
    // The preset decides which start suits it best.
    chooseDefaultStart(startFrom_->currentData().toString());
}

bool TrainingPanel::isTraining() const { return worker_->isRunning(); }

void TrainingPanel::updateEnabled() {
    const bool running = worker_->isRunning();
    const bool ready =
        TrainingWorker::isAvailable() && project_ && preset_->currentIndex() >= 0 && schedule_->currentIndex() >= 0;
    start_->setEnabled(ready && !running);
    pretrain_->setEnabled(TrainingWorker::isAvailable() && project_ && !pretrainPreset_.isEmpty() && !running);
    maskedLmFirst_->setEnabled(pretrain_->isEnabled() && !maskedLmPreset_.isEmpty());
    cancel_->setEnabled(running);
    for (QWidget* input :
         {static_cast<QWidget*>(preset_), static_cast<QWidget*>(schedule_), static_cast<QWidget*>(devSplit_),
          static_cast<QWidget*>(device_), static_cast<QWidget*>(startFrom_), static_cast<QWidget*>(runsFolder_)})
        input->setEnabled(!running);
    model_->setEnabled(!running && startFrom_->currentData().toString() == QLatin1String("custom"));
}

bool TrainingPanel::start() {
    if (!start_->isEnabled()) return false;
    const QString start = startFrom_->currentData().toString();
    const QString model = start == QLatin1String("custom") ? model_->text().trimmed() : start;
    if (start == QLatin1String("custom") && model.isEmpty()) {
        status_->setText(tr("Choose the checkpoint folder to start from"));
        return false;
    }
    pretraining_ = false;
    maskedLmStage_ = false;
    return startRun(preset_->currentData().toString(), schedule_->currentText(), model);
}

std::optional<QString> TrainingPanel::pretrainingSchedule(const QString& presetFile) {
    // A pretraining starts from the new compact encoder (the self-alignment after the masked-LM
    // stage from that stage's model, made from it): its schedule as schedule_choice.h chooses.
    try {
        const train::TrainingPreset preset = train::TrainingPreset::load(presetFile.toStdString());
        return QString::fromStdString(train::chooseSchedule(preset, train::compactStart()).schedule);
    } catch (const std::exception& e) {
        status_->setText(tr("Unreadable pretraining preset: %1").arg(QString::fromUtf8(e.what())));
        return std::nullopt;
    }
}

bool TrainingPanel::startPretraining() {
    if (!pretrain_->isEnabled()) return false;
    const bool maskedLmFirst = maskedLmFirst_->isEnabled() && maskedLmFirst_->isChecked();
    const QString preset = maskedLmFirst ? maskedLmPreset_ : pretrainPreset_;
    const auto schedule = pretrainingSchedule(preset);
    if (!schedule) return false;
    pretraining_ = true;
    maskedLmStage_ = maskedLmFirst;
    if (startRun(preset, *schedule, QString())) return true;
    pretraining_ = false;
    maskedLmStage_ = false;
    return false;
}

bool TrainingPanel::startRun(const QString& presetFile, const QString& schedule, const QString& modelDirectory) {
    const QString folder = runsFolder_->text().trimmed();
    if (folder.isEmpty() || !QDir().mkpath(folder)) {
        status_->setText(tr("Cannot create the output folder \"%1\"").arg(folder));
        return false;
    }
    // A fresh folder per run: the trainer refuses a non-empty one (that would be a resume).
    const QString base =
        QDir(folder).filePath(QFileInfo(presetFile).completeBaseName() + QLatin1Char('-') +
                              QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    QString directory = base;
    for (int n = 2; QFileInfo::exists(directory); ++n) directory = base + QLatin1Char('-') + QString::number(n);

    TrainingRequest request;
    request.preset = presetFile;
    request.modelsDirectory = modelsDirectory_;
    request.schedule = schedule;
    request.devSplit = devSplit_->currentData().toString();
    request.modelDirectory = modelDirectory;
    request.runDirectory = directory;
    request.device = device_->currentData().toString();
    if (!worker_->start(project_, request)) return false;

    runDirectory_ = directory;
    runStore_ = store_;
    charts_->reset(maskedLmStage_, request.devSplit.isEmpty());
    progress_->setValue(0);
    progress_->setFormat(tr("Starting…"));
    warning_->clear();
    warning_->hide();
    status_->setText((maskedLmStage_ ? tr("Masked-LM stage of the pretraining into %1")
                      : pretraining_ ? tr("Pretraining the encoder into %1")
                                     : tr("Training into %1"))
                         .arg(directory));
    updateEnabled();
    return true;
}

void TrainingPanel::cancel() {
    if (!worker_->isRunning()) return;
    worker_->cancel();
    cancel_->setEnabled(false);  // once is enough; the checkpoint may take a moment
    status_->setText(tr("Cancelling after the current step…"));
}

void TrainingPanel::showUpdate(const TrainingUpdate& update) {
    charts_->showUpdate(update);
    if (update.stage == QLatin1String("Training") && update.epochs > 0 && update.stepsPerEpoch > 0) {
        const double done = (double(update.epoch - 1) + double(update.step) / update.stepsPerEpoch) / update.epochs;
        progress_->setValue(static_cast<int>(std::clamp(done, 0.0, 1.0) * 1000));
        progress_->setFormat(tr("Epoch %1/%2 · step %3/%4 · %p%")
                                 .arg(update.epoch)
                                 .arg(update.epochs)
                                 .arg(update.step)
                                 .arg(update.stepsPerEpoch));
        status_->setText(tr("loss %1 · %2 examples/s · ETA %3")
                             .arg(update.loss, 0, 'g', 4)
                             .arg(update.examplesPerSecond, 0, 'f', 1)
                             .arg(formatDuration(update.etaSeconds)));
    } else {
        progress_->setValue(static_cast<int>(std::clamp(update.stageFraction, 0.0, 1.0) * 1000));
        progress_->setFormat(update.epochs > 0
                                 ? tr("%1 (epoch %2/%3) · %p%").arg(update.stage).arg(update.epoch).arg(update.epochs)
                                 : tr("%1 · %p%").arg(update.stage));
    }
}

void TrainingPanel::addEpochPoint(int epoch, double /*trainLoss*/, double devAccuracy) {
    if (devAccuracy < 0) return;  // no dev split: nothing to plot
    charts_->addEpochPoint(epoch, devAccuracy);
    const QString metric = charts_->accuracySeries()->name();
    status_->setText(epoch == 0 ? tr("Untrained model: %1 %2").arg(metric).arg(devAccuracy, 0, 'f', 4)
                                : tr("Epoch %1: %2 %3").arg(epoch).arg(metric).arg(devAccuracy, 0, 'f', 4));
}

void TrainingPanel::onFinished(const QString& directory) {
    progress_->setValue(progress_->maximum());
    progress_->setFormat(tr("Finished · %p%"));
    QString message = tr("Finished: %1").arg(directory);
    if (runStore_) {
        try {
            const fs::path run = directory.toStdString();
            project::RunReference reference;
            reference.name = run.filename().string();
            reference.directory = fs::absolute(run);
            reference.preset = train::readRunInfo(run).preset;
            runStore_->putRun(reference);
            message += tr(" (added to the project's runs)");
        } catch (const std::exception& e) {
            message += tr(" — could not add it to the project: %1").arg(QString::fromUtf8(e.what()));
        }
    }
    runStore_ = nullptr;
    // The kept model's collapse and its validation's warnings, from run.json: also when no
    // validation was watched live (training_run_summary.h).
    try {
        const auto info = train::readRunInfo(directory.toStdString());
        if (const QString line = validationLine(info); !line.isEmpty()) message += QStringLiteral(" — ") + line;
        if (const QString warnings = finishedRunWarnings(info); !warnings.isEmpty()) {
            warning_->setText(warnings);
            warning_->show();
        }
    } catch (const std::exception&) {
        // run.json unreadable: nothing more to say than "finished"
    }
    status_->setText(message);
    if (maskedLmStage_) {
        // The masked-LM stage is done: the self-alignment starts from its model.
        maskedLmStage_ = false;
        const auto schedule = pretrainingSchedule(pretrainPreset_);
        if (schedule && startRun(pretrainPreset_, *schedule, QDir(directory).filePath(QStringLiteral("model")))) {
            Q_EMIT runFinished(directory);
            return;
        }
        pretraining_ = false;
        status_->setText(message + tr(" — the self-alignment did not start: %1").arg(status_->text()));
        updateEnabled();
        Q_EMIT runFinished(directory);
        return;
    }
    if (pretraining_) {
        refreshStarts();
        // The encoder just made is the start of the next training.
        const int index = startFrom_->findData(fromPath(fs::absolute(directory.toStdString()).lexically_normal()));
        if (index >= 0) startFrom_->setCurrentIndex(index);
    }
    updateEnabled();
    Q_EMIT runFinished(directory);
}

void TrainingPanel::onStopped(const QString& message) {
    maskedLmStage_ = false;  // a stopped stage starts nothing after it
    progress_->setFormat(tr("Stopped · %p%"));
    status_->setText(message);
    updateEnabled();
}

}  // namespace linkscope::ui
