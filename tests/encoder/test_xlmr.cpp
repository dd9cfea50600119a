// XLM-RoBERTa checkpoints against references written without Linkscope's code
// (xlmr_reference.py): SentencePiece's own token ids under fairseq's mapping on 1,000
// multilingual lines, and a numpy forward pass of a random XLM-R.
#include <QtTest/QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "encoder/bert_tokenizer.h"
#include "encoder/sentencepiece_model.h"
#include "encoder/text_encoder.h"
#include "error_of.h"
#include "test_data.h"
#include "xlmr_reference.h"

using namespace linkscope;
using namespace linkscope::encoder;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> readLines(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

template <typename T>
std::vector<std::vector<T>> readRows(const fs::path& file) {
    std::vector<std::vector<T>> rows;
    for (const auto& line : readLines(file)) {
        std::istringstream in(line);
        auto& row = rows.emplace_back();
        for (T value; in >> value;) row.push_back(value);
    }
    return rows;
}

std::string idText(const std::vector<std::int32_t>& ids) {
    std::string text;
    for (const auto id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
    return text;
}

}  // namespace

class TestXlmr : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path tokenizerDir_;
    bool haveReference_ = false;
    QString skipReason_;

    fs::path path(const char* name) const { return fs::path(dir_.path().toStdString()) / name; }

    /// A random XLM-R in `name` (the tokenizer's model copied in), tensor names with `prefix`.
    bool writeModel(const char* name, const char* prefix) {
        const fs::path model = path(name);
        fs::create_directories(model);
        fs::copy_file(tokenizerDir_ / kSentencePieceFile, model / kSentencePieceFile,
                      fs::copy_options::overwrite_existing);
        const auto run =
            test::runXlmrReference({"model", QString::fromStdString(model.string()),
                                    QString::fromStdString((tokenizerDir_ / "lines.txt").string()), prefix});
        if (!run.message.isEmpty()) qWarning("%s", qPrintable(run.message));
        return run.message.isEmpty();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        if (!sentencePieceAvailable()) return;
        tokenizerDir_ = path("tokenizer");
        const auto run = test::runXlmrReference({"tokenizer", QString::fromStdString(tokenizerDir_.string())});
        if (!run.ran) {
            skipReason_ = run.message;
            return;
        }
        QVERIFY2(run.message.isEmpty(), qPrintable(run.message));
        haveReference_ = true;
    }

    void withoutSentencePieceTheBuildSaysSo() {
        if (sentencePieceAvailable()) QSKIP("this build has SentencePiece");
        const fs::path model = path("no-support");
        fs::create_directories(model);
        test::writeFile(model / kSentencePieceFile, "not read");
        QVERIFY(test::errorOf([&] {
                    BertTokenizer::fromDirectory(model);
                }).find("this build has no SentencePiece support") != std::string::npos);
    }

    void idsEqualSentencePieceOnMultilingualLines() {
        if (!haveReference_) QSKIP(qPrintable(skipReason_.isEmpty() ? "no SentencePiece support" : skipReason_));
        const auto tokenizer = BertTokenizer::fromDirectory(tokenizerDir_);
        QCOMPARE(tokenizer.clsId(), 0);
        QCOMPARE(tokenizer.padId(), 1);
        QCOMPARE(tokenizer.sepId(), 2);
        QCOMPARE(tokenizer.unkId(), 3);
        QCOMPARE(static_cast<std::size_t>(tokenizer.maskId()), tokenizer.vocabularySize() - 1);

        const auto lines = readLines(tokenizerDir_ / "lines.txt");
        QCOMPARE(lines.size(), std::size_t{1000});
        const auto full = readRows<std::int32_t>(tokenizerDir_ / "ids.txt");
        const auto truncated = readRows<std::int32_t>(tokenizerDir_ / "ids-8.txt");
        QCOMPARE(full.size(), lines.size());
        std::size_t unknown = 0;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const auto encoding = tokenizer.encode(lines[i], {.maxLength = 4096});
            if (encoding.ids != full[i])
                QFAIL(qPrintable(QString("line %1 \"%2\": ids %3, SentencePiece %4")
                                     .arg(i)
                                     .arg(QString::fromStdString(lines[i]))
                                     .arg(QString::fromStdString(idText(encoding.ids)))
                                     .arg(QString::fromStdString(idText(full[i])))));
            QCOMPARE(tokenizer.encode(lines[i], {.maxLength = 8}).ids, truncated[i]);
            unknown += static_cast<std::size_t>(std::count(encoding.ids.begin(), encoding.ids.end(), 3));
            // Every piece points at bytes of its line, in order.
            std::size_t previous = 0;
            for (std::size_t t = 1; t + 1 < encoding.ids.size(); ++t) {
                const auto [begin, end] = encoding.offsets[t];
                QVERIFY(begin <= end && end <= lines[i].size() && begin >= previous);
                previous = begin;
            }
        }
        QVERIFY2(unknown > 0, "the reference lines hold characters the model never saw");
    }

    void savedTokenizerKeepsIdsAndAddedTokens() {
        if (!haveReference_) QSKIP(qPrintable(skipReason_.isEmpty() ? "no SentencePiece support" : skipReason_));
        auto tokenizer = BertTokenizer::fromDirectory(tokenizerDir_);
        const std::vector<std::string> markers = {"[S]", "[E]"};
        const auto ids = tokenizer.addTokens(markers);
        QCOMPARE(static_cast<std::size_t>(ids[0]), tokenizer.vocabularySize() - 2);
        const std::string text = "Patient mit [S] Herzinfarkt [E] und Übelkeit";
        const auto before = tokenizer.encode(text);
        QVERIFY(std::find(before.ids.begin(), before.ids.end(), ids[0]) != before.ids.end());

        const fs::path saved = path("saved-tokenizer");
        tokenizer.save(saved);
        QVERIFY(fs::exists(saved / kSentencePieceFile));
        QVERIFY(!fs::exists(saved / "vocab.txt"));
        std::ifstream config(saved / "tokenizer_config.json");
        const auto json = nlohmann::json::parse(config);
        QCOMPARE(json["tokenizer_class"].get<std::string>(), std::string("XLMRobertaTokenizer"));
        QVERIFY(!json.contains("do_lower_case"));
        const auto loaded = BertTokenizer::fromDirectory(saved);
        QCOMPARE(loaded.encode(text).ids, before.ids);
        QCOMPARE(loaded.tokenId("[E]"), std::optional<std::int32_t>(ids[1]));
    }

    void damagedModelsAreRefusedNamingTheFile() {
        if (!haveReference_) QSKIP(qPrintable(skipReason_.isEmpty() ? "no SentencePiece support" : skipReason_));
        const std::string bytes = test::readFile(tokenizerDir_ / kSentencePieceFile);
        const fs::path damaged = path("damaged");
        fs::create_directories(damaged);
        std::vector<std::string> inputs = {"", "not a model", std::string(64, '\xff')};
        for (const std::size_t cut :
             {std::size_t{1}, std::size_t{7}, std::size_t{100}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 1})
            inputs.push_back(bytes.substr(0, cut));
        std::string flipped = bytes;
        for (std::size_t at = 0; at < flipped.size(); at += 97) flipped[at] = static_cast<char>(~flipped[at]);
        inputs.push_back(flipped);
        std::size_t refused = 0;
        for (const auto& input : inputs) {
            test::writeFile(damaged / kSentencePieceFile, input);
            // A cut at a field boundary may still be a (smaller) model; anything else is refused
            // with the file's name, never a crash.
            const std::string message = test::errorOf([&] {
                const auto tokenizer = BertTokenizer::fromDirectory(damaged);
                (void)tokenizer.encode("Herzinfarkt und Übelkeit");
            });
            if (message.empty()) continue;
            ++refused;
            QVERIFY2(message.find(kSentencePieceFile) != std::string::npos, message.c_str());
        }
        QVERIFY(refused >= 3);

        // libsentencepiece walks the normalizer's character map without bounds checks: a map
        // whose replacement strings lack their final NUL is refused before the library sees it.
        const std::string spec("\x0a\x08nmt_nfkc\x12", 11);
        const auto at = bytes.find(spec);
        QVERIFY(at != std::string::npos);
        std::size_t length = 0, next = at + spec.size();
        for (int shift = 0;; shift += 7) {
            const auto byte = static_cast<unsigned char>(bytes[next++]);
            length |= static_cast<std::size_t>(byte & 0x7F) << shift;
            if ((byte & 0x80) == 0) break;
        }
        std::string unterminated = bytes;
        QCOMPARE(unterminated[next + length - 1], '\0');
        unterminated[next + length - 1] = 'x';
        test::writeFile(damaged / kSentencePieceFile, unterminated);
        const std::string message = test::errorOf([&] { BertTokenizer::fromDirectory(damaged); });
        QVERIFY2(message.find("normalizer character map") != std::string::npos, message.c_str());
    }

    void vectorsEqualTheNumpyForward_data() {
        QTest::addColumn<QString>("prefix");
        QTest::newRow("XLMRobertaModel names") << QString();
        QTest::newRow("roberta. prefix and lm_head") << QStringLiteral("roberta.");
    }
    void vectorsEqualTheNumpyForward() {
        if (!haveReference_) QSKIP(qPrintable(skipReason_.isEmpty() ? "no SentencePiece support" : skipReason_));
        QFETCH(QString, prefix);
        const std::string name = "model" + prefix.toStdString();
        QVERIFY(writeModel(name.c_str(), qPrintable(prefix)));
        EncoderOptions options;
        options.device = DevicePreference::Cpu;
        options.maxLength = 24;
        options.batchSize = 64;  // rows of different lengths share a batch: padding is exercised
        const auto encoder = TextEncoder::load(path(name.c_str()), options);
        QCOMPARE(encoder.config().architecture, Architecture::XlmRoberta);
        QCOMPARE(encoder.pooling(), Pooling::Cls);
        QCOMPARE(encoder.skippedTensors().size(), prefix.isEmpty() ? std::size_t{0} : std::size_t{2});

        const auto lines = readLines(tokenizerDir_ / "lines.txt");
        for (const auto& [pooling, file] : {std::pair{Pooling::Cls, "cls.txt"}, std::pair{Pooling::Mean, "mean.txt"}}) {
            const auto reference = readRows<double>(path(name.c_str()) / file);
            QCOMPARE(reference.size(), lines.size());
            EncodeRequest request;
            request.pooling = pooling;
            const auto vectors = encoder.encode(lines, request);
            const std::size_t dim = encoder.dimension();
            double worst = 0;
            for (std::size_t i = 0; i < lines.size(); ++i) {
                QCOMPARE(reference[i].size(), dim);
                for (std::size_t d = 0; d < dim; ++d)
                    worst = std::max(worst, std::abs(vectors[i * dim + d] - reference[i][d]));
            }
            QVERIFY2(worst < 1e-4, qPrintable(QString("%1: largest difference %2").arg(file).arg(worst)));
        }
    }

    void savedModelLoadsAsItWas() {
        if (!haveReference_) QSKIP(qPrintable(skipReason_.isEmpty() ? "no SentencePiece support" : skipReason_));
        QVERIFY(writeModel("to-save", ""));
        EncoderOptions options;
        options.device = DevicePreference::Cpu;
        const auto encoder = TextEncoder::load(path("to-save"), options);
        encoder.save(path("saved-model"));
        std::ifstream configFile(path("saved-model") / "config.json");
        const auto config = nlohmann::json::parse(configFile);
        QCOMPARE(config["model_type"].get<std::string>(), std::string("xlm-roberta"));
        QCOMPARE(config["architectures"][0].get<std::string>(), std::string("XLMRobertaModel"));
        QCOMPARE(config["bos_token_id"].get<int>(), 0);  // kept as read
        QVERIFY(fs::exists(path("saved-model") / kSentencePieceFile));
        const auto loaded = TextEncoder::load(path("saved-model"), options);
        const std::vector<std::string> texts = {"Herzinfarkt", "insuficiencia renal", "心肌梗死", "Ψύχωση"};
        QCOMPARE(loaded.encode(texts), encoder.encode(texts));
        QCOMPARE(loaded.fingerprint(), encoder.fingerprint());

        // 34 positions less XLM-R's offset of 2 leave 32 tokens.
        options.maxLength = 33;
        QVERIFY(test::errorOf([&] { TextEncoder::load(path("saved-model"), options); }).find("position offset 2") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestXlmr)
#include "test_xlmr.moc"
