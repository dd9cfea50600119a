// Composite mention splitting: the coordination forms, the refusals (never invent parts), and
// the vocabulary-guided choice. Expected parts are hand-derived.
#include <random>
#include <set>

#include "random_text.h"
#include "test_data.h"
#include "text/composite.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::text;

namespace {
QStringList toList(const std::vector<std::string>& parts) {
    QStringList list;
    for (const auto& part : parts) list << QString::fromStdString(part);
    return list;
}
QString formName(CompositeForm form) {
    const std::string_view name = toString(form);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}
}  // namespace

class TestComposite : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void splits_data() {
        QTest::addColumn<QString>("mention");
        QTest::addColumn<QStringList>("parts");
        QTest::addColumn<QString>("form");
        // Shared head: the words after the last conjunct.
        QTest::newRow("and") << "breast and ovarian cancer" << QStringList{"breast cancer", "ovarian cancer"}
                             << "shared-head";
        QTest::newRow("and/or") << "breast and/or ovarian cancer" << QStringList{"breast cancer", "ovarian cancer"}
                                << "shared-head";
        QTest::newRow("slash") << "breast/ovarian cancer" << QStringList{"breast cancer", "ovarian cancer"}
                               << "shared-head";
        QTest::newRow("neither-nor") << "neither breast nor ovarian cancer"
                                     << QStringList{"breast cancer", "ovarian cancer"} << "shared-head";
        QTest::newRow("both") << "both breast and ovarian cancer" << QStringList{"breast cancer", "ovarian cancer"}
                              << "shared-head";
        QTest::newRow("suspended-hyphen")
            << "breast- and ovarian cancer" << QStringList{"breast cancer", "ovarian cancer"} << "shared-head";
        QTest::newRow("other") << "colon and some other cancers" << QStringList{"colon cancers", "some other cancers"}
                               << "shared-head";
        QTest::newRow("three-with-commas")
            << "lung, breast and colon tumors" << QStringList{"lung tumors", "breast tumors", "colon tumors"}
            << "shared-head";
        QTest::newRow("oxford-comma") << "Saethre-Chotzen, Crouzon, and Pfeiffer syndromes"
                                      << QStringList{"Saethre-Chotzen syndromes", "Crouzon syndromes",
                                                     "Pfeiffer syndromes"}
                                      << "shared-head";
        QTest::newRow("adjective-joins-head")
            << "Duchenne and Becker muscular dystrophy"
            << QStringList{"Duchenne muscular dystrophy", "Becker muscular dystrophy"} << "shared-head";
        QTest::newRow("slash-adjective-head")
            << "Duchenne/Becker muscular dystrophy"
            << QStringList{"Duchenne muscular dystrophy", "Becker muscular dystrophy"} << "shared-head";
        QTest::newRow("noun-compound-conjunct")
            << "bone and soft tissue tumors" << QStringList{"bone tumors", "soft tissue tumors"} << "shared-head";
        QTest::newRow("long-conjunct") << "craniofacial and central nervous system defects"
                                       << QStringList{"craniofacial defects", "central nervous system defects"}
                                       << "shared-head";
        QTest::newRow("parallel-modifiers")
            << "male and female breast cancer" << QStringList{"male breast cancer", "female breast cancer"}
            << "shared-head";
        QTest::newRow("non-prefixed-modifier")
            << "syndromic and non-syndromic hearing loss"
            << QStringList{"syndromic hearing loss", "non-syndromic hearing loss"} << "shared-head";
        QTest::newRow("aside-commas") << "colorectal, or other, cancers"
                                      << QStringList{"colorectal cancers", "other cancers"} << "shared-head";
        QTest::newRow("leading-modifier-stays")
            << "sporadic breast, brain, prostate and kidney cancer"
            << QStringList{"sporadic breast cancer", "brain cancer", "prostate cancer", "kidney cancer"}
            << "shared-head";
        QTest::newRow("prepositional-head")
            << "aplasia or hypoplasia of the thymus" << QStringList{"aplasia of the thymus", "hypoplasia of the thymus"}
            << "shared-head";
        QTest::newRow("unicode-words") << "Sjögren and Ménière diseases"
                                       << QStringList{"Sjögren diseases", "Ménière diseases"} << "shared-head";
        // Enumerations: numbers, letters, codes.
        QTest::newRow("type-1-or-2") << "type 1 or 2 diabetes" << QStringList{"type 1 diabetes", "type 2 diabetes"}
                                     << "enumeration";
        QTest::newRow("numbers-at-end") << "spinocerebellar ataxias 1 and 2"
                                        << QStringList{"spinocerebellar ataxias 1", "spinocerebellar ataxias 2"}
                                        << "enumeration";
        QTest::newRow("letters") << "hemophilia A and B" << QStringList{"hemophilia A", "hemophilia B"}
                                 << "enumeration";
        QTest::newRow("capitals-list") << "A, B and C tumors" << QStringList{"A tumors", "B tumors", "C tumors"}
                                       << "enumeration";
        QTest::newRow("codes") << "C6 and C7 deficiencies" << QStringList{"C6 deficiencies", "C7 deficiencies"}
                               << "enumeration";
        QTest::newRow("brackets-ignored")
            << "complement deficiencies (C2 and C7)"
            << QStringList{"complement deficiencies C2", "complement deficiencies C7"} << "enumeration";
        QTest::newRow("roman") << "type I and II collagen defects"
                               << QStringList{"type I collagen defects", "type II collagen defects"} << "enumeration";
        // Head first.
        QTest::newRow("deficiency-of") << "deficiency of both factor V and factor VIII"
                                       << QStringList{"deficiency of factor V", "deficiency of factor VIII"}
                                       << "shared-preposition";
        QTest::newRow("two-word-items") << "disorder of lymphocyte homeostasis and immunological tolerance"
                                        << QStringList{"disorder of lymphocyte homeostasis",
                                                       "disorder of immunological tolerance"}
                                        << "shared-preposition";
        QTest::newRow("determiner-shared")
            << "cancer of the breast and ovaries" << QStringList{"cancer of the breast", "cancer of the ovaries"}
            << "shared-preposition";
        QTest::newRow("three-places") << "cysts in the kidney, pancreas, and epididymis"
                                      << QStringList{"cysts in the kidney", "cysts in the pancreas",
                                                     "cysts in the epididymis"}
                                      << "shared-preposition";
        // Shared modifier: the last conjunct is one word.
        QTest::newRow("adjective-modifier")
            << "colorectal adenomas and carcinoma" << QStringList{"colorectal adenomas", "colorectal carcinoma"}
            << "shared-modifier";
        QTest::newRow("cleft-slash") << "cleft lip/palate" << QStringList{"cleft lip", "cleft palate"}
                                     << "shared-modifier";
        QTest::newRow("cleft-and-or") << "cleft lip and/or palate" << QStringList{"cleft lip", "cleft palate"}
                                      << "shared-modifier";
        QTest::newRow("modifier-after-of")
            << "syndromic forms of cleft lip and palate"
            << QStringList{"syndromic forms of cleft lip", "syndromic forms of cleft palate"} << "shared-modifier";
        // Full names.
        QTest::newRow("same-head") << "Prader-Willi syndrome and Angelman syndrome"
                                   << QStringList{"Prader-Willi syndrome", "Angelman syndrome"} << "full-names";
        QTest::newRow("first-ends-in-disease") << "breast cancer and ovarian carcinoma"
                                               << QStringList{"breast cancer", "ovarian carcinoma"} << "full-names";
        QTest::newRow("noun-modifier-not-shared")
            << "lung cancer and leukemia" << QStringList{"lung cancer", "leukemia"} << "full-names";
        QTest::newRow("single-words") << "hemophilia or thrombosis" << QStringList{"hemophilia", "thrombosis"}
                                      << "full-names";
        QTest::newRow("as-well-as") << "breast cancer as well as ovarian cancer"
                                    << QStringList{"breast cancer", "ovarian cancer"} << "full-names";
        QTest::newRow("ampersand") << "Crohn disease & ulcerative colitis"
                                   << QStringList{"Crohn disease", "ulcerative colitis"} << "full-names";
    }
    void splits() {
        QFETCH(QString, mention);
        QFETCH(QStringList, parts);
        QFETCH(QString, form);
        const auto split = splitComposite(mention.toStdString(), static_cast<std::size_t>(parts.size()));
        QVERIFY2(split.has_value(), qPrintable(mention));
        QCOMPARE(toList(split->parts), parts);
        QCOMPARE(formName(split->form), form);
    }

    void refusesWrongCounts_data() {
        QTest::addColumn<QString>("mention");
        QTest::addColumn<int>("expected");
        QTest::newRow("too-many-expected") << "breast and ovarian cancer" << 3;
        QTest::newRow("too-few-expected") << "retinal, cerebellar and spinal haemangioblastomas" << 2;
        QTest::newRow("no-coordination") << "hereditary deafness" << 2;
        QTest::newRow("to-is-no-coordinator") << "breast to ovarian cancer" << 2;
        QTest::newRow("dangling-conjunction") << "cancer and" << 2;
        QTest::newRow("only-separators") << ", and / ," << 2;
        QTest::newRow("empty") << "" << 2;
        QTest::newRow("blank-single") << "   " << 1;
        QTest::newRow("zero-expected") << "breast and ovarian cancer" << 0;
    }
    void refusesWrongCounts() {
        QFETCH(QString, mention);
        QFETCH(int, expected);
        QVERIFY(!splitComposite(mention.toStdString(), static_cast<std::size_t>(expected)).has_value());
    }

    void singlePartIsTheMention() {
        const auto split = splitComposite("  breast and ovarian cancer ", 1);
        QVERIFY(split);
        QCOMPARE(formName(split->form), QString("single"));
        QCOMPARE(toList(split->parts), QStringList{"breast and ovarian cancer"});
    }

    void invalidUtf8IsAnError() { QVERIFY_THROWS_EXCEPTION(Error, splitComposite("a and \xff", 2)); }

    void vocabularyOverridesTheGuess() {
        // Without a vocabulary "soft tissue" is the last conjunct.
        QCOMPARE(toList(splitComposite("bone and soft tissue sarcoma", 2)->parts),
                 (QStringList{"bone sarcoma", "soft tissue sarcoma"}));
        const std::set<std::string> vocabulary = {"bone tissue sarcoma", "soft tissue sarcoma"};
        CompositeOptions options;
        options.isKnownName = [&](std::string_view name) { return vocabulary.count(std::string(name)) > 0; };
        const auto split = splitComposite("bone and soft tissue sarcoma", 2, options);
        QCOMPARE(toList(split->parts), (QStringList{"bone tissue sarcoma", "soft tissue sarcoma"}));
        QCOMPARE(formName(split->form), QString("shared-head"));
    }

    void vocabularyTiesKeepTheGuess() {
        const std::set<std::string> vocabulary = {"soft tissue sarcoma"};
        CompositeOptions options;
        options.isKnownName = [&](std::string_view name) { return vocabulary.count(std::string(name)) > 0; };
        QCOMPARE(toList(splitComposite("bone and soft tissue sarcoma", 2, options)->parts),
                 (QStringList{"bone sarcoma", "soft tissue sarcoma"}));
    }

    void vocabularyCanChooseFullNames() {
        const std::set<std::string> vocabulary = {"colorectal adenomas", "carcinoma"};
        CompositeOptions options;
        options.isKnownName = [&](std::string_view name) { return vocabulary.count(std::string(name)) > 0; };
        const auto split = splitComposite("colorectal adenomas and carcinoma", 2, options);
        QCOMPARE(formName(split->form), QString("full-names"));
        QCOMPARE(toList(split->parts), (QStringList{"colorectal adenomas", "carcinoma"}));
    }

    // Random mentions never crash the splitter; an answer always has the asked number of parts.
    void randomMentionProperties() {
        std::mt19937 random(11);
        std::size_t splits = 0;
        for (int round = 0; round < 3000; ++round) {
            const std::string mention = test::randomText(random, static_cast<std::size_t>(round % 12));
            const auto expected = static_cast<std::size_t>(round % 5);
            const auto split = splitComposite(mention, expected);
            if (!split) continue;
            ++splits;
            QCOMPARE(split->parts.size(), expected);
            for (const auto& part : split->parts) QVERIFY(!part.empty());
        }
        qInfo("%zu random mentions split", splits);
        QVERIFY(splits >= 100);  // the property was exercised (728 with libstdc++)
    }
};

QTEST_APPLESS_MAIN(TestComposite)
#include "test_composite.moc"
