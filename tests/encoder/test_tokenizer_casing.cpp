// The casing of a WordPiece tokenizer and the warning for a cased vocabulary that nothing marks
// as cased (BioBERT cased ships vocab.txt alone): transformers lower-cases such a model's input.
#include <filesystem>
#include <string>
#include <vector>

#include "encoder/bert_tokenizer.h"
#include "encoder/tokenizer_casing.h"
#include "fixtures.h"

using namespace linkscope;
using namespace linkscope::encoder;
namespace fs = std::filesystem;

namespace {

/// A vocabulary of special tokens and `words` words, of which `capped` start with a capital.
std::string vocabularyText(int words, int capped) {
    std::string text = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
    for (int i = 0; i < words; ++i) text += (i < capped ? "Word" : "word") + std::to_string(i) + "\n";
    return text;
}

}  // namespace

class TestTokenizerCasing : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

    fs::path folder(const std::string& name, const std::string& vocabulary, const std::string* config = nullptr) {
        const fs::path directory = dir_.path(name);
        fs::create_directories(directory);
        test::writeFile(directory / "vocab.txt", vocabulary);
        if (config) test::writeFile(directory / "tokenizer_config.json", *config);
        return directory;
    }

private Q_SLOTS:
    void casedVocabularyWithoutConfigWarns() {
        const fs::path directory = folder("cased", vocabularyText(200, 80));
        const CasingDecision decision = decideCasing(directory);
        QVERIFY(decision.lowerCase);  // transformers' default
        QCOMPARE(decision.source, CasingSource::TransformersDefault);
        QCOMPARE(decision.cappedTokens, std::size_t{80});
        QCOMPARE(decision.wordTokens, std::size_t{200});
        QCOMPARE(decision.warnings.size(), std::size_t{1});
        const std::string& warning = decision.warnings.front();
        QVERIFY2(warning.find((directory / "tokenizer_config.json").string()) != std::string::npos, warning.c_str());
        QVERIFY2(warning.find("{\"do_lower_case\": false}") != std::string::npos, warning.c_str());
        QVERIFY2(warning.find("80 of 200") != std::string::npos, warning.c_str());
        // The tokenizer itself still lower-cases, as transformers does.
        QVERIFY(BertTokenizer::fromDirectory(directory).config().doLowerCase);
    }

    void configWithoutTheSettingAsksToAddIt() {
        const std::string config = R"({"model_max_length": 512})";
        const fs::path directory = folder("cased-other-config", vocabularyText(200, 80), &config);
        const CasingDecision decision = decideCasing(directory);
        QCOMPARE(decision.source, CasingSource::TransformersDefault);
        QCOMPARE(decision.warnings.size(), std::size_t{1});
        QVERIFY2(decision.warnings.front().find("add \"do_lower_case\": false to") != std::string::npos,
                 decision.warnings.front().c_str());
    }

    void configSayingFalseKeepsCaseWithoutWarning() {
        const std::string config = R"({"do_lower_case": false})";
        const fs::path directory = folder("cased-false", vocabularyText(200, 80), &config);
        const CasingDecision decision = decideCasing(directory);
        QVERIFY(!decision.lowerCase);
        QCOMPARE(decision.source, CasingSource::TokenizerConfig);
        QVERIFY(decision.warnings.empty());
        QVERIFY(!BertTokenizer::fromDirectory(directory).config().doLowerCase);
    }

    void configSayingTrueIsObeyedWithoutWarning() {
        const std::string config = R"({"do_lower_case": true})";
        const CasingDecision decision = decideCasing(folder("cased-true", vocabularyText(200, 80), &config));
        QVERIFY(decision.lowerCase);
        QCOMPARE(decision.source, CasingSource::TokenizerConfig);
        QVERIFY(decision.warnings.empty());
    }

    void uncasedVocabularyDoesNotWarn() {
        const CasingDecision decision = decideCasing(folder("uncased", vocabularyText(200, 0)));
        QVERIFY(decision.lowerCase);
        QCOMPARE(decision.cappedTokens, std::size_t{0});
        QVERIFY(decision.warnings.empty());
    }

    void aFewCapitalsAreNotPlainlyCased() {
        // Special tokens are never counted, and a handful of capitalised acronyms is not a cased
        // vocabulary.
        QVERIFY(decideCasing(folder("few", vocabularyText(1000, 5))).warnings.empty());
        QVERIFY(decideCasing(folder("small-share", vocabularyText(1000, 19))).warnings.empty());
        QVERIFY(!decideCasing(folder("share", vocabularyText(1000, 20))).warnings.empty());
    }

    void malformedSettingIsAnError() {
        const std::string config = R"({"do_lower_case": "no"})";
        const fs::path directory = folder("malformed", vocabularyText(20, 20), &config);
        QVERIFY_THROWS_EXCEPTION(ParseError, decideCasing(directory));
    }
};

QTEST_APPLESS_MAIN(TestTokenizerCasing)
#include "test_tokenizer_casing.moc"
