// BioC XML: the export fixture written and read back keeps every annotation (composites,
// CUI-less and unlinked mentions, individual mentions, relations, title-only documents), offsets
// count characters, a PubTator Central style file reads, and malformed files are ParseErrors
// naming the file and line.
#include <algorithm>

#include "corpus/bioc_reader.h"
#include "corpus/bioc_writer.h"
#include "corpus/pubtator_reader.h"
#include "export_fixtures.h"
#include "gzip_fixture.h"

using namespace linkscope;
using test::FixtureDir;

namespace {

// Date and source fixed, so that two writes give the same bytes.
BioCWriteOptions fixedDate() {
    BioCWriteOptions options;
    options.date = "20260101";
    options.source = "test";
    return options;
}

// A small collection in the shape of our own files, with `body` as the one document's content.
std::string collectionWith(std::string_view body) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<collection>\n"
           "  <source>test</source><date>20260101</date><key>k</key>\n"
           "  <document>\n"
           "    <id>7</id>\n" +
           std::string(body) +
           "  </document>\n"
           "</collection>\n";
}

// Title "Fever and cough." (16 characters), abstract at offset 17.
constexpr std::string_view kTwoPassages =
    "    <passage><infon key=\"type\">title</infon><offset>0</offset><text>Fever and cough.</text></passage>\n"
    "    <passage><infon key=\"type\">abstract</infon><offset>17</offset><text>Cough persisted.</text>\n";  // line 6-7

std::string withAnnotation(std::string_view annotation) {
    return collectionWith(std::string(kTwoPassages) + std::string(annotation) + "    </passage>\n");
}

}  // namespace

class TestBioC : public QObject {
    Q_OBJECT
    FixtureDir dir_;

    Corpus fixture() { return readPubTator(dir_.write("fixture.txt", test::kExportFixture)); }

private Q_SLOTS:
    void roundTripKeepsEveryAnnotation() {
        const Corpus original = fixture();
        const auto file = dir_.path("fixture.bioc.xml");
        writeBioC(original, file, fixedDate());
        const Corpus back = readBioC(file);
        const auto difference = test::orderedRoundTripDifference(original, back);  // BioC keeps the order
        QVERIFY2(difference.empty(), difference.c_str());
        // The file written from what was read is the same file.
        QCOMPARE(formatBioC(back, fixedDate()), test::readFile(file));
    }

    void offsetsCountCharacters() {
        const std::string xml = formatBioC(fixture(), fixedDate());
        // Title of 300: 55 characters (57 bytes: alpha and beta take two each), so the abstract
        // passage starts at 56; the mathematical alpha (4 bytes) starts at character 66.
        QVERIFY(xml.find("<offset>56</offset>") != std::string::npos);
        QVERIFY(xml.find("<location offset=\"66\" length=\"11\" />") != std::string::npos);
        QVERIFY(xml.find("<location offset=\"24\" length=\"9\" />") != std::string::npos);
        QVERIFY(xml.find("<offset>57</offset>") == std::string::npos);
    }

    void linksAndPassages() {
        const std::string xml = formatBioC(fixture(), fixedDate());
        QVERIFY(xml.find("<date>20260101</date>") != std::string::npos);
        QVERIFY(xml.find("<!DOCTYPE collection SYSTEM \"BioC.dtd\">") != std::string::npos);
        // The id column's stray space is not written; the corpus' own spelling is kept.
        QVERIFY(xml.find("<infon key=\"identifier\">D010051</infon>") != std::string::npos);
        QVERIFY(xml.find("<infon key=\"identifier\">D020279+D035583</infon>") != std::string::npos);
        QVERIFY(xml.find("<infon key=\"identifier\">D010300|-1</infon>") != std::string::npos);
        QVERIFY(xml.find("<infon key=\"individual_mentions\">Parkinson|disease</infon>") != std::string::npos);
        QVERIFY(xml.find("<infon key=\"argument1\">D009270</infon>") != std::string::npos);
        // CUI-less has "-1"; the unlinked mention (86-103) has no identifier at all.
        QVERIFY(xml.find("<infon key=\"identifier\">-1</infon>") != std::string::npos);
        const auto unlinked = xml.find("<location offset=\"86\"");
        const auto annotationStart = xml.rfind("<annotation", unlinked);
        QVERIFY(unlinked != std::string::npos && annotationStart != std::string::npos);
        QVERIFY(xml.substr(annotationStart, unlinked - annotationStart).find("identifier") == std::string::npos);
        // 400 is title-only: one passage; 401 has two.
        const Corpus back = readBioC(dir_.write("links.xml", xml));
        QVERIFY(!back.find("400")->hasAbstract);
        QVERIFY(back.find("401")->hasAbstract);
        QVERIFY(isUnlinked(back.find("300")->mentions[4]));
        QVERIFY(!isUnlinked(back.find("300")->mentions[0]));
        QVERIFY(back.find("300")->mentions[0].ids.cuiLess);
    }

    void mentionOrderSurvivesPassages() {
        // An abstract mention listed before a title mention: the writer places them by passage,
        // the reader restores Document::mentions order from the annotation numbers.
        Corpus corpus = fixture();
        auto& mentions = corpus.find("1001")->mentions;
        std::rotate(mentions.begin(), mentions.begin() + 3, mentions.end());
        const Corpus back = readBioC(dir_.write("order.xml", formatBioC(corpus, fixedDate())));
        const auto difference = test::annotationDifference(corpus, back);
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void gzipInput() {
        const auto file = dir_.path("fixture.xml.gz");
        test::writeGzip(file, formatBioC(fixture(), fixedDate()));
        const Corpus back = readBioC(file);
        QCOMPARE(back.name, std::string("fixture"));
        QVERIFY(test::annotationDifference(fixture(), back).empty());
    }

    void pubTatorCentralStyle() {
        // PTC writes MESH-prefixed identifiers, several gene ids joined by ';', extra infons,
        // and relations with role infons or nodes.
        const auto file = dir_.write(
            "ptc.xml",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><!DOCTYPE collection SYSTEM \"BioC.dtd\">\n"
            "<collection><source>PubTator</source><date>2024</date><key>BioC.key</key>\n"
            "<document><id>123</id>\n"
            "<passage><infon key=\"type\">title</infon><offset>0</offset><text>TP53 in lung cancer.</text>\n"
            "<annotation id=\"1\"><infon key=\"identifier\">7157;7158</infon><infon key=\"type\">Gene</infon>"
            "<infon key=\"NCBI Homologene\">460</infon><location offset=\"0\" "
            "length=\"4\"/><text>TP53</text></annotation>\n"
            "<annotation id=\"2\"><infon key=\"identifier\">MESH:D008175</infon><infon key=\"type\">Disease</infon>"
            "<location offset=\"8\" length=\"11\"/><text>lung cancer</text></annotation>\n"
            "</passage>\n"
            "<relation id=\"R1\"><infon key=\"type\">Association</infon><infon key=\"role1\">7157</infon>"
            "<infon key=\"role2\">MESH:D008175</infon></relation>\n"
            "<relation id=\"R2\"><infon key=\"type\">Bind</infon><node refid=\"1\" role=\"a\"/><node refid=\"2\" "
            "role=\"b\"/></relation>\n"
            "</document></collection>\n");
        const Corpus corpus = readBioC(file);
        QCOMPARE(corpus.size(), std::size_t{1});
        const Document& document = corpus.documents()[0];
        QVERIFY(!document.hasAbstract);
        QCOMPARE(document.mentions.size(), std::size_t{2});
        QCOMPARE(document.mentions[0].ids.ids, (std::vector<std::string>{"7157", "7158"}));
        QCOMPARE(document.mentions[0].ids.join, IdJoin::Alternative);
        QCOMPARE(document.mentions[1].ids.ids, std::vector<std::string>{"MESH:D008175"});
        QCOMPARE(document.mentions[1].sourceLine, std::size_t{6});
        QCOMPARE(document.relations.size(), std::size_t{1});
        QCOMPARE(document.relations[0].arguments, (std::vector<std::string>{"7157", "MESH:D008175"}));
        // The homologene infon and the relation between annotations are reported, not dropped.
        QCOMPARE(corpus.diagnostics.size(), std::size_t{2});
        const auto mentioned = [&](std::string_view text, std::size_t line) {
            return std::any_of(corpus.diagnostics.begin(), corpus.diagnostics.end(), [&](const Diagnostic& d) {
                return d.line == line && d.message.find(text) != std::string::npos;
            });
        };
        QVERIFY(mentioned("NCBI Homologene", 5));
        QVERIFY(mentioned("relation node", 9));
    }

    void duplicateDocumentKeepsTheFirst() {
        Corpus corpus = fixture();
        std::string xml = formatBioC(corpus, fixedDate());
        const auto first = xml.find("<document>");
        const auto end = xml.find("</document>") + std::string("</document>").size();
        xml.insert(xml.find("</collection>"), xml.substr(first, end - first) + "\n");
        const Corpus back = readBioC(dir_.write("dup.xml", xml));
        QCOMPARE(back.size(), corpus.size());
        QCOMPARE(back.duplicates.size(), std::size_t{1});
        QVERIFY(back.duplicates[0].identical);
        QCOMPARE(back.diagnostics.size(), std::size_t{1});
    }

    void writerRefusesWhatXmlCannotHold() {
        Corpus corpus("c");
        Document document("5");
        document.title = std::string("bell\x07 character");
        corpus.add(std::move(document));
        QVERIFY_THROWS_EXCEPTION(Error, formatBioC(corpus));
        Corpus lenient = fixture();
        lenient.find("1001")->mentions[0].offsetsValid = false;
        QVERIFY_THROWS_EXCEPTION(Error, formatBioC(lenient));
    }

    // --- malformed input: ParseError naming file and line ------------------------------------
    void malformedXml() {
        const auto file =
            dir_.write("broken.xml", "<collection>\n<document>\n<id>1</id>\n<passage>\n</document>\n</collection>\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 5, "not well-formed XML");
    }
    void truncatedFile() {
        const std::string xml = formatBioC(fixture(), fixedDate());
        const std::string cut = xml.substr(0, xml.size() / 2);
        const auto file = dir_.write("cut.xml", cut);
        const auto lastLine = static_cast<std::size_t>(std::count(cut.begin(), cut.end(), '\n')) + 1;
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, lastLine, "not well-formed XML");
    }
    void emptyFile() {
        const auto file = dir_.write("empty.xml", "");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 0, "empty file");
    }
    void notUtf8() {
        std::string xml = withAnnotation("");
        xml.replace(xml.find("Cough persisted"), 1, "\xC7");  // a Latin-1 byte
        const auto file = dir_.write("latin1.xml", xml);
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 7, "invalid UTF-8");
    }
    // "&#0;" cut the title where it stood (pugixml's values are C strings) and "&#xD800;" decoded
    // to bytes that are not UTF-8: both are characters XML does not allow.
    void forbiddenCharacterReferences_data() {
        QTest::addColumn<QString>("reference");
        for (const char* reference : {"&#0;", "&#x0;", "&#xD800;", "&#57343;", "&#x110000;", "&#1;", "&#xFFFE;",
                                      // more than 32 bits: pugixml wrapped these to NUL, a surrogate, 'A'
                                      "&#4294967296;", "&#x10000D800;", "&#x100000041;", "&#99999999999999999999;",
                                      "&#x00000000000000000000000;", "&#0000000000000000000001;"})
            QTest::newRow(reference) << QString::fromLatin1(reference);
    }
    // A reference that is not one (no digits, a letter among them, no ';', an upper-case X) is
    // not well-formed XML; pugixml left such text as it stood.
    void malformedCharacterReferences_data() {
        QTest::addColumn<QString>("reference");
        for (const char* reference : {"&#;", "&#x;", "&#12a;", "&#x12g;", "&#X41;", "&#65 "})
            QTest::newRow(reference) << QString::fromLatin1(reference);
    }
    void malformedCharacterReferences() {
        QFETCH(QString, reference);
        std::string xml = withAnnotation("");
        xml.replace(xml.find("Fever and"), 5, "Fe" + reference.toStdString() + "ver");
        const auto file = dir_.write("malformed-reference.xml", xml);
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 6, "malformed character reference");
    }
    // A reference in an attribute is checked as one in a text is.
    void referencesInAttributesAreChecked() {
        const auto file = dir_.write(
            "attribute.xml", withAnnotation("<annotation id=\"1\"><infon key=\"type\">Disease</infon>\n"
                                            "<location offset=\"17&#4294967296;\" length=\"5\"/><text>Cough</text>"
                                            "</annotation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 9, "the character reference &#4294967296;");
    }
    // Long references whose value is small decode (leading zeros); in a CDATA section "&#0;" is
    // text, not a reference.
    void longReferencesAndCdata() {
        std::string xml = withAnnotation("");
        xml.replace(xml.find("Fever and cough."), 16, "F&#00000000000101;ver and c&#x000000000006F;ugh.");
        xml.replace(xml.find("<source>test</source>"), 21, "<source><![CDATA[&#0;]]></source>");
        const Corpus corpus = readBioC(dir_.write("long-references.xml", xml));
        QCOMPARE(corpus.documents()[0].title, std::string("Fever and cough."));
    }
    // The text is parsed in place (terminators written over it, escapes shortened): lines still
    // count the file as it was.
    void linesAreTheFilesAfterInPlaceParsing() {
        const auto file = dir_.write(
            "in-place.xml", withAnnotation("<extra>a &amp;&amp;&amp; b\n c &amp;&lt;\n</extra>\n<annotation\n"
                                           " id=\"1\"><infon key=\"type\">Disease</infon>\n"
                                           "<location offset=\"30\" length=\"5\"/><text>Cough</text></annotation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 13, "outside the text of document 7");
    }
    // A file of tiny elements would make a tree many times its size: refused before it is built.
    void aTreeFarLargerThanTheTextIsRefused() {
        std::string many;
        for (int i = 0; i < 300000; ++i) many += "<x/>";
        const auto file = dir_.write("tiny-elements.xml", "<collection>" + many + "</collection>\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 0, "more than this reader holds in memory");
    }
    void forbiddenCharacterReferences() {
        QFETCH(QString, reference);
        std::string xml = withAnnotation("");
        xml.replace(xml.find("Fever and"), 5, "Fe" + reference.toStdString() + "ver");
        const auto file = dir_.write("reference.xml", xml);
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 6, "the character reference " + reference.toStdString());
    }
    void allowedCharacterReferencesDecode() {
        std::string xml = withAnnotation("");
        xml.replace(xml.find("Fever and cough."), 16, "F&#xe9;ver and c&#111;ugh&#x1F600;");
        const Corpus corpus = readBioC(dir_.write("allowed.xml", xml));
        QCOMPARE(corpus.size(), std::size_t{1});
        QCOMPARE(corpus.documents()[0].title,
                 std::string("F\xc3\xa9ver and cough\xf0\x9f\x98\x80"));  // 16 characters, as before
    }
    // A document after 200,000 blank lines: its line is still right, and the reader keeps no
    // table of line starts (such a table grows with the lines, so a small gzip of newlines
    // would fill the memory).
    void linesAfterManyBlankLines() {
        std::string xml = withAnnotation(
            "<annotation id=\"1\"><infon key=\"type\">Disease</infon>\n"
            "<location offset=\"17\" length=\"50\"/><text>Cough</text></annotation>\n");
        xml.insert(0, std::string(200000, '\n'));
        const auto file = dir_.write("blank-lines.xml", xml);
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 200009, "");
    }
    void notACollection() {
        const auto file = dir_.write("root.xml", "<?xml version=\"1.0\"?>\n<documents/>\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 2, "<collection>");
    }
    void noDocuments() {
        const auto file = dir_.write("nodocs.xml", "<collection>\n<source>x</source>\n</collection>\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 1, "no <document>");
    }
    void missingOffset() {
        const auto file =
            dir_.write("nooffset.xml", withAnnotation("<annotation id=\"1\"><infon key=\"type\">Disease</infon>\n"
                                                      "<location length=\"5\"/><text>Cough</text></annotation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 9, "\"offset\" attribute");
    }
    void invalidLength() {
        const auto file =
            dir_.write("badlength.xml",
                       withAnnotation("<annotation id=\"1\"><infon key=\"type\">Disease</infon>\n"
                                      "<location offset=\"17\" length=\"-5\"/><text>Cough</text></annotation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 9, "not a non-negative integer");
    }
    void annotationOutsideTheText() {
        const auto file = dir_.write(
            "outside.xml", withAnnotation("<annotation id=\"1\"><infon key=\"type\">Disease</infon>\n"
                                          "<location offset=\"30\" length=\"5\"/><text>Cough</text></annotation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 9, "outside the text of document 7 (33 characters)");
    }
    void textMismatch() {
        const auto file = dir_.write(
            "mismatch.xml", withAnnotation("\n<annotation id=\"1\"><infon key=\"type\">Disease</infon>"
                                           "<location offset=\"18\" length=\"5\"/><text>Cough</text></annotation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 9, "does not match the document text \"ough \"");
    }
    void passageOffsetMismatch() {
        const auto file = dir_.write(
            "passage.xml", collectionWith("<passage><offset>0</offset><text>Fever and cough.</text></passage>\n"
                                          "<passage><offset>18</offset><text>Cough persisted.</text></passage>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 7, "expected 17");
    }
    void discontinuousAnnotation() {
        const auto file =
            dir_.write("discontinuous.xml",
                       withAnnotation("<annotation id=\"1\"><infon key=\"type\">Disease</infon>\n"
                                      "<location offset=\"0\" length=\"5\"/>\n"
                                      "<location offset=\"10\" length=\"5\"/><text>Fever cough</text></annotation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 10, "discontinuous");
    }
    void missingType() {
        const auto file = dir_.write(
            "notype.xml", withAnnotation("<annotation id=\"1\"><infon key=\"identifier\">D1</infon>"
                                         "<location offset=\"17\" length=\"5\"/><text>Cough</text></annotation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 8, "\"type\" infon");
    }
    void brokenIdentifier() {
        const auto file = dir_.write(
            "badid.xml", withAnnotation("<annotation id=\"1\"><infon key=\"type\">Disease</infon>"
                                        "<infon key=\"identifier\">D003371|D1+D2</infon>"
                                        "<location offset=\"17\" length=\"5\"/><text>Cough</text></annotation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 8, "mixes '|' and '+'");
    }
    void tooManyPassages() {
        const auto file =
            dir_.write("three.xml", collectionWith("<passage><offset>0</offset><text>A.</text></passage>\n"
                                                   "<passage><offset>3</offset><text>B.</text></passage>\n"
                                                   "<passage><offset>6</offset><text>C.</text></passage>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 8, "only title + abstract");
    }
    void relationWithoutArguments() {
        const auto file =
            dir_.write("relation.xml", collectionWith(std::string(kTwoPassages) +
                                                      "</passage>\n<relation id=\"R1\"><infon key=\"type\">CID</infon>"
                                                      "<infon key=\"argument1\">D1</infon></relation>\n"));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 9, "fewer than two argument infons");
    }
    void missingDocumentId() {
        const auto file =
            dir_.write("noid.xml",
                       "<collection>\n<document>\n<passage><offset>0</offset></passage>\n</document>\n</collection>\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioC(file), file, 2, "without an <id>");
    }
};

QTEST_APPLESS_MAIN(TestBioC)
#include "test_bioc.moc"
