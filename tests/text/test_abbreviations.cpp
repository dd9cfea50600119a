// Schwartz & Hearst abbreviation detection and the expansion of short forms inside mentions.
// Every expected pair and offset below was worked out by hand from the algorithm.
#include <random>

#include "random_text.h"
#include "test_data.h"
#include "text/abbreviations.h"
#include "util/error.h"
#include "util/utf8.h"

using namespace linkscope;
using namespace linkscope::text;

namespace {
// "SF=LF" strings, for compact comparisons.
QStringList pairsOf(const std::vector<AbbreviationDefinition>& definitions) {
    QStringList pairs;
    for (const auto& d : definitions) pairs << QString::fromStdString(d.shortForm + "=" + d.longForm);
    return pairs;
}
QStringList pairsIn(std::string_view text) { return pairsOf(findAbbreviations(text)); }

AbbreviationDefinition definition(std::string shortForm, std::string longForm) {
    AbbreviationDefinition d;
    d.shortForm = std::move(shortForm);
    d.longForm = std::move(longForm);
    return d;
}
}  // namespace

class TestAbbreviations : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void classicExamples_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        // The paper's running example: "S" matches inside "transcription", not "shock".
        QTest::newRow("HSF") << "Expression of heat shock transcription factor (HSF) was high."
                             << QStringList{"HSF=heat shock transcription factor"};
        QTest::newRow("ER") << "The endoplasmic reticulum (ER) in Saccharomyces cerevisiae"
                            << QStringList{"ER=endoplasmic reticulum"};
        QTest::newRow("WASP-hyphenated-long-form")
            << "a homolog of mammalian Wiskott-Aldrich syndrome protein (WASP), and Vrp1p"
            << QStringList{"WASP=Wiskott-Aldrich syndrome protein"};
        QTest::newRow("clause-starts-after-comma")
            << "and Vrp1p, a homolog of WASP-interacting protein (WIP)." << QStringList{"WIP=WASP-interacting protein"};
        QTest::newRow("two-word-short-form")
            << "Ribonuclease P (RNase P) is a ubiquitous endoribonuclease" << QStringList{"RNase P=Ribonuclease P"};
        QTest::newRow("cut-at-semicolon")
            << "Theory of mind (ToM; Smith 2009) broadly refers to" << QStringList{"ToM=Theory of mind"};
        QTest::newRow("digits") << "Mutations in spinocerebellar ataxia type 1 (SCA1) patients"
                                << QStringList{"SCA1=spinocerebellar ataxia type 1"};
        QTest::newRow("hyphen-in-short-form")
            << "Levels of interleukin-6 (IL-6) rose." << QStringList{"IL-6=interleukin-6"};
        QTest::newRow("slash-in-short-form")
            << "Families with cleft lip/palate (CL/P) were studied." << QStringList{"CL/P=cleft lip/palate"};
        QTest::newRow("several-in-one-sentence")
            << "Huntington disease (HD) and dystrophia myotonica (DM) are caused by repeat expansions."
            << QStringList{"HD=Huntington disease", "DM=dystrophia myotonica"};
        QTest::newRow("short-form-then-long-form")
            << "Serum TNF (tumor necrosis factor alpha) levels" << QStringList{"TNF=tumor necrosis factor alpha"};
        QTest::newRow("nested-parentheses")
            << "Binding of the factor (heat shock factor (HSF)) was measured." << QStringList{"HSF=heat shock factor"};
        QTest::newRow("line-break-bounds-the-clause")
            << "Title about ataxia\nTelangiectasia (AT) is rare." << QStringList{};
    }
    void classicExamples() {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        QCOMPARE(pairsIn(text.toStdString()), expected);
    }

    void noDefinition_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("statistics") << "the rate was increased (P < 0.05) in all";
        QTest::newRow("sample-size") << "twelve patients (n = 12) were seen";
        QTest::newRow("year-has-no-letter") << "as reported earlier (1998) in";
        QTest::newRow("letters-not-found") << "a defect in the heart (XYZ) was";
        // The letters must appear in order: a known limit of the algorithm.
        QTest::newRow("letters-out-of-order") << "patients with myotonic dystrophy (DM) and";
        QTest::newRow("first-letter-must-start-a-word") << "an arrhythmia (RA) was";
        QTest::newRow("too-many-words") << "Alpha one two three four Beta (AB) here";
        QTest::newRow("short-form-too-long") << "some long name here (ABCDEFGHIJK) here";
        QTest::newRow("single-character") << "Factor A (A) here";
        QTest::newRow("no-space-before-parenthesis") << "interleukin 2(IL2) here";
        QTest::newRow("unclosed-parenthesis") << "heat shock factor (HSF was";
        QTest::newRow("reverse-without-capital") << "the result (which was not expected by anyone) was";
        QTest::newRow("long-form-holds-short-form") << "the HD gene HD (HD) was";
        QTest::newRow("empty") << "";
        // The two guards added to the paper's algorithm (see abbreviations.h).
        QTest::newRow("long-form-is-an-acronym") << "The ATM (A-T, mutated) gene on chromosome 11q22";
        QTest::newRow("coordination-after-last-letter")
            << "of spinocerebellar ataxias 1 and 2 (SCA1, n = 11; SCA2, n = 10)";
    }
    void noDefinition() {
        QFETCH(QString, text);
        QCOMPARE(pairsIn(text.toStdString()), QStringList{});
    }

    void offsetsAtTextStart() {
        const auto found = findAbbreviations("Huntington disease (HD) is an inherited disorder.");
        QCOMPARE(found.size(), std::size_t{1});
        QCOMPARE(found[0].longSpan, (TextSpan{0, 18}));
        QCOMPARE(found[0].shortSpan, (TextSpan{20, 22}));
        QCOMPARE(found[0].longBytes, (TextSpan{0, 18}));
        QVERIFY(!found[0].longFormInParentheses);
    }

    void offsetsCountCharactersNotBytes() {
        // "ö" is one character and two bytes.
        const std::string text = "In Sjögren syndrome (SS) the glands";
        const auto found = findAbbreviations(text);
        QCOMPARE(found.size(), std::size_t{1});
        QCOMPARE(found[0].longForm, std::string("Sjögren syndrome"));
        QCOMPARE(found[0].longSpan, (TextSpan{3, 19}));
        QCOMPARE(found[0].shortSpan, (TextSpan{21, 23}));
        QCOMPARE(found[0].longBytes, (TextSpan{3, 20}));
        QCOMPARE(found[0].shortBytes, (TextSpan{22, 24}));
        QCOMPARE(text.substr(found[0].shortBytes.begin, 2), std::string("SS"));
    }

    void reversedOffsetsPointInsideTheParentheses() {
        const std::string text = "Serum TNF (tumor necrosis factor alpha) levels";
        const auto found = findAbbreviations(text);
        QCOMPARE(found.size(), std::size_t{1});
        QVERIFY(found[0].longFormInParentheses);
        QCOMPARE(found[0].shortSpan, (TextSpan{6, 9}));
        QCOMPARE(found[0].longSpan, (TextSpan{11, 38}));
    }

    void nestedOffsets() {
        const std::string text = "Binding of the factor (heat shock factor (HSF)) was measured.";
        const auto found = findAbbreviations(text);
        QCOMPARE(found.size(), std::size_t{1});
        QCOMPARE(found[0].longSpan, (TextSpan{23, 40}));
        QCOMPARE(found[0].shortSpan, (TextSpan{42, 45}));
    }

    void invalidUtf8IsAnError() { QVERIFY_THROWS_EXCEPTION(Error, findAbbreviations("abc (\xff) def")); }

    void expansion_data() {
        QTest::addColumn<QString>("mention");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("applied");
        QTest::newRow("is-the-short-form") << "HD"
                                           << "Huntington disease" << 1;
        QTest::newRow("token-in-mention") << "HD patients"
                                          << "Huntington disease patients" << 1;
        QTest::newRow("after-modifier") << "juvenile HD"
                                        << "juvenile Huntington disease" << 1;
        QTest::newRow("hyphen-bounds-a-token") << "HD-like disorder"
                                               << "Huntington disease-like disorder" << 1;
        QTest::newRow("two-short-forms") << "HD or DM"
                                         << "Huntington disease or myotonic dystrophy" << 2;
        QTest::newRow("repeated") << "HD/HD"
                                  << "Huntington disease/Huntington disease" << 1;
        QTest::newRow("inside-a-word-not") << "HDL deficiency"
                                           << "HDL deficiency" << 0;
        QTest::newRow("suffix-of-a-word-not") << "pHD"
                                              << "pHD" << 0;
        QTest::newRow("case-sensitive") << "hd carriers"
                                        << "hd carriers" << 0;
        QTest::newRow("longest-wins") << "DM1 and DM"
                                      << "myotonic dystrophy type 1 and myotonic dystrophy" << 2;
        QTest::newRow("slash-short-form") << "CL/P"
                                          << "cleft lip/palate" << 1;
        QTest::newRow("non-ascii-neighbour") << "αHD"
                                             << "αHD" << 0;
        QTest::newRow("empty") << ""
                               << "" << 0;
        QTest::newRow("quoted-definition-kept") << "Huntington disease (HD) patients"
                                                << "Huntington disease (HD) patients" << 0;
        QTest::newRow("quoted-definition-any-case") << "juvenile huntington disease ( HD )"
                                                    << "juvenile huntington disease ( HD )" << 0;
        QTest::newRow("parenthesised-use-expands") << "patients (HD)"
                                                   << "patients (Huntington disease)" << 1;
    }
    void expansion() {
        QFETCH(QString, mention);
        QFETCH(QString, expected);
        QFETCH(int, applied);
        const std::vector<AbbreviationDefinition> definitions = {
            definition("HD", "Huntington disease"), definition("DM", "myotonic dystrophy"),
            definition("DM1", "myotonic dystrophy type 1"), definition("CL/P", "cleft lip/palate"),
            definition("HD", "Hodgkin disease")};  // a later, different definition: the first wins
        const auto result = expandAbbreviations(mention.toStdString(), definitions);
        QCOMPARE(QString::fromStdString(result.text), expected);
        QCOMPARE(static_cast<int>(result.applied.size()), applied);
    }

    void appliedNamesTheDefinitions() {
        const std::vector<AbbreviationDefinition> definitions = {definition("AT", "ataxia telangiectasia"),
                                                                 definition("T-PLL", "T-cell prolymphocytic leukemia")};
        const auto result = expandAbbreviations("AT patients with T-PLL and AT", definitions);
        QCOMPARE(result.text, std::string("ataxia telangiectasia patients with T-cell prolymphocytic leukemia and "
                                          "ataxia telangiectasia"));
        QCOMPARE(result.applied, (std::vector<std::size_t>{0, 1}));
    }

    void longFormsAreExpandedInTurn() {
        const std::vector<AbbreviationDefinition> definitions = {definition("DMS", "diffuse mesangial sclerosis"),
                                                                 definition("IDMS", "isolated DMS")};
        const auto result = expandAbbreviations("IDMS", definitions);
        QCOMPARE(result.text, std::string("isolated diffuse mesangial sclerosis"));
        QCOMPARE(result.applied, (std::vector<std::size_t>{1, 0}));
    }

    void cyclicDefinitionsTerminate() {
        const std::vector<AbbreviationDefinition> definitions = {definition("AA", "x BB"), definition("BB", "y AA")};
        // Four passes: AA -> x BB -> x y AA -> x y x BB -> x y x y AA.
        QCOMPARE(expandAbbreviations("AA", definitions).text, std::string("x y x y AA"));
        QCOMPARE(kMaxExpansionPasses, 4);
    }

    void detectionFeedsExpansion() {
        const std::string document =
            "Ataxia-telangiectasia (A-T) is a recessive disorder. Patients with A-T develop T-cell "
            "prolymphocytic leukemia (T-PLL).";
        const auto definitions = findAbbreviations(document);
        QCOMPARE(pairsOf(definitions),
                 (QStringList{"A-T=Ataxia-telangiectasia", "T-PLL=T-cell prolymphocytic leukemia"}));
        QCOMPARE(expandAbbreviations("sporadic T-PLL", definitions).text,
                 std::string("sporadic T-cell prolymphocytic leukemia"));
        QCOMPARE(expandAbbreviations("A-T", definitions).text, std::string("Ataxia-telangiectasia"));
    }

    // Random text never crashes the detector, and every definition points at its own text.
    void randomTextProperties() {
        std::mt19937 random(7);
        std::size_t seen = 0;
        for (int round = 0; round < 3000; ++round) {
            const std::string text = test::randomText(random, static_cast<std::size_t>(round % 60));
            const auto offsets = utf8::characterOffsets(text);
            for (const auto& d : findAbbreviations(text)) {
                ++seen;
                QCOMPARE(text.substr(d.shortBytes.begin, d.shortBytes.end - d.shortBytes.begin), d.shortForm);
                QCOMPARE(text.substr(d.longBytes.begin, d.longBytes.end - d.longBytes.begin), d.longForm);
                QCOMPARE(offsets[d.shortSpan.begin], d.shortBytes.begin);
                QCOMPARE(offsets[d.longSpan.end], d.longBytes.end);
                QCOMPARE(expandAbbreviations(d.shortForm, std::span(&d, 1)).applied.size(), std::size_t{1});
            }
        }
        qInfo("%zu definitions in random text", seen);
        QVERIFY(seen >= 20);  // the property was exercised (62 with libstdc++)
    }
};

QTEST_APPLESS_MAIN(TestAbbreviations)
#include "test_abbreviations.moc"
