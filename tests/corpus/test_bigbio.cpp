// BigBio KB JSON lines: the export fixture written and read back keeps every annotation that
// BigBio can hold (composites, CUI-less and unlinked mentions, relations between linked
// entities, title-only documents) and counts what it cannot; a BigBio-style file with
// lower-case db names, events and extra keys reads, its extras reported; a linker's candidates
// are written; and hostile lines are ParseErrors naming the file and line: deep nesting, huge
// offsets, offsets past the text, wrong types, NUL, invalid UTF-8, truncation, overlong lines.
#include <sys/stat.h>

#include <algorithm>

#include "corpus/bigbio_reader.h"
#include "corpus/bigbio_writer.h"
#include "corpus/corpus_format.h"
#include "corpus/corpus_input.h"
#include "corpus/json_chunk_writers.h"
#include "corpus/pubtator_reader.h"
#include "error_of.h"
#include "export_fixtures.h"
#include "gzip_fixture.h"
#include "util/line_reader.h"

using namespace linkscope;
using test::FixtureDir;

namespace {

// Title "Fever and cough." (16 characters) at [0, 16], abstract "Cough persisted." at [17, 33].
std::string lineWith(std::string_view entities, std::string_view extra = "") {
    return "{\"id\": \"0\", \"document_id\": \"7\", " + std::string(extra) +
           "\"passages\": [{\"id\": \"p1\", \"type\": \"title\", \"text\": [\"Fever and cough.\"], \"offsets\": [[0, "
           "16]]},"
           " {\"id\": \"p2\", \"type\": \"abstract\", \"text\": [\"Cough persisted.\"], \"offsets\": [[17, 33]]}],"
           " \"entities\": [" +
           std::string(entities) + "], \"events\": [], \"coreferences\": [], \"relations\": []}";
}

std::string entity(std::string_view offsets = "[[17, 22]]", std::string_view text = "[\"Cough\"]",
                   std::string_view normalized = "[{\"db_name\": \"MESH\", \"db_id\": \"D003371\"}]") {
    return "{\"id\": \"e1\", \"type\": \"Disease\", \"text\": " + std::string(text) +
           ", \"offsets\": " + std::string(offsets) + ", \"normalized\": " + std::string(normalized) + "}";
}

}  // namespace

class TestBigBio : public QObject {
    Q_OBJECT
    FixtureDir dir_;

    Corpus fixture() { return readPubTator(dir_.write("fixture.txt", test::kExportFixture)); }

private Q_SLOTS:
    void roundTripKeepsWhatBigBioHolds() {
        const Corpus original = fixture();
        const auto file = dir_.path("fixture.jsonl");
        const BigBioExportSummary summary = writeBigBio(original, file);
        QCOMPARE(summary.documents, original.size());
        QCOMPARE(summary.entities, std::size_t{14});
        // 400's CID is between two entities linked to one id each; 300's names D010300, which
        // only a composite (D010300|-1) carries: no entity to point at.
        QCOMPARE(summary.relations, std::size_t{1});
        QCOMPARE(summary.relationsLeftOut, std::size_t{1});
        QCOMPARE(summary.individualMentionListsLeftOut, std::size_t{1});
        QVERIFY(!summary.complete());
        const Corpus back = readBigBio(file);
        QCOMPARE(back.size(), original.size());
        for (std::size_t i = 0; i < original.size(); ++i)
            QCOMPARE(back.documents()[i].pmid(), original.documents()[i].pmid());
        QVERIFY(back.diagnostics.empty());
        for (const Document& document : original.documents()) {
            Document expected = document;
            if (expected.pmid() == "300") expected.relations.clear();
            const auto difference = test::annotationDifference(expected, *back.find(document.pmid()),
                                                               {.relations = true, .individualMentions = false});
            QVERIFY2(difference.empty(), difference.c_str());
        }
        BigBioExportSummary again;
        QCOMPARE(formatBigBio(back, again), test::readFile(file));
    }

    void linksAreNormalizedEntries() {
        BigBioExportSummary summary;
        const std::string text = formatBigBio(fixture(), summary);
        QVERIFY(text.find("\"normalized\":[{\"db_name\":\"MESH\",\"db_id\":\"D001943\"}]") != std::string::npos);
        QVERIFY(text.find("\"normalized\":[{\"db_name\":\"\",\"db_id\":\"672\"}]") != std::string::npos);
        QVERIFY(text.find("\"normalized\":[{\"db_name\":\"UMLS\",\"db_id\":\"C0079419\"}]") != std::string::npos);
        QVERIFY(text.find("\"linkscope_join\":\"+\"") != std::string::npos);
        // 300's abstract starts at character 56 (a title of 55 characters, 57 bytes).
        QVERIFY(text.find("\"offsets\":[[56,") != std::string::npos);
        QVERIFY(text.find("\"offsets\":[[66,77]]") != std::string::npos);
        QCOMPARE(std::count(text.begin(), text.end(), '\n'), static_cast<std::ptrdiff_t>(4));
    }

    void chunkWriterWritesTheSameFile() {
        const Corpus corpus = fixture();
        const auto file = dir_.path("chunks.jsonl");
        BigBioChunkWriter writer(file);
        for (std::size_t d = 0; d < corpus.size(); d += 3) {
            Corpus chunk;
            for (std::size_t i = d; i < std::min(d + 3, corpus.size()); ++i) chunk.add(corpus.documents()[i]);
            writer.write(chunk);
        }
        writer.commit();
        BigBioExportSummary summary;
        const std::string whole = formatBigBio(corpus, summary);
        QCOMPARE(test::readFile(file), whole);
        QCOMPARE(writer.bytes(), std::uint64_t(whole.size()));
        QCOMPARE(writer.summary().relationsLeftOut, summary.relationsLeftOut);
    }
    void candidatesAreWrittenBestFirst() {
        BigBioWriteOptions options;
        options.candidates = [](std::size_t document, std::size_t mention) {
            if (document != 2 || mention != 0) return std::vector<BigBioCandidate>{};
            return std::vector<BigBioCandidate>{{"MESH:D006973", 0.75}, {"OMIM:145500", 0.5}};
        };
        BigBioExportSummary summary;
        const std::string text = formatBigBio(fixture(), summary, options);
        QVERIFY(text.find("\"linkscope_candidates\":[{\"db_name\":\"MESH\",\"db_id\":\"D006973\",\"score\":0.75},"
                          "{\"db_name\":\"OMIM\",\"db_id\":\"145500\",\"score\":0.5}]") != std::string::npos);
        QCOMPARE(std::count(text.begin(), text.end(), 's') > 0, true);
        const auto file = dir_.write("candidates.jsonl", text);
        const Corpus back = readBigBio(file);
        QCOMPARE(back.diagnostics.size(), std::size_t{1});
        QVERIFY(back.diagnostics[0].message.find("entity key \"linkscope_candidates\"") != std::string::npos);
    }

    // The shape BigBio's loaders give (ncbi_disease_bigbio_kb, bc5cdr_bigbio_kb): lower-case db
    // names, db ids with or without their prefix, a relation between entities, and extras.
    void bigBioStyle() {
        const auto file = dir_.write(
            "bc5cdr_bigbio_kb.jsonl",
            "{\"id\": \"0\", \"document_id\": \"227508\", \"passages\": ["
            "{\"id\": \"1\", \"type\": \"title\", \"text\": [\"Naloxone reverses hypertension.\"], \"offsets\": [[0, "
            "31]]},"
            " {\"id\": \"2\", \"type\": \"abstract\", \"text\": [\"Clonidine too.\"], \"offsets\": [[32, 46]]}],"
            " \"entities\": ["
            "{\"id\": \"3\", \"type\": \"Chemical\", \"text\": [\"Naloxone\"], \"offsets\": [[0, 8]], \"normalized\": "
            "[{\"db_name\": \"MESH\", \"db_id\": \"D009270\"}]},"
            " {\"id\": \"4\", \"type\": \"Disease\", \"text\": [\"hypertension\"], \"offsets\": [[18, 30]], "
            "\"normalized\": [{\"db_name\": \"mesh\", \"db_id\": \"mesh:D006973\"}]},"
            " {\"id\": \"5\", \"type\": \"Chemical\", \"text\": [\"Clonidine\"], \"offsets\": [[32, 41]], "
            "\"normalized\": [{\"db_name\": \"omim\", \"db_id\": \"123\"}, {\"db_name\": \"MESH\", \"db_id\": "
            "\"D003000\"}]}],"
            " \"events\": [{\"id\": \"9\"}], \"coreferences\": [],"
            " \"relations\": [{\"id\": \"6\", \"type\": \"CID\", \"arg1_id\": \"3\", \"arg2_id\": \"4\", "
            "\"normalized\": []}, {\"id\": \"7\", \"type\": \"CID\", \"arg1_id\": \"5\", \"arg2_id\": \"4\", "
            "\"normalized\": []}]}\n\n");
        QCOMPARE(detectCorpusFormat(file), CorpusFormat::BigBio);
        const Corpus corpus = readCorpus(file);
        QCOMPARE(corpus.name, std::string("bc5cdr_bigbio_kb"));
        const Document& document = corpus.documents()[0];
        QCOMPARE(document.pmid(), std::string("227508"));
        QCOMPARE(document.abstractStart(), std::size_t{32});
        QCOMPARE(document.mentions[1].ids.ids, std::vector<std::string>{"MESH:D006973"});
        QCOMPARE(document.mentions[1].idColumn, std::string("D006973"));
        QCOMPARE(document.mentions[2].ids.ids, (std::vector<std::string>{"OMIM:123", "MESH:D003000"}));
        QCOMPARE(document.mentions[2].ids.join, IdJoin::Alternative);
        QCOMPARE(document.relations.size(), std::size_t{1});
        QCOMPARE(document.relations[0].arguments, (std::vector<std::string>{"MESH:D009270", "MESH:D006973"}));
        std::string notes;
        for (const auto& diagnostic : corpus.diagnostics) notes += diagnostic.message + "\n";
        QVERIFY2(notes.find("events") != std::string::npos, notes.c_str());
        QVERIFY2(notes.find("relation between entities that are not linked to one id each") != std::string::npos,
                 notes.c_str());
    }

    void detectionByNameAndFirstLine() {
        const std::string line = lineWith(entity()) + "\n";
        QCOMPARE(detectCorpusFormat(dir_.write("a.jsonl", line)), CorpusFormat::BigBio);
        QCOMPARE(detectCorpusFormat(dir_.write("a.json", line)), CorpusFormat::BigBio);
        QCOMPARE(detectCorpusFormat(dir_.write("b.txt", line)), CorpusFormat::BigBio);
        const auto gz = dir_.path("a.jsonl.gz");
        test::writeGzip(gz, line);
        QCOMPARE(detectCorpusFormat(gz), CorpusFormat::BigBio);
        QCOMPARE(readCorpus(gz).size(), std::size_t{1});
        QCOMPARE(corpusFormatFromName("bigbio"), std::optional(CorpusFormat::BigBio));
        QCOMPARE(corpusFormatName(CorpusFormat::BigBio), std::string_view("bigbio"));
    }

    void documentsStreamOneAtATime() {
        BigBioExportSummary summary;
        const auto file = dir_.write("fixture.jsonl", formatBigBio(fixture(), summary));
        BigBioDocumentReader reader(file);
        std::vector<std::string> pmids;
        while (auto document = reader.next()) pmids.push_back(document->pmid());
        QCOMPARE(pmids, (std::vector<std::string>{"1001", "300", "400", "401"}));
        // And one line parses on its own.
        LeftOutTally leftOut;
        const Document one =
            parseBigBioDocument(formatBigBioDocument(fixture().documents()[0], summary), "x", 1, leftOut);
        QVERIFY(test::annotationDifference(fixture().documents()[0], one).empty());
        QVERIFY(leftOut.empty());
    }

    void writerRefusesWhatItCannotHold() {
        Corpus corpus = fixture();
        corpus.documents()[0].abstract = std::string("a\0b", 3);
        BigBioExportSummary summary;
        QVERIFY(test::errorOf([&] { (void)formatBigBio(corpus, summary); }).find("NUL") != std::string::npos);
        Corpus invalid = fixture();
        invalid.documents()[0].mentions[0].type = "\xFF";
        QVERIFY(test::errorOf([&] { (void)formatBigBio(invalid, summary); }).find("UTF-8") != std::string::npos);
    }

    // --- hostile input ------------------------------------------------------------------------
    void emptyFile() {
        const auto file = dir_.write("empty.jsonl", "\n\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBigBio(file), file, 0, "empty file");
    }
    void errorsNameTheLine() {
        const auto file = dir_.write("two.jsonl", lineWith(entity()) + "\n" + lineWith(entity("[[30, 35]]")) + "\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBigBio(file), file, 2, "outside the text (33 characters)");
    }
    void truncatedLine() {
        const std::string line = lineWith(entity());
        const auto file = dir_.write("cut.jsonl", line + "\n" + line.substr(0, line.size() / 2));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBigBio(file), file, 2, "not valid JSON");
    }
    void deepNesting() {
        const std::string deep = std::string(100000, '[') + std::string(100000, ']');
        const auto file = dir_.write("deep.jsonl", lineWith(entity(), "\"x\": " + deep + ", "));
        LINKSCOPE_EXPECT_PARSE_ERROR(readBigBio(file), file, 1, "nested deeper than 64 levels");
    }
    void overlongLineIsRefusedAsItIsRead() {
        const auto file = dir_.path("long.jsonl");
        {
            std::ofstream out(file, std::ios::binary);
            out << "{\"id\": \"" << std::string(kMaxBigBioLineBytes + 16, 'x') << "\"}\n";
        }
        LINKSCOPE_EXPECT_PARSE_ERROR(readBigBio(file), file, 1, "longer than");
    }
    void wrongTypes_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("fragment");
        const auto row = [](const char* name, const std::string& line, const char* fragment) {
            QTest::newRow(name) << QString::fromStdString(line) << QString::fromLatin1(fragment);
        };
        row("not an object", "[1]", "must be a JSON object");
        row("negative offset", lineWith(entity("[[-1, 5]]")), "start offset -1 is not a non-negative integer");
        row("float offset", lineWith(entity("[[17.0, 22]]")), "start offset 17.0 is not");
        row("huge offsets", lineWith(entity("[[18446744073709551610, 18446744073709551615]]")), "outside the text");
        row("reversed", lineWith(entity("[[22, 17]]")), "end before they start");
        row("not a pair", lineWith(entity("[[17]]")), "[start, end] pairs");
        row("discontinuous", lineWith(entity("[[17, 19], [20, 22]]", "[\"Co\", \"gh\"]")), "discontinuous");
        row("empty", lineWith(entity("[[17, 17]]", "[\"\"]")), "is empty");
        row("text not a list", lineWith(entity("[[17, 22]]", "\"Cough\"")), "\"text\" must be a list");
        row("text mismatch", lineWith(entity("[[17, 22]]", "[\"Fever\"]")), "does not match the document text");
        row("nul", lineWith(entity("[[17, 22]]", "[\"Co\\u0000gh\"]")), "NUL character");
        row("lone surrogate", lineWith(entity("[[17, 22]]", "[\"\\udc00\"]")), "not valid JSON");
        row("normalized object", lineWith(entity("[[17, 22]]", "[\"Cough\"]", "{}")), "must be a list");
        row("db_id missing", lineWith(entity("[[17, 22]]", "[\"Cough\"]", "[{\"db_name\": \"MESH\"}]")),
            "without a \"db_id\"");
        row("db_id list", lineWith(entity("[[17, 22]]", "[\"Cough\"]", "[{\"db_id\": []}]")), "must be a string");
        row("bar in id", lineWith(entity("[[17, 22]]", "[\"Cough\"]", "[{\"db_name\": \"\", \"db_id\": \"A|B\"}]")),
            "holds '|' or '+'");
        row("passage offsets", lineWith("").replace(lineWith("").find("[[17, 33]]"), 10, "[[18, 34]]"),
            "expected [17, 33]");
        row("no passages", "{\"document_id\": \"1\"}", "without \"passages\"");
        row("three passages",
            "{\"document_id\": \"1\", \"passages\": [{\"text\": [\"a\"], \"offsets\": [[0, 1]]}, {\"text\": [\"b\"], "
            "\"offsets\": [[2, 3]]}, {\"text\": [\"c\"], \"offsets\": [[4, 5]]}]}",
            "3 passages");
        row("bad id", "{\"document_id\": \"a/b\", \"passages\": []}", "malformed document id");
        row("unknown relation argument",
            lineWith(entity()).replace(
                lineWith(entity()).find("\"relations\": []"), 15,
                "\"relations\": [{\"type\": \"CID\", \"arg1_id\": \"e1\", \"arg2_id\": \"e9\"}]"),
            "names the entity \"e9\"");
        row("duplicate entity id", lineWith(entity() + ", " + entity()), "two entities with the id \"e1\"");
    }
    void wrongTypes() {
        QFETCH(QString, line);
        QFETCH(QString, fragment);
        const auto file = dir_.write("wrong.jsonl", "\n" + line.toStdString() + "\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBigBio(file), file, 2, fragment.toStdString());
    }
    void invalidUtf8() {
        std::string line = lineWith(entity());
        line.replace(line.find("persisted"), 1, "\xC7");
        const auto file = dir_.write("latin1.jsonl", line + "\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(readBigBio(file), file, 1, "UTF-8");
    }
    void fifoIsRefused() {
        const auto fifo = dir_.path("fifo.jsonl");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        LINKSCOPE_EXPECT_PARSE_ERROR(readBigBio(fifo), fifo, 0, "FIFO");
    }
};

QTEST_GUILESS_MAIN(TestBigBio)
#include "test_bigbio.moc"
