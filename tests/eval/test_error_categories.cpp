// Error categories of one linked mention (eval/error_categories.h), on hand-made cases that
// follow the examples of BioSyn's Table 5, against a small MEDIC-format KB.
#include <QtTest/QtTest>

#include <unordered_set>

#include "eval/error_categories.h"
#include "fixtures.h"
#include "kb/knowledge_base.h"
#include "project/loaded_project.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using eval::ErrorCategory;

namespace {

// Gold entities of Table 5's examples, with a homonym ("Cold") and a short form ("SCA1").
constexpr std::string_view kKb =
    "D019964||Mood Disorders|Affective Disorders\n"
    "D006996||Hypodermyiasis\n"
    "D044483||Polyps, Adenomatous|Adenomatous Polyps\n"
    "D018221||Desmoids|Aggressive Fibromatosis\n"
    "C537866||Campomelia Cumming Type\n"
    "D015835||Eye Abnormalities\n"
    "D003139||Common Cold|Cold\n"
    "D003080||Cold Temperature|Cold\n"
    "C536092||Spinocerebellar Ataxia 1|SCA1\n";

struct Case {
    std::string mention;
    std::vector<std::string> gold;
    std::string predictedName;
    std::vector<std::string> predictedIds;
    bool correct = false;
    std::vector<std::string> shortForms{};
    bool expanded = false;
};

}  // namespace

class TestErrorCategories : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;
    kb::KnowledgeBase kb_;
    std::unordered_set<std::string> training_{"MESH:D019964", "MESH:D003139"};

    eval::ErrorCategories categorize(const Case& c, bool withKb = true) const {
        eval::MentionOutcomeFacts facts;
        facts.mention = c.mention;
        facts.goldIds = c.gold;
        facts.predictedName = c.predictedName;
        facts.predictedIds = c.predictedIds;
        facts.correct = c.correct;
        facts.documentShortForms = c.shortForms;
        facts.abbreviationExpanded = c.expanded;
        facts.trainingIds = &training_;
        return eval::categorizeMention(facts, withKb ? &kb_ : nullptr);
    }
    static eval::ErrorCategories setOf(std::initializer_list<ErrorCategory> categories) {
        eval::ErrorCategories set;
        for (const ErrorCategory c : categories) set.add(c);
        return set;
    }

private Q_SLOTS:
    void initTestCase() {
        std::vector<Diagnostic> diagnostics;
        kb_ = loadKnowledgeBase({dir_.write("kb.txt", kKb), KbFormat::Medic, {}, {}, {}, {}}, diagnostics);
        QVERIFY(diagnostics.empty());
        QVERIFY(kb_.findEntity("MESH:D019964").has_value());
    }

    void incompleteSynset() {
        // hypomania -> hypodermyiasis, gold mood disorders: no word in common with any gold name.
        const auto got = categorize({"hypomania", {"MESH:D019964"}, "hypodermyiasis", {"MESH:D006996"}});
        QCOMPARE(eval::describe(got), std::string("incomplete synset"));
        QCOMPARE(got, setOf({ErrorCategory::IncompleteSynset}));
    }
    void contextualEntity() {
        // The predicted name is the mention itself (case and punctuation aside), another concept.
        const auto got = categorize({"colorectal adenomas", {"MESH:D044483"}, "Colorectal-Adenomas", {"MESH:D000236"}});
        QVERIFY(got.has(ErrorCategory::ContextualEntity));
        QVERIFY(!got.has(ErrorCategory::OverlappedEntity));  // equal is not "overlapping"
        QVERIFY(got.has(ErrorCategory::Unseen));
        QVERIFY(got.has(ErrorCategory::IncompleteSynset));  // shares no word with the gold names
    }
    void overlappedEntity() {
        const auto got = categorize({"desmoid tumors", {"MESH:D018221"}, "desmoid tumor", {"MESH:D000001"}});
        QVERIFY(got.has(ErrorCategory::OverlappedEntity));
        QVERIFY(!got.has(ErrorCategory::ContextualEntity));
    }
    void hypernymAndHyponym() {
        // campomelia vs gold "Campomelia Cumming Type": the mention is the more general one.
        const auto hyper = categorize({"campomelia", {"MESH:C537866"}, "campomelic syndrome", {"MESH:C000002"}});
        QVERIFY(hyper.has(ErrorCategory::Hypernym));
        QVERIFY(!hyper.has(ErrorCategory::Hyponym));
        QVERIFY(!hyper.has(ErrorCategory::IncompleteSynset));
        // eye movement abnormalities vs gold "Eye Abnormalities": the mention is more specific.
        const auto hypo =
            categorize({"eye movement abnormalities", {"MESH:D015835"}, "eye movement disorder", {"MESH:D000003"}});
        QVERIFY(hypo.has(ErrorCategory::Hyponym));
        QVERIFY(!hypo.has(ErrorCategory::Hypernym));
        QVERIFY(hypo.has(ErrorCategory::OverlappedEntity));
    }
    void errorKindsOnlyOnWrongPredictions() {
        Case c{"campomelia", {"MESH:C537866"}, "campomelia cumming type", {"MESH:C537866"}, true};
        const auto got = categorize(c);
        for (const ErrorCategory category : got.list()) QVERIFY(!eval::isBioSynErrorKind(category));
        QVERIFY(got.has(ErrorCategory::Unseen));
        // No prediction at all: nothing to compare with, so no Table 5 kind either.
        c.correct = false;
        c.predictedIds.clear();
        QVERIFY(!categorize(c).has(ErrorCategory::Hypernym));
    }
    void withoutKbTheGoldNameKindsAreLeftOut() {
        const auto got = categorize({"campomelia", {"MESH:C537866"}, "campomelic syndrome", {"MESH:C000002"}}, false);
        QVERIFY(!got.has(ErrorCategory::Hypernym));
        QVERIFY(!got.has(ErrorCategory::IncompleteSynset));
        QVERIFY(got.has(ErrorCategory::Unseen));  // from the training ids, not the KB
    }
    void homonyms() {
        // The mention is a KB name of two entities.
        auto got = categorize({"Cold", {"MESH:D003139"}, "cold", {"MESH:D003139"}, true});
        QCOMPARE(got, setOf({ErrorCategory::Homonym}));  // seen, correct
        // The prediction names two entities (an unresolved dictionary entry).
        got = categorize({"common colds", {"MESH:D003139"}, "cold", {"MESH:D003139", "MESH:D003080"}, true});
        QCOMPARE(got, setOf({ErrorCategory::Homonym}));
        got = categorize({"a chill", {"MESH:D003139"}, "chill", {"MESH:D003080"}});
        QVERIFY(!got.has(ErrorCategory::Homonym));
    }
    void compositeAndUnseen() {
        auto got = categorize(
            {"mood and eye disorders", {"MESH:D019964", "MESH:D015835"}, "mood disorders", {"MESH:D019964"}});
        QVERIFY(got.has(ErrorCategory::Composite));
        QVERIFY(got.has(ErrorCategory::Unseen));  // one of the two gold ids never trained on
        got = categorize({"mood disorder", {"MESH:D019964"}, "mood disorders", {"MESH:D019964"}, true});
        QVERIFY(got.empty());
        // A recorded seen flag stands in for the training ids.
        eval::MentionOutcomeFacts facts;
        facts.mention = "x";
        facts.seen = false;
        QVERIFY(eval::categorizeMention(facts, nullptr).has(ErrorCategory::Unseen));
        facts.seen = std::nullopt;
        QVERIFY(!eval::categorizeMention(facts, nullptr).has(ErrorCategory::Unseen));
    }
    void abbreviations() {
        // Shaped like a short form.
        QVERIFY(categorize({"SCA1", {"MESH:C536092"}, "oca1", {"MESH:C000004"}}).has(ErrorCategory::Abbreviation));
        // Defined in the document (lower case would not look like one).
        Case defined{"sca", {"MESH:C536092"}, "oca", {"MESH:C000004"}, false, {"sca"}};
        QVERIFY(categorize(defined).has(ErrorCategory::Abbreviation));
        defined.shortForms.clear();
        QVERIFY(!categorize(defined).has(ErrorCategory::Abbreviation));
        defined.expanded = true;
        QVERIFY(categorize(defined).has(ErrorCategory::Abbreviation));
        QVERIFY(eval::looksLikeShortForm("HD"));
        QVERIFY(eval::looksLikeShortForm("IgA"));
        QVERIFY(eval::looksLikeShortForm("BRCA1"));
        QVERIFY(!eval::looksLikeShortForm("H"));
        QVERIFY(!eval::looksLikeShortForm("Cancer"));
        QVERIFY(!eval::looksLikeShortForm("HD patients"));
        QVERIFY(!eval::looksLikeShortForm("ABCDEFGHIJK"));
        QVERIFY(!eval::looksLikeShortForm("1234"));
    }
    void wordsAndNames() {
        QCOMPARE(eval::comparisonWords("Huntington's  Disease-\xC3\x89tat"),
                 (std::vector<std::string>{"huntington", "s", "disease", "\xC3\xA9tat"}));
        QVERIFY(eval::comparisonWords(" -- ").empty());
        QVERIFY_THROWS_EXCEPTION(Error, eval::comparisonWords("bad \xff byte"));
        QVERIFY(!eval::looksLikeShortForm("\xff\xfe"));
        QCOMPARE(eval::describe(setOf({ErrorCategory::Hyponym, ErrorCategory::Unseen})),
                 std::string("unseen, hyponym"));
        QCOMPARE(eval::ErrorCategories::fromBits(0xFFFFFFFFu).list().size(), eval::kErrorCategoryCount);
        for (std::size_t i = 0; i < eval::kErrorCategoryCount; ++i)
            QVERIFY(eval::errorCategoryName(static_cast<ErrorCategory>(i)) != "?");
    }
};

QTEST_APPLESS_MAIN(TestErrorCategories)
#include "test_error_categories.moc"
