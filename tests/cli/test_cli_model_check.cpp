// linkscope-cli model check over folders the test writes as users download them: a cased
// vocab.txt without tokenizer_config.json (the casing warning), pytorch_model.bin written by
// torch itself (Debian's python3-torch, run as /usr/bin/python3; skipped with a message where it
// is absent) in both serializations and sharded, a folder with both weights formats, a
// tokenizer.json-only folder, a BioSyn folder, and broken folders (non-zero exit naming the file).
#include <QFileInfo>
#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixtures.h"
#include "test_data.h"
#include "tiny_checkpoint_folder.h"
#include "torch_file_builder.h"
#include "xlmr_reference.h"

using namespace linkscope;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const auto kVocabSize = static_cast<std::int64_t>(test::tinyVocabulary(false).size());

/// sparse_weight.pt as torch.save writes a one-value F32 tensor, built by hand.
std::string sparseWeightFile(float value) {
    const std::string pickle = test::PickleBuilder().tensor("FloatStorage", "0", 1, 0, {}, {}).stop().bytes();
    return test::storedZip(
        {{"archive/data.pkl", pickle}, {"archive/data/0", test::floatBytes({value})}, {"archive/version", "3\n"}});
}

/// tokenizer.json as tokenizers writes it for BertTokenizerFast, over `tokens`.
std::string tokenizerJson(const std::vector<std::string>& tokens) {
    json vocab = json::object();
    for (std::size_t i = 0; i < tokens.size(); ++i) vocab[tokens[i]] = i;
    return json{{"version", "1.0"},
                {"added_tokens", json::array()},
                {"normalizer",
                 {{"type", "BertNormalizer"},
                  {"clean_text", true},
                  {"handle_chinese_chars", true},
                  {"strip_accents", nullptr},
                  {"lowercase", true}}},
                {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
                {"model",
                 {{"type", "WordPiece"},
                  {"unk_token", "[UNK]"},
                  {"continuing_subword_prefix", "##"},
                  {"max_input_chars_per_word", 100},
                  {"vocab", vocab}}}}
        .dump();
}

QString checkFailure(const test::CliResult& r) { return QString::fromUtf8(r.out + "\n---\n" + r.err); }

}  // namespace

class TestCliModelCheck : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;
    QString python_ = QStringLiteral("/usr/bin/python3");
    QString noTorch_;  ///< why .bin files cannot be written here; empty when they can

    QString path(const char* name) const { return QString::fromStdString(dir_.path(name).string()); }

    /// Writes `tensors` (with `prefix`) as a .bin through torch; false when that failed.
    bool writeBin(const std::vector<test::TinyTensor>& tensors, const std::string& prefix, const fs::path& out,
                  const char* format, const char* dtype) {
        json spec = json::object();
        for (const auto& tensor : tensors) spec[prefix + tensor.name] = tensor.shape;
        const auto specFile = dir_.write("spec-" + out.filename().string() + ".json", spec.dump());
        QProcess writer;
        writer.start(python_, {QStringLiteral(LINKSCOPE_SOURCE_DIR "/tests/cli/write_bin_checkpoint.py"),
                               QString::fromStdString(specFile.string()), QString::fromStdString(out.string()),
                               QString::fromLatin1(format), QString::fromLatin1(dtype)});
        writer.waitForFinished(60000);
        if (writer.exitCode() != 0) qWarning("%s", writer.readAllStandardError().constData());
        return writer.exitStatus() == QProcess::NormalExit && writer.exitCode() == 0;
    }

    /// A tiny checkpoint folder whose weights are only torch-written .bin files.
    fs::path binFolder(const char* name) {
        const auto folder = dir_.path(name);
        test::writeTinyCheckpoint(folder, false);
        fs::remove(folder / "model.safetensors");
        test::writeFile(folder / "tokenizer_config.json", R"({"do_lower_case": true})");
        return folder;
    }

private Q_SLOTS:
    void initTestCase() {
        if (!QFileInfo::exists(python_)) {
            noTorch_ = "/usr/bin/python3 is absent: no torch-written pytorch_model.bin";
            return;
        }
        QProcess probe;
        probe.start(python_, {"-c", "import torch"});
        probe.waitForFinished(60000);
        if (probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0)
            noTorch_ = "/usr/bin/python3 has no torch module (Debian's python3-torch): no pytorch_model.bin";
    }

    void casedVocabularyWithoutTokenizerConfigWarns() {
        const auto folder = dir_.path("cased");
        test::writeTinyCheckpoint(folder, true);
        const auto text = test::runCli({"model", "check", path("cased")});
        QVERIFY2(text.exitCode == 0, qPrintable(checkFailure(text)));
        for (const char* expected :
             {"architecture: bert (hidden 8, 1 layers, 2 heads", "tokenizer: WordPiece from vocab.txt",
              "casing: lower-cased (from transformers' default)", "warning: the vocabulary looks cased",
              "weights: model.safetensors", "weights file: model.safetensors (safetensors; F32 x 21 tensors",
              "pooling: cls", "max length: 32 tokens", "projection head: none", "status: loads"})
            QVERIFY2(text.out.contains(expected), qPrintable(expected + QStringLiteral("\n") + checkFailure(text)));
        QVERIFY2(text.out.contains((folder / "tokenizer_config.json").string().c_str()), text.out.constData());

        const auto r = test::runCli({"model", "check", "--json", path("cased")});
        QVERIFY2(r.exitCode == 0, qPrintable(checkFailure(r)));
        const json report = r.json();
        const auto vocabSize = static_cast<std::int64_t>(test::tinyVocabulary(true).size());
        QCOMPARE(report["loadable"].get<bool>(), true);
        QCOMPARE(report["architecture"]["model_type"].get<std::string>(), std::string("bert"));
        QCOMPARE(report["architecture"]["vocab_size"].get<std::int64_t>(), vocabSize);
        QCOMPARE(report["tokenizer"]["kind"].get<std::string>(), std::string("WordPiece"));
        QCOMPARE(report["tokenizer"]["file"].get<std::string>(), std::string("vocab.txt"));
        QCOMPARE(report["tokenizer"]["lower_case"].get<bool>(), true);
        QCOMPARE(report["tokenizer"]["casing_source"].get<std::string>(), std::string("transformers' default"));
        QCOMPARE(report["warnings"].size(), std::size_t{1});
        QVERIFY(report["warnings"][0].get<std::string>().find("do_lower_case") != std::string::npos);
        QCOMPARE(report["weights"]["format"].get<std::string>(), std::string("safetensors"));
        QCOMPARE(report["weights"]["dtypes"]["F32"].get<int>(), 21);
        const auto stored = test::elementsOf(test::tinyBertTensors(vocabSize));
        QCOMPARE(report["parameters"]["stored"].get<std::uint64_t>(), stored);
        QCOMPARE(report["parameters"]["encoder"].get<std::uint64_t>(), stored);
        QCOMPARE(report["pooling"].get<std::string>(), std::string("cls"));
        QCOMPARE(report["max_length"].get<int>(), 32);
        QVERIFY(report["projection_head"].is_null());
        QVERIFY(!report.contains("biosyn"));
    }

    void torchWrittenBinInBothSerializations() {
        if (!noTorch_.isEmpty()) QSKIP(qPrintable(noTorch_));
        auto tensors = test::tinyBertTensors(kVocabSize);
        tensors.push_back({"cls.predictions.bias", {kVocabSize}});  // a BertForMaskedLM checkpoint's head
        const auto zip = binFolder("bin-zip");
        QVERIFY(writeBin(tensors, "bert.", zip / "pytorch_model.bin", "zip", "f32"));
        const auto legacy = binFolder("bin-legacy");
        QVERIFY(writeBin(tensors, "bert.", legacy / "pytorch_model.bin", "legacy", "f16"));

        for (const auto& [folder, format, dtype] :
             {std::tuple{zip, "torch zip (.bin)", "F32"}, std::tuple{legacy, "torch legacy (.bin)", "F16"}}) {
            const auto r = test::runCli({"model", "check", "--json", QString::fromStdString(folder.string())});
            QVERIFY2(r.exitCode == 0, qPrintable(checkFailure(r)));
            const json report = r.json();
            QCOMPARE(report["weights"]["layout"].get<std::string>(), std::string("pytorch_model.bin"));
            QCOMPARE(report["weights"]["format"].get<std::string>(), std::string(format));
            QCOMPARE(report["weights"]["dtypes"][dtype].get<int>(), 22);
            QVERIFY(report["weights"]["choice"].get<std::string>().find("restricted unpickler") != std::string::npos);
            QCOMPARE(report["parameters"]["pretraining_head"].get<std::int64_t>(), kVocabSize);
            QCOMPARE(report["parameters"]["stored"].get<std::uint64_t>(), test::elementsOf(tensors));
            QCOMPARE(report["tokenizer"]["casing_source"].get<std::string>(), std::string("tokenizer_config.json"));
            QVERIFY(report["warnings"].empty());
        }
        const auto text = test::runCli({"model", "check", QString::fromStdString(legacy.string())});
        QVERIFY2(text.out.contains("weights file: pytorch_model.bin (torch legacy (.bin); F16 x 22 tensors"),
                 text.out.constData());
        QVERIFY2(text.out.contains("pretraining head (cls.*, lm_head.*) are stored but not loaded"),
                 text.out.constData());
    }

    void shardedBinAndSafetensorsPreferred() {
        if (!noTorch_.isEmpty()) QSKIP(qPrintable(noTorch_));
        const auto tensors = test::tinyBertTensors(kVocabSize);
        const std::vector<test::TinyTensor> first(tensors.begin(), tensors.begin() + 5);
        const std::vector<test::TinyTensor> second(tensors.begin() + 5, tensors.end());
        const auto sharded = binFolder("bin-sharded");
        QVERIFY(writeBin(first, "", sharded / "pytorch_model-00001-of-00002.bin", "zip", "bf16"));
        QVERIFY(writeBin(second, "", sharded / "pytorch_model-00002-of-00002.bin", "zip", "bf16"));
        json map = json::object();
        for (const auto& t : first) map[t.name] = "pytorch_model-00001-of-00002.bin";
        for (const auto& t : second) map[t.name] = "pytorch_model-00002-of-00002.bin";
        test::writeFile(sharded / "pytorch_model.bin.index.json", json{{"weight_map", map}}.dump());
        const auto r = test::runCli({"model", "check", "--json", QString::fromStdString(sharded.string())});
        QVERIFY2(r.exitCode == 0, qPrintable(checkFailure(r)));
        const json report = r.json();
        QCOMPARE(report["weights"]["layout"].get<std::string>(),
                 std::string("pytorch_model.bin.index.json (2 shards)"));
        QCOMPARE(report["weights"]["files"].size(), std::size_t{2});
        QCOMPARE(report["weights"]["dtypes"]["BF16"].get<std::size_t>(), tensors.size());

        // Both formats in one folder (SapBERT's repository): safetensors is used, the .bin is not read.
        const auto both = dir_.path("both");
        test::writeTinyCheckpoint(both, false);
        QVERIFY(writeBin(tensors, "bert.", both / "pytorch_model.bin", "zip", "f32"));
        const auto b = test::runCli({"model", "check", "--json", QString::fromStdString(both.string())});
        QVERIFY2(b.exitCode == 0, qPrintable(checkFailure(b)));
        const json bothReport = b.json();
        QCOMPARE(bothReport["weights"]["layout"].get<std::string>(), std::string("model.safetensors"));
        QCOMPARE(bothReport["weights"]["unused"], json::array({"pytorch_model.bin"}));
        QVERIFY(bothReport["weights"]["choice"].get<std::string>().find("preferred") != std::string::npos);
    }

    void xlmRobertaFolder() {
        // A random XLM-R with a SentencePiece tokenizer, written by python3-sentencepiece and numpy.
        const auto corpus = test::runXlmrReference({"corpus", path("xlmr-data")});
        if (!corpus.ran) QSKIP(qPrintable(corpus.message));
        QVERIFY2(corpus.message.isEmpty(), qPrintable(corpus.message));
        const auto folder = dir_.path("xlmr");
        fs::create_directories(folder);
        fs::copy_file(dir_.path("xlmr-data") / "sentencepiece.bpe.model", folder / "sentencepiece.bpe.model");
        test::writeFile(folder / "texts.txt", "Herzinfarkt\n");
        const auto model = test::runXlmrReference({"model", path("xlmr"), path("xlmr") + "/texts.txt", "roberta."});
        QVERIFY2(model.message.isEmpty(), qPrintable(model.message));

        const auto r = test::runCli({"model", "check", "--json", path("xlmr")});
        if (r.err.contains("no SentencePiece support")) QSKIP("this build has no SentencePiece support");
        QVERIFY2(r.exitCode == 0, qPrintable(checkFailure(r)));
        const json report = r.json();
        const json config = json::parse(test::readFile(folder / "config.json"));
        QCOMPARE(report["architecture"]["model_type"].get<std::string>(), std::string("xlm-roberta"));
        QCOMPARE(report["tokenizer"]["kind"].get<std::string>(), std::string("SentencePiece Unigram"));
        QCOMPARE(report["tokenizer"]["file"].get<std::string>(), std::string("sentencepiece.bpe.model"));
        QCOMPARE(report["tokenizer"]["lower_case"].get<bool>(), false);
        QCOMPARE(report["tokenizer"]["casing_source"].get<std::string>(), std::string("SentencePiece model"));
        // XLM-R's positions start at padding_idx + 1: two of them hold no token.
        QCOMPARE(report["max_length"].get<int>(), config["max_position_embeddings"].get<int>() - 2);
        QVERIFY(report["parameters"]["pretraining_head"].get<std::uint64_t>() > 0);  // the lm_head
        QVERIFY(report["warnings"].empty());
        const auto text = test::runCli({"model", "check", path("xlmr")});
        QVERIFY2(text.out.contains("less XLM-R's position offset 2"), text.out.constData());
    }

    void tokenizerJsonOnly() {
        const auto folder = dir_.path("tokenizer-json");
        test::writeTinyCheckpoint(folder, false);
        fs::remove(folder / "vocab.txt");
        test::writeFile(folder / "tokenizer.json", tokenizerJson(test::tinyVocabulary(false)));
        const auto r = test::runCli({"model", "check", "--json", path("tokenizer-json")});
        QVERIFY2(r.exitCode == 0, qPrintable(checkFailure(r)));
        const json report = r.json();
        QCOMPARE(report["tokenizer"]["kind"].get<std::string>(), std::string("WordPiece"));
        QCOMPARE(report["tokenizer"]["file"].get<std::string>(), std::string("tokenizer.json"));
        QCOMPARE(report["tokenizer"]["casing_source"].get<std::string>(), std::string("tokenizer.json"));
        QCOMPARE(report["tokenizer"]["ids"].get<std::int64_t>(), kVocabSize);
        const auto text = test::runCli({"model", "check", path("tokenizer-json")});
        QVERIFY2(text.out.contains("tokenizer: WordPiece from tokenizer.json"), text.out.constData());
    }

    void bioSynFolder() {
        const auto folder = dir_.path("biosyn");
        test::writeTinyCheckpoint(folder, false);
        test::writeFile(folder / "sparse_weight.pt", sparseWeightFile(2.5f));
        // What a pickled scikit-learn object looks like: it must never be unpickled.
        test::writeFile(folder / "sparse_encoder.pk", "\x80\x04\x95\x10\x00cposix\nsystem\n.");
        const auto text = test::runCli({"model", "check", path("biosyn")});
        QVERIFY2(text.exitCode == 0, qPrintable(checkFailure(text)));
        QVERIFY2(text.out.contains("biosyn sparse weight: 2.5 from sparse_weight.pt"), text.out.constData());
        QVERIFY2(text.out.contains("sparse_encoder.pk (a pickled scikit-learn vectorizer) is not loaded"),
                 text.out.constData());
        QVERIFY2(text.out.contains("refit from the dictionary with BioSyn's settings"), text.out.constData());

        const auto r = test::runCli({"model", "check", "--json", path("biosyn")});
        const json report = r.json();
        QCOMPARE(report["biosyn"]["sparse_weight"].get<double>(), 2.5);
        QCOMPARE(report["biosyn"]["sparse_weight_file"].get<std::string>(), std::string("sparse_weight.pt"));
        QCOMPARE(report["biosyn"]["sparse_encoder_file"].get<std::string>(), std::string("sparse_encoder.pk"));
        QVERIFY(report["biosyn"]["sparse_index"].get<std::string>().find("never unpickled") != std::string::npos);
    }

    void brokenFoldersFailNamingTheFile() {
        const auto truncated = dir_.path("truncated");
        test::writeTinyCheckpoint(truncated, false);
        fs::resize_file(truncated / "model.safetensors", fs::file_size(truncated / "model.safetensors") - 100);
        const auto r = test::runCli({"model", "check", path("truncated")});
        QVERIFY2(r.exitCode != 0, qPrintable(checkFailure(r)));
        const QByteArray safetensors = (truncated / "model.safetensors").string().c_str();
        QVERIFY2(r.err.contains("cannot be loaded") && r.err.contains(safetensors), r.err.constData());
        QVERIFY2(r.out.contains("error: " + safetensors) && r.out.contains("status: cannot be loaded"),
                 r.out.constData());
        const auto j = test::runCli({"model", "check", "--json", path("truncated")});
        QVERIFY(j.exitCode != 0);
        QCOMPARE(j.json()["loadable"].get<bool>(), false);
        QVERIFY(j.json()["errors"][0].get<std::string>().find(safetensors.constData()) != std::string::npos);

        // A pickle that asks for os.system is refused, naming the file and the global.
        const auto hostile = dir_.path("hostile");
        test::writeTinyCheckpoint(hostile, false);
        fs::remove(hostile / "model.safetensors");
        test::writeFile(hostile / "pytorch_model.bin", test::storedZip({{"archive/data.pkl", test::PickleBuilder()
                                                                                                 .global("os", "system")
                                                                                                 .string("touch owned")
                                                                                                 .raw("\x85")
                                                                                                 .reduce()
                                                                                                 .stop()
                                                                                                 .bytes()},
                                                                        {"archive/version", "3\n"}}));
        const auto h = test::runCli({"model", "check", path("hostile")});
        QVERIFY2(h.exitCode != 0 && h.err.contains("pytorch_model.bin") && h.err.contains("os"),
                 qPrintable(checkFailure(h)));
        QVERIFY(!QFileInfo::exists(QStringLiteral("owned")));

        const auto noConfig = dir_.path("no-config");
        test::writeTinyCheckpoint(noConfig, false);
        fs::remove(noConfig / "config.json");
        const auto c = test::runCli({"model", "check", path("no-config")});
        QVERIFY2(c.exitCode != 0 && c.err.contains("no config.json"), qPrintable(checkFailure(c)));

        // config.json that does not belong to the weights: refused as loading refuses it.
        const auto mismatch = dir_.path("mismatch");
        test::writeTinyCheckpoint(mismatch, false);
        test::writeFile(mismatch / "config.json", test::tinyBertConfig(kVocabSize * 4));
        const auto m = test::runCli({"model", "check", path("mismatch")});
        QVERIFY2(m.exitCode != 0 && m.err.contains("config.json") && m.err.contains("does not belong"),
                 qPrintable(checkFailure(m)));
    }
};

QTEST_GUILESS_MAIN(TestCliModelCheck)
#include "test_cli_model_check.moc"
