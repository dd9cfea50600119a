// pytorch_model.bin read by the restricted unpickler gives the same model as its safetensors
// twin, bit for bit: torch itself (Debian's python3-torch, run as /usr/bin/python3) writes the
// .bin files in both serializations and in F32, F16 and BF16, with a tied head, an offset view
// and a transposed weight (tests/encoder/write_torch_checkpoints.py). Skipped with a message
// where /usr/bin/python3 or its torch module is absent.
#include <QProcess>

#include <cstring>
#include <string>
#include <vector>

#include "encoder/bert_weights.h"
#include "encoder/biosyn_folder.h"
#include "encoder/text_encoder.h"
#include "encoder/torch_checkpoint.h"
#include "fixtures.h"
#include "tiny_bert.h"
#include "util/error.h"

using namespace linkscope;
using namespace linkscope::encoder;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string>& texts() {
    static const std::vector<std::string> list = {"heart attack", "breast cancer", "acute renal failure",
                                                  "myocardial infarction of the left ventricle"};
    return list;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

class TestTorchCheckpoint : public QObject {
    Q_OBJECT
    test::FixtureDir dir_;
    QString skipReason_;

    fs::path out() const { return dir_.path("out"); }
    std::vector<float> encodeFolder(const std::string& name) {
        EncoderOptions options;
        options.device = DevicePreference::Cpu;
        return TextEncoder::load(out() / name, options).encode(texts());
    }

private Q_SLOTS:
    void initTestCase() {
        const QString python = QStringLiteral("/usr/bin/python3");
        if (!QFileInfo::exists(python)) {
            skipReason_ = "/usr/bin/python3 is absent: no torch-written reference checkpoints";
            return;
        }
        QProcess probe;
        probe.start(python, {"-c", "import torch"});
        if (!probe.waitForFinished(60000) || probe.exitCode() != 0) {
            skipReason_ = "/usr/bin/python3 has no torch module (Debian's python3-torch): no reference checkpoints";
            return;
        }
        const auto source = dir_.path("source");
        test::tinyBert(texts(), Pooling::Cls).save(source);
        QProcess writer;
        writer.start(python, {QStringLiteral(LINKSCOPE_SOURCE_DIR "/tests/encoder/write_torch_checkpoints.py"),
                              QString::fromStdString(source.string()), QString::fromStdString(out().string())});
        QVERIFY(writer.waitForFinished(120000));
        QVERIFY2(writer.exitCode() == 0, writer.readAllStandardError().constData());
    }

    void binEncodesAsItsSafetensorsTwin_data() {
        QTest::addColumn<QString>("bin");
        QTest::addColumn<QString>("twin");
        for (const char* dtype : {"f32", "f16", "bf16"}) {
            QTest::newRow(("zip " + std::string(dtype)).c_str()) << QString("zip-") + dtype << QString("safe-") + dtype;
            QTest::newRow(("legacy " + std::string(dtype)).c_str())
                << QString("legacy-") + dtype << QString("safe-") + dtype;
        }
        QTest::newRow("zip sharded") << "zip-sharded"
                                     << "safe-f32";
    }
    void binEncodesAsItsSafetensorsTwin() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        QFETCH(QString, bin);
        QFETCH(QString, twin);
        const auto fromBin = encodeFolder(bin.toStdString());
        const auto fromTwin = encodeFolder(twin.toStdString());
        QVERIFY(!fromBin.empty());
        QVERIFY2(sameBits(fromBin, fromTwin), qPrintable(bin + " differs from " + twin));
    }

    // What the reader saw: the format, the tied head sharing the embeddings' bytes, the dtypes.
    void readerSeesTorchsLayout() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        const auto zip = TorchCheckpointFile::read(out() / "zip-bf16" / "pytorch_model.bin");
        QCOMPARE(zip.format(), TorchCheckpointFile::Format::Zip);
        const auto legacy = TorchCheckpointFile::read(out() / "legacy-f16" / "pytorch_model.bin");
        QCOMPARE(legacy.format(), TorchCheckpointFile::Format::Legacy);
        for (const auto* file : {&zip, &legacy}) {
            const auto* words = file->find("bert.embeddings.word_embeddings.weight");
            const auto* head = file->find("cls.predictions.decoder.weight");
            QVERIFY(words && head);
            QCOMPARE(head->bytes.data(), words->bytes.data());  // one storage, read once
            QCOMPARE(words->dtype, file == &zip ? DType::BF16 : DType::F16);
        }
        // A model's own file keeps tensors from the F32 original: the head is skipped, the rest maps.
        const std::vector<fs::path> files = {out() / "zip-f32" / "pytorch_model.bin"};
        const auto tensors = readCheckpointTensors(files);
        QVERIFY(tensors.parameters.contains("embeddings.LayerNorm.weight"));
        QCOMPARE(tensors.skipped, std::vector<std::string>{"cls.predictions.decoder.weight"});
    }

    void singleTensorFiles() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        for (const char* name : {"sparse_weight.pt", "sparse_weight_legacy.pt"}) {
            const auto file = TorchCheckpointFile::read(out() / name);
            QCOMPARE(file.tensors().size(), std::size_t{1});
            const auto& tensor = file.tensors().front();
            QCOMPARE(tensor.name, std::string());
            QCOMPARE(tensor.dtype, DType::F32);
            float value = 0;
            QCOMPARE(tensor.bytes.size(), sizeof value);
            std::memcpy(&value, tensor.bytes.data(), sizeof value);
            QCOMPARE(value, 0.3125f);
        }
    }

    // A BioSyn folder: sparse_weight.pt is lambda; sparse_encoder.pk is found, never read.
    void bioSynFolder() {
        if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
        const auto folder = out() / "zip-f32";
        QVERIFY(!readBioSynFolder(folder).sparseWeight);
        fs::copy_file(out() / "sparse_weight.pt", folder / kBioSynSparseWeightFile);
        test::writeFile(folder / kBioSynSparseEncoderFile,
                        "\x80\x03csklearn.feature_extraction.text\nTfidfVectorizer\n.");
        const auto biosyn = readBioSynFolder(folder);
        QCOMPARE(biosyn.sparseWeight.value_or(-1.0f), 0.3125f);
        QCOMPARE(biosyn.sparseEncoderFile, folder / kBioSynSparseEncoderFile);
        // Still an encoder folder: the extra files change nothing of the model.
        QVERIFY(sameBits(encodeFolder("zip-f32"), encodeFolder("safe-f32")));
    }
};

QTEST_GUILESS_MAIN(TestTorchCheckpoint)
#include "test_torch_checkpoint.moc"
