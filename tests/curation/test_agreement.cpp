// Several curators: Cohen's kappa on textbook tables and its degenerate cases; how
// links compare (sets of canonical ids, reject and NIL as categories, skips not deciding); the
// agreement of two project files on the demo corpora, worked out by hand per split and per type;
// merging one file into the other (both curators kept, repeat-safe, a cancelled merge leaves a
// durable prefix, curator names that clash refused, other manifests refused); disagreements,
// their adjudication, and the export.
#include <QtTest/QtTest>

#include <cmath>

#include "curation/adjudication.h"
#include "curation/agreement.h"
#include "curation/curator_merge.h"
#include "curation/project_export.h"
#include "fixtures.h"
#include "project/loaded_project.h"
#include "project/project_store.h"
#include "project/referenced_corpora.h"

using namespace linkscope;
using namespace linkscope::curation;
using project::Decision;
using project::DecisionKind;
using project::ProjectStore;
namespace fs = std::filesystem;

namespace {

constexpr double kTolerance = 1e-9;  // figures from whole counts: only rounding differs

bool near(std::optional<double> value, double expected) { return value && std::fabs(*value - expected) < kTolerance; }

fs::path demoManifest() { return fs::path(LINKSCOPE_SOURCE_DIR) / "resources" / "demo" / "demo-project.json"; }

Decision decisionOn(std::string split, std::string document, std::size_t start, std::size_t end, std::string text,
                    DecisionKind kind, std::string link, std::string curator) {
    Decision d;
    d.mention = {std::move(split), std::move(document), start, end};
    d.mentionText = std::move(text);
    d.kind = kind;
    d.newLink = std::move(link);
    d.curator = std::move(curator);
    return d;
}

// Ana's and Bob's decisions on the demo corpora. Both decided six mentions and agree on four:
// "HD" as a set of two ids written in another order and spelling, and a rejection, agree too.
// Ana's skip of "depression" decides nothing; Bob alone decided "Parkinson disease".
void recordAna(ProjectStore& store) {
    store.record(
        decisionOn("train", "90000001", 21, 39, "Huntington disease", DecisionKind::Accept, "MESH:D006816", "ana"));
    store.record(
        decisionOn("train", "90000001", 90, 92, "HD", DecisionKind::Correct, "MESH:D006816|MESH:D009069", "ana"));
    store.record(decisionOn("train", "90000001", 110, 136, "neurodegenerative disorder", DecisionKind::Accept,
                            "MESH:D019636", "ana"));
    store.record(decisionOn("train", "90000001", 222, 228, "chorea", DecisionKind::Reject, "", "ana"));
    store.record(decisionOn("train", "90000001", 289, 299, "depression", DecisionKind::Skip, "", "ana"));
    store.record(decisionOn("test", "90000007", 0, 6, "Asthma", DecisionKind::Accept, "MESH:D001249", "ana"));
    store.record(decisionOn("test", "90000007", 137, 141, "COPD", DecisionKind::Nil, "-1", "ana"));
}

void recordBob(ProjectStore& store) {
    store.record(decisionOn("train", "90000001", 21, 39, "Huntington disease", DecisionKind::Accept, "D006816", "bob"));
    store.record(decisionOn("train", "90000001", 90, 92, "HD", DecisionKind::Correct, "D009069|D006816", "bob"));
    store.record(decisionOn("train", "90000001", 110, 136, "neurodegenerative disorder", DecisionKind::Correct,
                            "MESH:D002819", "bob"));
    store.record(decisionOn("train", "90000001", 222, 228, "chorea", DecisionKind::Reject, "", "bob"));
    store.record(
        decisionOn("train", "90000001", 326, 343, "Parkinson disease", DecisionKind::Accept, "MESH:D010300", "bob"));
    store.record(decisionOn("test", "90000007", 0, 6, "Asthma", DecisionKind::Accept, "MESH:D001249", "bob"));
    store.record(decisionOn("test", "90000007", 137, 141, "COPD", DecisionKind::Correct, "MESH:D029424", "bob"));
}

std::vector<SplitCorpus> demoCorpora(const ProjectStore& store) {
    std::vector<Diagnostic> notes;
    const ProjectManifest manifest = store.manifest();
    return readReferencedCorpora(manifest.corpora, notes);
}

// The figures of the two demo curators, worked out by hand (see each block).
void checkDemoReport(const AgreementReport& report) {
    // Overall: 6 both decided, 4 agreed, p_o = 4/6. Every category occurs once per curator and
    // four are shared: p_e = 4/36 = 1/9; kappa = (6/9 - 1/9) / (8/9) = 5/8.
    QCOMPARE(report.overall.both, std::size_t{6});
    QCOMPARE(report.overall.agreed, std::size_t{4});
    QCOMPARE(report.overall.onlyA, std::size_t{0});
    QCOMPARE(report.overall.onlyB, std::size_t{1});
    QVERIFY(near(report.overall.observed, 4.0 / 6.0));
    QVERIFY(near(report.overall.expected, 1.0 / 9.0));
    QVERIFY(near(report.overall.kappa, 5.0 / 8.0));
    // train: 4 both, 3 agreed, p_e = 3/16: kappa = (12/16 - 3/16) / (13/16) = 9/13.
    QCOMPARE(report.perSplit.size(), std::size_t{2});
    QCOMPARE(report.perSplit.at("train").both, std::size_t{4});
    QCOMPARE(report.perSplit.at("train").onlyB, std::size_t{1});
    QVERIFY(near(report.perSplit.at("train").kappa, 9.0 / 13.0));
    // test: 2 both, 1 agreed, p_e = 1/4: kappa = (1/2 - 1/4) / (3/4) = 1/3.
    QCOMPARE(report.perSplit.at("test").both, std::size_t{2});
    QVERIFY(near(report.perSplit.at("test").kappa, 1.0 / 3.0));
    // SpecificDisease: 5 both, 4 agreed, p_e = 4/25: kappa = (20/25 - 4/25) / (21/25) = 16/21.
    // DiseaseClass: the one mention both decided differs, p_e = 0: kappa = 0.
    QCOMPARE(report.perType.size(), std::size_t{2});
    QCOMPARE(report.perType.at("SpecificDisease").both, std::size_t{5});
    QVERIFY(near(report.perType.at("SpecificDisease").kappa, 16.0 / 21.0));
    QCOMPARE(report.perType.at("DiseaseClass").both, std::size_t{1});
    QCOMPARE(report.perType.at("DiseaseClass").agreed, std::size_t{0});
    QVERIFY(near(report.perType.at("DiseaseClass").kappa, 0.0));
}

}  // namespace

class TestAgreement : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;
    int files_ = 0;

    fs::path newFile() { return dir_.path("p" + std::to_string(++files_) + ".linkscope"); }
    ProjectStore demoStore() { return ProjectStore::create(newFile(), readProjectManifest(demoManifest())); }

private Q_SLOTS:
    // Wikipedia's example (20 5 / 10 15): p_o = 0.7, p_e = 0.5, kappa = 0.4; and (45 15 / 25 15):
    // p_o = 0.6, p_e = 0.54, kappa = 0.06 / 0.46.
    void kappaOfTextbookTwoByTwoTables() {
        auto figures = cohensKappa(std::vector<std::vector<std::size_t>>{{20, 5}, {10, 15}});
        QCOMPARE(figures.both, std::size_t{50});
        QCOMPARE(figures.agreed, std::size_t{35});
        QVERIFY(near(figures.observed, 0.7));
        QVERIFY(near(figures.expected, 0.5));
        QVERIFY(near(figures.kappa, 0.4));
        QVERIFY(figures.undefinedReason.empty());
        figures = cohensKappa(std::vector<std::vector<std::size_t>>{{45, 15}, {25, 15}});
        QVERIFY(near(figures.observed, 0.6));
        QVERIFY(near(figures.expected, 0.54));
        QVERIFY(near(figures.kappa, 0.06 / 0.46));
    }

    // 3 x 3 (25 2 3 / 3 20 2 / 2 3 40): p_o = 85/100; row and column sums 30, 25, 45:
    // p_e = 0.09 + 0.0625 + 0.2025 = 0.355; kappa = 0.495 / 0.645.
    void kappaOfAThreeByThreeTable() {
        const auto figures = cohensKappa(std::vector<std::vector<std::size_t>>{{25, 2, 3}, {3, 20, 2}, {2, 3, 40}});
        QVERIFY(near(figures.observed, 0.85));
        QVERIFY(near(figures.expected, 0.355));
        QVERIFY(near(figures.kappa, 0.495 / 0.645));
        QVERIFY_THROWS_EXCEPTION(Error, cohensKappa(std::vector<std::vector<std::size_t>>{{1, 2}, {3}}));
    }

    void degenerateCasesHaveNoKappa() {
        // No mention in common: nothing is defined.
        auto figures = cohensKappa(std::vector<std::pair<std::string, std::string>>{});
        QCOMPARE(figures.both, std::size_t{0});
        QVERIFY(!figures.observed && !figures.expected && !figures.kappa);
        QVERIFY(figures.undefinedReason.find("no mention") != std::string::npos);
        // One and the same category throughout: p_e = 1, p_o = 1, no kappa.
        figures = cohensKappa(
            std::vector<std::pair<std::string, std::string>>{{"MESH:D1", "MESH:D1"}, {"MESH:D1", "MESH:D1"}});
        QVERIFY(near(figures.observed, 1.0));
        QVERIFY(near(figures.expected, 1.0));
        QVERIFY(!figures.kappa);
        QVERIFY(figures.undefinedReason.find("expected agreement is 1") != std::string::npos);
        // Each curator always says one thing, never the other's: p_e = 0, kappa = 0.
        figures = cohensKappa(std::vector<std::pair<std::string, std::string>>{{"a", "b"}, {"a", "b"}});
        QVERIFY(near(figures.kappa, 0.0));
        // Complete agreement over two categories: kappa 1.
        figures = cohensKappa(std::vector<std::pair<std::string, std::string>>{{"a", "a"}, {"b", "b"}});
        QVERIFY(near(figures.kappa, 1.0));
    }

    void linksCompareAsSetsOfCanonicalIds() {
        auto d = decisionOn("train", "1", 0, 2, "HD", DecisionKind::Correct, "D009069|MESH:D006816", "ana");
        QCOMPARE(*agreementCategory(d), std::string("MESH:D006816|MESH:D009069"));
        d.newLink = "MESH:D006816+D009069";  // a conjunction of the same ids: the same entity set
        QCOMPARE(*agreementCategory(d), std::string("MESH:D006816|MESH:D009069"));
        d.newLink = "D006816";
        QCOMPARE(*agreementCategory(d), std::string("MESH:D006816"));  // a part is another category
        d.kind = DecisionKind::Nil;
        d.newLink = "-1";
        QCOMPARE(*agreementCategory(d), std::string(kNilCategory));
        d.kind = DecisionKind::Reject;
        d.newLink.clear();
        QCOMPARE(*agreementCategory(d), std::string(kRejectedCategory));
        d.kind = DecisionKind::Skip;
        QVERIFY(!agreementCategory(d));
        // A link that is no list of ids is an error naming the decision.
        d.kind = DecisionKind::Correct;
        d.newLink = "MESH:D1||";
        d.id = 42;
        try {
            (void)agreementCategory(d);
            QFAIL("a broken link was taken");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("decision 42") != std::string::npos, e.what());
        }
    }

    void skipLeavesTheEarlierDecisionInEffect() {
        std::vector<Decision> done{decisionOn("train", "1", 0, 2, "HD", DecisionKind::Accept, "D1", "ana"),
                                   decisionOn("train", "1", 0, 2, "HD", DecisionKind::Skip, "", "ana"),
                                   decisionOn("train", "1", 5, 7, "MS", DecisionKind::Skip, "", "ana")};
        for (std::size_t i = 0; i < done.size(); ++i) done[i].id = static_cast<std::int64_t>(i + 1);
        const auto categories = categoriesInEffect(done);
        QCOMPARE(categories.size(), std::size_t{1});
        QCOMPARE(categories.begin()->second, std::string("D1"));
    }

    // Two project files of the demo manifest, one per curator.
    void agreementOfTwoProjectFiles() {
        auto a = demoStore();
        auto b = demoStore();
        recordAna(a);
        recordBob(b);
        requireSameManifest(a, b);
        const auto corpora = demoCorpora(a);
        const auto da = a.doneDecisions();
        const auto db = b.doneDecisions();
        checkDemoReport(measureAgreement(categoriesInEffect(da), categoriesInEffect(db), mentionTypesOf(corpora)));
        // Without types every mention is of the unknown type.
        const auto untyped = measureAgreement(categoriesInEffect(da), categoriesInEffect(db));
        QCOMPARE(untyped.perType.size(), std::size_t{1});
        QCOMPARE(untyped.perType.begin()->first, std::string(kUnknownType));
    }

    void filesOfAnotherManifestAreRefused() {
        auto a = demoStore();
        ProjectManifest other = readProjectManifest(demoManifest());
        other.corpora.pop_back();  // no test split
        auto b = ProjectStore::create(newFile(), other);
        try {
            requireSameManifest(a, b);
            QFAIL("files of different manifests were taken as one");
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.find(a.file().string()) != std::string::npos &&
                         message.find(b.file().string()) != std::string::npos,
                     e.what());
            QVERIFY2(message.find("splits differ") != std::string::npos, e.what());
        }
        ProjectManifest otherKb = readProjectManifest(demoManifest());
        otherKb.knowledgeBase.path = otherKb.knowledgeBase.path.parent_path() / "another-kb.txt";
        const auto problem = sameManifestProblem(readProjectManifest(demoManifest()), otherKb);
        QVERIFY(problem && problem->find("knowledge base file") != std::string::npos);
        // Another folder of the same files is the same manifest (a copy on another machine).
        ProjectManifest moved = readProjectManifest(demoManifest());
        for (auto& corpus : moved.corpora) corpus.path = fs::path("/elsewhere") / corpus.path.filename();
        QVERIFY(!sameManifestProblem(readProjectManifest(demoManifest()), moved));
        // A merge refuses them before recording anything.
        recordBob(b);
        QVERIFY_THROWS_EXCEPTION(Error, mergeDecisions(a, b));
        QCOMPARE(a.decisionCount(), std::size_t{0});
    }

    void mergeKeepsBothCuratorsAndRepeatsSafely() {
        auto a = demoStore();
        auto b = demoStore();
        recordAna(a);
        recordBob(b);
        b.record(decisionOn("train", "90000001", 262, 264, "HD", DecisionKind::Accept, "MESH:D006816", "bob"));
        (void)b.undo();  // Bob's undone decision stays in his file
        const auto summary = mergeDecisions(a, b);
        QCOMPARE(summary.imported, std::size_t{7});
        QCOMPARE(summary.alreadyPresent, std::size_t{0});
        QCOMPARE(summary.notInEffect, std::size_t{1});
        QCOMPARE(summary.curators, std::vector<std::string>{"bob"});
        QCOMPARE(summary.openDisagreements, std::size_t{2});
        QCOMPARE(a.decisionCount(), std::size_t{14});
        // Imported as they were: curator, timestamp, kind and link.
        const auto theirs = b.doneDecisions();
        const auto merged = a.doneDecisions();
        QCOMPARE(merged.back().curator, std::string("bob"));
        QCOMPARE(merged.back().timestamp, theirs.back().timestamp);
        QCOMPARE(merged.back().newLink, theirs.back().newLink);
        QVERIFY(merged.back().id > merged.front().id);
        QCOMPARE(curatorsOf(merged), (std::vector<std::string>{"ana", "bob"}));
        // Per curator within the merged file: the same figures as the two files.
        const auto corpora = demoCorpora(a);
        const auto of = [](const std::string& name) { return [name](const Decision& d) { return d.curator == name; }; };
        checkDemoReport(measureAgreement(categoriesInEffect(merged, of("ana")), categoriesInEffect(merged, of("bob")),
                                         mentionTypesOf(corpora)));
        // Again: nothing new.
        const auto again = mergeDecisions(a, b);
        QCOMPARE(again.imported, std::size_t{0});
        QCOMPARE(again.alreadyPresent, std::size_t{7});
        QCOMPARE(a.decisionCount(), std::size_t{14});
        // Bob decided one more since: only that one comes.
        b.record(decisionOn("train", "90000001", 289, 299, "depression", DecisionKind::Accept, "MESH:D003866", "bob"));
        QCOMPARE(mergeDecisions(a, b).imported, std::size_t{1});
        // Undo in the merged file takes the imported decisions back, newest first.
        const auto undone = a.undo();
        QVERIFY(undone && undone->curator == "bob" && undone->mention.start == 289);
        // A file into itself is refused.
        QVERIFY_THROWS_EXCEPTION(Error, mergeDecisions(a, a));
    }

    // With the corpora at hand, a decision of the other file that names no mention of them (here
    // offsets past the document's text) refuses the whole merge, naming the file and the
    // decision, and nothing is recorded; the lookup knows the demo's mentions.
    void mergeRefusesDecisionsOnNoMention() {
        auto a = demoStore();
        auto b = demoStore();
        recordAna(a);
        recordBob(b);
        b.record(decisionOn("train", "90000001", 90000, 90002, "HD", DecisionKind::Accept, "MESH:D006816", "bob"));
        const auto corpora = demoCorpora(a);
        const auto exists = mentionLookup(corpora);
        QVERIFY(exists({"train", "90000001", 90, 92}));
        QVERIFY(!exists({"train", "90000001", 90, 93}));
        QVERIFY(!exists({"nosuchsplit", "90000001", 90, 92}));
        MergeOptions options;
        options.mentionExists = exists;
        try {
            (void)mergeDecisions(a, b, options);
            QFAIL("the merge was not refused");
        } catch (const Error& error) {
            const std::string message = error.what();
            QVERIFY2(message.find(b.file().string()) != std::string::npos, message.c_str());
            QVERIFY2(message.find("offsets 90000-90002") != std::string::npos, message.c_str());
        }
        QCOMPARE(a.decisionCount(), std::size_t{7});
        QVERIFY_THROWS_EXCEPTION(Error, requireDecidedMentionsExist(b, exists));
        requireDecidedMentionsExist(a, exists);  // Ana's are all on mentions of the corpora
        // Unchecked (no corpora at hand), it merges: the option is what guards.
        QCOMPARE(mergeDecisions(a, b).imported, std::size_t{8});
    }

    // Cancelled before its fourth decision: the merge is one transaction, so nothing of it is
    // in the file (its redo stack kept too), and a second merge imports everything.
    void cancelledMergeLeavesNothing() {
        auto a = demoStore();
        auto b = demoStore();
        recordAna(a);
        (void)a.undo();
        recordBob(b);
        int asked = 0;
        ProgressSink progress;
        progress.cancelled = [&asked] { return ++asked > 3; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, mergeDecisions(a, b, {}, progress));
        QCOMPARE(asked, 4);
        QCOMPARE(a.decisionCount(), std::size_t{7});
        const auto reopened = ProjectStore::open(a.file());
        QCOMPARE(reopened.decisionCount(), std::size_t{7});
        QVERIFY(reopened.canRedo());
        const auto rest = mergeDecisions(a, b);
        QCOMPARE(rest.imported, std::size_t{7});
        QCOMPARE(rest.alreadyPresent, std::size_t{0});
        QVERIFY(!a.canRedo());
    }

    void curatorNamesInBothFilesAreRefused() {
        auto a = demoStore();
        auto c = demoStore();
        recordAna(a);
        recordAna(c);  // another "ana" (other timestamps): not the same decisions
        const auto before = a.decisionCount();
        try {
            (void)mergeDecisions(a, c);
            QFAIL("two curators of one name were merged");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("curator \"ana\"") != std::string::npos, e.what());
        }
        QCOMPARE(a.decisionCount(), before);
        // Imported under another name, they merge.
        const auto summary = mergeDecisions(a, c, {"ana-2"});
        QCOMPARE(summary.imported, std::size_t{7});
        QCOMPARE(curatorsOf(a.doneDecisions()), (std::vector<std::string>{"ana", "ana-2"}));
        QCOMPARE(summary.openDisagreements, std::size_t{0});
    }

    void adjudicationSettlesADisagreementAndIsExported() {
        auto a = demoStore();
        auto b = demoStore();
        recordAna(a);
        recordBob(b);
        (void)mergeDecisions(a, b);
        auto disagreements = findDisagreements(a.doneDecisions(), "ana", "bob");
        QCOMPARE(disagreements.size(), std::size_t{2});
        // Mention order: test before train (split names sort so).
        QCOMPARE(disagreements[0].mention.split, std::string("test"));
        QCOMPARE(disagreements[0].mentionText, std::string("COPD"));
        QCOMPARE(disagreements[0].categories.at("ana"), std::string(kNilCategory));
        QCOMPARE(disagreements[0].categories.at("bob"), std::string("MESH:D029424"));
        QCOMPARE(disagreements[1].mention.start, std::size_t{110});
        QVERIFY(!disagreements[1].settled());
        // The adjudicator takes Ana's link on "neurodegenerative disorder".
        QCOMPARE(adjudicatorName("carol"), std::string("carol (adjudicator)"));
        QCOMPARE(adjudicatorName("carol (adjudicator)"), std::string("carol (adjudicator)"));
        a.record(decisionOn("train", "90000001", 110, 136, "neurodegenerative disorder", DecisionKind::Correct,
                            "MESH:D019636", adjudicatorName("carol")));
        disagreements = findDisagreements(a.doneDecisions(), "ana", "bob");
        QCOMPARE(disagreements.size(), std::size_t{2});  // still a disagreement of theirs, now settled
        QVERIFY(disagreements[1].settled());
        QCOMPARE(disagreements[1].adjudication->newLink, std::string("MESH:D019636"));
        QCOMPARE(openDisagreements(a.doneDecisions()), std::size_t{1});
        QCOMPARE(curatorsOf(a.doneDecisions()),
                 (std::vector<std::string>{"ana", "bob"}));  // adjudicators are not curators

        // The export writes the adjudicated link (short form, as the corpus spells ids) and notes
        // the disagreement still open.
        const auto out = dir_.path("adjudicated.txt");
        ExportOptions options;
        options.format = ExportFormat::PubTator;
        options.out = out;
        options.splits = {"train"};
        const auto report = exportProject(exportInputOf(a), options);
        const std::string text = test::readFile(out);
        QVERIFY2(
            text.find("90000001\t110\t136\tneurodegenerative disorder\tDiseaseClass\tD019636\n") != std::string::npos,
            text.c_str());
        bool noted = false;
        for (const auto& note : report.notes) noted = noted || note.find("1 disagreement(s)") != std::string::npos;
        QVERIFY(noted);

        // Bob decides again after the adjudication: it is open again.
        a.record(decisionOn("train", "90000001", 110, 136, "neurodegenerative disorder", DecisionKind::Correct,
                            "MESH:D009410", "bob"));
        QVERIFY(!findDisagreements(a.doneDecisions(), "ana", "bob")[1].settled());
        QCOMPARE(openDisagreements(a.doneDecisions()), std::size_t{2});
    }
};

QTEST_GUILESS_MAIN(TestAgreement)
#include "test_agreement.moc"
