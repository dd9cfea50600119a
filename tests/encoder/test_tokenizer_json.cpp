// tokenizer.json (Hugging Face tokenizers) for a WordPiece model, read when vocab.txt is absent:
// the same tokenizer as vocab.txt gives, the normalizer's settings obeyed, and every other model,
// normalizer or pre-tokenizer refused by name. Hostile files fail with a ParseError naming the file.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "encoder/bert_tokenizer.h"
#include "encoder/checkpoint_files.h"
#include "encoder/tokenizer_casing.h"
#include "encoder/tokenizer_json.h"
#include "fixtures.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTokens = {"[PAD]",  "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the",  "breast",
                                          "cancer", "gene",  "##s",   "Gene",  "café",   "cafe", ",",
                                          "TNF",    "tnf",   "-",     "α",     "乳",     "腺"};

/// tokenizer.json as tokenizers writes it for BertTokenizerFast.
json bertTokenizerJson(bool lowercase = true) {
    json vocab = json::object();
    for (std::size_t i = 0; i < kTokens.size(); ++i) vocab[kTokens[i]] = i;
    json added = json::array();
    for (int id = 0; id < 5; ++id)
        added.push_back({{"id", id},
                         {"content", kTokens[static_cast<std::size_t>(id)]},
                         {"single_word", false},
                         {"lstrip", false},
                         {"rstrip", false},
                         {"normalized", false},
                         {"special", true}});
    return {{"version", "1.0"},
            {"truncation", nullptr},
            {"padding", nullptr},
            {"added_tokens", added},
            {"normalizer",
             {{"type", "BertNormalizer"},
              {"clean_text", true},
              {"handle_chinese_chars", true},
              {"strip_accents", nullptr},
              {"lowercase", lowercase}}},
            {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
            {"post_processor", {{"type", "TemplateProcessing"}}},
            {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
            {"model",
             {{"type", "WordPiece"},
              {"unk_token", "[UNK]"},
              {"continuing_subword_prefix", "##"},
              {"max_input_chars_per_word", 100},
              {"vocab", vocab}}}};
}

std::string vocabularyText() {
    std::string text;
    for (const auto& token : kTokens) text += token + "\n";
    return text;
}

const char* kText = "The breast-cancer genes, TNF-α café 乳腺";

}  // namespace

class TestTokenizerJson : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;
    int folders_ = 0;

    fs::path jsonFolder(const std::string& text) {
        const fs::path directory = dir_.path("json" + std::to_string(folders_++));
        fs::create_directories(directory);
        test::writeFile(directory / "tokenizer.json", text);
        return directory;
    }

    /// The message of the ParseError that reading `value` as tokenizer.json throws.
    std::string refusal(const std::string& text) {
        const fs::path directory = jsonFolder(text);
        try {
            BertTokenizer::fromDirectory(directory);
        } catch (const ParseError& e) {
            const std::string message = e.what();
            if (message.find((directory / "tokenizer.json").string()) == std::string::npos)
                return "not naming the file: " + message;
            return message;
        } catch (const std::exception& e) {
            return std::string("not a ParseError: ") + e.what();
        }
        return "accepted";
    }

private Q_SLOTS:
    void sameTokenizerAsVocabTxt() {
        for (const bool lowercase : {true, false}) {
            const fs::path fromJson = jsonFolder(bertTokenizerJson(lowercase).dump());
            const fs::path fromText = dir_.path(lowercase ? "text-lower" : "text-cased");
            fs::create_directories(fromText);
            test::writeFile(fromText / "vocab.txt", vocabularyText());
            test::writeFile(fromText / "tokenizer_config.json",
                            std::string("{\"do_lower_case\": ") + (lowercase ? "true" : "false") + "}");
            const BertTokenizer a = BertTokenizer::fromDirectory(fromJson);
            const BertTokenizer b = BertTokenizer::fromDirectory(fromText);
            QCOMPARE(a.config().doLowerCase, lowercase);
            QCOMPARE(a.vocabularySize(), b.vocabularySize());
            QCOMPARE(a.tokenize(kText), b.tokenize(kText));
            QCOMPARE(a.encode(kText).ids, b.encode(kText).ids);
            QCOMPARE(a.encode("[CLS] gene").ids, b.encode("[CLS] gene").ids);
        }
        // Lower-cased: "Gene" is read as "gene"; cased: kept.
        const BertTokenizer cased = BertTokenizer::fromDirectory(jsonFolder(bertTokenizerJson(false).dump()));
        QCOMPARE(cased.tokenize("Gene TNF"), (std::vector<std::string>{"Gene", "TNF"}));
    }

    void vocabTxtWinsAndConfigOverrides() {
        const fs::path directory = jsonFolder(bertTokenizerJson(true).dump());
        test::writeFile(directory / "tokenizer_config.json", R"({"do_lower_case": false})");
        QVERIFY(!BertTokenizer::fromDirectory(directory).config().doLowerCase);
        // vocab.txt, when present, is the vocabulary; tokenizer.json is not read at all.
        test::writeFile(directory / "vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nonly\n");
        test::writeFile(directory / "tokenizer.json", "not json");
        QCOMPARE(BertTokenizer::fromDirectory(directory).vocabulary().size(), std::size_t{6});
    }

    void casingComesFromTheNormalizer() {
        const CasingDecision decision = decideCasing(jsonFolder(bertTokenizerJson(false).dump()));
        QVERIFY(!decision.lowerCase);
        QCOMPARE(decision.source, CasingSource::TokenizerJson);
        QVERIFY(decision.warnings.empty());
    }

    void checkpointWithTokenizerJsonIsLocated() {
        const fs::path directory = jsonFolder(bertTokenizerJson().dump());
        test::writeFile(directory / "config.json", "{}");
        test::writeFile(directory / "model.safetensors", "x");
        QCOMPARE(locateCheckpoint(directory).vocabulary, directory / "tokenizer.json");
        // One that cannot be read is named in the refusal.
        json bpe = bertTokenizerJson();
        bpe["model"]["type"] = "BPE";
        test::writeFile(directory / "tokenizer.json", bpe.dump());
        try {
            locateCheckpoint(directory);
            QFAIL("a BPE tokenizer.json was accepted");
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("tokenizer.json is not read") != std::string::npos, message.c_str());
            QVERIFY2(message.find("\"BPE\"") != std::string::npos, message.c_str());
        }
    }

    void otherModelsAreRefusedByName_data() {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("BPE") << "/model/type"
                             << "\"BPE\""
                             << "tokenizer model \"BPE\" is not supported";
        QTest::newRow("Unigram") << "/model/type"
                                 << "\"Unigram\""
                                 << "\"Unigram\" is not supported";
        QTest::newRow("no model type") << "/model/type"
                                       << "null"
                                       << "model.type";
        QTest::newRow("Sequence normalizer") << "/normalizer/type"
                                             << "\"Sequence\""
                                             << "normalizer \"Sequence\" is not supported";
        QTest::newRow("no normalizer") << "/normalizer"
                                       << "null"
                                       << "\"normalizer\" is missing";
        QTest::newRow("Whitespace pre-tokenizer") << "/pre_tokenizer/type"
                                                  << "\"Whitespace\""
                                                  << "pre_tokenizer \"Whitespace\" is not supported";
        QTest::newRow("prefix") << "/model/continuing_subword_prefix"
                                << "\"@@\""
                                << "\"@@\" is not supported";
        QTest::newRow("max chars") << "/model/max_input_chars_per_word"
                                   << "200"
                                   << "200 is not supported";
        QTest::newRow("no cleaning") << "/normalizer/clean_text"
                                     << "false"
                                     << "clean_text false";
        QTest::newRow("lowercase string") << "/normalizer/lowercase"
                                          << "\"yes\""
                                          << "must be true or false";
        QTest::newRow("vocab list") << "/model/vocab"
                                    << "[\"a\"]"
                                    << "\"model.vocab\" must be an object";
        QTest::newRow("empty vocab") << "/model/vocab"
                                     << "{}"
                                     << "is empty";
        QTest::newRow("id gap") << "/model/vocab/the"
                                << "25"
                                << "past the 20 ids";
        QTest::newRow("shared id") << "/model/vocab/the"
                                   << "6"
                                   << "id 6 is given to";
        QTest::newRow("negative id") << "/model/vocab/the"
                                     << "-1"
                                     << "non-negative integer id";
        QTest::newRow("huge id") << "/model/vocab/the"
                                 << "18446744073709551615"
                                 << "past the 20 ids";
        QTest::newRow("float id") << "/model/vocab/the"
                                  << "5.5"
                                  << "non-negative integer id";
        QTest::newRow("added list") << "/added_tokens"
                                    << "{}"
                                    << "\"added_tokens\" must be a list";
        QTest::newRow("added id") << "/added_tokens/0/id"
                                  << "-3"
                                  << "non-negative integer id";
        QTest::newRow("added no content") << "/added_tokens/0/content"
                                          << "\"\""
                                          << "no \"content\"";
        QTest::newRow("added id conflict") << "/added_tokens/0/id"
                                           << "7"
                                           << "[PAD]";
        QTest::newRow("unk number") << "/model/unk_token"
                                    << "3"
                                    << "must be a string";
    }
    void otherModelsAreRefusedByName() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, fragment);
        json file = bertTokenizerJson();
        file[json::json_pointer(pointer.toStdString())] = json::parse(value.toStdString());
        const std::string message = refusal(file.dump());
        QVERIFY2(message.find(fragment.toStdString()) != std::string::npos, message.c_str());
    }

    void malformedFilesAreParseErrors() {
        for (const std::string& text :
             {std::string(), std::string("[]"), std::string("{"), std::string("\"model\""), std::string(100000, '['),
              std::string("{\"model\": 1}"), std::string("{\"model\": {}}"), std::string("\xff\xfe")}) {
            const std::string message = refusal(text);
            QVERIFY2(!message.starts_with("not ") && message != "accepted", message.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestTokenizerJson)
#include "test_tokenizer_json.moc"
