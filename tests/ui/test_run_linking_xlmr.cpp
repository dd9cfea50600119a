// Linking with a trained XLM-R run in the GUI, as a user does it: a German corpus and KB
// (xlmr_reference.py), a random XLM-R checkpoint whose SentencePiece Unigram tokenizer was
// trained on the KB's names, a short triplet run trained from it by `linkscope-cli train`, the
// project opened in the main window and linked with the run through the dense module
// (RankerHost::linkWithRun, what the Linking menu starts) with the model alone and with the kNN
// datastore, and the candidates the Candidates dock shows for each test mention set against what
// `linkscope-cli eval --run RUN --per-mention` and `link --run RUN` give for the same mention. The
// "Start from" check view names the tokenizer and casing of the checkpoint folder and of the run's
// model. Skips where Debian's Python modules are absent.
#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "../cli/cli_runner.h"
#include "candidate_model.h"
#include "candidates_panel.h"
#include "checkpoint_check_view.h"
#include "curation/augmented_linker.h"
#include "curation_session.h"
#include "main_window.h"
#include "project/loaded_project.h"
#include "ranker_host.h"
#include "test_data.h"
#include "xlmr_reference.h"

using namespace linkscope;
using namespace linkscope::ui;
namespace fs = std::filesystem;

namespace {

/// A mention of the test split by its place: document, start and end (characters).
using Place = std::tuple<std::string, std::size_t, std::size_t>;

/// What the command line linked a mention to: eval's best score per entity (its first, and so
/// best, prediction naming it), the entity it ranks first, the id link writes.
struct CliOutcome {
    std::map<std::string, double> bestScore;
    std::string topEntity;
    double topScore = 0.0;
    std::string linkedId;
};

}  // namespace

class TestRunLinkingXlmr : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString skipReason_;
    QString model_;     ///< the XLM-R checkpoint folder
    QString run_;       ///< the triplet run trained from it
    QString manifest_;  ///< the German project

    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    QString data(const char* name) const { return dir_.filePath(QStringLiteral("data/") + QString::fromLatin1(name)); }
    QStringList dataArguments() const {
        return {"--train", data("train.txt"), "--dev", data("dev.txt"), "--kb", data("kb.tsv")};
    }

    // models/triplet.json cut to one epoch: a run in a second.
    QString tinyTripletPreset() const {
        auto preset = nlohmann::json::parse(test::readFile(LINKSCOPE_SOURCE_DIR "/models/triplet.json"));
        for (auto* schedule : {&preset["training"], &preset["schedules"]["short"]}) (*schedule)["epochs"] = 1;
        const QString file = path("triplet.json");
        test::writeFile(file.toStdString(), preset.dump());
        return file;
    }

    // eval --per-mention and link with the run and `linking`'s options, on the test split, read
    // per mention.
    std::map<Place, CliOutcome> cliOutcomes(const QStringList& linking) const {
        std::map<Place, CliOutcome> outcomes;
        const auto evaluated =
            test::runCli(QStringList{"eval", "--run", run_, "--device", "cpu", "--test", data("test.txt"), "--split",
                                     "test", "--per-mention", path("per-mention.jsonl"), "--json"}
                         << dataArguments() << linking);
        if (evaluated.exitCode != 0) {
            qWarning("eval --run failed: %s", evaluated.err.constData());
            return {};
        }
        for (const auto& line :
             QString::fromStdString(test::readFile(path("per-mention.jsonl").toStdString())).split('\n')) {
            if (line.trimmed().isEmpty()) continue;
            const auto mention = nlohmann::json::parse(line.toStdString());
            CliOutcome& outcome = outcomes[{mention["document"].get<std::string>(), mention["start"].get<std::size_t>(),
                                            mention["end"].get<std::size_t>()}];
            const auto& predictions = mention["parts"][0]["predictions"];
            for (const auto& prediction : predictions)
                for (const auto& id : prediction["ids"])
                    outcome.bestScore.emplace(id.get<std::string>(), prediction["score"].get<double>());
            outcome.topEntity = predictions[0]["ids"][0].get<std::string>();
            outcome.topScore = predictions[0]["score"].get<double>();
        }
        const auto linked =
            test::runCli(QStringList{"link", "--run", run_, "--device", "cpu", "--corpus", data("test.txt"), "--kb",
                                     data("kb.tsv"), "--train", data("train.txt"), "--out", path("linked.txt")}
                         << linking);
        if (linked.exitCode != 0) {
            qWarning("link --run failed: %s", linked.err.constData());
            return {};
        }
        for (const auto& line : QString::fromStdString(test::readFile(path("linked.txt").toStdString())).split('\n')) {
            const auto fields = line.split('\t');
            if (fields.size() != 6) continue;
            outcomes[{fields[0].toStdString(), fields[1].toULongLong(), fields[2].toULongLong()}].linkedId =
                fields[5].toStdString();
        }
        return outcomes;
    }

    // The project opened in the window and linked with the run in `mode`: every test mention
    // reads as a KB name and the Candidates dock ranks that concept first, with the score eval
    // gives it with `linking`'s options; every candidate shown that eval's predictions name has
    // eval's score for it; the top entity is the id link writes with the same options.
    void linkAsTheCommandLine(curation::LinkMode mode, const QStringList& linking) {
        const auto cli = cliOutcomes(linking);
        QCOMPARE(cli.size(), std::size_t{16});

        MainWindow window;
        window.show();
        QSignalSpy loaded(&window, &MainWindow::projectLoaded);
        QSignalSpy failed(&window, &MainWindow::projectFailed);
        RankerHost* rankers = window.session()->rankers();
        window.openProject(manifest_);
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() || !failed.isEmpty(), 30000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        QTRY_VERIFY_WITH_TIMEOUT(rankers->sparseRankerBuilt(), 30000);

        QSignalSpy linked(rankers, &RankerHost::runLinked);
        QSignalSpy errors(rankers, &RankerHost::errorOccurred);
        rankers->linkWithRun(run_, mode);
        QTRY_VERIFY_WITH_TIMEOUT(!linked.isEmpty() || !errors.isEmpty(), 60000);
        QVERIFY2(errors.isEmpty(), errors.isEmpty() ? "" : qPrintable(errors.first().first().toString()));
        QVERIFY(rankers->runRanker() != nullptr);
        QVERIFY2(rankers->rankerDescription().contains(QLatin1String("triplet")),
                 qPrintable(rankers->rankerDescription()));

        // Both encode the same text with the same weights; batches padded differently may move a
        // cosine in its last float bits.
        constexpr double kTolerance = 1e-4;
        const LoadedProject* project = window.project();
        QVERIFY(project);
        std::size_t checked = 0;
        double largestDifference = 0.0;
        for (const SplitCorpus& split : project->splits) {
            if (split.split != "test") continue;
            for (const Document& document : split.corpus.documents())
                for (const Mention& mention : document.mentions) {
                    const std::string where = document.pmid() + " " + mention.text;
                    const auto found = cli.find({document.pmid(), mention.start, mention.end});
                    QVERIFY2(found != cli.end(), where.c_str());
                    const CliOutcome& outcome = found->second;
                    QVERIFY(window.showMention(QStringLiteral("test"), QString::fromStdString(document.pmid()),
                                               static_cast<int>(mention.start), static_cast<int>(mention.end)));
                    const CandidateModel* candidates = window.candidatesPanel()->model();
                    QVERIFY2(candidates->rowCount() > 1, where.c_str());
                    const curation::CandidateRow* top = candidates->rowAt(0);
                    // The mention is a KB name: that name's concept first (the corpus' gold).
                    const std::string ranked = where + ": " + top->entity + " first in the GUI, gold " +
                                               mention.ids.ids.front() + ", eval " + outcome.topEntity + ", link " +
                                               outcome.linkedId;
                    QVERIFY2(top->entity == mention.ids.ids.front(), ranked.c_str());
                    QCOMPARE(QString::fromStdString(top->matchedName), QString::fromStdString(mention.text).toLower());
                    QVERIFY2(top->entity == outcome.topEntity, ranked.c_str());
                    QVERIFY2("MESH:" + outcome.linkedId == top->entity, ranked.c_str());
                    QVERIFY2(std::isfinite(top->score) && std::abs(top->score - outcome.topScore) <= kTolerance,
                             qPrintable(QString("%1: %2 in the GUI, %3 by eval")
                                            .arg(QString::fromStdString(where))
                                            .arg(top->score, 0, 'g', 9)
                                            .arg(outcome.topScore, 0, 'g', 9)));
                    if (mode == curation::LinkMode::Model)
                        QVERIFY2(top->dense.has_value() && std::abs(*top->dense - outcome.topScore) <= kTolerance,
                                 where.c_str());
                    else
                        QVERIFY2(top->modelProbability.has_value() && top->knnProbability.has_value(), where.c_str());
                    std::size_t compared = 0;
                    for (int r = 0; r < candidates->rowCount(); ++r) {
                        const curation::CandidateRow* row = candidates->rowAt(r);
                        QVERIFY2(std::isfinite(row->score), where.c_str());
                        if (r > 0) QVERIFY2(row->score <= candidates->rowAt(r - 1)->score, where.c_str());
                        const auto score = outcome.bestScore.find(row->entity);
                        if (score == outcome.bestScore.end()) continue;
                        QVERIFY2(std::abs(row->score - score->second) <= kTolerance,
                                 qPrintable(QString("%1, candidate %2: %3 in the GUI, %4 by eval")
                                                .arg(QString::fromStdString(where))
                                                .arg(QString::fromStdString(row->entity))
                                                .arg(row->score, 0, 'g', 9)
                                                .arg(score->second, 0, 'g', 9)));
                        largestDifference = std::max(largestDifference, std::abs(row->score - score->second));
                        ++compared;
                    }
                    QVERIFY2(compared >= 3, where.c_str());
                    ++checked;
                }
        }
        QCOMPARE(checked, std::size_t{16});
        qInfo("%s: the GUI's scores differ from eval's by at most %g", qPrintable(rankers->rankerDescription()),
              largestDifference);
    }
private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("LinkscopeTests"));
        qputenv("XDG_CONFIG_HOME", dir_.path().toUtf8());  // keep QSettings out of the user's home
        qputenv("XDG_DATA_HOME", dir_.path().toUtf8());    // and the project file
        const auto corpus = test::runXlmrReference({QStringLiteral("corpus"), path("data")});
        if (!corpus.ran) {
            skipReason_ = corpus.message;
            return;
        }
        QVERIFY2(corpus.message.isEmpty(), qPrintable(corpus.message));
        // A random XLM-R whose tokenizer was trained on the KB's names.
        model_ = path("xlmr");
        fs::create_directories(model_.toStdString());
        fs::copy_file(data("sentencepiece.bpe.model").toStdString(),
                      (model_ + "/sentencepiece.bpe.model").toStdString());
        test::writeFile((model_ + "/texts.txt").toStdString(), "Herzinfarkt\n");
        const auto written =
            test::runXlmrReference({QStringLiteral("model"), model_, model_ + "/texts.txt", QString()});
        QVERIFY2(written.message.isEmpty(), qPrintable(written.message));

        run_ = path("run");
        const auto trained = test::runCli(QStringList{"train", "--preset", tinyTripletPreset(), "--schedule", "short",
                                                      "--model", model_, "--device", "cpu", "--out", run_}
                                          << dataArguments());
        if (trained.err.contains("no SentencePiece support")) {
            skipReason_ = QStringLiteral("this build has no SentencePiece support");
            return;
        }
        QVERIFY2(trained.exitCode == 0, trained.err.constData());

        manifest_ = path("german-project.json");
        const nlohmann::json manifest = {
            {"format", "linkscope-project-manifest"},
            {"version", 1},
            {"name", "German XLM-R"},
            {"knowledgeBase", {{"path", data("kb.tsv").toStdString()}, {"format", "ctd"}}},
            {"corpora",
             {{{"split", "train"}, {"path", data("train.txt").toStdString()}, {"format", "pubtator"}},
              {{"split", "dev"}, {"path", data("dev.txt").toStdString()}, {"format", "pubtator"}},
              {{"split", "test"}, {"path", data("test.txt").toStdString()}, {"format", "pubtator"}}}}};
        test::writeFile(manifest_.toStdString(), manifest.dump(2));
    }

    // The "Start from" check of the checkpoint folder and of the run's model: the architecture,
    // the SentencePiece tokenizer and its casing, no warning (a SentencePiece model keeps case, so
    // nothing is lower-cased that the model saw cased).
    void theCheckViewNamesTheSentencePieceTokenizer() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        for (const QString& folder : {model_, run_ + "/model"}) {
            CheckpointCheckView view;
            QSignalSpy checked(&view, &CheckpointCheckView::checked);
            view.setFolder(folder);
            QVERIFY(checked.wait(20000));
            QCOMPARE(checked.constFirst().at(0).toString(), folder);
            QCOMPARE(checked.constFirst().at(1).toBool(), true);
            const QString summary = view.summaryLabel()->text();
            QVERIFY2(summary.contains(QLatin1String("architecture: xlm-roberta")), qPrintable(summary));
            QVERIFY2(summary.contains(QLatin1String("tokenizer: SentencePiece Unigram from sentencepiece.bpe.model")),
                     qPrintable(summary));
            QVERIFY2(summary.contains(QLatin1String("casing: cased (from SentencePiece model)")), qPrintable(summary));
            QVERIFY2(view.warningsLabel()->isHidden(), qPrintable(view.warningsLabel()->text()));
        }
    }

    // The model alone, as eval --run and link --run link a triplet run without --knn or --sieve.
    void linksWithTheModelAsTheCommandLineDoes() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        if (!RankerHost::runLinkingAvailable()) QSKIP("this build has no dense module: run linking needs LibTorch");
        linkAsTheCommandLine(curation::LinkMode::Model, {});
    }

    // kNN-BioEL's interpolation with the paper's NCBI settings (the Linking menu's and --knn's
    // defaults) over a datastore of the training split's mentions.
    void linksWithTheDatastoreAsTheCommandLineDoes() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        if (!RankerHost::runLinkingAvailable()) QSKIP("this build has no dense module: run linking needs LibTorch");
        linkAsTheCommandLine(curation::LinkMode::Knn, {QStringLiteral("--knn")});
    }
};

QTEST_MAIN(TestRunLinkingXlmr)
#include "test_run_linking_xlmr.moc"
