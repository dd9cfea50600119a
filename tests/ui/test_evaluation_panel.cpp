// The evaluation dock offscreen, on a small project this suite writes itself: the project's
// sparse linker evaluated on a worker must give exactly what core's evaluate() gives on the same
// data (built here independently, as `linkscope-cli eval --method sparse` builds it); the error
// model and its filter under QAbstractItemModelTester; the category filter and the activation
// signal; two per-mention files written by core's writer, loaded as A and B, with metrics and
// McNemar / bootstrap numbers equal to core's; a malformed file and cancellation; the "All
// runs" page (sparse + a run that cannot be evaluated + two files) against core's multi_compare.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QtTest/QtTest>

#include "error_filter_model.h"
#include "error_table_model.h"
#include "eval/compare.h"
#include "eval/dictionary.h"
#include "eval/evaluate.h"
#include "eval/homonym_affected.h"
#include "eval/mention_groups.h"
#include "eval/multi_compare.h"
#include "eval/queries.h"
#include "eval/report.h"
#include "evaluation_panel.h"
#include "evaluation_run.h"
#include "multi_run_panel.h"
#include "project/loaded_project.h"
#include "project/project_manifest.h"
#include "retrieval/sparse_index.h"
#include "retrieval/tfidf_settings.h"
#include "test_data.h"
#include "util/progress.h"
#ifdef LINKSCOPE_HAVE_TORCH
#include "tiny_run.h"
#endif
#include <QCheckBox>
#include <QMenu>
#include <QPushButton>
#include <algorithm>
#include <cctype>

using namespace linkscope;
using namespace linkscope::ui;

namespace {

constexpr std::string_view kKb =
    "D006816|143100||Huntington Disease|Huntington's Disease|Huntington Chorea|HD\n"
    "D006627||Hirschsprung Disease|Congenital Megacolon|HD\n"
    "D009369||Neoplasms|Tumors|Cancer\n"
    "D001943||Breast Neoplasms|Breast Cancer\n"
    "D010051||Ovarian Neoplasms|Ovarian Cancer\n"
    "D003139||Common Cold|Cold\n"
    "D003080||Cold Temperature|Cold\n"
    "D019964||Mood Disorders|Affective Disorders\n";

struct M {
    std::string text;
    std::string ids;
    std::size_t occurrence = 0;
};

// A PubTator document whose offsets are found in the text (ASCII only).
std::string document(const std::string& pmid, const std::string& title, const std::string& abstract,
                     const std::vector<M>& mentions) {
    const std::string text = title + " " + abstract;
    std::string out = pmid + "|t|" + title + "\n" + pmid + "|a|" + abstract + "\n";
    for (const M& m : mentions) {
        std::size_t at = text.find(m.text);
        for (std::size_t i = 0; i < m.occurrence && at != std::string::npos; ++i) at = text.find(m.text, at + 1);
        if (at == std::string::npos) qFatal("fixture mention \"%s\" is not in the text", m.text.c_str());
        out += pmid + "\t" + std::to_string(at) + "\t" + std::to_string(at + m.text.size()) + "\t" + m.text +
               "\tDisease\t" + m.ids + "\n";
    }
    return out + "\n";
}

// What core gives on the project's data, built the CLI's way.
struct CoreRun {
    retrieval::NameDictionary dictionary;
    eval::QuerySet queries;
    eval::EvalResult sparse;  ///< BioSyn's char 1-2 TF-IDF
    eval::EvalResult words;   ///< word unigrams: a second, different linker
};

}  // namespace

class TestEvaluationPanel : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::shared_ptr<const LoadedProject> project_;
    CoreRun core_;

    QString path(const QString& name) const { return dir_.filePath(name); }

    const Corpus& corpus(const std::string& split) const {
        for (const auto& s : project_->splits)
            if (s.split == split) return s.corpus;
        qFatal("no split %s", split.c_str());
    }

    static void compareGroups(const eval::GroupMetrics& got, const eval::GroupMetrics& expected,
                              std::size_t goldDepth) {
        QCOMPARE(got.mentions, expected.mentions);
        QCOMPARE(got.hits, expected.hits);
        QCOMPARE(got.strictHits, expected.strictHits);
        QCOMPARE(got.goldIds, expected.goldIds);
        for (std::size_t k = 1; k <= goldDepth; ++k) QCOMPARE(got.goldHits[k - 1], expected.goldHits[k - 1]);
    }

    // Waits for this slot's result. Called right after the job started, before events run, so
    // that the failure spy made here still sees a failure. An earlier slot's ready signal does
    // not count (it made a failed second job pass as done, and the test then read a null run).
    static void waitForRun(EvaluationPanel& panel, EvaluationPanel::Slot slot, QSignalSpy& ready) {
        QSignalSpy failed(&panel, &EvaluationPanel::runFailed);
        const qsizetype before = ready.count();
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty() || (!panel.isRunning() && ready.count() > before), 60000);
        if (!failed.isEmpty())
            QFAIL(qPrintable(QStringLiteral("the evaluation failed: ") + failed.first().first().toString()));
        QCOMPARE(ready.last().at(0).toInt(), static_cast<int>(slot));
        QVERIFY(panel.run(slot) != nullptr);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        test::writeFile(path(QStringLiteral("kb.txt")).toStdString(), kKb);
        test::writeFile(path(QStringLiteral("train.txt")).toStdString(),
                        document("100", "Huntington disease and breast cancer.",
                                 "HD patients rarely develop tumors or a common cold.",
                                 {{"Huntington disease", "D006816"},
                                  {"breast cancer", "D001943"},
                                  {"HD", "D006816"},
                                  {"tumors", "D009369"},
                                  {"common cold", "D003139"}}));
        test::writeFile(path(QStringLiteral("test.txt")).toStdString(),
                        document("200", "Hirschsprung disease in a child.",
                                 "Congenital megacolon (HD) is not Huntington disease. Ovarian tumours and a cold "
                                 "were seen; hypomania too.",
                                 {{"Hirschsprung disease", "D006627"},
                                  {"Congenital megacolon", "D006627"},
                                  {"HD", "D006627", 0},
                                  {"Huntington disease", "OMIM:143100"},
                                  {"Ovarian tumours", "D010051"},
                                  {"cold", "D003139"},
                                  {"hypomania", "D019964"}}) +
                            document("201", "Breast and ovarian cancer.", "Cold exposure in HD families.",
                                     {{"Breast and ovarian cancer", "D001943|D010051"},
                                      {"Cold exposure", "D003080"},
                                      {"HD", "D006816"}}));
        test::writeFile(path(QStringLiteral("project.json")).toStdString(), R"({
  "format": "linkscope-project-manifest", "version": 1, "name": "Evaluation fixture",
  "knowledgeBase": { "path": "kb.txt", "format": "medic" },
  "corpora": [ { "split": "train", "path": "train.txt", "format": "pubtator" },
               { "split": "test", "path": "test.txt", "format": "pubtator" } ] })");
        project_ = std::make_shared<const LoadedProject>(
            loadProject(readProjectManifest(path(QStringLiteral("project.json")).toStdString())));
        QCOMPARE(evaluableSplits(*project_), std::vector<std::string>{"test"});

        // The CLI's protocol (app/cli/dictionary_setup.cpp) with core alone.
        const kb::KnowledgeBase& kb = *project_->kb;
        eval::QueryOptions queryOptions;
        queryOptions.normalizer = eval::bioSynQueryNormalizer();
        eval::EvalDictionaryBuilder builder;
        builder.addKnowledgeBase(kb);
        const eval::QuerySet train = eval::buildQueries(corpus("train"), kb, queryOptions);
        builder.addMentions(train.queries);
        core_.dictionary = builder.build().entries;
        core_.queries = eval::buildQueries(corpus("test"), kb, queryOptions);
        eval::markHomonymAffected(core_.queries.queries, kb);
        eval::EvalOptions options;
        options.trainingIds = eval::goldIdSet(train.queries);
        const auto chars = retrieval::SparseIndex::build(core_.dictionary, retrieval::TfidfSettings::bioSyn());
        core_.sparse = eval::evaluate(
            core_.queries, core_.dictionary,
            [&](std::span<const std::string> q, std::size_t k) { return chars.search(q, k); }, options);
        const auto words = retrieval::SparseIndex::build(core_.dictionary, retrieval::TfidfSettings::leNguyenWords());
        core_.words = eval::evaluate(
            core_.queries, core_.dictionary,
            [&](std::span<const std::string> q, std::size_t k) { return words.search(q, k); }, options);
        QCOMPARE(core_.sparse.mentions.size(), std::size_t{10});
        // The fixture must hold errors, or the error list tests would test nothing.
        QVERIFY(core_.sparse.all.hits[0] < core_.sparse.all.mentions);
    }

    void sparseEvaluationEqualsCore() {
        EvaluationPanel panel;
        panel.setProject(project_);
        QSignalSpy ready(&panel, &EvaluationPanel::runReady);
        QVERIFY(panel.startSparseEvaluation(QStringLiteral("test"), EvaluationPanel::SlotA));
        QVERIFY(!panel.startSparseEvaluation(QStringLiteral("test"), EvaluationPanel::SlotB));  // one job at a time
        waitForRun(panel, EvaluationPanel::SlotA, ready);
        if (QTest::currentTestFailed()) return;
        const EvaluationRun& run = *panel.run(EvaluationPanel::SlotA);
        const eval::EvalResult& expected = core_.sparse;
        QCOMPARE(run.result.depth, expected.depth);
        compareGroups(run.result.all, expected.all, expected.depth);
        QVERIFY(run.result.seen && run.result.unseen && expected.seen && expected.unseen);
        compareGroups(*run.result.seen, *expected.seen, expected.depth);
        compareGroups(*run.result.unseen, *expected.unseen, expected.depth);
        QVERIFY(run.result.homonymAffected.has_value());
        compareGroups(*run.result.homonymAffected, *expected.homonymAffected, expected.depth);
        QCOMPARE(run.result.byType.size(), expected.byType.size());
        QCOMPARE(run.mentions.size(), expected.mentions.size());
        for (std::size_t i = 0; i < run.mentions.size(); ++i) {
            QCOMPARE(run.mentions[i].rank, expected.mentions[i].rank);
            QCOMPARE(run.mentions[i].document, expected.mentions[i].document);
            QCOMPARE(run.mentions[i].split, std::string("test"));
        }
        // The metrics table lists all, seen, unseen, homonym-affected and not, and one type.
        QCOMPARE(panel.metricsTable()->rowCount(), 6);
        QCOMPARE(panel.metricsTable()->item(0, 2)->text(), QString::number(expected.all.mentions));
        QCOMPARE(panel.metricsTable()->item(0, 3)->text(), QString::number(100.0 * expected.all.accuracy(1), 'f', 2));
        QCOMPARE(panel.recallChart()->series().size(), 1);
    }

    // A trained run evaluated in the dock: a triplet run whose model is a tiny random BERT (so the
    // ranking is arbitrary except where a mention reads exactly as a name: the same input, the
    // same vector, cosine 1), alone and with the kNN datastore.
    void trainedRunEvaluation() {
#ifndef LINKSCOPE_HAVE_TORCH
        EvaluationPanel panel;
        panel.setProject(project_);
        QSignalSpy failed(&panel, &EvaluationPanel::runFailed);
        QVERIFY(
            panel.startRunEvaluation(path(QStringLiteral("no-run")), QStringLiteral("test"), EvaluationPanel::SlotA));
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 30000);
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("LibTorch")));
#else
        const std::filesystem::path run = path(QStringLiteral("runs/tiny-triplet")).toStdString();
        test::writeTinyTripletRun(
            run, {path(QStringLiteral("kb.txt")).toStdString(), path(QStringLiteral("train.txt")).toStdString(),
                  path(QStringLiteral("test.txt")).toStdString()});

        EvaluationPanel panel;
        panel.setProject(project_);
        QSignalSpy ready(&panel, &EvaluationPanel::runReady);
        QSignalSpy failed(&panel, &EvaluationPanel::runFailed);
        QVERIFY(panel.startRunEvaluation(QString::fromStdString(run.string()), QStringLiteral("test"),
                                         EvaluationPanel::SlotA));
        waitForRun(panel, EvaluationPanel::SlotA, ready);
        if (QTest::currentTestFailed()) return;
        QVERIFY(failed.isEmpty());
        const EvaluationRun& alone = *panel.run(EvaluationPanel::SlotA);
        QCOMPARE(alone.name, QStringLiteral("tiny-triplet on test"));
        QCOMPARE(alone.mentions.size(), core_.queries.queries.size());  // the same queries as sparse
        int exactNames = 0;
        for (const EvaluatedMention& mention : alone.mentions)
            if (mention.mention == "Hirschsprung disease" || mention.mention == "Congenital megacolon") {
                ++exactNames;
                QVERIFY2(mention.rank == 1, mention.mention.c_str());
            }
        QCOMPARE(exactNames, 2);
        QVERIFY(panel.startRunEvaluation(QString::fromStdString(run.string()), QStringLiteral("test"),
                                         EvaluationPanel::SlotB, true));
        waitForRun(panel, EvaluationPanel::SlotB, ready);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(panel.run(EvaluationPanel::SlotB)->name, QStringLiteral("tiny-triplet + kNN on test"));
        QCOMPARE(panel.run(EvaluationPanel::SlotB)->mentions.size(), alone.mentions.size());
        // The run listed by the project shows in the button's menu.
        panel.setRunsProvider([run] { return QStringList{QString::fromStdString(run.string())}; });
        auto* button = panel.findChild<QPushButton*>(QStringLiteral("evaluateTrainedRun"));
        QVERIFY(button && button->menu());
        Q_EMIT button->menu()->aboutToShow();
        QCOMPARE(button->menu()->actions().first()->text(), QStringLiteral("tiny-triplet"));
#endif
    }

    void errorListFiltersAndActivates() {
        EvaluationPanel panel;
        panel.setProject(project_);
        QSignalSpy ready(&panel, &EvaluationPanel::runReady);
        QVERIFY(panel.startSparseEvaluation(QStringLiteral("test"), EvaluationPanel::SlotA));
        waitForRun(panel, EvaluationPanel::SlotA, ready);
        if (QTest::currentTestFailed()) return;
        QAbstractItemModelTester modelTester(panel.errorModel(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(panel.errorFilter(),
                                              QAbstractItemModelTester::FailureReportingMode::QtTest);
        const EvaluationRun& run = *panel.run(EvaluationPanel::SlotA);
        QCOMPARE(panel.errorModel()->rowCount(), static_cast<int>(run.mentions.size()));

        // Errors only by default.
        const auto errors =
            std::count_if(run.mentions.begin(), run.mentions.end(), [](const auto& m) { return !m.correct(); });
        QVERIFY(errors > 0);
        QCOMPARE(panel.errorFilter()->rowCount(), static_cast<int>(errors));
        panel.errorFilter()->setShowCorrect(true);
        QCOMPARE(panel.errorFilter()->rowCount(), static_cast<int>(run.mentions.size()));
        panel.errorFilter()->setShowCorrect(false);

        // Each category through the combo: exactly the wrong mentions that carry it.
        int categoriesSeen = 0;
        for (int item = 1; item < panel.categoryFilter()->count(); ++item) {
            panel.categoryFilter()->setCurrentIndex(item);
            const auto category = static_cast<eval::ErrorCategory>(item - 1);
            const auto expected = std::count_if(run.mentions.begin(), run.mentions.end(), [&](const auto& m) {
                return !m.correct() && m.categories.has(category);
            });
            QCOMPARE(panel.errorFilter()->rowCount(), static_cast<int>(expected));
            for (int row = 0; row < panel.errorFilter()->rowCount(); ++row) {
                const QString shown =
                    panel.errorFilter()->index(row, ErrorTableModel::CategoriesColumn).data().toString();
                QVERIFY2(shown.contains(QString::fromUtf8(eval::errorCategoryName(category).data())),
                         qPrintable(shown));
            }
            if (expected > 0) ++categoriesSeen;
        }
        QVERIFY(categoriesSeen >= 2);
        panel.categoryFilter()->setCurrentIndex(0);

        // The hypomania mention: unseen, and no word shared with "mood disorders".
        const auto hypomania = std::find_if(run.mentions.begin(), run.mentions.end(),
                                            [](const auto& m) { return m.mention == "hypomania"; });
        QVERIFY(hypomania != run.mentions.end());
        QVERIFY(hypomania->categories.has(eval::ErrorCategory::Unseen));
        QVERIFY(!hypomania->correct());
        QVERIFY(hypomania->categories.has(eval::ErrorCategory::IncompleteSynset));

        // Text filter, then activation of the row.
        panel.errorFilter()->setFilterFixedString(QStringLiteral("hypomania"));
        QCOMPARE(panel.errorFilter()->rowCount(), 1);
        QSignalSpy activated(&panel, &EvaluationPanel::mentionActivated);
        Q_EMIT panel.errorView()->activated(panel.errorFilter()->index(0, ErrorTableModel::PredictedColumn));
        QCOMPARE(activated.count(), 1);
        const QList<QVariant> args = activated.takeFirst();
        QCOMPARE(args[0].toString(), QStringLiteral("test"));
        QCOMPARE(args[1].toString(), QStringLiteral("200"));
        QCOMPARE(args[2].toInt(), static_cast<int>(hypomania->start));
        QCOMPARE(args[3].toInt(), static_cast<int>(hypomania->end));
        QCOMPARE(args[3].toInt() - args[2].toInt(), 9);
    }

    void perMentionFilesCompareAsCore() {
        const std::filesystem::path fileA = path(QStringLiteral("a.jsonl")).toStdString();
        const std::filesystem::path fileB = path(QStringLiteral("b.jsonl")).toStdString();
        eval::writePerMention(fileA, core_.sparse, core_.queries.queries, core_.dictionary);
        eval::writePerMention(fileB, core_.words, core_.queries.queries, core_.dictionary);

        EvaluationPanel panel;
        panel.setProject(project_);
        QSignalSpy ready(&panel, &EvaluationPanel::runReady);
        QSignalSpy compared(&panel, &EvaluationPanel::comparisonReady);
        QVERIFY(panel.startLoadingFile(QString::fromStdString(fileA.string()), EvaluationPanel::SlotA));
        waitForRun(panel, EvaluationPanel::SlotA, ready);
        if (QTest::currentTestFailed()) return;
        QVERIFY(panel.startLoadingFile(QString::fromStdString(fileB.string()), EvaluationPanel::SlotB));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning() && ready.count() == 2, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(panel.comparison().has_value(), 60000);

        // Metrics from the file: exact for accuracy; recall as far as the saved predictions go.
        const EvaluationRun& a = *panel.run(EvaluationPanel::SlotA);
        QCOMPARE(a.curveDepth, std::size_t{10});
        compareGroups(a.result.all, core_.sparse.all, a.curveDepth);
        compareGroups(*a.result.unseen, *core_.sparse.unseen, a.curveDepth);
        const EvaluationRun& b = *panel.run(EvaluationPanel::SlotB);
        compareGroups(b.result.all, core_.words.all, b.curveDepth);
        QCOMPARE(panel.recallChart()->series().size(), 2);

        // The file's mentions are categorized as the direct evaluation's are.
        const EvaluationRun direct = evaluateProjectSparse(*project_, {});
        QCOMPARE(a.mentions.size(), direct.mentions.size());
        for (std::size_t i = 0; i < direct.mentions.size(); ++i) {
            QCOMPARE(a.mentions[i].split, std::string("test"));
            QCOMPARE(a.mentions[i].mention, direct.mentions[i].mention);
            QCOMPARE(eval::describe(a.mentions[i].categories), eval::describe(direct.mentions[i].categories));
        }

        // McNemar and the bootstrap interval: core's numbers.
        const eval::RunComparison expected = eval::compareRuns(core_.sparse, core_.words, 1, false);
        const eval::RunComparison& got = *panel.comparison();
        QCOMPARE(got.mcnemar.onlyA, expected.mcnemar.onlyA);
        QCOMPARE(got.mcnemar.onlyB, expected.mcnemar.onlyB);
        QCOMPARE(got.mcnemar.bothCorrect, expected.mcnemar.bothCorrect);
        QCOMPARE(got.mcnemar.bothWrong, expected.mcnemar.bothWrong);
        QCOMPARE(got.mcnemar.pValue, expected.mcnemar.pValue);
        QCOMPARE(got.difference.lower, expected.difference.lower);
        QCOMPARE(got.difference.upper, expected.difference.upper);
        QVERIFY(panel.comparisonLabel()->text().contains(QString::number(expected.mcnemar.pValue, 'g', 4)));
        QVERIFY(compared.count() >= 1);
    }

    // The "All runs" page: sparse on test, a listed run folder that holds no model
    // (left out, named), and two per-mention files; the table, the Holm-adjusted matrix and the
    // group rows are core's compareManyRuns on core's own results.
    void allRunsPageComparesEveryRun() {
        const QString fileA = path(QStringLiteral("all-a.jsonl"));
        const QString fileB = path(QStringLiteral("all-b.jsonl"));
        eval::writePerMention(fileA.toStdString(), core_.sparse, core_.queries.queries, core_.dictionary);
        eval::writePerMention(fileB.toStdString(), core_.words, core_.queries.queries, core_.dictionary);
        EvaluationPanel panel;
        panel.setProject(project_);
        const QString missingRun = path(QStringLiteral("runs/not-a-run"));
        panel.setRunsProvider([missingRun] { return QStringList{missingRun}; });
        MultiRunPanel* all = panel.multiRunPanel();
        QVERIFY(all);
        QCOMPARE(all->splitCombo()->currentText(), QStringLiteral("test"));
        all->setFiles({fileA, fileB});
        QSignalSpy ready(all, &MultiRunPanel::comparisonReady);
        QVERIFY(all->startEvaluatingAll(QStringLiteral("test")));
        QVERIFY(!all->startEvaluatingAll(QStringLiteral("test")));  // one job at a time
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 1 && !all->isRunning(), 60000);

        QCOMPARE(all->runs().size(), std::size_t{3});
        QCOMPARE(all->skipped().size(), 1);
        QVERIFY2(all->skipped().first().startsWith(QStringLiteral("not-a-run: ")), qPrintable(all->skipped().first()));
        QVERIFY(all->statusLabel()->text().contains(QStringLiteral("not-a-run")));
        QVERIFY(all->comparison().has_value());
        const eval::MultiComparison& got = *all->comparison();

        // Core on the same results: sparse evaluated directly, then the two files.
        const std::vector<eval::NamedRun> named = {
            {"sparse", &core_.sparse}, {"all-a.jsonl", &core_.sparse}, {"all-b.jsonl", &core_.words}};
        const std::vector<eval::MentionGroup> groups =
            eval::mentionGroups(eval::mentionFacts(core_.queries.queries, core_.sparse));
        const eval::MultiComparison expected = eval::compareManyRuns(named, groups);
        QCOMPARE(got.runs.size(), expected.runs.size());
        for (std::size_t i = 0; i < 3; ++i) {
            QCOMPARE(got.runs[i].correct, expected.runs[i].correct);
            QCOMPARE(got.runs[i].accuracy.lower, expected.runs[i].accuracy.lower);
            QCOMPARE(got.runs[i].accuracy.upper, expected.runs[i].accuracy.upper);
        }
        QCOMPARE(got.pairs.size(), std::size_t{3});
        for (std::size_t p = 0; p < 3; ++p) {
            QCOMPARE(got.pairs[p].mcnemar.pValue, expected.pairs[p].mcnemar.pValue);
            QCOMPARE(got.pairs[p].adjustedP, expected.pairs[p].adjustedP);
        }
        // The sparse run and the sparse file agree on every mention: p = 1, not significant.
        QCOMPARE(got.pair(0, 1).mcnemar.onlyA + got.pair(0, 1).mcnemar.onlyB, std::size_t{0});
        QCOMPARE(got.pair(0, 1).adjustedP, 1.0);
        QCOMPARE(got.groups.size(), expected.groups.size());
        for (std::size_t g = 0; g < groups.size(); ++g) {
            QCOMPARE(got.groups[g].name, expected.groups[g].name);
            QCOMPARE(got.groups[g].correct, expected.groups[g].correct);
        }

        // The tables show it: one row per run, an N x N matrix (symmetric, marked where
        // significant), the groups and then one row per BioSyn error kind.
        QCOMPARE(all->runsTable()->rowCount(), 3);
        QVERIFY(all->runsTable()->item(2, 0)->text().startsWith(QStringLiteral("[3] all-b.jsonl")));
        QCOMPARE(all->runsTable()->item(0, 2)->text(), QString::number(expected.runs[0].correct));
        QCOMPARE(all->matrixTable()->rowCount(), 3);
        QCOMPARE(all->matrixTable()->columnCount(), 3);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                if (i == j) continue;
                const QTableWidgetItem* cell = all->matrixTable()->item(i, j);
                QCOMPARE(cell->data(Qt::UserRole).toDouble(), expected.adjustedP(i, j));
                QCOMPARE(cell->data(Qt::UserRole).toDouble(),
                         all->matrixTable()->item(j, i)->data(Qt::UserRole).toDouble());
                const bool significant = expected.pair(i, j).significant;
                QCOMPARE(cell->data(Qt::UserRole + 1).toBool(), significant);
                QCOMPARE(cell->text().endsWith(QStringLiteral("*")), significant);
                QCOMPARE(cell->font().bold(), significant);
            }
        const int errorKinds = 5;  // contextual entity, hypernym, hyponym, overlapped entity, incomplete synset
        QCOMPARE(all->groupsTable()->rowCount(), static_cast<int>(groups.size()) + errorKinds);
        QCOMPARE(all->groupsTable()->columnCount(), 2 + 3);
        const int incomplete = static_cast<int>(groups.size()) + errorKinds - 1;
        QVERIFY(all->groupsTable()->item(incomplete, 0)->text().contains(QStringLiteral("incomplete synset")));
        const auto& sparseRows = all->runs().front()->mentions;
        const auto incompleteErrors = std::count_if(sparseRows.begin(), sparseRows.end(), [](const auto& m) {
            return !m.correct() && m.categories.has(eval::ErrorCategory::IncompleteSynset);
        });
        QVERIFY(incompleteErrors > 0);  // hypomania
        QCOMPARE(all->groupsTable()->item(incomplete, 2)->text(), QString::number(incompleteErrors));

        // Another cut-off recomputes the comparison without ranking again.
        all->cutoffCombo()->setCurrentIndex(1);  // Acc@5
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 2 && !all->isRunning(), 60000);
        QCOMPARE(all->comparison()->k, std::size_t{5});
        QCOMPARE(all->comparison()->runs[2].correct, static_cast<std::size_t>(core_.words.all.hits[4]));

        // Cancelled at once: no comparison, the page says so.
        QVERIFY(all->startEvaluatingAll(QStringLiteral("test")));
        all->cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!all->isRunning(), 60000);
        // The watcher stops running before its finished signal reaches the page (a queued
        // event): wait for the page's answer rather than one turn of the event loop.
        QTRY_COMPARE_WITH_TIMEOUT(all->statusLabel()->text(), QStringLiteral("Cancelled"), 10000);
        QCOMPARE(ready.count(), 2);
        // An unknown split is refused.
        QVERIFY(!all->startEvaluatingAll(QStringLiteral("nope")));
    }

    void malformedFileFails() {
        const std::filesystem::path bad = path(QStringLiteral("bad.jsonl")).toStdString();
        test::writeFile(bad, "{\"document\":\"200\",\"start\":0,\"end\":5,\"rank\":1,\"strict_rank\":1}\n{truncated\n");
        EvaluationPanel panel;
        panel.setProject(project_);
        QSignalSpy failed(&panel, &EvaluationPanel::runFailed);
        QVERIFY(panel.startLoadingFile(QString::fromStdString(bad.string()), EvaluationPanel::SlotA));
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, 30000);
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("bad.jsonl:2:")),
                 qPrintable(failed.first().first().toString()));
        QVERIFY(panel.run(EvaluationPanel::SlotA) == nullptr);
    }

    void replacingTheProjectDropsTheRunningJob() {
        EvaluationPanel panel;
        panel.setProject(project_);
        QVERIFY(panel.startSparseEvaluation(QStringLiteral("test"), EvaluationPanel::SlotA));
        panel.setProject(project_);  // before the event loop could deliver the result
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), 60000);
        QCoreApplication::processEvents();
        QVERIFY(panel.run(EvaluationPanel::SlotA) == nullptr);
        QSignalSpy ready(&panel, &EvaluationPanel::runReady);
        QVERIFY(panel.startSparseEvaluation(QStringLiteral("test"), EvaluationPanel::SlotA));
        waitForRun(panel, EvaluationPanel::SlotA, ready);
        if (QTest::currentTestFailed()) return;
    }

    void cancellationStopsTheWorker() {
        ProgressSink cancelled;
        cancelled.cancelled = [] { return true; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, evaluateProjectSparse(*project_, {}, cancelled));
        QVERIFY_THROWS_EXCEPTION(Error, evaluateProjectSparse(*project_, {.split = "nope"}));
    }
};

QTEST_MAIN(TestEvaluationPanel)
#include "test_evaluation_panel.moc"
