// The training dock offscreen on the demo project: a preset cut to one epoch of a few mentions
// trained with a small compact encoder through the panel (progress, the chart points, the run
// directory, the run registered in a project file), a training cancelled right after its start
// (cancelled, the event loop kept running meanwhile, the panel ready again), a request the
// trainer refuses, the encoder pretrained on the KB offered as every method's start, an XLM-R
// checkpoint folder as the start, and, in a build without LibTorch, the panel saying so.
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "checkpoint_check_view.h"
#include "demo_project.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "project/project_store.h"
#include "test_data.h"
#include "tiny_checkpoint_folder.h"
#include "train/run_directory.h"
#include "training_panel.h"
#include "training_run_summary.h"
#include "training_worker.h"
#include "xlmr_reference.h"

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

class TestTrainingPanel : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::shared_ptr<const LoadedProject> project_;

    QString path(const QString& name) const { return dir_.filePath(name); }
    QString modelsDirectory() const { return path(QStringLiteral("models")); }

    // A panel on the demo project with the tiny preset chosen, the demo's test split as dev.
    void configure(TrainingPanel& panel, const QString& runs) const {
        panel.setModelsDirectory(modelsDirectory());
        panel.setProject(project_);
        panel.setRunsFolder(runs);
        panel.presetCombo()->setCurrentIndex(panel.presetCombo()->findText(QStringLiteral("tiny-triplet")));
        QVERIFY(panel.presetCombo()->currentIndex() >= 0);
        panel.scheduleCombo()->setCurrentIndex(panel.scheduleCombo()->findText(QStringLiteral("paper")));
        QVERIFY(panel.scheduleCombo()->currentIndex() >= 0);
        panel.devSplitCombo()->setCurrentIndex(panel.devSplitCombo()->findData(QStringLiteral("test")));
        QVERIFY(panel.devSplitCombo()->currentIndex() >= 0);
        panel.deviceCombo()->setCurrentIndex(panel.deviceCombo()->findData(QStringLiteral("cpu")));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        test::keepSettingsIn(dir_);  // the default runs folder stays in here
        project_ = test::loadDemoProject();

        // The triplet preset cut to one epoch of 8 mentions, and a compact encoder small enough
        // for a sanitizer build: the panel is under test here, not the method.
        QVERIFY(QDir().mkpath(modelsDirectory()));
        const fs::path models = fs::path(LINKSCOPE_SOURCE_DIR) / "models";
        auto preset = nlohmann::json::parse(test::readFile(models / "triplet.json"));
        for (auto* schedule : {&preset["training"], &preset["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)["max_train_mentions"] = 8;
            (*schedule)["batch_size"] = 64;
        }
        test::writeFile(path(QStringLiteral("models/tiny-triplet.json")).toStdString(), preset.dump(2));
        auto compact = nlohmann::json::parse(test::readFile(models / "compact-encoder.json"));
        compact["config"]["hidden_size"] = 32;
        compact["config"]["num_hidden_layers"] = 1;
        compact["config"]["num_attention_heads"] = 2;
        compact["config"]["intermediate_size"] = 64;
        compact["vocabulary"]["size"] = 400;
        test::writeFile(path(QStringLiteral("models/compact-encoder.json")).toStdString(), compact.dump(2));
        // The self-alignment pretraining cut to one epoch of small batches.
        auto sapbert = nlohmann::json::parse(test::readFile(models / "sapbert.json"));
        for (auto* schedule : {&sapbert["training"], &sapbert["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)["batch_size"] = 32;
        }
        sapbert["self_alignment"]["max_pairs_per_concept"] = 2;
        test::writeFile(path(QStringLiteral("models/sapbert.json")).toStdString(), sapbert.dump(2));
    }

    void listsThePresetsAndSplits() {
        TrainingPanel panel;
        panel.setModelsDirectory(modelsDirectory());
        QCOMPARE(panel.presetCombo()->count(), 1);  // compact-encoder.json is not a preset
        QCOMPARE(panel.presetCombo()->currentText(), QStringLiteral("tiny-triplet"));
        QVERIFY(panel.scheduleCombo()->findText(QStringLiteral("paper")) >= 0);
        QCOMPARE(panel.scheduleCombo()->currentText(), QStringLiteral("short"));  // the default for a new choice
        QVERIFY(!panel.startButton()->isEnabled());                               // no project yet
        panel.setProject(project_);
        // "(none)" and the demo's test split; the train split is what is trained on.
        QCOMPARE(panel.devSplitCombo()->count(), 2);
        QCOMPARE(panel.devSplitCombo()->currentData().toString(), QStringLiteral("test"));
        QCOMPARE(panel.startButton()->isEnabled(), TrainingWorker::isAvailable());
        QVERIFY(!panel.cancelButton()->isEnabled());
        // The source tree's presets are found the way the CLI finds them.
        QVERIFY(!TrainingPanel::defaultModelsDirectory().isEmpty());
    }

    // A checkpoint folder chosen as the start is checked off the GUI thread and its report shown
    // before training starts: BioBERT cased's layout (a cased vocab.txt, no tokenizer_config.json)
    // gives the casing warning naming the file to add.
    void showsTheCheckOfTheChosenFolder() {
        TrainingPanel panel;
        configure(panel, path(QStringLiteral("check-runs")));
        const fs::path folder = path(QStringLiteral("cased-checkpoint")).toStdString();
        test::writeTinyCheckpoint(folder, true);
        QSignalSpy checked(panel.checkpointCheck(), &CheckpointCheckView::checked);
        panel.startFromCombo()->setCurrentIndex(panel.startFromCombo()->findData(QStringLiteral("custom")));
        panel.modelEdit()->setText(QString::fromStdString(folder.string()));
        Q_EMIT panel.modelEdit()->editingFinished();
        QVERIFY(checked.wait(20000));
        QCOMPARE(checked.constFirst().at(1).toBool(), true);
        const QString summary = panel.checkpointCheck()->summaryLabel()->text();
        QVERIFY2(summary.contains(QLatin1String("architecture: bert")), qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("tokenizer: WordPiece from vocab.txt")), qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("casing: lower-cased (from transformers' default)")),
                 qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("weights file: model.safetensors (safetensors; F32")),
                 qPrintable(summary));
        QLabel* warnings = panel.checkpointCheck()->warningsLabel();
        QVERIFY(!warnings->isHidden());
        QVERIFY2(warnings->text().contains(QLatin1String("Warning: the vocabulary looks cased")),
                 qPrintable(warnings->text()));
        QVERIFY2(warnings->text().contains(QString::fromStdString((folder / "tokenizer_config.json").string())),
                 qPrintable(warnings->text()));

        // A folder it cannot load: the error, naming the file; back to the compact encoder: nothing.
        fs::remove(folder / "config.json");
        panel.modelEdit()->setText(QString::fromStdString(folder.string()) + QStringLiteral("/"));
        Q_EMIT panel.modelEdit()->editingFinished();
        QVERIFY(checked.wait(20000));
        QCOMPARE(checked.constLast().at(1).toBool(), false);
        QVERIFY2(warnings->text().contains(QLatin1String("Error: ")) &&
                     warnings->text().contains(QLatin1String("config.json")),
                 qPrintable(warnings->text()));
        panel.startFromCombo()->setCurrentIndex(panel.startFromCombo()->findData(QString()));
        QVERIFY(panel.checkpointCheck()->isHidden());
    }

    // An XLM-R checkpoint folder (config.json, model.safetensors, sentencepiece.bpe.model, as
    // SapBERT's multilingual model has them) chosen as the start: its check names the
    // architecture and the SentencePiece tokenizer, and a method trains from it into a run that
    // keeps both.
    void trainsFromAnXlmrCheckpoint() {
        if (!TrainingWorker::isAvailable()) QSKIP("training needs LibTorch");
        const QString data = path(QStringLiteral("xlmr-data"));
        const auto corpus = test::runXlmrReference({QStringLiteral("corpus"), data});
        if (!corpus.ran) QSKIP(qPrintable(corpus.message));
        QVERIFY2(corpus.message.isEmpty(), qPrintable(corpus.message));
        const fs::path folder = path(QStringLiteral("xlmr")).toStdString();
        fs::create_directories(folder);
        fs::copy_file(fs::path(data.toStdString()) / "sentencepiece.bpe.model", folder / "sentencepiece.bpe.model");
        test::writeFile(folder / "texts.txt", "Herzinfarkt\n");
        const QString model = QString::fromStdString(folder.string());
        const auto written = test::runXlmrReference({QStringLiteral("model"), model, model + "/texts.txt", QString()});
        QVERIFY2(written.message.isEmpty(), qPrintable(written.message));

        TrainingPanel panel;
        configure(panel, path(QStringLiteral("xlmr-runs")));
        QSignalSpy checked(panel.checkpointCheck(), &CheckpointCheckView::checked);
        panel.startFromCombo()->setCurrentIndex(panel.startFromCombo()->findData(QStringLiteral("custom")));
        panel.modelEdit()->setText(model);
        Q_EMIT panel.modelEdit()->editingFinished();
        QVERIFY(checked.wait(20000));
        QCOMPARE(checked.constFirst().at(1).toBool(), true);
        const QString summary = panel.checkpointCheck()->summaryLabel()->text();
        if (summary.contains(QLatin1String("no SentencePiece support")))
            QSKIP("this build has no SentencePiece support");
        QVERIFY2(summary.contains(QLatin1String("architecture: xlm-roberta")), qPrintable(summary));
        QVERIFY2(summary.contains(QLatin1String("tokenizer: SentencePiece Unigram from sentencepiece.bpe.model")),
                 qPrintable(summary));

        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        QSignalSpy failed(&panel, &TrainingPanel::trainingFailed);
        QVERIFY(panel.start());
        QCOMPARE(panel.worker()->request().modelDirectory, model);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 600000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const fs::path run = finished.first().first().toString().toStdString();
        QCOMPARE(train::readRunInfo(run).status, std::string("finished"));
        const fs::path trained = train::modelDirectory(run);
        const auto config = nlohmann::json::parse(test::readFile(trained / "config.json"));
        QCOMPARE(config["model_type"].get<std::string>(), std::string("xlm-roberta"));
        QCOMPARE(test::readFile(trained / "sentencepiece.bpe.model"),
                 test::readFile(folder / "sentencepiece.bpe.model"));
        QVERIFY(!fs::exists(trained / "vocab.txt"));
    }

    void withoutLibTorchThePanelSaysSo() {
        if (TrainingWorker::isAvailable()) QSKIP("this build has LibTorch");
        TrainingPanel panel;
        panel.setModelsDirectory(modelsDirectory());
        panel.setProject(project_);
        auto* label = panel.findChild<QLabel*>(QStringLiteral("trainingUnavailable"));
        QVERIFY(label && !label->isHidden());
        QVERIFY(label->text().contains(QStringLiteral("LibTorch")));
        QVERIFY(!panel.startButton()->isEnabled());
        QVERIFY(!panel.start());
    }

    void trainsAndRegistersTheRun() {
        if (!TrainingWorker::isAvailable()) QSKIP("training needs LibTorch");
        const fs::path projectFile = path(QStringLiteral("demo.linkscope")).toStdString();
        auto store = project::ProjectStore::create(projectFile, project_->manifest);

        TrainingPanel panel;
        configure(panel, path(QStringLiteral("runs")));
        panel.setStore(&store);
        QSignalSpy progress(panel.worker(), &TrainingWorker::progress);
        QSignalSpy epochs(panel.worker(), &TrainingWorker::epochEnded);
        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        QSignalSpy failed(&panel, &TrainingPanel::trainingFailed);

        QVERIFY(panel.start());
        QVERIFY(panel.isTraining());
        QVERIFY(!panel.startButton()->isEnabled());
        QVERIFY(panel.cancelButton()->isEnabled());
        QVERIFY(!panel.start());  // one training at a time
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 600000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QCOMPARE(finished.size(), 1);
        QVERIFY(!panel.isTraining());
        QVERIFY(panel.startButton()->isEnabled());
        QCOMPARE(panel.progressBar()->value(), panel.progressBar()->maximum());

        // Progress came, with training steps among it.
        QVERIFY(!progress.isEmpty());
        bool sawTraining = false;
        for (const auto& arguments : progress) {
            const auto update = arguments.first().value<TrainingUpdate>();
            if (update.stage == QLatin1String("Training")) {
                sawTraining = true;
                QCOMPARE(update.epochs, 1);
                QVERIFY(update.stepsPerEpoch >= 1);
            }
        }
        QVERIFY(sawTraining);
        QVERIFY(panel.lossSeries()->count() >= 1);
        for (const QPointF& point : panel.lossSeries()->points()) QVERIFY(std::isfinite(point.y()));

        // The untrained model's validation (epoch 0, no loss), then epoch 1 with its mean loss,
        // matching what the run recorded.
        QCOMPARE(epochs.size(), 2);
        QCOMPARE(epochs[0][0].toInt(), 0);
        QVERIFY(std::isnan(epochs[0][1].toDouble()));
        QCOMPARE(epochs[1][0].toInt(), 1);
        QVERIFY(std::isfinite(epochs[1][1].toDouble()));
        const double accuracy = epochs[1][2].toDouble();
        QCOMPARE(panel.accuracySeries()->count(), 2);
        QCOMPARE(panel.accuracySeries()->at(1), QPointF(1.0, accuracy));

        // The run directory, as the trainer writes it.
        const QString directory = finished.first().first().toString();
        QCOMPARE(directory, panel.currentRunDirectory());
        QVERIFY(directory.startsWith(path(QStringLiteral("runs/tiny-triplet-"))));
        const fs::path run = directory.toStdString();
        QVERIFY(fs::exists(train::modelDirectory(run) / "config.json"));
        QVERIFY(fs::exists(train::runInfoFile(run)));
        const train::RunInfo info = train::readRunInfo(run);
        QCOMPARE(info.status, std::string("finished"));
        QCOMPARE(info.preset, std::string("tiny-triplet"));
        QCOMPARE(info.epochsDone, std::size_t{1});
        QCOMPARE(info.device, std::string("cpu"));
        QCOMPARE(epochs[0][2].toDouble(), info.untrainedDevAccuracy);
        // Epoch 1's point is the accuracy its validation logged (to 1e-12: the log holds the
        // double in its shortest exact text).
        std::optional<double> logged;
        std::ifstream log(train::logFile(run));
        for (std::string line; std::getline(log, line);) {
            const auto event = nlohmann::json::parse(line);
            if (event.at("event") == "epoch" && event.at("epoch") == 1) logged = event.at("dev_acc1").get<double>();
        }
        QVERIFY(logged.has_value());
        QVERIFY2(std::abs(accuracy - *logged) < 1e-12, qPrintable(QString("%1 against %2").arg(accuracy).arg(*logged)));
        QCOMPARE(panel.accuracySeries()->at(0), QPointF(0.0, info.untrainedDevAccuracy));

        // The kept model against the sparse linker on the same dev mentions, in the status line;
        // the warning shows what run.json's validation warns of (none when it is not below).
        QVERIFY(info.validation.has_value());
        QCOMPARE(info.validation->source, std::string("dev"));
        QVERIFY(info.validation->sparseAcc1 >= 0.0);
        QCOMPARE(info.validation->keptAcc1, info.bestDevAccuracy);
        QCOMPARE(info.validation->warnings, train::validationWarnings(*info.validation, info.untrainedDevAccuracy));
        QCOMPARE(panel.warningLabel()->isHidden(), info.validation->warnings.empty());
        for (const auto& warning : info.validation->warnings)
            QVERIFY2(panel.warningLabel()->text().contains(QString::fromStdString(warning)),
                     qPrintable(panel.warningLabel()->text()));
        QVERIFY2(panel.statusLabel()->text().contains(QStringLiteral("sparse linker")),
                 qPrintable(panel.statusLabel()->text()));

        // Registered in the project file, seen by another connection too.
        const auto reopened = project::ProjectStore::open(projectFile);
        const auto runs = reopened.runs();
        QCOMPARE(runs.size(), std::size_t{1});
        QCOMPARE(runs[0].name, run.filename().string());
        QCOMPARE(runs[0].directory, fs::absolute(run));
        QCOMPARE(runs[0].preset, std::string("tiny-triplet"));
    }

    // With no dev split, the demo's KB (35 concepts) is too small to hold validation names out:
    // the run keeps its last epoch, and the dock's red warning says it was not validated.
    void warnsWhenTheRunIsNotValidated() {
        if (!TrainingWorker::isAvailable()) QSKIP("training needs LibTorch");
        TrainingPanel panel;
        configure(panel, path(QStringLiteral("unvalidated-runs")));
        panel.devSplitCombo()->setCurrentIndex(panel.devSplitCombo()->findData(QString()));
        QCOMPARE(panel.devSplitCombo()->currentText(), QStringLiteral("(none)"));
        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        QSignalSpy failed(&panel, &TrainingPanel::trainingFailed);
        QVERIFY(panel.start());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 600000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const auto info = train::readRunInfo(finished.first().first().toString().toStdString());
        QVERIFY(info.validation.has_value());
        QCOMPARE(info.validation->source, std::string("none"));
        QVERIFY(!panel.warningLabel()->isHidden());
        QVERIFY2(panel.warningLabel()->text().contains(QStringLiteral("not validated")),
                 qPrintable(panel.warningLabel()->text()));
        QCOMPARE(panel.warningLabel()->text(), finishedRunWarnings(info));
        QCOMPARE(panel.accuracySeries()->name(), QStringLiteral("held-out KB names Acc@1"));
    }

    // "Pretrain encoder" runs the self-alignment on the project's KB, registers the run, and
    // offers the encoder as the start of every method, chosen at once; a training then starts
    // from it, and another panel on the same project offers it first too.
    void pretrainsAndOffersTheEncoder() {
        if (!TrainingWorker::isAvailable()) QSKIP("training needs LibTorch");
        const fs::path projectFile = path(QStringLiteral("pretrain.linkscope")).toStdString();
        auto store = project::ProjectStore::create(projectFile, project_->manifest);
        TrainingPanel panel;
        configure(panel, path(QStringLiteral("pretrain-runs")));
        panel.setStore(&store);
        // The pretraining is not among the methods; it has its own button.
        QCOMPARE(panel.presetCombo()->findText(QStringLiteral("sapbert")), -1);
        QVERIFY(panel.pretrainButton()->isEnabled());
        QCOMPARE(panel.startFromCombo()->currentData().toString(), QString());  // nothing pretrained yet

        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        QSignalSpy failed(&panel, &TrainingPanel::trainingFailed);
        QVERIFY(panel.startPretraining());
        QVERIFY(!panel.startButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 600000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const QString pretrained = finished.first().first().toString();
        QVERIFY(pretrained.startsWith(path(QStringLiteral("pretrain-runs/sapbert-"))));
        const auto info = train::readRunInfo(pretrained.toStdString());
        QCOMPARE(info.preset, std::string("sapbert"));
        // No collapse; what the validation found is shown as run.json has it.
        QVERIFY(info.collapse.empty());
        QCOMPARE(panel.warningLabel()->isHidden(), finishedRunWarnings(info).isEmpty());
        if (!panel.warningLabel()->isHidden()) QCOMPARE(panel.warningLabel()->text(), finishedRunWarnings(info));
        const QString absolute =
            QString::fromStdString(fs::absolute(pretrained.toStdString()).lexically_normal().string());
        QCOMPARE(panel.startFromCombo()->currentData().toString(), absolute);
        QCOMPARE(store.runs().size(), std::size_t{1});

        // A method trains from it.
        finished.clear();
        QVERIFY(panel.start());
        QCOMPARE(panel.worker()->request().modelDirectory, absolute);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 600000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));

        // Another panel on the project offers the pretrained encoder first.
        TrainingPanel other;
        configure(other, path(QStringLiteral("elsewhere")));
        other.setStore(&store);
        QCOMPARE(other.startFromCombo()->currentData().toString(), absolute);
        QCOMPARE(other.startFromCombo()->itemData(0).toString(), QString());  // from scratch stays offered

        // A method that reads mentions in their sentences (belhd): the names-only encoder is
        // still chosen while no context-aligned one exists. The schedule the user chose
        // ("paper", markers only) stays, and the panel says why this start does not suit it.
        // Between "short" and "short-pretrained" (which reads the mention alone too) the start
        // chooses: a pretrained start takes the second, with no warning; random weights "short".
        test::writeFile(path(QStringLiteral("models/tiny-belhd.json")).toStdString(),
                        test::readFile(fs::path(LINKSCOPE_SOURCE_DIR) / "models" / "belhd.json"));
        TrainingPanel context;
        configure(context, path(QStringLiteral("elsewhere")));
        context.setStore(&store);
        context.presetCombo()->setCurrentIndex(context.presetCombo()->findText(QStringLiteral("tiny-belhd")));
        QCOMPARE(context.startFromCombo()->currentData().toString(), absolute);
        QCOMPARE(context.scheduleCombo()->currentText(), QStringLiteral("paper"));
        QVERIFY2(context.startHint().contains(QStringLiteral("short-pretrained")), qPrintable(context.startHint()));
        QVERIFY2(context.startHint().contains(QStringLiteral("context-alignment")), qPrintable(context.startHint()));
        context.scheduleCombo()->setCurrentIndex(context.scheduleCombo()->findText(QStringLiteral("short")));
        QVERIFY2(context.startHint().contains(QStringLiteral("short-pretrained")), qPrintable(context.startHint()));
        context.startFromCombo()->setCurrentIndex(0);  // from scratch
        QCOMPARE(context.scheduleCombo()->currentText(), QStringLiteral("short"));
        QVERIFY2(context.startHint().contains(QStringLiteral("random weights")), qPrintable(context.startHint()));
        context.startFromCombo()->setCurrentIndex(context.startFromCombo()->findData(absolute));
        QCOMPARE(context.scheduleCombo()->currentText(), QStringLiteral("short-pretrained"));
        QVERIFY2(context.startHint().isEmpty(), qPrintable(context.startHint()));
        context.startFromCombo()->setCurrentIndex(0);
        QCOMPARE(context.scheduleCombo()->currentText(), QStringLiteral("short"));
        // A context-aligned encoder in the project (the pretrained run, relabelled): chosen by
        // default for belhd, and the hint goes; triplet keeps the names-only one.
        const fs::path aligned = fs::path(path(QStringLiteral("pretrain-runs/aligned")).toStdString());
        fs::copy(fs::path(absolute.toStdString()), aligned, fs::copy_options::recursive);
        auto alignedInfo = train::readRunInfo(aligned);
        alignedInfo.preset = "context-alignment";
        train::writeRunInfo(aligned, alignedInfo);
        test::writeFile(aligned / "preset.json",
                        test::readFile(fs::path(LINKSCOPE_SOURCE_DIR) / "models" / "context-alignment.json"));
        fs::last_write_time(train::runInfoFile(aligned), fs::file_time_type::clock::now() - std::chrono::hours(1));
        store.putRun({"aligned", aligned, "context-alignment", ""});
        TrainingPanel chooser;
        configure(chooser, path(QStringLiteral("elsewhere")));
        chooser.setStore(&store);
        const QString alignedPath = QString::fromStdString(fs::absolute(aligned).lexically_normal().string());
        QCOMPARE(chooser.startFromCombo()->currentData().toString(), absolute);  // triplet: the newest
        QVERIFY(chooser.startHint().isEmpty());
        chooser.presetCombo()->setCurrentIndex(chooser.presetCombo()->findText(QStringLiteral("tiny-belhd")));
        QCOMPARE(chooser.startFromCombo()->currentData().toString(), alignedPath);
        QVERIFY(chooser.startHint().isEmpty());
        chooser.startFromCombo()->setCurrentIndex(0);  // from scratch: belhd collapsed
        QVERIFY(!chooser.startHint().isEmpty());
        fs::remove(path(QStringLiteral("models/tiny-belhd.json")).toStdString());
    }

    // "Read the corpus first": the masked-LM stage on the training and dev splits' texts runs,
    // then the self-alignment starts from its model by itself; both runs join the project, and
    // the self-aligned encoder (not the stage's) becomes the start. Without a masked-LM preset
    // in the models folder the box is disabled.
    void pretrainsWithTheMaskedLmStageFirst() {
        if (!TrainingWorker::isAvailable()) QSKIP("training needs LibTorch");
        const fs::path projectFile = path(QStringLiteral("mlm.linkscope")).toStdString();
        auto store = project::ProjectStore::create(projectFile, project_->manifest);
        TrainingPanel panel;
        configure(panel, path(QStringLiteral("mlm-runs")));
        panel.setStore(&store);
        QVERIFY(!panel.maskedLmCheck()->isEnabled());  // no mlm preset yet

        auto mlm = nlohmann::json::parse(test::readFile(fs::path(LINKSCOPE_SOURCE_DIR) / "models" / "mlm.json"));
        for (auto* schedule : {&mlm["training"], &mlm["schedules"]["short"]}) {
            (*schedule)["epochs"] = 1;
            (*schedule)["batch_size"] = 8;
        }
        mlm["masked_lm"]["held_out_every"] = 3;
        const fs::path mlmFile = path(QStringLiteral("models/mlm.json")).toStdString();
        test::writeFile(mlmFile, mlm.dump(2));
        panel.setModelsDirectory(modelsDirectory());
        panel.presetCombo()->setCurrentIndex(panel.presetCombo()->findText(QStringLiteral("tiny-triplet")));
        QCOMPARE(panel.presetCombo()->findText(QStringLiteral("mlm")), -1);  // a stage, not a method
        QVERIFY(panel.maskedLmCheck()->isEnabled());
        panel.maskedLmCheck()->setChecked(true);

        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        QSignalSpy failed(&panel, &TrainingPanel::trainingFailed);
        QVERIFY(panel.startPretraining());
        QCOMPARE(panel.accuracySeries()->name(), QStringLiteral("held-out masked-token accuracy"));
        QCOMPARE(panel.accuracyChartView()->chart()->title(), QStringLiteral("Held-out masked-token accuracy"));
        QTRY_VERIFY_WITH_TIMEOUT(finished.size() >= 2 || !failed.isEmpty(), 600000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const QString stage = finished.at(0).first().toString();
        const QString aligned = finished.at(1).first().toString();
        QVERIFY2(stage.startsWith(path(QStringLiteral("mlm-runs/mlm-"))), qPrintable(stage));
        QVERIFY2(aligned.startsWith(path(QStringLiteral("mlm-runs/sapbert-"))), qPrintable(aligned));
        QCOMPARE(train::readRunInfo(stage.toStdString()).preset, std::string("mlm"));
        QCOMPARE(train::readRunInfo(stage.toStdString()).status, std::string("finished"));
        QCOMPARE(train::readRunInfo(aligned.toStdString()).status, std::string("finished"));
        // The self-alignment started from the stage's model.
        QCOMPARE(panel.worker()->request().modelDirectory, QDir(stage).filePath(QStringLiteral("model")));
        QCOMPARE(panel.accuracySeries()->name(), QStringLiteral("dev Acc@1"));
        QCOMPARE(panel.accuracyChartView()->chart()->title(), QStringLiteral("Dev Acc@1"));
        QCOMPARE(store.runs().size(), std::size_t{2});
        const QString absolute =
            QString::fromStdString(fs::absolute(aligned.toStdString()).lexically_normal().string());
        QCOMPARE(panel.startFromCombo()->currentData().toString(), absolute);
        fs::remove(mlmFile);
    }

    void cancelRightAfterStart() {
        if (!TrainingWorker::isAvailable()) QSKIP("training needs LibTorch");
        const fs::path projectFile = path(QStringLiteral("cancel.linkscope")).toStdString();
        auto store = project::ProjectStore::create(projectFile, project_->manifest);

        TrainingPanel panel;
        configure(panel, path(QStringLiteral("cancelled-runs")));
        panel.setStore(&store);
        QSignalSpy cancelled(&panel, &TrainingPanel::trainingCancelled);
        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        QSignalSpy failed(&panel, &TrainingPanel::trainingFailed);
        // The GUI thread keeps serving its event loop while the worker stops: timer ticks arrive.
        // A zero-interval timer fires on every pass of the event loop, so even a cancellation
        // that ends within a few milliseconds (its signal needs one pass to arrive) counts one.
        int ticks = 0;
        QTimer ticker;
        ticker.setInterval(0);
        connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
        ticker.start();

        QVERIFY(panel.start());
        panel.cancel();
        QVERIFY(!panel.cancelButton()->isEnabled());  // cancelling once is enough
        QTRY_VERIFY_WITH_TIMEOUT(!cancelled.isEmpty() || !finished.isEmpty() || !failed.isEmpty(), 600000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(finished.isEmpty());
        QVERIFY(ticks > 0);
        QVERIFY(!panel.isTraining());
        QVERIFY(panel.startButton()->isEnabled());
        QVERIFY(panel.statusLabel()->text().contains(QStringLiteral("cancelled")));
        QVERIFY(store.runs().empty());  // only finished runs are registered

        // Responsive means usable too: the next training starts at once.
        QVERIFY(panel.start());
        panel.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(cancelled.size() + finished.size() + failed.size() == 2, 600000);
    }

    void refusedRequestsFail() {
        if (!TrainingWorker::isAvailable()) QSKIP("training needs LibTorch");
        TrainingWorker worker;
        QSignalSpy failed(&worker, &TrainingWorker::failed);
        TrainingRequest request;
        request.preset = QStringLiteral("no-such-preset");
        request.modelsDirectory = modelsDirectory();
        request.runDirectory = path(QStringLiteral("refused"));
        QVERIFY(worker.start(project_, request));
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60000);
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("tiny-triplet")),
                 qPrintable(failed.first().first().toString()));  // the available names are listed

        request.preset = QStringLiteral("tiny-triplet");
        request.devSplit = QStringLiteral("dev");  // the demo has none
        QVERIFY(worker.start(project_, request));
        QTRY_VERIFY_WITH_TIMEOUT(failed.size() == 2, 60000);
        QVERIFY2(failed.last().first().toString().contains(QStringLiteral("\"dev\"")),
                 qPrintable(failed.last().first().toString()));
        QVERIFY(!fs::exists(request.runDirectory.toStdString()));
    }
};

QTEST_MAIN(TestTrainingPanel)
#include "test_training_panel.moc"
