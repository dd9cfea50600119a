// The linking difficulty profile: each mention in one class against the KB's names, the
// properties that cut across them, and a run's Acc@1 per class from its per-mention outcomes.
#include <QtTest/QtTest>

#include "corpus/corpus.h"
#include "corpus/pubtator_reader.h"
#include "eval/evaluate.h"
#include "eval/linking_difficulty.h"
#include "eval_fixtures.h"
#include "kb/dictionary_loader.h"
#include "test_data.h"

using namespace linkscope;
using namespace linkscope::eval;

namespace {

// "Cold" names two concepts; "Nephrotoxicity" is a KB name and a word of drug harm.
constexpr std::string_view kKb =
    "D000001||Alpha Disease|Alpha Syndrome\n"
    "D000002||Beta Disease|Cold\n"
    "D000003||Gamma Disease|Cold\n"
    "D000004||Delta Disease|Nephrotoxicity\n";

const DifficultyGroup& group(const std::vector<DifficultyGroup>& groups, const std::string& name) {
    for (const auto& g : groups)
        if (g.name == name) return g;
    qFatal("no group \"%s\"", name.c_str());
}

const DifficultyGroup& ofClass(const LinkingDifficulty& d, DifficultyClass c) {
    return d.classes[static_cast<std::size_t>(c)];
}

MentionOutcome outcome(std::size_t start, std::size_t end, std::size_t rank) {
    MentionOutcome m;
    m.document = "7";
    m.start = start;
    m.end = end;
    m.rank = rank;
    return m;
}

}  // namespace

class TestLinkingDifficulty : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    kb::KnowledgeBase kb_;
    Corpus corpus_;

    std::filesystem::path file(const char* name) const {
        return std::filesystem::path(dir_.path().toStdString()) / name;
    }
    DifficultyOptions diseases() const {
        DifficultyOptions options;
        options.queries.types = {"Disease"};
        options.chemicalNames = {"Lithium", "Li"};
        return options;
    }

private Q_SLOTS:
    void initTestCase() {
        test::writeFile(file("kb.txt"), kKb);
        kb_ = kb::loadDictionary(file("kb.txt")).kb;
        test::writeFile(file("corpus.txt"),
                        test::pubTatorDocument("7",
                                               "Alpha disease, cold, Beta disease, alpha ache, alpha and beta "
                                               "disease, foo, omega, lithium tremor, Li ache, Nephrotoxicity.",
                                               "Lithium.",
                                               {{"Alpha disease", "Disease", "D000001"},
                                                {"cold", "Disease", "D000002"},
                                                {"Beta disease", "Disease", "D000003"},
                                                {"alpha ache", "Disease", "D000001"},
                                                {"alpha and beta disease", "Disease", "D000001|D000002"},
                                                {"foo", "Disease", "-1"},
                                                {"omega", "Disease", "D999999"},
                                                {"lithium tremor", "Disease", "D000001"},
                                                {"Li ache", "Disease", "D000001"},
                                                {"Nephrotoxicity", "Disease", "D000004"},
                                                {"Lithium", "Chemical", "D008094"}}));
        corpus_ = readPubTator(file("corpus.txt"));
    }

    void everyMentionIsInOneClass() {
        const LinkingDifficulty d = profileLinkingDifficulty(corpus_, kb_, diseases());
        QCOMPARE(d.mentions, std::size_t{10});
        QCOMPARE(ofClass(d, DifficultyClass::CuiLess).mentions, std::size_t{1});
        QCOMPARE(ofClass(d, DifficultyClass::UnknownId).mentions, std::size_t{1});
        QCOMPARE(ofClass(d, DifficultyClass::Composite).mentions, std::size_t{1});
        // "Alpha disease" and "Nephrotoxicity" (case and punctuation are normalized away).
        QCOMPARE(ofClass(d, DifficultyClass::GoldName).mentions, std::size_t{2});
        // "cold": a name of its gold concept D000002 and of D000003.
        QCOMPARE(ofClass(d, DifficultyClass::SharedName).mentions, std::size_t{1});
        // "Beta disease" annotated D000003: the name is D000002's only.
        QCOMPARE(ofClass(d, DifficultyClass::OtherName).mentions, std::size_t{1});
        QCOMPARE(ofClass(d, DifficultyClass::NoKbName).mentions, std::size_t{3});
        std::size_t sum = 0;
        for (const auto& g : d.classes) sum += g.mentions;
        QCOMPARE(sum, d.mentions);
        QVERIFY(!d.hasOutcomes);
    }

    void propertiesCutAcrossClasses() {
        const LinkingDifficulty d = profileLinkingDifficulty(corpus_, kb_, diseases());
        // "lithium tremor" names a chemical, "Nephrotoxicity" is drug harm; "Li" is too short.
        QCOMPARE(group(d.properties, "chemical-adjacent").mentions, std::size_t{2});
        QCOMPARE(group(d.properties, "abbreviation expanded").mentions, std::size_t{0});
        QCOMPARE(group(d.properties, "1 word").mentions, std::size_t{3});  // cold, omega, Nephrotoxicity
        QCOMPARE(group(d.properties, "2 words").mentions, std::size_t{5});
        QCOMPARE(group(d.properties, "3 words").mentions, std::size_t{0});
        QCOMPARE(group(d.properties, "4+ words").mentions, std::size_t{1});
        QCOMPARE(group(d.properties, "2 words").words, std::size_t{10});
    }

    void withoutChemicalNamesOnlyDrugHarmCounts() {
        DifficultyOptions options = diseases();
        options.chemicalNames.clear();
        const LinkingDifficulty d = profileLinkingDifficulty(corpus_, kb_, options);
        QCOMPARE(group(d.properties, "chemical-adjacent").mentions, std::size_t{1});
    }

    void everyTypeWhenNoneIsSelected() {
        DifficultyOptions options = diseases();
        options.queries.types.clear();
        const LinkingDifficulty d = profileLinkingDifficulty(corpus_, kb_, options);
        QCOMPARE(d.mentions, std::size_t{11});
        // The Chemical mention's id is not a MEDIC concept.
        QCOMPARE(ofClass(d, DifficultyClass::UnknownId).mentions, std::size_t{2});
    }

    void outcomesGiveAccuracyPerClass() {
        EvalResult run;
        run.mentions = {outcome(0, 13, 1),      // Alpha disease: right
                        outcome(15, 19, 1),     // cold: right
                        outcome(21, 33, 2),     // Beta disease: second
                        outcome(35, 45, 1),     // alpha ache: right
                        outcome(108, 122, 0),   // Nephrotoxicity: not found
                        outcome(500, 510, 1)};  // no such mention
        run.mentions[0].seen = true;
        run.mentions[2].seen = false;
        DifficultyOptions options = diseases();
        options.outcomes = &run;
        const std::string text = corpus_.documents().front().title;
        QCOMPARE(text.substr(108, 14), std::string("Nephrotoxicity"));
        const LinkingDifficulty d = profileLinkingDifficulty(corpus_, kb_, options);
        QVERIFY(d.hasOutcomes);
        QCOMPARE(d.outcomes, std::size_t{6});
        QCOMPARE(d.outcomesUnmatched, std::size_t{1});
        const auto& gold = ofClass(d, DifficultyClass::GoldName);
        QCOMPARE(gold.withOutcome, std::size_t{2});
        QCOMPARE(gold.correctAt1, std::size_t{1});
        QCOMPARE(ofClass(d, DifficultyClass::SharedName).correctAt1, std::size_t{1});
        QCOMPARE(ofClass(d, DifficultyClass::OtherName).withOutcome, std::size_t{1});
        QCOMPARE(ofClass(d, DifficultyClass::OtherName).correctAt1, std::size_t{0});
        QCOMPARE(ofClass(d, DifficultyClass::NoKbName).withOutcome, std::size_t{1});
        QCOMPARE(ofClass(d, DifficultyClass::Composite).withOutcome, std::size_t{0});
        QCOMPARE(group(d.properties, "chemical-adjacent").withOutcome, std::size_t{1});
        QCOMPARE(group(d.properties, "chemical-adjacent").correctAt1, std::size_t{0});
        QCOMPARE(group(d.properties, "seen in training").correctAt1, std::size_t{1});
        QCOMPARE(group(d.properties, "unseen in training").withOutcome, std::size_t{1});
        QCOMPARE(group(d.properties, "unseen in training").distinctWrongTexts, std::size_t{1});
        QCOMPARE(d.distinctWrongTexts, std::size_t{2});  // "beta disease", "nephrotoxicity"
    }
    void repeatedStringsAreCountedOnce() {
        const LinkingDifficulty d = profileLinkingDifficulty(corpus_, kb_, diseases());
        // "alpha ache", "lithium tremor", "li ache"; "alpha disease" and "nephrotoxicity".
        QCOMPARE(ofClass(d, DifficultyClass::NoKbName).distinctTexts, std::size_t{3});
        QCOMPARE(ofClass(d, DifficultyClass::GoldName).distinctTexts, std::size_t{2});
        QCOMPARE(ofClass(d, DifficultyClass::GoldName).distinctWrongTexts, std::size_t{0});
        QCOMPARE(d.distinctTexts, std::size_t{9});  // every mention with a concept, once
    }
};

QTEST_GUILESS_MAIN(TestLinkingDifficulty)
#include "test_linking_difficulty.moc"
