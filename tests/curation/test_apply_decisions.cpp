// Applying curation decisions to a corpus: without decisions the PubTator export is the input
// byte for byte; with them it differs in exactly the lines of the mentions whose link changed
// (accept of the same link, skip and other splits change nothing; the latest decision wins;
// reject gives an empty id column, nil "-1"), the corrected corpus goes through BioC and brat and
// back, and decisions that name no mention are an error listing every one of them.
#include <vector>

#include "../corpus/export_fixtures.h"
#include "corpus/bioc_reader.h"
#include "corpus/bioc_writer.h"
#include "corpus/brat_reader.h"
#include "corpus/brat_writer.h"
#include "corpus/pubtator_reader.h"
#include "corpus/pubtator_writer.h"
#include "curation/apply_decisions.h"

using namespace linkscope;
using project::Decision;
using project::DecisionKind;
using project::DecisionState;

namespace {

// NCBI and BC5CDR habits: a leading blank line, a stray space in an id column, trailing TABs
// (empty 7th columns), an individual-mention column, a CID line and a closing blank line.
constexpr std::string_view kInput =
    "\n"
    "100|t|BRCA1 mutations cause breast cancer.\n"
    "100|a|Ovarian cancer and breast cancer share risk factors.\n"
    "100\t22\t35\tbreast cancer\tSpecificDisease\tD001943\n"
    "100\t37\t51\tOvarian cancer\tSpecificDisease\t D010051\n"
    "100\t37\t69\tOvarian cancer and breast cancer\tCompositeMention\tD010051|D001943\n"
    "\n"
    "200|t|Naloxone reverses the antihypertensive effect of clonidine.\n"
    "200|a|In rats, ocular and auditory toxicity followed nalozone.\n"
    "200\t0\t8\tNaloxone\tChemical\tD009270\t\n"
    "200\t22\t38\tantihypertensive\tDisease\tD002544|-1\t\n"
    "200\t69\t97\tocular and auditory toxicity\tDisease\tD014786|D006311\tocular toxicity|auditory toxicity\n"
    "200\t107\t115\tnalozone\tChemical\t-1\n"
    "200\tCID\tD009270\tD006973\n"
    "\n";

Decision decision(std::int64_t id, std::string split, std::string document, std::size_t start, std::size_t end,
                  std::string text, DecisionKind kind, std::string newLink) {
    Decision d;
    d.id = id;
    d.mention = {std::move(split), std::move(document), start, end};
    d.mentionText = std::move(text);
    d.kind = kind;
    d.newLink = std::move(newLink);
    d.curator = "test";
    d.timestamp = "2026-11-22T07:30:12.123Z";
    return d;
}

std::vector<Decision> sampleDecisions() {
    return {
        decision(1, "train", "100", 22, 35, "breast cancer", DecisionKind::Accept, "MESH:D001943"),  // the same link
        decision(2, "train", "100", 37, 51, "Ovarian cancer", DecisionKind::Correct, "MESH:D010051|OMIM:167000"),
        decision(3, "train", "200", 0, 8, "Naloxone", DecisionKind::Nil, "-1"),
        decision(4, "train", "200", 107, 115, "nalozone", DecisionKind::Reject, ""),
        decision(5, "train", "200", 22, 38, "antihypertensive", DecisionKind::Skip, ""),
        // Recorded later, listed first: the latest (id 7) wins over id 6.
        decision(7, "train", "200", 69, 97, "ocular and auditory toxicity", DecisionKind::Correct,
                 "MESH:D014786+MESH:D006311"),
        decision(6, "train", "200", 69, 97, "ocular and auditory toxicity", DecisionKind::Correct, "MESH:D006311"),
        decision(8, "dev", "100", 22, 35, "breast cancer", DecisionKind::Correct, "MESH:D000001"),
    };
}

std::vector<std::string> linesOf(std::string_view text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find('\n', start);
        lines.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

}  // namespace

class TestApplyDecisions : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    Corpus input() { return readPubTator(dir_.write("train.txt", kInput)); }

private Q_SLOTS:
    void withoutDecisionsTheExportIsTheInput() {
        curation::ApplySummary summary;
        const Corpus exported = curation::applyDecisions(input(), "train", {}, &summary);
        QCOMPARE(formatPubTator(exported), std::string(kInput));
        QCOMPARE(summary.decisions, std::size_t{0});
        QCOMPARE(summary.changedMentions, std::size_t{0});
    }

    void theDiffIsExactlyTheChangedLines() {
        const auto decisions = sampleDecisions();
        curation::ApplySummary summary;
        const Corpus exported = curation::applyDecisions(input(), "train", decisions, &summary);
        QCOMPARE(summary.decisions, std::size_t{7});
        QCOMPARE(summary.otherSplits, std::size_t{1});
        QCOMPARE(summary.changedMentions, std::size_t{4});
        QCOMPARE(summary.unchangedMentions, std::size_t{2});  // the accept of the same link, the skip

        const auto before = linesOf(kInput);
        const auto after = linesOf(formatPubTator(exported));
        QCOMPARE(after.size(), before.size());
        const std::map<std::size_t, std::string> changed{
            {4, "100\t37\t51\tOvarian cancer\tSpecificDisease\tD010051|OMIM:167000"},
            {9, "200\t0\t8\tNaloxone\tChemical\t-1\t"},
            {11,
             "200\t69\t97\tocular and auditory toxicity\tDisease\tD014786+D006311\tocular toxicity|auditory toxicity"},
            {12, "200\t107\t115\tnalozone\tChemical\t"},
        };
        for (std::size_t i = 0; i < before.size(); ++i) {
            const auto it = changed.find(i);
            const std::string& expected = it == changed.end() ? before[i] : it->second;
            QVERIFY2(after[i] == expected, ("line " + std::to_string(i + 1) + ": " + after[i]).c_str());
            if (it != changed.end()) QVERIFY(after[i] != before[i]);
        }
        // The input corpus is not touched.
        QCOMPARE(formatPubTator(input()), std::string(kInput));
    }

    void correctedFileReadsBack() {
        const auto decisions = sampleDecisions();
        const Corpus exported = curation::applyDecisions(input(), "train", decisions);
        const auto file = dir_.path("corrected.txt");
        writePubTator(exported, file);
        const Corpus back = readPubTator(file);
        const Document& chem = *back.find("200");
        QVERIFY(chem.mentions[0].ids.cuiLess);  // nil: CUI-less "-1"
        QVERIFY(!isUnlinked(chem.mentions[0]));
        QVERIFY(isUnlinked(chem.mentions[3]));  // reject: unlinked, empty column
        QCOMPARE(chem.mentions[2].ids.join, IdJoin::Conjunction);
        QCOMPARE(back.find("100")->mentions[1].ids.ids, (std::vector<std::string>{"MESH:D010051", "OMIM:167000"}));
        const auto difference = test::annotationDifference(exported, back);
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void correctedCorpusThroughBioCAndBrat() {
        const auto decisions = sampleDecisions();
        const Corpus exported = curation::applyDecisions(input(), "train", decisions);
        const auto xml = dir_.path("corrected.xml");
        writeBioC(exported, xml);
        auto difference = test::annotationDifference(exported, readBioC(xml));
        QVERIFY2(difference.empty(), difference.c_str());
        const auto folder = dir_.path("corrected-brat");
        writeBrat(exported, folder);
        difference =
            test::annotationDifference(exported, readBrat(folder), {.relations = false, .individualMentions = false});
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void decisionsThatNameNoMentionAreListed() {
        auto decisions = sampleDecisions();
        decisions.push_back(decision(20, "train", "999", 0, 5, "BRCA1", DecisionKind::Accept, "MESH:D1"));
        decisions.push_back(decision(21, "train", "100", 1, 2, "R", DecisionKind::Accept, "MESH:D1"));
        decisions.push_back(decision(22, "train", "100", 22, 35, "breast cancers", DecisionKind::Accept, "MESH:D1"));
        decisions.push_back(decision(23, "train", "100", 37, 69, "Ovarian cancer and breast cancer",
                                     DecisionKind::Correct, "MESH:D1|MESH:D2+MESH:D3"));
        Decision undone = decision(24, "train", "100", 22, 35, "breast cancer", DecisionKind::Accept, "MESH:D1");
        undone.state = DecisionState::Undone;
        decisions.push_back(undone);
        try {
            (void)curation::applyDecisions(input(), "train", decisions);
            QFAIL("expected an Error");
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.starts_with("5 curation decisions cannot be applied to split \"train\""), e.what());
            QVERIFY2(message.find("decision 20 (train document 999") != std::string::npos &&
                         message.find("no document 999") != std::string::npos,
                     e.what());
            QVERIFY2(message.find("decision 21 ") != std::string::npos &&
                         message.find("no mention at these offsets") != std::string::npos,
                     e.what());
            QVERIFY2(message.find("decision 22 ") != std::string::npos &&
                         message.find("the mention there reads \"breast cancer\"") != std::string::npos,
                     e.what());
            QVERIFY2(message.find("decision 23 ") != std::string::npos &&
                         message.find("does not parse") != std::string::npos,
                     e.what());
            QVERIFY2(
                message.find("decision 24 ") != std::string::npos && message.find("state undone") != std::string::npos,
                e.what());
        }
    }

    void mentionsSharingOffsetsAreAllDecided() {
        // The key names a mention by its offsets: two annotations of one span (other types) take
        // the decision together.
        const std::string text =
            "5|t|Lead poisoning.\n5\t0\t14\tLead poisoning\tDisease\tD007855\n"
            "5\t0\t14\tLead poisoning\tChemicalInduced\tD007855\n";
        const Corpus corpus = readPubTator(dir_.write("shared.txt", text));
        const std::vector<Decision> decisions{
            decision(1, "test", "5", 0, 14, "Lead poisoning", DecisionKind::Correct, "MESH:D007854")};
        curation::ApplySummary summary;
        const Corpus exported = curation::applyDecisions(corpus, "test", decisions, &summary);
        QCOMPARE(summary.changedMentions, std::size_t{2});
        QCOMPARE(formatPubTator(exported),
                 std::string("5|t|Lead poisoning.\n5\t0\t14\tLead poisoning\tDisease\tD007854\n"
                             "5\t0\t14\tLead poisoning\tChemicalInduced\tD007854\n"));
    }
};

QTEST_APPLESS_MAIN(TestApplyDecisions)
#include "test_apply_decisions.moc"
