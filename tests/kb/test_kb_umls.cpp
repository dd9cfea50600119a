// UMLS RRF loader (MRCONSO + MRSTY) on fixtures in the Rich Release Format.
#include <algorithm>
#include <string>
#include <vector>

#include "fixtures.h"
#include "gzip_fixture.h"
#include "kb/umls_loader.h"
#include "kb/umls_reserve.h"
#include "kb/umls_subsets.h"
#include "kb_test_support.h"

using namespace linkscope;
using namespace linkscope::kb;
using test::Strings;
using test::toStrings;

namespace {

struct Row {
    explicit Row(std::string cui_) : cui(std::move(cui_)) {}
    std::string cui;
    std::string lat = "ENG", ts = "S", stt = "VO", ispref = "N", sab = "MSH", str, suppress = "N";
};

// CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|SRL|SUPPRESS|CVF|
std::string mrconso(const Row& r) {
    return r.cui + "|" + r.lat + "|" + r.ts + "|L0000001|" + r.stt + "|S0000001|" + r.ispref +
           "|A0000001||M0000001|D000001|" + r.sab + "|PT|D000001|" + r.str + "|0|" + r.suppress + "|256|\n";
}
Row preferred(std::string cui, std::string str, std::string lat = "ENG") {
    Row r(std::move(cui));
    r.lat = std::move(lat);
    r.ts = "P";
    r.stt = "PF";
    r.ispref = "Y";
    r.str = std::move(str);
    return r;
}
Row other(std::string cui, std::string str) {
    Row r(std::move(cui));
    r.str = std::move(str);
    return r;
}
Row with(Row r, std::string Row::*field, std::string value) {
    r.*field = std::move(value);
    return r;
}

// Rows of a concept are not adjacent, the preferred row is not the first, and some rows are
// filtered by language, suppression or source.
std::string fixture() {
    return mrconso(other("C0030685", "Discharge, Patient")) + mrconso(preferred("C0600083", "Body Fluid Discharge")) +
           mrconso(other("C0030685", "Discharge")) +
           mrconso(with(other("C0030685", "Sortie du patient"), &Row::lat, "FRE")) +
           mrconso(preferred("C0030685", "Patient Discharge")) + mrconso(other("C0600083", "Discharge")) +
           mrconso(with(other("C0600083", "Obsolete discharge"), &Row::suppress, "O")) +
           mrconso(with(other("C0600083", "Editor suppressed"), &Row::suppress, "E")) +
           mrconso(with(other("C0600083", "Source suppressed"), &Row::suppress, "Y")) +
           mrconso(with(other("C0000005", "Only French"), &Row::lat, "FRE")) +
           mrconso(with(other("C0000010", "From SNOMED"), &Row::sab, "SNOMEDCT_US")) +
           mrconso(other("C0000010", "Zeta first kept"));
}

// CUI|TUI|STN|STY|ATUI|CVF|
std::string mrsty() {
    return "C0030685|T058|B1.3.1.2|Health Care Activity|AT17681281|256|\n"
           "C0600083|T031|A1.4.2|Body Substance|AT00000001||\n"
           "C0600083|T046|B2.2.1.2|Pathologic Function|AT00000002||\n"
           "C0000005|T109|A1.4.1.2.1|Organic Chemical|AT00000003||\n";
}
}  // namespace

class TestKbUmls : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void readsConceptsWithDefaultFilters() {
        const auto result = loadUmls(dir_.write("MRCONSO.RRF", fixture()), dir_.write("MRSTY.RRF", mrsty()));
        const KnowledgeBase& kb = result.kb;
        QCOMPARE(kb.entityCount(), std::size_t{3});  // C0000005 has French names only
        QCOMPARE(result.linesRead, std::size_t{16});
        QCOMPARE(result.linesFiltered, std::size_t{5});

        const auto patient = kb.findEntity("C0030685").value();
        QCOMPARE(kb.primaryId(patient), std::string_view("UMLS:C0030685"));
        QCOMPARE(kb.preferredName(patient), std::string_view("Patient Discharge"));  // TS=P, STT=PF, ISPREF=Y
        QCOMPARE(toStrings(kb.names(patient)), (Strings{"Patient Discharge", "Discharge, Patient", "Discharge"}));
        QCOMPARE(kb.semanticTypes(patient).size(), std::size_t{1});
        QCOMPARE(kb.semanticTypes(patient)[0].id, std::string_view("T058"));
        QCOMPARE(kb.semanticTypes(patient)[0].name, std::string_view("Health Care Activity"));

        const auto fluid = kb.findEntity("UMLS:C0600083").value();
        QCOMPARE(toStrings(kb.names(fluid)), (Strings{"Body Fluid Discharge", "Discharge"}));
        QCOMPARE(kb.semanticTypes(fluid).size(), std::size_t{2});

        // No preferred row: the first kept row gives the preferred name.
        const auto snomed = kb.findEntity("C0000010").value();
        QCOMPARE(kb.preferredName(snomed), std::string_view("From SNOMED"));

        QCOMPARE(kb.findByName("Discharge").size(), std::size_t{2});
        // The semantic type of the concept without kept names is reported, not silently lost.
        QCOMPARE(result.diagnostics.size(), std::size_t{1});
        QCOMPARE(result.diagnostics[0].line, std::size_t{0});
        QVERIFY(result.diagnostics[0].message.find("1 semantic type row") != std::string::npos);
    }

    void suppressionLanguageAndSourceOptions() {
        UmlsOptions options;
        options.keepObsolete = true;
        options.keepEditorSuppressible = true;
        options.languages = {"ENG", "FRE"};
        options.sources = {"MSH"};
        const auto result = loadUmls(dir_.write("MRCONSO.RRF", fixture()), std::nullopt, options);
        const KnowledgeBase& kb = result.kb;
        const auto fluid = kb.findEntity("C0600083").value();
        QCOMPARE(toStrings(kb.names(fluid)),
                 (Strings{"Body Fluid Discharge", "Discharge", "Obsolete discharge", "Editor suppressed"}));
        QVERIFY(kb.findEntity("C0000005").has_value());  // French kept now
        const auto patient = kb.findEntity("C0030685").value();
        QCOMPARE(kb.names(patient).size(), std::size_t{4});
        const auto snomed = kb.findEntity("C0000010").value();  // its SNOMED row is filtered
        QCOMPARE(toStrings(kb.names(snomed)), (Strings{"Zeta first kept"}));
        QCOMPARE(kb.statistics().semanticTypes, std::size_t{0});
    }

    void preferredNameFollowsTheLanguageOrder() {
        const auto content = mrconso(preferred("C0000001", "Sortie", "FRE")) + mrconso(preferred("C0000001", "Exit"));
        const auto path = dir_.write("MRCONSO.RRF", content);
        UmlsOptions options;
        options.languages = {"ENG", "FRE"};
        QCOMPARE(loadUmls(path, std::nullopt, options).kb.preferredName(0), std::string_view("Exit"));
        options.languages = {"FRE", "ENG"};
        QCOMPARE(loadUmls(path, std::nullopt, options).kb.preferredName(0), std::string_view("Sortie"));
    }

    void malformedRowsNameFileAndLine_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("fragment");
        const QByteArray good = QByteArray::fromStdString(mrconso(preferred("C0000001", "Good")));
        std::string truncated = mrconso(other("C0000002", "Truncated"));
        truncated.resize(truncated.size() / 2);
        truncated += '\n';
        std::string unterminated = mrconso(other("C0000002", "No last bar"));
        unterminated.resize(unterminated.size() - 2);  // drop "|\n"
        unterminated += '\n';
        QTest::newRow("truncated") << good + QByteArray::fromStdString(truncated) << 2
                                   << "expected 18 '|'-terminated fields";
        QTest::newRow("no trailing bar") << good + QByteArray::fromStdString(unterminated) << 2 << "found 17";
        QTest::newRow("extra field") << good + good.left(good.size() - 1) + "extra|\n" << 2 << "found 19";
        QTest::newRow("bad CUI") << QByteArray::fromStdString(mrconso(other("X123", "Bad"))) << 1 << "not a UMLS CUI";
        QTest::newRow("bad SUPPRESS") << good + QByteArray::fromStdString(
                                                    mrconso(with(other("C0000002", "S"), &Row::suppress, "Q")))
                                      << 2 << "unknown SUPPRESS value";
        QTest::newRow("non-UTF-8") << good + QByteArray::fromStdString(mrconso(other("C0000002", "Caf\xe9"))) << 2
                                   << "invalid UTF-8";
    }
    void malformedRowsNameFileAndLine() {
        QFETCH(QByteArray, content);
        QFETCH(int, line);
        QFETCH(QString, fragment);
        const auto path =
            dir_.write("MRCONSO.RRF", std::string_view(content.constData(), static_cast<std::size_t>(content.size())));
        LINKSCOPE_EXPECT_PARSE_ERROR(loadUmls(path, std::nullopt), path, static_cast<std::size_t>(line),
                                     fragment.toStdString());
    }

    void malformedSemanticTypeRows() {
        const auto conso = dir_.write("MRCONSO.RRF", mrconso(preferred("C0000001", "Good")));
        const auto sty =
            dir_.write("MRSTY.RRF", "C0000001|T047|B2.2.1.2.1|Disease or Syndrome|AT1||\nC0000001|T047|B2\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(loadUmls(conso, sty), sty, 2, "expected 6 '|'-terminated fields");
    }

    void lenientModeSkipsBadRows() {
        const auto content = mrconso(preferred("C0000001", "Good")) + "C0000002|ENG|P\n" + mrconso(other("BAD", "x")) +
                             mrconso(other("C0000003", "Also good"));
        UmlsOptions options;
        options.lenient = true;
        const auto result = loadUmls(dir_.write("MRCONSO.RRF", content), std::nullopt, options);
        QCOMPARE(result.kb.entityCount(), std::size_t{2});
        QCOMPARE(result.diagnostics.size(), std::size_t{2});
        QCOMPARE(result.diagnostics[0].line, std::size_t{2});
        QCOMPARE(result.diagnostics[1].line, std::size_t{3});
    }

    void aConceptsRowsAcrossSkippedAndOtherRows() {
        // The loader reuses the last row's entity while the CUI stays the same: rows of one
        // concept split by a skipped malformed row, a filtered row and another concept's rows
        // must still land on the same entity, and the other concept on its own.
        const auto content = mrconso(preferred("C0000001", "First")) + mrconso(other("BAD", "x")) +
                             mrconso(other("C0000001", "Second")) +
                             mrconso(with(other("C0000002", "Autre"), &Row::lat, "FRE")) +
                             mrconso(other("C0000002", "Other")) + mrconso(other("C0000001", "Third"));
        UmlsOptions options;
        options.lenient = true;
        const auto result = loadUmls(dir_.write("MRCONSO.RRF", content), std::nullopt, options);
        QCOMPARE(result.kb.entityCount(), std::size_t{2});
        const auto first = result.kb.findEntity("C0000001");
        const auto second = result.kb.findEntity("C0000002");
        QVERIFY(first && second && *first != *second);
        std::vector<std::string> names;
        for (const auto name : result.kb.names(*first)) names.emplace_back(name);
        std::sort(names.begin(), names.end());
        QCOMPARE(names, (std::vector<std::string>{"First", "Second", "Third"}));
        QCOMPARE(result.kb.preferredName(*second), std::string_view("Other"));
    }

    void cuisFarApartAndSeenAgain() {
        // The loader indexes entities by CUI number (C0000000 .. C9999999): the highest and the
        // lowest, rows of a concept coming back after others, and MRSTY rows for each, in
        // another order, plus one for a CUI without kept names (reported, not attached).
        const auto content = mrconso(other("C9999999", "Last")) + mrconso(other("C0000000", "Zero")) +
                             mrconso(other("C5000000", "Middle")) + mrconso(preferred("C9999999", "Last preferred")) +
                             mrconso(other("C0000000", "Zero again")) + mrconso(other("C0000001", "One"));
        const auto sty = dir_.write("MRSTY.RRF",
                                    "C0000001|T047|B2.2.1.2.1|Disease or Syndrome|AT1||\n"
                                    "C1234567|T047|B2.2.1.2.1|Disease or Syndrome|AT2||\n"
                                    "C9999999|T031|A1.4.2|Body Substance|AT3||\n"
                                    "C0000000|T058|B1.3.1.2|Health Care Activity|AT4||\n");
        const auto result = loadUmls(dir_.write("MRCONSO.RRF", content), sty);
        const KnowledgeBase& kb = result.kb;
        QCOMPARE(kb.entityCount(), std::size_t{4});
        const auto last = kb.findEntity("C9999999").value();
        const auto zero = kb.findEntity("C0000000").value();
        QCOMPARE(kb.preferredName(last), std::string_view("Last preferred"));
        QCOMPARE(toStrings(kb.names(last)), (Strings{"Last preferred", "Last"}));
        QCOMPARE(toStrings(kb.names(zero)), (Strings{"Zero", "Zero again"}));
        QCOMPARE(kb.semanticTypes(last)[0].id, std::string_view("T031"));
        QCOMPARE(kb.semanticTypes(zero)[0].id, std::string_view("T058"));
        QCOMPARE(kb.semanticTypes(kb.findEntity("C0000001").value())[0].id, std::string_view("T047"));
        QVERIFY(kb.semanticTypes(kb.findEntity("C5000000").value()).empty());
        QVERIFY(!kb.findEntity("C1234567"));
        QCOMPARE(result.diagnostics.size(), std::size_t{1});
        QVERIFY(result.diagnostics[0].message.find("1 semantic type row") != std::string::npos);
    }

    void emptyFileAndEmptyNames() {
        QCOMPARE(loadUmls(dir_.write("empty.RRF", ""), std::nullopt).kb.entityCount(), std::size_t{0});
        const auto result = loadUmls(
            dir_.write("MRCONSO.RRF", mrconso(other("C0000001", "")) + mrconso(other("C0000002", "x"))), std::nullopt);
        QCOMPARE(result.kb.entityCount(), std::size_t{1});
        QCOMPARE(result.diagnostics.size(), std::size_t{1});
        QVERIFY(result.diagnostics[0].message.find("1 row(s) with an empty STR") != std::string::npos);
    }

    void hugeLineIsAnError() {
        const auto path = dir_.write("MRCONSO.RRF", mrconso(other("C0000001", std::string(4096, 'y'))));
        UmlsOptions options;
        options.maxLineBytes = 1000;
        LINKSCOPE_EXPECT_PARSE_ERROR(loadUmls(path, std::nullopt, options), path, 1, "longer than 1000 bytes");
    }

    // Semantic types: a filter type keeps its concepts and those of its descendants
    // in the type tree (by MRSTY's tree numbers), as MedMentions' ST21pv does.
    void semanticTypeFilterKeepsDescendants() {
        const auto sty = dir_.write("MRSTY.RRF", mrsty() + "C0000010|T038|B2.2.1|Biologic Function|AT00000004||\n");
        UmlsOptions options;
        options.semanticTypes = {"T038"};
        const auto result = loadUmls(dir_.write("MRCONSO.RRF", fixture()), sty, options);
        const KnowledgeBase& kb = result.kb;
        QCOMPARE(kb.entityCount(), std::size_t{2});
        QVERIFY(kb.findEntity("C0000010").has_value());   // T038 itself
        QVERIFY(kb.findEntity("C0600083").has_value());   // T046 Pathologic Function, B2.2.1.2, lies under it
        QVERIFY(!kb.findEntity("C0030685").has_value());  // T058, B1.3.1.2: elsewhere
        // Every type of a kept concept stays with it.
        QCOMPARE(kb.semanticTypes(kb.findEntity("C0600083").value()).size(), std::size_t{2});
        QCOMPARE(result.linesFiltered, std::size_t{8});  // 5 by the default filters, 3 rows of C0030685
        // "B2.2.10" is not under "B2.2.1": the prefix is checked at a dot.
        const auto sibling = dir_.write("MRSTY2.RRF",
                                        "C0000010|T038|B2.2.1|Biologic Function|AT1||\n"
                                        "C0030685|T999|B2.2.10|Made Up|AT2||\n");
        QVERIFY(!loadUmls(dir_.path("MRCONSO.RRF"), sibling, options).kb.findEntity("C0030685").has_value());
    }
    void st21pvNamesTheMedMentionsSets() {
        const Strings types = kb::semanticTypeFilter(std::vector<std::string>{"st21pv"});
        QCOMPARE(types.size(), std::size_t{21});
        QCOMPARE(types.front(), std::string("T005"));
        QCOMPARE(types.back(), std::string("T204"));
        QCOMPARE(kb::sourceFilter(std::vector<std::string>{"st21pv"}).size(), std::size_t{18});
        // Comma lists, blanks and repeats, set members mixed with TUIs.
        QCOMPARE(kb::semanticTypeFilter(std::vector<std::string>{"T047, T038", "", "T047,st21pv"}).size(),
                 std::size_t{22});
        QCOMPARE(kb::sourceFilter(std::vector<std::string>{"MSH,SNOMEDCT_US", "MSH"}), (Strings{"MSH", "SNOMEDCT_US"}));
        QCOMPARE(kb::languageFilter(std::vector<std::string>{"ENG,FRE"}), (Strings{"ENG", "FRE"}));
        try {
            kb::semanticTypeFilter(std::vector<std::string>{"T47"});
            QFAIL("a TUI of two digits was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("\"T47\" is not a semantic type id") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, kb::semanticTypeFilter(std::vector<std::string>{"Disease or Syndrome"}));

        // The set on a KB: Body Substance (T031, A1.4.2) is one of the 21; Health Care Activity
        // T058 too; C0000005 (T109 Organic Chemical, A1.4.1.2.1) lies under T103 Chemical only when
        // MRSTY gives T103's tree number.
        const auto sty = dir_.write("MRSTY.RRF", mrsty() + "C0000099|T103|A1.4.1|Chemical|AT9||\n");
        UmlsOptions options;
        options.semanticTypes = types;
        options.languages = {"ENG", "FRE"};
        options.sources = kb::sourceFilter(std::vector<std::string>{"st21pv"});
        const auto result = loadUmls(dir_.write("MRCONSO.RRF", fixture()), sty, options);
        QVERIFY(result.kb.findEntity("C0600083").has_value());
        QVERIFY(result.kb.findEntity("C0030685").has_value());
        QVERIFY(result.kb.findEntity("C0000005").has_value());
        QVERIFY(!result.kb.findEntity("C0000010").has_value());  // no MRSTY row: no type, not kept
        // The types of the set that MRSTY never names are said, not silently matched by nothing.
        QVERIFY(std::any_of(result.diagnostics.begin(), result.diagnostics.end(), [](const Diagnostic& d) {
            return d.message.find("no row names") != std::string::npos && d.message.find("T005") != std::string::npos;
        }));
    }
    void semanticTypeFilterNeedsMrsty() {
        UmlsOptions options;
        options.semanticTypes = {"T047"};
        try {
            loadUmls(dir_.write("MRCONSO.RRF", fixture()), std::nullopt, options);
            QFAIL("a semantic-type filter without MRSTY loaded an unfiltered KB");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("needs the semantic types, MRSTY.RRF") != std::string::npos, e.what());
        }
    }
    void malformedMrstyUnderTheFilter() {
        const auto conso = dir_.write("MRCONSO.RRF", mrconso(preferred("C0000001", "Good")));
        const auto sty =
            dir_.write("MRSTY.RRF", "C0000001|T047|B2.2.1.2.1|Disease or Syndrome|AT1||\nX0000001|T047|B|D|A||\n");
        UmlsOptions options;
        options.semanticTypes = {"T047"};
        LINKSCOPE_EXPECT_PARSE_ERROR(loadUmls(conso, sty, options), sty, 2, "is not a UMLS CUI");
    }

    // The builder's room comes from the first rows' rates, scaled to the file's size.
    void reserveEstimateFromTheFirstRows() {
        detail::ConsoSample sample;
        QCOMPARE(detail::estimateReserve(sample, 1'000'000, false).names, std::size_t{0});  // nothing read yet
        sample.rowsRead = 100;
        sample.bytesRead = 12'800;
        QCOMPARE(detail::estimateReserve(sample, 1'000'000, false).names, std::size_t{0});  // nothing kept
        sample.rowsKept = 50;
        sample.conceptsKept = 20;
        sample.nameBytes = 1'600;
        // 128,000 bytes at 128 a row: 1,000 rows, half kept, 2.5 a concept, 32 bytes a name.
        const auto plain = detail::estimateReserve(sample, 128'000, false);
        QCOMPARE(plain.names, std::size_t{500});
        QCOMPARE(plain.entities, std::size_t{200});
        QCOMPARE(plain.nameBytes, std::size_t{16'000});
        QCOMPARE(detail::estimateReserve(sample, 128'000, true).names, std::size_t{2'500});  // gzip: 5x the text
        // One concept a kept row, as a sample of rows not grouped by concept shows: half the names.
        detail::ConsoSample scattered = sample;
        scattered.conceptsKept = scattered.rowsKept;
        QCOMPARE(detail::estimateReserve(scattered, 128'000, false).entities, std::size_t{250});
        // A file of an exabyte counts as the cap's rows, kept at the sample's rate.
        const auto huge = detail::estimateReserve(sample, std::uintmax_t{1} << 60, true);
        QCOMPARE(huge.names, std::size_t{detail::kMaxEstimatedRows / 2});
        QCOMPARE(huge.entities, std::size_t{detail::kMaxEstimatedRows / 5});
        // First rows of 100 KB names in a sparse file of a terabyte: the text's estimate is capped.
        detail::ConsoSample longNames = sample;
        longNames.bytesRead = 100 * 102'400;
        longNames.nameBytes = 50 * 102'000;
        const auto sparse = detail::estimateReserve(longNames, std::uintmax_t{1} << 40, false);
        QCOMPARE(sparse.nameBytes, std::size_t{detail::kMaxEstimatedNameBytes});
        QVERIFY(sparse.names <= detail::kMaxEstimatedRows);
    }

    // A file longer than the sample (so the loader reserves from its first rows) builds the same
    // KB, to the byte, from plain text and from gzip, whose estimate is five times larger.
    void reserveChangesNothingButRoom() {
        std::string text;
        const std::size_t concepts = detail::kConsoSampleRows;  // three rows each: past the sample
        for (std::size_t c = 0; c < concepts; ++c) {
            const std::string cui = "C" + std::string(7 - std::to_string(c).size(), '0') + std::to_string(c);
            text += mrconso(preferred(cui, "Concept " + std::to_string(c)));
            text += mrconso(other(cui, "Synonym " + std::to_string(c % 97)));
            text += mrconso(with(other(cui, "Nom " + std::to_string(c)), &Row::lat, "FRE"));
        }
        const auto plain = loadUmls(dir_.write("big.RRF", text), std::nullopt);
        test::writeGzip(dir_.path("big.RRF.gz"), text);
        const auto packed = loadUmls(dir_.path("big.RRF.gz"), std::nullopt);
        QCOMPARE(plain.kb.entityCount(), concepts);
        QCOMPARE(plain.linesRead, 3 * concepts);
        QCOMPARE(plain.linesFiltered, concepts);
        QCOMPARE(packed.kb.entityCount(), plain.kb.entityCount());
        const auto last = static_cast<EntityIndex>(concepts - 1);
        QCOMPARE(toStrings(packed.kb.names(last)), toStrings(plain.kb.names(last)));
        QCOMPARE(toStrings(plain.kb.names(last)), (Strings{"Concept 4095", "Synonym 21"}));
        QCOMPARE(packed.kb.memoryBytes(), plain.kb.memoryBytes());
    }

    void gzipInput() {
        test::writeGzip(dir_.path("MRCONSO.RRF.gz"), fixture());
        QCOMPARE(loadUmls(dir_.path("MRCONSO.RRF.gz"), std::nullopt).kb.entityCount(), std::size_t{3});
    }
};

QTEST_APPLESS_MAIN(TestKbUmls)
#include "test_kb_umls.moc"
