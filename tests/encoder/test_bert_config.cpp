// config.json of a BERT checkpoint: a SapBERT-like config read as transformers writes it, the
// round trip keeping keys we do not interpret, the parameter count against a hand computation,
// and every refusal as a ParseError naming the file.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "encoder/bert_config.h"
#include "encoder/compact_encoder.h"
#include "fixtures.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;

namespace {

// The config.json of cambridgeltl/SapBERT-from-PubMedBERT-fulltext as transformers saves it:
// the bert-base-uncased layout (vocab 30522) plus keys this engine does not interpret.
constexpr std::string_view kSapBertConfig = R"({
  "_name_or_path": "cambridgeltl/SapBERT-from-PubMedBERT-fulltext",
  "architectures": [
    "BertModel"
  ],
  "attention_probs_dropout_prob": 0.1,
  "classifier_dropout": null,
  "gradient_checkpointing": false,
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.1,
  "hidden_size": 768,
  "initializer_range": 0.02,
  "intermediate_size": 3072,
  "layer_norm_eps": 1e-12,
  "max_position_embeddings": 512,
  "model_type": "bert",
  "num_attention_heads": 12,
  "num_hidden_layers": 12,
  "pad_token_id": 0,
  "position_embedding_type": "absolute",
  "torch_dtype": "float32",
  "transformers_version": "4.18.0",
  "type_vocab_size": 2,
  "use_cache": true,
  "vocab_size": 30522
}
)";

constexpr std::string_view kRequiredOnly =
    R"({"vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128})";

/// kRequiredOnly with more members appended.
std::string requiredWith(std::string_view extraMembers) {
    std::string text(kRequiredOnly);
    text.insert(text.size() - 1, ", " + std::string(extraMembers));
    return text;
}

std::string replaced(std::string text, std::string_view from, std::string_view to) {
    const auto at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

QJsonObject readJsonObject(const std::filesystem::path& file) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(test::readFile(file))).object();
}

}  // namespace

class TestBertConfig : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;

private Q_SLOTS:
    void poolingNames() {
        for (const Pooling pooling : {Pooling::Cls, Pooling::Mean, Pooling::Markers, Pooling::StartEnd})
            QCOMPARE(parsePooling(poolingName(pooling)), std::optional<Pooling>(pooling));
        QCOMPARE(poolingName(Pooling::StartEnd), std::string_view("start-end"));
        QCOMPARE(poolingName(Pooling::Markers), std::string_view("markers"));
        QVERIFY(!parsePooling("CLS").has_value());
        QVERIFY(!parsePooling("max").has_value());
    }

    void readsASapBertConfig() {
        const auto path = dir_.write("config.json", kSapBertConfig);
        const BertConfig config = BertConfig::load(path);
        QCOMPARE(config.vocabSize, std::size_t{30522});
        QCOMPARE(config.hiddenSize, std::size_t{768});
        QCOMPARE(config.numHiddenLayers, std::size_t{12});
        QCOMPARE(config.numAttentionHeads, std::size_t{12});
        QCOMPARE(config.intermediateSize, std::size_t{3072});
        QCOMPARE(config.maxPositionEmbeddings, std::size_t{512});
        QCOMPARE(config.typeVocabSize, std::size_t{2});
        QCOMPARE(config.padTokenId, std::size_t{0});
        QCOMPARE(config.layerNormEps, 1e-12);
        QCOMPARE(config.hiddenAct, std::string("gelu"));
        QCOMPARE(config.hiddenDropoutProb, 0.1);
        QCOMPARE(config.attentionProbsDropoutProb, 0.1);
        QCOMPARE(config.initializerRange, 0.02);
        QCOMPARE(config.positionEmbeddingType, std::string("absolute"));
        QCOMPARE(config.pooling, Pooling::Cls);
        QCOMPARE(config.projectionDim, std::size_t{0});

        const QJsonObject extra = QJsonDocument::fromJson(QByteArray::fromStdString(config.extraJson)).object();
        QCOMPARE(extra.keys(), (QStringList{"_name_or_path", "classifier_dropout", "gradient_checkpointing",
                                            "torch_dtype", "transformers_version", "use_cache"}));
        QVERIFY(extra.value("classifier_dropout").isNull());
        QCOMPARE(extra.value("transformers_version").toString(), QString("4.18.0"));
        QCOMPARE(extra.value("use_cache").toBool(), true);
    }

    void parameterCountOfBertBase() {
        // The formula, term by term, for bert-base (h 768, i 3072, 12 layers, vocab 30522):
        //   embeddings  vocab*h + positions*h + types*h + LayerNorm 2h
        //             = 23,440,896 + 393,216 + 1,536 + 1,536           = 23,837,184
        //   one layer   Q,K,V,attention-output 4(h*h+h)    = 2,362,368
        //               two LayerNorms 2*2h                =     3,072
        //               intermediate h*i+i                 = 2,362,368
        //               output i*h+h                       = 2,360,064
        //                                                  = 7,087,872, x 12 = 85,054,464
        //   encoder     23,837,184 + 85,054,464                        = 108,891,648
        //   pooler      h*h+h = 590,592 (not counted)  ->  with it       109,482,240
        const std::size_t h = 768, i = 3072, vocab = 30522, positions = 512, types = 2, layers = 12;
        const std::size_t embeddings = vocab * h + positions * h + types * h + 2 * h;
        const std::size_t layer = 4 * (h * h + h) + 2 * 2 * h + (h * i + i) + (i * h + h);
        QCOMPARE(embeddings, std::size_t{23'837'184});
        QCOMPARE(layer, std::size_t{7'087'872});
        QCOMPARE(embeddings + layers * layer, std::size_t{108'891'648});
        QCOMPARE(embeddings + layers * layer + (h * h + h), std::size_t{109'482'240});

        const BertConfig base;  // the defaults are bert-base
        QCOMPARE(base.parameterCount(), std::size_t{108'891'648});
        const BertConfig loaded = BertConfig::load(dir_.write("config.json", kSapBertConfig));
        QCOMPARE(loaded.parameterCount(), std::size_t{108'891'648});

        BertConfig projected = base;
        projected.projectionDim = 128;  // BELHD's head: h*p + p = 98,432 more
        QCOMPARE(projected.parameterCount(), std::size_t{108'891'648 + 98'432});
    }

    void parameterCountOfATinyModel() {
        BertConfig tiny;
        tiny.vocabSize = 10;
        tiny.hiddenSize = 4;
        tiny.numHiddenLayers = 1;
        tiny.numAttentionHeads = 2;
        tiny.intermediateSize = 8;
        tiny.maxPositionEmbeddings = 6;
        tiny.typeVocabSize = 2;
        // embeddings 40 + 24 + 8 + 8 = 80; layer 4*20 + 16 + 40 + 36 = 172; head 4*3+3 = 15
        tiny.projectionDim = 3;
        QCOMPARE(tiny.parameterCount(), std::size_t{80 + 172 + 15});
    }

    void roundTripKeepsExtraKeys() {
        BertConfig config = BertConfig::load(dir_.write("config.json", kSapBertConfig));
        config.pooling = Pooling::Markers;
        config.projectionDim = 128;
        config.layerNormEps = 1e-5;
        config.hiddenDropoutProb = 0.25;
        config.initializerRange = 0.0123456789;
        const auto saved = dir_.path("saved-config.json");
        config.save(saved);

        const BertConfig again = BertConfig::load(saved);
        QCOMPARE(again.vocabSize, config.vocabSize);
        QCOMPARE(again.hiddenSize, config.hiddenSize);
        QCOMPARE(again.numHiddenLayers, config.numHiddenLayers);
        QCOMPARE(again.numAttentionHeads, config.numAttentionHeads);
        QCOMPARE(again.intermediateSize, config.intermediateSize);
        QCOMPARE(again.maxPositionEmbeddings, config.maxPositionEmbeddings);
        QCOMPARE(again.typeVocabSize, config.typeVocabSize);
        QCOMPARE(again.padTokenId, config.padTokenId);
        QCOMPARE(again.layerNormEps, 1e-5);
        QCOMPARE(again.hiddenDropoutProb, 0.25);
        QCOMPARE(again.attentionProbsDropoutProb, 0.1);
        QCOMPARE(again.initializerRange, 0.0123456789);
        QCOMPARE(again.hiddenAct, config.hiddenAct);
        QCOMPARE(again.positionEmbeddingType, config.positionEmbeddingType);
        QCOMPARE(again.pooling, Pooling::Markers);
        QCOMPARE(again.projectionDim, std::size_t{128});
        QCOMPARE(again.extraJson, config.extraJson);

        // What transformers will read: its own keys, the untouched extras, and ours under "linkscope".
        const QJsonObject json = readJsonObject(saved);
        QCOMPARE(json.value("architectures").toArray(), QJsonArray{"BertModel"});
        QCOMPARE(json.value("model_type").toString(), QString("bert"));
        QCOMPARE(json.value("vocab_size").toInt(), 30522);
        QCOMPARE(json.value("_name_or_path").toString(), QString("cambridgeltl/SapBERT-from-PubMedBERT-fulltext"));
        QVERIFY(json.contains("classifier_dropout") && json.value("classifier_dropout").isNull());
        QCOMPARE(json.value("gradient_checkpointing").toBool(true), false);
        QCOMPARE(json.value("linkscope").toObject().value("pooling").toString(), QString("markers"));
        QCOMPARE(json.value("linkscope").toObject().value("projection_dim").toInt(), 128);
    }

    void requiredKeysAloneGiveBertDefaults() {
        const BertConfig config = BertConfig::load(dir_.write("config.json", kRequiredOnly));
        QCOMPARE(config.vocabSize, std::size_t{100});
        QCOMPARE(config.hiddenSize, std::size_t{64});
        QCOMPARE(config.maxPositionEmbeddings, std::size_t{512});
        QCOMPARE(config.typeVocabSize, std::size_t{2});
        QCOMPARE(config.layerNormEps, 1e-12);
        QCOMPARE(config.hiddenAct, std::string("gelu"));
        QCOMPARE(config.pooling, Pooling::Cls);
        QCOMPARE(config.extraJson, std::string("{}"));
    }

    void linkscopeKeys() {
        const BertConfig config = BertConfig::load(
            dir_.write("config.json", requiredWith(R"("linkscope": {"pooling": "start-end", "projection_dim": 32})")));
        QCOMPARE(config.pooling, Pooling::StartEnd);
        QCOMPARE(config.projectionDim, std::size_t{32});
        QCOMPARE(config.extraJson, std::string("{}"));
        QCOMPARE(config.projectionHead, ProjectionHead::Linear);  // older files: a plain Linear head
        const BertConfig belhd = BertConfig::load(dir_.write(
            "belhd.json", requiredWith(R"("linkscope": {"projection_dim": 8, "projection_head": "layernorm"})")));
        QCOMPARE(belhd.projectionHead, ProjectionHead::LayerNorm);
        QCOMPARE(belhd.mentionContextWeight, 0.5);  // without the key: the plain mean
        const BertConfig weighted = BertConfig::load(dir_.write(
            "weighted.json", requiredWith(R"("linkscope": {"mention_alone": true, "mention_context_weight": 0.25})")));
        QVERIFY(weighted.mentionAlone);
        QCOMPARE(weighted.mentionContextWeight, 0.25);
        weighted.save(dir_.path("saved.json"));
        QCOMPARE(BertConfig::load(dir_.path("saved.json")).mentionContextWeight, 0.25);
    }

    // A damaged "projection_head" is refused with the file's name, never read as another head.
    void badProjectionHead() {
        for (const char* value : {R"("banana")", "3", "null", R"(["layernorm"])"}) {
            const auto file = dir_.write(
                "head.json", requiredWith(std::string(R"("linkscope": {"projection_head": )") + value + "}"));
            try {
                BertConfig::load(file);
                QFAIL(qPrintable(QString("accepted projection_head %1").arg(value)));
            } catch (const ParseError& e) {
                QVERIFY2(std::string(e.what()).find(file.string()) != std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).find("projection_head") != std::string::npos, e.what());
            }
        }
    }

    void refusals_data() {
        QTest::addColumn<QString>("content");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("fragment");
        const auto row = [](const char* name, const std::string& content, int line, const char* fragment) {
            QTest::newRow(name) << QString::fromStdString(content) << line << QString::fromUtf8(fragment);
        };
        const std::string sap(kSapBertConfig);
        row("empty file", "", 1, "not valid JSON");
        row("not JSON", "{\n  \"vocab_size\": 30522,\n}\n", 3, "not valid JSON");
        row("JSON array", "[1, 2]", 0, "must be a JSON object");
        // Deep nesting is refused at a fixed depth with a short message: the value is never
        // dumped into the error, and encode / eval / train do not recurse without bound.
        row("nested 100,000 deep", "{\"hidden_size\": " + std::string(100000, '[') + std::string(100000, ']') + "}", 1,
            "nested deeper than 64 levels");
        row("nested value of a key",
            requiredWith("\"linkscope\": {\"pooling\": " + std::string(60, '[') + std::string(60, ']') + "}"), 0,
            "\"pooling\" must be a string");
        for (const char* key :
             {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"}) {
            // The SapBERT config without that key's line (and without the comma that would
            // then dangle before the closing brace, when it was the last key).
            std::string text = sap;
            const auto at = text.find(std::string("\"") + key + "\"");
            text.erase(at, text.find('\n', at) + 1 - at);
            if (const auto close = text.rfind('}'), comma = text.rfind(',', close);
                text.find_first_not_of(" \n", comma + 1) == close)
                text.erase(comma, 1);
            row(qPrintable(QString("missing %1").arg(key)), text, 0,
                qPrintable(QString("missing required key \"%1\"").arg(key)));
        }
        row("wrong type string", replaced(sap, "\"hidden_size\": 768", "\"hidden_size\": \"768\""), 0,
            "\"hidden_size\" must be a non-negative integer, not string \"768\"");
        row("wrong type float", replaced(sap, "\"hidden_size\": 768", "\"hidden_size\": 768.5"), 0,
            "\"hidden_size\" must be a non-negative integer");
        row("negative size", replaced(sap, "\"num_hidden_layers\": 12", "\"num_hidden_layers\": -1"), 0,
            "\"num_hidden_layers\" must be a non-negative integer");
        row("eps not a number", replaced(sap, "\"layer_norm_eps\": 1e-12", "\"layer_norm_eps\": \"small\""), 0,
            "\"layer_norm_eps\" must be a number");
        row("hidden_act not a string", replaced(sap, "\"hidden_act\": \"gelu\"", "\"hidden_act\": 1"), 0,
            "\"hidden_act\" must be a string");
        row("gelu_new", replaced(sap, "\"hidden_act\": \"gelu\"", "\"hidden_act\": \"gelu_new\""), 0,
            "hidden_act \"gelu_new\" is not supported: this engine implements only \"gelu\"");
        row("relu", replaced(sap, "\"hidden_act\": \"gelu\"", "\"hidden_act\": \"relu\""), 0,
            "hidden_act \"relu\" is not supported");
        row("hidden not divisible by heads", replaced(sap, "\"hidden_size\": 768", "\"hidden_size\": 770"), 0,
            "hidden_size 770 is not divisible by num_attention_heads 12");
        row("zero heads", replaced(sap, "\"num_attention_heads\": 12", "\"num_attention_heads\": 0"), 0,
            "\"num_attention_heads\" must be at least 1");
        row("model_type roberta", replaced(sap, "\"model_type\": \"bert\"", "\"model_type\": \"roberta\""), 0,
            "model_type \"roberta\" is not supported");
        row("relative positions",
            replaced(sap, "\"position_embedding_type\": \"absolute\"", "\"position_embedding_type\": \"relative_key\""),
            0, "position_embedding_type \"relative_key\" is not supported");
        row("pad outside vocabulary", replaced(sap, "\"pad_token_id\": 0", "\"pad_token_id\": 30522"), 0,
            "pad_token_id 30522 is outside the vocabulary");
        row("dropout of 1.5", replaced(sap, "\"hidden_dropout_prob\": 0.1", "\"hidden_dropout_prob\": 1.5"), 0,
            "\"hidden_dropout_prob\" must lie in [0, 1)");
        row("overflowing sizes", replaced(sap, "\"vocab_size\": 30522", "\"vocab_size\": 18446744073709551615"), 0,
            "overflows");
        row("unknown pooling", requiredWith(R"("linkscope": {"pooling": "max"})"), 0,
            "linkscope: \"pooling\" \"max\" is not one of cls, mean, markers, start-end");
        row("unknown linkscope key", requiredWith(R"("linkscope": {"poling": "cls"})"), 0,
            "\"linkscope\" has the unknown key \"poling\"");
        row("linkscope not object", requiredWith(R"("linkscope": "cls")"), 0, "\"linkscope\" must be an object");
        row("projection_dim negative", requiredWith(R"("linkscope": {"projection_dim": -3})"), 0,
            "linkscope: \"projection_dim\" must be a non-negative integer");
        row("context weight above 1", requiredWith(R"("linkscope": {"mention_context_weight": 2})"), 0,
            "\"mention_context_weight\" must be a number from 0 to 1");
        row("context weight a string", requiredWith(R"("linkscope": {"mention_context_weight": "half"})"), 0,
            "\"mention_context_weight\" must be a number from 0 to 1");
    }
    void refusals() {
        QFETCH(QString, content);
        QFETCH(int, line);
        QFETCH(QString, fragment);
        const auto path = dir_.write("config.json", content.toStdString());
        LINKSCOPE_EXPECT_PARSE_ERROR(BertConfig::load(path), path, static_cast<std::size_t>(line),
                                     fragment.toStdString());
    }

    void nonUtf8ConfigNamesTheLine() {
        const auto path = dir_.write("config.json", "{\n  \"vocab_size\": 1,\n  \"x\": \"\xff\"\n}\n");
        LINKSCOPE_EXPECT_PARSE_ERROR(BertConfig::load(path), path, 3, "UTF-8");
    }

    void missingConfigIsAParseError() {
        const auto path = dir_.path("absent-config.json");
        LINKSCOPE_EXPECT_PARSE_ERROR(BertConfig::load(path), path, 0, "");
    }

    void validateRefusesInconsistentSizes() {
        BertConfig config;
        config.validate();  // bert-base is fine
        config.hiddenSize = 100;
        QVERIFY_THROWS_EXCEPTION(Error, config.validate());
        config = BertConfig{};
        config.vocabSize = 0;
        QVERIFY_THROWS_EXCEPTION(Error, config.validate());
        config = BertConfig{};
        config.hiddenAct = "gelu_new";
        QVERIFY_THROWS_EXCEPTION(Error, config.validate());
    }

    void saveRefusesWhatItCannotWriteFaithfully() {
        const auto path = dir_.path("refused-config.json");
        BertConfig config;
        config.extraJson = R"({"hidden_size": 1})";  // would contradict the field
        QVERIFY_THROWS_EXCEPTION(Error, config.save(path));
        config.extraJson = "[]";
        QVERIFY_THROWS_EXCEPTION(Error, config.save(path));
        config.extraJson = "{oops";
        QVERIFY_THROWS_EXCEPTION(Error, config.save(path));
        config.extraJson = "{}";
        config.numAttentionHeads = 7;
        QVERIFY_THROWS_EXCEPTION(Error, config.save(path));
        QVERIFY(!std::filesystem::exists(path));
    }

    // A compact-encoder preset is outside data: sizes that would build a model beyond any use
    // are refused, naming the preset, before anything is allocated.
    void compactPresetSizesAreBoundedBeforeAllocation_data() {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("vocabulary");
        QTest::addColumn<QString>("fragment");
        const QString sane =
            R"("hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128)";
        const QString vocabulary = R"({"size": 100})";
        QTest::newRow("sane") << sane << vocabulary << "";
        QTest::newRow("hidden 1e9") << QString(sane).replace("\"hidden_size\": 64", "\"hidden_size\": 1000000000")
                                    << vocabulary << "parameter";
        QTest::newRow("intermediate 1e12")
            << QString(sane).replace("\"intermediate_size\": 128", "\"intermediate_size\": 1000000000000") << vocabulary
            << "parameter";
        QTest::newRow("positions 1e12") << sane + R"(, "max_position_embeddings": 1000000000000)" << vocabulary
                                        << "max_position_embeddings";
        QTest::newRow("layers 1e7") << QString(sane).replace("\"num_hidden_layers\": 2",
                                                             "\"num_hidden_layers\": 10000000")
                                    << vocabulary << "num_hidden_layers";
        QTest::newRow("vocabulary 1e30") << sane << R"({"size": 1e30})"
                                         << "\"size\" must be a whole number";
        QTest::newRow("vocabulary 2.5") << sane << R"({"size": 2.5})"
                                        << "\"size\" must be a whole number";
        QTest::newRow("vocabulary -1") << sane << R"({"size": -1})"
                                       << "\"size\" must be a whole number";
        QTest::newRow("lower_case 1") << sane << R"({"lower_case": 1})"
                                      << "lower_case";
    }
    void compactPresetSizesAreBoundedBeforeAllocation() {
        QFETCH(QString, config);
        QFETCH(QString, vocabulary);
        QFETCH(QString, fragment);
        const auto path = dir_.write(
            "compact-preset.json",
            ("{\"config\": {" + config + "}, \"vocabulary\": " + vocabulary + ", \"seed\": 1}").toStdString());
        if (fragment.isEmpty()) {
            const CompactEncoderPreset preset = CompactEncoderPreset::load(path);
            QCOMPARE(preset.config.hiddenSize, std::size_t{64});
            QCOMPARE(preset.vocabulary.vocabularySize, std::size_t{100});
            QCOMPARE(preset.seed, std::uint64_t{1});
            return;
        }
        LINKSCOPE_EXPECT_PARSE_ERROR(CompactEncoderPreset::load(path), path, 0, fragment.toStdString());
    }
};

QTEST_APPLESS_MAIN(TestBertConfig)
#include "test_bert_config.moc"
