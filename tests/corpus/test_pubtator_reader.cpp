// Reading PubTator files: the data model, the three corpus dialects (NCBI Disease, BC5CDR,
// MedMentions), character offsets in Unicode text, gzip, duplicates and lenient mode.
#include "corpus/corpus.h"
#include "corpus/document_text.h"
#include "corpus/pubtator_reader.h"
#include "corpus_fixtures.h"
#include "gzip_fixture.h"

using namespace linkscope;
using test::FixtureDir;
using test::kNcbiStyle;

namespace {

// BC5CDR style, with a blank line after the last document.
const std::string kBc5cdrStyle = std::string(test::kBc5cdrDocument) + "\n";

constexpr std::string_view kMedMentionsStyle =
    "25763772|t|DCTN4 as a modifier of chronic Pseudomonas aeruginosa infection in cystic fibrosis\n"
    "25763772|a|Pseudomonas aeruginosa (Pa) infection in cystic fibrosis (CF) patients is associated with "
    "worse long-term pulmonary disease.\n"
    "25763772\t0\t5\tDCTN4\tT116,T123\tC4308010\n"
    "25763772\t23\t63\tchronic Pseudomonas aeruginosa infection\tT047\tC0854135\n"
    "25763772\t67\t82\tcystic fibrosis\tT047\tUMLS:C0010674\n"
    "25763772\t189\t206\tpulmonary disease\tDiseaseOrSyndrome\tC0024115\n";

// Greek letters before the mentions, and a 4-byte character (U+1D6FC) in the abstract.
constexpr std::string_view kUnicode =
    "300|t|Role of \xce\xb1-synuclein and \xce\xb2-amyloid in Parkinson disease.\n"
    "300|a|Levels of \xf0\x9d\x9b\xbc-synuclein rose in Parkinson disease patients.\n"
    "300\t24\t33\t\xce\xb2-amyloid\tChemical\tD016229\n"
    "300\t37\t54\tParkinson disease\tDisease\tD010300\n"
    "300\t66\t77\t\xf0\x9d\x9b\xbc-synuclein\tChemical\tD051844\n"
    "300\t86\t103\tParkinson disease\tDisease\tD010300\n";

bool anyDiagnostic(const Corpus& corpus, std::size_t line, std::string_view fragment) {
    for (const auto& d : corpus.diagnostics)
        if (d.line == line && d.message.find(fragment) != std::string::npos) return true;
    return false;
}

}  // namespace

class TestPubTatorReader : public QObject {
    Q_OBJECT
    FixtureDir dir_;

private Q_SLOTS:
    void ncbiStyleDocuments() {
        const auto path = dir_.write("ncbi_style.txt", kNcbiStyle);
        const Corpus corpus = readPubTator(path);
        QCOMPARE(corpus.name, std::string("ncbi_style"));
        QCOMPARE(corpus.sourceFiles, (std::vector<std::string>{path.string()}));
        QCOMPARE(corpus.size(), std::size_t{2});
        QVERIFY(corpus.diagnostics.empty());
        QVERIFY(corpus.duplicates.empty());
        QCOMPARE(corpus.layout.leadingBlankLines, std::size_t{1});
        QCOMPARE(corpus.layout.trailingBlankLines, std::size_t{0});

        const Document& first = corpus.documents()[0];
        QCOMPARE(first.pmid(), std::string("100"));
        QCOMPARE(first.title, std::string("BRCA1 mutations cause breast cancer."));
        QCOMPARE(first.abstract, std::string("Ovarian cancer and breast cancer share risk factors."));
        QCOMPARE(first.text(), first.title + " " + first.abstract);
        QCOMPARE(first.abstractStart(), std::size_t{37});
        QCOMPARE(first.sourceFile, path.string());
        QCOMPARE(first.sourceLine, std::size_t{2});
        QCOMPARE(first.mentions.size(), std::size_t{3});

        const Mention& breast = first.mentions[0];
        QCOMPARE(breast.start, std::size_t{22});
        QCOMPARE(breast.end, std::size_t{35});
        QCOMPARE(breast.text, std::string("breast cancer"));
        QCOMPARE(breast.type, std::string("SpecificDisease"));
        QVERIFY(breast.semanticTypes.empty());
        QCOMPARE(breast.ids.ids, (std::vector<std::string>{"MESH:D001943"}));
        QCOMPARE(breast.ids.join, IdJoin::Single);
        QCOMPARE(breast.sourceLine, std::size_t{4});
        QVERIFY(breast.offsetsValid);
        QVERIFY(!breast.hasIndividualMentionColumn);

        const Mention& ovarian = first.mentions[1];
        QCOMPARE(ovarian.idColumn, std::string(" D010051"));  // kept as written
        QCOMPARE(ovarian.ids.ids, (std::vector<std::string>{"MESH:D010051"}));

        const Mention& composite = first.mentions[2];
        QCOMPARE(composite.ids.join, IdJoin::Alternative);
        QCOMPARE(composite.ids.ids, (std::vector<std::string>{"MESH:D010051", "MESH:D001943"}));

        const Document& second = corpus.documents()[1];
        QCOMPARE(second.sourceLine, std::size_t{8});
        QCOMPARE(second.mentions[0].ids.ids, (std::vector<std::string>{"OMIM:312080"}));
        QCOMPARE(second.mentions[0].idColumn, std::string("OMIM:312080 "));
        QCOMPARE(second.mentions[1].ids.join, IdJoin::Conjunction);
        QCOMPARE(second.mentions[1].ids.ids, (std::vector<std::string>{"MESH:D020279", "MESH:D035583"}));
        QCOMPARE(second.mentions[2].text, std::string("PMD"));  // first character of the abstract
        QCOMPARE(second.mentions[2].start, second.abstractStart());
    }

    void lookupByPmid() {
        const Corpus corpus = readPubTator(dir_.write("lookup.txt", kNcbiStyle));
        QVERIFY(corpus.contains("101"));
        QCOMPARE(corpus.find("101")->title.substr(0, 9), std::string("Pelizaeus"));
        QVERIFY(corpus.find("102") == nullptr);
        QVERIFY(!corpus.contains(""));
        Corpus copy = corpus;
        QVERIFY_THROWS_EXCEPTION(Error, copy.add(Document("100")));
        copy.add(Document("555"));
        QCOMPARE(copy.size(), std::size_t{3});
        QVERIFY(copy.find("555") == &copy.documents()[2]);
    }

    void bc5cdrStyleColumnsAndRelations() {
        const Corpus corpus = readPubTator(dir_.write("cdr_style.txt", kBc5cdrStyle));
        QCOMPARE(corpus.size(), std::size_t{1});
        QCOMPARE(corpus.layout.leadingBlankLines, std::size_t{0});
        QCOMPARE(corpus.layout.trailingBlankLines, std::size_t{1});
        const Document& doc = corpus.documents()[0];
        QCOMPARE(doc.mentions.size(), std::size_t{4});

        const Mention& naloxone = doc.mentions[0];
        QVERIFY(naloxone.hasIndividualMentionColumn);  // trailing TAB: empty 7th column
        QVERIFY(naloxone.individualMentions.empty());

        const Mention& partlyCuiLess = doc.mentions[1];
        QVERIFY(!partlyCuiLess.ids.cuiLess);
        QCOMPARE(partlyCuiLess.ids.ids, (std::vector<std::string>{"MESH:D002544", "-1"}));

        const Mention& composite = doc.mentions[2];
        QCOMPARE(composite.individualMentions, (std::vector<std::string>{"ocular toxicity", "auditory toxicity"}));
        QCOMPARE(composite.ids.ids.size(), std::size_t{2});

        const Mention& cuiLess = doc.mentions[3];
        QVERIFY(cuiLess.ids.cuiLess);
        QVERIFY(cuiLess.ids.ids.empty());
        QCOMPARE(cuiLess.idColumn, std::string("-1"));
        QVERIFY(!cuiLess.hasIndividualMentionColumn);  // this line has six columns

        QCOMPARE(doc.relations.size(), std::size_t{1});
        const Relation& cid = doc.relations[0];
        QCOMPARE(cid.type, std::string("CID"));
        QCOMPARE(cid.arguments, (std::vector<std::string>{"MESH:D009270", "MESH:D006973"}));
        QCOMPARE(cid.rawArguments, (std::vector<std::string>{"D009270", "D006973"}));
        QCOMPARE(cid.sourceLine, std::size_t{7});
    }

    void medMentionsStyleSemanticTypes() {
        const Corpus corpus = readPubTator(dir_.write("medmentions.txt", kMedMentionsStyle));
        const Document& doc = corpus.documents()[0];
        QCOMPARE(doc.mentions.size(), std::size_t{4});
        QCOMPARE(doc.mentions[0].type, std::string("T116,T123"));
        QCOMPARE(doc.mentions[0].semanticTypes, (std::vector<std::string>{"T116", "T123"}));
        QCOMPARE(doc.mentions[0].ids.ids, (std::vector<std::string>{"UMLS:C4308010"}));
        QCOMPARE(doc.mentions[1].semanticTypes, (std::vector<std::string>{"T047"}));
        QCOMPARE(doc.mentions[1].text, std::string("chronic Pseudomonas aeruginosa infection"));
        QCOMPARE(doc.mentions[2].ids.ids, (std::vector<std::string>{"UMLS:C0010674"}));  // st21pv spelling
        QVERIFY(doc.mentions[3].semanticTypes.empty());                                  // not a TUI list
        QCOMPARE(doc.mentions[3].text, std::string("pulmonary disease"));
    }

    void unicodeOffsetsCountCharacters() {
        const Corpus corpus = readPubTator(dir_.write("unicode.txt", kUnicode));
        QVERIFY(corpus.diagnostics.empty());
        const Document& doc = corpus.documents()[0];
        QCOMPARE(doc.mentions.size(), std::size_t{4});
        for (const auto& mention : doc.mentions) QVERIFY(mention.offsetsValid);
        QCOMPARE(doc.mentions[0].text, std::string("\xce\xb2-amyloid"));
        QCOMPARE(doc.abstractStart(), std::size_t{56});
        QCOMPARE(doc.characterCount(), std::size_t{113});
        QCOMPARE(doc.text().size(), std::size_t{118});

        // β-amyloid: characters 24-33, bytes 25-35 (α before it takes two bytes, β two).
        QCOMPARE(Document::characterRange(doc.mentions[0]), (CharRange{24, 33}));
        QCOMPARE(doc.byteRange(doc.mentions[0]), std::optional<ByteRange>(ByteRange{25, 35}));
        // the 4-byte U+1D6FC: characters 66-77, bytes 68-82
        QCOMPARE(doc.byteRange(doc.mentions[2]), std::optional<ByteRange>(ByteRange{68, 82}));

        const DocumentText text(doc);
        QVERIFY(!text.isAscii());
        QCOMPARE(text.characterCount(), std::size_t{113});
        for (const auto& mention : doc.mentions) {
            QCOMPARE(text.byteRange(Document::characterRange(mention)), doc.byteRange(mention));
            QCOMPARE(std::string(*text.slice(Document::characterRange(mention))), mention.text);
        }
        QCOMPARE(text.characterAt(25), std::size_t{24});
        QCOMPARE(text.characterAt(26), std::size_t{24});  // the second byte of β
        QCOMPARE(text.characterAt(70), std::size_t{66});  // inside the 4-byte character
        QCOMPARE(text.characterAt(1000), std::size_t{113});
        QVERIFY(!text.slice({100, 114}).has_value());
        QVERIFY(!text.byteRange({5, 4}).has_value());
        Mention outside;
        outside.start = 110;
        outside.end = 120;
        QVERIFY(!doc.byteRange(outside).has_value());
        Mention atEnd;
        atEnd.start = 113;
        atEnd.end = 113;
        QCOMPARE(doc.byteRange(atEnd), std::optional<ByteRange>(ByteRange{118, 118}));
    }

    void asciiDocumentTextNeedsNoTable() {
        const DocumentText text(std::string("plain ascii"));
        QVERIFY(text.isAscii());
        QCOMPARE(text.byteRange({6, 11}), std::optional<ByteRange>(ByteRange{6, 11}));
        QCOMPARE(text.characterAt(3), std::size_t{3});
    }

    void readsGzipTransparently() {
        const auto plain = readPubTator(dir_.write("plain.txt", kBc5cdrStyle));
        test::writeGzip(dir_.path("packed.txt.gz"), kBc5cdrStyle);
        const auto packed = readPubTator(dir_.path("packed.txt.gz"));
        QCOMPARE(packed.name, std::string("packed"));
        QCOMPARE(packed.size(), plain.size());
        QVERIFY(sameContent(packed.documents()[0], plain.documents()[0]));
    }

    void identicalDuplicateIsReportedAndKeptOnce() {
        std::string content(kNcbiStyle);
        content += "\n";
        content += std::string(kNcbiStyle.substr(1)).substr(0, std::string(kNcbiStyle.substr(1)).find("\n\n") + 1);
        // content: documents 100, 101, then 100 again (title at line 14)
        const auto path = dir_.write("dup.txt", content);
        const Corpus corpus = readPubTator(path);
        QCOMPARE(corpus.size(), std::size_t{2});
        QCOMPARE(corpus.duplicates.size(), std::size_t{1});
        const auto& dup = corpus.duplicates[0];
        QCOMPARE(dup.pmid, std::string("100"));
        QCOMPARE(dup.keptLine, std::size_t{2});
        QCOMPARE(dup.droppedLine, std::size_t{14});
        QCOMPARE(dup.keptFile, path.string());
        QVERIFY(dup.identical);
        QCOMPARE(corpus.diagnostics.size(), std::size_t{1});
        const auto message = corpus.diagnostics[0].toString();
        QVERIFY2(message.find("dup.txt:14:") != std::string::npos, message.c_str());
        QVERIFY2(message.find("dup.txt:2)") != std::string::npos, message.c_str());
        QVERIFY2(message.find("identical") != std::string::npos, message.c_str());
        QCOMPARE(corpus.documents()[0].sourceLine, std::size_t{2});  // the first copy stays
        QCOMPARE(corpus.documents()[1].pmid(), std::string("101"));
    }

    void differingDuplicateSaysWhatDiffers() {
        const auto path = dir_.write("dup2.txt",
                                     "7|t|Title.\n7|a|Abstract.\n7\t0\t5\tTitle\tDisease\tD000001\n\n"
                                     "7|t|Title.\n7|a|Abstract.\n7\t0\t5\tTitle\tDisease\tD000002\n");
        const Corpus corpus = readPubTator(path);
        QCOMPARE(corpus.size(), std::size_t{1});
        QCOMPARE(corpus.duplicates.size(), std::size_t{1});
        QVERIFY(!corpus.duplicates[0].identical);
        QVERIFY(anyDiagnostic(corpus, 5, "mention 1 differs (lines 3 and 7)"));
        QCOMPARE(corpus.documents()[0].mentions[0].ids.ids[0], std::string("MESH:D000001"));
    }

    void severalFilesIntoOneCorpus() {
        const auto a = dir_.write("part_a.txt", kNcbiStyle);
        const auto b = dir_.write("part_b.txt", kBc5cdrStyle);
        const auto c = dir_.write("part_c.txt", kNcbiStyle.substr(0, kNcbiStyle.find("\n\n", 1) + 1));
        const std::vector<std::filesystem::path> paths{a, b, c};
        const Corpus corpus = readPubTator(paths);
        QCOMPARE(corpus.name, std::string("part_a+part_b+part_c"));
        QCOMPARE(corpus.size(), std::size_t{3});
        QCOMPARE(corpus.sourceFiles.size(), std::size_t{3});
        QCOMPARE(corpus.find("200")->sourceFile, b.string());
        QCOMPARE(corpus.duplicates.size(), std::size_t{1});  // 100 again in part_c
        QCOMPARE(corpus.duplicates[0].keptFile, a.string());
        QCOMPARE(corpus.duplicates[0].droppedFile, c.string());
        QVERIFY(corpus.duplicates[0].identical);
        const auto message = corpus.diagnostics.at(0).toString();
        QVERIFY2(
            message.find("part_c.txt:2:") != std::string::npos && message.find("part_a.txt:2") != std::string::npos,
            message.c_str());
        // layout: leading blank lines of the first file, trailing ones of the last
        QCOMPARE(corpus.layout.leadingBlankLines, std::size_t{1});
        QCOMPARE(corpus.layout.trailingBlankLines, std::size_t{0});

        PubTatorOptions named;
        named.name = "combined";
        QCOMPARE(readPubTator(paths, named).name, std::string("combined"));
    }

    void paddedMentionTextIsAcceptedWithADiagnostic() {
        const auto path = dir_.write("padded.txt", test::kPaddedMention);
        const Corpus corpus = readPubTator(path);
        const Mention& mention = corpus.documents()[0].mentions[0];
        QVERIFY(mention.offsetsValid);
        QCOMPARE(mention.text, std::string("Febrile seizures \" plus \""));
        QCOMPARE(mention.paddedText, std::optional<std::string>("Febrile seizures \" plus \"  "));
        QVERIFY(anyDiagnostic(corpus, 3, "whitespace around it"));

        PubTatorOptions exact;
        exact.allowPaddedMentionText = false;
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(path, exact), "padded.txt", 3, "does not match the document text");
    }

    void lenientModeKeepsAndFlagsBadMentions() {
        const auto path = dir_.write("lenient.txt",
                                     "5|t|Lung cancer.\n5|a|Breast cancer.\n"
                                     "5\t0\t11\tLung cancer\tDisease\tD008175\n"
                                     "5\t12\t18\tBreast\tDisease\tD001943\n"         // shifted by one: " Breas"
                                     "5\t13\t90\tBreast cancer\tDisease\tD001943\n"  // beyond the text
                                     "5\t8\t8\tx\tDisease\tD001943\n");              // empty range
        LINKSCOPE_EXPECT_PARSE_ERROR(readPubTator(path), "lenient.txt", 4, "does not match the document text");
        PubTatorOptions lenient;
        lenient.lenient = true;
        const Corpus corpus = readPubTator(path, lenient);
        const auto& mentions = corpus.documents()[0].mentions;
        QCOMPARE(mentions.size(), std::size_t{4});  // nothing dropped
        QVERIFY(mentions[0].offsetsValid);
        QVERIFY(!mentions[1].offsetsValid);
        QCOMPARE(mentions[1].text, std::string("Breast"));  // as written
        QVERIFY(!mentions[2].offsetsValid);
        QVERIFY(!mentions[3].offsetsValid);
        QCOMPARE(corpus.diagnostics.size(), std::size_t{3});
        QVERIFY(anyDiagnostic(corpus, 4, "\"Breast\" does not match the document text \" Breas\""));
        QVERIFY(anyDiagnostic(corpus, 5, "outside the text"));
        QVERIFY(anyDiagnostic(corpus, 6, "not before end offset"));
        for (const auto& d : corpus.diagnostics) QVERIFY(d.toString().find("lenient.txt:") != std::string::npos);
    }

    void titleOnlyDocument() {
        const Corpus corpus =
            readPubTator(dir_.write("title_only.txt", "11|t|Just a title.\n11\t5\t6\ta\tX\tD000001\n"));
        const Document& doc = corpus.documents()[0];
        QVERIFY(!doc.hasAbstract);
        QCOMPARE(doc.text(), std::string("Just a title."));
        QCOMPARE(doc.characterCount(), std::size_t{13});
        QCOMPARE(doc.mentions.size(), std::size_t{1});
    }

    void documentsWithoutBlankSeparators() {
        const Corpus corpus = readPubTator(dir_.write("no_blank.txt",
                                                      "1|t|A.\n1|a|B.\n1\t0\t1\tA\tX\tD000001\n"
                                                      "2|t|C.\n2|a|D.\n2\t3\t4\tD\tX\tD000002\n"));
        QCOMPARE(corpus.size(), std::size_t{2});
        QCOMPARE(corpus.documents()[1].mentions[0].text, std::string("D"));
        QVERIFY(corpus.diagnostics.empty());
    }

    void emptyAbstractLine() {
        const Corpus corpus = readPubTator(dir_.write("empty_abstract.txt", "3|t|Title\n3|a|\n"));
        QVERIFY(corpus.documents()[0].hasAbstract);
        QCOMPARE(corpus.documents()[0].text(), std::string("Title "));
    }

    void emptyFileWhenAllowed() {
        PubTatorOptions options;
        options.allowEmpty = true;
        const Corpus corpus = readPubTator(dir_.write("empty_ok.txt", "\n\n"), options);
        QVERIFY(corpus.empty());
        QVERIFY(corpus.diagnostics.empty());
    }

    void whitespaceOnlyLineIsABlankLineWithADiagnostic() {
        const Corpus corpus = readPubTator(dir_.write("ws.txt", "1|t|A.\n1|a|B.\n  \t\n2|t|C.\n2|a|D.\n"));
        QCOMPARE(corpus.size(), std::size_t{2});
        QVERIFY(anyDiagnostic(corpus, 3, "whitespace only"));
    }

    void individualMentionCountMismatchIsReported() {
        const Corpus corpus =
            readPubTator(dir_.write("individual.txt",
                                    "1|t|lung and liver cancer\n1|a|\n"
                                    "1\t0\t21\tlung and liver cancer\tDisease\tD008175|D008113\tlung cancer\n"));
        QCOMPARE(corpus.documents()[0].mentions[0].individualMentions.size(), std::size_t{1});
        QVERIFY(anyDiagnostic(corpus, 3, "names 1 mentions for 2 ids"));
    }

    void largeCorpusKeepsEveryMention() {
        // MedMentions-like volume in a generated file: every line must arrive, across the
        // reader's buffer boundaries, with the right line numbers.
        std::string content;
        constexpr int documents = 400;
        constexpr int mentionsPerDocument = 60;
        const std::string title = "Generated title with an Entity.";  // "Entity" at 24-30
        for (int d = 0; d < documents; ++d) {
            const std::string pmid = std::to_string(1000000 + d);
            content += pmid + "|t|" + title + "\n" + pmid + "|a|";
            for (int m = 0; m < mentionsPerDocument; ++m) content += "Entity ";  // 7 characters each
            content += "\n";
            content += pmid + "\t24\t30\tEntity\tT047\tC0000001\n";
            for (int m = 1; m < mentionsPerDocument; ++m) {
                const auto start = 32 + 7 * static_cast<std::size_t>(m);
                content += pmid + "\t" + std::to_string(start) + "\t" + std::to_string(start + 6) +
                           "\tEntity\tT047,T191\tC" + std::to_string(1000000 + m) + "\n";
            }
            content += "\n";
        }
        const Corpus corpus = readPubTator(dir_.write("large.txt", content));
        QCOMPARE(corpus.size(), std::size_t{documents});
        std::size_t mentions = 0;
        for (const auto& doc : corpus.documents()) mentions += doc.mentions.size();
        QCOMPARE(mentions, std::size_t{documents} * mentionsPerDocument);
        const Document& last = corpus.documents().back();
        QCOMPARE(last.pmid(), std::to_string(1000000 + documents - 1));
        const std::size_t linesPerDocument = 2 + mentionsPerDocument + 1;
        QCOMPARE(last.sourceLine, (documents - 1) * linesPerDocument + 1);
        QCOMPARE(last.mentions.back().sourceLine, (documents - 1) * linesPerDocument + 2 + mentionsPerDocument);
        QCOMPARE(last.mentions.back().ids.ids[0], std::string("UMLS:C1000059"));
        QVERIFY(corpus.diagnostics.empty());
    }
};

QTEST_APPLESS_MAIN(TestPubTatorReader)
#include "test_pubtator_reader.moc"
