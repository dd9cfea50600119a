// brat standoff: the export fixture written and read back keeps every mention and link (unlinked
// vs CUI-less, '|' and '+' composites, non-ASCII offsets in characters, title-only documents),
// counts what brat cannot hold (relations, individual-mention lists), reads foreign annotation
// kinds as Diagnostics, and malformed files are ParseErrors naming file and line.
#include <algorithm>

#include "corpus/brat_reader.h"
#include "corpus/brat_writer.h"
#include "corpus/pubtator_reader.h"
#include "export_fixtures.h"
#include "util/utf8.h"

using namespace linkscope;
using test::FixtureDir;

namespace {

constexpr std::string_view kText = "Fever and cough.\nCough persisted.\n";  // title 16 chars, abstract at 17

}  // namespace

class TestBrat : public QObject {
    Q_OBJECT
    FixtureDir dir_;

    Corpus fixture() { return readPubTator(dir_.write("fixture.txt", test::kExportFixture)); }

    // A folder with 9.txt (kText) and 9.ann (`ann`); returns the .ann path.
    std::filesystem::path document(std::string_view folder, std::string_view ann) {
        const auto root = dir_.path(folder);
        std::filesystem::create_directories(root);
        test::writeFile(root / "9.txt", kText);
        const auto file = root / "9.ann";
        test::writeFile(file, ann);
        return file;
    }

    Document readOne(const std::filesystem::path& ann) {
        std::vector<Diagnostic> diagnostics;
        return readBratDocument(ann, diagnostics);
    }

private Q_SLOTS:
    void roundTripKeepsMentionsAndLinks() {
        const Corpus original = fixture();
        const auto folder = dir_.path("brat");
        const BratExportSummary summary = writeBrat(original, folder);
        QCOMPARE(summary.documents, std::size_t{4});
        QCOMPARE(summary.mentions, std::size_t{14});
        QCOMPARE(summary.normalizations, std::size_t{16});
        // Never silent: the two CID relations and the one individual-mention list are counted.
        QCOMPARE(summary.relationsLeftOut, std::size_t{2});
        QCOMPARE(summary.individualMentionListsLeftOut, std::size_t{1});
        QVERIFY(!summary.complete());
        const Corpus back = readBrat(folder);
        QVERIFY(back.diagnostics.empty());
        const auto difference =
            test::annotationDifference(original, back, {.relations = false, .individualMentions = false});
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void exactFiles() {
        const auto folder = dir_.path("exact");
        writeBrat(fixture(), folder);
        QCOMPARE(
            test::readFile(folder / "1001.txt"),
            std::string(
                "BRCA1 mutations cause breast cancer.\n"
                "Ovarian cancer and breast cancer share risk factors; an X-linked dysmyelinating disorder is rare.\n"));
        QCOMPARE(test::readFile(folder / "1001.ann"),
                 std::string("T1\tGene 0 5\tBRCA1\n"
                             "N1\tReference T1 id:672\tBRCA1\n"
                             "T2\tSpecificDisease 22 35\tbreast cancer\n"
                             "N2\tReference T2 MESH:D001943\tbreast cancer\n"
                             "T3\tSpecificDisease 37 51\tOvarian cancer\n"
                             "N3\tReference T3 MESH:D010051\tOvarian cancer\n"
                             "T4\tCompositeMention 37 69\tOvarian cancer and breast cancer\n"
                             "N4\tReference T4 MESH:D010051\tOvarian cancer and breast cancer\n"
                             "N5\tReference T4 MESH:D001943\tOvarian cancer and breast cancer\n"
                             "T5\tDiseaseClass 93 125\tX-linked dysmyelinating disorder\n"
                             "N6\tReference T5 MESH:D020279\tX-linked dysmyelinating disorder\n"
                             "N7\tReference T5 MESH:D035583\tX-linked dysmyelinating disorder\n"
                             "A5\tIdJoin T5 Conjunction\n"));
        const std::string ann300 = test::readFile(folder / "300.ann");
        QVERIFY(ann300.find("T1\tChemical 8 19\t\xce\xb1-synuclein\nN1\tReference T1 CUI-less:-1\t") !=
                std::string::npos);
        QVERIFY(ann300.find("N3\tReference T3 MESH:D010300\t") != std::string::npos);
        QVERIFY(ann300.find("N4\tReference T3 CUI-less:-1\t") != std::string::npos);
        // The unlinked mention has its T line and no N line.
        QVERIFY(ann300.find("T5\tDisease 86 103\tParkinson disease\nT6\t") != std::string::npos);
        QVERIFY(ann300.find("T7\tT116,T123 136 140\tTP53\nN7\tReference T7 UMLS:C0079419\tTP53\n") !=
                std::string::npos);
        // Title only: the title and the final line break; no mentions: an empty .ann.
        QCOMPARE(test::readFile(folder / "400.txt"), std::string("Hypertension after clonidine withdrawal.\n"));
        QCOMPARE(test::readFile(folder / "401.ann"), std::string());
    }

    void offsetsCountCharactersOfTheTxt() {
        const auto folder = dir_.path("chars");
        writeBrat(fixture(), folder);
        // Counted as brat does: code points of the .txt.
        const std::string txt = test::readFile(folder / "300.txt");
        const auto characters = utf8::characterOffsets(txt);
        const auto slice = [&](std::size_t start, std::size_t end) {
            return txt.substr(characters[start], characters[end] - characters[start]);
        };
        QCOMPARE(slice(66, 77), std::string("\xf0\x9d\x9b\xbc-synuclein"));
        QCOMPARE(slice(24, 33), std::string("\xce\xb2-amyloid"));
        QCOMPARE(slice(136, 140), std::string("TP53"));
        QCOMPARE(txt[characters[55]], '\n');  // where the PubTator text has its " "
    }

    void unlinkedAndCuiLessReadBack() {
        const auto folder = dir_.path("links");
        writeBrat(fixture(), folder);
        const Corpus back = readBrat(folder);
        const Document& document = *back.find("300");
        QVERIFY(document.mentions[0].ids.cuiLess);
        QVERIFY(!isUnlinked(document.mentions[0]));
        QVERIFY(isUnlinked(document.mentions[4]));
        QCOMPARE(document.mentions[2].ids.ids, (std::vector<std::string>{"MESH:D010300", "-1"}));
        QCOMPARE(back.find("1001")->mentions[4].ids.join, IdJoin::Conjunction);
        QCOMPARE(back.find("1001")->mentions[0].ids.ids, std::vector<std::string>{"672"});
        QVERIFY(!back.find("400")->hasAbstract);
        QVERIFY(back.find("401")->hasAbstract);
    }

    void emptyAbstractIsKept() {
        Corpus corpus("c");
        Document document("77");
        document.title = "Title.";
        document.hasAbstract = true;
        corpus.add(std::move(document));
        const auto folder = dir_.path("emptyabstract");
        writeBrat(corpus, folder);
        QCOMPARE(test::readFile(folder / "77.txt"), std::string("Title.\n\n"));
        const Corpus back = readBrat(folder);
        QVERIFY(back.find("77")->hasAbstract);
        QVERIFY(back.find("77")->abstract.empty());
    }

    void foreignLinesAreReportedNotDropped() {
        const auto ann = document("foreign",
                                  "T1\tDisease 0 5\tFever\n"
                                  "T2\tDisease 10 15\tcough\n"
                                  "R1\tCauses Arg1:T1 Arg2:T2\n"
                                  "#1\tAnnotatorNotes T1\tsome note\n"
                                  "#2\tAnnotatorNotes T2\tanother\n"
                                  "N1\tReference T2 mesh:D003371\tCough\n"
                                  "A1\tNegation T1\n");
        std::vector<Diagnostic> diagnostics;
        const Document read = readBratDocument(ann, diagnostics);
        QCOMPARE(read.mentions.size(), std::size_t{2});
        QVERIFY(isUnlinked(read.mentions[0]));                                         // no N line
        QCOMPARE(read.mentions[1].ids.ids, std::vector<std::string>{"MESH:D003371"});  // canonicalised
        QCOMPARE(diagnostics.size(), std::size_t{3});
        const auto has = [&](std::string_view text, std::size_t line) {
            return std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
                return d.line == line && d.message.find(text) != std::string::npos;
            });
        };
        QVERIFY(has("1 relation lines (R)", 3));
        QVERIFY(has("2 note lines (#)", 4));
        QVERIFY(has("1 attribute lines (A) other than IdJoin", 7));
        // A .txt without its .ann is reported by the folder reader.
        test::writeFile(dir_.path("foreign") / "10.txt", "Lonely.\n");
        const Corpus folder = readBrat(dir_.path("foreign"));
        QCOMPARE(folder.size(), std::size_t{1});
        QCOMPARE(folder.diagnostics.size(), std::size_t{4});
    }

    void normalizationBeforeItsTarget() {
        const Document read =
            readOne(document("order", "N1\tReference T1 MESH:D005334\tFever\nT1\tDisease 0 5\tFever\n"));
        QCOMPARE(read.mentions[0].ids.ids, std::vector<std::string>{"MESH:D005334"});
    }

    void writerRefusesWhatBratCannotHold() {
        BratExportSummary summary;
        Corpus corpus = fixture();
        corpus.find("1001")->mentions[0].type = "Gene Product";
        QVERIFY_THROWS_EXCEPTION(Error, formatBrat(*corpus.find("1001"), summary));
        corpus = fixture();
        corpus.find("1001")->mentions[0].ids.ids = {"id:672"};  // would read back as "672"
        QVERIFY_THROWS_EXCEPTION(Error, formatBrat(*corpus.find("1001"), summary));
        corpus = fixture();
        corpus.find("1001")->mentions[1].offsetsValid = false;
        QVERIFY_THROWS_EXCEPTION(Error, formatBrat(*corpus.find("1001"), summary));
    }

    // --- malformed input: ParseError naming file and line ------------------------------------
    void discontinuousSpan() {
        const auto ann = document("m1", "T1\tDisease 0 5\tFever\nT2\tDisease 0 5;10 15\tFever cough\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 2, "several spans");
    }
    void badOffsets() {
        const auto ann = document("m2", "T1\tDisease zero 5\tFever\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 1, "not non-negative integers");
    }
    void truncatedTextBound() {
        const auto ann = document("m3", "T1\tDisease 0 5\tFever\nT2\tDisease 10\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 2, "without its text");
    }
    void missingFields() {
        const auto ann = document("m4", "T1\tDisease 0\tFever\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 1, "expected TYPE START END");
    }
    void unknownTarget() {
        const auto ann = document("m5", "T1\tDisease 0 5\tFever\nN1\tReference T7 MESH:D005334\tFever\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 2, "not a text-bound annotation");
    }
    void referenceWithoutDatabase() {
        const auto ann = document("m6", "T1\tDisease 0 5\tFever\nN1\tReference T1 D005334\tFever\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 2, "is not DB:ID");
    }
    void badIdJoin() {
        const auto ann = document("m7", "T1\tDisease 0 5\tFever\nA1\tIdJoin T1 Sometimes\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 2, "IdJoin");
    }
    void duplicateId() {
        const auto ann = document("m8", "T1\tDisease 0 5\tFever\nT1\tDisease 10 15\tcough\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 2, "appears again (first at line 1)");
    }
    void outsideTheText() {
        const auto ann = document("m9", "T1\tDisease 30 38\tpersists\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 1, "outside the text of 9.txt (33 characters)");
    }
    void textMismatch() {
        const auto ann = document("m10", "\nT1\tDisease 17 22\tcough\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 2, "does not match the document text \"Cough\"");
    }
    void unknownLine() {
        const auto ann = document("m11", "T1\tDisease 0 5\tFever\nX1\twhat\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 2, "unrecognised annotation line");
        const auto noTab = document("m12", "T1 Disease 0 5 Fever\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(noTab), noTab, 1, "expected an annotation line");
    }
    void startNotBeforeEnd() {
        const auto ann = document("m13", "T1\tDisease 5 5\t\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 1, "is not before end offset");
    }
    void notUtf8() {
        const auto ann = document("m14", "T1\tDisease 0 5\tFever\nT2\tDisease 10 15\tc\xF6ugh\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 2, "invalid UTF-8");
    }
    void missingText() {
        const auto root = dir_.path("m15");
        std::filesystem::create_directories(root);
        const auto ann = root / "9.ann";
        test::writeFile(ann, "T1\tDisease 0 5\tFever\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 0, "no text file 9.txt");
    }
    void fileNameIsNotAPmid() {
        const auto root = dir_.path("m16");
        std::filesystem::create_directories(root);
        test::writeFile(root / "a b.txt", kText);
        const auto ann = root / "a b.ann";
        test::writeFile(ann, "");
        LINKSCOPE_EXPECT_PARSE_ERROR(readOne(ann), ann, 0, "is not a PMID");
    }
    void folderWithoutAnnotations() {
        const auto root = dir_.path("m17");
        std::filesystem::create_directories(root);
        LINKSCOPE_EXPECT_PARSE_ERROR(readBrat(root), root, 0, "no .ann files");
    }
};

QTEST_APPLESS_MAIN(TestBrat)
#include "test_brat.moc"
