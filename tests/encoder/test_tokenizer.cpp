// BERT tokenizer: basic tokenization, WordPiece, added tokens, encode(), offsets and the
// checkpoint files. Every expected output is derived by hand from transformers' slow
// BertTokenizer (tokenization_bert.py and PreTrainedTokenizer.tokenize); the comment on each
// check says which rule produces it.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <limits>
#include <string>
#include <vector>

#include "encoder/bert_tokenizer.h"
#include "fixtures.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;

namespace {

// A small hand-written vocabulary; the comment after each token is its id.
const std::vector<std::string> kVocabulary = {
    "[PAD]",  "[UNK]",  "[CLS]",  "[SEP]",  "[MASK]",  // 0-4
    "the",    "breast", "cancer", "gene",   "##s",     // 5-9
    "cafe",   "muller", "café",   "müller", "Café",    // 10-14
    "Müller", "Cafe",   "α",      "-",      "/",       // 15-19
    "+",      "syn",    "##uc",   "##lein", "tnf",     // 20-24
    "TNF",    "il",     "IL",     "2",      "5",       // 25-29
    "##q",    "##31",   "乳",     "腺",     "癌",      // 30-34
    "a",      "##a",    "##b",    "σ",      "##α",     // 35-39
    "##σ",    "bre",    "##ast",  ",",      ".",       // 40-44
    "(",      ")",      "[",      "]",      "b",       // 45-49
    "°",      "##c",    "c",      "–",                 // 50-53 (the last is U+2013 EN DASH)
};
constexpr std::int32_t kVocabularySize = 54;

BertTokenizer makeTokenizer(TokenizerConfig config = {}) {
    return BertTokenizer(Vocabulary::fromTokens(kVocabulary), std::move(config));
}

TokenizerConfig cased() {
    TokenizerConfig config;
    config.doLowerCase = false;
    return config;
}

// Tokens joined with " | " so that a failure shows the whole sequence.
std::string joined(const std::vector<std::string>& tokens) {
    std::string out;
    for (const auto& token : tokens) out += (out.empty() ? "" : " | ") + token;
    return out;
}
std::string tokens(const BertTokenizer& tokenizer, std::string_view text) { return joined(tokenizer.tokenize(text)); }

std::string offsetsOf(const Encoding& encoding) {
    std::string out;
    for (const auto& [begin, end] : encoding.offsets)
        out += (out.empty() ? "" : " ") + std::to_string(begin) + "-" + std::to_string(end);
    return out;
}
std::string idsOf(const Encoding& encoding) {
    std::string out;
    for (const auto id : encoding.ids) out += (out.empty() ? "" : " ") + std::to_string(id);
    return out;
}

QJsonObject readJson(const std::filesystem::path& file) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(test::readFile(file))).object();
}

}  // namespace

class TestTokenizer : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    // ---- basic tokenization -------------------------------------------------------------

    void accentsAreStrippedWhenUncased() {
        // Uncased: lower-case, then NFD and drop Mn: é -> e, ü -> u.
        QCOMPARE(tokens(makeTokenizer(), "Café Müller"), std::string("cafe | muller"));
        // "Café" is 5 bytes (é is 2), the space is byte 5, "Müller" is bytes 6-13: the
        // stripped letters still cover the accented letters' bytes.
        const auto encoding = makeTokenizer().encode("Café Müller");
        QCOMPARE(idsOf(encoding), std::string("2 10 11 3"));
        QCOMPARE(offsetsOf(encoding), std::string("0-0 0-5 6-13 0-0"));
    }
    void stripAccentsFalseKeepsThemWhenUncased() {
        TokenizerConfig config;
        config.stripAccents = false;
        QCOMPARE(tokens(makeTokenizer(config), "Café Müller"), std::string("café | müller"));
    }
    void casedKeepsCaseAndAccents() {
        // strip_accents None follows do_lower_case: cased means no stripping.
        QCOMPARE(tokens(makeTokenizer(cased()), "Café Müller"), std::string("Café | Müller"));
    }
    void stripAccentsTrueStripsEvenWhenCased() {
        TokenizerConfig config = cased();
        config.stripAccents = true;
        // "Café" -> "Cafe" (id 16); "Muller" has no "M" in the vocabulary: the whole word is [UNK].
        QCOMPARE(tokens(makeTokenizer(config), "Café Müller"), std::string("Cafe | [UNK]"));
    }
    void greekLettersAreLetters() {
        // α is a letter (Ll), "-" is punctuation: "α", "-", then WordPiece of "synuclein":
        // "syn" is the longest vocabulary prefix, then "##uc" and "##lein".
        QCOMPARE(tokens(makeTokenizer(), "α-synuclein"), std::string("α | - | syn | ##uc | ##lein"));
        // Capital alpha U+0391 lower-cases to α.
        QCOMPARE(tokens(makeTokenizer(), "Α-SYNUCLEIN"), std::string("α | - | syn | ##uc | ##lein"));
        QCOMPARE(tokens(makeTokenizer(), "TNF-α"), std::string("tnf | - | α"));
        QCOMPARE(tokens(makeTokenizer(cased()), "TNF-α"), std::string("TNF | - | α"));
        // α is 2 bytes: "-" is byte 2, "syn" 3-6, "##uc" 6-8, "##lein" 8-12.
        QCOMPARE(offsetsOf(makeTokenizer().encode("α-synuclein")), std::string("0-0 0-2 2-3 3-6 6-8 8-12 0-0"));
    }
    void hyphensSlashesAndAsciiSymbolsArePunctuation() {
        QCOMPARE(tokens(makeTokenizer(), "breast/cancer"), std::string("breast | / | cancer"));
        // "+" is not Unicode punctuation (Sm) but every printable non-alphanumeric ASCII
        // character is punctuation for BERT.
        QCOMPARE(tokens(makeTokenizer(), "a+b"), std::string("a | + | b"));
        // U+2013 EN DASH is category Pd.
        QCOMPARE(tokens(makeTokenizer(), "a–b"), std::string("a | – | b"));
        QCOMPARE(tokens(makeTokenizer(cased()), "(IL-2)."), std::string("( | IL | - | 2 | ) | ."));
    }
    void nonAsciiSymbolsAreNotPunctuation() {
        // "°" is So: it stays inside the word "a°", and "##°" is not in the vocabulary, so the
        // whole word is [UNK] (were it punctuation we would get "a | °").
        QCOMPARE(tokens(makeTokenizer(), "a°"), std::string("[UNK]"));
        QCOMPARE(tokens(makeTokenizer(), "a °"), std::string("a | °"));
    }
    void digitsStayInWords() {
        QCOMPARE(tokens(makeTokenizer(), "IL-2"), std::string("il | - | 2"));
        // "5q31" is one word: "5", then "##q", then "##31".
        QCOMPARE(tokens(makeTokenizer(), "5q31"), std::string("5 | ##q | ##31"));
    }
    void continuationPieces() {
        QCOMPARE(tokens(makeTokenizer(), "breasts genes"), std::string("breast | ##s | gene | ##s"));
        // "breastbre": "breast" first (longest prefix), then "##bre" is not in the vocabulary
        // and neither is any shorter "##b..." but "##b"; then "re" is not coverable -> [UNK].
        QCOMPARE(tokens(makeTokenizer(), "breastbre"), std::string("[UNK]"));
    }
    void longWordsBecomeUnknown() {
        // 100 characters is the limit: "a" then 99 times "##a".
        const auto hundred = makeTokenizer().tokenize(std::string(100, 'a'));
        QCOMPARE(hundred.size(), std::size_t{100});
        QCOMPARE(hundred.front(), std::string("a"));
        QCOMPARE(hundred.back(), std::string("##a"));
        // 101 characters: one [UNK] covering the whole word.
        const auto encoding = makeTokenizer().encode(std::string(101, 'a'));
        QCOMPARE(idsOf(encoding), std::string("2 1 3"));
        QCOMPARE(offsetsOf(encoding), std::string("0-0 0-101 0-0"));
        // The limit counts characters, not bytes: 60 two-byte alphas are fine... as far as the
        // limit goes ("##α" covers them: "α" then 59 "##α").
        std::string alphas;
        for (int i = 0; i < 60; ++i) alphas += "α";
        QCOMPARE(makeTokenizer().tokenize(alphas).size(), std::size_t{60});
    }
    void unsplittableWordIsOneUnknown() {
        QCOMPARE(tokens(makeTokenizer(), "xyz"), std::string("[UNK]"));
        // "a", "##b" match but nothing covers "x": the reference drops the pieces it found and
        // gives one [UNK] for the word.
        QCOMPARE(tokens(makeTokenizer(), "abx the"), std::string("[UNK] | the"));
    }
    void cjkIdeographsAreSpacedOut() {
        QCOMPARE(tokens(makeTokenizer(), "乳腺癌"), std::string("乳 | 腺 | 癌"));
        QCOMPARE(offsetsOf(makeTokenizer().encode("乳腺癌")), std::string("0-0 0-3 3-6 6-9 0-0"));
        // Without tokenize_chinese_chars the three are one word, and "##腺" is not in the vocabulary.
        TokenizerConfig config;
        config.tokenizeChineseChars = false;
        QCOMPARE(tokens(makeTokenizer(config), "乳腺癌"), std::string("[UNK]"));
    }
    void controlCharactersAreRemoved() {
        // U+200B ZERO WIDTH SPACE is Cf, U+0001 is Cc, U+0000 and U+FFFD are dropped too: the
        // word is joined back together, and still covers all its bytes (3 + 3 + 3).
        QCOMPARE(tokens(makeTokenizer(), "bre\u200Bast"), std::string("breast"));
        QCOMPARE(offsetsOf(makeTokenizer().encode("bre\u200Bast")), std::string("0-0 0-9 0-0"));
        QCOMPARE(tokens(makeTokenizer(), std::string_view("bre\0ast\x01", 8)), std::string("breast"));
        QCOMPARE(tokens(makeTokenizer(), "bre\uFFFDast"), std::string("breast"));
        // Vertical tab and form feed are Cc, not BERT whitespace: removed, they do not split.
        QCOMPARE(tokens(makeTokenizer(), "bre\vast\f"), std::string("breast"));
    }
    void unicodeWhitespaceSplits() {
        // NO-BREAK SPACE (Zs) and tab become spaces; LINE SEPARATOR (Zl) is kept by _clean_text
        // but Python's str.split() cuts on it.
        QCOMPARE(tokens(makeTokenizer(), "breast\u00A0cancer\tgene\u2028the \r\n"),
                 std::string("breast | cancer | gene | the"));
    }
    void combiningMarks() {
        // "e" + U+0301 is composed (NFC) into é first: uncased strips it back to "cafe", and the
        // token covers all 6 bytes (the accent is 2 bytes).
        QCOMPARE(tokens(makeTokenizer(), "Cafe\u0301"), std::string("cafe"));
        QCOMPARE(offsetsOf(makeTokenizer().encode("Cafe\u0301")), std::string("0-0 0-6 0-0"));
        // Cased: NFC makes it the vocabulary's precomposed "Café".
        QCOMPARE(tokens(makeTokenizer(cased()), "Cafe\u0301"), std::string("Café"));
        QCOMPARE(offsetsOf(makeTokenizer(cased()).encode("Cafe\u0301")), std::string("0-0 0-6 0-0"));
        // A lone combining mark is stripped to nothing.
        QCOMPARE(tokens(makeTokenizer(), "\u0301 the"), std::string("the"));
    }
    void lowerCaseIsPerCharacter() {
        // transformers lower-cases the text one character at a time before basic tokenization,
        // so a word-final capital sigma becomes σ, not the final form ς.
        QCOMPARE(tokens(makeTokenizer(), "ΣΑΣ"), std::string("σ | ##α | ##σ"));
        // "İ" lower-cases to "i" + U+0307 (two characters); the accent is stripped and "il"
        // covers İ's two bytes and "L".
        QCOMPARE(tokens(makeTokenizer(), "İL-2"), std::string("il | - | 2"));
        QCOMPARE(offsetsOf(makeTokenizer().encode("İL-2")), std::string("0-0 0-3 3-4 4-5 0-0"));
    }
    void emojiStayInTheWord() {
        // U+1F600 is So: not punctuation, so "cancer😀" is one word with no "##😀": [UNK] over
        // all 10 bytes. Alone it is a word of its own, also unknown.
        QCOMPARE(tokens(makeTokenizer(), "cancer😀"), std::string("[UNK]"));
        QCOMPARE(offsetsOf(makeTokenizer().encode("cancer😀")), std::string("0-0 0-10 0-0"));
        QCOMPARE(tokens(makeTokenizer(), "cancer 😀"), std::string("cancer | [UNK]"));
    }
    void emptyAndBlankText() {
        QVERIFY(makeTokenizer().tokenize("").empty());
        QVERIFY(makeTokenizer().tokenize(" \t\n").empty());
        QCOMPARE(idsOf(makeTokenizer().encode("")), std::string("2 3"));
    }
    void invalidUtf8IsAnError() {
        const auto tokenizer = makeTokenizer();
        QVERIFY_THROWS_EXCEPTION(Error, tokenizer.tokenize("bre\xff"
                                                           "ast"));
        QVERIFY_THROWS_EXCEPTION(Error, tokenizer.encode("\xc3"));
    }

    // ---- added and special tokens ---------------------------------------------------------

    void addedMarkersAreKeptWhole() {
        auto tokenizer = makeTokenizer();
        const std::vector<std::string> markers = {"[S]", "[E]"};
        const auto ids = tokenizer.addTokens(markers);
        // New tokens get ids past the vocabulary.
        QCOMPARE(ids, (std::vector<std::int32_t>{kVocabularySize, kVocabularySize + 1}));
        QCOMPARE(tokenizer.vocabularySize(), std::size_t{kVocabularySize + 2});
        QCOMPARE(tokenizer.tokenId("[E]"), std::optional<std::int32_t>(kVocabularySize + 1));
        const auto encoding = tokenizer.encode("[S] breast cancer [E]");
        QCOMPARE(idsOf(encoding), std::string("2 54 6 7 55 3"));
        QCOMPARE(offsetsOf(encoding), std::string("0-0 0-3 4-10 11-17 18-21 0-0"));
        // Not lower-cased although the tokenizer is uncased, and split off without spaces.
        QCOMPARE(tokens(tokenizer, "[S]Breast[E]"), std::string("[S] | breast | [E]"));
        // Matching is case-sensitive: "[s]" is plain text ("s" alone is not in the vocabulary).
        QCOMPARE(tokens(tokenizer, "[s] the"), std::string("[ | [UNK] | ] | the"));
        // Adding again returns the same ids; a vocabulary token keeps its id.
        QCOMPARE(tokenizer.addTokens(markers), ids);
        const std::vector<std::string> inVocabulary = {"gene"};
        QCOMPARE(tokenizer.addTokens(inVocabulary), (std::vector<std::int32_t>{8}));
        QCOMPARE(tokenizer.vocabularySize(), std::size_t{kVocabularySize + 2});
        // ... and is no longer split: "genes" is "gene" (whole, added) then "s" -> [UNK].
        QCOMPARE(tokens(tokenizer, "genes"), std::string("gene | [UNK]"));
    }
    void addedTokensMatchLeftmostLongest() {
        auto tokenizer = makeTokenizer();
        const std::vector<std::string> added = {"@@", "@@@"};
        tokenizer.addTokens(added);
        // At position 0 both match: the longer wins; the "@" left over is no vocabulary token.
        QCOMPARE(tokens(tokenizer, "@@@@"), std::string("@@@ | [UNK]"));
    }
    void specialTokensInTextAreKept() {
        const auto tokenizer = makeTokenizer();
        QCOMPARE(tokens(tokenizer, "breast [SEP] cancer"), std::string("breast | [SEP] | cancer"));
        QCOMPARE(idsOf(tokenizer.encode("breast [SEP] cancer")), std::string("2 6 3 7 3"));
        QCOMPARE(tokens(tokenizer, "[MASK]s"), std::string("[MASK] | [UNK]"));
    }
    void missingSpecialTokenIsAdded() {
        // transformers appends a special token that vocab.txt lacks.
        std::vector<std::string> vocabulary = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "the"};
        const BertTokenizer tokenizer(Vocabulary::fromTokens(vocabulary), TokenizerConfig{});
        QCOMPARE(tokenizer.maskId(), 5);
        QCOMPARE(tokenizer.vocabularySize(), std::size_t{6});
        QCOMPARE(tokens(tokenizer, "the [MASK]"), std::string("the | [MASK]"));
        QCOMPARE(tokenizer.config().addedTokens, (std::vector<std::pair<std::string, std::int32_t>>{{"[MASK]", 5}}));
        // Saved, it is an added token past vocab.txt, and loads back as the same.
        tokenizer.save(dir_.path("no-mask"));
        const auto loaded = BertTokenizer::fromDirectory(dir_.path("no-mask"));
        QCOMPARE(loaded.maskId(), 5);
        QCOMPARE(loaded.config().addedTokens, tokenizer.config().addedTokens);
    }
    void inconsistentAddedTokensAreRefused() {
        TokenizerConfig config;
        config.addedTokens = {{"gene", 3}};  // vocab.txt gives "gene" id 8
        QVERIFY_THROWS_EXCEPTION(Error, makeTokenizer(config));
        config.addedTokens = {{"[S]", 5}};  // id 5 is "the"
        QVERIFY_THROWS_EXCEPTION(Error, makeTokenizer(config));
        config.addedTokens = {{"[S]", 60}, {"[E]", 60}};
        QVERIFY_THROWS_EXCEPTION(Error, makeTokenizer(config));
        config.addedTokens = {{"", 60}};
        QVERIFY_THROWS_EXCEPTION(Error, makeTokenizer(config));
        // An id far past the vocabulary: two billion embedding rows, and the next new token's id
        // (vocabularySize()) overflowed to a negative one.
        config.addedTokens = {{"[S]", std::numeric_limits<std::int32_t>::max()}};
        try {
            makeTokenizer(config);
            QFAIL("an added token at id 2^31 - 1 was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("without a gap") != std::string::npos, e.what());
        }
        config.addedTokens = {{"[S]", kVocabularySize + 1}};  // one id skipped
        QVERIFY_THROWS_EXCEPTION(Error, makeTokenizer(config));
        config.addedTokens = {{"[E]", kVocabularySize + 1}, {"[S]", kVocabularySize}};  // contiguous, any order
        QCOMPARE(makeTokenizer(config).vocabularySize(), std::size_t(kVocabularySize + 2));
        {
            const auto folder = dir_.path("far-id");
            std::filesystem::create_directories(folder);
            Vocabulary::fromTokens(kVocabulary).save(folder / "vocab.txt");
            test::writeFile(folder / "added_tokens.json", R"({"[S]": 2147483647})");
            try {
                BertTokenizer::fromDirectory(folder);
                QFAIL("added_tokens.json with id 2^31 - 1 was accepted");
            } catch (const ParseError& e) {
                QVERIFY2(e.file().find("far-id") != std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).find("without a gap") != std::string::npos, e.what());
            }
        }
        auto tokenizer = makeTokenizer();
        const std::vector<std::string> empty = {"[S]", ""};
        QVERIFY_THROWS_EXCEPTION(Error, tokenizer.addTokens(empty));
        QVERIFY(!tokenizer.tokenId("[S]"));  // nothing was added
    }

    // ---- encode ---------------------------------------------------------------------------

    void truncationKeepsTheFirstPieces() {
        const auto tokenizer = makeTokenizer();
        EncodeOptions options;
        options.maxLength = 5;
        // Four pieces, room for three between [CLS] and [SEP].
        const auto encoding = tokenizer.encode("the breast cancer gene", options);
        QCOMPARE(idsOf(encoding), std::string("2 5 6 7 3"));
        QCOMPARE(encoding.length(), std::size_t{5});
        options.addSpecialTokens = false;
        options.maxLength = 2;
        QCOMPARE(idsOf(tokenizer.encode("the breast cancer gene", options)), std::string("5 6"));
        options.addSpecialTokens = true;
        options.maxLength = 1;
        QVERIFY_THROWS_EXCEPTION(Error, tokenizer.encode("the", options));
    }
    void paddingFillsWithPad() {
        EncodeOptions options;
        options.maxLength = 6;
        options.padToMaxLength = true;
        const auto encoding = makeTokenizer().encode("the gene", options);
        QCOMPARE(idsOf(encoding), std::string("2 5 8 3 0 0"));
        QCOMPARE(encoding.attentionMask, (std::vector<std::uint8_t>{1, 1, 1, 1, 0, 0}));
        QCOMPARE(encoding.typeIds, (std::vector<std::int32_t>(6, 0)));
        QCOMPARE(offsetsOf(encoding), std::string("0-0 0-3 4-8 0-0 0-0 0-0"));
        QCOMPARE(encoding.length(), std::size_t{4});
    }

    // ---- vocab.txt ------------------------------------------------------------------------

    void vocabularyLoadsAndSaves() {
        const auto file = dir_.write("vocab.txt", "[PAD]\r\n[UNK]\nthe\n##s\n");
        const auto vocabulary = Vocabulary::load(file);
        QCOMPARE(vocabulary.size(), std::size_t{4});
        QCOMPARE(vocabulary.id("##s"), std::optional<std::int32_t>(3));
        QCOMPARE(vocabulary.token(2), std::string("the"));
        QVERIFY(!vocabulary.id("cancer"));
        QVERIFY_THROWS_EXCEPTION(Error, vocabulary.token(4));
        QVERIFY_THROWS_EXCEPTION(Error, vocabulary.token(-1));
        vocabulary.save(dir_.path("saved.txt"));
        QCOMPARE(test::readFile(dir_.path("saved.txt")), std::string("[PAD]\n[UNK]\nthe\n##s\n"));
    }
    void vocabularyErrors() {
        const auto empty = dir_.write("empty.txt", "");
        LINKSCOPE_EXPECT_PARSE_ERROR(Vocabulary::load(empty), empty, 0, "empty vocabulary");
        const auto duplicate = dir_.write("dup.txt", "[PAD]\nthe\nthe\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(Vocabulary::load(duplicate), duplicate, 3,
                                     "duplicate token \"the\" (first on line 2)");
        const auto blank = dir_.write("blank.txt", "[PAD]\n\nthe\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(Vocabulary::load(blank), blank, 2, "empty token");
        const auto binary = dir_.write("binary.txt", "[PAD]\nth\xe9\nthe\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(Vocabulary::load(binary), binary, 2, "UTF-8");
        const auto missing = dir_.path("missing.txt");
        LINKSCOPE_EXPECT_PARSE_ERROR(Vocabulary::load(missing), missing, 0, "");
        // A very long token is just a token.
        const std::string longToken(100000, 'x');
        const auto huge = dir_.write("huge.txt", "[PAD]\n" + longToken + "\n");
        QCOMPARE(Vocabulary::load(huge).id(longToken), std::optional<std::int32_t>(1));
        std::vector<std::string> duplicates = {"a", "b", "a"};
        QVERIFY_THROWS_EXCEPTION(Error, Vocabulary::fromTokens(duplicates));
        std::vector<std::string> withEmpty = {"a", ""};
        QVERIFY_THROWS_EXCEPTION(Error, Vocabulary::fromTokens(withEmpty));
    }

    // ---- checkpoint files -----------------------------------------------------------------

    void roundTripThroughFiles() {
        TokenizerConfig config;
        config.doLowerCase = false;
        config.stripAccents = true;
        config.tokenizeChineseChars = false;
        config.modelMaxLength = 128;
        auto original = makeTokenizer(config);
        const std::vector<std::string> markers = {"[S]", "[E]", "cancer"};
        original.addTokens(markers);
        const auto folder = dir_.path("round-trip");
        original.save(folder);

        const auto loaded = BertTokenizer::fromDirectory(folder);
        QVERIFY(std::ranges::equal(loaded.vocabulary().tokens(), original.vocabulary().tokens()));
        QCOMPARE(loaded.config().doLowerCase, false);
        QCOMPARE(loaded.config().stripAccents, std::optional<bool>(true));
        QCOMPARE(loaded.config().tokenizeChineseChars, false);
        QCOMPARE(loaded.config().modelMaxLength, std::size_t{128});
        QCOMPARE(loaded.config().addedTokens, original.config().addedTokens);
        // Sorted by id: the vocabulary's "cancer" (7) comes first.
        QCOMPARE(loaded.config().addedTokens,
                 (std::vector<std::pair<std::string, std::int32_t>>{{"cancer", 7}, {"[S]", 54}, {"[E]", 55}}));
        QCOMPARE(loaded.vocabularySize(), original.vocabularySize());
        QCOMPARE(idsOf(loaded.encode("[S] Café cancer [E]")), idsOf(original.encode("[S] Café cancer [E]")));

        // What transformers reads.
        const auto tokenizerConfig = readJson(folder / "tokenizer_config.json");
        QCOMPARE(tokenizerConfig["tokenizer_class"].toString(), QStringLiteral("BertTokenizer"));
        QCOMPARE(tokenizerConfig["do_lower_case"].toBool(true), false);
        QCOMPARE(tokenizerConfig["model_max_length"].toInt(), 128);
        const auto marker = tokenizerConfig["added_tokens_decoder"].toObject()["54"].toObject();
        QCOMPARE(marker["content"].toString(), QStringLiteral("[S]"));
        QCOMPARE(marker["special"].toBool(), true);
        for (const char* field : {"lstrip", "rstrip", "normalized", "single_word"})
            QVERIFY2(marker.contains(QLatin1String(field)) && !marker[QLatin1String(field)].toBool(true), field);
        QCOMPARE(tokenizerConfig["added_tokens_decoder"].toObject()["3"].toObject()["content"].toString(),
                 QStringLiteral("[SEP]"));
        const auto addedTokens = readJson(folder / "added_tokens.json");
        QCOMPARE(addedTokens.size(), 2);  // only the tokens past vocab.txt
        QCOMPARE(addedTokens["[E]"].toInt(), 55);
        const auto specialMap = readJson(folder / "special_tokens_map.json");
        QCOMPARE(specialMap["cls_token"].toString(), QStringLiteral("[CLS]"));
        QCOMPARE(specialMap["additional_special_tokens"].toArray().size(), 3);

        // Saving again without added tokens removes the stale added_tokens.json.
        makeTokenizer().save(folder);
        QVERIFY(!std::filesystem::exists(folder / "added_tokens.json"));
        QVERIFY(BertTokenizer::fromDirectory(folder).config().addedTokens.empty());
    }
    void missingConfigMeansDefaults() {
        const auto folder = dir_.path("bare");
        std::filesystem::create_directories(folder);
        Vocabulary::fromTokens(kVocabulary).save(folder / "vocab.txt");
        const auto tokenizer = BertTokenizer::fromDirectory(folder);
        QCOMPARE(tokenizer.config().doLowerCase, true);
        QCOMPARE(tokenizer.config().modelMaxLength, std::size_t{512});
        QCOMPARE(tokens(tokenizer, "Café"), std::string("cafe"));
        QCOMPARE(tokenizer.clsId(), 2);
        QCOMPARE(tokenizer.padId(), 0);
    }
    void readsHuggingFaceConfig() {
        const auto folder = dir_.path("hf");
        std::filesystem::create_directories(folder);
        Vocabulary::fromTokens(kVocabulary).save(folder / "vocab.txt");
        // As transformers writes it: tokens as AddedToken objects, the "no limit" sentinel
        // int(1e30), added tokens in added_tokens_decoder, an additional special token that
        // only the list names.
        test::writeFile(folder / "tokenizer_config.json", R"({
  "added_tokens_decoder": {
    "0": {"content": "[PAD]", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true},
    "54": {"content": "[S]", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true}
  },
  "additional_special_tokens": ["[S]", "[E]"],
  "do_lower_case": true,
  "mask_token": {"content": "[MASK]", "lstrip": true, "normalized": false, "rstrip": false, "single_word": false, "special": true},
  "model_max_length": 1000000000000000019884624838656,
  "strip_accents": null,
  "tokenizer_class": "BertTokenizer"
})");
        const auto tokenizer = BertTokenizer::fromDirectory(folder);
        QCOMPARE(tokenizer.config().modelMaxLength, std::numeric_limits<std::size_t>::max());
        QVERIFY(!tokenizer.config().stripAccents.has_value());
        // [PAD] at its vocabulary id is no "added" token; "[E]" gets the next free id.
        QCOMPARE(tokenizer.config().addedTokens,
                 (std::vector<std::pair<std::string, std::int32_t>>{{"[S]", 54}, {"[E]", 55}}));
        QCOMPARE(idsOf(tokenizer.encode("[S] the [E] [MASK]")), std::string("2 54 5 55 4 3"));
        // Saved and loaded again: the clamped length survives as it is.
        tokenizer.save(dir_.path("hf-saved"));
        QCOMPARE(BertTokenizer::fromDirectory(dir_.path("hf-saved")).config().modelMaxLength,
                 std::numeric_limits<std::size_t>::max());
    }
    void specialTokensMapAndAddedTokensJson() {
        const auto folder = dir_.path("maps");
        std::filesystem::create_directories(folder);
        Vocabulary::fromTokens(kVocabulary).save(folder / "vocab.txt");
        test::writeFile(folder / "tokenizer_config.json", R"({"do_lower_case": false, "unk_token": "[MASK]"})");
        // special_tokens_map.json overrides tokenizer_config.json, as in transformers.
        test::writeFile(folder / "special_tokens_map.json", R"({"unk_token": {"content": "[UNK]"}})");
        test::writeFile(folder / "added_tokens.json", R"({"[E]": 55, "[S]": 54})");
        const auto tokenizer = BertTokenizer::fromDirectory(folder);
        QCOMPARE(tokenizer.unkId(), 1);
        QCOMPARE(tokenizer.config().doLowerCase, false);
        QCOMPARE(tokenizer.config().addedTokens,
                 (std::vector<std::pair<std::string, std::int32_t>>{{"[S]", 54}, {"[E]", 55}}));
        QCOMPARE(tokens(tokenizer, "[S]Café[E]"), std::string("[S] | Café | [E]"));
    }
    void malformedConfigFiles() {
        const auto folder = dir_.path("bad");
        std::filesystem::create_directories(folder);
        Vocabulary::fromTokens(kVocabulary).save(folder / "vocab.txt");
        const auto config = folder / "tokenizer_config.json";
        const auto expect = [&](const std::string& json, std::size_t line, const std::string& fragment) {
            test::writeFile(config, json);
            LINKSCOPE_EXPECT_PARSE_ERROR(BertTokenizer::fromDirectory(folder), config, line, fragment);
        };
        // Broken JSON: the line of the error.
        expect("{\n  \"do_lower_case\": true,\n  oops\n}\n", 3, "not valid JSON");
        expect("{\"do_lower_case\": true", 1, "not valid JSON");  // truncated
        expect("", 0, "empty JSON file");
        expect("[1, 2]", 0, "expected a JSON object");
        // Wrong types name the key.
        expect(R"({"do_lower_case": "yes"})", 0, "\"do_lower_case\" must be true or false, got string");
        expect(R"({"strip_accents": 1})", 0, "\"strip_accents\" must be true, false or null");
        expect(R"({"model_max_length": "512"})", 0, "\"model_max_length\" must be a number");
        expect(R"({"model_max_length": -5})", 0, "\"model_max_length\" must not be negative");
        expect(R"({"unk_token": 7})", 0, "\"unk_token\" must be a string or an object");
        expect(R"({"sep_token": {"lstrip": false}})", 0, "\"sep_token\" has no string \"content\"");
        expect(R"({"additional_special_tokens": "[S]"})", 0, "\"additional_special_tokens\" must be a list");
        expect(R"({"added_tokens_decoder": {"x1": {"content": "[S]"}}})", 0, "\"x1\" is not a token id");
        expect(R"({"added_tokens_decoder": {"54": {"text": "[S]"}}})", 0, "no string \"content\"");
        expect(R"({"added_tokens_decoder": []})", 0, "\"added_tokens_decoder\" must be an object");
        // An added token whose id vocab.txt gives to another token.
        expect(R"({"added_tokens_decoder": {"5": {"content": "[S]"}}})", 0, "which vocab.txt gives to \"the\"");
        // Settings this tokenizer does not implement are refused, not ignored.
        expect(R"({"do_basic_tokenize": false})", 0, "not supported");
        expect(R"({"never_split": ["[S]"]})", 0, "not supported");
        // Not UTF-8: LineReader names the line.
        expect("{\n\"unk_token\": \"\xff\"}", 2, "UTF-8");

        test::writeFile(config, R"({"added_tokens_decoder": {"54": {"content": "[S]"}}})");
        const auto added = folder / "added_tokens.json";
        test::writeFile(added, R"({"[S]": 55})");
        LINKSCOPE_EXPECT_PARSE_ERROR(BertTokenizer::fromDirectory(folder), added, 0, "has id 55 here but 54");
        test::writeFile(added, R"({"[S]": "54"})");
        LINKSCOPE_EXPECT_PARSE_ERROR(BertTokenizer::fromDirectory(folder), added, 0, "non-negative 32-bit integer");
        test::writeFile(added, R"({"[S]": 54, "[E]": 54})");
        LINKSCOPE_EXPECT_PARSE_ERROR(BertTokenizer::fromDirectory(folder), added, 0, "id 54 is given to");
        // A conflict with vocab.txt found only when the tokenizer is built is blamed on the
        // file that gave the token its id, not on tokenizer_config.json.
        test::writeFile(added, R"({"[X]": 5})");
        LINKSCOPE_EXPECT_PARSE_ERROR(BertTokenizer::fromDirectory(folder), added, 0,
                                     "which vocab.txt gives to \"the\"");
        std::filesystem::remove(added);
        QCOMPARE(BertTokenizer::fromDirectory(folder).tokenId("[S]"), std::optional<std::int32_t>(54));
    }
};

QTEST_APPLESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
