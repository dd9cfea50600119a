// The terms TF-IDF counts, as scikit-learn's TfidfVectorizer.build_analyzer() gives them. The
// expected lists follow scikit-learn's rules (stated in retrieval/text_analyzer.h); each was also
// checked against scikit-learn 1.2.1 (benchmarks/sklearn_tfidf_check.py compares the whole models).
#include "retrieval/stop_words.h"
#include "retrieval/text_analyzer.h"
#include "test_data.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::retrieval;

namespace {

using Terms = std::vector<std::string>;

TfidfSettings chars(unsigned minN, unsigned maxN) {
    TfidfSettings settings;
    settings.analyzer = Analyzer::Char;
    settings.minN = minN;
    settings.maxN = maxN;
    return settings;
}

TfidfSettings words(unsigned minN, unsigned maxN, bool stopWords = false) {
    TfidfSettings settings;
    settings.analyzer = Analyzer::Word;
    settings.minN = minN;
    settings.maxN = maxN;
    settings.englishStopWords = stopWords;
    return settings;
}

}  // namespace

class TestTextAnalyzer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void charNgramsLowestOrderFirst() {
        // All unigrams, then all bigrams, in position order; repetitions are the counts.
        QCOMPARE(analyzeTerms(chars(1, 2), "abab"), (Terms{"a", "b", "a", "b", "ab", "ba", "ab"}));
        QCOMPARE(analyzeTerms(chars(2, 3), "abcd"), (Terms{"ab", "bc", "cd", "abc", "bcd"}));
    }
    void charNgramsIncludeSpacesAndLowerCase() {
        QCOMPARE(analyzeTerms(chars(1, 2), "A b"), (Terms{"a", " ", "b", "a ", " b"}));
        TfidfSettings keepCase = chars(1, 1);
        keepCase.lowercase = false;
        QCOMPARE(analyzeTerms(keepCase, "Ab"), (Terms{"A", "b"}));
    }
    void stringShorterThanTheOrderHasNoSuchNgrams() {
        QCOMPARE(analyzeTerms(chars(3, 3), "ab"), Terms{});
        QCOMPARE(analyzeTerms(chars(1, 3), "ab"), (Terms{"a", "b", "ab"}));
        QCOMPARE(analyzeTerms(chars(1, 2), ""), Terms{});
    }
    void whitespaceRunsBecomeOneSpaceButASingleTabStays() {
        // scikit-learn replaces \s\s+ (two or more) by one space; one whitespace character of
        // any kind is left as it is.
        QCOMPARE(analyzeTerms(chars(1, 2), "a  B"), (Terms{"a", " ", "b", "a ", " b"}));
        QCOMPARE(analyzeTerms(chars(1, 2), "x\ty"), (Terms{"x", "\t", "y", "x\t", "\ty"}));
        QCOMPARE(analyzeTerms(chars(1, 2), "x\t \ny"), (Terms{"x", " ", "y", "x ", " y"}));
        QCOMPARE(analyzeTerms(chars(1, 2), "n\u00a0b"), (Terms{"n", "\u00a0", "b", "n\u00a0", "\u00a0b"}));
        QCOMPARE(analyzeTerms(chars(1, 2), "n\u00a0\u2003b"), (Terms{"n", " ", "b", "n ", " b"}));
        QCOMPARE(analyzeTerms(chars(1, 1), "  "), Terms{" "});
    }
    void charNgramsCountCodePointsNotBytes() {
        QCOMPARE(analyzeTerms(chars(2, 2), "café"), (Terms{"ca", "af", "fé"}));
        QCOMPARE(analyzeTerms(chars(1, 1), "日本"), (Terms{"日", "本"}));
        QCOMPARE(analyzeTerms(chars(2, 2), "a\U0001F642b"), (Terms{"a\U0001F642", "\U0001F642b"}));
    }
    void lowerCasingIsPythonsFullMapping() {
        // str.lower(): final sigma, and the dotted capital I becoming i + combining dot above.
        QCOMPARE(lowercaseLikePython("\u039f\u0394\u039f\u03a3"), std::string("\u03bf\u03b4\u03bf\u03c2"));
        QCOMPARE(lowercaseLikePython("\u03a3\u039f"), std::string("\u03c3\u03bf"));  // not final: plain sigma
        QCOMPARE(lowercaseLikePython("İ"), std::string("i\u0307"));
        QCOMPARE(lowercaseLikePython("STRAßE Ärger"), std::string("straße ärger"));
        QCOMPARE(analyzeTerms(chars(1, 2), "İ"), (Terms{"i", "\u0307", "i\u0307"}));
    }
    void pythonCharacterClasses() {
        QVERIFY(isPythonWhitespace(U' ') && isPythonWhitespace(U'\t') && isPythonWhitespace(U'\x1c'));
        QVERIFY(isPythonWhitespace(U'\u00a0') && isPythonWhitespace(U'\u2003') && isPythonWhitespace(U'\u3000'));
        QVERIFY(!isPythonWhitespace(U'\u200b') && !isPythonWhitespace(U'a'));
        QVERIFY(isPythonWordCharacter(U'_') && isPythonWordCharacter(U'7') && isPythonWordCharacter(U'é'));
        QVERIFY(isPythonWordCharacter(U'\u00b2') && isPythonWordCharacter(U'\u216b'));  // superscript two, roman XII
        QVERIFY(!isPythonWordCharacter(U'\u0301') && !isPythonWordCharacter(U'-') && !isPythonWordCharacter(U'\''));
    }
    void wordTokensAreRunsOfTwoOrMoreWordCharacters() {
        QCOMPARE(analyzeTerms(words(1, 1), "Type 2 diabetes"), (Terms{"type", "diabetes"}));
        QCOMPARE(analyzeTerms(words(1, 1), "x_y z _a"), (Terms{"x_y", "_a"}));
        QCOMPARE(analyzeTerms(words(1, 1), "don't stop-it"), (Terms{"don", "stop", "it"}));
        QCOMPARE(analyzeTerms(words(1, 1), "naïve café"), (Terms{"naïve", "café"}));
        // A combining mark is not a word character: it splits "e\u0301te" into "e" and "te".
        QCOMPARE(analyzeTerms(words(1, 1), "e\u0301t\u00e9"), (Terms{"t\u00e9"}));
        QCOMPARE(analyzeTerms(words(1, 1), "\u00b2\u00b3 \u216b \u00bdx \u65e5\u672c\u8a9e"),
                 (Terms{"\u00b2\u00b3", "\u00bdx", "\u65e5\u672c\u8a9e"}));
        QCOMPARE(analyzeTerms(words(1, 1), "  \t "), Terms{});
    }
    void stopWordsAreRemovedBeforeWordNgrams() {
        QCOMPARE(analyzeTerms(words(1, 1), "The cat of the hat"), (Terms{"the", "cat", "of", "the", "hat"}));
        QCOMPARE(analyzeTerms(words(1, 2, true), "The cat of the hat sat"),
                 (Terms{"cat", "hat", "sat", "cat hat", "hat sat"}));
        QCOMPARE(analyzeTerms(words(1, 1, true), "the of and"), Terms{});
        // Stop words are a word-analyzer setting: character n-grams ignore them, as in scikit-learn.
        TfidfSettings charsWithStopWords = chars(1, 1);
        charsWithStopWords.englishStopWords = true;
        QCOMPARE(analyzeTerms(charsWithStopWords, "a of"), (Terms{"a", " ", "o", "f"}));
    }
    void wordNgramsAreJoinedByOneSpace() {
        QCOMPARE(analyzeTerms(words(2, 3), "a big, red dog"), (Terms{"big red", "red dog", "big red dog"}));
        QCOMPARE(analyzeTerms(words(2, 2), "single"), Terms{});
    }
    void stopWordListIsScikitLearns() {
        const auto list = englishStopWords();
        QCOMPARE(list.size(), std::size_t{318});
        QVERIFY(std::is_sorted(list.begin(), list.end()));
        QVERIFY(std::adjacent_find(list.begin(), list.end()) == list.end());
        QCOMPARE(list.front(), std::string_view("a"));
        QCOMPARE(list.back(), std::string_view("yourselves"));
        QVERIFY(isEnglishStopWord("the") && isEnglishStopWord("amoungst") && isEnglishStopWord("system"));
        QVERIFY(!isEnglishStopWord("disease") && !isEnglishStopWord("The") && !isEnglishStopWord(""));
    }
    void invalidUtf8IsAnError() {
        TermAnalyzer analyzer(chars(1, 2));
        try {
            analyzer.analyze("ok \xff bad");
            QFAIL("expected Error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("not valid UTF-8 (byte 3") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, analyzer.analyze("\xc3"));          // truncated sequence
        QVERIFY_THROWS_EXCEPTION(Error, analyzer.analyze("\xed\xa0\x80"));  // surrogate
        QCOMPARE(analyzer.analyze("fine").size(), std::size_t{7});          // usable afterwards
    }
    void hugeInputIsAnalyzedWithoutTrouble() {
        const std::string text(200000, 'a');
        TermAnalyzer analyzer(chars(1, 2));
        const auto terms = analyzer.analyze(text);
        QCOMPARE(terms.size(), std::size_t{200000 + 199999});
        QCOMPARE(terms.back(), std::string_view("aa"));
    }
    void viewsStayValidUntilTheNextCall() {
        TermAnalyzer analyzer(words(1, 2));
        const auto terms = analyzer.analyze("alpha beta gamma");
        const Terms copy(terms.begin(), terms.end());
        QCOMPARE(copy, (Terms{"alpha", "beta", "gamma", "alpha beta", "beta gamma"}));
    }
    void invalidSettingsAreRefused() {
        QVERIFY_THROWS_EXCEPTION(Error, TermAnalyzer(chars(0, 2)));
        QVERIFY_THROWS_EXCEPTION(Error, TermAnalyzer(chars(3, 2)));
        QVERIFY_THROWS_EXCEPTION(Error, TermAnalyzer(chars(1, 65)));
        QCOMPARE(TfidfSettings::bioSyn().describe(), std::string("char 1-2, lowercase, l2, smooth idf"));
        QCOMPARE(TfidfSettings::leNguyenWords().describe(),
                 std::string("word 1-1, lowercase, English stop words removed, l2, smooth idf"));
        QCOMPARE(TfidfSettings::leNguyenChars().minN, 2u);
        QCOMPARE(TfidfSettings::leNguyenChars().maxN, 5u);
    }
};

QTEST_APPLESS_MAIN(TestTextAnalyzer)
#include "test_text_analyzer.moc"
