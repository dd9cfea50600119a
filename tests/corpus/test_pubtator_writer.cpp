// Writing PubTator: fixtures in each dialect read and written back give the same bytes, edited
// annotations are written from the model, and fields the format cannot hold are refused.
#include "corpus/pubtator_reader.h"
#include "corpus/pubtator_writer.h"
#include "corpus_fixtures.h"

using namespace linkscope;
using test::FixtureDir;
using test::kNcbiStyle;

namespace {

// Document 200 with a second CID line, then a title-only document and a closing blank line.
const std::string kBc5cdrStyle = std::string(test::kBc5cdrDocument) +
                                 "200\tCID\tMESH:D009270\t-1\n"
                                 "\n"
                                 "201|t|Title only, no abstract line.\n"
                                 "\n";

constexpr std::string_view kMedMentionsUnicode =
    "25763772|t|DCTN4 as a modifier of chronic Pseudomonas aeruginosa infection in cystic fibrosis\n"
    "25763772|a|Pseudomonas aeruginosa (Pa) infection in cystic fibrosis (CF) patients is associated with "
    "worse long-term pulmonary disease.\n"
    "25763772\t0\t5\tDCTN4\tT116,T123\tC4308010\n"
    "25763772\t67\t82\tcystic fibrosis\tT047\tUMLS:C0010674\n"
    "\n"
    "300|t|Role of \xce\xb1-synuclein and \xce\xb2-amyloid in Parkinson disease.\n"
    "300|a|Levels of \xf0\x9d\x9b\xbc-synuclein rose in Parkinson disease patients.\n"
    "300\t24\t33\t\xce\xb2-amyloid\tChemical\tD016229\n"
    "300\t66\t77\t\xf0\x9d\x9b\xbc-synuclein\tChemical\tD051844\n"
    "300\t37\t54\tParkinson disease\tDisease\tD010300\n";

}  // namespace

class TestPubTatorWriter : public QObject {
    Q_OBJECT
    FixtureDir dir_;

    void roundTripIsByteIdentical(std::string_view name, std::string_view content) {
        const auto in = dir_.write(std::string(name) + ".txt", content);
        const Corpus corpus = readPubTator(in);
        QCOMPARE(formatPubTator(corpus), std::string(content));
        const auto out = dir_.path(std::string(name) + ".out.txt");
        writePubTator(corpus, out);
        QCOMPARE(test::readFile(out), std::string(content));
        const Corpus again = readPubTator(out);
        QCOMPARE(again.size(), corpus.size());
        for (std::size_t i = 0; i < corpus.size(); ++i)
            QVERIFY2(sameContent(again.documents()[i], corpus.documents()[i]), corpus.documents()[i].pmid().c_str());
    }

private Q_SLOTS:
    void ncbiStyleRoundTrip() { roundTripIsByteIdentical("ncbi", kNcbiStyle); }
    void bc5cdrStyleRoundTrip() { roundTripIsByteIdentical("cdr", kBc5cdrStyle); }
    void medMentionsAndUnicodeRoundTrip() { roundTripIsByteIdentical("mm", kMedMentionsUnicode); }
    void paddedMentionTextRoundTrip() { roundTripIsByteIdentical("padded", test::kPaddedMention); }

    void formatsOneDocument() {
        const Corpus corpus = readPubTator(dir_.write("one.txt", kNcbiStyle));
        const std::string expected(kNcbiStyle.substr(1, kNcbiStyle.find("\n\n", 1)));
        QCOMPARE(formatPubTator(corpus.documents()[0]), expected);
    }

    void editedIdsAreWrittenFromTheModel() {
        Corpus corpus = readPubTator(dir_.write("edit.txt", kNcbiStyle));
        Mention& ovarian = corpus.documents()[0].mentions[1];  // column " D010051"
        ovarian.ids = parseConceptIdList("D010051|OMIM:167000");
        Mention& pmd = corpus.documents()[1].mentions[2];
        pmd.ids = ConceptIdList{{}, IdJoin::Single, true};
        const std::string out = formatPubTator(corpus);
        QVERIFY2(out.find("100\t37\t51\tOvarian cancer\tSpecificDisease\tD010051|OMIM:167000\n") != std::string::npos,
                 out.c_str());
        QVERIFY(out.find("101\t69\t72\tPMD\tSpecificDisease\t-1\n") != std::string::npos);
        // untouched mentions keep their column as written
        QVERIFY(out.find("\tOMIM:312080 \n") != std::string::npos);
    }

    void documentsBuiltInMemory() {
        Document doc("42");
        doc.title = "Cystic fibrosis.";
        doc.abstract = "In \xce\xb2-cells.";
        Mention cf;
        cf.start = 0;
        cf.end = 15;
        cf.text = "Cystic fibrosis";
        cf.type = "T047";
        cf.ids = parseConceptIdList("C0010674");
        doc.mentions.push_back(cf);
        Mention composite;
        composite.start = 20;
        composite.end = 27;
        composite.text = "\xce\xb2-cells";
        composite.type = "CellType";
        composite.ids = ConceptIdList{{"MESH:D050417", "MESH:D002477"}, IdJoin::Conjunction, false};
        composite.individualMentions = {"beta", "cells"};
        doc.mentions.push_back(composite);
        Relation relation;
        relation.type = "CID";
        relation.arguments = {"MESH:D009270", "OMIM:217000"};
        doc.relations.push_back(relation);
        QCOMPARE(formatPubTator(doc), std::string("42|t|Cystic fibrosis.\n"
                                                  "42|a|In \xce\xb2-cells.\n"
                                                  "42\t0\t15\tCystic fibrosis\tT047\tUMLS:C0010674\n"
                                                  "42\t20\t27\t\xce\xb2-cells\tCellType\tD050417+D002477\tbeta|cells\n"
                                                  "42\tCID\tD009270\tOMIM:217000\n"));
        // and it reads back as the same document
        Corpus corpus("memory");
        corpus.add(doc);
        const auto path = dir_.path("memory.txt");
        writePubTator(corpus, path);
        const Corpus again = readPubTator(path);
        QVERIFY(again.diagnostics.empty());
        const Document& back = again.documents()[0];
        QCOMPARE(back.mentions.size(), std::size_t{2});
        QVERIFY(sameIds(back.mentions[1].ids, composite.ids));
        QCOMPARE(back.mentions[1].individualMentions, composite.individualMentions);
        QCOMPARE(back.relations[0].arguments, relation.arguments);
    }

    void refusesFieldsTheFormatCannotHold() {
        Document doc("7");
        doc.title = "Line\nbreak";
        QVERIFY_THROWS_EXCEPTION(Error, formatPubTator(doc));
        doc.title = "Fine";
        Mention mention;
        mention.start = 0;
        mention.end = 4;
        mention.text = "Fi\tne";
        mention.type = "Disease";
        doc.mentions.push_back(mention);
        QVERIFY_THROWS_EXCEPTION(Error, formatPubTator(doc));
        doc.mentions[0].text = "Fine";
        doc.mentions[0].individualMentions = {"a|b"};
        QVERIFY_THROWS_EXCEPTION(Error, formatPubTator(doc));
        doc.mentions[0].individualMentions.clear();
        doc.mentions[0].type.clear();
        QVERIFY_THROWS_EXCEPTION(Error, formatPubTator(doc));
        Document badPmid("1 2");
        QVERIFY_THROWS_EXCEPTION(Error, formatPubTator(badPmid));
    }

    void failedWriteLeavesTheTargetAlone() {
        const auto target = dir_.write("target.txt", "old content");
        Corpus corpus("broken");
        Document good("1");
        good.title = "ok";
        corpus.add(good);
        Document bad("2");
        bad.title = "broken\ntitle";
        corpus.add(bad);
        QVERIFY_THROWS_EXCEPTION(Error, writePubTator(corpus, target));
        QCOMPARE(test::readFile(target), std::string("old content"));
    }

    void emptyCorpusWritesItsLayoutOnly() {
        Corpus corpus("none");
        corpus.layout.leadingBlankLines = 1;
        QCOMPARE(formatPubTator(corpus), std::string("\n"));
    }
};

QTEST_APPLESS_MAIN(TestPubTatorWriter)
#include "test_pubtator_writer.moc"
