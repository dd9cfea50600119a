// BioC JSON: the export fixture written and read back keeps every annotation (composites,
// CUI-less and unlinked mentions, individual mentions, relations, title-only documents), offsets
// count characters, a PubTator3-style export reads (its extra infons reported, not dropped
// silently), documents stream one at a time, and hostile files are ParseErrors naming the file
// and line: deep nesting, oversized values, offsets past the text, wrong types, NUL, invalid
// UTF-8, truncation.
#include <sys/stat.h>

#include <algorithm>

#include "corpus/bioc_json_reader.h"
#include "corpus/bioc_json_scanner.h"
#include "corpus/bioc_json_writer.h"
#include "corpus/corpus_format.h"
#include "corpus/corpus_input.h"
#include "corpus/json_chunk_writers.h"
#include "corpus/pubtator_reader.h"
#include "error_of.h"
#include "export_fixtures.h"
#include "gzip_fixture.h"

using namespace linkscope;
using test::FixtureDir;

namespace {

BioCWriteOptions fixedDate() {
    BioCWriteOptions options;
    options.date = "20260101";
    options.source = "test";
    return options;
}

// Title "Fever and cough." (16 characters), abstract at offset 17; `annotations` go into the
// abstract passage. The document starts on line 3.
std::string collectionWith(std::string_view annotations, std::string_view documentExtra = "") {
    return "{\"source\": \"test\", \"date\": \"20260101\", \"key\": \"k\", \"infons\": {},\n"
           "\"documents\": [\n"
           "{\"id\": \"7\", " +
           std::string(documentExtra) +
           "\"passages\": [{\"offset\": 0, \"infons\": {\"type\": \"title\"}, \"text\": \"Fever and cough.\"},\n"
           "{\"offset\": 17, \"infons\": {\"type\": \"abstract\"}, \"text\": \"Cough persisted.\", \"annotations\": [" +
           std::string(annotations) + "]}]}\n]}\n";
}

std::string annotation(std::string_view location, std::string_view text = "\"Cough\"",
                       std::string_view infons = "{\"type\": \"Disease\", \"identifier\": \"D003371\"}") {
    return "{\"id\": \"1\", \"infons\": " + std::string(infons) + ", \"text\": " + std::string(text) +
           ", \"locations\": [" + std::string(location) + "]}";
}

constexpr std::string_view kCough = "{\"offset\": 17, \"length\": 5}";

}  // namespace

class TestBioCJson : public QObject {
    Q_OBJECT
    FixtureDir dir_;

    Corpus fixture() { return readPubTator(dir_.write("fixture.txt", test::kExportFixture)); }

private Q_SLOTS:
    void roundTripKeepsEveryAnnotation() {
        const Corpus original = fixture();
        const auto file = dir_.path("fixture.bioc.json");
        writeBioCJson(original, file, fixedDate());
        const Corpus back = readBioCJson(file);
        const auto difference = test::orderedRoundTripDifference(original, back);  // BioC keeps the order
        QVERIFY2(difference.empty(), difference.c_str());
        QCOMPARE(formatBioCJson(back, fixedDate()), test::readFile(file));
        // One document per line, between the header line and the footer.
        const std::string text = test::readFile(file);
        QCOMPARE(std::count(text.begin(), text.end(), '\n'), static_cast<std::ptrdiff_t>(original.size() + 2));
    }

    void offsetsCountCharactersAndLinksAreIdentifierInfons() {
        const std::string json = formatBioCJson(fixture(), fixedDate());
        QVERIFY(json.find("\"offset\":56") != std::string::npos);  // 300's abstract: 55 characters of title + 1
        QVERIFY(json.find("{\"offset\":66,\"length\":11}") != std::string::npos);
        QVERIFY(json.find("\"identifier\":\"D001943\"") != std::string::npos);
        QVERIFY(json.find("\"identifier\":\"D020279+D035583\"") != std::string::npos);
        QVERIFY(json.find("\"individual_mentions\":\"Parkinson|disease\"") != std::string::npos);
        QVERIFY(json.starts_with("{\"source\":\"test\",\"date\":\"20260101\",\"key\":\"linkscope-bioc.key\""));
    }

    void streamingPiecesMakeTheSameFile() {
        const Corpus corpus = fixture();
        std::string text = bioCJsonHeader(corpus.name, fixedDate());
        for (std::size_t d = 0; d < corpus.size(); ++d)
            text += std::string(d ? kBioCJsonDocumentSeparator : "") + formatBioCJsonDocument(corpus.documents()[d]);
        text += kBioCJsonFooter;
        QCOMPARE(text, formatBioCJson(corpus, fixedDate()));
        // And a document parses on its own.
        LeftOutTally leftOut;
        const Document one = parseBioCJsonDocument(formatBioCJsonDocument(corpus.documents()[1]), "x.json", 4, leftOut);
        const auto difference = test::annotationDifference(corpus.documents()[1], one);
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void chunkWriterWritesTheSameFile() {
        const Corpus corpus = fixture();
        const auto file = dir_.path("chunks.json");
        BioCJsonChunkWriter writer(file, fixedDate());
        for (std::size_t d = 0; d < corpus.size(); d += 3) {
            Corpus chunk;
            for (std::size_t i = d; i < std::min(d + 3, corpus.size()); ++i) chunk.add(corpus.documents()[i]);
            writer.write(chunk);
        }
        writer.commit();
        const std::string whole = formatBioCJson(corpus, fixedDate());
        QCOMPARE(test::readFile(file), whole);
        QCOMPARE(writer.bytes(), std::uint64_t(whole.size()));
        QCOMPARE(writer.documents(), corpus.size());
    }
    void extraInfonsAreWritten() {
        BioCWriteOptions options = fixedDate();
        options.extraInfons = [](std::size_t document, std::size_t mention) {
            return BioCInfons{{"score", std::to_string(document) + "." + std::to_string(mention)},
                              {"linker", "sparse"}};
        };
        const std::string json = formatBioCJson(fixture(), options);
        QVERIFY(json.find("\"score\":\"1.2\",\"linker\":\"sparse\"") != std::string::npos);
        // Read back, the linker's infons have no place in a Document: reported once per kind.
        const auto file = dir_.write("extra.json", json);
        const Corpus back = readBioCJson(file);
        QCOMPARE(back.diagnostics.size(), std::size_t{2});
        QVERIFY(back.diagnostics[0].message.find("annotation infon \"linker\" (14 in the file)") != std::string::npos);
    }

    void readsThroughGzipAndCorpusInput() {
        const std::string json = formatBioCJson(fixture(), fixedDate());
        const auto gz = dir_.path("fixture.json.gz");
        test::writeGzip(gz, json);
        QCOMPARE(detectCorpusFormat(gz), CorpusFormat::BioCJson);
        const Corpus back = readCorpus(gz);
        QCOMPARE(back.name, std::string("fixture"));
        QVERIFY(test::annotationDifference(fixture(), back).empty());
        QCOMPARE(corpusFormatFromName("bioc-json"), std::optional(CorpusFormat::BioCJson));
    }

    // PubTator3's export: the array is named "PubTator3", identifiers carry their prefix, infons
    // hold booleans and PubTator3's own fields, relations name their roles in objects.
    void pubTator3Style() {
        const auto file = dir_.write(
            "pt3.json",
            "{\"PubTator3\":[{\"_id\":\"34567|None\",\"id\":\"34567\",\"infons\":{},\"passages\":["
            "{\"infons\":{\"journal\":\"J\",\"type\":\"title\"},\"offset\":0,\"text\":\"Metformin in type 2 "
            "diabetes.\",\"sentences\":[],\"annotations\":["
            "{\"id\":\"1\",\"infons\":{\"identifier\":\"MESH:D008687\",\"type\":\"Chemical\",\"valid\":true,"
            "\"database\":\"ncbi_mesh\"},\"text\":\"Metformin\",\"locations\":[{\"offset\":0,\"length\":9}]},"
            "{\"id\":\"2\",\"infons\":{\"identifier\":\"MESH:D003924\",\"type\":\"Disease\",\"valid\":true},"
            "\"text\":\"type 2 diabetes\",\"locations\":[{\"offset\":13,\"length\":15}]},"
            "{\"id\":\"3\",\"infons\":{\"identifier\":null,\"type\":\"Disease\"},\"text\":\"diabetes\","
            "\"locations\":[{\"offset\":20,\"length\":8}]}],\"relations\":[]}],"
            "\"relations\":[{\"id\":\"R1\",\"infons\":{\"score\":\"0.99\",\"role1\":{\"identifier\":\"@CHEMICAL_"
            "Metformin\"},\"role2\":{\"identifier\":\"@DISEASE_Diabetes\"},\"type\":\"Treat\"},\"nodes\":[]}],"
            "\"pmid\":34567,\"accessions\":[\"chemical@MESH:D008687\"]}]}\n");
        QCOMPARE(detectCorpusFormat(file), CorpusFormat::BioCJson);
        const Corpus corpus = readBioCJson(file);
        QCOMPARE(corpus.size(), std::size_t{1});
        const Document& document = corpus.documents()[0];
        QVERIFY(!document.hasAbstract);
        QCOMPARE(document.mentions.size(), std::size_t{3});
        QCOMPARE(document.mentions[0].ids.ids, std::vector<std::string>{"MESH:D008687"});
        QCOMPARE(document.mentions[1].type, std::string("Disease"));
        QVERIFY(isUnlinked(document.mentions[2]));  // a null identifier: no link
        QVERIFY(document.relations.empty());
        std::string notes;
        for (const auto& diagnostic : corpus.diagnostics) notes += diagnostic.message + "\n";
        for (const char* kept :
             {"annotation infon \"valid\"", "annotation infon \"database\"", "document key \"_id\"",
              "document key \"accessions\"", "passage infon \"journal\"", "relation with an infon that is an object"})
            QVERIFY2(notes.find(kept) != std::string::npos, kept);
    }

    void documentsStreamOneAtATime() {
        const auto file = dir_.write("fixture.json", formatBioCJson(fixture(), fixedDate()));
        BioCJsonDocumentReader reader(file);
        std::vector<std::string> pmids;
        while (auto document = reader.next()) pmids.push_back(document->pmid());
        QCOMPARE(pmids, (std::vector<std::string>{"1001", "300", "400", "401"}));
        QCOMPARE(reader.collection().date, std::string("20260101"));
        QCOMPARE(reader.collection().source, std::string("test"));
    }

    void duplicateDocumentKeepsTheFirst() {
        const std::string one = formatBioCJsonDocument(fixture().documents()[2]);
        const auto file = dir_.write("dup.json", "{\"documents\":[\n" + one + ",\n" + one + "\n]}\n");
        const Corpus corpus = readBioCJson(file);
        QCOMPARE(corpus.size(), std::size_t{1});
        QCOMPARE(corpus.duplicates.size(), std::size_t{1});
        QCOMPARE(corpus.duplicates[0].droppedLine, std::size_t{3});
    }

    void annotationsReadInBothPassages() {
        const auto file = dir_.write("ok.json", collectionWith(annotation(kCough)));
        const Corpus corpus = readBioCJson(file);
        QCOMPARE(corpus.documents()[0].mentions.size(), std::size_t{1});
        QCOMPARE(corpus.documents()[0].mentions[0].start, std::size_t{17});
        QCOMPARE(corpus.documents()[0].mentions[0].ids.ids, std::vector<std::string>{"MESH:D003371"});
    }

    void writerRefusesWhatItCannotHold() {
        Corpus corpus = fixture();
        corpus.documents()[0].mentions[0].text = std::string("BR\0A1", 5);
        QVERIFY(test::errorOf([&] { (void)formatBioCJson(corpus); }).find("NUL") != std::string::npos);
        Corpus invalid = fixture();
        invalid.documents()[0].title = "\xC3";
        QVERIFY(test::errorOf([&] { (void)formatBioCJson(invalid); }).find("UTF-8") != std::string::npos);
    }

    // --- hostile input: ParseError naming file and line -------------------------------------
    void emptyFile() {
        const auto file = dir_.write("empty.json", "  \n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 2, "empty file");
    }
    void notAnObject() {
        const auto file = dir_.write("array.json", "\n[1, 2]\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 2, "expected '{'");
    }
    void noDocuments() {
        const auto file = dir_.write("nodocs.json", "{\"source\": \"x\", \"documents\": []}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 0, "no documents");
    }
    void truncatedFile() {
        const std::string json = formatBioCJson(fixture(), fixedDate());
        for (const std::size_t size : {json.size() / 2, json.size() - 3, std::size_t{40}}) {
            const std::string cut = json.substr(0, size);
            const auto file = dir_.write("cut.json", cut);
            const auto lastLine = static_cast<std::size_t>(std::count(cut.begin(), cut.end(), '\n')) + 1;
            LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, lastLine, "truncated");
        }
    }
    void somethingAfterTheCollection() {
        const auto file = dir_.write("after.json", collectionWith("") + "{}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 6, "more after the end of the collection");
    }
    void secondDocumentsArray() {
        const auto file = dir_.write("two.json", "{\"documents\": [],\n\"PubTator3\": []}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 2, "a second documents array");
    }
    void deepNestingIsRefusedBeforeParsing() {
        const std::string deep = std::string(100000, '[') + std::string(100000, ']');
        const auto file = dir_.write("deep.json", collectionWith("", "\"infons\": {\"x\": " + deep + "}, "));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 3, "nested deeper than 64 levels");
        const auto member = dir_.write("deep-member.json", "{\"infons\":\n" + deep + "}");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(member), member, 2, "nested deeper than 64 levels");
    }
    void oversizedValueIsRefusedAsItIsRead() {
        const auto file = dir_.write("big.json", collectionWith(annotation(kCough)));
        BioCJsonScanner scanner(file, 100);
        BioCJsonScanner::Piece piece;
        LINKSCOPE_EXPECT_PARSE_ERROR(while (scanner.next(piece)){}, file, 3, "a value of more than 100 bytes");
    }
    void hugeOffsetsAreOutsideTheText() {
        for (const char* location :
             {"{\"offset\": 18446744073709551615, \"length\": 5}", "{\"offset\": 17, \"length\": 18446744073709551615}",
              "{\"offset\": 30, \"length\": 5}"}) {
            const auto file = dir_.write("outside.json", collectionWith(annotation(location)));
            LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 3, "outside the text (33 characters)");
        }
        const auto passage = dir_.write(
            "passage.json",
            "{\"documents\": [{\"id\": \"1\", \"passages\": [{\"offset\": 99999999999, \"text\": \"x\"}]}]}");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(passage), passage, 1, "at offset 99999999999, expected 0");
    }
    void wrongTypes_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("negative offset") << QString::fromStdString(annotation("{\"offset\": -1, \"length\": 5}"))
                                         << "\"offset\" -1 is not a non-negative integer";
        QTest::newRow("float length") << QString::fromStdString(annotation("{\"offset\": 17, \"length\": 5.0}"))
                                      << "\"length\" 5.0 is not a non-negative integer";
        QTest::newRow("string offset") << QString::fromStdString(annotation("{\"offset\": \"17\", \"length\": 5}"))
                                       << "\"offset\" \"17\" is not a non-negative integer";
        QTest::newRow("text number") << QString::fromStdString(annotation(kCough, "5")) << "\"text\" must be a string";
        QTest::newRow("infons list") << QString::fromStdString(annotation(kCough, "\"Cough\"", "[]"))
                                     << "\"infons\" must be an object";
        QTest::newRow("type object") << QString::fromStdString(annotation(kCough, "\"Cough\"", "{\"type\": {}}"))
                                     << "infon \"type\" must be a string";
        QTest::newRow("locations object")
            << QString::fromStdString(annotation("").replace(annotation("").find("[]"), 2, "{}"))
            << "\"locations\" must be a list";
        QTest::newRow("annotation string") << "\"Cough\""
                                           << "an annotation must be an object";
        QTest::newRow("no location") << QString::fromStdString(annotation("")) << "without a location";
        QTest::newRow("two locations") << QString::fromStdString(
                                              annotation(std::string(kCough) + ", " + std::string(kCough)))
                                       << "discontinuous";
        QTest::newRow("zero length") << QString::fromStdString(annotation("{\"offset\": 17, \"length\": 0}"))
                                     << "length 0";
        QTest::newRow("text mismatch") << QString::fromStdString(annotation(kCough, "\"Fever\""))
                                       << "does not match the document text \"Cough\"";
        QTest::newRow("nul") << QString::fromStdString(annotation(kCough, "\"Co\\u0000gh\"")) << "NUL character";
        QTest::newRow("no type") << QString::fromStdString(annotation(kCough, "\"Cough\"", "{\"identifier\": \"D1\"}"))
                                 << "without a \"type\" infon";
        QTest::newRow("broken identifier")
            << QString::fromStdString(
                   annotation(kCough, "\"Cough\"", "{\"type\": \"D\", \"identifier\": \"D1|D2+D3\"}"))
            << "mixes '|' and '+'";
    }
    void wrongTypes() {
        QFETCH(QString, json);
        QFETCH(QString, fragment);
        const auto file = dir_.write("wrong.json", collectionWith(json.toStdString()));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 3, fragment.toStdString());
    }
    // Syntax errors name the line where the parser stopped (the annotations' line, 4).
    void syntaxInsideADocument() {
        const auto file = dir_.write("syntax-inside.json", collectionWith(annotation(kCough, "\"\\ud800\"")));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 4, "not valid JSON");
        // A number out of range has no position from the parser: the document's line.
        const auto huge =
            dir_.write("huge-number.json", collectionWith(annotation("{\"offset\": 1e999, \"length\": 5}")));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(huge), huge, 3, "not valid JSON");
    }
    void invalidUtf8() {
        std::string json = collectionWith(annotation(kCough));
        json.replace(json.find("persisted"), 1, "\xC7");  // a Latin-1 byte
        const auto file = dir_.write("latin1.json", json);
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 4, "ill-formed UTF-8");
        std::string outside = collectionWith("");
        outside.replace(outside.find("\"documents\""), 0, "\xFF");
        const auto key = dir_.write("latin1-key.json", outside);
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(key), key, 2, "expected a key");
    }
    void errorsNameTheLineOfTheSyntaxError() {
        const auto file = dir_.write("syntax.json", "{\"documents\": [\n{\"id\": \"1\",\n\"passages\": [}\n]}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(file), file, 3, "not valid JSON");
    }
    void passagesMustMakeTitleAndAbstract() {
        const auto three =
            dir_.write("three.json",
                       "{\"documents\": [{\"id\": \"1\", \"passages\": [{\"offset\": 0, \"text\": \"a\"}, "
                       "{\"offset\": 2, \"text\": \"b\"}, {\"offset\": 4, \"text\": \"c\"}]}]}");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(three), three, 1, "3 passages");
        const auto gap = dir_.write("gap.json",
                                    "{\"documents\": [{\"id\": \"1\", \"passages\": [{\"offset\": 0, "
                                    "\"text\": \"a\"}, {\"offset\": 5, \"text\": \"b\"}]}]}");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(gap), gap, 1, "at offset 5, expected 2");
        const auto id = dir_.write("id.json", "{\"documents\": [{\"id\": \"a b\", \"passages\": []}]}");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(id), id, 1, "malformed document id");
    }
    void fifoIsRefused() {
        const auto fifo = dir_.path("fifo.json");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        LINKSCOPE_EXPECT_PARSE_ERROR(readBioCJson(fifo), fifo, 0, "FIFO");
    }
};

QTEST_GUILESS_MAIN(TestBioCJson)
#include "test_bioc_json.moc"
