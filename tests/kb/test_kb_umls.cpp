// UMLS RRF loader (MRCONSO + MRSTY) on fixtures in the Rich Release Format.
#include <string>
#include <vector>

#include "fixtures.h"
#include "gzip_fixture.h"
#include "kb/umls_loader.h"
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
    return r.cui + "|" + r.lat + "|" + r.ts + "|L0000001|" + r.stt + "|S0000001|" + r.ispref + "|A0000001||M0000001|D000001|" +
           r.sab + "|PT|D000001|" + r.str + "|0|" + r.suppress + "|256|\n";
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
    return mrconso(other("C0030685", "Discharge, Patient")) +
           mrconso(preferred("C0600083", "Body Fluid Discharge")) +
           mrconso(other("C0030685", "Discharge")) +
           mrconso(with(other("C0030685", "Sortie du patient"), &Row::lat, "FRE")) +
           mrconso(preferred("C0030685", "Patient Discharge")) +
           mrconso(other("C0600083", "Discharge")) +
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
        QCOMPARE(toStrings(kb.names(fluid)), (Strings{"Body Fluid Discharge", "Discharge", "Obsolete discharge", "Editor suppressed"}));
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
        QTest::newRow("truncated") << good + QByteArray::fromStdString(truncated) << 2 << "expected 18 '|'-terminated fields";
        QTest::newRow("no trailing bar") << good + QByteArray::fromStdString(unterminated) << 2 << "found 17";
        QTest::newRow("extra field") << good + good.left(good.size() - 1) + "extra|\n" << 2 << "found 19";
        QTest::newRow("bad CUI") << QByteArray::fromStdString(mrconso(other("X123", "Bad"))) << 1 << "not a UMLS CUI";
        QTest::newRow("bad SUPPRESS") << good + QByteArray::fromStdString(mrconso(with(other("C0000002", "S"), &Row::suppress, "Q")))
                                      << 2 << "unknown SUPPRESS value";
        QTest::newRow("non-UTF-8") << good + QByteArray::fromStdString(mrconso(other("C0000002", "Caf\xe9"))) << 2 << "invalid UTF-8";
    }
    void malformedRowsNameFileAndLine() {
        QFETCH(QByteArray, content);
        QFETCH(int, line);
        QFETCH(QString, fragment);
        const auto path = dir_.write("MRCONSO.RRF", std::string_view(content.constData(), static_cast<std::size_t>(content.size())));
        LINKSCOPE_EXPECT_PARSE_ERROR(loadUmls(path, std::nullopt), path, static_cast<std::size_t>(line), fragment.toStdString());
    }

    void malformedSemanticTypeRows() {
        const auto conso = dir_.write("MRCONSO.RRF", mrconso(preferred("C0000001", "Good")));
        const auto sty = dir_.write("MRSTY.RRF", "C0000001|T047|B2.2.1.2.1|Disease or Syndrome|AT1||\nC0000001|T047|B2\n");
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

    void emptyFileAndEmptyNames() {
        QCOMPARE(loadUmls(dir_.write("empty.RRF", ""), std::nullopt).kb.entityCount(), std::size_t{0});
        const auto result = loadUmls(dir_.write("MRCONSO.RRF", mrconso(other("C0000001", "")) + mrconso(other("C0000002", "x"))), std::nullopt);
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

    void gzipInput() {
        test::writeGzip(dir_.path("MRCONSO.RRF.gz"), fixture());
        QCOMPARE(loadUmls(dir_.path("MRCONSO.RRF.gz"), std::nullopt).kb.entityCount(), std::size_t{3});
    }
};

QTEST_APPLESS_MAIN(TestKbUmls)
#include "test_kb_umls.moc"
