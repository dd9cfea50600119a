// Normalization for matching: BioSyn's TextPreprocess reproduced exactly in its own mode, then
// the Unicode extensions (ICU lower-casing, Unicode punctuation and white space, accents).
// Expected values were derived by hand and checked against BioSyn's Python code.
#include <future>
#include <random>
#include <thread>

#include "random_text.h"
#include "test_data.h"
#include "text/normalizer.h"
#include "text/spelling_map.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::text;

namespace {
std::shared_ptr<const SpellingMap> smallSpellingMap() {
    auto map = std::make_shared<SpellingMap>();
    map->add("tumours", "tumors");
    map->add("hemmorhage", "haemorrhage");
    map->add("atrialfibrillation", "atrial fibrillation");
    return map;
}
}  // namespace

class TestNormalizer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // BioSyn mode: ASCII string.punctuation only, exactly TextPreprocess.run.
    void bioSynExact_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("punctuation-and-spaces") << "  Breast-Ovarian  Cancer, (BRCA1)  "
                                                << "breast ovarian cancer brca1";
        QTest::newRow("trailing-period") << "Tumours of the  HEART."
                                         << "tumours of the heart";
        QTest::newRow("slash-and-bar") << "a/b|c"
                                       << "a b c";
        QTest::newRow("only-punctuation") << "..."
                                          << "";
        QTest::newRow("empty") << ""
                               << "";
        QTest::newRow("underscore-apostrophe") << "x_y z's"
                                               << "x y z s";
        QTest::newRow("greek-lowercased") << QString::fromUtf8("ΑΒΓ Disease") << QString::fromUtf8("αβγ disease");
        // BioSyn keeps non-ASCII punctuation: the en dash and the curly apostrophe stay.
        QTest::newRow("en-dash-kept") << QString::fromUtf8("Sjögren–Larsson syndrome")
                                      << QString::fromUtf8("sjögren–larsson syndrome");
        QTest::newRow("curly-apostrophe-kept")
            << QString::fromUtf8("Crohn’s disease") << QString::fromUtf8("crohn’s disease");
        // Python's \s matches the no-break space.
        QTest::newRow("no-break-space") << QString::fromUtf8("IL-2\u00a0receptor") << "il 2 receptor";
        QTest::newRow("symbols-kept") << QString::fromUtf8("5°C ±2") << QString::fromUtf8("5°c ±2");
    }
    void bioSynExact() {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        const Normalizer normalizer(bioSynOptions());
        QCOMPARE(QString::fromStdString(normalizer.normalize(input.toStdString())), expected);
    }

    void bioSynSpellingIsTokenByToken() {
        const Normalizer normalizer(bioSynOptions(smallSpellingMap()));
        QCOMPARE(normalizer.normalize("Tumours of the  HEART."), std::string("tumors of the heart"));
        QCOMPARE(normalizer.normalize("AtrialFibrillation"), std::string("atrial fibrillation"));
        // Corrections see whitespace-separated tokens before punctuation removal, as in BioSyn:
        // "hemmorhage," (with its comma) is not the misspelling "hemmorhage".
        QCOMPARE(normalizer.normalize("Hemmorhage, acute"), std::string("hemmorhage acute"));
        QCOMPARE(normalizer.normalize("acute Hemmorhage"), std::string("acute haemorrhage"));
        // Not chained: the correction is not looked up again.
        QCOMPARE(normalizer.normalize("tumours tumours"), std::string("tumors tumors"));
    }

    void keepCharactersLikeBioSynQueries() {
        NormalizerOptions options = bioSynOptions();
        options.keepCharacters = "|";
        const Normalizer normalizer(options);
        QCOMPARE(normalizer.normalize("Breast cancer|Ovarian-Cancer"), std::string("breast cancer|ovarian cancer"));
    }

    // Default mode: Unicode punctuation (P*) is punctuation too.
    void unicodePunctuation_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("en-dash") << QString::fromUtf8("Sjögren–Larsson syndrome")
                                 << QString::fromUtf8("sjögren larsson syndrome");
        QTest::newRow("curly-apostrophe") << QString::fromUtf8("Crohn’s disease") << "crohn s disease";
        QTest::newRow("guillemets") << QString::fromUtf8("«Huntington» chorea") << "huntington chorea";
        QTest::newRow("ideographic-space") << QString::fromUtf8("a\u3000b") << "a b";
        QTest::newRow("symbols-are-not-punctuation") << QString::fromUtf8("5°C ±2") << QString::fromUtf8("5°c ±2");
        QTest::newRow("ascii-symbols-still-removed") << "a+b=c<d>e~f"
                                                     << "a b c d e f";
        QTest::newRow("full-unicode-lowercase")
            << QString::fromUtf8("STRASSE ΟΔΟΣ") << QString::fromUtf8("strasse οδος");
    }
    void unicodePunctuation() {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        const Normalizer normalizer;
        QCOMPARE(QString::fromStdString(normalizer.normalize(input.toStdString())), expected);
    }

    void finalSigmaAndDottedCapitalI() {
        const Normalizer normalizer;
        // Final sigma takes its word-final form, as Python's str.lower() does.
        QCOMPARE(normalizer.normalize("ΟΔΟΣ"), std::string("οδος"));
        QCOMPARE(normalizer.normalize("ΟΔΟΣ ΑΒ"), std::string("οδος αβ"));
        const std::string sigmaFinal = "\xcf\x82";
        QVERIFY(normalizer.normalize("ΟΔΟΣ").ends_with(sigmaFinal));
        // Root locale: U+0130 lower-cases to "i" + U+0307 (not Turkish dotless rules).
        QCOMPARE(normalizer.normalize("\xc4\xb0"), std::string("i\xcc\x87"));
    }

    void optionsSwitchStepsOff() {
        NormalizerOptions keepCase;
        keepCase.lowercase = false;
        QCOMPARE(Normalizer(keepCase).normalize("Breast-Cancer"), std::string("Breast Cancer"));

        NormalizerOptions keepPunctuation;
        keepPunctuation.removePunctuation = false;
        // Only the final strip remains: inner white space is untouched.
        QCOMPARE(Normalizer(keepPunctuation).normalize("  Breast-Cancer,  X "), std::string("breast-cancer,  x"));

        keepPunctuation.spelling = smallSpellingMap();
        // With spelling correction the tokens are re-joined by single spaces (BioSyn does so too).
        QCOMPARE(Normalizer(keepPunctuation).normalize("  Tumours,  TUMOURS "), std::string("tumours, tumors"));
    }

    void accentsStrippedOnlyWhenAsked() {
        NormalizerOptions options;
        QCOMPARE(Normalizer(options).normalize("Sjögren syndrome"), std::string("sjögren syndrome"));
        options.stripAccents = true;
        const Normalizer stripping(options);
        QCOMPARE(stripping.normalize("Sjögren syndrome"), std::string("sjogren syndrome"));
        QCOMPARE(stripping.normalize("Ménière’s disease"), std::string("meniere s disease"));
        // Precomposed and decomposed input give the same result.
        QCOMPARE(stripping.normalize("Me\xcc\x81nie\xcc\x80re"), std::string("meniere"));
        // Letters that are not base + mark survive (ø has no decomposition).
        QCOMPARE(stripping.normalize("Ørsted"), std::string("ørsted"));
    }

    void invalidUtf8IsAnError() {
        const Normalizer normalizer;
        QVERIFY_THROWS_EXCEPTION(Error, normalizer.normalize("bad \xff byte"));
        QVERIFY_THROWS_EXCEPTION(Error, normalizer.normalize("truncated \xe2\x82"));
        NormalizerOptions options;
        options.keepCharacters = "\xc3";
        QVERIFY_THROWS_EXCEPTION(Error, Normalizer{options});
    }

    void normalizeIntoReusesTheBuffer() {
        const Normalizer normalizer;
        std::string out = "previous content that must disappear";
        normalizer.normalizeInto("Heart, Failure", out);
        QCOMPARE(out, std::string("heart failure"));
        normalizer.normalizeInto("", out);
        QVERIFY(out.empty());
    }

    void copiesBehaveLikeTheOriginal() {
        NormalizerOptions options;
        options.keepCharacters = "|";
        options.stripAccents = true;
        const Normalizer original(options);
        Normalizer copy = original;
        QCOMPARE(copy.normalize("Ménière|X-Y"), std::string("meniere|x y"));
        Normalizer moved = std::move(copy);
        QCOMPARE(moved.normalize("Ménière|X-Y"), original.normalize("Ménière|X-Y"));
    }

    // One instance shared by threads gives every thread the single-threaded answers.
    void sharedAcrossThreads() {
        NormalizerOptions options;
        options.spelling = smallSpellingMap();
        options.stripAccents = true;
        const Normalizer normalizer(options);
        const std::vector<std::string> inputs = {"Tumours of the HEART.", "Sjögren–Larsson syndrome", "ΑΒΓ Disease",
                                                 "AtrialFibrillation", "plain ascii name"};
        std::vector<std::string> expected;
        for (const auto& input : inputs) expected.push_back(normalizer.normalize(input));
        std::vector<std::future<bool>> workers;
        for (int t = 0; t < 4; ++t)
            workers.push_back(std::async(std::launch::async, [&] {
                for (int round = 0; round < 500; ++round)
                    for (std::size_t i = 0; i < inputs.size(); ++i)
                        if (normalizer.normalize(inputs[i]) != expected[i]) return false;
                return true;
            }));
        for (auto& worker : workers) QVERIFY(worker.get());
        QCOMPARE(expected[1], std::string("sjogren larsson syndrome"));
    }

    // Properties on random text: idempotent, single spaces, nothing at the ends.
    void randomTextProperties() {
        std::mt19937 random(20240521);
        const Normalizer normalizer;
        for (int round = 0; round < 2000; ++round) {
            const std::string text = test::randomText(random, static_cast<std::size_t>(round % 40));
            const std::string once = normalizer.normalize(text);
            QCOMPARE(normalizer.normalize(once), once);
            QVERIFY(once.find("  ") == std::string::npos);
            QVERIFY(once.empty() || (once.front() != ' ' && once.back() != ' '));
        }
    }
};

QTEST_APPLESS_MAIN(TestNormalizer)
#include "test_normalizer.moc"
